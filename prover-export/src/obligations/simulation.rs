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

use super::invariant::transitions;
use super::witness;
use super::{
    assert_goals, assumed_invariants, declare_sim_params, declare_state, show_state, slots_used,
    start_state, transition, Assumptions, Kind, Obligation, Section, Shown,
};
use crate::error::EncodeError;
use crate::smt::expr::{state_vars, Encoder, Env};
use crate::smt::object_facts::Polarity;
use ioa_lang::ast::ActionKind;
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{
    AutomatonBody, AutomatonId, BinOp, Expr, ExprKind, ProofBlock, Simulation, Spec, Stmt,
    StmtKind, Type, VarRef,
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
    let mut out = vec![start(spec, sim, proof)?];
    let ts = transitions(spec, sim.from)?;
    for t_index in 0..ts.len() {
        out.extend(
            step(spec, sim, proof, t_index, assume, None)?
                .into_iter()
                .map(|c| c.obligation),
        );
    }
    Ok(out)
}

/// Which step cases to split on the order of a witness and a parameter: a case whose path
/// assumes `∃ x: ty (P x)` (the first such condition on the path) is asked three times, with
/// `x` a constant `w` such that `P w` and `w.field` less than, equal to or greater than the
/// `param`-th parameter's `field`. Z3 names small unsat cores for these where it names none
/// for the whole case (the Isabelle export gives each order leaf its own core).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderSplit {
    /// The witness's (tuple) type.
    pub ty: Type,
    /// The index of the compared (integer) field of `ty`.
    pub field: u32,
    /// The index of the implementation action's parameter of type `ty`.
    pub param: u32,
    /// State variables (slots) of the implementation, sets over `ty`, whose membership of the
    /// older of witness and parameter is also asked in the `less` and `greater` cases: "does
    /// `older ∉ X` follow?" (a settled atom: the escape disjunct `x ∈ X` of an order formula).
    pub settle: Vec<u32>,
}

/// One sub-obligation of a split case (see [`OrderSplit`]).
#[derive(Debug, Clone)]
pub struct OrderCase {
    /// The index of the case among the step's cases (the order of [`obligations`]).
    pub case: usize,
    /// How the witness's field compares with the parameter's.
    pub order: std::cmp::Ordering,
    /// `None`: the case's own goal; `Some(slot)`: the goal is that the older of witness and
    /// parameter is not in state variable `slot` (see [`OrderSplit::settle`]).
    pub settled: Option<u32>,
    /// The obligation.
    pub obligation: Obligation,
}

/// The order sub-obligations of simulation `index`'s step at the transition numbered
/// `t_index` (as in `transitions`), for the cases whose path assumes an `∃` over `split.ty`.
pub fn order_split(
    spec: &Spec,
    index: usize,
    t_index: usize,
    split: &OrderSplit,
    assume: &Assumptions,
) -> Result<Vec<OrderCase>, EncodeError> {
    let sim = &spec.simulations[index];
    let Some(proof) = &sim.proof else {
        return Ok(vec![]);
    };
    let whole = step(spec, sim, proof, t_index, assume, None)?;
    let parts = step(spec, sim, proof, t_index, assume, Some(split))?;
    Ok(parts
        .into_iter()
        .filter_map(|c| {
            let case = whole.iter().position(|w| w.branches == c.branches)?;
            Some(OrderCase {
                case,
                order: c.order?,
                settled: c.settled,
                obligation: c.obligation,
            })
        })
        .collect())
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

/// Whether an effect contains a `choose`.
fn effect_chooses(eff: &[Stmt]) -> bool {
    let mut found = false;
    let mut stack: Vec<&Stmt> = eff.iter().collect();
    let mut on_expr = |e: &Expr| {
        crate::smt::stmt::visit(e, &mut |x| {
            found |= matches!(x.kind, ExprKind::Choose { .. });
        })
    };
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                on_expr(value);
                for step in &target.path {
                    if let ioa_lang::ir::PlaceStep::Index(i) = step {
                        on_expr(i);
                    }
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (c, b) in branches {
                    on_expr(c);
                    stack.extend(b.iter());
                }
                stack.extend(otherwise.iter());
            }
            StmtKind::ForIn {
                collection, body, ..
            } => {
                on_expr(collection);
                stack.extend(body.iter());
            }
            StmtKind::ForWhere { cond, body, .. } | StmtKind::While { cond, body } => {
                on_expr(cond);
                stack.extend(body.iter());
            }
            StmtKind::Fire { args, .. } => args.iter().for_each(&mut on_expr),
            StmtKind::Yield(e) | StmtKind::Ensure(e) => on_expr(e),
            StmtKind::Ignore => {}
        }
    }
    found
}

