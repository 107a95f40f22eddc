//! An automaton's invariants as a theory: each invariant a predicate on states, their
//! conjunction proved inductive (start, and one step case per action), and each stated as
//! `invariant A I`.
//!
//! Every step case assumes all of the automaton's exported invariants in the pre-state (a joint
//! induction), which is sound however the invariants depend on each other. The conjunction
//! starts with the automaton's finiteness predicate (`…_finite`: every set and map of the state
//! is finite, as IOA's values are), proved like an invariant, so that `card` in an invariant
//! means the number of elements.

mod projection;

use super::automaton::AutomatonInfo;
use super::error::ExportError;
use super::expr::{term, Env};
use super::hints::Hints;
use super::instances::binder_slots;
use super::names::TypeNames;
use ioa_lang::ir::{ExprKind, Invariant, Spec, Type, TypeDefKind};
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// The invariants' theory, or `None` when the automaton has no invariants. `invariant A A_invs`
/// and the invariants one by one are stated only when their induction closes
/// ([`Hints::invariants_closed`]); otherwise the theory states the start and step cases that
/// `ioa prove` proves and names the others in comments.
pub fn invariants_theory(
    spec: &Spec,
    types: &TypeNames,
    info: &AutomatonInfo,
    hints: &Hints,
) -> Result<Option<String>, ExportError> {
    let indexed: Vec<(usize, &Invariant)> = spec
        .invariants
        .iter()
        .enumerate()
        .filter(|(_, i)| i.automaton == info.id)
        .collect();
    let invs: Vec<&Invariant> = indexed.iter().map(|(_, i)| *i).collect();
    if invs.is_empty() {
        return Ok(None);
    }
    let n = &info.names;
    let state_ty = n.state_type();
    let env = Env {
        names: types,
        state_fields: info.fields.clone(),
        state: "\\<sigma>".into(),
        qualified: vec![(info.id, info.fields.clone(), "\\<sigma>".into())],
        params: info.params.clone(),
        locals: vec![],
        hoisted: HashSet::new(),
    };
    let mut out = format!(
        "theory {}\n  imports {}\nbegin\n\n",
        n.invariants_theory(),
        n.theory()
    );
    out.push_str(&format!(
        "text \\<open>The invariants of `{}`, proved together by induction over its steps.\\<close>\n\n",
        spec.automata[info.id.0 as usize].name
    ));
    let mut defs = Vec::new();
    for inv in &invs {
        let name = n.invariant(&inv.name);
        out.push_str(&format!(
            "definition {name} :: \"{state_ty} \\<Rightarrow> bool\" where\n  \"{name} \\<sigma> \\<longleftrightarrow> {}\"\n\n",
            term(&env, &inv.body)?
        ));
        defs.push(name);
    }
    let all = n.all_invariants();
    // The finiteness of the state (IOA's values are finite) is proved with the invariants, as
    // the first conjunct: the step proofs may use it in the pre-state.
    let finite = n.finite();
    out.push_str(&format!(
        "text \\<open>The invariants, and that every set and map of the state is finite.\\<close>\ndefinition {all} :: \"{state_ty} \\<Rightarrow> bool\" where\n  \"{all} \\<sigma> \\<longleftrightarrow> {}\"\n\n",
        std::iter::once(&finite)
            .chain(defs.iter())
            .map(|d| format!("{d} \\<sigma>"))
            .collect::<Vec<_>>()
            .join(" \\<and> ")
    ));
    let inv_defs: String = std::iter::once(format!("{all}_def"))
        .chain(std::iter::once(format!("{finite}_def")))
        .chain(defs.iter().map(|d| format!("{d}_def")))
        .collect::<Vec<_>>()
        .join(" ");
    out.push_str(&format!("lemmas {all}_defs = {inv_defs}\n\n"));
    let aut = &spec.automata[info.id.0 as usize];
    let with_finite: Vec<String> = std::iter::once(finite.clone())
        .chain(defs.iter().cloned())
        .collect();
    // What Z3 did not prove (`ioa prove`'s verdicts, when it was asked): such a claim is not
    // stated as a lemma (its proof would fail, or pass only by a gap between the two provers);
    // the theory names it in a comment, and states the cases that Z3 proved on their own.
    let start_unproved: Vec<&str> = indexed
        .iter()
        .filter(|(index, _)| hints.start_unproved(*index))
        .map(|(_, inv)| inv.name.as_str())
        .collect();
    let step_unproved = |t: usize| -> Vec<&str> {
        if t == 0 {
            return Vec::new();
        }
        let index = indexed[t - 1].0;
        info.actions
            .iter()
            .filter(|a| hints.step_unproved(index, &a.name))
            .map(|a| a.name.as_str())
            .collect()
    };
    let ctx = StepCtx {
        spec,
        types,
        info,
        hints,
        indexed: &indexed,
        all: &all,
        int_binders: indexed
            .iter()
            .filter_map(|(_, inv)| match &inv.body.kind {
                ExprKind::Quant(ioa_lang::ast::Quantifier::ForAll, binders, _)
                    if binders.iter().all(|(_, t)| matches!(t, Type::Int)) =>
                {
                    Some((inv.name.clone(), binder_slots(&inv.body)?))
                }
                _ => None,
            })
            .collect(),
    };
    let mut unproved: Vec<String> = start_unproved
        .iter()
        .map(|i| format!("`{i}` at the start"))
        .collect();
    if start_unproved.is_empty() {
        out.push_str(&format!(
            "lemma {all}_start:\n  fixes \\<sigma> :: {state_ty}\n  assumes \"{}\\<sigma>\"\n  shows \"{all} \\<sigma>\"\n  using assms by (auto simp: {all}_defs {}_def)\n\n",
            format_args!("{} ", n.start()),
            n.start()
        ));
    } else {
        // One start lemma per conjunct that Z3 proved.
        for (t, name) in with_finite.iter().enumerate() {
            if t > 0 && start_unproved.contains(&indexed[t - 1].1.name.as_str()) {
                out.push_str(&format!(
                    "text \\<open>Not stated: `{}` in every start state (Z3 did not prove it).\\<close>\n\n",
                    indexed[t - 1].1.name
                ));
                continue;
            }
            out.push_str(&format!(
                "lemma {name}_start:\n  fixes \\<sigma> :: {state_ty}\n  assumes \"{} \\<sigma>\"\n  shows \"{name} \\<sigma>\"\n  using assms by (auto simp: {name}_def {}_def)\n\n",
                n.start(),
                n.start()
            ));
        }
    }
    for (t, name) in with_finite.iter().enumerate() {
        let missing = step_unproved(t);
        if !missing.is_empty() {
            // The step of this invariant is not proved at every action: one lemma per action
            // that Z3 proved, and a comment for each of the others.
            let inv_name = &indexed[t - 1].1.name;
            for (k, act) in info.actions.iter().enumerate() {
                if missing.contains(&act.name.as_str()) {
                    if let Some(text) = case_lemmas(&ctx, t, name, k, &mut unproved) {
                        out.push_str(&text);
                        continue;
                    }
                    unproved.push(format!("`{inv_name}` after `{}`", act.name));
                    out.push_str(&format!(
                        "text \\<open>Not stated: `{inv_name}` after `{}` (Z3 did not prove this step: a counterexample, or no proof within the export's budget).\\<close>\n\n",
                        act.name
                    ));
                    continue;
                }
                let pattern = if act.param_names.is_empty() {
                    act.constructor.clone()
                } else {
                    format!("({} {})", act.constructor, act.param_names.join(" "))
                };
                let params = param_decls(act, types);
                out.push_str(&format!(
                    "lemma {name}_step_{}:\n  fixes \\<sigma> \\<sigma>' :: {state_ty} and \\<alpha> :: {}{params}\n  assumes inv: \"{all} \\<sigma>\" and step: \"{} \\<sigma> \\<alpha> \\<sigma>'\" and {}: \"\\<alpha> = {pattern}\"\n  shows \"{name} \\<sigma>'\"\nproof -\n",
                    super::names::part(&act.name),
                    n.action_type(),
                    n.trans(),
                    act.constructor,
                ));
                out.push_str(&step_case(&ctx, t, name, k, true, None));
                out.push_str("qed\n\n");
            }
            continue;
        }
        out.push_str(&format!(
            "lemma {name}_step:\n  fixes \\<sigma> \\<sigma>' :: {state_ty} and \\<alpha> :: {}\n  assumes inv: \"{all} \\<sigma>\" and step: \"{} \\<sigma> \\<alpha> \\<sigma>'\"\n  shows \"{name} \\<sigma>'\"\n",
            n.action_type(),
            n.trans()
        ));
        out.push_str("proof (cases \\<alpha>)\n");
        for k in 0..info.actions.len() {
            if k > 0 {
                out.push_str("next\n");
            }
            out.push_str(&step_case(&ctx, t, name, k, false, None));
        }
        out.push_str("qed\n\n");
    }
    if !unproved.is_empty() {
        out.push_str(&format!(
            "text \\<open>Not proved: `invariant {} {all}` and the invariants one by one. Z3 did not prove {}, so the induction is not closed; the lemmas above are the parts that hold.\\<close>\n\nend\n",
            n.ioa(),
            unproved.join(", ")
        ));
        return Ok(Some(out));
    }
    out.push_str(&format!(
        "theorem {all}_invariant: \"invariant {} {all}\"\nproof (rule invariantI)\n  fix \\<sigma> :: {state_ty}\n  assume \"ioa_start {} \\<sigma>\"\n  then show \"{all} \\<sigma>\" by (simp add: {all}_start)\nnext\n  fix \\<sigma> \\<sigma>' :: {state_ty} and \\<alpha> :: {}\n  assume \"{all} \\<sigma>\" and \"ioa_trans {} \\<sigma> \\<alpha> \\<sigma>'\"\n  then show \"{all} \\<sigma>'\"\n    by (simp add: {all}_def[of \\<sigma>'] {})\nqed\n\n",
        n.ioa(),
        n.ioa(),
        n.action_type(),
        n.ioa(),
        with_finite.iter().map(|d| format!("{d}_step")).collect::<Vec<_>>().join(" ")
    ));
    for (inv, name) in invs.iter().zip(&defs) {
        out.push_str(&format!(
            "text \\<open>Invariant `{}` of `{}`.\\<close>\ntheorem {name}_invariant: \"invariant {} {name}\"\n  using {all}_invariant by (auto simp: invariant_def {all}_def)\n\n",
            inv.name,
            aut.name,
            n.ioa()
        ));
    }
    out.push_str("end\n");
    Ok(Some(out))
}

