//! Membership facts for set objects built inside a quantifier. A set that is an element of a
//! set (`{n1, n2} ∈ quorums`) is an object of an uninterpreted sort with a membership predicate
//! `has` (see [`super::sorts::is_boxed`]); a ground object gets the fact that its members are
//! the set's ([`Encoder::boxed`]), but an object built from bound variables — Paxos → Global1's
//! `∀ n1, n2 (… ⇒ {n1, n2} ∈ Global1.quorums)` — has no ground term to state it of, and a
//! general axiom `∀ a z. has(obj(a), z) = a[z]` quantifies over arrays, where Z3 gives up
//! ("incomplete (theory array)").
//!
//! So the fact is stated where the variables are bound: the quantifier that binds the last of
//! them gets it in its body, as a conjunct when the quantifier is asserted true (a hypothesis:
//! every instance carries its fact) and as an antecedent when it is to be proved (a goal: the
//! negated goal's witnesses carry it). Either way the formula means what it meant, since the
//! fact holds of every set; where the polarity is mixed (under `⇔`, `=`, `if`) nothing is
//! added. Only formulas encoded through [`Encoder::assumption`] and [`Encoder::claim`] get
//! facts; everything else is encoded as before.

use super::expr::{Encoder, Env};
use crate::error::EncodeError;
use ioa_lang::ir::Expr;

/// Whether a formula being encoded is asserted true, to be proved, or both (or neither).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Polarity {
    /// Asserted true (a hypothesis, or under an even number of negations in one).
    Assumed,
    /// To be proved (a goal).
    Claimed,
    /// Mixed, or not tracked: no facts are attached.
    Mixed,
}

impl Polarity {
    /// The polarity under a negation (or left of an implication).
    pub fn flipped(self) -> Polarity {
        match self {
            Polarity::Assumed => Polarity::Claimed,
            Polarity::Claimed => Polarity::Assumed,
            Polarity::Mixed => Polarity::Mixed,
        }
    }
}

/// A fact about a set object built from bound variables, waiting for its binder.
#[derive(Debug, Clone)]
pub struct PendingFact {
    /// The closed formula, once its variables are bound.
    pub text: String,
    /// The bound variables it mentions.
    pub mentions: Vec<String>,
}

/// Whether `term` mentions the symbol `name` (as a whole symbol, not a prefix of another).
pub fn mentions(term: &str, name: &str) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| c == ' ' || c == '(' || c == ')');
    let mut start = 0;
    while let Some(k) = term[start..].find(name) {
        let at = start + k;
        let before = term[..at].chars().next_back();
        let after = term[at + name.len()..].chars().next();
        if boundary(before) && boundary(after) {
            return true;
        }
        start = at + name.len();
    }
    false
}

impl Encoder<'_> {
    /// `e` encoded as a formula asserted true (a hypothesis), with the membership facts of the
    /// set objects its quantifiers build.
    pub fn assumption(&mut self, e: &Expr, env: &Env) -> Result<String, EncodeError> {
        self.with_polarity(Polarity::Assumed, e, env)
    }

    /// `e` encoded as a formula to be proved (a goal), with the membership facts of the set
    /// objects its quantifiers build.
    pub fn claim(&mut self, e: &Expr, env: &Env) -> Result<String, EncodeError> {
        self.with_polarity(Polarity::Claimed, e, env)
    }

    fn with_polarity(
        &mut self,
        polarity: Polarity,
        e: &Expr,
        env: &Env,
    ) -> Result<String, EncodeError> {
        let outer = std::mem::replace(&mut self.polarity, polarity);
        let was_tracking = std::mem::replace(&mut self.tracking, true);
        let t = self.expr(e, env);
        self.polarity = outer;
        self.tracking = was_tracking;
        // Facts whose binders were not quantifiers of this formula are dropped.
        self.pending_facts.clear();
        t
    }

    /// Records the fact that the object `obj` of the set `term` (of elements of sort
    /// `elem_sort`, membership predicate `has`) has exactly the set's members, when the term
    /// mentions bound variables and polarity is tracked.
    pub(super) fn note_object_fact(&mut self, has: &str, obj: &str, term: &str, elem_sort: &str) {
        if !self.tracking {
            return;
        }
        let mentioned: Vec<String> = self
            .bound
            .iter()
            .filter(|b| mentions(term, b))
            .cloned()
            .collect();
        if mentioned.is_empty() {
            return;
        }
        let z = self.script.fresh("z");
        let members = match super::expr::literal_members(term) {
            Some(ms) if !ms.is_empty() => {
                let eqs: Vec<String> = ms.iter().map(|m| format!("(= {z} {m})")).collect();
                super::or(&eqs)
            }
            _ => format!("(select {term} {z})"),
        };
        self.pending_facts.push(PendingFact {
            text: format!(
                "(forall (({z} {elem_sort})) (! (= ({has} {obj} {z}) {members}) :pattern (({has} {obj} {z}))))"
            ),
            mentions: mentioned,
        });
    }

    /// The body of a quantifier binding `names` (with `outer` the variables bound outside it),
    /// with the facts that wait for these variables: conjoined when the quantifier is assumed,
    /// as antecedents when it is claimed, dropped when mixed (or when a fact mentions a
    /// variable whose binder is gone).
    pub(super) fn attach_facts(
        &mut self,
        names: &[String],
        outer: &[String],
        body: String,
    ) -> String {
        let (mine, rest): (Vec<PendingFact>, Vec<PendingFact>) =
            std::mem::take(&mut self.pending_facts)
                .into_iter()
                .partition(|f| f.mentions.iter().any(|m| names.contains(m)));
        self.pending_facts = rest;
        let facts: Vec<String> = mine
            .into_iter()
            .filter(|f| {
                f.mentions
                    .iter()
                    .all(|m| names.contains(m) || outer.contains(m))
            })
            .map(|f| f.text)
            .collect();
        if facts.is_empty() {
            return body;
        }
        match self.polarity {
            Polarity::Assumed => format!("(and {} {body})", facts.join(" ")),
            Polarity::Claimed => format!("(=> {} {body})", super::and(&facts)),
            Polarity::Mixed => body,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_whole_symbols_only() {
        assert!(mentions("(store k x.13 true)", "x.13"));
        assert!(!mentions("(store k x.136 true)", "x.13"));
        assert!(mentions("x.13", "x.13"));
        assert!(!mentions("(f ax.13)", "x.13"));
    }

    #[test]
    fn polarity_flips() {
        assert_eq!(Polarity::Assumed.flipped(), Polarity::Claimed);
        assert_eq!(Polarity::Mixed.flipped(), Polarity::Mixed);
    }
}