/// Asserts that the variables of `b` (state `b0`) that the declaration initialises without a
/// `choose` have their initial values, as `ioa pair` starts the specification from its initial
/// state before the start block runs (a `choose` may pick any value satisfying it, so those
/// variables stay for the start block to set).
fn initial_values(
    enc: &mut Encoder,
    spec: &Spec,
    b: AutomatonId,
    b0: &[String],
    env: &Env,
) -> Result<(), EncodeError> {
    let AutomatonBody::Primitive(bp) = &spec.automata[b.0 as usize].body else {
        return Ok(());
    };
    let mut b_env = env.clone();
    b_env.automaton = Some(b);
    for (k, v) in bp.state.iter().enumerate() {
        let Some(init) = &v.init else { continue };
        let mut chooses = false;
        crate::smt::stmt::visit(init, &mut |x| {
            chooses |= matches!(x.kind, ExprKind::Choose { .. });
        });
        if !chooses {
            let t = enc.expr(init, &b_env)?;
            enc.script.assert(&format!("(= {} {t})", b0[k]));
        }
    }
    Ok(())
}

/// The parameters of both automata, for a counterexample: a value the header shares is shown
/// once, by its header name (`k`); the others as `A.n`.
fn show_params(spec: &Spec, sim: &Simulation, env: &Env, shown: &mut Vec<Shown>) {
    let mut seen: Vec<String> = Vec::new();
    for a in [sim.from, sim.to] {
        let aut = &spec.automata[a.0 as usize];
        for (k, p) in aut.params.iter().enumerate() {
            let Some(constant) = env.params.get(&a.0).and_then(|v| v.get(k)).cloned() else {
                continue;
            };
            if seen.contains(&constant) {
                continue;
            }
            seen.push(constant.clone());
            let label = match sim.header_param(a, k as u32) {
                Some(h) if h.binds.len() > 1 => h.name.clone(),
                _ => format!("{}.{}", aut.name, p.name),
            };
            shown.push(Shown {
                section: Section::Params,
                label,
                constant,
                ty: p.ty.clone(),
            });
        }
    }
}

fn start(spec: &Spec, sim: &Simulation, proof: &ProofBlock) -> Result<Obligation, EncodeError> {
    let (a, b) = (sim.from, sim.to);
    let mut enc = Encoder::new(spec);
    let mut env = Env::default();
    declare_sim_params(&mut enc, sim, &mut env)?;
    enc.script.comment("a start state of the implementation");
    start_state(&mut enc, a, &mut env, ".0")?;
    enc.script.comment(
        "the specification's state before the start block: its initial values, anything else",
    );
    let b0 = declare_state(&mut enc, b, ".0");
    env.states.insert(b.0, b0.clone());
    initial_values(&mut enc, spec, b, &b0, &env)?;
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
    let rel = relation(&mut enc, sim, &after, Polarity::Claimed)?;
    goals.push(("the relation holds".into(), rel));
    let goals = assert_goals(&mut enc, &goals);
    let mut shown = Vec::new();
    show_params(spec, sim, &env, &mut shown);
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
        replay: None,
    })
}

