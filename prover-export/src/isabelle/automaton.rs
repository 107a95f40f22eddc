//! One primitive automaton as a theory: a record of its state variables, a datatype of its
//! actions, its start states, one definition per transition (`pre ∧ σ' = …`, through a state
//! function `…_eff` when the effect is deterministic), the whole transition relation by case on
//! the action, and the automaton as an `ioa` record of `IOA_Base`.
//!
//! Several transition cases of one action are tried in order, as the interpreter does: a later
//! case applies only when no earlier case is enabled.

use super::effect::EffectWriter;
use super::error::ExportError;
use super::expr::{term, Env};
use super::names::{ident, local_names, AutomatonNames, TypeNames};
use super::types::{finite_term, hol_type, hol_type_bare, ioa_type};
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{AutomatonId, Expr, Primitive, Spec, Transition, Type};
use std::collections::HashSet;

/// What other theories need to know about an exported automaton.
pub struct AutomatonInfo {
    /// The automaton.
    pub id: AutomatonId,
    /// Its names.
    pub names: AutomatonNames,
    /// Record fields, by state slot.
    pub fields: Vec<String>,
    /// Constants of its parameters, by slot.
    pub params: Vec<String>,
    /// Its actions, by action id.
    pub actions: Vec<ActionInfo>,
    /// The definitions a proof unfolds to see a step (transitions, effects, `…_trans`).
    pub step_defs: Vec<String>,
}

/// One action of an exported automaton.
pub struct ActionInfo {
    /// The IOA name.
    pub name: String,
    /// Input, output or internal.
    pub kind: ActionKind,
    /// The datatype constructor.
    pub constructor: String,
    /// The parameter types.
    pub param_types: Vec<Type>,
    /// The parameter names (identifiers).
    pub param_names: Vec<String>,
    /// The state function, when the action has one transition and it is deterministic.
    pub effect: Option<String>,
    /// The definitions a proof unfolds to see this action's step.
    pub defs: Vec<String>,
    /// When the action has several transition cases: each case's relation (`…_tr_a_c`) and
    /// the definitions a proof unfolds to see that case alone (its enabling condition, its
    /// effect, the relation). Empty for an action with at most one case.
    pub cases: Vec<(String, Vec<String>)>,
    /// What each of `cases` indexes by the action's parameters (where instance leaves
    /// instantiate invariants), in the same order.
    pub case_terms: Vec<super::instances::CaseTerms>,
}

