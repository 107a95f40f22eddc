//! The compiled engine: a primitive automaton (or a composite's flattening, `flat.rs`) turned
//! into code over flat word vectors, explored by the same loop as the interpreter's model and
//! with the same action instances, steps and invariant numbering.
//!
//! **Why.** The interpreter walks the typed IR over reference-counted values; for exhaustive
//! search, where the same few preconditions run millions of times, that costs an order of
//! magnitude against tools that compile the model (SPIN, Stateright). Here a state is a few
//! dozen machine words (`layout.rs`), expressions are trees of word operations with every name
//! and type resolved (`code.rs`, made by `lower.rs`), and a successor is a copy of the words
//! and a few stores. Values of types without a fixed word layout (sequences, maps, multisets,
//! strings, reals, union values, sets of open types) are interned (`intern.rs`): a word holds
//! the value's id in a per-run table, and the interpreter's own operations compute on them.
//! Fingerprints hash the words, with each interned id replaced by its value's hash, so they do
//! not depend on the order threads interned values in.
//!
//! **Same answers.** [`CompiledModel`] numbers action instances exactly as
//! [`crate::model::MachineModel`] does and its steps are [`MachineStep`]s, so a path it reports
//! re-executes through the interpreter into the usual replayable trace (and a divergence would
//! show there). Start states come from the interpreter (`choose`, `so that`) and are encoded.
//! An effect's `choose` is resolved by the interpreter's evaluator under the same script of
//! candidate indices the interpreter's model enumerates (`crate::model`), so both branch
//! alike and number steps alike. A model outside the compiled subset (a `choose` with its own
//! `det` block, `while`, variables of other automata) is refused by [`CompiledModel::new`]
//! with the reason; a state the compiled code cannot handle (a value
//! outside its universe, an arithmetic error, any error of the interpreter's evaluation, a
//! false `ensuring`) stops the search with a [`Fault`], and the caller explores again with the
//! interpreter, which handles or reports it with its source position. Tests compare both engines' state counts,
//! depths and counterexamples on every example that compiles.
//!
//! **Symmetry.** With a [`Symmetry`], a state is described to the same canonicaliser the
//! interpreter's model uses, straight from its words (`sym_tree.rs`), so both engines reduce
//! to the same classes (and the same counts, which the tests compare).

pub mod code;
pub mod flat;
pub mod intern;
mod interp_memo;
pub mod layout;
mod lower;
mod native;
pub mod pack;
mod portable;
mod sym_tree;
mod unchanged;

use crate::explore::Model;
use crate::fingerprint::Fingerprint;
use crate::model::{action_instances, MachineModel, MachineStep, Scripted};
use crate::symmetry::Symmetry;
use code::{eval, exec, Code, Cx, Env, Fault, Stmt};
use interpreter::machine::Machine;
use interpreter::value::Value;
use ioa_lang::ast::ActionKind;
use ioa_lang::diagnostics::IntoDiagnostic;
use ioa_lang::ir::{AutomatonBody, Expr};
use ioa_lang::span::Span;
use layout::{repr_of, word_of, Fins, Layout, Unsupported};
use lower::Lower;
use pack::Packing;
use std::cell::RefCell;
use sym_tree::SymTree;
use unchanged::Unchanged;

/// Numbers the compiled models (from 1), so that a thread's buffers of one model's state are
/// never read as another's.
static NEXT_MODEL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