/// The relation in `env`'s states, as a hypothesis (`Assumed`) or else as a goal.
fn relation(
    enc: &mut Encoder,
    sim: &Simulation,
    env: &Env,
    polarity: Polarity,
) -> Result<String, EncodeError> {
    let mut env = env.clone();
    env.automaton = None;
    env.locals.clear();
    if polarity == Polarity::Assumed {
        enc.assumption(&sim.relation, &env)
    } else {
        enc.claim(&sim.relation, &env)
    }
}

/// One path through an entry: its encoder (hypotheses so far), environment, goals and label.
#[derive(Clone)]
struct Path<'s> {
    enc: Encoder<'s>,
    env: Env,
    goals: Vec<(String, String)>,
    external: Vec<(String, Vec<String>)>,
    branches: Vec<String>,
    /// The order assumed of the split witness (see [`OrderSplit`]).
    order: Option<std::cmp::Ordering>,
    /// The SMT terms of the split's witness and parameter.
    split_terms: Option<(String, String)>,
    /// Sets the implementation's step names, offered to the fired actions' existentials.
    witnesses: Vec<witness::Candidate>,
}

/// A step case: its path's branch labels, the order assumed (a split case), the settled atom
/// asked instead of the goal (see [`OrderSplit::settle`]) and the obligation.
struct StepCase {
    branches: Vec<String>,
    order: Option<std::cmp::Ordering>,
    settled: Option<u32>,
    obligation: Obligation,
}

