//! Formulas equal up to the names of their bound variables. A simulation step that leaves the
//! state a conjunct of the relation reads unchanged re-encodes that conjunct after the step with
//! fresh binder names; Z3 keeps binder names in its terms, so it does not see that the goal is a
//! hypothesis and must re-derive it by quantifier instantiation, which on a relation with
//! nested quantifiers over sets (Paxos → Global1) does not finish. Renaming the binders in
//! order of appearance gives a canonical text: two conjuncts with the same canonical text are
//! the same formula, and the obligation may use one for the other.

/// The text of `term` with every variable bound by `forall`, `exists` or `lambda` renamed to
/// `!b0`, `!b1`, … in the order the binders appear, or `None` when the text holds quoted
/// symbols or strings (whose characters this reader does not interpret) or a bound name also
/// occurs free.
pub fn canonical(term: &str) -> Option<String> {
    if term.contains('"') || term.contains('|') {
        return None;
    }
    let tokens = tokenize(term);
    // Every binder: its name and the token range of the quantifier or λ that binds it.
    let mut renamed: std::collections::HashMap<&str, String> = Default::default();
    let mut scopes: Vec<(&str, usize, usize)> = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        if matches!(tokens[k], "forall" | "exists" | "lambda")
            && k > 0
            && tokens[k - 1] == "("
            && tokens.get(k + 1) == Some(&"(")
        {
            let end = skip_sexpr(&tokens, k - 1)?;
            // `( name sort )` pairs until the binder list closes.
            let mut at = k + 2;
            while tokens.get(at) == Some(&"(") {
                let name = *tokens.get(at + 1)?;
                let next = renamed.len();
                renamed.entry(name).or_insert_with(|| format!("!b{next}"));
                scopes.push((name, k - 1, end));
                at = skip_sexpr(&tokens, at)?;
            }
            k = at;
        } else {
            k += 1;
        }
    }
    // A renamed name must occur only where one of its binders is in scope: renaming it is then
    // a consistent renaming of bound variables (the same name bound twice, as a cached subterm
    // repeats, is renamed alike in both places).
    for (i, t) in tokens.iter().enumerate() {
        if renamed.contains_key(t)
            && !scopes
                .iter()
                .any(|(name, start, end)| name == t && *start <= i && i < *end)
        {
            return None;
        }
    }
    let mut out = String::with_capacity(term.len());
    for t in &tokens {
        let t = renamed.get(t).map(String::as_str).unwrap_or(t);
        if !out.is_empty() && t != ")" && !out.ends_with('(') {
            out.push(' ');
        }
        out.push_str(t);
    }
    Some(out)
}

/// `post` with every leaf of its conjunction tree (the maximal subterms not of the form
/// `(and …)`) that is `pre`'s leaf at the same place up to binder names replaced by `pre`'s
/// text, so that Z3 meets the very term it has as a hypothesis. Both must have the same tree
/// shape (the same formula encoded twice); otherwise `post` is returned unchanged. Sound
/// because each replacement is the same formula.
pub fn reuse_unchanged_conjuncts(pre: &str, post: &str) -> String {
    let (pre_leaves, post_leaves) = (and_leaves(pre), and_leaves(post));
    if pre_leaves.len() != post_leaves.len() {
        return post.to_string();
    }
    let mut out = String::with_capacity(post.len());
    let mut at = 0;
    for (&(ps, pe), &(qs, qe)) in pre_leaves.iter().zip(&post_leaves) {
        let (p, q) = (&pre[ps..pe], &post[qs..qe]);
        out.push_str(&post[at..qs]);
        let same = p == q || matches!((canonical(p), canonical(q)), (Some(a), Some(b)) if a == b);
        out.push_str(if same { p } else { q });
        at = qe;
    }
    out.push_str(&post[at..]);
    out
}

/// The byte ranges of the leaves of `term`'s conjunction tree, in order.
fn and_leaves(term: &str) -> Vec<(usize, usize)> {
    fn walk(text: &str, start: usize, end: usize, out: &mut Vec<(usize, usize)>) {
        let t = &text[start..end];
        if let Some(inner) = t.strip_prefix("(and ").and_then(|r| r.strip_suffix(')')) {
            let base = start + "(and ".len();
            for (s, e) in top_level_terms(inner) {
                walk(text, base + s, base + e, out);
            }
        } else {
            out.push((start, end));
        }
    }
    let mut out = Vec::new();
    let trimmed = term.trim();
    let offset = term.len() - term.trim_start().len();
    walk(term, offset, offset + trimmed.len(), &mut out);
    out
}

