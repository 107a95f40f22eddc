//! Proof obligations: what must be valid for an invariant or a forward simulation to hold, each
//! as a self-contained SMT-LIB2 script asserting the hypotheses and the negated goal (so *unsat*
//! means proved). [`invariant`] builds start and step obligations for `invariant I of A`;
//! [`simulation`] builds them for `forward simulation from A to B` and its proof block.

pub mod invariant;
pub mod simulation;
pub mod witness;

use crate::error::EncodeError;
use crate::smt::expr::{state_vars, Encoder, Env};
use crate::smt::stmt::{children, var_symbol, visit};
use ioa_lang::ir::{
    AutomatonBody, AutomatonId, Expr, ExprKind, Spec, Stmt, StmtKind, Transition, Type, VarRef,
};
use ioa_lang::span::Span;
use std::collections::BTreeSet;

/// What kind of obligation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An invariant holds in every start state.
    InvariantStart,
    /// An invariant is preserved by one transition.
    InvariantStep,
    /// The start block builds a start state of the specification related to A's.
    SimulationStart,
    /// One action of A, one case of its proof-block entry.
    SimulationStep,
}

/// Which part of a counterexample a variable belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    /// The automata's parameters (simulations).
    Params,
    /// A start state.
    Start,
    /// The implementation's pre-state.
    Pre,
    /// The action's parameters.
    Action,
    /// The implementation's post-state (printed only where it changed).
    Post,
    /// The specification's pre-state (simulations).
    SpecPre,
    /// The specification's post-state (printed only where it changed).
    SpecPost,
}

/// A variable a counterexample prints: its label, the SMT constant holding it, its type.
#[derive(Debug, Clone)]
pub struct Shown {
    /// Where it belongs.
    pub section: Section,
    /// Its IOA name (`voted`, `Cons.chosen`, `b`).
    pub label: String,
    /// The declared SMT constant.
    pub constant: String,
    /// Its type.
    pub ty: Type,
}

/// One obligation.
#[derive(Debug, Clone)]
pub struct Obligation {
    /// The invariant or simulation it belongs to.
    pub target: String,
    /// What kind.
    pub kind: Kind,
    /// The implementation action (steps).
    pub action: Option<String>,
    /// The action's keyword (`input`, `output`, `internal`).
    pub action_kind: Option<&'static str>,
    /// The transition case or proof-block case, for steps with several.
    pub case: Option<String>,
    /// Invariants assumed in the pre-state.
    pub assumed: Vec<String>,
    /// Declarations, hypotheses and the negated goal (no `check-sat`).
    pub script: String,
    /// Named parts of the goal: label and the Boolean constant that holds it.
    pub goals: Vec<(String, String)>,
    /// Tracked hypotheses (assumed invariants, the relation in the pre-states): label and the
    /// Boolean constant guarding it. The check assumes every guard; the unsat core of a proof
    /// names those it needed.
    pub hypotheses: Vec<(String, String)>,
    /// What a counterexample shows.
    pub shown: Vec<Shown>,
    /// The invariant, transition or proof-block entry.
    pub span: Span,
    /// What the interpreter needs to re-execute a counterexample (invariant obligations; `None`
    /// for simulations, whose counterexamples are not re-executed).
    pub replay: Option<Replay>,
}

/// An invariant obligation as the interpreter can re-execute it: which automaton, transition and
/// invariants, and the SMT constants holding the whole state (not only the variables a
/// counterexample shows), its parameters and the action's arguments.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The (primitive, flattened) automaton.
    pub automaton: AutomatonId,
    /// The transition (index in the automaton's list); `None` for a start obligation.
    pub transition: Option<usize>,
    /// The invariant claimed (index into `spec.invariants`).
    pub claim: usize,
    /// The invariants assumed in the pre-state (indices; empty for a start obligation).
    pub assumed: Vec<usize>,
    /// The constants of the automaton's parameters, in order.
    pub params: Vec<String>,
    /// The constants of every state variable of the start or pre-state, in slot order.
    pub state: Vec<String>,
    /// The constants of the action's arguments, in order (steps).
    pub action: Vec<String>,
}