/// The proof of one action's case of a step lemma. `core`: the IOA names of the pre-state
/// invariants the leaf uses (`None`: all of them).
///
/// With a deterministic effect the step is split into the precondition (the transition at its
/// own effect state) and `σ' = effect`, the goal is rewritten with the latter, and only the
/// used invariants are unfolded. The method is `auto` with those definitions, the effect, the
/// finiteness of the pre-state as rewrite rules (so that `int (card X) = 0` becomes `X = {}`)
/// and disjointness as membership; `metis` then closes what `auto` leaves — the quantifier
/// instantiations Z3 found by E-matching (e.g. Inv3 at `abstain`: the quorum of `Inv6`, the
/// one of `DeadAbstained` and their common node by `QuorumsIntersect`) — with the distinctness
/// of `option` and the intersection of majorities as its extra facts.
fn leaf(
    n: &super::names::AutomatonNames,
    all: &str,
    target: &str,
    act: &super::automaton::ActionInfo,
    kind: &str,
    core: Option<&[String]>,
    opts: &LeafOpts,
) -> String {
    let exhaust = opts.exhaust;
    let pattern = if act.param_names.is_empty() {
        act.constructor.clone()
    } else {
        format!("({} {})", act.constructor, act.param_names.join(" "))
    };
    let finite = n.finite();
    let used_defs: Vec<String> = match core {
        Some(c) => c
            .iter()
            .map(|u| format!("{}_def", n.invariant(u)))
            .collect(),
        None => Vec::new(),
    };
    let core_words = match core {
        Some([]) => "none".to_string(),
        Some(c) => c.join(", "),
        None => "not asked (all invariants)".to_string(),
    };
    // `option.inject` and `option.sel`: two decisions or learned values `Some x = Some y` are
    // one value (without them metis searches without end: Paxos's `Agreement` at `decide`).
    let mut metis =
        "; metis option.distinct(1) option.inject option.sel majorities_intersect_int".to_string();
    for e in exhaust.iter().chain(opts.distinct) {
        metis.push(' ');
        metis.push_str(e);
    }
    if opts.stated_unproved {
        // A claim Z3 did not prove, stated anyway (`--state-unproved`): `auto` alone, which stops;
        // `metis` on a false goal may search without end (the mutation `dead_means_voted`'s
        // `DeadVoted` after `abstain` ran over 13 min).
        metis.clear();
    }
    let split = act.effect.is_none() && !act.cases.is_empty() && core.is_some();
    if opts.only_case.is_some() && !split {
        // Only a split action has cases to state one by one.
        return String::new();
    }
    let method = if split {
        "one subgoal per transition case, clarsimp, then auto"
    } else {
        "auto, then metis on what auto leaves"
    };
    let mut out = format!(
        "  (* {kind} action `{}`. Z3's unsat core: {core_words}. Method: {method}. *)\n",
        act.name
    );
    if !opts.standalone {
        out.push_str(&format!("  case {pattern}\n"));
    }
    let tr_args: String = act.param_names.iter().map(|p| format!("{p} ")).collect();
    match (&act.effect, core) {
        (Some(eff), Some(core)) => {
            let tr = n.transition(&act.name, None);
            let eff_term = format!("({eff} {tr_args}\\<sigma>)");
            out.push_str(&format!(
                "  from step {pattern_case} have tr: \"{tr} {tr_args}\\<sigma> \\<sigma>'\"\n    by (simp add: {trans}_def)\n",
                pattern_case = act.constructor,
                trans = n.trans()
            ));
            out.push_str(&format!(
                "  then have eff: \"\\<sigma>' = {eff_term}\" and pre: \"{tr} {tr_args}\\<sigma> {eff_term}\"\n    by (simp_all add: {tr}_def)\n"
            ));
            out.push_str(&pre_state_facts(n, all, core));
            let h: Vec<String> = (1..=core.len())
                .map(|i| format!("fin({})", i + 1))
                .collect();
            let target_def = format!("{target}_def");
            // The finiteness of the post-state: a subset of a finite set is finite.
            let dest = if core.is_empty() && target == finite {
                " dest: finite_subset"
            } else {
                ""
            };
            let mut defs = vec![target_def.clone()];
            for d in &used_defs {
                if !defs.contains(d) {
                    defs.push(d.clone());
                }
            }
            out.push_str(&format!(
                "  from pre {} show ?thesis unfolding eff\n    by (auto simp: {} {}_def {eff}_def fin(1)[unfolded {finite}_def] Let_def int_card_eq_0_iff disjoint_iff split: if_split_asm{dest}{metis})\n",
                h.join(" "),
                defs.join(" "),
                tr,
            ));
        }
        (None, Some(core)) if !act.cases.is_empty() => {
            let body = case_split_leaf(n, all, target, act, core, opts);
            if opts.only_case.is_some() && body.is_empty() {
                return String::new();
            }
            out.push_str(&body);
        }
        _ => {
            let step_defs = std::iter::once(format!("{}_def", n.trans()))
                .chain(act.defs.iter().cloned())
                .collect::<Vec<_>>()
                .join(" ");
            let inv_defs = match core {
                Some(_) => {
                    let mut d = vec![
                        format!("{all}_def"),
                        format!("{finite}_def"),
                        format!("{target}_def"),
                    ];
                    for u in &used_defs {
                        if !d.contains(u) {
                            d.push(u.clone());
                        }
                    }
                    d.join(" ")
                }
                None => format!("{all}_defs"),
            };
            // `if_split_asm`: a transition with several cases is an `if` among the hypotheses;
            // `finite_subset`: a subset of a finite set is finite (the finiteness conjunct).
            out.push_str(&format!(
                "  {} inv step{} show ?thesis\n    by (auto simp: {inv_defs} {step_defs} Let_def int_card_eq_0_iff split: if_split_asm dest: finite_subset{metis})\n",
                // A standalone lemma has no case facts to chain (`with` would need them).
                if opts.standalone { "from" } else { "with" },
                if opts.standalone {
                    format!(" {}", act.constructor)
                } else {
                    String::new()
                }
            ));
        }
    }
    out
}

