//! The executable form of an automaton: every primitive instance of a (possibly composite)
//! automaton laid out in one state vector, its action instances, enabledness (with the reason a
//! step is not enabled) and the step function.
//!
//! A primitive automaton is a machine with one instance. A composite's action is the
//! synchronised step of every instance that has an action of that name whose `const`
//! parameters and `where` clause accept the arguments: at most one of them controls it (output or
//! internal), the rest take it as input.

use crate::deps::{Reads, SlotSet};
use crate::error::{EvalResult, RunError};
use crate::eval::{Chooser, Scope, StateView};
use crate::exec::Frame;
use crate::universe::Universe;
use crate::value::{Printer, Value};
use ioa_lang::ast::ActionKind;
use ioa_lang::ir::{
    ActionId, Automaton, AutomatonBody, AutomatonId, Expr, ExprKind, Primitive, Spec, Type, VarRef,
};
use ioa_lang::span::Span;
use rustc_hash::FxHashMap;

/// A global state: every instance's variables, concatenated.
pub type State = Vec<Value>;

/// One primitive automaton inside the machine.
#[derive(Debug, Clone)]
pub struct Instance {
    /// Which automaton.
    pub automaton: AutomatonId,
    /// Its parameter values.
    pub params: Vec<Value>,
    /// Where its variables start in the state vector.
    pub offset: usize,
    /// How many variables it has.
    pub len: usize,
    /// Its name for messages (`Global1`, `P[0]`, `C[1]`).
    pub name: String,
    /// Declared types of its variables.
    pub state_types: Vec<Type>,
    /// The top-level component member it belongs to (component index in the root composite,
    /// family index values); `None` when the root is primitive.
    pub member: Option<(u32, Vec<Value>)>,
}

/// A member of a top-level component of the root composite (`P[2]`, or `Net` for a single
/// component): the primitive instances it expands to, contiguous in [`Machine::instances`].
#[derive(Debug, Clone)]
pub struct Member {
    /// The component's position in the composite.
    pub component: u32,
    /// The family indices (empty for a single component).
    pub indices: Vec<Value>,
    /// Its name for messages.
    pub name: String,
    /// Its instances.
    pub instances: std::ops::Range<usize>,
}

/// An action of the machine (of its root automaton).
#[derive(Debug, Clone)]
pub struct MachineAction {
    /// The name.
    pub name: String,
    /// Its kind at the root (before per-instance hiding).
    pub kind: ActionKind,
    /// Parameter types.
    pub param_types: Vec<Type>,
    /// Parameter names, for candidate lookups.
    pub param_names: Vec<String>,
    /// Instances that have an action of this name.
    pub members: Vec<(usize, ActionId)>,
}

/// Why an action instance cannot be taken.
#[derive(Debug, Clone)]
pub enum Disabled {
    /// No component has this action with these arguments.
    NoParticipant,
    /// A precondition conjunct (or `where` clause) is false.
    Precondition {
        /// The instance whose transition is disabled.
        instance: usize,
        /// The conjunct or clause that is false.
        span: Span,
        /// The state variables and parameters it reads, with their values.
        reads: Vec<(String, String)>,
    },
    /// Two components both control the action.
    SeveralControllers {
        /// Their names.
        names: Vec<String>,
    },
}

/// A step ready to execute: for each participant, the transition and its bound locals.
#[derive(Clone)]
pub struct Plan {
    parts: Vec<(usize, usize, Vec<Value>)>,
}

/// A primitive automaton's state variables and params.
fn primitive(spec: &Spec, a: AutomatonId) -> &Primitive {
    match &spec.automata[a.0 as usize].body {
        AutomatonBody::Primitive(p) => p,
        AutomatonBody::Composite(_) => unreachable!("instances are primitive"),
    }
}

/// The executable model.
pub struct Machine<'s> {
    /// The spec.
    pub spec: &'s Spec,
    /// Carriers.
    pub universe: &'s Universe,
    /// The automaton run.
    pub root: AutomatonId,
    /// Its parameters.
    pub root_params: Vec<Value>,
    /// Primitive instances.
    pub instances: Vec<Instance>,
    /// The root's actions.
    pub actions: Vec<MachineAction>,
    /// Top-level component (index, family indices) to instance.
    components: FxHashMap<(u32, Vec<Value>), usize>,
    /// The members of the root composite's components, in declaration and index order, each
    /// with the primitive instances it expands to (empty for a primitive root).
    pub members: Vec<Member>,
    /// Total state slots.
    pub n_slots: usize,
    /// For each automaton and action, the indices of its transitions (cases).
    transitions_of: Vec<Vec<Vec<usize>>>,
    /// For each root action, the state slots its enabledness reads.
    action_reads: Vec<SlotSet>,
    /// For each invariant of the spec, the state slots it reads.
    invariant_reads: Vec<SlotSet>,
    /// For each automaton and action, its other signature entries of the same name (of other
    /// kinds): the manual's actions that are inputs for some parameters and outputs for others.
    siblings: Vec<Vec<Vec<ActionId>>>,
    /// For each root action, whether some member has entries of several kinds.
    mixed: Vec<bool>,
}