impl Obligation {
    /// A short unique name: `Inv1 step vote`, `Global1_to_Cons step internalDecide case 2`.
    pub fn name(&self) -> String {
        let mut s = self.target.clone();
        match self.kind {
            Kind::InvariantStart | Kind::SimulationStart => s.push_str(" start"),
            Kind::InvariantStep | Kind::SimulationStep => s.push_str(" step"),
        }
        if let Some(a) = &self.action {
            s.push(' ');
            s.push_str(a);
        }
        if let Some(c) = &self.case {
            s.push(' ');
            s.push_str(c);
        }
        s
    }

    /// The script as a file for any SMT-LIB2 solver: a header, the script, `(check-sat)`.
    pub fn smt2_file(&self) -> String {
        let mut out = format!(
            "; {}\n; unsat = proved; sat = counterexample\n",
            self.name()
        );
        if !self.assumed.is_empty() {
            out.push_str(&format!("; assuming {}\n", self.assumed.join(", ")));
        }
        out.push_str(&self.script);
        out.push_str(&self.check_command());
        out
    }

    /// `(check-sat)`, or `(check-sat-assuming (hyp.1 …))` when hypotheses are tracked.
    pub fn check_command(&self) -> String {
        if self.hypotheses.is_empty() {
            "(check-sat)\n".into()
        } else {
            let guards: Vec<&str> = self.hypotheses.iter().map(|(_, g)| g.as_str()).collect();
            format!("(check-sat-assuming ({}))\n", guards.join(" "))
        }
    }
}

/// Which invariants a step obligation assumes in its pre-state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Assumptions {
    /// What the invariant or simulation says with `using`, or else every invariant declared of
    /// the automaton (the target included: induction).
    #[default]
    AsDeclared,
    /// Exactly these, by name, whatever `using` says.
    Named(Vec<String>),
}

/// The invariants of automaton `a` chosen by `assume`, as indices into `spec.invariants`.
pub fn assumed_invariants(
    spec: &Spec,
    a: AutomatonId,
    assume: &Assumptions,
    using: &Option<Vec<String>>,
    span: Span,
) -> Result<Vec<usize>, EncodeError> {
    let named = match (assume, using) {
        (Assumptions::Named(names), _) => Some(names),
        (Assumptions::AsDeclared, Some(names)) => Some(names),
        (Assumptions::AsDeclared, None) => None,
    };
    match named {
        None => Ok(spec
            .invariants
            .iter()
            .enumerate()
            .filter(|(_, i)| i.automaton == a)
            .map(|(k, _)| k)
            .collect()),
        Some(names) => names
            .iter()
            .map(|n| {
                spec.invariants
                    .iter()
                    .position(|i| &i.name == n && i.automaton == a)
                    .ok_or_else(|| EncodeError::UnknownName {
                        what: "invariant of this automaton",
                        name: n.clone(),
                        span,
                    })
            })
            .collect(),
    }
}

/// Declares a fresh state of automaton `a` (one constant per variable, `Nat`s non-negative).
pub(crate) fn declare_state(enc: &mut Encoder, a: AutomatonId, suffix: &str) -> Vec<String> {
    let spec = enc.spec;
    let aut = &spec.automata[a.0 as usize].name;
    let mut out = Vec::new();
    for v in state_vars(spec, a) {
        let name = format!("{}{suffix}", var_symbol(aut, &v.name));
        let sort = enc.sort(&v.ty);
        enc.script.declare(&name, &sort);
        if v.ty == Type::Nat {
            enc.script.assert(&format!("(>= {name} 0)"));
        }
        out.push(name);
    }
    out
}

/// Declares automaton `a`'s parameters as constants; a parameter given a value on the command
/// line (its `init`, set by `ioa prove --param`) is asserted equal to it.
pub(crate) fn declare_params(
    enc: &mut Encoder,
    a: AutomatonId,
    env: &mut Env,
) -> Result<(), EncodeError> {
    let spec = enc.spec;
    let aut = &spec.automata[a.0 as usize];
    let mut ps = Vec::new();
    for p in &aut.params {
        ps.push(declare_param(enc, a, p)?);
    }
    env.params.insert(a.0, ps);
    Ok(())
}