/// The `fin` facts of a leaf: the finiteness of the pre-state, then the invariants of `core`, taken
/// from the conjunction `all` of the pre-state (`fin(1)`, `fin(2)`, …).
fn pre_state_facts(n: &super::names::AutomatonNames, all: &str, core: &[String]) -> String {
    let mut facts = vec![format!("\"{} \\<sigma>\"", n.finite())];
    facts.extend(
        core.iter()
            .map(|u| format!("\"{} \\<sigma>\"", n.invariant(u))),
    );
    format!(
        "  from inv have fin: {} by (simp_all add: {all}_def)\n",
        facts.join(" ")
    )
}

/// The proof of an action with several transition cases (a composite's shared action, whose
/// cases are its components' transitions): the relation is split into its cases, one subgoal
/// each, and each case is closed in two steps — `clarsimp` with that case's definitions and
/// Z3's unsat core still folded (the case's condition and effect, branch by branch, with the
/// ring arithmetic of `mod` indices), then `auto` with the target and the core unfolded and
/// the sequence facts (`nth_append`, `nth_tl`, `hd_conv_nth`, indices as naturals).
fn case_split_leaf(
    n: &super::names::AutomatonNames,
    all: &str,
    target: &str,
    act: &super::automaton::ActionInfo,
    core: &[String],
    opts: &LeafOpts,
) -> String {
    let case_cores = opts.case_cores;
    let finite = n.finite();
    // Z3's core of each case, in the cases' order (when the obligations are the relation's cases
    // one for one); the core of the whole action for a case whose core Z3 did not name.
    let core_all = core;
    let per_case: Option<Vec<Option<&[String]>>> = case_cores
        .filter(|cs| cs.len() == act.cases.len())
        .map(|cs| cs.iter().map(|c| c.as_deref()).collect());
    let tr_args: String = act.param_names.iter().map(|p| format!("{p} ")).collect();
    let action_tr = n.transition(&act.name, None);
    let mut out = format!(
        "  from step {} have tr: \"{action_tr} {tr_args}\\<sigma> \\<sigma>'\"\n    by (simp add: {}_def)\n",
        act.constructor,
        n.trans()
    );
    let facts = pre_state_facts(n, all, core);
    out.push_str(&facts);
    let alts: Vec<String> = act
        .cases
        .iter()
        .enumerate()
        .map(|(k, (def, _))| format!("(c{}) \"{def} {tr_args}\\<sigma> \\<sigma>'\"", k + 1))
        .collect();
    out.push_str(&format!(
        "  from tr consider {}\n    by (auto simp: {action_tr}_def split: if_split_asm)\n  then show ?thesis\n  proof cases\n",
        alts.join(" | ")
    ));
    let mut texts: Vec<String> = Vec::new();
    for (k, (def, case_defs)) in act.cases.iter().enumerate() {
        let own = per_case.as_ref().and_then(|cs| cs[k]);
        let core = own.unwrap_or(core);
        let mut defs = vec![format!("{target}_def")];
        if target != finite {
            defs.push(format!("{finite}_def"));
        }
        for u in core {
            let d = format!("{}_def", n.invariant(u));
            if !defs.contains(&d) {
                defs.push(d);
            }
        }
        let dest = if core.is_empty() && target == finite {
            " dest: finite_subset"
        } else {
            ""
        };
        // Instances only from the case's own core (the action's would give too many).
        if let Some(text) =
            own.and_then(|core| instance_case(n, target, act, k, core, opts.int_binders, core_all))
        {
            texts.push(text);
            continue;
        }
        let core_words = if core.is_empty() {
            "none".to_string()
        } else {
            core.join(", ")
        };
        // A deterministic case (its effect is a function): the projection leaf.
        if case_defs.first() == Some(&format!("{}_def", n.effect(def))) {
            texts.push(projection::projection_case(&projection::ProjectionCase {
                k: k + 1,
                def,
                tr_args: &tr_args,
                fields: opts.fields,
                defs: &defs,
                core_words: &core_words,
                dest,
            }));
            continue;
        }
        texts.push(format!(
            "    (* Case {} (`{}`): its condition and effect, then the invariants (Z3's core of this case: {}). *)\n    case c{}\n    with fin show ?thesis\n      by (clarsimp simp: {} Let_def ring_mod;\n          auto simp: {} Let_def nth_append nth_tl hd_conv_nth imp_conjL all_int_index mod_succ_ring mod_pred_ring int_card_eq_0_iff disjoint_iff{dest})\n",
            k + 1,
            def,
            core_words,
            k + 1,
            case_defs.join(" "),
            defs.join(" "),
        ));
    }
    if let Some(k) = opts.only_case {
        // The case's relation is the lemma's assumption `c{k}` rather than a case of the split.
        let c = format!("c{}", k + 1);
        let text = texts.get(k).map_or(String::new(), |t| {
            t.replace(
                &format!("    case {c}\n    then have"),
                &format!("    from {c} have"),
            )
            .replace(
                &format!("    case {c}\n    with fin"),
                &format!("    from fin {c}"),
            )
            .replace(&format!("    case {c}\n"), "")
        });
        return if text.is_empty() || text.contains("\n    case ") {
            String::new()
        } else {
            format!("{facts}{text}")
        };
    }
    out.push_str(&texts.join("  next\n"));
    out.push_str("  qed\n");
    out
}