/// The theory for primitive automaton `id`, and what other theories need about it.
pub fn automaton_theory(
    spec: &Spec,
    types: &TypeNames,
    id: AutomatonId,
    prim: &Primitive,
    types_theory: &str,
) -> Result<(String, AutomatonInfo), ExportError> {
    let aut = &spec.automata[id.0 as usize];
    let names = AutomatonNames::new(&aut.name);
    let fields: Vec<String> = prim.state.iter().map(|v| names.field(&v.name)).collect();
    let params: Vec<String> = aut.params.iter().map(|p| names.param(&p.name)).collect();
    let state_ty = names.state_type();
    let base_env = Env {
        names: types,
        state_fields: fields.clone(),
        state: "\\<sigma>".into(),
        qualified: vec![(id, fields.clone(), "\\<sigma>".into())],
        params: params.clone(),
        locals: vec![],
        hoisted: HashSet::new(),
    };
    let mut out = String::new();
    out.push_str(&format!(
        "theory {}\n  imports {types_theory}\nbegin\n\n",
        names.theory()
    ));
    out.push_str(&format!(
        "text \\<open>Primitive automaton `{}`: states, actions, start states and transitions.\\<close>\n\n",
        aut.name
    ));
    for (p, c) in aut.params.iter().zip(&params) {
        out.push_str(&format!(
            "text \\<open>Automaton parameter `{}`: an arbitrary but fixed value.\\<close>\nconsts {c} :: \"{}\"\n\n",
            p.name,
            hol_type_bare(types, &p.ty)
        ));
    }
    out.push_str(&format!("record {state_ty} =\n"));
    for (v, f) in prim.state.iter().zip(&fields) {
        out.push_str(&format!("  {f} :: \"{}\"\n", hol_type_bare(types, &v.ty)));
    }
    out.push('\n');
    // IOA's values are finite: start states are finite states and set-valued action parameters
    // finite sets, so `card` is the number of elements; that every reachable state is finite is
    // proved with the invariants (`…_finite_step`).
    let finite = names.finite();
    let finite_parts: Vec<String> = prim
        .state
        .iter()
        .zip(&fields)
        .filter_map(|(v, f)| finite_term(types, &v.ty, &format!("({f} \\<sigma>)")))
        .collect();
    out.push_str(&format!(
        "text \\<open>IOA's sets and maps are finite: the states of `{}` are those whose sets and maps are.\\<close>\ndefinition {finite} :: \"{state_ty} \\<Rightarrow> bool\" where\n  \"{finite} \\<sigma> \\<longleftrightarrow> {}\"\n\n",
        aut.name,
        if finite_parts.is_empty() {
            "True".to_string()
        } else {
            finite_parts.join("\n    \\<and> ")
        }
    ));

    // Actions.
    let mut actions = Vec::new();
    for a in &aut.actions {
        let param_names: Vec<String> = a.params.iter().map(|p| ident(&p.name)).collect();
        actions.push(ActionInfo {
            name: a.name.clone(),
            kind: a.kind,
            constructor: names.action(&a.name),
            param_types: a.params.iter().map(|p| p.ty.clone()).collect(),
            param_names,
            effect: None,
            defs: Vec::new(),
            cases: Vec::new(),
            case_terms: Vec::new(),
        });
    }
    out.push_str(&format!("datatype {} =\n", names.action_type()));
    let alts: Vec<String> = actions
        .iter()
        .map(|a| {
            let mut s = a.constructor.clone();
            for t in &a.param_types {
                s.push_str(&format!(" \"{}\"", hol_type_bare(types, t)));
            }
            s
        })
        .collect();
    out.push_str(&format!("    {}\n\n", alts.join("\n  | ")));

    // Start states.
    let mut start = Vec::new();
    for (v, f) in prim.state.iter().zip(&fields) {
        if let Some(init) = &v.init {
            start.push(initial_value(&base_env, f, init)?);
        }
    }
    if let Some(so) = &prim.so_that {
        start.push(term(&base_env, so)?);
    }
    start.push(format!("{finite} \\<sigma>"));
    out.push_str(&format!(
        "definition {} :: \"{state_ty} \\<Rightarrow> bool\" where\n  \"{} \\<sigma> \\<longleftrightarrow>\n    {}\"\n\n",
        names.start(),
        names.start(),
        start.join("\n    \\<and> ")
    ));

    // Transitions.
    let mut step_defs = Vec::new();
    for (aid, a) in aut.actions.iter().enumerate() {
        let first_def = step_defs.len();
        let cases: Vec<&Transition> = prim
            .transitions
            .iter()
            .filter(|t| t.action.0 as usize == aid)
            .collect();
        let param_types = actions[aid].param_types.clone();
        let param_names = actions[aid].param_names.clone();
        let sig: String = param_types
            .iter()
            .map(|t| format!("{} \\<Rightarrow> ", hol_type(types, t)))
            .collect();
        let action_def = names.transition(&a.name, None);
        let args =
            |ns: &[String]| -> String { ns.iter().map(|n| format!("{n} ")).collect::<String>() };
        out.push_str(&format!(
            "text \\<open>{} action `{}`{}.\\<close>\n",
            kind_word(a.kind),
            a.name,
            if a.params.is_empty() {
                String::new()
            } else {
                format!(
                    "({})",
                    a.params
                        .iter()
                        .map(|p| format!("{}: {}", p.name, ioa_type(spec, &p.ty)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ));
        if cases.is_empty() {
            out.push_str(&format!(
                "definition {action_def} :: \"{sig}{state_ty} \\<Rightarrow> {state_ty} \\<Rightarrow> bool\" where\n  \"{action_def} {}\\<sigma> \\<sigma>' \\<longleftrightarrow> False\"\n\n",
                args(&param_names)
            ));
            step_defs.push(format!("{action_def}_def"));
            actions[aid].defs = step_defs[first_def..].to_vec();
            continue;
        }
        let mut case_defs = Vec::new();
        for (k, t) in cases.iter().enumerate() {
            let case_name = if cases.len() == 1 {
                None
            } else {
                Some(t.case.clone().unwrap_or_else(|| format!("case{}", k + 1)))
            };
            let def = names.transition(&a.name, case_name.as_deref());
            let locals = local_names(&t.local_names, t.n_locals);
            let pnames: Vec<String> = (0..param_types.len())
                .map(|k| {
                    locals
                        .get(k)
                        .cloned()
                        .flatten()
                        .unwrap_or_else(|| param_names[k].clone())
                })
                .collect();
            let mut env = base_env.clone();
            env.locals = locals;
            let mut guards: Vec<String> = Vec::new();
            // A set-valued parameter is a finite set, as every IOA value.
            for (k, p) in a.params.iter().enumerate() {
                if let Some(f) = finite_term(types, &p.ty, &pnames[k]) {
                    guards.push(format!("({f})"));
                }
            }
            // A `const` parameter of the signature always has its fixed value.
            for (k, p) in a.params.iter().enumerate() {
                if let Some(fixed) = &p.fixed {
                    guards.push(format!("({} = {})", pnames[k], term(&base_env, fixed)?));
                }
            }
            for (k, e) in &t.const_args {
                guards.push(format!("({} = {})", pnames[*k as usize], term(&env, e)?));
            }
            let sig_where = aut.actions[aid].where_clause.as_ref();
            for w in sig_where.into_iter().chain(t.where_clause.iter()) {
                guards.push(term(&env, w)?);
            }
            for p in &t.pre {
                guards.push(guard(&env, p)?);
            }
            let mut writer = EffectWriter::new(
                env.clone(),
                prim.state.iter().map(|v| v.ty.clone()).collect(),
                prim.state.iter().map(|v| v.name.clone()).collect(),
                "\\<sigma>",
            );
            let step = if writer.is_deterministic(&t.eff) {
                let eff = names.effect(&def);
                let body = writer.state_term(&t.eff, "\\<sigma>")?;
                out.push_str(&format!(
                    "definition {eff} :: \"{sig}{state_ty} \\<Rightarrow> {state_ty}\" where\n  \"{eff} {}\\<sigma> = {body}\"\n\n",
                    args(&pnames)
                ));
                step_defs.push(format!("{eff}_def"));
                if cases.len() == 1 {
                    actions[aid].effect = Some(eff.clone());
                }
                format!("\\<sigma>' = {eff} {}\\<sigma>", args(&pnames))
            } else {
                writer.relation(&t.eff, "\\<sigma>", "\\<sigma>'")?
            };
            let enabled = if guards.is_empty() {
                "True".to_string()
            } else {
                guards.join("\n    \\<and> ")
            };
            if cases.len() > 1 {
                let en = names.enabled(&def);
                out.push_str(&format!(
                    "definition {en} :: \"{sig}{state_ty} \\<Rightarrow> bool\" where\n  \"{en} {}\\<sigma> \\<longleftrightarrow>\n    {enabled}\"\n\n",
                    args(&pnames)
                ));
                step_defs.push(format!("{en}_def"));
                out.push_str(&format!(
                    "definition {def} :: \"{sig}{state_ty} \\<Rightarrow> {state_ty} \\<Rightarrow> bool\" where\n  \"{def} {}\\<sigma> \\<sigma>' \\<longleftrightarrow>\n    {en} {}\\<sigma> \\<and> {step}\"\n\n",
                    args(&pnames),
                    args(&pnames)
                ));
                case_defs.push((def.clone(), en));
                let first_case_def = step_defs.len() - 1;
                let mut defs = step_defs[first_case_def..].to_vec();
                if let Some(prev) = step_defs.get(first_case_def.wrapping_sub(1)) {
                    // The effect's definition, written just before the enabling condition.
                    if *prev == format!("{}_def", names.effect(&def)) {
                        defs.insert(0, prev.clone());
                    }
                }
                defs.push(format!("{def}_def"));
                actions[aid].cases.push((def.clone(), defs));
                actions[aid]
                    .case_terms
                    .push(super::instances::CaseTerms::of(t, param_types.len()));
            } else {
                let body = if guards.is_empty() {
                    step
                } else {
                    format!("{enabled}\n    \\<and> {step}")
                };
                out.push_str(&format!(
                    "definition {def} :: \"{sig}{state_ty} \\<Rightarrow> {state_ty} \\<Rightarrow> bool\" where\n  \"{def} {}\\<sigma> \\<sigma>' \\<longleftrightarrow>\n    {body}\"\n\n",
                    args(&pnames)
                ));
            }
            step_defs.push(format!("{def}_def"));
        }
        if cases.len() > 1 {
            let ps = args(&param_names);
            let mut body = String::new();
            for (def, en) in &case_defs {
                body.push_str(&format!(
                    "if {en} {ps}\\<sigma> then {def} {ps}\\<sigma> \\<sigma>'\n     else "
                ));
            }
            body.push_str("False");
            out.push_str(&format!(
                "text \\<open>The cases of `{}` are tried in order; the first enabled one applies.\\<close>\ndefinition {action_def} :: \"{sig}{state_ty} \\<Rightarrow> {state_ty} \\<Rightarrow> bool\" where\n  \"{action_def} {ps}\\<sigma> \\<sigma>' \\<longleftrightarrow>\n    ({body})\"\n\n",
                a.name
            ));
            step_defs.push(format!("{action_def}_def"));
        }
        actions[aid].defs = step_defs[first_def..].to_vec();
    }

    // The transition relation and the automaton.
    let trans = names.trans();
    out.push_str(&format!(
        "definition {trans} :: \"{state_ty} \\<Rightarrow> {} \\<Rightarrow> {state_ty} \\<Rightarrow> bool\" where\n  \"{trans} \\<sigma> \\<alpha> \\<sigma>' \\<longleftrightarrow> (case \\<alpha> of\n",
        names.action_type()
    ));
    let arms: Vec<String> = aut
        .actions
        .iter()
        .zip(&actions)
        .map(|(a, info)| {
            let ps: String = info.param_names.iter().map(|n| format!(" {n}")).collect();
            format!(
                "{}{ps} \\<Rightarrow> {}{ps} \\<sigma> \\<sigma>'",
                info.constructor,
                names.transition(&a.name, None)
            )
        })
        .collect();
    out.push_str(&format!("      {})\"\n\n", arms.join("\n    | ")));
    step_defs.push(format!("{trans}_def"));
    out.push_str(&format!(
        "definition {} :: \"({}, {state_ty}) ioa\" where\n  \"{} = \\<lparr>ioa_start = {}, ioa_trans = {trans}\\<rparr>\"\n\n",
        names.ioa(),
        names.action_type(),
        names.ioa(),
        names.start()
    ));
    out.push_str(&format!(
        "lemma {}_simps [simp]:\n  \"ioa_start {} = {}\"\n  \"ioa_trans {} = {trans}\"\n  by (simp_all add: {}_def)\n\nend\n",
        names.ioa(),
        names.ioa(),
        names.start(),
        names.ioa(),
        names.ioa()
    ));
    Ok((
        out,
        AutomatonInfo {
            id,
            names,
            fields,
            params,
            actions,
            step_defs,
        },
    ))
}

fn kind_word(kind: ActionKind) -> &'static str {
    match kind {
        ActionKind::Input => "Input",
        ActionKind::Output => "Output",
        ActionKind::Internal => "Internal",
    }
}

/// `f σ = init`, or for `x := choose y where P` the condition `P` on `f σ`.
fn initial_value(env: &Env, field: &str, init: &Expr) -> Result<String, ExportError> {
    if let ioa_lang::ir::ExprKind::Choose { var, cond, .. } = &init.kind {
        let mut env = env.clone();
        let name = format!("({field} \\<sigma>)");
        let mut locals = env.locals.clone();
        locals.resize(locals.len().max(*var as usize + 1), None);
        locals[*var as usize] = Some(name);
        env.locals = locals;
        return match cond {
            Some(c) => term(&env, c),
            None => Ok("True".into()),
        };
    }
    Ok(format!("({field} \\<sigma>) = {}", term(env, init)?))
}

/// A precondition conjunct.
fn guard(env: &Env, e: &Expr) -> Result<String, ExportError> {
    term(env, e)
}