/// Declares one parameter of `a` (and its fixed value, if it has one).
fn declare_param(
    enc: &mut Encoder,
    a: AutomatonId,
    p: &ioa_lang::ir::VarDecl,
) -> Result<String, EncodeError> {
    let aut = &enc.spec.automata[a.0 as usize];
    let name = format!(
        "{}.param.{}",
        crate::smt::symbol(&aut.name),
        crate::smt::symbol(&p.name)
    );
    let sort = enc.sort(&p.ty);
    enc.script.declare(&name, &sort);
    if let Some(value) = &p.init {
        let t = enc.expr(value, &Env::default())?;
        enc.script.comment(&format!(
            "assumed (--param): {}.{} has this value",
            aut.name, p.name
        ));
        enc.script.assert(&format!("(= {name} {t})"));
    }
    Ok(name)
}

/// Declares the parameters of a simulation's two automata: a parameter that the header makes
/// one value with an earlier one (`k` in `from A(k) to B(k)`) is that parameter's constant, so
/// every obligation reads one value; the others are constants of their own.
pub(crate) fn declare_sim_params(
    enc: &mut Encoder,
    sim: &ioa_lang::ir::Simulation,
    env: &mut Env,
) -> Result<(), EncodeError> {
    let spec = enc.spec;
    let mut sides = vec![sim.from];
    if sim.to != sim.from {
        sides.push(sim.to);
    }
    for a in sides {
        let mut ps = Vec::new();
        for (k, p) in spec.automata[a.0 as usize].params.iter().enumerate() {
            let (ra, rk) = sim.representative(a, k as u32);
            let shared = env
                .params
                .get(&ra.0)
                .and_then(|v| v.get(rk as usize))
                .cloned()
                .or_else(|| (ra == a).then(|| ps.get(rk as usize).cloned()).flatten());
            let term = match shared {
                Some(t) if (ra, rk) != (a, k as u32) => {
                    if let Some(value) = &p.init {
                        // Both given: `ioa prove` checked that the values agree.
                        let v = enc.expr(value, &Env::default())?;
                        enc.script.assert(&format!("(= {t} {v})"));
                    }
                    t
                }
                _ => declare_param(enc, a, p)?,
            };
            ps.push(term);
        }
        env.params.insert(a.0, ps);
    }
    Ok(())
}

/// Builds a start state of `a` in `env` (initialisers in order, then `so that`).
pub(crate) fn start_state(
    enc: &mut Encoder,
    a: AutomatonId,
    env: &mut Env,
    suffix: &str,
) -> Result<(), EncodeError> {
    let spec = enc.spec;
    let AutomatonBody::Primitive(p) = &spec.automata[a.0 as usize].body else {
        return Err(EncodeError::Unsupported {
            what: "a composite automaton",
            span: spec.automata[a.0 as usize].span,
        });
    };
    let names = declare_state(enc, a, suffix);
    env.states.insert(a.0, names.clone());
    let saved = env.automaton;
    env.automaton = Some(a);
    for (k, v) in p.state.iter().enumerate() {
        if let Some(init) = &v.init {
            let t = enc.expr(init, env)?;
            enc.script.assert(&format!("(= {} {t})", names[k]));
        }
    }
    if let Some(so) = &p.so_that {
        let t = enc.expr(so, env)?;
        enc.script.assert(&t);
    }
    env.automaton = saved;
    Ok(())
}

/// Binds a transition's parameters to fresh constants, asserts its `where` clauses, `const`
/// arguments and precondition, and runs its effect. Returns the parameter constants and the
/// environment after the effect.
pub(crate) fn transition(
    enc: &mut Encoder,
    a: AutomatonId,
    t: &Transition,
    env: &Env,
    shown: &mut Vec<Shown>,
) -> Result<Env, EncodeError> {
    let spec = enc.spec;
    let action = &spec.automata[a.0 as usize].actions[t.action.0 as usize];
    let mut env = env.clone();
    env.automaton = Some(a);
    env.locals.clear();
    for (k, p) in action.params.iter().enumerate() {
        let name = enc.script.fresh_const(
            &format!("{}.{}", action.name, p.name),
            &enc.sorts.clone().sort(spec, &p.ty),
        );
        enc.sort(&p.ty);
        if p.ty == Type::Nat {
            enc.script.assert(&format!("(>= {name} 0)"));
        }
        shown.push(Shown {
            section: Section::Action,
            label: t
                .local_names
                .get(k)
                .cloned()
                .unwrap_or_else(|| p.name.clone()),
            constant: name.clone(),
            ty: p.ty.clone(),
        });
        env.bind(k as u32, name);
    }
    for (k, p) in action.params.iter().enumerate() {
        if let Some(fixed) = &p.fixed {
            let ft = enc.expr(fixed, &env)?;
            let pk = env.locals[k].clone().unwrap_or_default();
            enc.script.assert(&format!("(= {pk} {ft})"));
        }
    }
    if let Some(w) = &action.where_clause {
        let wt = enc.expr(w, &env)?;
        enc.script.assert(&wt);
    }
    for (k, e) in &t.const_args {
        let et = enc.expr(e, &env)?;
        let pk = env.locals[*k as usize].clone().unwrap_or_default();
        enc.script.assert(&format!("(= {pk} {et})"));
    }
    if let Some(w) = &t.where_clause {
        let wt = enc.expr(w, &env)?;
        enc.script.assert(&wt);
    }
    for p in &t.pre {
        let pt = enc.expr(p, &env)?;
        enc.script.assert(&pt);
    }
    enc.exec(&t.eff, &env)
}