fn step(
    spec: &Spec,
    sim: &Simulation,
    proof: &ProofBlock,
    t_index: usize,
    assume: &Assumptions,
    split: Option<&OrderSplit>,
) -> Result<Vec<StepCase>, EncodeError> {
    let (a, b) = (sim.from, sim.to);
    let t = &transitions(spec, a)?[t_index];
    let action = &spec.automata[a.0 as usize].actions[t.action.0 as usize];
    // The entry's own `using` narrows the simulation's assumptions for this step.
    let entry = proof.entries[t.action.0 as usize].as_ref();
    let (using, span) = match entry {
        Some(e) if e.using.is_some() => (&e.using, e.span),
        _ => (&sim.using, sim.span),
    };
    let assumed = &assumed_invariants(spec, a, assume, using, span)?;
    let mut enc = Encoder::new(spec);
    let mut env = Env::default();
    declare_sim_params(&mut enc, sim, &mut env)?;
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
        let mut inv_env = a_env.clone();
        inv_env.locals.clear();
        let term = enc.assumption(&spec.invariants[*k].body, &inv_env)?;
        enc.script.hypothesis(&spec.invariants[*k].name, &term);
    }
    enc.script.comment("the relation, in the pre-states");
    let rel_pre = relation(&mut enc, sim, &env, Polarity::Assumed)?;
    enc.script.hypothesis("the relation", &rel_pre);
    enc.script
        .comment(&format!("the implementation's transition {}", action.name));
    let mut params = Vec::new();
    let a_post_env = transition(&mut enc, a, t, &env, &mut params)?;
    let a_post = a_post_env.state(a).to_vec();
    let param_terms: Vec<String> = params.iter().map(|p| p.constant.clone()).collect();
    let mut pre_env = env.clone();
    pre_env.automaton = Some(a);
    pre_env.locals.clear();
    for (k, p) in param_terms.iter().enumerate() {
        pre_env.bind(k as u32, p.clone());
    }
    let witnesses = witness::candidates(&mut enc, &t.pre, action.params.len(), &pre_env)?;
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
        order: None,
        split_terms: None,
        witnesses,
    };
    enc_comment(&start, "the proof block's entry");
    let mut paths = Vec::new();
    walk(spec, b, &body, start, split, &mut paths)?;
    let n_paths = paths.len();
    let mut out = Vec::new();
    let obligation = |p: Path, case, goals, shown| Obligation {
        target: sim.name.clone(),
        kind: Kind::SimulationStep,
        action: Some(action.name.clone()),
        action_kind: Some(action.kind.keyword()),
        case,
        assumed: assumed
            .iter()
            .map(|k| spec.invariants[*k].name.clone())
            .collect(),
        hypotheses: p.enc.script.hypotheses().to_vec(),
        script: p.enc.finish(),
        goals,
        shown,
        span: entry.map(|e| e.span).unwrap_or(t.span),
        replay: None,
    };
    for (case_no, mut path) in paths.into_iter().enumerate() {
        // The settled atoms of a split path: `older ∉ X` as the only goal.
        let mut settled_paths: Vec<(u32, Path)> = Vec::new();
        if let (Some(split), Some(order), Some((w, p))) =
            (split, path.order, path.split_terms.clone())
        {
            let older = match order {
                std::cmp::Ordering::Less => Some(w),
                std::cmp::Ordering::Greater => Some(p),
                std::cmp::Ordering::Equal => None,
            };
            // (`equal` has no older: nothing to settle.)
            for (slot, older) in older
                .iter()
                .flat_map(|o| split.settle.iter().map(move |s| (s, o)))
            {
                let mut q = path.clone();
                let AutomatonBody::Primitive(ap) = &spec.automata[a.0 as usize].body else {
                    break;
                };
                let tmp = q.env.locals.len() as u32;
                let mut env = q.env.clone();
                env.bind(tmp, older.clone());
                let var = |kind, ty| Expr {
                    kind,
                    ty,
                    span: sim.span,
                };
                let atom = var(
                    ExprKind::Binary(
                        BinOp::NotIn,
                        Box::new(var(ExprKind::Var(VarRef::Local(tmp)), split.ty.clone())),
                        Box::new(var(
                            ExprKind::Var(VarRef::Qualified {
                                automaton: a,
                                slot: *slot,
                            }),
                            ap.state[*slot as usize].ty.clone(),
                        )),
                    ),
                    Type::Bool,
                );
                let t = q.enc.expr(&atom, &env)?;
                q.goals = vec![(
                    format!("the older is not in {}", ap.state[*slot as usize].name),
                    t,
                )];
                settled_paths.push((*slot, q));
            }
        }
        for (slot, mut q) in settled_paths {
            let goals = assert_goals(&mut q.enc, &q.goals);
            let case = Some(format!("case {}, settled atom", case_no + 1));
            out.push(StepCase {
                branches: q.branches.clone(),
                order: q.order,
                settled: Some(slot),
                obligation: obligation(q, case, goals, vec![]),
            });
        }
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
        // A conjunct whose encoding after the step is the one before it up to binder names
        // (it reads nothing the step changed) is written as it was in the hypothesis: Z3 keeps
        // binder names in its terms and would otherwise re-derive it by instantiation.
        let rel_post = relation(&mut path.enc, sim, &post_env, Polarity::Claimed)?;
        let rel_post = crate::smt::alpha::reuse_unchanged_conjuncts(&rel_pre, &rel_post);
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
        show_params(spec, sim, &env, &mut shown);
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
        // A composite's action may have several transitions (one per component case), each
        // with its own paths: the component case keeps the names unique.
        let component = super::invariant::case_name(spec, a, t_index);
        let case = match (n_paths > 1, component) {
            (true, Some(c)) => Some(format!("case {c} {}", case_no + 1)),
            (true, None) => Some(format!("case {}", case_no + 1)),
            (false, c) => c.map(|c| format!("case {c}")),
        };
        let mut case = case;
        if n_paths > 1 && !path.branches.is_empty() {
            case = Some(format!(
                "{} ({})",
                case.unwrap_or_default(),
                path.branches.join(", ")
            ));
        }
        let order = path.order;
        let branches = path.branches.clone();
        if let Some(o) = order {
            case = case.map(|c| format!("{c}, witness {}", order_word(o)));
        }
        out.push(StepCase {
            branches,
            order,
            settled: None,
            obligation: obligation(path, case, goals, shown),
        });
    }
    Ok(out)
}

