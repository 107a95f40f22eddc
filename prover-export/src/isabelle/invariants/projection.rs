//! The leaf of a deterministic transition case by field projection. The case's relation is split
//! into its condition (`en`) and `σ' = eff … σ`, the goal is rewritten with the latter, and then:
//! `clarsimp` with the condition unfolded (the effect still folded, so this is cheap); `simp` on
//! the goal alone (`no_asm`) with the effect and the target unfolded and every state field's
//! selector pushed through the effect's `if`s and `let`s (`if_distrib` at each field,
//! `if_distribR` for a map field applied to its index) without splitting them, so that a field
//! the case does not write collapses to its pre-state value and a written one to the few branches
//! that write it; last `auto` with the invariants unfolded, which splits the `if`s that remain.
//! Unfolding the effect and splitting its `if`s first (the plain leaf) copies the `let`-bound
//! intermediate states of a sequential effect into every branch and every condition: LMC Paxos's
//! `recvResponse` at the node (three `let`s, nested `if`s, a `card` condition on an intermediate
//! state) took `auto` minutes that way (finiteness ~200 s, `Agreement` ~125 s at load 6), and
//! takes seconds this way. The pre-state's invariants stay folded until `auto`, which unfolds
//! them and the goal's alike (unfolding them in the `simp` step loses LCR's `QueueHoldsOwnOrMax`).

/// What a projection leaf needs about one transition case.
pub struct ProjectionCase<'a> {
    /// 1-based number of the case (`c{k}` in the `consider`).
    pub k: usize,
    /// The case's relation (`…_tr_a_c`): `enabled … σ ∧ σ' = eff … σ`.
    pub def: &'a str,
    /// The action's parameters followed by a space each (the relations' arguments).
    pub tr_args: &'a str,
    /// The record's field selectors (every state variable).
    pub fields: &'a [String],
    /// The target and the core invariants' definitions (`…_def`), the target's first.
    pub defs: &'a [String],
    /// The comment after the case number (what Z3's core of the case was).
    pub core_words: &'a str,
    /// Extra `dest:` facts of the final `auto` (with its leading space), or empty.
    pub dest: &'a str,
}

/// The text of case `c.k` in the `proof cases` of a multi-case action (inside `with fin`).
pub fn projection_case(c: &ProjectionCase) -> String {
    let def = c.def;
    let eff = format!("{def}_eff");
    let enabled = format!("{def}_enabled");
    let args = c.tr_args;
    let distrib: String = c
        .fields
        .iter()
        .map(|f| format!(" if_distrib[of {f}]"))
        .collect();
    let defs = c.defs.join(" ");
    format!(
        "    (* Case {k} (`{def}`): the effect projected on each field, then its condition and the invariants (Z3's core of this case: {core}). *)\n    case c{k}\n    then have en: \"{enabled} {args}\\<sigma>\" and eff: \"\\<sigma>' = {eff} {args}\\<sigma>\"\n      by (simp_all add: {def}_def)\n    from fin en show ?thesis unfolding eff\n      by ((clarsimp simp: {enabled}_def Let_def ring_mod)?;\n          (simp (no_asm) add: {eff}_def Let_def {target}{distrib} if_distribR split del: if_split cong: if_cong)?;\n          auto simp: {defs} Let_def nth_append nth_tl hd_conv_nth imp_conjL all_int_index mod_succ_ring mod_pred_ring int_card_eq_0_iff disjoint_iff{dest})\n",
        k = c.k,
        target = c.defs[0],
        core = c.core_words,
        dest = c.dest,
    )
}
