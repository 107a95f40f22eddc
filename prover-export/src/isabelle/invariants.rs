//! An automaton's invariants as a theory: each invariant a predicate on states, their
//! conjunction proved inductive (start, and one step case per action), and each stated as
//! `invariant A I`.
//!
//! Every step case assumes all of the automaton's exported invariants in the pre-state (a joint
//! induction), which is sound however the invariants depend on each other. The conjunction
//! starts with the automaton's finiteness predicate (`…_finite`: every set and map of the state
//! is finite, as IOA's values are), proved like an invariant, so that `card` in an invariant
//! means the number of elements.

use super::automaton::AutomatonInfo;
use super::error::ExportError;
use super::expr::{term, Env};
use super::names::TypeNames;
use ioa_lang::ir::{Invariant, Spec};
use std::collections::HashSet;

/// The invariants' theory, or `None` when the automaton has no invariants.
pub fn invariants_theory(
    spec: &Spec,
    types: &TypeNames,
    info: &AutomatonInfo,
) -> Result<Option<String>, ExportError> {
    let invs: Vec<&Invariant> = spec
        .invariants
        .iter()
        .filter(|i| i.automaton == info.id)
        .collect();
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
    out.push_str(&format!(
        "lemma {all}_start:\n  fixes \\<sigma> :: {state_ty}\n  assumes \"{}\\<sigma>\"\n  shows \"{all} \\<sigma>\"\n  using assms by (auto simp: {all}_defs {}_def)\n\n",
        format_args!("{} ", n.start()),
        n.start()
    ));
    let aut = &spec.automata[info.id.0 as usize];
    let with_finite: Vec<String> = std::iter::once(finite.clone())
        .chain(defs.iter().cloned())
        .collect();
    for name in &with_finite {
        out.push_str(&format!(
            "lemma {name}_step:\n  fixes \\<sigma> \\<sigma>' :: {state_ty} and \\<alpha> :: {}\n  assumes inv: \"{all} \\<sigma>\" and step: \"{} \\<sigma> \\<alpha> \\<sigma>'\"\n  shows \"{name} \\<sigma>'\"\n",
            n.action_type(),
            n.trans()
        ));
        out.push_str("proof (cases \\<alpha>)\n");
        for (k, act) in info.actions.iter().enumerate() {
            if k > 0 {
                out.push_str("next\n");
            }
            let pattern = if act.param_names.is_empty() {
                act.constructor.clone()
            } else {
                format!("({} {})", act.constructor, act.param_names.join(" "))
            };
            let step_defs = std::iter::once(format!("{}_def", n.trans()))
                .chain(act.defs.iter().cloned())
                .collect::<Vec<_>>()
                .join(" ");
            // `if_split_asm`: a transition with several cases is an `if` among the hypotheses,
            // whose branches simp does not unfold until the condition is split;
            // `finite_subset`: a subset of a finite set is finite (the finiteness conjunct).
            out.push_str(&format!(
                "  (* {} action `{}` *)\n  case {pattern}\n  with inv step show ?thesis\n    by (auto simp: {all}_defs {step_defs} Let_def split: if_split_asm dest: finite_subset)\n",
                kind_word(aut.actions[k].kind),
                act.name
            ));
        }
        out.push_str("qed\n\n");
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

fn kind_word(kind: ioa_lang::ast::ActionKind) -> &'static str {
    match kind {
        ioa_lang::ast::ActionKind::Input => "Input",
        ioa_lang::ast::ActionKind::Output => "Output",
        ioa_lang::ast::ActionKind::Internal => "Internal",
    }
}