/// The leaf of transition case `k` of a multi-case action when the target invariant is
/// `∀ k0 … kn: Int (A ⇒ B)`: the goal's variables are fixed (`intro allI impI`, `subgoal for`), and
/// `auto` gets single instances rather than quantified facts (which make it search without end):
/// the target at the goal's variables; each invariant of the case's Z3 core with one integer
/// variable at the goal's variables and at the integer parameters by which the case reads or
/// writes a state variable that the invariant's variable indexes
/// ([`CaseTerms`](super::instances::CaseTerms)), and with two
/// at (parameter, 0) — the head of an indexed sequence — and, when the case pops that sequence and
/// the target reads it, at (parameter, 1) — the head of its tail, which `hd_tl_conv_nth` rewrites
/// to the element at position 1; and the case's enabled condition unfolded.
/// `None` when the target has another shape, binds two or more variables and the core names no
/// other invariant, or the case has no enabled-condition definition.
fn instance_case(
    n: &super::names::AutomatonNames,
    target: &str,
    act: &super::automaton::ActionInfo,
    k: usize,
    core: &[String],
    int_binders: &BTreeMap<String, Vec<BTreeSet<u32>>>,
    core_all: &[String],
) -> Option<String> {
    let (def, case_defs) = &act.cases[k];
    let terms = act.case_terms.get(k)?;
    let target_name = core.first()?;
    let target_slots: BTreeSet<u32> = int_binders
        .get(target_name)?
        .iter()
        .flatten()
        .copied()
        .collect();
    let arity = int_binders.get(target_name)?.len();
    let enabled = format!("{def}_enabled");
    // A core of the target alone over two or more variables (a sequence's positions): the plain
    // leaf, as the target may be needed at shifted positions, which only its quantified form gives.
    if arity == 0 || (core.len() < 2 && arity > 1) || !case_defs.contains(&format!("{enabled}_def"))
    {
        return None;
    }
    let tr_args: String = act.param_names.iter().map(|p| format!("{p} ")).collect();
    // The integer parameters among `ps` (positions), by name.
    let int_params = |ps: Vec<usize>| -> Vec<String> {
        ps.into_iter()
            .filter(|p| matches!(act.param_types.get(*p), Some(Type::Int)))
            .filter_map(|p| act.param_names.get(p).cloned())
            .collect()
    };
    let vars: Vec<String> = (0..arity).map(|v| format!("g{v}")).collect();
    // `fin` lists the finiteness, then the action's core (the target first).
    let fin_of = |u: &String| core_all.iter().position(|c| c == u).map(|j| j + 2);
    let mut facts = vec![format!(
        "fin(2)[unfolded {target}_def, rule_format, of {}]",
        vars.join(" ")
    )];
    for u in core.iter().skip(1) {
        let (Some(j), Some(slots)) = (fin_of(u), int_binders.get(u)) else {
            continue;
        };
        let def = format!("{}_def", n.invariant(u));
        // At the parameters by which the case reads or writes what the first variable indexes.
        let at_params = int_params(terms.params_indexing(&slots[0]));
        let at: Vec<String> = match slots.len() {
            1 => at_params.into_iter().chain(vars.iter().cloned()).collect(),
            2 => {
                // The head of the tail only of a sequence the target reads.
                let read: BTreeSet<u32> = slots[0].intersection(&target_slots).copied().collect();
                let popped = int_params(terms.params_popping(&read));
                at_params
                    .iter()
                    .map(|p| format!("{p} 0"))
                    .chain(popped.iter().map(|p| format!("{p} 1")))
                    .collect()
            }
            _ => Vec::new(),
        };
        for t in at {
            facts.push(format!("fin({j})[unfolded {def}, rule_format, of {t}]"));
        }
    }
    let simp: Vec<&str> = case_defs
        .iter()
        .filter(|d| **d != format!("{enabled}_def"))
        .map(|d| d.as_str())
        .collect();
    Some(format!(
        "    (* Case {} (`{def}`): the goal's variables fixed, the invariants of Z3's core of this case ({}) instantiated, then clarsimp and auto. *)\n    case c{}\n    from c{} have r: \"{enabled} {tr_args}\\<sigma>\" by (simp add: {def}_def)\n    show ?thesis\n      unfolding {target}_def\n      apply (intro allI impI)\n      subgoal for {}\n        using {} c{} r[unfolded {enabled}_def]\n        by (clarsimp simp: {} Let_def ring_mod;\n            auto simp: nth_append nth_tl hd_append hd_conv_nth hd_tl_conv_nth tl_Nil_iff mod_succ_ring split: if_split_asm)\n      done\n",
        k + 1,
        core.join(", "),
        k + 1,
        k + 1,
        vars.join(" "),
        facts.join(" "),
        k + 1,
        simp.join(" "),
    ))
}