thread_local! {
    /// Whether models compiled by this thread get native code (see [`with_word_code`]).
    static NATIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Runs `f` with native code off for the models this thread compiles in it: their
/// expressions are walked as word code, the reference the native code is tested against
/// (`--engine words`).
pub fn with_word_code<T>(f: impl FnOnce() -> T) -> T {
    let before = NATIVE.with(|n| n.replace(false));
    let result = f();
    NATIVE.with(|n| n.set(before));
    result
}

/// A compiled state: the words of its variables.
pub type Words = Box<[i64]>;

pub use pack::Packed;

/// The bits an `Int` or `Nat` takes in a packed state until a value needs more
/// ([`CompiledModel::with_wide_integers`]): −32,768 to 32,767.
pub const NARROW_INT_BITS: u32 = 16;

/// One transition case of an action.
struct Case {
    /// `const` arguments: local `k` must equal the expression.
    const_args: Vec<(u32, Code)>,
    /// The transition's `where` clause, and where it is written.
    where_clause: Option<(Code, Span)>,
    /// Whether the `const` arguments and the `where` clause read no state (they are then
    /// decided once per instance, see [`Live`]).
    stateless: bool,
    /// The precondition conjuncts.
    guards: Vec<Code>,
    /// Where each conjunct of `guards` is written (how [`CompiledModel::false_conjunct`] names
    /// one).
    guard_spans: Vec<Span>,
    /// How many leading precondition conjuncts read no state (a flattened composite's
    /// participation conditions): decided once per instance with the `where` clause.
    stateless_guards: usize,
    /// The effect.
    eff: Vec<Stmt>,
    /// Whether the effect has a `choose` (its successors are every resolution of it).
    chooses: bool,
    /// Whether the case applies, as one native function (`native.rs`): with the `const`
    /// arguments, `where` clause and every precondition conjunct (`[0]`), or only the
    /// conjuncts after the stateless ones (`[1]`, for instances that are known to pass
    /// those). `None` with word code.
    applies: [Option<native::Conjunction>; 2],
}

/// An action: whether the automaton takes part with given arguments, and its cases.
struct Action {
    /// Fixed-parameter checks and the signature's `where` clause.
    takes_part: Vec<Code>,
    /// Whether those read no state (they are then decided once per instance, see
    /// [`CompiledModel::live`]).
    stateless: bool,
    /// The transitions, in declaration order (the first enabled one is taken).
    cases: Vec<Case>,
    /// Input actions are always enabled (with no effect when no case is).
    input: bool,
}

/// An instance as every state tries it: what could be decided once, from its arguments, is.
struct Live {
    /// The instance.
    instance: u32,
    /// Whether its `takes_part` checks are known to hold (they read no state and held).
    takes_part: bool,
    /// Its action's cases that may apply, by position; those whose `const` arguments,
    /// `where` clause and leading stateless precondition conjuncts read no state are known to
    /// hold them.
    cases: Box<[(u16, bool)]>,
    /// With one case: its native test function (`Case::applies`), here so that the search
    /// reaches it without going through the action and case.
    native: Option<native::Handle>,
    /// Whether the instance is enabled exactly when `native` holds (its `takes_part` checks
    /// are known to hold and it is not an input, which is always enabled): then the search
    /// tests it before anything else, since most instances are disabled in most states.
    /// Only instances of at most [`SCREEN_ARGS`] arguments are screened.
    screened: bool,
    /// The instance's arguments, padded with zeros (when screened): the test copies all
    /// [`SCREEN_ARGS`] words into the locals at once, which costs less than copying exactly
    /// the arguments (locals past them are scratch the code writes before reading).
    args: [i64; SCREEN_ARGS],
}

/// How the search tries the instances of [`CompiledModel::live`] in every state, in order.
enum Try {
    /// One instance (its position in `live`).
    One(u32),
    /// The instances `live[start..start + len]` (at most [`native::SCREEN_RUN`]), each
    /// enabled exactly when its test function holds: one generated function tests them all
    /// (bit `i` for `live[start + i]`), and only those it finds enabled are stepped.
    Run {
        start: u32,
        len: u32,
        screen: native::Screen,
    },
}

/// The runs of consecutive instances that can be screened together (`screenable`: the
/// position in `lists` of each one's tests), as [`Try`]s; the others one by one.
fn screen_runs(
    live: &[Live],
    screenable: &[Option<usize>],
    lists: &[Vec<native::Test>],
    instances: &[Instance],
) -> Vec<Try> {
    // Maximal stretches of screenable instances, cut at SCREEN_RUN.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut k = 0;
    while k < live.len() {
        let start = k;
        while k < live.len() && screenable[k].is_some() && k - start < native::SCREEN_RUN {
            k += 1;
        }
        if k - start >= 2 {
            runs.push((start, k - start));
        }
        if k == start {
            k += 1;
        }
    }
    let specs: Vec<Vec<(&[native::Test], &[i64])>> = runs
        .iter()
        .map(|&(start, len)| {
            (start..start + len)
                .map(|i| {
                    let tests = &lists[screenable[i].expect("screenable")][..];
                    (tests, &instances[live[i].instance as usize].args[..])
                })
                .collect()
        })
        .collect();
    let screens = native::compile_screens(&specs);
    let mut tries = Vec::new();
    let mut k = 0;
    for ((start, len), screen) in runs.into_iter().zip(screens) {
        tries.extend((k..start).map(|i| Try::One(i as u32)));
        match screen {
            Some(screen) => tries.push(Try::Run {
                start: start as u32,
                len: len as u32,
                screen,
            }),
            None => tries.extend((start..start + len).map(|i| Try::One(i as u32))),
        }
        k = start + len;
    }
    tries.extend((k..live.len()).map(|i| Try::One(i as u32)));
    tries
}

/// How many arguments a screened instance may have ([`Live::screened`]).
const SCREEN_ARGS: usize = 4;

/// An action instance: the action and its argument words.
struct Instance {
    action: usize,
    args: Vec<i64>,
}

/// A primitive automaton compiled for exploration.
pub struct CompiledModel<'m, 's> {
    fins: Fins<'m, 's>,
    layout: Layout,
    /// How states are packed: the search holds them so ([`Packed`]), code runs on words.
    packing: Packing,
    /// This model's number, which tells its thread-local buffers from another model's.
    id: u64,
    starts: Vec<(MachineStep, Packed)>,
    /// The start states' words, to pack them again when the packing widens.
    start_words: Vec<Words>,
    actions: Vec<Action>,
    instances: Vec<Instance>,
    /// The instances tried in every state, in order.
    live: Vec<Live>,
    /// For each instance, its position in `live` (`u32::MAX`: not tried).
    live_at: Vec<u32>,
    /// How they are tried: each, or in screened runs.
    tries: Vec<Try>,
    /// The root's invariants: index in the spec, and code.
    invariants: Vec<(usize, Code)>,
    /// Locals any code needs.
    n_locals: usize,
    /// The symmetry, with how states are described to it.
    symmetry: Option<(Symmetry, SymTree)>,
    /// The automaton's parameter values.
    params: Vec<Value>,
    /// For a flattened composite: where each of the composite's state variables lives (flat
    /// slot, and the family index of its member).
    places: Option<Vec<(usize, Option<Value>)>>,
    /// The invariants known to hold in states whose checked parent differs only in words
    /// they do not read.
    unchanged: Unchanged,
    /// How many expressions run as machine code (`native.rs`); 0 with [`with_word_code`].
    native_functions: usize,
}

/// Why a model is not compiled: a sentence, and the construct's place when one is the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// The reason.
    pub reason: String,
    /// The construct that neither the word code nor the interpreter's evaluator takes.
    pub span: Option<ioa_lang::span::Span>,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

impl From<Refusal> for String {
    fn from(r: Refusal) -> String {
        r.reason
    }
}

impl From<String> for Refusal {
    fn from(reason: String) -> Refusal {
        Refusal { reason, span: None }
    }
}

/// How a flattened composite is compiled (see `flat.rs`): its start states, in the flat
/// layout but with the composite's steps, and the members of each family variable.
pub struct FlatStarts {
    /// The composite's start states with their steps, as flat states.
    pub starts: Vec<(MachineStep, Vec<Value>)>,
    /// For each flat state variable of a component family: its members' index values.
    pub members: Vec<(usize, Vec<Value>)>,
    /// For each of the composite's state variables (its machine's numbering): its flat slot
    /// and its member's family index.
    pub places: Vec<(usize, Option<Value>)>,
}

impl<'m, 's> CompiledModel<'m, 's> {
    /// The steps that build the start states, in order.
    pub fn start_steps(&self) -> impl Iterator<Item = &MachineStep> {
        self.starts.iter().map(|(step, _)| step)
    }

    /// How many of the model's expressions run as machine code (0: all are walked as word
    /// code).
    pub fn native_functions(&self) -> usize {
        self.native_functions
    }

    /// How many action instances the search tries in each state.
    pub fn instance_count(&self) -> usize {
        self.instances.len()
    }

    /// How many instances the search tests in runs, several at once (see `Try::Run`).
    pub fn screened_in_runs(&self) -> usize {
        self.tries
            .iter()
            .map(|t| match t {
                Try::One(_) => 0,
                Try::Run { len, .. } => *len as usize,
            })
            .sum()
    }

    /// Compiles `machine`, or says why it cannot be.
    pub fn new(machine: &'m Machine<'s>, symmetry: Option<Symmetry>) -> Result<Self, Refusal> {
        Self::build(machine, symmetry, None)
    }

    /// Compiles `machine`, with the start states and family members of a flattened composite
    /// when `flat` is given; or says why it cannot be, and where when a construct of the model
    /// is the reason.
    pub fn build(
        machine: &'m Machine<'s>,
        symmetry: Option<Symmetry>,
        flat: Option<FlatStarts>,
    ) -> Result<Self, Refusal> {
        lower::take_refused_at();
        Self::build_here(machine, symmetry, flat).map_err(|reason| Refusal {
            reason,
            span: lower::take_refused_at(),
        })
    }

    fn build_here(
        machine: &'m Machine<'s>,
        symmetry: Option<Symmetry>,
        flat: Option<FlatStarts>,
    ) -> Result<Self, Unsupported> {
        let spec = machine.spec;
        if machine.instances.len() != 1 || machine.instances[0].automaton != machine.root {
            return Err("composite automata are not compiled".into());
        }
        let root = &spec.automata[machine.root.0 as usize];
        let AutomatonBody::Primitive(prim) = &root.body else {
            return Err("composite automata are not compiled".into());
        };
        let mut fins = Fins::new(machine);
        let mut layout = Layout::new(&mut fins, &machine.instances[0].state_types)?;

        // Start states, from the interpreter.
        let places = flat.as_ref().map(|f| f.places.clone());
        let raw = match flat {
            Some(flat) => {
                for (slot, members) in &flat.members {
                    layout.set_members(&fins, *slot, members).ok_or(
                        "a component family's members are outside its index type's universe",
                    )?;
                }
                flat.starts
            }
            None => {
                let interpreted =
                    MachineModel::new(machine, None).map_err(|e| e.to_diagnostic().message)?;
                let mut raw = Vec::new();
                interpreted
                    .initial_states(&mut raw)
                    .map_err(|_| "building a start state failed".to_string())?;
                raw
            }
        };
        let mut starts = Vec::new();
        for (step, state) in raw {
            let words = layout
                .record_defaults(&state)
                .and_then(|()| layout.encode(&fins, &state))
                .ok_or("a start state has a value outside its type's universe")?;
            starts.push((step, words));
        }

        let params = machine.instances[0].params.clone();
        // Locals of the IR code; the inputs of interpreted code take slots above them.
        let ir_locals = root
            .actions
            .iter()
            .map(|a| a.n_locals)
            .chain(prim.transitions.iter().map(|t| t.n_locals))
            .chain(
                spec.invariants
                    .iter()
                    .filter(|i| i.automaton == machine.root)
                    .map(|i| i.n_locals),
            )
            .max()
            .unwrap_or(0)
            .max(
                machine
                    .actions
                    .iter()
                    .map(|a| a.param_types.len() as u32)
                    .max()
                    .unwrap_or(0),
            )
            + 1;
        let mut n_locals = 1usize;
        let mut actions = Vec::new();
        {
            let mut lower = Lower {
                fins: &mut fins,
                layout: &layout,
                params: &params,
                first_free_local: ir_locals,
            };
            for (a, sig) in root.actions.iter().enumerate() {
                let mut takes_part = Vec::new();
                let mut reads = interpreter::deps::Reads::default();
                for (k, p) in sig.params.iter().enumerate() {
                    if let Some(e) = &p.fixed {
                        takes_part.push(equals_local(&mut lower, k as u32, e)?);
                        reads.expr(e);
                    }
                }
                if let Some(w) = &sig.where_clause {
                    takes_part.push(lower.expr(w)?);
                    reads.expr(w);
                }
                let stateless = !reads.everything && reads.slots.is_empty();
                n_locals = n_locals.max(sig.n_locals as usize + 1);
                let mut cases = Vec::new();
                for t in prim.transitions.iter().filter(|t| t.action.0 as usize == a) {
                    let mut const_args = Vec::new();
                    let mut reads = interpreter::deps::Reads::default();
                    for (k, e) in &t.const_args {
                        const_args.push((*k, lower.expr(e)?));
                        reads.expr(e);
                    }
                    let where_clause = match &t.where_clause {
                        Some(w) => {
                            reads.expr(w);
                            Some((lower.expr(w)?, w.span))
                        }
                        None => None,
                    };
                    let mut guards = Vec::new();
                    let mut stateless_guards = 0;
                    for c in &t.pre {
                        guards.push(lower.expr(c)?);
                        let mut r = interpreter::deps::Reads::default();
                        r.expr(c);
                        if stateless_guards + 1 == guards.len()
                            && !r.everything
                            && r.slots.is_empty()
                        {
                            stateless_guards += 1;
                        }
                    }
                    cases.push(Case {
                        const_args,
                        where_clause,
                        stateless: !reads.everything && reads.slots.is_empty(),
                        guards,
                        guard_spans: t.pre.iter().map(|c| c.span).collect(),
                        stateless_guards,
                        eff: lower.stmts(&t.eff)?,
                        chooses: lower::stmts_choose(&t.eff),
                        applies: [None, None],
                    });
                    n_locals = n_locals.max(t.n_locals as usize + 1);
                }
                actions.push(Action {
                    takes_part,
                    stateless,
                    cases,
                    input: sig.kind == ActionKind::Input,
                });
            }
        }
        let mut invariants = Vec::new();
        for (k, inv) in spec.invariants.iter().enumerate() {
            if inv.automaton != machine.root {
                continue;
            }
            let mut lower = Lower {
                fins: &mut fins,
                layout: &layout,
                params: &params,
                first_free_local: ir_locals,
            };
            invariants.push((k, lower.expr(&inv.body)?));
            n_locals = n_locals.max(inv.n_locals as usize + 1);
        }
        let mut instances = Vec::new();
        for inst in action_instances(machine).map_err(|e| e.to_diagnostic().message)? {
            let types = &machine.actions[inst.action].param_types;
            let mut args = Vec::new();
            for (ty, v) in types.iter().zip(&inst.args) {
                let repr = repr_of(&mut fins, ty);
                args.push(
                    word_of(&fins, repr, v)
                        .ok_or("an action argument outside its type's universe")?,
                );
            }
            n_locals = n_locals.max(args.len() + 1);
            instances.push(Instance {
                action: inst.action,
                args,
            });
        }
        // What reads no state is decided here, once per instance: whether the automaton takes
        // part, and which cases' `const` arguments and `where` clauses hold.
        let mut live = Vec::new();
        {
            let cx = Cx {
                fins: &fins,
                layout: &layout,
                params: &params,
                choices: None,
            };
            let zero = vec![0i64; layout.words];
            let mut locals = vec![0i64; n_locals.max(ir_locals as usize + 1)];
            // `Some(b)`: decided; `None`: to be decided in each state (a fault is met there).
            let all_hold = |codes: &mut dyn Iterator<Item = (&Code, Option<u32>)>,
                            locals: &mut Vec<i64>| {
                for (c, slot) in codes {
                    match eval(&Env { cx: &cx, st: &zero }, c, locals) {
                        Ok(w) => {
                            let holds = match slot {
                                Some(k) => w == locals[k as usize],
                                None => w != 0,
                            };
                            if !holds {
                                return Some(false);
                            }
                        }
                        Err(_) => return None,
                    }
                }
                Some(true)
            };
            for (k, inst) in instances.iter().enumerate() {
                let action = &actions[inst.action];
                locals[..inst.args.len()].copy_from_slice(&inst.args);
                let takes_part = if action.stateless {
                    match all_hold(
                        &mut action.takes_part.iter().map(|c| (c, None)),
                        &mut locals,
                    ) {
                        Some(false) => continue,
                        Some(true) => true,
                        None => false,
                    }
                } else {
                    false
                };
                let mut cases = Vec::new();
                for (c, case) in action.cases.iter().enumerate() {
                    if !case.stateless {
                        cases.push((c as u16, false));
                        continue;
                    }
                    let mut codes = case
                        .const_args
                        .iter()
                        .map(|(slot, e)| (e, Some(*slot)))
                        .chain(case.where_clause.iter().map(|(w, _)| (w, None)))
                        .chain(
                            case.guards[..case.stateless_guards]
                                .iter()
                                .map(|g| (g, None)),
                        );
                    match all_hold(&mut codes, &mut locals) {
                        Some(false) => {}
                        Some(true) => cases.push((c as u16, true)),
                        None => cases.push((c as u16, false)),
                    }
                }
                // A non-input instance none of whose cases can apply is never enabled.
                if cases.is_empty() && !action.input && takes_part {
                    continue;
                }
                live.push(Live {
                    instance: k as u32,
                    takes_part,
                    cases: cases.into(),
                    native: None,
                    screened: false,
                    args: [0; SCREEN_ARGS],
                });
            }
        }
        fins.tabulate();
        let mut native_functions = 0;
        let mut tries: Vec<Try> = (0..live.len() as u32).map(Try::One).collect();
        if NATIVE.with(std::cell::Cell::get) {
            let mut roots = Vec::new();
            for action in &mut actions {
                roots.extend(action.takes_part.iter_mut());
                for case in &mut action.cases {
                    roots.extend(case.const_args.iter_mut().map(|(_, c)| c));
                    roots.extend(case.where_clause.iter_mut().map(|(c, _)| c));
                    roots.extend(case.guards.iter_mut());
                    native::statement_roots(&mut case.eff, &mut roots);
                }
            }
            roots.extend(invariants.iter_mut().map(|(_, c)| c));
            native_functions = native::compile_roots(roots);
            // Then each case's tests as one function (over the compiled roots' boxed trees,
            // which stay where they are).
            // A case with no `const` argument, `where` clause or stateless conjunct has one
            // list for both.
            let same = |case: &Case| {
                case.const_args.is_empty()
                    && case.where_clause.is_none()
                    && case.stateless_guards == 0
            };
            let mut lists = Vec::new();
            // For each action and case, the positions in `lists` of its full and known tests.
            let mut index: Vec<Vec<[usize; 2]>> = Vec::new();
            for action in &actions {
                let mut at = Vec::new();
                for case in &action.cases {
                    let full_at = lists.len();
                    let mut full: Vec<native::Test> = case
                        .const_args
                        .iter()
                        .map(|(slot, c)| native::Test::Equals(*slot, c))
                        .collect();
                    full.extend(
                        case.where_clause
                            .iter()
                            .map(|(c, _)| native::Test::Holds(c)),
                    );
                    full.extend(case.guards.iter().map(native::Test::Holds));
                    lists.push(full);
                    if !same(case) {
                        let known = case.guards[case.stateless_guards..]
                            .iter()
                            .map(native::Test::Holds)
                            .collect();
                        lists.push(known);
                    }
                    at.push([full_at, lists.len() - 1]);
                }
                index.push(at);
            }
            let made = native::compile_conjunctions(&lists);
            // Each instance whose one case has a test function, with the tests it runs.
            let mut screenable: Vec<Option<usize>> = vec![None; live.len()];
            for (l, list) in live.iter_mut().zip(&mut screenable) {
                if let [(c, known)] = *l.cases {
                    let a = instances[l.instance as usize].action;
                    let at = index[a][c as usize][known as usize];
                    l.native = made[at].as_ref().map(native::Conjunction::handle);
                    let args = &instances[l.instance as usize].args;
                    let enabled_when_holds =
                        l.native.is_some() && l.takes_part && !actions[a].input;
                    l.screened = enabled_when_holds && args.len() <= SCREEN_ARGS;
                    if l.screened {
                        l.args[..args.len()].copy_from_slice(args);
                    }
                    *list = enabled_when_holds.then_some(at);
                }
            }
            tries = screen_runs(&live, &screenable, &lists, &instances);
            drop(lists);
            for (action, at) in actions.iter_mut().zip(&index) {
                for (case, [full, known]) in action.cases.iter_mut().zip(at) {
                    case.applies = [made[*full].clone(), made[*known].clone()];
                }
            }
        }
        let positions: Vec<usize> = invariants.iter().map(|(k, _)| *k).collect();
        let unchanged = Unchanged::new(spec, &positions, &layout, &fins);
        // Integers in 16 bits, unless a start state needs more.
        let mut packing = Packing::new(&fins, &layout, NARROW_INT_BITS);
        if starts.iter().any(|(_, w)| packing.pack(w).is_err()) {
            packing = Packing::new(&fins, &layout, 64);
        }
        let start_words = starts.iter().map(|(_, w)| w.clone()).collect();
        let starts = starts
            .into_iter()
            .map(|(step, words)| Ok((step, packing.pack(&words)?)))
            .collect::<Result<_, Fault>>()
            .map_err(|_| "a start state has a value outside its type's universe")?;
        let symmetry = symmetry.map(|s| {
            let tree = SymTree::new(&fins, fins.len(), &layout, &s);
            (s, tree)
        });
        let mut live_at = vec![u32::MAX; instances.len()];
        for (at, l) in live.iter().enumerate() {
            live_at[l.instance as usize] = at as u32;
        }
        Ok(CompiledModel {
            fins,
            layout,
            packing,
            id: NEXT_MODEL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            starts,
            start_words,
            actions,
            instances,
            live,
            live_at,
            tries,
            invariants,
            n_locals: n_locals.max(ir_locals as usize + 1),
            symmetry,
            params,
            places,
            unchanged,
            native_functions,
        })
    }

    /// What evaluation reads besides a state.
    fn cx(&self) -> Cx<'_, 'm, 's> {
        Cx {
            fins: &self.fins,
            layout: &self.layout,
            params: &self.params,
            choices: None,
        }
    }

    /// Whether some state words hold interned values (ids that mean nothing outside this run).
    pub fn has_interned_words(&self) -> bool {
        !self.layout.interned.is_empty()
    }

    /// How many distinct values have been interned so far.
    pub fn interned_values(&self) -> usize {
        self.fins.interner.len()
    }

    /// Words per state.
    pub fn words_per_state(&self) -> usize {
        self.layout.words
    }

    /// Words per state as the search stores it ([`Packed`]).
    pub fn packed_words_per_state(&self) -> usize {
        self.packing.words()
    }

    /// Whether integers take 64 bits in packed states (otherwise [`NARROW_INT_BITS`], and a
    /// wider value stops the search with [`Fault::WideInteger`]).
    pub fn wide_integers(&self) -> bool {
        self.packing.int_bits() == 64
    }

    /// This model with integers packed in 64 bits: what a search that stopped with
    /// [`Fault::WideInteger`] explores again with. It must not be called while a search runs.
    pub fn with_wide_integers(mut self) -> Self {
        self.packing = Packing::new(&self.fins, &self.layout, 64);
        for ((_, packed), words) in self.starts.iter_mut().zip(&self.start_words) {
            *packed = self
                .packing
                .pack(words)
                .expect("64-bit fields hold every word");
        }
        // A new number: no thread's buffer of the narrow packing is read as this one's.
        self.id = NEXT_MODEL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self
    }

    /// The compiled form of an interpreter state, if it has one (`None` too for an integer
    /// wider than the packing's, see [`CompiledModel::with_wide_integers`]).
    pub fn encode(&self, state: &[Value]) -> Option<Packed> {
        let words = self.layout.encode(&self.fins, state)?;
        self.packing.pack(&words).ok()
    }

    /// The interpreter's values of a compiled state.
    pub fn decode(&self, state: &[u64]) -> Vec<Value> {
        self.with_words(state, |words| self.layout.decode(&self.fins, words))
    }

    /// Runs `f` on the words of `state`, a successor of the state being expanded, unpacked
    /// into a second buffer of this thread (a call within `f` unpacks into one of its own).
    fn with_child_words<R>(&self, state: &[u64], f: impl FnOnce(&[i64]) -> R) -> R {
        CHILD.with(|c| match c.try_borrow_mut() {
            Ok(mut words) => {
                self.packing.unpack_into(state, &mut words);
                f(&words)
            }
            Err(_) => {
                let mut words = Vec::new();
                self.packing.unpack_into(state, &mut words);
                f(&words)
            }
        })
    }

    /// Runs `f` on the words of `state`, unpacked into one of this thread's two buffers, which
    /// keep the last two states unpacked: checking a state and then expanding it unpacks it
    /// once. A call within `f` unpacks into a buffer of its own.
    fn with_words<R>(&self, state: &[u64], f: impl FnOnce(&[i64]) -> R) -> R {
        let is = |u: &Unpacked| u.model == self.id && u.packed[..] == *state;
        // The two states unpacked last (partial-order reduction asks about a state and its
        // successors in turn): the one asked for, or the older one to unpack into.
        let mut last = UNPACKED.with(|u| {
            let u = &mut *u.borrow_mut();
            if is(&u[1]) {
                u.swap(0, 1);
            } else if !is(&u[0]) {
                u.swap(0, 1);
                u[0].model = 0;
            }
            std::mem::take(&mut u[0])
        });
        if !is(&last) {
            last.model = self.id;
            last.packed.clear();
            last.packed.extend_from_slice(state);
            self.packing.unpack_into(state, &mut last.words);
        }
        let result = f(&last.words);
        UNPACKED.with(|u| u.borrow_mut()[0] = last);
        result
    }

    /// The number of state variables of the machine compiled (of the composite, for a
    /// flattened one).
    pub fn machine_slots(&self) -> usize {
        self.places
            .as_ref()
            .map_or(self.layout.slots.len(), |p| p.len())
    }

    /// The interpreter's values of every state variable of the machine compiled (of the
    /// composite, for a flattened one).
    pub fn machine_values(&self, state: &[u64]) -> Option<Vec<Value>> {
        let flat = self.decode(state);
        let Some(places) = &self.places else {
            return Some(flat);
        };
        places
            .iter()
            .map(|(slot, index)| match (index, flat.get(*slot)?) {
                (None, v) => Some(v.clone()),
                (Some(k), Value::Array(a)) => Some(Value::array_get(a, k)),
                _ => None,
            })
            .collect()
    }

    /// The interpreter's value of state variable `slot` of the machine compiled (of the
    /// composite, for a flattened one).
    pub fn slot_value(&self, state: &[u64], slot: usize) -> Option<Value> {
        self.with_words(state, |words| self.slot_value_of(words, slot))
    }

    /// [`CompiledModel::slot_value`] of a state's words.
    fn slot_value_of(&self, words: &[i64], slot: usize) -> Option<Value> {
        let Some(places) = &self.places else {
            return (slot < self.layout.slots.len())
                .then(|| self.layout.decode_slot(&self.fins, slot, words));
        };
        let (flat, index) = places.get(slot)?;
        let value = self.layout.decode_slot(&self.fins, *flat, words);
        match index {
            None => Some(value),
            Some(k) => match value {
                Value::Array(a) => Some(Value::array_get(&a, k)),
                _ => None,
            },
        }
    }

    /// The span of the precondition conjunct (or transition `where` clause) that is false in
    /// `state` and disables instance `k`: of its first case whose `const` arguments match, the
    /// first conjunct that is false, in the order the interpreter tries them
    /// ([`interpreter::machine::Machine::enabled`]). `None` when the instance does not take
    /// part, is enabled, or its code faults. For a flattened composite the conjuncts are the
    /// controlling member's, with their spans (a participation condition is named by a span
    /// no conjunct of the composite has, which partial-order reduction does not know).
    pub fn false_conjunct(&self, state: &[u64], k: usize) -> Option<Span> {
        self.with_words(state, |words| self.false_conjunct_of(words, k))
    }

    /// Runs `f` with [`CompiledModel::false_conjunct`] of `state` for any instance, the state
    /// unpacked once.
    pub fn with_false_conjuncts<R>(
        &self,
        state: &[u64],
        f: impl FnOnce(&dyn Fn(usize) -> Option<Span>) -> R,
    ) -> R {
        self.with_words(state, |words| f(&|k| self.false_conjunct_of(words, k)))
    }

    /// [`CompiledModel::false_conjunct`] of a state's words.
    fn false_conjunct_of(&self, state: &[i64], k: usize) -> Option<Span> {
        // An instance no state tries (it never takes part, or no case can apply) is asked
        // about every condition, as the interpreter asks.
        let live = self.live.get(self.live_at[k] as usize);
        let inst = &self.instances[k];
        let action = &self.actions[inst.action];
        let all: Vec<(u16, bool)>;
        let cases = match live {
            Some(live) => &live.cases[..],
            None => {
                all = (0..action.cases.len() as u16).map(|c| (c, false)).collect();
                &all[..]
            }
        };
        SCRATCH.with(|s| {
            let locals = &mut s.borrow_mut().0;
            locals.resize(self.n_locals, 0);
            locals[..inst.args.len()].copy_from_slice(&inst.args);
            let cx = &self.cx();
            let holds = |code: &Code, locals: &mut [i64]| {
                eval(&Env { cx, st: state }, code, locals).map(|v| v != 0)
            };
            if !live.is_some_and(|l| l.takes_part) {
                for c in &action.takes_part {
                    if !holds(c, locals).ok()? {
                        return None;
                    }
                }
            }
            'cases: for &(c, known) in cases {
                let case = &action.cases[c as usize];
                let mut from = 0;
                if known {
                    from = case.stateless_guards;
                } else {
                    for (slot, e) in &case.const_args {
                        let v = eval(&Env { cx, st: state }, e, locals).ok()?;
                        if v != locals[*slot as usize] {
                            continue 'cases;
                        }
                    }
                    if let Some((w, span)) = &case.where_clause {
                        if !holds(w, locals).ok()? {
                            return Some(*span);
                        }
                    }
                }
                for (g, span) in case.guards[from..].iter().zip(&case.guard_spans[from..]) {
                    if !holds(g, locals).ok()? {
                        return Some(*span);
                    }
                }
                return None;
            }
            None
        })
    }

    /// Tests instance `k` and, if it is enabled, appends its successor (`screened_enabled`:
    /// a run's screen found its one case applies, which is then not tested again).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        cx: &Cx,
        live: &Live,
        state: &[i64],
        locals: &mut [i64],
        out: &mut impl Sink,
        screened_enabled: bool,
    ) -> Result<(), Fault> {
        let k = live.instance as usize;
        let inst = &self.instances[k];
        let action = &self.actions[inst.action];
        locals[..inst.args.len()].copy_from_slice(&inst.args);
        if !live.takes_part {
            for c in &action.takes_part {
                if eval(&Env { cx, st: state }, c, locals)? == 0 {
                    return Ok(());
                }
            }
        }
        let step = || MachineStep {
            instance: k as u32,
            choices: Box::new([]),
        };
        // Code never assigns the argument slots (effects assign state; quantifier and loop
        // variables have slots of their own), so one copy serves every case.
        'cases: for &(c, known) in live.cases.iter() {
            let case = &action.cases[c as usize];
            // A run's screen found that the one case applies (`Try::Run`).
            let native = match live.native {
                Some(_) if screened_enabled => Some(Ok(true)),
                Some(h) => h.holds(&Env { cx, st: state }, locals),
                None => case.applies[known as usize]
                    .as_ref()
                    .and_then(|f| f.holds(&Env { cx, st: state }, locals)),
            };
            match native {
                Some(applies) => {
                    if !applies? {
                        continue 'cases;
                    }
                }
                None => {
                    if !self.applies(cx, case, known, state, locals)? {
                        continue 'cases;
                    }
                }
            }
            if !case.chooses {
                exec(cx, &case.eff, out.start(state), locals)?;
                return out.finish(step());
            }
            // Every resolution of the effect's `choose`s, in the interpreter's order (the
            // interpreter's model enumerates the same scripts, see `crate::model`).
            let mut script: Vec<u32> = Vec::new();
            loop {
                let chooser = RefCell::new(Scripted::new(&script));
                let cx = Cx {
                    choices: Some(&chooser),
                    ..self.cx()
                };
                exec(&cx, &case.eff, out.start(state), locals)?;
                out.finish(MachineStep {
                    instance: k as u32,
                    choices: script.clone().into(),
                })?;
                match chooser.into_inner().next_script() {
                    Some(s) => script = s,
                    None => return Ok(()),
                }
            }
        }
        if action.input {
            out.start(state);
            out.finish(step())?;
        }
        Ok(())
    }
}

