//! Obligations for `forward simulation from A to B: F` with a proof block (paper §7).
//!
//! *Start*: the `start` block, run from a start state of A, yields a start state of B (every
//! variable B initialises keeps its initial value, B's `so that` holds) and F holds.
//!
//! *Step*, per transition of A and per case of its entry: the entry's conditionals, nested or in
//! sequence, are expanded into paths (sequential conditionals multiply out, as §7 does by
//! nesting them); each path is one obligation. Under the assumed invariants of A in the
//! pre-state, F in the pre-state, A's transition and the path's conditions, the goal is that each
//! fired B action's precondition holds in the B state where it fires, that the external actions
//! fired are exactly A's (none for an internal action), and that F holds afterwards.

use super::invariant::{invariant_term, transitions};
use super::{
    assert_goals, assumed_invariants, declare_params, declare_state, show_state, slots_used,
    start_state, transition, Assumptions, Kind, Obligation, Section, Shown,
};
use crate::error::EncodeError;
use crate::smt::expr::{state_vars, Encoder, Env};
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{
    AutomatonBody, AutomatonId, Expr, ProofBlock, Simulation, Spec, Stmt, StmtKind,
};
use std::collections::BTreeSet;

/// Start and step obligations of simulation `index`.
pub fn obligations(
    spec: &Spec,
    index: usize,
    assume: &Assumptions,
) -> Result<Vec<Obligation>, EncodeError> {
    let sim = &spec.simulations[index];
    let Some(proof) = &sim.proof else {
        return Err(EncodeError::Unsupported {
            what: "a simulation without a proof block (the prover needs the step correspondence)",
            span: sim.span,
        });
    };
    let assumed = assumed_invariants(spec, sim.from, assume, &sim.using, sim.span)?;
    let mut out = vec![start(spec, sim, proof)?];
    let ts = transitions(spec, sim.from)?;
    for t_index in 0..ts.len() {
        out.extend(step(spec, sim, proof, t_index, &assumed)?);
    }
    Ok(out)
}

fn aux_env(enc: &mut Encoder, proof: &ProofBlock, env: &mut Env) {
    env.aux_types = proof.aux.iter().map(|d| d.ty.clone()).collect();
    env.aux = proof
        .aux
        .iter()
        .map(|d| {
            let sort = enc.sort(&d.ty);
            enc.script.fresh_const(&format!("aux.{}", d.name), &sort)
        })
        .collect();
}

fn start(spec: &Spec, sim: &Simulation, proof: &ProofBlock) -> Result<Obligation, EncodeError> {
    let (a, b) = (sim.from, sim.to);
    let mut enc = Encoder::new(spec);
    let mut env = Env::default();
    declare_params(&mut enc, a, &mut env);
    declare_params(&mut enc, b, &mut env);
    enc.script.comment("a start state of the implementation");
    start_state(&mut enc, a, &mut env, ".0")?;
    enc.script
        .comment("the specification's state before the start block: anything");
    let b0 = declare_state(&mut enc, b, ".0");
    env.states.insert(b.0, b0);
    aux_env(&mut enc, proof, &mut env);
    env.automaton = None;
    for (k, d) in proof.aux.iter().enumerate() {
        if let Some(init) = &d.init {
            let t = enc.expr(init, &env)?;
            let name = env.aux[k].clone();
            enc.script.assert(&format!("(= {name} {t})"));
        }
    }
    enc.script.comment("the start block");
    let after = enc.exec(&proof.start, &env)?;
    let mut goals = Vec::new();
    let AutomatonBody::Primitive(bp) = &spec.automata[b.0 as usize].body else {
        return Err(EncodeError::Unsupported {
            what: "a composite specification",
            span: sim.span,
        });
    };
    let mut b_env = after.clone();
    b_env.automaton = Some(b);
    let b_name = &spec.automata[b.0 as usize].name;
    for (k, v) in bp.state.iter().enumerate() {
        if let Some(init) = &v.init {
            let t = enc.expr(init, &b_env)?;
            goals.push((
                format!("{b_name}.{} has its initial value", v.name),
                format!("(= {} {t})", after.state(b)[k]),
            ));
        }
    }
    if let Some(so) = &bp.so_that {
        let t = enc.expr(so, &b_env)?;
        goals.push((format!("{b_name}'s `so that` holds"), t));
    }
    let rel = relation(&mut enc, sim, &after)?;
    goals.push(("the relation holds".into(), rel));
    let goals = assert_goals(&mut enc, &goals);
    let mut shown = Vec::new();
    let slots_a = slots_used(a, false, &[&sim.relation], &[&proof.start]);
    show_state(
        spec,
        a,
        &slots_a,
        after.state(a),
        Section::Start,
        true,
        &mut shown,
    );
    let slots_b = slots_used(b, false, &[&sim.relation], &[&proof.start]);
    show_state(
        spec,
        b,
        &slots_b,
        after.state(b),
        Section::Start,
        true,
        &mut shown,
    );
    Ok(Obligation {
        target: sim.name.clone(),
        kind: Kind::SimulationStart,
        action: None,
        action_kind: None,
        case: None,
        assumed: vec![],
        script: enc.finish(),
        goals,
        hypotheses: vec![],
        shown,
        span: sim.span,
    })
}