/// The byte ranges of the whitespace-separated s-expressions of `text`.
fn top_level_terms(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, None);
    for (i, c) in text.char_indices() {
        match c {
            '(' => {
                if depth == 0 && start.is_none() {
                    start = Some(i);
                }
                depth += 1;
            }
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let Some(s) = start.take() {
                        out.push((s, i + 1));
                    }
                }
            }
            c if c.is_whitespace() && depth == 0 => {
                if let Some(s) = start.take() {
                    out.push((s, i));
                }
            }
            _ => {
                if start.is_none() {
                    start = Some(i);
                }
            }
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Parentheses and the symbols between them.
fn tokenize(term: &str) -> Vec<&str> {
    let mut tokens = Vec::new();
    let mut start = None;
    for (i, c) in term.char_indices() {
        if c == '(' || c == ')' || c.is_whitespace() {
            if let Some(s) = start.take() {
                tokens.push(&term[s..i]);
            }
            if !c.is_whitespace() {
                tokens.push(&term[i..i + 1]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        tokens.push(&term[s..]);
    }
    tokens
}

/// The index just after the s-expression that opens at `tokens[at]` (a `(`).
fn skip_sexpr(tokens: &[&str], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(at) {
        match *t {
            "(" => depth += 1,
            ")" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::canonical;

    #[test]
    fn binder_names_do_not_matter() {
        let a = "(forall ((x.4 Node) (y.5 (Array Node Bool))) (select y.5 x.4))";
        let b = "(forall ((x.9 Node) (y.1 (Array Node Bool))) (select y.1 x.9))";
        assert_eq!(canonical(a), canonical(b));
    }

    #[test]
    fn free_names_do_matter() {
        // `Paxos.N.voted` and its post-state `Paxos.N.voted.83` are different constants.
        let a = "(forall ((x.4 Node)) (select Paxos.N.voted x.4))";
        let b = "(forall ((x.9 Node)) (select Paxos.N.voted.83 x.9))";
        assert_ne!(canonical(a), canonical(b));
        let c = "(exists ((x.4 Node)) (= x.4 c.1))";
        let d = "(exists ((x.4 Node)) (= x.4 c.2))";
        assert_ne!(canonical(c), canonical(d));
    }

    #[test]
    fn the_order_of_binders_matters() {
        let a = "(forall ((x.1 Int) (y.2 Int)) (< x.1 y.2))";
        let b = "(forall ((y.2 Int) (x.1 Int)) (< x.1 y.2))";
        assert_ne!(canonical(a), canonical(b));
    }

    #[test]
    fn a_repeated_subterm_binds_its_name_twice() {
        let a = "(and (select (lambda ((z.1 N)) (f z.1)) c) (select (lambda ((z.1 N)) (f z.1)) d))";
        let b = "(and (select (lambda ((z.7 N)) (f z.7)) c) (select (lambda ((z.7 N)) (f z.7)) d))";
        assert!(canonical(a).is_some());
        assert_eq!(canonical(a), canonical(b));
    }

    #[test]
    fn a_bound_name_that_also_occurs_free_is_not_renamed() {
        assert_eq!(canonical("(and (forall ((x.1 N)) (p x.1)) (q x.1))"), None);
    }

    #[test]
    fn unchanged_conjuncts_are_taken_from_the_hypothesis() {
        let pre = "(and (and (forall ((x.1 N)) (p x.1)) (q a)) (forall ((x.2 N)) (r x.2 s)))";
        let post = "(and (and (forall ((x.5 N)) (p x.5)) (q b)) (forall ((x.6 N)) (r x.6 s.9)))";
        assert_eq!(
            super::reuse_unchanged_conjuncts(pre, post),
            "(and (and (forall ((x.1 N)) (p x.1)) (q b)) (forall ((x.6 N)) (r x.6 s.9)))"
        );
        // Different shapes: nothing is replaced.
        assert_eq!(super::reuse_unchanged_conjuncts("(and a b)", "c"), "c");
    }

    #[test]
    fn quoted_text_is_not_read() {
        assert_eq!(canonical("(= s \"a b\")"), None);
    }
}