/// `less`, `equal` or `greater` (as Isabelle's `linorder_cases` names them).
pub fn order_word(o: std::cmp::Ordering) -> &'static str {
    match o {
        std::cmp::Ordering::Less => "less",
        std::cmp::Ordering::Equal => "equal",
        std::cmp::Ordering::Greater => "greater",
    }
}

fn enc_comment(_p: &Path, _text: &str) {}

/// When `c` is `∃ x: split.ty (P x)` over that one variable: its slot and `P`.
fn witnessed<'e, 'o>(
    c: &'e Expr,
    split: &'o OrderSplit,
) -> Option<(u32, &'e Expr, &'o OrderSplit)> {
    let ExprKind::Quant(Quantifier::Exists, vars, body) = &c.kind else {
        return None;
    };
    match vars.as_slice() {
        [(slot, ty)] if *ty == split.ty => Some((*slot, body, split)),
        _ => None,
    }
}

/// Assumes `P w` for a fresh constant `w` (bound to `slot`) and that `w`'s compared field is
/// `order` to the parameter's.
fn assume_ordered(
    p: &mut Path<'_>,
    slot: u32,
    body: &Expr,
    split: &OrderSplit,
    order: std::cmp::Ordering,
) -> Result<(), EncodeError> {
    let sort = p.enc.elem_sort(&split.ty);
    let w = p.enc.script.fresh_const("w", &sort);
    let value = p.enc.unbox(&split.ty, &w);
    let mut inner = p.env.clone();
    inner.bind(slot, value.clone());
    let t = p.enc.expr(body, &inner)?;
    p.enc.script.assert(&t);
    let field = |var: VarRef| Expr {
        kind: ExprKind::Field(
            Box::new(Expr {
                kind: ExprKind::Var(var),
                ty: split.ty.clone(),
                span: body.span,
            }),
            split.field,
        ),
        ty: Type::Int,
        span: body.span,
    };
    let op = match order {
        std::cmp::Ordering::Less => BinOp::Lt,
        std::cmp::Ordering::Equal => BinOp::Eq,
        std::cmp::Ordering::Greater => BinOp::Gt,
    };
    let cmp = Expr {
        kind: ExprKind::Binary(
            op,
            Box::new(field(VarRef::Local(slot))),
            Box::new(field(VarRef::Local(split.param))),
        ),
        ty: Type::Bool,
        span: body.span,
    };
    // The parameter is the entry's local `split.param`; the witness is bound over it only
    // when their slots differ (the entry binds parameters first).
    if slot == split.param {
        return Err(EncodeError::Unsupported {
            what: "an order split whose witness hides the parameter",
            span: body.span,
        });
    }
    let t = p.enc.expr(&cmp, &inner)?;
    p.enc.script.assert(&t);
    let param = p.enc.expr(
        &Expr {
            kind: ExprKind::Var(VarRef::Local(split.param)),
            ty: split.ty.clone(),
            span: body.span,
        },
        &p.env,
    )?;
    p.split_terms = Some((value, param));
    p.order = Some(order);
    Ok(())
}