fn relation(enc: &mut Encoder, sim: &Simulation, env: &Env) -> Result<String, EncodeError> {
    let mut env = env.clone();
    env.automaton = None;
    env.locals.clear();
    enc.expr(&sim.relation, &env)
}

/// One path through an entry: its encoder (hypotheses so far), environment, goals and label.
#[derive(Clone)]
struct Path<'s> {
    enc: Encoder<'s>,
    env: Env,
    goals: Vec<(String, String)>,
    external: Vec<(String, Vec<String>)>,
    branches: Vec<String>,
}

fn step(
    spec: &Spec,
    sim: &Simulation,
    proof: &ProofBlock,
    t_index: usize,
    assumed: &[usize],
) -> Result<Vec<Obligation>, EncodeError> {
    let (a, b) = (sim.from, sim.to);
    let t = &transitions(spec, a)?[t_index];
    let action = &spec.automata[a.0 as usize].actions[t.action.0 as usize];
    let mut enc = Encoder::new(spec);
    let mut env = Env::default();
    declare_params(&mut enc, a, &mut env);
    declare_params(&mut enc, b, &mut env);
    enc.script.comment("the pre-states");
    let a_pre = declare_state(&mut enc, a, "");
    env.states.insert(a.0, a_pre);
    let b_pre = declare_state(&mut enc, b, "");
    env.states.insert(b.0, b_pre);
    aux_env(&mut enc, proof, &mut env);
    enc.script
        .comment("assumed invariants of the implementation, in its pre-state");
    let mut a_env = env.clone();
    a_env.automaton = Some(a);
    for k in assumed {
        let term = invariant_term(&mut enc, &spec.invariants[*k].body, &a_env)?;
        enc.script.hypothesis(&spec.invariants[*k].name, &term);
    }
    enc.script.comment("the relation, in the pre-states");
    let rel = relation(&mut enc, sim, &env)?;
    enc.script.hypothesis("the relation", &rel);
    enc.script
        .comment(&format!("the implementation's transition {}", action.name));
    let mut params = Vec::new();
    let a_post_env = transition(&mut enc, a, t, &env, &mut params)?;
    let a_post = a_post_env.state(a).to_vec();
    let param_terms: Vec<String> = params.iter().map(|p| p.constant.clone()).collect();
    // The entry runs with A's parameters as locals, A in its pre-state, B as it evolves.
    let mut entry_env = env.clone();
    entry_env.automaton = None;
    entry_env.locals.clear();
    for (k, p) in param_terms.iter().enumerate() {
        entry_env.bind(k as u32, p.clone());
    }
    let entry = proof
        .entries
        .get(t.action.0 as usize)
        .and_then(|e| e.as_ref());
    let body: Vec<&Stmt> = entry
        .and_then(|e| e.body.as_ref())
        .map(|b| b.iter().collect())
        .unwrap_or_default();
    let start = Path {
        enc,
        env: entry_env,
        goals: vec![],
        external: vec![],
        branches: vec![],
    };
    enc_comment(&start, "the proof block's entry");
    let mut paths = Vec::new();
    walk(spec, b, &body, start, &mut paths)?;
    let n_paths = paths.len();
    let mut out = Vec::new();
    for (case_no, mut path) in paths.into_iter().enumerate() {
        // The external trace: A's action (if external) must be exactly what B fired externally.
        let trace_goal = if action.kind == ActionKind::Internal {
            if path.external.is_empty() {
                "true".to_string()
            } else {
                "false".to_string()
            }
        } else {
            match path.external.as_slice() {
                [(name, args)] if *name == action.name && args.len() == param_terms.len() => {
                    let eqs: Vec<String> = args
                        .iter()
                        .zip(&param_terms)
                        .map(|(x, y)| format!("(= {x} {y})"))
                        .collect();
                    crate::smt::and(&eqs)
                }
                _ => "false".to_string(),
            }
        };
        path.goals
            .push(("the external actions agree".into(), trace_goal));
        let mut post_env = path.env.clone();
        post_env.states.insert(a.0, a_post.clone());
        let rel_post = relation(&mut path.enc, sim, &post_env)?;
        path.goals
            .push(("the relation holds after the step".into(), rel_post));
        let goals = assert_goals(&mut path.enc, &path.goals);
        let mut exprs: Vec<&Expr> = vec![&sim.relation];
        exprs.extend(t.pre.iter());
        let body_stmts: Vec<Stmt> = body.iter().map(|s| (*s).clone()).collect();
        let slots_a = slots_used(a, true, &exprs, &[&t.eff]);
        let slots_a2 = slots_used(a, false, &[&sim.relation], &[&body_stmts]);
        let slots_a: BTreeSet<u32> = slots_a.union(&slots_a2).copied().collect();
        let slots_b = slots_used(b, false, &[&sim.relation], &[&body_stmts]);
        let slots_b: BTreeSet<u32> = slots_b
            .into_iter()
            .chain(0..state_vars(spec, b).len() as u32)
            .filter(|k| {
                slots_used(b, false, &[&sim.relation], &[]).contains(k)
                    || path.env.state(b)[*k as usize] != env.state(b)[*k as usize]
            })
            .collect();
        let mut shown: Vec<Shown> = Vec::new();
        show_state(
            spec,
            a,
            &slots_a,
            env.state(a),
            Section::Pre,
            true,
            &mut shown,
        );
        show_state(
            spec,
            b,
            &slots_b,
            env.state(b),
            Section::SpecPre,
            true,
            &mut shown,
        );
        shown.extend(params.clone());
        show_state(spec, a, &slots_a, &a_post, Section::Post, true, &mut shown);
        show_state(
            spec,
            b,
            &slots_b,
            path.env.state(b),
            Section::SpecPost,
            true,
            &mut shown,
        );
        let case = if n_paths > 1 {
            Some(format!("case {}", case_no + 1))
        } else {
            super::invariant::case_name(spec, a, t_index).map(|c| format!("case {c}"))
        };
        let mut case = case;
        if n_paths > 1 && !path.branches.is_empty() {
            case = Some(format!(
                "{} ({})",
                case.unwrap_or_default(),
                path.branches.join(", ")
            ));
        }
        out.push(Obligation {
            target: sim.name.clone(),
            kind: Kind::SimulationStep,
            action: Some(action.name.clone()),
            action_kind: Some(action.kind.keyword()),
            case,
            assumed: assumed
                .iter()
                .map(|k| spec.invariants[*k].name.clone())
                .collect(),
            script: path.enc.finish(),
            goals,
            hypotheses: path.enc.script.hypotheses().to_vec(),
            shown,
            span: entry.map(|e| e.span).unwrap_or(t.span),
        });
    }
    Ok(out)
}