/// What the step cases of one invariants theory share.
struct StepCtx<'a> {
    spec: &'a Spec,
    types: &'a TypeNames<'a>,
    info: &'a AutomatonInfo,
    hints: &'a Hints,
    indexed: &'a [(usize, &'a Invariant)],
    all: &'a str,
    /// See [`LeafOpts::int_binders`].
    int_binders: BTreeMap<String, Vec<BTreeSet<u32>>>,
}

/// The proof of conjunct `t` (0: finiteness, else invariant `t - 1`) named `name` at action
/// number `k`: a case of the step lemma's `proof (cases α)`, or (`standalone`) the body of a
/// lemma of its own for that action, which assumes `α = …` as a fact named by the constructor.
fn step_case(
    c: &StepCtx,
    t: usize,
    name: &str,
    k: usize,
    standalone: bool,
    only_case: Option<usize>,
) -> String {
    let (spec, types, info, hints, indexed) = (c.spec, c.types, c.info, c.hints, c.indexed);
    let n = &info.names;
    let aut = &spec.automata[info.id.0 as usize];
    let act = &info.actions[k];
    // The finiteness lemma (t = 0) needs no invariant; invariant t - 1 needs what Z3's
    // unsat core names, or every invariant when Z3 was not asked.
    let core = if t == 0 {
        Some(Vec::new())
    } else {
        let (index, inv) = indexed[t - 1];
        let mut used: Vec<String> = vec![inv.name.clone()];
        match hints.core(index, &act.name) {
            Some(c) => {
                for u in &c.used {
                    if !used.contains(u) {
                        used.push(u.clone());
                    }
                }
                Some(used)
            }
            None if hints.is_empty() => None,
            None => Some(used),
        }
    };
    // The core of each transition case, the invariant itself first (as `core`).
    let case_cores: Option<Vec<Option<Vec<String>>>> = (t > 0)
        .then(|| hints.case_cores(indexed[t - 1].0, &act.name))
        .flatten()
        .map(|cs| {
            let name = &indexed[t - 1].1.name;
            cs.iter()
                .map(|c| {
                    c.as_ref().map(|c| {
                        let mut used = vec![name.clone()];
                        used.extend(c.iter().filter(|u| *u != name).cloned());
                        used
                    })
                })
                .collect()
        });
    // The enumerations among the action's parameter types: `metis` may need that a
    // value of one is one of its constants (Peterson's `checkTurn`: `turn ≠ i` makes
    // `turn` the other process).
    let mut exhaust: Vec<String> = Vec::new();
    for ty in &act.param_types {
        if let ioa_lang::ir::Type::Named(id) = ty {
            let enumeration = spec
                .types
                .get(id.0 as usize)
                .is_some_and(|t| matches!(t.kind, ioa_lang::ir::TypeDefKind::Enumeration(_)));
            let fact = format!("{}.exhaust", types.type_name(id.0));
            if enumeration && !exhaust.contains(&fact) {
                exhaust.push(fact);
            }
        }
    }
    let distinct = enumerations_named(spec, types, indexed, t, core.as_deref());
    leaf(
        n,
        c.all,
        name,
        act,
        kind_word(aut.actions[k].kind),
        core.as_deref(),
        &LeafOpts {
            exhaust: &exhaust,
            distinct: &distinct,
            standalone,
            stated_unproved: t > 0 && c.hints.stated_unproved(indexed[t - 1].0, &act.name),
            only_case,
            case_cores: case_cores.as_deref(),
            int_binders: &c.int_binders,
            fields: &info.fields,
        },
    )
}

