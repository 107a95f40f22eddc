//! Obligations for `invariant I of A`: *start* (I holds in every start state of A) and one *step*
//! per transition (I ∧ assumed invariants ∧ where ∧ pre ∧ eff ⇒ I′).
//!
//! [`StepEncoding`] is the step's hypotheses without any invariant, with the pre- and post-state
//! terms, so that a caller (the Houdini loop of `ioa verify`) can assert many candidates over
//! one encoding of the transition relation.

use super::{
    assert_goals, assumed_invariants, declare_params, declare_state, show_params, show_state,
    slots_used, start_state, transition, Assumptions, Kind, Obligation, Replay, Section, Shown,
};
use crate::error::EncodeError;
use crate::smt::expr::{Encoder, Env};
use ioa_lang::ir::{AutomatonBody, AutomatonId, Expr, Spec, Transition};

/// One transition's relation, encoded once: hypotheses in `encoder`, states in `pre`/`post`.
#[derive(Debug, Clone)]
pub struct StepEncoding<'s> {
    /// The script so far (declarations, `where`, pre, effect).
    pub encoder: Encoder<'s>,
    /// The environment before the step.
    pub pre: Env,
    /// The environment after it.
    pub post: Env,
    /// Action parameters, for counterexamples.
    pub params: Vec<Shown>,
    /// The automaton.
    pub automaton: AutomatonId,
    /// The transition's index in the automaton's list.
    pub transition: usize,
}

/// The transitions of a primitive automaton.
pub fn transitions(spec: &Spec, a: AutomatonId) -> Result<&[Transition], EncodeError> {
    match &spec.automata[a.0 as usize].body {
        AutomatonBody::Primitive(p) => Ok(&p.transitions),
        AutomatonBody::Composite(_) => Err(EncodeError::Unsupported {
            what: "a composite automaton",
            span: spec.automata[a.0 as usize].span,
        }),
    }
}

/// For an action with signature entries of several kinds (an input for some parameters, an
/// output for others), the kind of this entry, which tells its obligations apart by name.
pub fn entry_kind(spec: &Spec, a: AutomatonId, action: ioa_lang::ir::ActionId) -> Option<String> {
    let actions = &spec.automata[a.0 as usize].actions;
    let me = &actions[action.0 as usize];
    actions
        .iter()
        .any(|x| x.name == me.name && x.kind != me.kind)
        .then(|| format!("({})", me.kind.keyword()))
}

/// The label of transition `index` of `a` among its action's transitions (`ir::Primitive::case_name`).
pub fn case_name(spec: &Spec, a: AutomatonId, index: usize) -> Option<String> {
    match &spec.automata[a.0 as usize].body {
        AutomatonBody::Primitive(p) => p.case_name(index),
        AutomatonBody::Composite(_) => None,
    }
}

/// Encodes transition `index` of `a`.
pub fn step_encoding(
    spec: &Spec,
    a: AutomatonId,
    index: usize,
) -> Result<StepEncoding<'_>, EncodeError> {
    let t = &transitions(spec, a)?[index];
    let mut enc = Encoder::new(spec);
    let mut env = Env {
        automaton: Some(a),
        ..Env::default()
    };
    declare_params(&mut enc, a, &mut env)?;
    enc.script.comment("the pre-state");
    let pre_state = declare_state(&mut enc, a, "");
    env.states.insert(a.0, pre_state);
    enc.script.comment(&format!(
        "the transition {}",
        transition_label(spec, a, index)
    ));
    let mut params = Vec::new();
    let post = transition(&mut enc, a, t, &env, &mut params)?;
    Ok(StepEncoding {
        encoder: enc,
        pre: env,
        post,
        params,
        automaton: a,
        transition: index,
    })
}

/// `vote` or `vote case first`.
pub fn transition_label(spec: &Spec, a: AutomatonId, index: usize) -> String {
    let aut = &spec.automata[a.0 as usize];
    if let AutomatonBody::Primitive(p) = &aut.body {
        let t = &p.transitions[index];
        let name = &aut.actions[t.action.0 as usize].name;
        match p.case_name(index) {
            Some(c) => format!("{name} case {c}"),
            None => name.clone(),
        }
    } else {
        String::new()
    }
}

/// The invariant's name, with `of A` when another automaton has an invariant of that name.
pub fn display_name(spec: &Spec, index: usize) -> String {
    let inv = &spec.invariants[index];
    if spec
        .invariants
        .iter()
        .filter(|i| i.name == inv.name)
        .count()
        > 1
    {
        format!(
            "{} of {}",
            inv.name, spec.automata[inv.automaton.0 as usize].name
        )
    } else {
        inv.name.clone()
    }
}

/// An invariant's body as a term in `env` (quantified locals bound inside).
pub fn invariant_term(enc: &mut Encoder, body: &Expr, env: &Env) -> Result<String, EncodeError> {
    let mut env = env.clone();
    env.locals.clear();
    enc.expr(body, &env)
}