/// Where [`CompiledModel::step`] puts the successors it computes: each is computed in a buffer
/// the sink hands out, then taken or dropped.
trait Sink {
    /// A buffer holding a copy of `state`, for the next successor's effect to run on.
    fn start(&mut self, state: &[i64]) -> &mut [i64];
    /// The successor in the buffer is complete, reached by `step`; it fails when the
    /// successor cannot be packed (a word outside its type's universe).
    fn finish(&mut self, step: MachineStep) -> Result<(), Fault>;
}

/// Every successor, each in a state of its own ([`Model::successors`]).
struct Every<'a> {
    packing: &'a Packing,
    out: &'a mut Vec<(MachineStep, Packed)>,
    next: Vec<i64>,
}

impl Sink for Every<'_> {
    fn start(&mut self, state: &[i64]) -> &mut [i64] {
        self.next.clear();
        self.next.extend_from_slice(state);
        &mut self.next
    }

    fn finish(&mut self, step: MachineStep) -> Result<(), Fault> {
        self.out.push((step, self.packing.pack(&self.next)?));
        Ok(())
    }
}

/// The successors whose fingerprint `keep` accepts ([`Model::kept_successors`]): each is
/// computed in one reused buffer and packed only when kept, so a successor already visited
/// costs no allocation.
struct Kept<'a, 'm, 'u, 'l> {
    model: &'m CompiledModel<'u, 'l>,
    keep: &'a dyn Fn(Fingerprint) -> bool,
    out: &'a mut Vec<(Fingerprint, MachineStep, Packed)>,
    next: Vec<i64>,
    bytes: &'a mut Vec<u8>,
    generated: u64,
}