/// The action's parameters as `fixes` entries (` and i :: "Node"` each) of a lemma of its own.
fn param_decls(act: &super::automaton::ActionInfo, types: &TypeNames) -> String {
    act.param_names
        .iter()
        .zip(&act.param_types)
        .map(|(p, ty)| format!(" and {p} :: \"{}\"", super::types::hol_type_bare(types, ty)))
        .collect()
}

/// For an action some of whose transition cases Z3 proved (a composite's shared action whose
/// components' side it proved and the other's not), one lemma per proved case — the case's
/// relation assumed, its leaf as in the split — and a `text` for each other case (pushed on
/// `unproved`). `None` when the action has no such cases or a case leaf cannot stand alone:
/// the caller then leaves the whole action unstated.
fn case_lemmas(
    c: &StepCtx,
    t: usize,
    name: &str,
    k: usize,
    unproved: &mut Vec<String>,
) -> Option<String> {
    let (info, types) = (c.info, c.types);
    let n = &info.names;
    let act = &info.actions[k];
    let (index, inv) = c.indexed[t - 1];
    let proved = c.hints.case_proved(index, &act.name)?;
    if proved.len() != act.cases.len() || !proved.iter().any(|p| *p) {
        return None;
    }
    let state_ty = n.state_type();
    let tr_args: String = act.param_names.iter().map(|p| format!("{p} ")).collect();
    let params = param_decls(act, types);
    let action_tr = n.transition(&act.name, None);
    let mut out = String::new();
    let mut not_stated = Vec::new();
    for (j, ((def, _), ok)) in act.cases.iter().zip(proved).enumerate() {
        let case = def.strip_prefix(&format!("{action_tr}_")).unwrap_or(def);
        if !ok {
            not_stated.push(format!(
                "`{}` after `{}` (case `{case}`)",
                inv.name, act.name
            ));
            out.push_str(&format!(
                "text \\<open>Not stated: `{}` after `{}`, case `{case}` (Z3 did not prove this case: a counterexample, or no proof within the export's budget).\\<close>\n\n",
                inv.name, act.name
            ));
            continue;
        }
        let body = step_case(c, t, name, k, true, Some(j));
        if body.is_empty() {
            return None;
        }
        out.push_str(&format!(
            "lemma {name}_step_{}_{case}:\n  fixes \\<sigma> \\<sigma>' :: {state_ty}{params}\n  assumes inv: \"{} \\<sigma>\" and c{}: \"{def} {tr_args}\\<sigma> \\<sigma>'\"\n  shows \"{name} \\<sigma>'\"\nproof -\n{body}qed\n\n",
            super::names::part(&act.name),
            c.all,
            j + 1,
        ));
    }
    unproved.extend(not_stated);
    Some(out)
}

