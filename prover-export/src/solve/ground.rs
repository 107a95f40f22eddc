//! Ground expansion for the counterexample search of [`super::check_assuming_only`]: every
//! uninterpreted sort of a script becomes an enumeration of `k` elements, and every quantifier
//! over such sorts the conjunction (`forall`) or disjunction (`exists`) of its instances. What
//! is left is quantifier-free, which Z3 decides where its model-based instantiation gives up
//! on the quantified hypotheses ("incomplete quantifiers"; so it does on a closure axiom
//! `∀ x: Value. x = v0 ∨ x = v1` in place of the enumeration).
//! A model is a candidate over `k` elements per sort, judged by the interpreter like any other.

/// An s-expression: an atom or a list.
#[derive(Clone, Debug, PartialEq)]
enum Sexp {
    Atom(String),
    List(Vec<Sexp>),
}

/// Reads the first s-expression of `text` from `at`; returns it and where it ends.
fn read(text: &[u8], mut at: usize) -> Option<(Sexp, usize)> {
    while at < text.len() && text[at].is_ascii_whitespace() {
        at += 1;
    }
    match *text.get(at)? {
        b'(' => {
            let mut items = Vec::new();
            at += 1;
            loop {
                while at < text.len() && text[at].is_ascii_whitespace() {
                    at += 1;
                }
                if *text.get(at)? == b')' {
                    return Some((Sexp::List(items), at + 1));
                }
                let (item, next) = read(text, at)?;
                items.push(item);
                at = next;
            }
        }
        b')' => None,
        b'|' => {
            let end = at + 1 + text[at + 1..].iter().position(|&c| c == b'|')?;
            Some((
                Sexp::Atom(String::from_utf8_lossy(&text[at..=end]).into()),
                end + 1,
            ))
        }
        b'"' => {
            let mut end = at + 1;
            while *text.get(end)? != b'"' || text.get(end + 1) == Some(&b'"') {
                end += if text[end] == b'"' { 2 } else { 1 };
            }
            Some((
                Sexp::Atom(String::from_utf8_lossy(&text[at..=end]).into()),
                end + 1,
            ))
        }
        _ => {
            let start = at;
            while at < text.len() && !text[at].is_ascii_whitespace() && !b"()".contains(&text[at]) {
                at += 1;
            }
            Some((
                Sexp::Atom(String::from_utf8_lossy(&text[start..at]).into()),
                at,
            ))
        }
    }
}

fn show(e: &Sexp, out: &mut String) {
    match e {
        Sexp::Atom(a) => out.push_str(a),
        Sexp::List(items) => {
            out.push('(');
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push(' ');
                }
                show(item, out);
            }
            out.push(')');
        }
    }
}

fn atom(e: &Sexp) -> Option<&str> {
    match e {
        Sexp::Atom(a) => Some(a),
        Sexp::List(_) => None,
    }
}

/// `e` with the free occurrences of `var` replaced by `by`.
fn substitute(e: &Sexp, var: &str, by: &Sexp) -> Sexp {
    match e {
        Sexp::Atom(a) if a == var => by.clone(),
        Sexp::Atom(_) => e.clone(),
        Sexp::List(items) => {
            let binder = items.first().and_then(atom);
            if matches!(binder, Some("forall" | "exists" | "lambda" | "let")) {
                if let Some(Sexp::List(bound)) = items.get(1) {
                    let rebinds = bound.iter().any(|b| match b {
                        Sexp::List(pair) => pair.first().and_then(atom) == Some(var),
                        Sexp::Atom(_) => false,
                    });
                    if rebinds && binder != Some("let") {
                        return e.clone();
                    }
                }
            }
            Sexp::List(items.iter().map(|i| substitute(i, var, by)).collect())
        }
    }
}

/// `e` with every quantifier over the sorts of `closed` expanded over their elements and
/// every `!` annotation dropped; `None` when an instance count would exceed [`MAX_INSTANCES`].
fn expand(e: &Sexp, closed: &[(String, Vec<String>)]) -> Option<Sexp> {
    let Sexp::List(items) = e else {
        return Some(e.clone());
    };
    let head = items.first().and_then(atom);
    if head == Some("!") {
        return expand(items.get(1)?, closed);
    }
    if let (Some(q @ ("forall" | "exists")), Some(Sexp::List(bound)), Some(body)) =
        (head, items.get(1), items.get(2))
    {
        let mut vars = Vec::new();
        for b in bound {
            let Sexp::List(pair) = b else { return None };
            let (name, sort) = (atom(pair.first()?)?, atom(pair.get(1)?)?);
            let elements = &closed.iter().find(|(s, _)| s == sort)?.1;
            vars.push((name.to_string(), elements));
        }
        let count: usize = vars.iter().map(|(_, els)| els.len()).product();
        if count > MAX_INSTANCES {
            return None;
        }
        let mut instances = vec![body.clone()];
        for (name, elements) in &vars {
            instances = instances
                .iter()
                .flat_map(|inst| {
                    elements
                        .iter()
                        .map(|el| substitute(inst, name, &Sexp::Atom(el.clone())))
                })
                .collect();
        }
        let joined: Vec<Sexp> = instances
            .iter()
            .map(|i| expand(i, closed))
            .collect::<Option<_>>()?;
        let op = if q == "forall" { "and" } else { "or" };
        let mut list = vec![Sexp::Atom(op.into())];
        list.extend(joined);
        return Some(Sexp::List(list));
    }
    Some(Sexp::List(
        items
            .iter()
            .map(|i| expand(i, closed))
            .collect::<Option<_>>()?,
    ))
}