/// Expands the entry's statements into paths, firing B's actions along each.
fn walk<'s>(
    spec: &'s Spec,
    b: AutomatonId,
    stmts: &[&Stmt],
    mut path: Path<'s>,
    split: Option<&OrderSplit>,
    out: &mut Vec<Path<'s>>,
) -> Result<(), EncodeError> {
    let Some((first, rest)) = stmts.split_first() else {
        out.push(path);
        return Ok(());
    };
    match &first.kind {
        StmtKind::Ignore => walk(spec, b, rest, path, split, out),
        StmtKind::Assign { .. } => {
            let env = path.env.clone();
            path.env = path.enc.exec(std::slice::from_ref(*first), &env)?;
            walk(spec, b, rest, path, split, out)
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
                p.branches.push(format!("branch {} of {n}", i + 1));
                earlier.push(ct.clone());
                let mut next: Vec<&Stmt> = body.iter().collect();
                next.extend(rest.iter().copied());
                match split
                    .filter(|_| p.order.is_none())
                    .and_then(|s| witnessed(c, s))
                {
                    Some((slot, inner, s)) => {
                        for order in [
                            std::cmp::Ordering::Less,
                            std::cmp::Ordering::Equal,
                            std::cmp::Ordering::Greater,
                        ] {
                            let mut q = p.clone();
                            assume_ordered(&mut q, slot, inner, s, order)?;
                            walk(spec, b, &next, q, split, out)?;
                        }
                    }
                    None => {
                        p.enc.script.assert(&ct);
                        walk(spec, b, &next, p, split, out)?;
                    }
                }
            }
            let mut p = path;
            for e in &earlier {
                p.enc.script.assert(&format!("(not {e})"));
            }
            p.branches.push(format!("branch {n} of {n}"));
            let mut next: Vec<&Stmt> = otherwise.iter().collect();
            next.extend(rest.iter().copied());
            walk(spec, b, &next, p, split, out)
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
            let cases: Vec<&ioa_lang::ir::Transition> = transitions(spec, b)?
                .iter()
                .filter(|t| t.action == *action)
                .collect();
            if cases.len() > 1 && cases.iter().any(|t| effect_chooses(&t.eff)) {
                // The `choose` of a case that does not fire would be assumed all the same.
                return Err(EncodeError::Unsupported {
                    what: "firing a specification action with several transition cases, one of which chooses a value",
                    span: first.span,
                });
            }
            let mut env = path.env.clone();
            env.automaton = Some(b);
            env.locals.clear();
            for (k, x) in arg_terms.iter().enumerate() {
                env.bind(k as u32, x.clone());
            }
            let mut common = Vec::new();
            if let Some(w) = &b_action.where_clause {
                common.push(path.enc.expr(w, &env)?);
            }
            for (k, p) in b_action.params.iter().enumerate() {
                if let Some(fixed) = &p.fixed {
                    let ft = path.enc.expr(fixed, &env)?;
                    common.push(format!("(= {} {ft})", arg_terms[k]));
                }
            }
            // Each case's own conditions; the first enabled case fires (as the interpreter
            // tries them in order), and the action is enabled when one of them is.
            let mut case_terms = Vec::new();
            for t in &cases {
                let mut own = Vec::new();
                for (k, e) in &t.const_args {
                    let et = path.enc.expr(e, &env)?;
                    own.push(format!("(= {} {et})", arg_terms[*k as usize]));
                }
                if let Some(w) = &t.where_clause {
                    own.push(path.enc.expr(w, &env)?);
                }
                for p in &t.pre {
                    own.push(witness::claim(&mut path.enc, p, &env, &path.witnesses)?);
                }
                case_terms.push(crate::smt::and(&own));
            }
            let mut enabled = common;
            enabled.push(crate::smt::or(&case_terms));
            path.goals.push((
                format!(
                    "{} {} is enabled where it is fired",
                    b_action.kind.keyword(),
                    b_action.name
                ),
                crate::smt::and(&enabled),
            ));
            let Some(last) = cases.last() else {
                return Err(EncodeError::Unsupported {
                    what: "firing a specification action that has no transition",
                    span: first.span,
                });
            };
            let mut after = path.enc.exec(&last.eff, &env)?;
            for (t, c) in cases.iter().zip(&case_terms).rev().skip(1) {
                let taken = path.enc.exec(&t.eff, &env)?;
                after = path.enc.merge(c, taken, after, first)?;
            }
            path.env.states.insert(b.0, after.state(b).to_vec());
            path.env.aux = after.aux;
            if b_action.kind != ActionKind::Internal {
                path.external.push((b_action.name.clone(), arg_terms));
            }
            walk(spec, b, rest, path, split, out)
        }
        _ => Err(EncodeError::Unsupported {
            what: "this statement in a proof-block entry (use fire, ignore, if and assignments)",
            span: first.span,
        }),
    }
}
