//! A structural checker for generated Isabelle theories. Isabelle itself is not available to
//! the test suite, so this checks what can be checked without it: every theory is
//! `theory NAME imports … begin … end` with NAME its file name and every import generated or
//! HOL's; quotes, cartouches, comments, parentheses, brackets, braces and record brackets are
//! balanced; no constant is defined twice; every identifier in a term is a constant defined in
//! the theory or one it imports, a HOL constant the export uses, or a variable bound in that
//! place (definition arguments, `fixes`/`fix`, quantifiers, λ, set comprehensions, `let`, case
//! patterns); every type name is declared or HOL's; and every fact a proof uses exists.

use std::collections::{BTreeMap, BTreeSet, HashSet};

/// HOL constants and syntax words the export may use in terms.
const HOL_CONSTANTS: &[&str] = &[
    "True",
    "False",
    "Some",
    "None",
    "the",
    "card",
    "finite",
    "set_mset",
    "int",
    "nat",
    "insert",
    "hd",
    "tl",
    "min",
    "max",
    "Min",
    "Max",
    "abs",
    "dom",
    "set",
    "length",
    "size",
    "list_update",
    "removeAll",
    "add_mset",
    "fst",
    "snd",
    "map",
    "undefined",
    "if",
    "then",
    "else",
    "let",
    "in",
    "case",
    "of",
    "SOME",
    "div",
    "mod",
    "List",
    "map_filter",
    "inj",
];

/// HOL types the export may use.
const HOL_TYPES: &[&str] = &[
    "bool", "int", "nat", "set", "list", "option", "multiset", "string", "ioa",
];

/// Facts from HOL the proofs may use.
const HOL_FACTS: &[&str] = &[
    "this",
    "assms",
    "True",
    "False",
    "Let_def",
    "if_split_asm",
    "if_split",
    "if_cong",
    "if_distrib",
    "if_distribR",
    "finite_subset",
    "disjoint_iff",
    "option.distinct",
    "linorder_cases",
    "nth_append",
    "nth_tl",
    "hd_conv_nth",
    "hd_append",
    "imp_conjL",
    "allI",
    "impI",
    "injI",
];

/// What `IOA_Base` defines (checked by review, not by this checker: it is fixed text).
const BASE_CONSTANTS: &[&str] = &[
    "ioa_start",
    "ioa_trans",
    "reachable",
    "invariant",
    "exec_frag",
    "last_state",
    "sim_goal",
    "is_forward_sim",
    "ext_trace",
];
const BASE_FACTS: &[&str] = &[
    "invariantI",
    "invariant_def",
    "sim_goalI",
    "sim_goal_def",
    "is_forward_simI",
    "is_forward_sim_def",
    "reachable.induct",
    "int_card_eq_0_iff",
    "majorities_intersect",
    "majorities_intersect_int",
    "ex_upd_split",
    "mod_succ_ring",
    "mod_pred_ring",
    "ring_mod",
    "all_int_index",
    "hd_tl_conv_nth",
    "tl_Nil_iff",
    "finite_setcompr_image",
    "finite_int_field_range",
];

/// Greek letters the export uses as variable names.
const LETTER_SYMBOLS: &[&str] = &["sigma", "tau", "alpha"];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Sym(String),
    Punct(char),
    TypeVar,
}