impl Sink for Kept<'_, '_, '_, '_> {
    fn start(&mut self, state: &[i64]) -> &mut [i64] {
        self.next.clear();
        self.next.extend_from_slice(state);
        &mut self.next
    }

    fn finish(&mut self, step: MachineStep) -> Result<(), Fault> {
        self.generated += 1;
        let fp = self.model.fingerprint_with(&self.next, self.bytes);
        if (self.keep)(fp) {
            let packed = self.model.packing.pack(&self.next)?;
            self.out.push((fp, step, packed));
        }
        Ok(())
    }
}

impl CompiledModel<'_, '_> {
    /// [`Model::fingerprint`], laying the state's bytes out in `bytes`.
    fn fingerprint_with(&self, state: &[i64], bytes: &mut Vec<u8>) -> Fingerprint {
        let interned = &self.layout.interned;
        let plain = if cfg!(target_endian = "little") && interned.is_empty() {
            // The words' bytes in memory are already their little-endian bytes.
            crate::fingerprint::hash_bytes(bytemuck::cast_slice(state))
        } else {
            bytes.clear();
            // An interned word is hashed as its value's hash, not its id (ids depend on the
            // order threads met the values; fingerprints must not).
            bytes.resize(state.len() * 8, 0);
            for (b, w) in bytes.chunks_exact_mut(8).zip(state.iter()) {
                b.copy_from_slice(&w.to_le_bytes());
            }
            if !interned.is_empty() {
                let ids = interned.iter().map(|&k| state[k as usize]);
                let mut at = interned.iter();
                self.fins.interner.each_hash(ids, |h| {
                    let k = *at.next().expect("one position per id") as usize;
                    // The word's 8 bytes become the low half of the hash, the high half goes
                    // after the words (the layout fixes where, so this is still injective).
                    bytes[k * 8..k * 8 + 8].copy_from_slice(&(h as u64).to_le_bytes());
                    bytes.extend_from_slice(&((h >> 64) as u64).to_le_bytes());
                });
            }
            crate::fingerprint::hash_bytes(bytes)
        };
        match &self.symmetry {
            None => plain,
            Some((s, tree)) => {
                s.canonical_fingerprint_by(plain, |b| tree.build(&self.fins, state, b))
            }
        }
    }

