//! A forward simulation as a theory, in the style of the Isabelle IOA theories: the relation
//! `F`, a datatype of the external events both automata share (what traces compare), the start
//! witness the proof block's `start` section builds, one step lemma per implementation action,
//! and the theorem `is_forward_sim A B F obs_A obs_B`.
//!
//! Each step lemma's proof mirrors the action's proof block entry, as the paper's LP scripts
//! did (§7): a case split per `if`/`elseif`/`else` (sequential conditionals expanded into nested
//! ones), and in each case the fired specification actions, with the states they lead to, as
//! the witness execution. See [`super::proof`].

use super::automaton::AutomatonInfo;
use super::error::{Construct, ExportError};
use super::expr::walk;
use super::expr::{term, Env};
use super::names::{part as ident, theory, TypeNames};
use super::proof::{InvariantDefs, OrderHints, StepScript};
use super::types::hol_type_bare;
use ioa_lang::ast::ActionKind;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{
    AutomatonBody, BinOp, Expr, ExprKind, Simulation, Spec, StmtKind, Type, TypeDefKind, VarRef,
};
use std::collections::HashSet;

/// Names shared by the simulation theory's parts.
pub struct SimNames {
    /// The theory and prefix.
    pub prefix: String,
    /// The relation.
    pub relation: String,
    /// Observation of implementation actions.
    pub obs_a: String,
    /// Observation of specification actions.
    pub obs_b: String,
}