/// Splits a term into tokens: identifiers (with `\<sigma>`-style letters and primes), symbols
/// (`\<and>`), punctuation.
fn tokens(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let letter_sym = |i: usize| -> Option<(String, usize)> {
        if chars[i] == '\\' && chars.get(i + 1) == Some(&'<') {
            let end = chars[i..].iter().position(|&c| c == '>')? + i;
            let name: String = chars[i + 2..end].iter().collect();
            return Some((name, end + 1));
        }
        None
    };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic()
            || letter_sym(i).is_some_and(|(n, _)| LETTER_SYMBOLS.contains(&n.as_str()))
        {
            let mut name = String::new();
            loop {
                if i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '\'')
                {
                    name.push(chars[i]);
                    i += 1;
                } else if i < chars.len() {
                    match letter_sym(i) {
                        Some((n, next)) if LETTER_SYMBOLS.contains(&n.as_str()) => {
                            name.push_str(&format!("\\<{n}>"));
                            i = next;
                        }
                        _ => break,
                    }
                } else {
                    break;
                }
            }
            // Qualified names such as `List.map_filter` and `reachable.induct`.
            if i + 1 < chars.len()
                && chars[i] == '.'
                && chars[i + 1].is_ascii_alphabetic()
                && (name == "List" || name == "reachable")
            {
                i += 1;
                let mut rest = String::new();
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                    rest.push(chars[i]);
                    i += 1;
                }
                name = format!("{name}.{rest}");
            }
            out.push(Tok::Ident(name));
        } else if c == '\'' && chars.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
            i += 1;
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            out.push(Tok::TypeVar);
        } else if c == '\'' && chars.get(i + 1) == Some(&'\'') {
            // A string literal ''…''.
            let rest: String = chars[i + 2..].iter().collect();
            let end = rest.find("''").expect("string literals are closed");
            i += 2 + rest[..end].chars().count() + 2;
        } else if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
        } else if let Some((name, next)) = letter_sym(i) {
            out.push(Tok::Sym(name));
            i = next;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// Checks that the delimiters of `text` nest properly.
fn balanced(text: &str, what: &str) -> Result<(), String> {
    let mut stack: Vec<&str> = Vec::new();
    let pairs = [
        ("(", ")"),
        ("[", "]"),
        ("{", "}"),
        ("\\<lparr>", "\\<rparr>"),
    ];
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if let Some((open, _)) = pairs.iter().find(|(o, _)| rest.starts_with(o)) {
            stack.push(open);
            i += open.len();
        } else if let Some((open, close)) = pairs.iter().find(|(_, c)| rest.starts_with(c)) {
            if stack.pop() != Some(open) {
                return Err(format!("unbalanced `{close}` in {what}: {text}"));
            }
            i += close.len();
        } else {
            i += rest.chars().next().map_or(1, |c| c.len_utf8());
        }
    }
    if let Some(open) = stack.pop() {
        return Err(format!("unclosed `{open}` in {what}: {text}"));
    }
    Ok(())
}

/// A theory split into outer text (with the quoted strings replaced by `"#k"`) and its quoted
/// strings, after removing comments and cartouches.
fn split(text: &str) -> Result<(String, Vec<String>), String> {
    let mut outer = String::new();
    let mut quoted = Vec::new();
    let mut i = 0;
    let bytes = text;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with("(*") {
            let end = rest.find("*)").ok_or("unclosed comment")?;
            i += end + 2;
        } else if rest.starts_with("\\<open>") {
            let mut depth = 0;
            let mut j = 0;
            loop {
                let r = &rest[j..];
                if r.is_empty() {
                    return Err("unclosed cartouche".into());
                }
                if r.starts_with("\\<open>") {
                    depth += 1;
                    j += "\\<open>".len();
                } else if r.starts_with("\\<close>") {
                    depth -= 1;
                    j += "\\<close>".len();
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += r.chars().next().map_or(1, |c| c.len_utf8());
                }
            }
            outer.push_str(" \\<open>\\<close> ");
            i += j;
        } else if let Some(body) = rest.strip_prefix('"') {
            let end = body.find('"').ok_or("unbalanced double quote")?;
            outer.push_str(&format!("\"#{}\"", quoted.len()));
            quoted.push(body[..end].to_string());
            i += end + 2;
        } else {
            let c = rest.chars().next().expect("not empty");
            outer.push(c);
            i += c.len_utf8();
        }
    }
    Ok((outer, quoted))
}

/// What a theory declares.
#[derive(Default, Debug, Clone)]
struct Declared {
    constants: BTreeSet<String>,
    types: BTreeSet<String>,
    facts: BTreeSet<String>,
}