/// The most elements a record sort gets (see [`size`]).
const MAX_RECORD_ELEMENTS: usize = 64;

/// How many elements sort `sort` gets: `k`, but a record whose constructor is stated for all
/// arguments (`∀ f0: Node, f1: Vote. ProposeTo.dst(mk_ProposeTo(f0, f1)) = f0 ∧ …`, the axiom
/// of a record built from a bound variable) needs one element per combination of its fields'
/// elements, or the expanded axiom has no model at all; it gets that product when it is at
/// most [`MAX_RECORD_ELEMENTS`].
fn size(script: &str, sort: &str, k: usize, depth: usize) -> usize {
    let constructor = format!("(mk_{sort} f0");
    let stated_for_all = script
        .lines()
        .any(|l| l.starts_with("(assert (forall ((f0 ") && l.contains(&constructor));
    let declaration = format!("(declare-fun mk_{sort} (");
    let args = script
        .lines()
        .find_map(|l| l.strip_prefix(declaration.as_str()))
        .and_then(|rest| rest.split(')').next());
    let (true, Some(args)) = (stated_for_all && depth < 4, args) else {
        return k;
    };
    let declared = |a: &str| {
        script.lines().any(|l| {
            l.strip_prefix("(declare-sort ")
                .and_then(|r| r.split_whitespace().next())
                == Some(a)
        })
    };
    let mut n = 1usize;
    for a in args.split_whitespace() {
        if !declared(a) {
            return k;
        }
        n = n.saturating_mul(size(script, a, k, depth + 1));
    }
    if n <= MAX_RECORD_ELEMENTS {
        n.max(k)
    } else {
        k
    }
}

/// The most instances one quantifier may expand to.
const MAX_INSTANCES: usize = 4096;

/// `script` (one command per line, as the encoder writes it) with each declared sort closed
/// over `k` elements and each `assert` expanded; `None` when a quantifier is over a sort that is
/// not closed (an integer) or would expand too far, or a line does not read.
pub fn ground(script: &str, k: usize) -> Option<String> {
    let sorts: Vec<&str> = script
        .lines()
        .filter_map(|l| l.strip_prefix("(declare-sort "))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    let closed: Vec<(String, Vec<String>)> = sorts
        .iter()
        .map(|s| {
            let n = size(script, s, k, 0);
            (
                s.to_string(),
                (0..n).map(|i| format!("{s}!val!{i}")).collect(),
            )
        })
        .collect();
    let mut out = String::new();
    for line in script.lines() {
        let declared = line.strip_prefix("(declare-sort ");
        if let Some(sort) = declared.and_then(|rest| rest.split_whitespace().next()) {
            // An enumeration: finite by construction, with no closure axiom for model-based
            // instantiation to give up on.
            let elements = &closed.iter().find(|(s, _)| s == sort)?.1;
            let constructors: Vec<String> = elements.iter().map(|el| format!("({el})")).collect();
            out.push_str(&format!(
                "(declare-datatypes (({sort} 0)) (({})))\n",
                constructors.join(" ")
            ));
        } else if line.starts_with("(assert ") {
            let (e, _) = read(line.as_bytes(), 0)?;
            show(&expand(&e, &closed)?, &mut out);
            out.push('\n');
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantifiers_over_closed_sorts_become_their_instances() {
        let script = "(declare-sort N 0)\n(declare-fun p (N) Bool)\n(assert (forall ((x N)) (! (p x) :pattern ((p x)))))\n(assert (exists ((y N)) (not (p y))))\n";
        let g = ground(script, 2).expect("grounds");
        assert!(g.contains("(assert (and (p N!val!0) (p N!val!1)))"), "{g}");
        assert!(
            g.contains("(assert (or (not (p N!val!0)) (not (p N!val!1))))"),
            "{g}"
        );
        assert!(
            g.contains("(declare-datatypes ((N 0)) (((N!val!0) (N!val!1))))"),
            "{g}"
        );
    }

    #[test]
    fn a_record_constructed_for_all_arguments_gets_one_element_per_combination() {
        let script = "(declare-sort N 0)\n(declare-sort V 0)\n(declare-sort P 0)\n\
            (declare-fun mk_P (N V) P)\n(declare-fun P.dst (P) N)\n\
            (assert (forall ((f0 N) (f1 V)) (= (P.dst (mk_P f0 f1)) f0)))\n";
        let g = ground(script, 2).expect("grounds");
        assert!(
            g.contains("(declare-datatypes ((P 0)) (((P!val!0) (P!val!1) (P!val!2) (P!val!3))))"),
            "{g}"
        );
        assert!(
            g.contains("(declare-datatypes ((N 0)) (((N!val!0) (N!val!1))))"),
            "{g}"
        );
    }

    #[test]
    fn a_quantifier_over_integers_is_not_grounded() {
        let script = "(declare-fun f (Int) Int)\n(assert (forall ((i Int)) (= (f i) i)))\n";
        assert_eq!(ground(script, 2), None);
    }

    #[test]
    fn a_rebound_variable_is_not_substituted() {
        let script =
            "(declare-sort N 0)\n(declare-fun p (N) Bool)\n(assert (forall ((x N)) (and (p x) (exists ((x N)) (p x)))))\n";
        let g = ground(script, 1).expect("grounds");
        assert!(
            g.contains("(assert (and (and (p N!val!0) (or (p N!val!0)))))"),
            "{g}"
        );
    }
}