/// The `T.distinct` facts of the enumerations (of two or more constants) whose constants occur in
/// conjunct `t`'s invariant (none for the finiteness, `t = 0`) or in the invariants of `core`
/// (every invariant when `core` is `None`): what `metis` needs to tell `chosen` from `unknown`
/// (LCR's `AtMostOneLeader` at `leader`: the process that reports was chosen, so it was one of
/// the two that the pre-state's instance relates).
fn enumerations_named(
    spec: &Spec,
    types: &TypeNames,
    indexed: &[(usize, &Invariant)],
    t: usize,
    core: Option<&[String]>,
) -> Vec<String> {
    if t == 0 {
        return Vec::new();
    }
    let mut ids: Vec<u32> = Vec::new();
    for (_, inv) in indexed {
        let used =
            std::ptr::eq(*inv, indexed[t - 1].1) || core.is_none_or(|c| c.contains(&inv.name));
        if !used {
            continue;
        }
        super::expr::walk(&inv.body, &mut |e| {
            if let (ExprKind::EnumConst(_), Type::Named(id)) = (&e.kind, &e.ty) {
                let constants = match spec.types.get(id.0 as usize).map(|d| &d.kind) {
                    Some(TypeDefKind::Enumeration(cs)) => cs.len(),
                    _ => 0,
                };
                if constants > 1 && !ids.contains(&id.0) {
                    ids.push(id.0);
                }
            }
        });
    }
    ids.sort_unstable();
    ids.iter()
        .map(|id| format!("{}.distinct", types.type_name(*id)))
        .collect()
}