    /// Every successor of `state`, into `out`: the instances in [`CompiledModel::tries`]
    /// order, each run's screen first.
    fn generate(
        &self,
        state: &[i64],
        locals: &mut Vec<i64>,
        out: &mut impl Sink,
    ) -> Result<(), Fault> {
        locals.resize(self.n_locals.max(SCREEN_ARGS), 0);
        let cx = &self.cx();
        for t in &self.tries {
            let (start, len, screen) = match t {
                Try::One(k) => {
                    let live = &self.live[*k as usize];
                    if let (true, Some(h)) = (live.screened, &live.native) {
                        locals[..SCREEN_ARGS].copy_from_slice(&live.args);
                        // Disabled: no successor. Enabled or a fault: the step decides
                        // again.
                        if let Some(Ok(false)) = h.holds(&Env { cx, st: state }, locals) {
                            continue;
                        }
                    }
                    self.step(cx, live, state, locals, out, false)?;
                    continue;
                }
                Try::Run { start, len, screen } => (*start as usize, *len as usize, screen),
            };
            let run = &self.live[start..start + len];
            match screen.enabled(&Env { cx, st: state }, locals) {
                Some(mut mask) => {
                    while mask != 0 {
                        let i = mask.trailing_zeros() as usize;
                        mask &= mask - 1;
                        self.step(cx, &run[i], state, locals, out, true)?;
                    }
                }
                // A fault (or code that cannot run): each instance finds out for itself.
                None => {
                    for live in run {
                        self.step(cx, live, state, locals, out, false)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The first invariant `state` violates, evaluating all but those `known` to hold (bit
    /// `i` for the `i`-th of `self.invariants`).
    fn check_knowing(&self, state: &[i64], known: u128) -> Result<Option<usize>, Fault> {
        SCRATCH.with(|s| {
            let locals = &mut s.borrow_mut().0;
            locals.resize(self.n_locals, 0);
            let cx = &self.cx();
            for (i, (k, code)) in self.invariants.iter().enumerate() {
                if i < 128 && known & (1 << i) != 0 {
                    continue;
                }
                if eval(&Env { cx, st: state }, code, locals)? == 0 {
                    return Ok(Some(*k));
                }
            }
            self.unchanged.passed(state);
            Ok(None)
        })
    }

    /// Whether `case` applies in `state` (its `const` arguments, `where` clause and
    /// precondition, or only the conjuncts after the stateless ones when `known`), test by
    /// test: what a case's native function computes at once.
    fn applies(
        &self,
        cx: &Cx,
        case: &Case,
        known: bool,
        state: &[i64],
        locals: &mut [i64],
    ) -> Result<bool, Fault> {
        let mut guards = &case.guards[..];
        if known {
            guards = &guards[case.stateless_guards..];
        } else {
            for (slot, e) in &case.const_args {
                if eval(&Env { cx, st: state }, e, locals)? != locals[*slot as usize] {
                    return Ok(false);
                }
            }
            if let Some((w, _)) = &case.where_clause {
                if eval(&Env { cx, st: state }, w, locals)? == 0 {
                    return Ok(false);
                }
            }
        }
        for g in guards {
            if eval(&Env { cx, st: state }, g, locals)? == 0 {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// `local k = e`.
fn equals_local(lower: &mut Lower, k: u32, e: &Expr) -> Result<Code, Unsupported> {
    Ok(Code::Cmp(
        code::Cmp::Eq,
        Box::new(Code::Local(k)),
        Box::new(lower.expr(e)?),
    ))
}

thread_local! {
    /// Each worker's locals and byte buffer.
    static SCRATCH: RefCell<(Vec<i64>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
    /// Each worker's last two states unpacked, the latest first ([`CompiledModel::with_words`]).
    static UNPACKED: RefCell<[Unpacked; 2]> = RefCell::new(Default::default());
    /// Each worker's buffer for a successor's words ([`Model::storing`]).
    static CHILD: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

/// A packed state and its words, for the model numbered `model` (0: none).
#[derive(Default)]
struct Unpacked {
    model: u64,
    packed: Vec<u64>,
    words: Vec<i64>,
}

impl Model for CompiledModel<'_, '_> {
    type State = Packed;
    type Step = MachineStep;
    type Property = usize;
    type Error = Fault;

    fn initial_states(&self, out: &mut Vec<(MachineStep, Packed)>) -> Result<(), Fault> {
        out.extend(self.starts.iter().cloned());
        Ok(())
    }

    fn successors(
        &self,
        state: &Packed,
        out: &mut Vec<(MachineStep, Packed)>,
    ) -> Result<(), Fault> {
        self.with_words(state, |words| {
            SCRATCH.with(|s| {
                let locals = &mut s.borrow_mut().0;
                let mut every = Every {
                    packing: &self.packing,
                    out,
                    next: Vec::new(),
                };
                self.generate(words, locals, &mut every)
            })
        })
    }

    fn kept_successors(
        &self,
        state: &Packed,
        keep: &dyn Fn(Fingerprint) -> bool,
        _seen: Option<&(dyn Fn(Fingerprint) -> bool + Sync)>,
        out: &mut Vec<(Fingerprint, MachineStep, Packed)>,
    ) -> Result<u64, Fault> {
        self.with_words(state, |words| {
            SCRATCH.with(|s| {
                let (locals, bytes) = &mut *s.borrow_mut();
                let mut kept = Kept {
                    model: self,
                    keep,
                    out,
                    next: Vec::with_capacity(words.len()),
                    bytes,
                    generated: 0,
                };
                self.generate(words, locals, &mut kept)?;
                Ok(kept.generated)
            })
        })
    }

    fn check(&self, state: &Packed) -> Result<Option<usize>, Fault> {
        self.with_words(state, |words| self.check_knowing(words, 0))
    }

    fn check_stored(&self, state: &Packed, fp: Fingerprint) -> Result<Option<usize>, Fault> {
        self.with_words(state, |words| {
            self.check_knowing(words, self.unchanged.known(fp))
        })
    }

    fn storing(&self, parent: &Packed, child: &Packed, fp: Fingerprint) {
        if !self.unchanged.marks() {
            return;
        }
        self.with_words(parent, |parent| {
            self.with_child_words(child, |child| {
                self.unchanged.note_successor(parent, child, fp)
            })
        })
    }

    fn fingerprint(&self, state: &Packed) -> Fingerprint {
        // Mostly a successor's: unpacked apart, so the buffer of the state being expanded
        // (`with_words`) stays.
        self.with_child_words(state, |words| {
            SCRATCH.with(|s| self.fingerprint_with(words, &mut s.borrow_mut().1))
        })
    }
}