/// A view of the machine's state for expressions that read components.
pub struct MachineView<'a, 's> {
    machine: &'a Machine<'s>,
    state: &'a [Value],
}

impl StateView for MachineView<'_, '_> {
    fn qualified(&self, _: AutomatonId, _: u32) -> Option<Value> {
        None
    }
    fn component(
        &self,
        automaton: AutomatonId,
        component: u32,
        indices: &[Value],
        slot: u32,
    ) -> Option<Value> {
        self.machine
            .component_value(self.state, automaton, component, indices, slot)
    }
}

impl<'s> Machine<'s> {
    /// Builds the machine for `root` with parameter values `params`.
    pub fn new(
        spec: &'s Spec,
        universe: &'s Universe,
        root: AutomatonId,
        params: Vec<Value>,
    ) -> EvalResult<Machine<'s>> {
        let mut m = Machine {
            spec,
            universe,
            root,
            root_params: params.clone(),
            instances: Vec::new(),
            actions: Vec::new(),
            components: FxHashMap::default(),
            members: Vec::new(),
            n_slots: 0,
            transitions_of: spec
                .automata
                .iter()
                .map(|a| match &a.body {
                    AutomatonBody::Primitive(p) => (0..a.actions.len())
                        .map(|k| {
                            p.transitions
                                .iter()
                                .enumerate()
                                .filter(|(_, t)| t.action.0 as usize == k)
                                .map(|(i, _)| i)
                                .collect()
                        })
                        .collect(),
                    AutomatonBody::Composite(_) => Vec::new(),
                })
                .collect(),
            action_reads: Vec::new(),
            invariant_reads: Vec::new(),
            siblings: Vec::new(),
            mixed: Vec::new(),
        };
        let name = spec.automata[root.0 as usize].name.clone();
        m.expand(root, params, name, None)?;
        m.siblings = spec
            .automata
            .iter()
            .map(|a| {
                (0..a.actions.len())
                    .map(|k| {
                        (0..a.actions.len())
                            .filter(|&j| j != k && a.actions[j].name == a.actions[k].name)
                            .map(|j| ActionId(j as u32))
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let aut = &spec.automata[root.0 as usize];
        let primitive_root = m.root_is_primitive();
        for (ak, a) in aut.actions.iter().enumerate() {
            // A primitive root's action is its own signature entry (an action name may have an
            // input entry and an output entry, each its own machine action); a composite's is
            // every entry of that name of every instance.
            let members = if primitive_root {
                vec![(0, ActionId(ak as u32))]
            } else {
                m.instances
                    .iter()
                    .enumerate()
                    .flat_map(|(k, inst)| {
                        let inner = &spec.automata[inst.automaton.0 as usize];
                        inner
                            .actions
                            .iter()
                            .enumerate()
                            .filter(|(_, x)| x.name == a.name)
                            .map(move |(p, _)| (k, ActionId(p as u32)))
                    })
                    .collect()
            };
            m.actions.push(MachineAction {
                name: a.name.clone(),
                kind: a.kind,
                param_types: a.params.iter().map(|p| p.ty.clone()).collect(),
                param_names: a.params.iter().map(|p| p.name.clone()).collect(),
                members,
            });
        }
        m.action_reads = (0..m.actions.len()).map(|a| m.reads_of_action(a)).collect();
        m.invariant_reads = spec
            .invariants
            .iter()
            .map(|inv| {
                let mut reads = Reads::default();
                reads.expr(&inv.body);
                if m.root_is_primitive() {
                    let mut set = SlotSet::default();
                    set.add(&reads, 0);
                    set
                } else {
                    SlotSet::everything()
                }
            })
            .collect();
        m.mixed = (0..m.actions.len())
            .map(|a| {
                m.actions[a].members.iter().any(|&(inst, aid)| {
                    !m.siblings[m.instances[inst].automaton.0 as usize][aid.0 as usize].is_empty()
                })
            })
            .collect();
        m.check_disjoint_entries()?;
        Ok(m)
    }

    fn root_is_primitive(&self) -> bool {
        self.instances.len() == 1 && self.instances[0].automaton == self.root
    }

    /// The state slots that `enabled` reads for any instance of `action`.
    fn reads_of_action(&self, action: usize) -> SlotSet {
        let mut set = SlotSet::default();
        for &(inst, aid) in &self.actions[action].members {
            let i = &self.instances[inst];
            let sig = &self.spec.automata[i.automaton.0 as usize].actions[aid.0 as usize];
            let mut reads = Reads::default();
            for p in &sig.params {
                if let Some(e) = &p.fixed {
                    reads.expr(e);
                }
            }
            if let Some(w) = &sig.where_clause {
                reads.expr(w);
            }
            let prim = primitive(self.spec, i.automaton);
            for &ti in &self.transitions_of[i.automaton.0 as usize][aid.0 as usize] {
                let t = &prim.transitions[ti];
                for (_, e) in &t.const_args {
                    reads.expr(e);
                }
                if let Some(w) = &t.where_clause {
                    reads.expr(w);
                }
                for e in &t.pre {
                    reads.expr(e);
                }
            }
            set.add(&reads, i.offset);
        }
        set
    }

    /// The state slots whose values decide whether instances of `action` are enabled: while
    /// they keep their values, so does enabledness.
    pub fn action_reads(&self, action: usize) -> &SlotSet {
        &self.action_reads[action]
    }

    fn expand(
        &mut self,
        a: AutomatonId,
        params: Vec<Value>,
        name: String,
        top: Option<(u32, Vec<Value>)>,
    ) -> EvalResult<()> {
        let aut: &Automaton = &self.spec.automata[a.0 as usize];
        match &aut.body {
            AutomatonBody::Primitive(p) => {
                let len = p.state.len();
                if let Some(key) = &top {
                    self.components.insert(key.clone(), self.instances.len());
                }
                self.instances.push(Instance {
                    automaton: a,
                    params,
                    offset: self.n_slots,
                    len,
                    name,
                    state_types: p.state.iter().map(|v| v.ty.clone()).collect(),
                    member: top,
                });
                self.n_slots += len;
            }
            AutomatonBody::Composite(c) => {
                for (ci, comp) in c.components.iter().enumerate() {
                    let combos = crate::family::members(self.spec, self.universe, comp, &params)?;
                    for combo in combos {
                        let scope = Scope::params_only(self.spec, self.universe, &params);
                        let mut locals = combo.clone();
                        locals.resize(
                            (comp.n_locals as usize).max(combo.len()).max(8),
                            Value::Bool(false),
                        );
                        let mut args = Vec::new();
                        for e in &comp.args {
                            args.push(scope.eval(e, &mut locals, &mut crate::eval::NoChoice)?);
                        }
                        let printer = Printer::new(self.spec);
                        let inst_name = if combo.is_empty() {
                            comp.name.clone()
                        } else {
                            format!(
                                "{}[{}]",
                                comp.name,
                                combo
                                    .iter()
                                    .map(|v| printer.show(v))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        };
                        let key = if top.is_none() {
                            Some((ci as u32, combo.clone()))
                        } else {
                            None
                        };
                        let first = self.instances.len();
                        self.expand(comp.automaton, args, inst_name.clone(), key.or(top.clone()))?;
                        if top.is_none() {
                            self.members.push(Member {
                                component: ci as u32,
                                indices: combo.clone(),
                                name: inst_name,
                                instances: first..self.instances.len(),
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// A scope for instance `inst` over `state`.
    fn scope<'a>(
        &'a self,
        inst: usize,
        state: &'a [Value],
        view: &'a MachineView<'a, 's>,
    ) -> Scope<'a> {
        let i = &self.instances[inst];
        Scope {
            spec: self.spec,
            universe: self.universe,
            state: &state[i.offset..i.offset + i.len],
            params: &i.params,
            aux: &[],
            view,
        }
    }

    /// The instance of top-level component `component` (family member `indices`), if it
    /// exists.
    pub fn component_instance(&self, component: u32, indices: &[Value]) -> Option<usize> {
        self.components.get(&(component, indices.to_vec())).copied()
    }

    /// The position in the state vector of state variable `slot` of a component instance of
    /// the root composite `automaton`; `None` when `automaton` is not the root or the member
    /// does not exist.
    pub fn component_slot(
        &self,
        automaton: AutomatonId,
        component: u32,
        indices: &[Value],
        slot: u32,
    ) -> Option<usize> {
        if automaton != self.root {
            return None;
        }
        let i = &self.instances[self.component_instance(component, indices)?];
        (slot < i.len as u32).then_some(i.offset + slot as usize)
    }

    /// State variable `slot` of a component instance of the root composite `automaton` in
    /// `state`; `None` when `automaton` is not the root or the member does not exist.
    pub fn component_value(
        &self,
        state: &[Value],
        automaton: AutomatonId,
        component: u32,
        indices: &[Value],
        slot: u32,
    ) -> Option<Value> {
        if automaton != self.root {
            return None;
        }
        let i = &self.instances[self.component_instance(component, indices)?];
        state.get(i.offset + slot as usize).cloned()
    }

    /// The view used by invariants of the root.
    pub fn view<'a>(&'a self, state: &'a [Value]) -> MachineView<'a, 's> {
        MachineView {
            machine: self,
            state,
        }
    }

    /// The start state: initial values, with `ch` choosing values for variables without one.
    pub fn initial_state(&self, ch: &mut dyn Chooser) -> EvalResult<State> {
        let mut state = vec![Value::Bool(false); self.n_slots];
        for (k, inst) in self.instances.iter().enumerate() {
            let p = primitive(self.spec, inst.automaton);
            let mut locals = vec![Value::Bool(false); p.init_locals as usize + 1];
            for (slot, decl) in p.state.iter().enumerate() {
                let v = match &decl.init {
                    Some(e) => {
                        let view = self.view(&state);
                        let scope = self.scope(k, &state, &view);
                        scope.eval(e, &mut locals, ch)?
                    }
                    None => self.any_value(decl, ch)?,
                };
                state[inst.offset + slot] = v;
            }
        }
        Ok(state)
    }

    /// The declared part of a start state: each variable's initial value, and `None` for the
    /// variables without one (for a proof block's `start` to set; see [`Machine::any_value_at`]).
    pub fn declared_state(&self, ch: &mut dyn Chooser) -> EvalResult<Vec<Option<Value>>> {
        let mut state = vec![Value::Bool(false); self.n_slots];
        let mut declared = vec![None; self.n_slots];
        for (k, inst) in self.instances.iter().enumerate() {
            let p = primitive(self.spec, inst.automaton);
            let mut locals = vec![Value::Bool(false); p.init_locals as usize + 1];
            for (slot, decl) in p.state.iter().enumerate() {
                if let Some(e) = &decl.init {
                    let view = self.view(&state);
                    let scope = self.scope(k, &state, &view);
                    let v = scope.eval(e, &mut locals, ch)?;
                    state[inst.offset + slot] = v.clone();
                    declared[inst.offset + slot] = Some(v);
                }
            }
        }
        Ok(declared)
    }

    /// A value `ch` chooses for state slot `position`, which has no initial value, from its
    /// type's carrier.
    pub fn any_value_at(&self, position: usize, ch: &mut dyn Chooser) -> EvalResult<Value> {
        let inst = self
            .instances
            .iter()
            .find(|i| i.offset <= position && position < i.offset + i.len)
            .expect("a slot of the state vector");
        let decl = &primitive(self.spec, inst.automaton).state[position - inst.offset];
        self.any_value(decl, ch)
    }

    fn any_value(&self, decl: &ioa_lang::ir::VarDecl, ch: &mut dyn Chooser) -> EvalResult<Value> {
        let carrier = self.universe.carrier_at(self.spec, &decl.ty, decl.span)?;
        ch.choose(decl.span, &carrier)
    }

    /// Whether every instance's `so that` holds in `state`.
    pub fn so_that_holds(&self, state: &[Value]) -> EvalResult<Option<Span>> {
        for (k, inst) in self.instances.iter().enumerate() {
            let p = primitive(self.spec, inst.automaton);
            if let Some(e) = &p.so_that {
                let view = self.view(state);
                let scope = self.scope(k, state, &view);
                let mut locals = vec![Value::Bool(false); p.init_locals as usize + 1];
                if !scope.truth(e, &mut locals, &mut crate::eval::NoChoice)? {
                    return Ok(Some(e.span));
                }
            }
        }
        Ok(None)
    }

    /// Evaluates an expression that reads no locals in the scope of instance `inst`.
    pub(crate) fn eval_in_instance(
        &self,
        inst: usize,
        state: &[Value],
        e: &Expr,
    ) -> EvalResult<Value> {
        let view = self.view(state);
        let scope = self.scope(inst, state, &view);
        scope.eval(e, &mut [], &mut crate::eval::NoChoice)
    }

    /// The kind of an action instance at the root (hidden outputs are internal).
    pub fn kind_of(&self, action: usize, args: &[Value]) -> EvalResult<ActionKind> {
        let a = &self.actions[action];
        if let AutomatonBody::Composite(c) = &self.spec.automata[self.root.0 as usize].body {
            for h in &c.hidden {
                if h.action.0 as usize != action {
                    continue;
                }
                let mut locals = args.to_vec();
                locals.resize((h.n_locals as usize).max(args.len()), Value::Bool(false));
                let scope = Scope::params_only(self.spec, self.universe, &self.root_params);
                let mut ok = true;
                for (k, e) in &h.const_args {
                    ok &= scope.eval(e, &mut locals, &mut crate::eval::NoChoice)?
                        == args[*k as usize];
                }
                if let Some(w) = &h.where_clause {
                    ok = ok && scope.truth(w, &mut locals, &mut crate::eval::NoChoice)?;
                }
                if ok {
                    return Ok(ActionKind::Internal);
                }
            }
        }
        // A composite's action with members of several kinds at one instance: its kind is the
        // kind of the entry that controls this instance (an input when none does).
        if self.mixed[action] && !self.root_is_primitive() {
            let parts = self.participants(action, args)?;
            return Ok(parts
                .iter()
                .map(|&(_, k)| k)
                .find(|k| *k != ActionKind::Input)
                .unwrap_or(ActionKind::Input));
        }
        Ok(a.kind)
    }

    /// Fails when another signature entry (of another kind) of instance `inst` accepts the
    /// arguments that entry `aid` accepts.
    fn check_siblings(
        &self,
        scope: &Scope,
        inst: usize,
        aid: ActionId,
        args: &[Value],
    ) -> EvalResult<()> {
        let i = &self.instances[inst];
        let aut = &self.spec.automata[i.automaton.0 as usize];
        for &other in &self.siblings[i.automaton.0 as usize][aid.0 as usize] {
            let sig = &aut.actions[other.0 as usize];
            if takes_part(scope, sig, args)? {
                let printer = Printer::new(self.spec);
                let shown: Vec<String> = args.iter().map(|v| printer.show(v)).collect();
                let (first, second) = if other.0 < aid.0 {
                    (sig.span, aut.actions[aid.0 as usize].span)
                } else {
                    (aut.actions[aid.0 as usize].span, sig.span)
                };
                return Err(RunError::KindsOverlap {
                    instance: format!("{}({})", sig.name, shown.join(", ")),
                    automaton: i.name.clone(),
                    first,
                    second,
                });
            }
        }
        Ok(())
    }

    /// Checks over the parameters' finite universes that no two signature entries of one
    /// action (of different kinds) accept the same instance; entries read only parameters, so
    /// this holds in every state or in none. Types without a finite universe are skipped (the
    /// check is then made on every instance a run meets).
    pub fn check_disjoint_entries(&self) -> EvalResult<()> {
        for (inst, i) in self.instances.iter().enumerate() {
            let aut = &self.spec.automata[i.automaton.0 as usize];
            for (k, sig) in aut.actions.iter().enumerate() {
                let sibs = &self.siblings[i.automaton.0 as usize][k];
                if sibs.iter().all(|s| (s.0 as usize) < k) {
                    continue; // no sibling, or the pair was checked from the earlier entry
                }
                let mut carriers = Vec::new();
                for p in &sig.params {
                    match self.universe.param_candidates(&sig.name, &p.name) {
                        Some(c) => carriers.push(c),
                        None => match self.carrier(&p.ty, sig.span) {
                            Ok(c) => carriers.push(c),
                            Err(_) => return Ok(()),
                        },
                    }
                }
                let total: f64 = carriers.iter().map(|c| c.len() as f64).product();
                if total > 1e6 {
                    continue;
                }
                let scope = Scope::params_only(self.spec, self.universe, &i.params);
                let mut index = vec![0usize; carriers.len()];
                if carriers.iter().any(|c| c.is_empty()) {
                    continue;
                }
                loop {
                    let args: Vec<Value> = index
                        .iter()
                        .zip(&carriers)
                        .map(|(&j, c)| c[j].clone())
                        .collect();
                    if takes_part(&scope, sig, &args)? {
                        self.check_siblings(&scope, inst, ActionId(k as u32), &args)?;
                    }
                    let mut d = 0;
                    while d < index.len() {
                        index[d] += 1;
                        if index[d] < carriers[d].len() {
                            break;
                        }
                        index[d] = 0;
                        d += 1;
                    }
                    if d == index.len() {
                        break;
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether action instance `(action, args)` is enabled in `state`; if so, how to take it.
    pub fn enabled(
        &self,
        state: &[Value],
        action: usize,
        args: &[Value],
        explain: bool,
    ) -> EvalResult<Result<Plan, Disabled>> {
        self.enabled_among(state, action, args, explain, None)
    }

    /// [`Machine::enabled`] for a part of the system: only the instances `keep` marks take part
    /// (all when `None`); the others are treated as absent. Local model checking steps one
    /// node's instances this way, and the network's on its own.
    pub fn enabled_among(
        &self,
        state: &[Value],
        action: usize,
        args: &[Value],
        explain: bool,
        keep: Option<&[bool]>,
    ) -> EvalResult<Result<Plan, Disabled>> {
        let a = &self.actions[action];
        let view = self.view(state);
        let mut parts = Vec::new();
        // The first instance that controls the action, and any others (an error): kept apart
        // so that the usual case allocates nothing.
        let mut controller = None;
        let mut more_controllers = Vec::new();
        let mut participants = 0;
        let mut first_disabled = None;
        for &(inst, aid) in &a.members {
            if keep.is_some_and(|k| !k[inst]) {
                continue;
            }
            let i = &self.instances[inst];
            let aut = &self.spec.automata[i.automaton.0 as usize];
            let sig = &aut.actions[aid.0 as usize];
            let scope = self.scope(inst, state, &view);
            if !takes_part(&scope, sig, args)? {
                continue;
            }
            self.check_siblings(&scope, inst, aid, args)?;
            participants += 1;
            if sig.kind != ActionKind::Input {
                if controller.is_none() {
                    controller = Some(inst);
                } else {
                    more_controllers.push(inst);
                }
            }
            // Find an enabled transition case.
            let prim = primitive(self.spec, i.automaton);
            let mut chosen = None;
            // One buffer of locals for every case tried (most are disabled, and then it is
            // reused rather than reallocated).
            let mut locals = Vec::new();
            for &ti in &self.transitions_of[i.automaton.0 as usize][aid.0 as usize] {
                let t = &prim.transitions[ti];
                locals.clear();
                locals.extend_from_slice(args);
                locals.resize((t.n_locals as usize).max(args.len()), Value::Bool(false));
                let mut ok = true;
                for (k, e) in &t.const_args {
                    if scope.eval(e, &mut locals, &mut crate::eval::NoChoice)? != args[*k as usize]
                    {
                        ok = false;
                    }
                }
                if !ok {
                    continue;
                }
                // Why the instance is disabled is a controlling participant's conjunct: an
                // input participant none of whose cases applies does not disable it.
                let input = sig.kind == ActionKind::Input;
                if let Some(w) = &t.where_clause {
                    if !scope.truth(w, &mut locals, &mut crate::eval::NoChoice)? {
                        if !input {
                            first_disabled.get_or_insert_with(|| {
                                self.disabled_at(
                                    inst,
                                    w,
                                    &scope,
                                    &mut locals,
                                    &t.local_names,
                                    explain,
                                )
                            });
                        }
                        continue;
                    }
                }
                let mut failed = None;
                for conj in &t.pre {
                    if !scope.truth(conj, &mut locals, &mut crate::eval::NoChoice)? {
                        failed = Some(conj);
                        break;
                    }
                }
                if let Some(conj) = failed {
                    if !input {
                        first_disabled.get_or_insert_with(|| {
                            self.disabled_at(
                                inst,
                                conj,
                                &scope,
                                &mut locals,
                                &t.local_names,
                                explain,
                            )
                        });
                    }
                    continue;
                }
                chosen = Some((ti, locals));
                break;
            }
            match chosen {
                Some((ti, locals)) => parts.push((inst, ti, locals)),
                None if sig.kind == ActionKind::Input => {}
                None => return Ok(Err(first_disabled.unwrap_or(Disabled::NoParticipant))),
            }
        }
        if let (Some(first), false) = (controller, more_controllers.is_empty()) {
            let names = std::iter::once(first)
                .chain(more_controllers)
                .map(|k| self.instances[k].name.clone())
                .collect();
            return Ok(Err(Disabled::SeveralControllers { names }));
        }
        if participants == 0 {
            return Ok(Err(Disabled::NoParticipant));
        }
        Ok(Ok(Plan { parts }))
    }

    /// The instances that take part in action instance `(action, args)`, with the kind their
    /// own signature gives the action (input, output or internal): those whose `const`
    /// parameters and signature `where` clause accept the arguments. This is the same test
    /// [`Machine::enabled`] makes before looking at preconditions; it reads no state.
    pub fn participants(
        &self,
        action: usize,
        args: &[Value],
    ) -> EvalResult<Vec<(usize, ActionKind)>> {
        let mut out = Vec::new();
        for &(inst, aid) in &self.actions[action].members {
            let i = &self.instances[inst];
            let sig = &self.spec.automata[i.automaton.0 as usize].actions[aid.0 as usize];
            // A signature's `const` parameters and `where` clause read parameters only (E0074),
            // so an empty state serves.
            let scope = Scope::params_only(self.spec, self.universe, &i.params);
            if takes_part(&scope, sig, args)? {
                self.check_siblings(&scope, inst, aid, args)?;
                out.push((inst, sig.kind));
            }
        }
        Ok(out)
    }

    fn disabled_at(
        &self,
        inst: usize,
        e: &Expr,
        scope: &Scope,
        locals: &mut [Value],
        local_names: &[String],
        explain: bool,
    ) -> Disabled {
        if !explain {
            return Disabled::Precondition {
                instance: inst,
                span: e.span,
                reads: Vec::new(),
            };
        }
        let printer = Printer::new(self.spec);
        let prim = primitive(self.spec, self.instances[inst].automaton);
        let mut reads = Vec::new();
        collect_reads(e, &mut |r| {
            let (name, value) = match r {
                VarRef::State(s) => (
                    prim.state[*s as usize].name.clone(),
                    scope.state.get(*s as usize).cloned(),
                ),
                VarRef::Local(s) => (
                    local_names.get(*s as usize).cloned().unwrap_or_default(),
                    locals.get(*s as usize).cloned(),
                ),
                VarRef::Param(s) => (
                    self.spec.automata[self.instances[inst].automaton.0 as usize].params
                        [*s as usize]
                        .name
                        .clone(),
                    scope.params.get(*s as usize).cloned(),
                ),
                _ => return,
            };
            if let Some(v) = value {
                if !name.starts_with('_')
                    && !reads.iter().any(|(n, _): &(String, String)| *n == name)
                {
                    reads.push((name, printer.show(&v)));
                }
            }
        });
        Disabled::Precondition {
            instance: inst,
            span: e.span,
            reads,
        }
    }

    /// Takes a planned step, returning the next state.
    pub fn execute(&self, state: &[Value], plan: Plan, ch: &mut dyn Chooser) -> EvalResult<State> {
        let mut next = state.to_vec();
        let mut aux = Vec::new();
        for (inst, ti, mut locals) in plan.parts {
            self.execute_part(&mut next, &mut aux, inst, ti, &mut locals, ch)?;
        }
        Ok(next)
    }

    /// [`Machine::execute`] with a plan that stays where it is (a random run's remembered
    /// plan): each participant's locals are copied into one buffer instead of the whole plan
    /// being cloned.
    pub fn execute_borrowed(
        &self,
        state: &[Value],
        plan: &Plan,
        ch: &mut dyn Chooser,
    ) -> EvalResult<State> {
        let mut next = state.to_vec();
        let mut aux = Vec::new();
        let mut locals = Vec::new();
        for (inst, ti, planned) in &plan.parts {
            locals.clone_from(planned);
            self.execute_part(&mut next, &mut aux, *inst, *ti, &mut locals, ch)?;
        }
        Ok(next)
    }

    /// Runs transition `ti` of instance `inst` with `locals` on the state `next`.
    fn execute_part(
        &self,
        next: &mut Vec<Value>,
        aux: &mut Vec<Value>,
        inst: usize,
        ti: usize,
        locals: &mut [Value],
        ch: &mut dyn Chooser,
    ) -> EvalResult<()> {
        let i = &self.instances[inst];
        let prim = primitive(self.spec, i.automaton);
        let t = &prim.transitions[ti];
        if i.offset == 0 && i.len == next.len() {
            // The only instance: its variables are the whole state, update them in place.
            let mut frame = Frame {
                spec: self.spec,
                universe: self.universe,
                state: next,
                state_types: &i.state_types,
                params: &i.params,
                aux,
                aux_types: &[],
                view: &crate::eval::NoView,
            };
            return frame.exec(&t.eff, locals, ch);
        }
        // Effects read and write only their own instance's variables.
        let mut local_state: Vec<Value> = next[i.offset..i.offset + i.len].to_vec();
        let mut frame = Frame {
            spec: self.spec,
            universe: self.universe,
            state: &mut local_state,
            state_types: &i.state_types,
            params: &i.params,
            aux,
            aux_types: &[],
            view: &crate::eval::NoView,
        };
        frame.exec(&t.eff, locals, ch)?;
        for (slot, v) in next[i.offset..i.offset + i.len].iter_mut().zip(local_state) {
            *slot = v;
        }
        Ok(())
    }

    /// Checks the root's invariants in `state`; returns the first that fails, or the one whose
    /// evaluation failed.
    pub fn failing_invariant(&self, state: &[Value]) -> Result<Option<usize>, (usize, RunError)> {
        self.failing_invariant_among(state, None)
    }

    /// Like [`Machine::failing_invariant`], but when `changed` marks the slots in which `state`
    /// differs from a state where every invariant held, checks only the invariants that read
    /// one of them (the others still hold).
    pub fn failing_invariant_among(
        &self,
        state: &[Value],
        changed: Option<&[bool]>,
    ) -> Result<Option<usize>, (usize, RunError)> {
        for (k, inv) in self.spec.invariants.iter().enumerate() {
            if inv.automaton != self.root {
                continue;
            }
            if let Some(c) = changed {
                if !self.invariant_reads[k].touched(c) {
                    continue;
                }
            }
            let mut locals = vec![Value::Bool(false); inv.n_locals as usize + 1];
            if !self
                .root_truth(&inv.body, state, &mut locals)
                .map_err(|e| (k, e))?
            {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }

    /// Evaluates a predicate of the root (an invariant or a part of one) in `state`, with
    /// `locals` holding the values of its bound variables.
    pub fn root_truth(&self, e: &Expr, state: &[Value], locals: &mut [Value]) -> EvalResult<bool> {
        let view = self.view(state);
        let scope = if self.root_is_primitive() {
            self.scope(0, state, &view)
        } else {
            Scope {
                spec: self.spec,
                universe: self.universe,
                state: &[],
                params: &self.root_params,
                aux: &[],
                view: &view,
            }
        };
        scope.truth(e, locals, &mut crate::eval::NoChoice)
    }

    /// Names of the state slots (`x` for a primitive, `P[0].x` in a composite).
    pub fn slot_names(&self) -> Vec<String> {
        let single = self.instances.len() == 1;
        let mut out = Vec::with_capacity(self.n_slots);
        for inst in &self.instances {
            for v in &primitive(self.spec, inst.automaton).state {
                out.push(if single {
                    v.name.clone()
                } else {
                    format!("{}.{}", inst.name, v.name)
                });
            }
        }
        out
    }

    /// Types of the state slots.
    pub fn slot_types(&self) -> Vec<Type> {
        self.instances
            .iter()
            .flat_map(|i| i.state_types.iter().cloned())
            .collect()
    }

    /// Reports an unbounded carrier as an error at `span`.
    pub fn carrier(&self, ty: &Type, span: Span) -> Result<std::sync::Arc<[Value]>, RunError> {
        self.universe.carrier_at(self.spec, ty, span)
    }
}

/// Whether an instance whose signature entry for the action is `sig` takes part in the action
/// instance with `args`: its `const` parameters equal the arguments and its `where` clause holds.
fn takes_part(scope: &Scope, sig: &ioa_lang::ir::Action, args: &[Value]) -> EvalResult<bool> {
    if sig.where_clause.is_none() && sig.params.iter().all(|p| p.fixed.is_none()) {
        return Ok(true);
    }
    let mut locals = args.to_vec();
    locals.resize((sig.n_locals as usize).max(args.len()), Value::Bool(false));
    for (k, p) in sig.params.iter().enumerate() {
        if let Some(fixed) = &p.fixed {
            if scope.eval(fixed, &mut locals, &mut crate::eval::NoChoice)? != args[k] {
                return Ok(false);
            }
        }
    }
    match &sig.where_clause {
        Some(w) => scope.truth(w, &mut locals, &mut crate::eval::NoChoice),
        None => Ok(true),
    }
}

/// Calls `f` on every variable an expression reads.
pub fn collect_reads(e: &Expr, f: &mut dyn FnMut(&VarRef)) {
    match &e.kind {
        ExprKind::Var(r) => f(r),
        ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Nil
        | ExprKind::EnumConst(_) => {}
        ExprKind::Tuple(xs) | ExprKind::Collection(xs) | ExprKind::Call(_, xs) => {
            xs.iter().for_each(|x| collect_reads(x, f))
        }
        ExprKind::Unary(_, x)
        | ExprKind::Field(x, _)
        | ExprKind::NullVal(x)
        | ExprKind::UnionPayload(x, _)
        | ExprKind::UnionNew(_, x)
        | ExprKind::Is(x, _) => collect_reads(x, f),
        ExprKind::Binary(_, a, b) | ExprKind::Index(a, b) => {
            collect_reads(a, f);
            collect_reads(b, f);
        }
        ExprKind::Quant(_, _, b) | ExprKind::SetComp { cond: b, .. } => collect_reads(b, f),
        ExprKind::Cond(a, b, c) => {
            collect_reads(a, f);
            collect_reads(b, f);
            collect_reads(c, f);
        }
        ExprKind::Choose { cond, .. } => {
            if let Some(c) = cond {
                collect_reads(c, f);
            }
        }
    }
}