/// Checks every generated file (name → contents) and returns the problems found.
pub fn check_export(files: &BTreeMap<String, String>) -> Vec<String> {
    let mut problems = Vec::new();
    let theories: BTreeSet<String> = files
        .keys()
        .filter_map(|n| n.strip_suffix(".thy").map(str::to_string))
        .collect();
    if let Some(root) = files.get("ROOT") {
        for t in &theories {
            if !root.lines().any(|l| l.trim() == t) {
                problems.push(format!("ROOT does not list theory {t}"));
            }
        }
    } else {
        problems.push("no ROOT file".into());
    }
    let mut declared: BTreeMap<String, Declared> = BTreeMap::new();
    let mut base = Declared::default();
    base.constants
        .extend(BASE_CONSTANTS.iter().map(|s| s.to_string()));
    base.facts.extend(BASE_FACTS.iter().map(|s| s.to_string()));
    base.types.insert("ioa".into());
    declared.insert("IOA_Base".into(), base);
    // Theories are listed in dependency order in ROOT; check them in that order.
    let order: Vec<String> = files
        .get("ROOT")
        .map(|r| {
            r.lines()
                .map(str::trim)
                .filter(|l| theories.contains(*l))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    for name in order {
        if name == "IOA_Base" {
            continue; // fixed text, declared above
        }
        let text = &files[&format!("{name}.thy")];
        match check_theory(&name, text, &theories, &declared) {
            Ok(decl) => {
                declared.insert(name, decl);
            }
            Err(mut p) => problems.append(&mut p),
        }
    }
    problems
}

fn idents(toks: &[Tok]) -> Vec<String> {
    toks.iter()
        .filter_map(|t| match t {
            Tok::Ident(n) => Some(n.clone()),
            _ => None,
        })
        .collect()
}

/// Names a term binds: after ∀ ∃ λ SOME up to `.`, in `{x. …}` / `{e |x. …}`, `let x =`, and
/// case patterns.
fn bound_in(toks: &[Tok], constants: &HashSet<String>) -> HashSet<String> {
    let mut bound = HashSet::new();
    for (k, t) in toks.iter().enumerate() {
        let binder = matches!(t, Tok::Sym(s) if s == "forall" || s == "exists" || s == "lambda")
            || matches!(t, Tok::Ident(s) if s == "SOME");
        if binder {
            let mut depth = 0;
            for u in &toks[k + 1..] {
                match u {
                    Tok::Punct('.') if depth == 0 => break,
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') => depth -= 1,
                    Tok::Punct(':') => {}
                    Tok::Ident(n) if depth <= 1 => {
                        bound.insert(n.clone());
                    }
                    _ => {}
                }
            }
        }
        if matches!(t, Tok::Punct('{')) || matches!(t, Tok::Punct('|')) {
            // `{x. …}` or `|x. …}`: identifiers followed by `.`.
            if let (Some(Tok::Ident(n)), Some(Tok::Punct('.'))) = (toks.get(k + 1), toks.get(k + 2))
            {
                bound.insert(n.clone());
            }
        }
        if matches!(t, Tok::Ident(s) if s == "let") || matches!(t, Tok::Punct(';')) {
            if let (Some(Tok::Ident(n)), Some(Tok::Punct('='))) = (toks.get(k + 1), toks.get(k + 2))
            {
                bound.insert(n.clone());
            }
        }
        if matches!(t, Tok::Sym(s) if s == "Rightarrow") {
            // A case arm: identifiers back to `of` or `|`; the first is the constructor.
            let mut j = k;
            let mut names = Vec::new();
            while j > 0 {
                j -= 1;
                match &toks[j] {
                    Tok::Ident(n) if n == "of" => break,
                    Tok::Punct('|') => break,
                    Tok::Ident(n) => names.push(n.clone()),
                    _ => {}
                }
            }
            names.reverse();
            for n in names.into_iter().skip(1) {
                if !constants.contains(&n) {
                    bound.insert(n);
                }
            }
        }
    }
    bound
}

/// Removes `::T` annotations (inside parentheses) from a term's tokens, returning the type
/// tokens separately.
fn strip_types(toks: &[Tok]) -> (Vec<Tok>, Vec<Tok>) {
    let mut term = Vec::new();
    let mut types = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        if toks[k] == Tok::Punct(':') && toks.get(k + 1) == Some(&Tok::Punct(':')) {
            k += 2;
            let mut depth = 0;
            while k < toks.len() {
                match &toks[k] {
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') if depth == 0 => break,
                    Tok::Punct(')') => depth -= 1,
                    Tok::Punct('.') if depth == 0 => break,
                    _ => {}
                }
                types.push(toks[k].clone());
                k += 1;
            }
        } else {
            term.push(toks[k].clone());
            k += 1;
        }
    }
    (term, types)
}

fn check_theory(
    name: &str,
    text: &str,
    theories: &BTreeSet<String>,
    declared: &BTreeMap<String, Declared>,
) -> Result<Declared, Vec<String>> {
    let mut problems = Vec::new();
    let (outer, quoted) = match split(text) {
        Ok(x) => x,
        Err(e) => return Err(vec![format!("{name}: {e}")]),
    };
    if let Err(e) = balanced(&outer, &format!("{name} (outside terms)")) {
        problems.push(e);
    }
    for q in &quoted {
        if let Err(e) = balanced(q, &format!("a term of {name}")) {
            problems.push(e);
        }
    }
    // Header and end.
    let header: Vec<&str> = outer.split_whitespace().collect();
    if header.first() != Some(&"theory")
        || header.get(1) != Some(&name)
        || header.get(2) != Some(&"imports")
    {
        problems.push(format!(
            "{name}: does not start with `theory {name} imports`"
        ));
    }
    let Some(begin) = header.iter().position(|w| *w == "begin") else {
        return Err(vec![format!("{name}: no `begin`")]);
    };
    if header.last() != Some(&"end") {
        problems.push(format!("{name}: does not end with `end`"));
    }
    let mut scope = Declared::default();
    for imp in &header[3..begin] {
        if imp.starts_with("\"#") {
            let k: usize = imp[2..imp.len() - 1].parse().expect("a quote index");
            if quoted[k] != "HOL-Library.Multiset" {
                problems.push(format!(
                    "{name}: imports unknown session theory {}",
                    quoted[k]
                ));
            }
            scope.types.insert("multiset".into());
            continue;
        }
        if !theories.contains(*imp) && *imp != "Main" {
            problems.push(format!("{name}: imports {imp}, which was not generated"));
        }
        if let Some(d) = declared.get(*imp) {
            scope.constants.extend(d.constants.iter().cloned());
            scope.types.extend(d.types.iter().cloned());
            scope.facts.extend(d.facts.iter().cloned());
        }
    }
    let mut own = Declared::default();
    let q = |w: &str| -> Option<String> {
        w.strip_prefix("\"#")
            .and_then(|r| r.strip_suffix('"'))
            .and_then(|k| k.parse::<usize>().ok())
            .map(|k| quoted[k].clone())
    };
    // First pass: declarations.
    let words: Vec<&str> = outer[outer.find("begin").unwrap_or(0)..]
        .split_whitespace()
        .collect();
    let define = |set: &mut BTreeSet<String>, n: &str, problems: &mut Vec<String>| {
        if !set.insert(n.to_string()) {
            problems.push(format!("{name}: `{n}` is defined twice"));
        }
    };
    for (k, w) in words.iter().enumerate() {
        let next = words.get(k + 1).copied().unwrap_or("");
        match *w {
            "definition" | "fun" | "inductive" | "consts" => {
                define(&mut own.constants, next, &mut problems);
                own.facts.insert(format!("{next}_def"));
                own.facts.insert(format!("{next}.simps"));
            }
            "lemma" | "theorem" | "lemmas" => {
                let n = next.trim_end_matches(':');
                define(&mut own.facts, n, &mut problems);
            }
            "record" => {
                define(&mut own.types, next, &mut problems);
                // Fields: `F :: "…"` until the next blank-line declaration.
                let mut j = k + 3;
                while j + 2 < words.len() && words[j + 1] == "::" && words[j + 2].starts_with("\"#")
                {
                    define(&mut own.constants, words[j], &mut problems);
                    j += 3;
                }
            }
            "datatype" => {
                define(&mut own.types, next, &mut problems);
                // Constructors after `=` and `|`; `disc: Ctor (sel: "T")` declares three names.
                let mut j = k + 3;
                let mut expect_ctor = true;
                while j < words.len()
                    && !["text", "definition", "datatype", "record", "end", "lemma"]
                        .contains(&words[j])
                {
                    let w = words[j];
                    if w == "|" {
                        expect_ctor = true;
                    } else if expect_ctor {
                        if let Some(disc) = w.strip_suffix(':') {
                            define(&mut own.constants, disc, &mut problems);
                        } else {
                            define(&mut own.constants, w, &mut problems);
                            expect_ctor = false;
                        }
                    } else if let Some(sel) = w.strip_prefix('(').and_then(|s| s.strip_suffix(':'))
                    {
                        define(&mut own.constants, sel, &mut problems);
                    }
                    j += 1;
                }
            }
            _ => {}
        }
    }
    for c in &own.constants {
        if scope.constants.contains(c) {
            problems.push(format!(
                "{name}: `{c}` is already defined by an imported theory"
            ));
        }
    }
    let constants: HashSet<String> = scope
        .constants
        .iter()
        .chain(&own.constants)
        .cloned()
        .chain(HOL_CONSTANTS.iter().map(|s| s.to_string()))
        .collect();
    let types: HashSet<String> = scope
        .types
        .iter()
        .chain(&own.types)
        .cloned()
        .chain(HOL_TYPES.iter().map(|s| s.to_string()))
        .collect();
    let facts: HashSet<String> = scope
        .facts
        .iter()
        .chain(&own.facts)
        .cloned()
        .chain(HOL_FACTS.iter().map(|s| s.to_string()))
        .collect();

    // Second pass: blocks from one declaration keyword to the next.
    let keywords = [
        "definition",
        "fun",
        "inductive",
        "consts",
        "lemma",
        "theorem",
        "lemmas",
        "record",
        "datatype",
        "text",
        "end",
    ];
    let mut k = 0;
    while k < words.len() {
        if !keywords.contains(&words[k]) {
            k += 1;
            continue;
        }
        let start = k;
        k += 1;
        while k < words.len() && !keywords.contains(&words[k]) {
            k += 1;
        }
        let block = &words[start..k];
        let kind = block[0];
        // Variables the block binds: fixes/fix, and definition arguments.
        let mut vars: HashSet<String> = HashSet::new();
        let mut local_facts: HashSet<String> = HashSet::new();
        for (j, w) in block.iter().enumerate() {
            if *w == "fixes" || *w == "fix" {
                let mut m = j + 1;
                while m < block.len() {
                    let v = block[m];
                    if v == "::" {
                        m += 2;
                        if block.get(m) == Some(&"and") {
                            m += 1;
                            continue;
                        }
                        break;
                    }
                    for t in idents(&tokens(v)) {
                        vars.insert(t);
                    }
                    m += 1;
                }
            }
            if let Some(f) = w.strip_suffix(':') {
                if matches!(block.get(j + 1), Some(n) if n.starts_with("\"#")) {
                    local_facts.insert(f.to_string());
                }
            }
            if *w == "note" {
                local_facts.insert(block[j + 1].to_string());
            }
            // `case less` (a rule's named case) is a fact; `obtain x y where` binds x and y.
            if *w == "case" && block.get(j + 1).is_some_and(|n| !n.starts_with('(')) {
                local_facts.insert(block[j + 1].to_string());
            }
            if *w == "obtain" {
                for v in block[j + 1..].iter().take_while(|v| **v != "where") {
                    vars.insert(v.to_string());
                }
            }
            // `case (C x y)` binds the constructor's arguments.
            if *w == "case" && block.get(j + 1).is_some_and(|n| n.starts_with('(')) {
                let mut m = j + 2;
                while let Some(v) = block.get(m) {
                    let v2 = v.trim_end_matches(')');
                    for t in idents(&tokens(v2)) {
                        vars.insert(t);
                    }
                    if v.ends_with(')') {
                        break;
                    }
                    m += 1;
                }
            }
        }
        if kind == "definition" {
            if let Some(eq) = block
                .iter()
                .position(|w| *w == "where")
                .and_then(|p| block.get(p + 1))
                .and_then(|w| q(w))
            {
                let toks = tokens(&eq);
                let head_end = toks
                    .iter()
                    .position(|t| {
                        *t == Tok::Punct('=') || *t == Tok::Sym("longleftrightarrow".into())
                    })
                    .unwrap_or(0);
                for n in idents(&toks[1..head_end]) {
                    vars.insert(n);
                }
            }
        }
        // Types in the block's type strings, and names in its terms.
        for (j, w) in block.iter().enumerate() {
            let Some(text) = q(w) else { continue };
            let is_type = j > 0
                && (block[j - 1] == "::"
                    || kind == "datatype"
                    || kind == "record"
                    || kind == "consts");
            if kind == "text" {
                continue;
            }
            let toks = tokens(&text);
            if is_type {
                for n in idents(&toks) {
                    if !types.contains(&n) {
                        problems.push(format!("{name}: unknown type `{n}` in \"{text}\""));
                    }
                }
                continue;
            }
            if block.get(j.wrapping_sub(1)) == Some(&"imports") {
                continue;
            }
            let (term, tys) = strip_types(&toks);
            for n in idents(&tys) {
                if !types.contains(&n) {
                    problems.push(format!("{name}: unknown type `{n}` in \"{text}\""));
                }
            }
            let bound = bound_in(&term, &constants);
            // Record field names in `\<lparr>F = …` and `\<lparr>F := …, G := …`.
            for n in idents(&term) {
                if !(constants.contains(&n) || vars.contains(&n) || bound.contains(&n)) {
                    problems.push(format!(
                        "{name}: `{n}` is not defined or bound in \"{text}\""
                    ));
                }
            }
        }
        // Facts used by proofs: after `simp:`, `using`, `add:`, `rule`, `OF`.
        let outer_block = block.join(" ");
        for part in outer_block.split(['(', ')', '[', ']', ',', ';']) {
            let ws: Vec<&str> = part.split_whitespace().collect();
            let mut in_facts = false;
            for w in ws {
                if [
                    "simp:",
                    "add:",
                    "using",
                    "rule",
                    "OF",
                    "intro:",
                    "split:",
                    "dest:",
                    "unfolding",
                    "with",
                    "from",
                    "metis",
                ]
                .contains(&w)
                {
                    in_facts = true;
                    continue;
                }
                if [
                    "by",
                    "show",
                    "then",
                    "have",
                    "-",
                    "auto",
                    "simp",
                    "simp_all",
                    "proof",
                    "qed",
                    "next",
                    "case",
                    "note",
                    "where",
                    "steps",
                    "=",
                    "blast",
                    "induction",
                    "in",
                    "text",
                    "obtain",
                    "consider",
                    "clarsimp",
                    "apply",
                    "intro",
                    "subgoal",
                    "for",
                    "done",
                ]
                .contains(&w)
                    || w.starts_with('"')
                    || w.starts_with('?')
                {
                    in_facts = false;
                    continue;
                }
                if in_facts {
                    let f = w.trim_end_matches(':');
                    // A datatype's exhaustion and distinctness rules, and a case's fact named after its
                    // constructor (`case (C x)` then `from step C`).
                    let datatype_fact = f
                        .strip_suffix(".exhaust")
                        .or_else(|| f.strip_suffix(".distinct"))
                        .is_some_and(|t| types.contains(t));
                    if !(facts.contains(f)
                        || local_facts.contains(f)
                        || datatype_fact
                        || constants.contains(f)
                        || f.starts_with("c")
                            && f[1..].chars().all(|c| c.is_ascii_digit())
                            && !f[1..].is_empty())
                    {
                        problems.push(format!("{name}: proof uses unknown fact `{f}`"));
                    }
                }
            }
        }
    }
    if problems.is_empty() {
        let mut out = own;
        out.constants.extend(scope.constants);
        out.types.extend(scope.types);
        out.facts.extend(scope.facts);
        Ok(out)
    } else {
        Err(problems)
    }
}

/// The checker must find planted mistakes, or it proves nothing.
pub fn self_test(files: &BTreeMap<String, String>) {
    let target = files
        .keys()
        .find(|n| n.ends_with(".thy") && *n != "IOA_Base.thy" && !n.ends_with("_Types.thy"))
        .expect("an automaton theory")
        .clone();
    type Mutation = Box<dyn Fn(&str) -> String>;
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "an undefined name",
            Box::new(|t: &str| {
                t.replacen(
                    "\\<sigma>' =",
                    "\\<sigma>' = nowhere_defined \\<sigma> \\<and> \\<sigma>' =",
                    1,
                )
            }),
        ),
        (
            "an unbalanced parenthesis",
            Box::new(|t: &str| t.replacen("(", "((", 1)),
        ),
        (
            "a missing end",
            Box::new(|t: &str| t.trim_end().trim_end_matches("end").to_string()),
        ),
        (
            "an unknown fact",
            Box::new(|t: &str| t.replacen("simp_all add:", "simp_all add: no_such_fact", 1)),
        ),
        (
            "a definition given twice",
            Box::new(|t: &str| {
                let k = t.find("definition").expect("a definition");
                let end = k + t[k..].find("\n\n").expect("a blank line");
                format!("{}\n\n{}", &t[..end], &t[k..])
            }),
        ),
    ];
    for (what, mutate) in mutations {
        let mut broken = files.clone();
        let text = mutate(&files[&target]);
        assert_ne!(text, files[&target], "mutation `{what}` changed nothing");
        broken.insert(target.clone(), text);
        assert!(
            !check_export(&broken).is_empty(),
            "the structural checker missed {what} in {target}"
        );
    }
}