/// The theory for simulation `sim` from `a` to `b`; `a_invariants` is the implementation's
/// invariants theory, if it has one.
pub fn simulation_theory(
    spec: &Spec,
    types: &TypeNames,
    sim: &Simulation,
    a: &AutomatonInfo,
    b: &AutomatonInfo,
    a_invariants: bool,
    hints: &super::hints::Hints,
) -> Result<String, ExportError> {
    let sim_index = spec.simulations.iter().position(|s| s.name == sim.name);
    let Some(proof) = &sim.proof else {
        return Err(ExportError::Unsupported {
            construct: Construct::StartStatement,
            span: sim.span,
        });
    };
    if let Some(aux) = proof.aux.first() {
        return Err(ExportError::Unsupported {
            construct: Construct::AuxiliaryVariable,
            span: aux.span,
        });
    }
    let prefix = ident(&sim.name);
    let sn = SimNames {
        prefix: prefix.clone(),
        relation: format!("{prefix}_F"),
        obs_a: format!("{prefix}_obs_{}", a.names.prefix),
        obs_b: format!("{prefix}_obs_{}", b.names.prefix),
    };
    let (a_state, b_state) = (a.names.state_type(), b.names.state_type());
    let imports = if a_invariants {
        a.names.invariants_theory()
    } else {
        a.names.theory()
    };
    let mut out = format!(
        "theory {}\n  imports {imports} {}\nbegin\n\n",
        theory(&sim.name),
        b.names.theory()
    );
    out.push_str(&format!(
        "text \\<open>Forward simulation `{}` from `{}` to `{}`.\\<close>\n\n",
        sim.name, spec.automata[a.id.0 as usize].name, spec.automata[b.id.0 as usize].name
    ));

    // External events.
    let ext_ty = format!("{prefix}_ext");
    let mut events: Vec<(String, Vec<Type>)> = Vec::new();
    for act in a.actions.iter().chain(&b.actions) {
        if act.kind == ActionKind::Internal {
            continue;
        }
        match events.iter().find(|(n, _)| *n == act.name) {
            Some((_, tys)) if *tys != act.param_types => {
                return Err(ExportError::ExternalMismatch {
                    action: act.name.clone(),
                    span: sim.span,
                })
            }
            Some(_) => {}
            None => events.push((act.name.clone(), act.param_types.clone())),
        }
    }
    let event_ctor = |name: &str| format!("{prefix}_ev_{}", ident(name));
    out.push_str(
        "text \\<open>The external events; traces of both automata are lists of these.\\<close>\n",
    );
    if events.is_empty() {
        out.push_str(&format!("datatype {ext_ty} = {prefix}_ev_none\n\n"));
    } else {
        let alts: Vec<String> = events
            .iter()
            .map(|(n, tys)| {
                let mut s = event_ctor(n);
                for t in tys {
                    s.push_str(&format!(" \"{}\"", hol_type_bare(types, t)));
                }
                s
            })
            .collect();
        out.push_str(&format!(
            "datatype {ext_ty} =\n    {}\n\n",
            alts.join("\n  | ")
        ));
    }
    for (info, obs) in [(a, &sn.obs_a), (b, &sn.obs_b)] {
        let arms: Vec<String> = info
            .actions
            .iter()
            .map(|act| {
                let ps: String = act.param_names.iter().map(|p| format!(" {p}")).collect();
                let rhs = if act.kind == ActionKind::Internal {
                    "None".to_string()
                } else {
                    format!("Some ({}{ps})", event_ctor(&act.name))
                };
                format!("{}{ps} \\<Rightarrow> {rhs}", act.constructor)
            })
            .collect();
        out.push_str(&format!(
            "definition {obs} :: \"{} \\<Rightarrow> {ext_ty} option\" where\n  \"{obs} \\<alpha> = (case \\<alpha> of\n      {})\"\n\n",
            info.names.action_type(),
            arms.join("\n    | ")
        ));
    }

    // Parameters the header makes one value (`from A(k) to B(k)`): the automata's theories
    // declare a constant for each, and every lemma here assumes them equal (`P`), the
    // specification's written in the implementation's, so that `simp` rewrites the former.
    let equal_params = shared_params(spec, sim, a, b);
    let p_assm = if equal_params.is_empty() {
        String::new()
    } else {
        out.push_str(
            "text \\<open>The simulation's header makes these parameters one value; every lemma below assumes so (P).\\<close>\n\n",
        );
        format!(" and P: \"{}\"", equal_params.join(" \\<and> "))
    };
    let p_fact = if equal_params.is_empty() { "" } else { " P" };

    // The relation.
    let env = Env {
        names: types,
        state_fields: a.fields.clone(),
        state: "\\<sigma>".into(),
        qualified: vec![
            (a.id, a.fields.clone(), "\\<sigma>".into()),
            (b.id, b.fields.clone(), "\\<tau>".into()),
        ],
        params: a.params.clone(),
        locals: vec![],
        hoisted: HashSet::new(),
    };
    out.push_str(&format!(
        "definition {} :: \"{a_state} \\<Rightarrow> {b_state} \\<Rightarrow> bool\" where\n  \"{} \\<sigma> \\<tau> \\<longleftrightarrow> {}\"\n\n",
        sn.relation,
        sn.relation,
        term(&env, &sim.relation)?
    ));

    // The start witness.
    let b_prim = match &spec.automata[b.id.0 as usize].body {
        ioa_lang::ir::AutomatonBody::Primitive(p) => p,
        ioa_lang::ir::AutomatonBody::Composite(_) => unreachable!("b was exported"),
    };
    let mut values: Vec<Option<String>> = vec![None; b.fields.len()];
    let start_env = Env {
        qualified: vec![(a.id, a.fields.clone(), "\\<sigma>".into())],
        ..env.clone()
    };
    for stmt in &proof.start {
        match &stmt.kind {
            StmtKind::Assign { target, value }
                if target.path.is_empty()
                    && matches!(target.root, VarRef::Qualified { automaton, .. } if automaton == b.id) =>
            {
                let VarRef::Qualified { slot, .. } = target.root else {
                    unreachable!("matched above")
                };
                values[slot as usize] = Some(term(&start_env, value)?);
            }
            StmtKind::Ignore => {}
            _ => {
                return Err(ExportError::Unsupported {
                    construct: Construct::StartStatement,
                    span: stmt.span,
                })
            }
        }
    }
    let b_env = Env {
        state_fields: b.fields.clone(),
        qualified: vec![],
        params: b.params.clone(),
        ..env.clone()
    };
    let mut fields = Vec::new();
    for (k, v) in values.into_iter().enumerate() {
        let v = match v {
            Some(v) => v,
            None => match &b_prim.state[k].init {
                Some(init) => term(&b_env, init)?,
                None => {
                    return Err(ExportError::StartUnset {
                        var: format!(
                            "{}.{}",
                            spec.automata[b.id.0 as usize].name, b_prim.state[k].name
                        ),
                        span: sim.span,
                    })
                }
            },
        };
        fields.push(format!("{} = {v}", b.fields[k]));
    }
    let witness = format!("{prefix}_start_witness");
    out.push_str(&format!(
        "text \\<open>The specification's start state, built by the proof block's `start` section.\\<close>\ndefinition {witness} :: \"{a_state} \\<Rightarrow> {b_state}\" where\n  \"{witness} \\<sigma> = \\<lparr>{}\\<rparr>\"\n\n",
        fields.join(",\n    ")
    ));
    // What `ioa prove` does not prove is not stated (see `hints`): a comment names it.
    let start_unproved = sim_index.is_some_and(|k| hints.sim_start_unproved(k));
    let closed = sim_index.is_none_or(|k| {
        hints.simulation_closed(k) && (!a_invariants || hints.invariants_closed(spec, a.id))
    });
    if start_unproved {
        out.push_str(&format!(
            "text \\<open>Not stated: `{prefix}_start` (Z3 did not prove that the start witness is a start state related to every start state).\\<close>\n\n"
        ));
    } else {
        out.push_str(&format!(
        "lemma {prefix}_start:\n  fixes \\<sigma> :: {a_state}\n  assumes \"{} \\<sigma>\"{p_assm}\n  shows \"{} ({witness} \\<sigma>) \\<and> {} \\<sigma> ({witness} \\<sigma>)\"\n  using assms by (auto simp: {}_def {}_def {}_def {witness}_def {}_def)\n\n",
        a.names.start(),
        b.names.start(),
        sn.relation,
        a.names.start(),
        b.names.start(),
        sn.relation,
        b.names.finite()
    ));
    }

    // Step lemmas.
    let invs = a_invariants.then(|| a.names.all_invariants());
    let mut common = vec![format!("{}_def", sn.relation)];
    common.push(format!("{}_def", sn.obs_a));
    common.push(format!("{}_def", sn.obs_b));
    common.push(format!("{}_def", a.names.trans()));
    common.push(format!("{}_def", b.names.trans()));
    let order_base = order_hints(spec, types, a);
    for (k, act) in a.actions.iter().enumerate() {
        let entry = proof.entries.get(k).and_then(|e| e.as_ref());
        let body = entry.and_then(|e| e.body.clone()).unwrap_or_default();
        let n_locals = entry.map(|e| e.n_locals).unwrap_or(0);
        let mut locals: Vec<Option<String>> = act.param_names.iter().cloned().map(Some).collect();
        locals.resize(locals.len().max(n_locals as usize), None);
        let entry_env = Env {
            locals,
            ..env.clone()
        };
        let act_term = if act.param_names.is_empty() {
            act.constructor.clone()
        } else {
            format!("({} {})", act.constructor, act.param_names.join(" "))
        };
        let mut fixes = vec![
            format!("\\<sigma> \\<sigma>' :: {a_state}"),
            format!("\\<tau> :: {b_state}"),
        ];
        for (n, t) in act.param_names.iter().zip(&act.param_types) {
            fixes.push(format!("{n} :: \"{}\"", hol_type_bare(types, t)));
        }
        let inv_assm = invs
            .as_ref()
            .map(|i| format!(" and I: \"{i} \\<sigma>\""))
            .unwrap_or_default();
        if sim_index.is_some_and(|k| hints.sim_step_unproved(k, &act.name)) {
            out.push_str(&format!(
                "text \\<open>Not stated: the step of {} action `{}` (Z3 did not prove every case of it).\\<close>\n\n",
                kind_word(act.kind),
                act.name
            ));
            continue;
        }
        out.push_str(&format!(
            "text \\<open>Step: {} action `{}`.\\<close>\nlemma {prefix}_step_{}:\n  fixes {}\n  assumes F: \"{} \\<sigma> \\<tau>\"{inv_assm}{p_assm} and T: \"{} \\<sigma> {act_term} \\<sigma>'\"\n  shows \"sim_goal {} {} {} {} \\<tau> {act_term} \\<sigma>'\"\n",
            kind_word(act.kind),
            act.name,
            ident(&act.name),
            fixes.join(" and "),
            sn.relation,
            a.names.trans(),
            b.names.ioa(),
            sn.relation,
            sn.obs_a,
            sn.obs_b
        ));
        let facts = format!("{}{p_fact}", if invs.is_some() { "F I T" } else { "F T" });
        let mut simp = common.clone();
        simp.extend(act.defs.iter().cloned());
        // The primitive's transitions for this action (one per transition case of the action).
        let action_transitions: Vec<_> = match &spec.automata[a.id.0 as usize].body {
            AutomatonBody::Primitive(p) => p
                .transitions
                .iter()
                .filter(|t| {
                    spec.automata[a.id.0 as usize].actions[t.action.0 as usize].name == act.name
                })
                .collect(),
            _ => Vec::new(),
        };
        // What Z3 needed in each case of this entry; used only when its cases and the leaves
        // of the script correspond one to one.
        let transitions = action_transitions.len().max(1);
        let cores = sim_index
            .and_then(|k| hints.sim_cores(k, &act.name))
            .map(|c| super::hints::cores_per_leaf(c, transitions))
            .unwrap_or_default();
        let inv_defs = invs.as_ref().map(|i| InvariantDefs {
            all: format!("{i}_defs"),
            conj: format!("{i}_def"),
            finite: format!("{}_def", a.names.finite()),
            by_name: spec
                .invariants
                .iter()
                .filter(|x| x.automaton == a.id)
                .map(|x| {
                    (
                        x.name.clone(),
                        format!("{}_def", a.names.invariant(&x.name)),
                    )
                })
                .collect(),
        });
        let mut order = OrderHints {
            params: act
                .param_names
                .iter()
                .cloned()
                .zip(act.param_types.iter().cloned())
                .collect(),
            ..order_base.clone()
        };
        // The precondition of the action's only transition, for the settled order cases.
        if let [t] = action_transitions.as_slice() {
            order.pre = t.pre.clone();
            order.pre_defs = std::iter::once(format!("{}_def", a.names.trans()))
                .chain(act.defs.iter().cloned())
                .collect();
            for pre in &t.pre {
                if let ExprKind::Quant(Quantifier::ForAll, vars, body) = &pre.kind {
                    if let [(slot, ty)] = vars.as_slice() {
                        if order.fields.iter().any(|(t, _, _)| t == ty) {
                            order.pre_forall.push((*slot, (**body).clone()));
                        }
                    }
                }
            }
        }
        let mut script = StepScript::new(
            entry_env.clone(),
            b,
            facts.clone(),
            simp.clone(),
            inv_defs.clone(),
            cores.clone(),
        )
        .split_cases(act.effect.is_none())
        .with_order(order)
        .with_order_cores(
            (0..cores.len())
                .map(|case| {
                    sim_index
                        .and_then(|k| hints.sim_order_cores(k, &act.name, case))
                        .map(|c| c.to_vec())
                })
                .collect(),
        );
        let mut text = script.body(&body, vec![], "\\<tau>".into(), 1)?;
        if script.leaves() != cores.len() && !cores.is_empty() {
            let mut plain = StepScript::new(entry_env, b, facts, simp, inv_defs, Vec::new())
                .split_cases(act.effect.is_none());
            text = plain.body(&body, vec![], "\\<tau>".into(), 1)?;
        }
        out.push_str("proof -\n");
        out.push_str(&text);
        out.push_str("qed\n\n");
    }

    // The theorem, when every part of it is proved.
    if !closed {
        out.push_str(&format!(
            "text \\<open>Not proved: `is_forward_sim {} {} {} {} {}`. Z3 did not prove every obligation of the simulation (or of the invariants it uses); the lemmas above are the parts that hold.\\<close>\n\nend\n",
            a.names.ioa(),
            b.names.ioa(),
            sn.relation,
            sn.obs_a,
            sn.obs_b
        ));
        return Ok(out);
    }
    let a_act = a.names.action_type();
    let theorem_assm = if equal_params.is_empty() {
        String::new()
    } else {
        format!(
            "assumes P: \"{}\"\n  shows ",
            equal_params.join(" \\<and> ")
        )
    };
    out.push_str(&format!(
        "theorem {prefix}_forward_sim:\n  {theorem_assm}\"is_forward_sim {} {} {} {} {}\"\nproof (rule is_forward_simI)\n  fix \\<sigma> :: {a_state}\n  assume \"ioa_start {} \\<sigma>\"\n  then show \"\\<exists>\\<tau>. ioa_start {} \\<tau> \\<and> {} \\<sigma> \\<tau>\"\n    using {prefix}_start[of \\<sigma>]{p_fact} by auto\nnext\n  fix \\<sigma> \\<sigma>' :: {a_state} and \\<tau> :: {b_state} and \\<alpha> :: {a_act}\n  assume R: \"reachable {} \\<sigma>\" and F: \"{} \\<sigma> \\<tau>\" and T: \"ioa_trans {} \\<sigma> \\<alpha> \\<sigma>'\"\n",
        a.names.ioa(),
        b.names.ioa(),
        sn.relation,
        sn.obs_a,
        sn.obs_b,
        a.names.ioa(),
        b.names.ioa(),
        sn.relation,
        a.names.ioa(),
        sn.relation,
        a.names.ioa()
    ));
    let of = match (&invs, equal_params.is_empty()) {
        (Some(i), p) => {
            out.push_str(&format!(
                "  have I: \"{i} \\<sigma>\"\n    using R {i}_invariant by (auto simp: invariant_def)\n"
            ));
            if p {
                "[OF F I]"
            } else {
                "[OF F I P]"
            }
        }
        (None, true) => "[OF F]",
        (None, false) => "[OF F P]",
    };
    out.push_str(&format!(
        "  show \"sim_goal {} {} {} {} \\<tau> \\<alpha> \\<sigma>'\"\n  proof (cases \\<alpha>)\n",
        b.names.ioa(),
        sn.relation,
        sn.obs_a,
        sn.obs_b
    ));
    for (k, act) in a.actions.iter().enumerate() {
        if k > 0 {
            out.push_str("  next\n");
        }
        let pattern = if act.param_names.is_empty() {
            act.constructor.clone()
        } else {
            format!("({} {})", act.constructor, act.param_names.join(" "))
        };
        out.push_str(&format!(
            "    case {pattern}\n    then show ?thesis\n      using {prefix}_step_{}{of} T by simp\n",
            ident(&act.name)
        ));
    }
    out.push_str("  qed\nqed\n\nend\n");
    Ok(out)
}