fn enc_comment(_p: &Path, _text: &str) {}

/// Expands the entry's statements into paths, firing B's actions along each.
fn walk<'s>(
    spec: &'s Spec,
    b: AutomatonId,
    stmts: &[&Stmt],
    mut path: Path<'s>,
    out: &mut Vec<Path<'s>>,
) -> Result<(), EncodeError> {
    let Some((first, rest)) = stmts.split_first() else {
        out.push(path);
        return Ok(());
    };
    match &first.kind {
        StmtKind::Ignore => walk(spec, b, rest, path, out),
        StmtKind::Assign { .. } => {
            let env = path.env.clone();
            path.env = path.enc.exec(std::slice::from_ref(*first), &env)?;
            walk(spec, b, rest, path, out)
        }
        StmtKind::If {
            branches,
            otherwise,
        } => {
            let mut earlier: Vec<String> = Vec::new();
            let n = branches.len() + 1;
            for (i, (c, body)) in branches.iter().enumerate() {
                let mut p = path.clone();
                let ct = p.enc.expr(c, &p.env)?;
                for e in &earlier {
                    p.enc.script.assert(&format!("(not {e})"));
                }
                p.enc.script.assert(&ct);
                p.branches.push(format!("branch {} of {n}", i + 1));
                earlier.push(ct);
                let mut next: Vec<&Stmt> = body.iter().collect();
                next.extend(rest.iter().copied());
                walk(spec, b, &next, p, out)?;
            }
            let mut p = path;
            for e in &earlier {
                p.enc.script.assert(&format!("(not {e})"));
            }
            p.branches.push(format!("branch {n} of {n}"));
            let mut next: Vec<&Stmt> = otherwise.iter().collect();
            next.extend(rest.iter().copied());
            walk(spec, b, &next, p, out)
        }
        StmtKind::Fire {
            automaton,
            action,
            args,
            ..
        } => {
            if *automaton != b {
                return Err(EncodeError::Unsupported {
                    what: "firing an action of an automaton other than the specification",
                    span: first.span,
                });
            }
            let mut arg_terms = Vec::new();
            for x in args {
                arg_terms.push(path.enc.expr(x, &path.env)?);
            }
            let b_aut = &spec.automata[b.0 as usize];
            let b_action = &b_aut.actions[action.0 as usize];
            let ts: Vec<usize> = transitions(spec, b)?
                .iter()
                .enumerate()
                .filter(|(_, t)| t.action == *action)
                .map(|(k, _)| k)
                .collect();
            let [t_index] = ts.as_slice() else {
                return Err(EncodeError::Unsupported {
                    what: "firing a specification action with several transition cases",
                    span: first.span,
                });
            };
            let t = &transitions(spec, b)?[*t_index];
            let mut env = path.env.clone();
            env.automaton = Some(b);
            env.locals.clear();
            for (k, x) in arg_terms.iter().enumerate() {
                env.bind(k as u32, x.clone());
            }
            let mut enabled = Vec::new();
            if let Some(w) = &b_action.where_clause {
                enabled.push(path.enc.expr(w, &env)?);
            }
            for (k, p) in b_action.params.iter().enumerate() {
                if let Some(fixed) = &p.fixed {
                    let ft = path.enc.expr(fixed, &env)?;
                    enabled.push(format!("(= {} {ft})", arg_terms[k]));
                }
            }
            for (k, e) in &t.const_args {
                let et = path.enc.expr(e, &env)?;
                enabled.push(format!("(= {} {et})", arg_terms[*k as usize]));
            }
            if let Some(w) = &t.where_clause {
                enabled.push(path.enc.expr(w, &env)?);
            }
            for p in &t.pre {
                enabled.push(path.enc.expr(p, &env)?);
            }
            path.goals.push((
                format!(
                    "{} {} is enabled where it is fired",
                    b_action.kind.keyword(),
                    b_action.name
                ),
                crate::smt::and(&enabled),
            ));
            let after = path.enc.exec(&t.eff, &env)?;
            path.env.states.insert(b.0, after.state(b).to_vec());
            path.env.aux = after.aux;
            if b_action.kind != ActionKind::Internal {
                path.external.push((b_action.name.clone(), arg_terms));
            }
            walk(spec, b, rest, path, out)
        }
        _ => Err(EncodeError::Unsupported {
            what: "this statement in a proof-block entry (use fire, ignore, if and assignments)",
            span: first.span,
        }),
    }
}