/// How a leaf is written besides its facts.
struct LeafOpts<'a> {
    /// `T.exhaust` facts of the enumerations among the action's parameter types.
    exhaust: &'a [String],
    /// `T.distinct` facts of the enumerations whose constants the target or the core invariants
    /// name (`metis` does not know that distinct constants differ).
    distinct: &'a [String],
    /// A lemma of its own (no `case` line; the action is the fact named by its constructor).
    standalone: bool,
    /// The claim is one Z3 did not prove, stated because the user asked (`--state-unproved`).
    stated_unproved: bool,
    /// A lemma of one transition case of a multi-case action (the case's relation is the
    /// assumption `c{k+1}`): its leaf alone, without the split.
    only_case: Option<usize>,
    /// Z3's core of each transition case (see [`Hints::case_cores`]), for multi-case actions.
    case_cores: Option<&'a [Option<Vec<String>>]>,
    /// The invariants of the automaton of the form `∀ k0 … kn: Int (…)`, by name: for each
    /// variable their outer quantifier binds, the state variables it indexes (instances are given
    /// at the parameters that index the same ones).
    int_binders: &'a BTreeMap<String, Vec<BTreeSet<u32>>>,
    /// The record's field selectors, by state slot (the projection leaf pushes each through
    /// the effect).
    fields: &'a [String],
}

fn kind_word(kind: ioa_lang::ast::ActionKind) -> &'static str {
    match kind {
        ioa_lang::ast::ActionKind::Input => "Input",
        ioa_lang::ast::ActionKind::Output => "Output",
        ioa_lang::ast::ActionKind::Internal => "Internal",
    }
}