/// `B_param_m = A_param_n` for each parameter of `b` (and of `a`) that the simulation's header
/// makes one value with an earlier one: the later one's constant equals the first one's.
fn shared_params(
    spec: &Spec,
    sim: &Simulation,
    a: &AutomatonInfo,
    b: &AutomatonInfo,
) -> Vec<String> {
    let constant = |id: ioa_lang::ir::AutomatonId, k: u32| {
        let info = if id == a.id { a } else { b };
        info.params.get(k as usize).cloned()
    };
    let mut out = Vec::new();
    for p in &sim.params {
        let Some((&first, rest)) = p.binds.split_first() else {
            continue;
        };
        let Some(first) = constant(first.0, first.1) else {
            continue;
        };
        for &(id, k) in rest {
            if let Some(c) = constant(id, k) {
                if c != first {
                    out.push(format!("{c} = {first}"));
                }
            }
        }
    }
    let _ = spec;
    out
}

/// The tuple fields compared by `<`, `≤`, `>` or `≥` in the preconditions and invariants of
/// automaton `a`, and its invariants by shape (see [`OrderHints`]).
fn order_hints(spec: &Spec, types: &TypeNames, a: &AutomatonInfo) -> OrderHints {
    let mut hints = OrderHints::default();
    let mut note = |e: &Expr| {
        if let ExprKind::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, l, r) = &e.kind {
            for side in [l, r] {
                if let ExprKind::Field(t, k) = &side.kind {
                    if let Type::Named(id) = &t.ty {
                        let only = matches!(&spec.types[id.0 as usize].kind,
                            TypeDefKind::Tuple(fields) if fields.len() == 1);
                        let field = types.field(id.0, *k);
                        if !hints
                            .fields
                            .iter()
                            .any(|(ty, f, _)| *ty == t.ty && *f == field)
                        {
                            hints.fields.push((t.ty.clone(), field, only));
                        }
                    }
                }
            }
        }
    };
    let prim = match &spec.automata[a.id.0 as usize].body {
        AutomatonBody::Primitive(p) => Some(p),
        AutomatonBody::Composite(_) => None,
    };
    for tr in prim.map(|p| p.transitions.as_slice()).unwrap_or_default() {
        for pre in &tr.pre {
            walk(pre, &mut note);
        }
    }
    let invariants: Vec<_> = spec
        .invariants
        .iter()
        .filter(|x| x.automaton == a.id)
        .collect();
    for inv in &invariants {
        walk(&inv.body, &mut note);
    }
    if let Some(p) = prim {
        hints.state_types = p.state.iter().map(|v| v.ty.clone()).collect();
    }
    for inv in &invariants {
        // `∀ y: T (A ⇒ ∀ x: T B)` over a compared type: kept as `A ⇒ B`.
        if let ExprKind::Quant(Quantifier::ForAll, vars, body) = &inv.body.kind {
            if let ([(y, ty)], ExprKind::Binary(BinOp::Implies, l, r)) =
                (vars.as_slice(), &body.kind)
            {
                if let ExprKind::Quant(Quantifier::ForAll, inner, b) = &r.kind {
                    if let [(x, ty2)] = inner.as_slice() {
                        if ty == ty2 && hints.fields.iter().any(|(t, _, _)| t == ty) {
                            let e = Expr {
                                kind: ExprKind::Binary(BinOp::Implies, l.clone(), b.clone()),
                                ty: Type::Bool,
                                span: inv.body.span,
                            };
                            hints.nested.push((inv.name.clone(), *y, *x, e));
                        }
                    }
                }
            }
        }
    }
    for inv in invariants {
        let konst = a.names.invariant(&inv.name);
        match &inv.body.kind {
            ExprKind::Quant(Quantifier::ForAll, vars, _) => {
                if vars
                    .iter()
                    .all(|(_, ty)| hints.fields.iter().any(|(t, _, _)| t == ty))
                {
                    hints.prefixed.push((inv.name.clone(), konst, vars.len()));
                }
            }
            ExprKind::Quant(..) => {}
            _ => hints.ground.push((inv.name.clone(), konst)),
        }
    }
    hints
}

fn kind_word(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Input => "input",
        ActionKind::Output => "output",
        ActionKind::Internal => "internal",
    }
}