/// The start obligation and one step obligation per transition of invariant `index`.
pub fn obligations(
    spec: &Spec,
    index: usize,
    assume: &Assumptions,
) -> Result<Vec<Obligation>, EncodeError> {
    let inv = &spec.invariants[index];
    let a = inv.automaton;
    // The invariant itself is the induction hypothesis: always assumed, listed first.
    let mut assumed = vec![index];
    for k in assumed_invariants(spec, a, assume, &inv.using, inv.span)? {
        if k != index {
            assumed.push(k);
        }
    }
    let mut out = vec![start(spec, index)?];
    for k in 0..transitions(spec, a)?.len() {
        out.push(step(spec, index, k, &assumed)?);
    }
    Ok(out)
}

fn start(spec: &Spec, index: usize) -> Result<Obligation, EncodeError> {
    let inv = &spec.invariants[index];
    let a = inv.automaton;
    let mut enc = Encoder::new(spec);
    let mut env = Env {
        automaton: Some(a),
        ..Env::default()
    };
    declare_params(&mut enc, a, &mut env)?;
    enc.script.comment("a start state");
    start_state(&mut enc, a, &mut env, ".0")?;
    let goal = invariant_term(&mut enc, &inv.body, &env)?;
    let goals = assert_goals(&mut enc, &[(format!("{} holds", inv.name), goal)]);
    let mut shown = Vec::new();
    let slots = slots_used(a, true, &[&inv.body], &[]);
    let replay = Replay {
        automaton: a,
        transition: None,
        claim: index,
        assumed: vec![],
        params: env.params.get(&a.0).cloned().unwrap_or_default(),
        state: env.state(a).to_vec(),
        action: vec![],
    };
    show_params(spec, a, &env, &mut shown);
    show_state(
        spec,
        a,
        &slots,
        env.state(a),
        Section::Start,
        false,
        &mut shown,
    );
    Ok(Obligation {
        target: display_name(spec, index),
        kind: Kind::InvariantStart,
        action: None,
        action_kind: None,
        case: None,
        assumed: vec![],
        script: enc.finish(),
        goals,
        hypotheses: vec![],
        shown,
        span: inv.span,
        replay: Some(replay),
    })
}

fn step(
    spec: &Spec,
    index: usize,
    t_index: usize,
    assumed: &[usize],
) -> Result<Obligation, EncodeError> {
    let inv = &spec.invariants[index];
    let a = inv.automaton;
    let StepEncoding {
        encoder: mut enc,
        pre,
        post,
        params,
        ..
    } = step_encoding(spec, a, t_index)?;
    enc.script.comment("assumed invariants, in the pre-state");
    let mut own = None;
    for k in assumed {
        let t = invariant_term(&mut enc, &spec.invariants[*k].body, &pre)?;
        enc.script.hypothesis(&spec.invariants[*k].name, &t);
        if *k == index {
            own = Some(t);
        }
    }
    // A step that leaves every variable the invariant reads as it was: the invariant after it is
    // the very term it was before (Z3 does not see that through renamed bound variables, and
    // gave up on such steps of the composite Paxos's `ChosenAgreement`).
    let reads = slots_used(a, true, &[&inv.body], &[]);
    let (pre_state, post_state) = (pre.state(a), post.state(a));
    let unchanged = reads
        .iter()
        .all(|&s| pre_state.get(s as usize) == post_state.get(s as usize));
    let goal = match own {
        Some(t) if unchanged => {
            enc.script.comment(
                "the step writes no variable the invariant reads: its post-state term is the pre-state's",
            );
            t
        }
        _ => invariant_term(&mut enc, &inv.body, &post)?,
    };
    let goals = assert_goals(
        &mut enc,
        &[(format!("{} holds after the step", inv.name), goal)],
    );
    let t = &transitions(spec, a)?[t_index];
    let mut exprs: Vec<&Expr> = vec![&inv.body];
    exprs.extend(t.pre.iter());
    let read = slots_used(a, true, &exprs, &[&t.eff]);
    let replay = Replay {
        automaton: a,
        transition: Some(t_index),
        claim: index,
        assumed: assumed.to_vec(),
        params: pre.params.get(&a.0).cloned().unwrap_or_default(),
        state: pre.state(a).to_vec(),
        action: params.iter().map(|p| p.constant.clone()).collect(),
    };
    let mut shown = Vec::new();
    show_params(spec, a, &pre, &mut shown);
    show_state(
        spec,
        a,
        &read,
        pre.state(a),
        Section::Pre,
        false,
        &mut shown,
    );
    shown.extend(params);
    show_state(
        spec,
        a,
        &read,
        post.state(a),
        Section::Post,
        false,
        &mut shown,
    );
    let action = &spec.automata[a.0 as usize].actions[t.action.0 as usize];
    Ok(Obligation {
        target: display_name(spec, index),
        kind: Kind::InvariantStep,
        action: Some(action.name.clone()),
        action_kind: Some(action.kind.keyword()),
        case: case_name(spec, a, t_index)
            .map(|c| format!("case {c}"))
            .or_else(|| entry_kind(spec, a, t.action)),
        assumed: assumed
            .iter()
            .map(|k| spec.invariants[*k].name.clone())
            .collect(),
        script: enc.finish(),
        goals,
        hypotheses: enc.script.hypotheses().to_vec(),
        shown,
        span: t.span,
        replay: Some(replay),
    })
}
