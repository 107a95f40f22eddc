//! A second encoding of one construct Z3 4.8 (Debian's `libz3`) mishandles: `(subset A B)` where
//! a side is a `lambda` (a set read out of an array of sets, `voted[n] ⊆ ballots`). Z3 can
//! answer `sat` for such a script with a model that violates the very hypotheses it assumes
//! (seen: Global1's `∀ n (voted[n] ⊆ ballots)` "refuted" at `init` from a pre-state where it is
//! false), and seldom proves such steps. The pointwise form `∀ x (x ∈ A ⇒ x ∈ B)` means the same
//! and Z3 handles it soundly, but as a hypothesis it slows proofs that never use it, so the
//! portfolio asks it only when the first encoding did not prove (see [`super::check`]).

use super::model::{parse, Sexp};

/// `script` with every `subset` that has a `lambda` side written pointwise, or `None` when it
/// has none. Only `(assert …)` lines change; the rest is kept as it is.
pub fn pointwise_subsets(script: &str) -> Option<String> {
    let mut fresh = 0usize;
    let mut changed = false;
    let mut out = String::with_capacity(script.len());
    for line in script.lines() {
        let rewritten =
            (line.starts_with("(assert ") && line.contains("(subset ") && line.contains("(lambda"))
                .then(|| parse(line))
                .flatten()
                .and_then(|e| {
                    let mut hit = false;
                    let e = rewrite(e, &mut fresh, &mut hit);
                    hit.then(|| print(&e))
                });
        match rewritten {
            Some(text) => {
                changed = true;
                out.push_str(&text);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    changed.then_some(out)
}

/// A `lambda` with one bound variable: (variable, its sort, body).
fn as_lambda(e: &Sexp) -> Option<(&str, &Sexp, &Sexp)> {
    let Sexp::List(items) = e else { return None };
    match items.as_slice() {
        [Sexp::Atom(l), Sexp::List(binders), body] if l == "lambda" => match binders.as_slice() {
            [Sexp::List(b)] => match b.as_slice() {
                [Sexp::Atom(v), sort] => Some((v.as_str(), sort, body)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

fn rewrite(e: Sexp, fresh: &mut usize, hit: &mut bool) -> Sexp {
    let Sexp::List(items) = e else { return e };
    let items: Vec<Sexp> = items.into_iter().map(|x| rewrite(x, fresh, hit)).collect();
    if let [Sexp::Atom(op), a, b] = items.as_slice() {
        if op == "subset" {
            if let Some(sort) = as_lambda(a).or_else(|| as_lambda(b)).map(|l| l.1.clone()) {
                *hit = true;
                *fresh += 1;
                let x = format!("pointwise.{fresh}");
                let (in_a, in_b) = (member(a, &x), member(b, &x));
                let body = Sexp::List(vec![Sexp::Atom("=>".into()), in_a.clone(), in_b]);
                // A plain array read is the pattern (Z3's own choice can loop).
                let plain_read = matches!(&in_a, Sexp::List(r)
                    if matches!(r.first(), Some(Sexp::Atom(s)) if s == "select")
                        && r.iter().all(|t| matches!(t, Sexp::Atom(_))));
                let body = if plain_read {
                    Sexp::List(vec![
                        Sexp::Atom("!".into()),
                        body,
                        Sexp::Atom(":pattern".into()),
                        Sexp::List(vec![in_a]),
                    ])
                } else {
                    body
                };
                return Sexp::List(vec![
                    Sexp::Atom("forall".into()),
                    Sexp::List(vec![Sexp::List(vec![Sexp::Atom(x), sort])]),
                    body,
                ]);
            }
        }
    }
    Sexp::List(items)
}

/// `x ∈ set`: a lambda's body with its variable replaced by `x`, else `(select set x)`.
fn member(set: &Sexp, x: &str) -> Sexp {
    match as_lambda(set) {
        Some((v, _, body)) => substitute(body, v, x),
        None => Sexp::List(vec![
            Sexp::Atom("select".into()),
            set.clone(),
            Sexp::Atom(x.into()),
        ]),
    }
}

fn substitute(e: &Sexp, v: &str, x: &str) -> Sexp {
    match e {
        Sexp::Atom(a) if a == v => Sexp::Atom(x.into()),
        Sexp::Atom(_) => e.clone(),
        Sexp::List(items) => Sexp::List(items.iter().map(|i| substitute(i, v, x)).collect()),
    }
}

fn print(e: &Sexp) -> String {
    match e {
        Sexp::Atom(a) => a.clone(),
        Sexp::List(items) => {
            let parts: Vec<String> = items.iter().map(print).collect();
            format!("({})", parts.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pointwise_subsets;

    #[test]
    fn a_row_of_a_relation_becomes_a_pointwise_implication_with_its_read_as_pattern() {
        let script = "(declare-const hyp.1 Bool)\n(assert (=> hyp.1 (forall ((n Node)) (subset (lambda ((y.1 Ballot)) (select voted n y.1)) ballots))))\n(assert (not (subset a b)))\n";
        let out = pointwise_subsets(script).expect("rewritten");
        assert_eq!(
            out,
            "(declare-const hyp.1 Bool)\n(assert (=> hyp.1 (forall ((n Node)) (forall ((pointwise.1 Ballot)) (! (=> (select voted n pointwise.1) (select ballots pointwise.1)) :pattern ((select voted n pointwise.1)))))))\n(assert (not (subset a b)))\n"
        );
        assert_eq!(pointwise_subsets("(assert (not (subset a b)))\n"), None);
    }
}