/// Declares the goal parts and asserts that not all of them hold.
pub(crate) fn assert_goals(enc: &mut Encoder, goals: &[(String, String)]) -> Vec<(String, String)> {
    let mut named = Vec::new();
    for (k, (label, term)) in goals.iter().enumerate() {
        let name = format!("goal.{}", k + 1);
        enc.script.comment(&format!("goal {}: {label}", k + 1));
        enc.script.declare(&name, "Bool");
        enc.script.assert(&format!("(= {name} {term})"));
        named.push((label.clone(), name));
    }
    let all: Vec<String> = named.iter().map(|(_, n)| n.clone()).collect();
    enc.script.comment("the negated goal: unsat means proved");
    enc.script
        .assert(&format!("(not {})", crate::smt::and(&all)));
    named
}

/// The state slots of automaton `a` that `exprs` and `stmts` mention (unqualified names count
/// when `a` is the automaton in scope).
pub(crate) fn slots_used(
    a: AutomatonId,
    in_scope: bool,
    exprs: &[&Expr],
    stmts: &[&[Stmt]],
) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    let mut on_expr = |e: &Expr| {
        visit(e, &mut |x| match &x.kind {
            ExprKind::Var(VarRef::State(k)) if in_scope => {
                out.insert(*k);
            }
            ExprKind::Var(VarRef::Qualified { automaton, slot }) if *automaton == a => {
                out.insert(*slot);
            }
            _ => {}
        })
    };
    for e in exprs {
        on_expr(e);
    }
    let mut written = BTreeSet::new();
    let mut stack: Vec<&Stmt> = stmts.iter().flat_map(|s| s.iter()).collect();
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Assign { target, value } => {
                match &target.root {
                    VarRef::State(k) if in_scope => {
                        written.insert(*k);
                    }
                    VarRef::Qualified { automaton, slot } if *automaton == a => {
                        written.insert(*slot);
                    }
                    _ => {}
                }
                for step in &target.path {
                    if let ioa_lang::ir::PlaceStep::Index(i) = step {
                        on_expr(i);
                    }
                }
                on_expr(value);
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
    let _ = children;
    out.extend(written);
    out
}

/// Adds the parameters of `a` (their terms in `env`) to `shown`, unqualified.
pub(crate) fn show_params(spec: &Spec, a: AutomatonId, env: &Env, shown: &mut Vec<Shown>) {
    let terms = env.params.get(&a.0).cloned().unwrap_or_default();
    for (p, constant) in spec.automata[a.0 as usize].params.iter().zip(terms) {
        shown.push(Shown {
            section: Section::Params,
            label: p.name.clone(),
            constant,
            ty: p.ty.clone(),
        });
    }
}

/// Adds the variables of `a` at `slots` to `shown`.
pub(crate) fn show_state(
    spec: &Spec,
    a: AutomatonId,
    slots: &BTreeSet<u32>,
    terms: &[String],
    section: Section,
    qualify: bool,
    shown: &mut Vec<Shown>,
) {
    let aut = &spec.automata[a.0 as usize].name;
    let vars = state_vars(spec, a);
    for k in slots {
        let v = &vars[*k as usize];
        shown.push(Shown {
            section,
            label: if qualify {
                format!("{aut}.{}", v.name)
            } else {
                v.name.clone()
            },
            constant: terms[*k as usize].clone(),
            ty: v.ty.clone(),
        });
    }
}
