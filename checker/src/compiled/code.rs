//! Compiled expressions and statements over word states, and their evaluation.
//!
//! [`Code`] is an expression tree with every name resolved to a word position or a local slot
//! and every type turned into the arithmetic its values need (strides, ranges, bit positions),
//! so evaluating it allocates nothing and never looks at a type or an interpreter value. It is
//! what `lower.rs` makes of the typed IR; see `layout.rs` for how values are words.
//!
//! Values of types without a word layout (sequences, maps, strings, reals, union values…) are
//! interned (`intern.rs`): their words are ids, and the operations on them are the
//! interpreter's own. An [`Interp`] node hands a piece of the IR to the interpreter's
//! evaluator, with the words it reads (computed here) turned into values, and turns the
//! result back into a word; so such values have exactly the interpreter's semantics, errors
//! included (an error is a [`Fault`], and the interpreter then reports it with its position).

use super::layout::{value_of_word, word_of, Fins, Layout, Listed, Repr};
use interpreter::error::{EvalResult, RunError};
use interpreter::eval::{Chooser, NoChoice, NoView, Scope};
use interpreter::exec::{update_path, Key};
use interpreter::value::Value;
use ioa_lang::span::Span;
use std::cell::RefCell;
use std::sync::Arc;

/// What evaluation reads besides the state and the locals: the types (and interned values),
/// the layout, and the automaton's parameters.
pub struct Cx<'a, 'm, 's> {
    /// The finite types and the interned values.
    pub fins: &'a Fins<'m, 's>,
    /// The state layout.
    pub layout: &'a Layout,
    /// The automaton's parameter values.
    pub params: &'a [Value],
    /// How an effect's `choose`s are resolved (the explorer's script of candidate indices);
    /// `None` outside effects, where a `choose` must have one candidate.
    pub choices: Option<&'a RefCell<dyn Chooser + 'a>>,
}

/// A state being read, with what evaluation reads besides it (one argument, so that the deep
/// recursion of [`eval`] passes its arguments in registers).
pub struct Env<'e, 'a, 'm, 's> {
    /// The rest.
    pub cx: &'e Cx<'a, 'm, 's>,
    /// The state's words.
    pub st: &'e [i64],
}

impl Cx<'_, '_, '_> {
    /// A scope for the interpreter's evaluator: no state (an [`Interp`] reads locals only), the
    /// automaton's parameters.
    fn scope(&self) -> Scope<'_> {
        let machine = self.fins.machine();
        Scope {
            spec: machine.spec,
            universe: machine.universe,
            state: &[],
            params: self.params,
            aux: &[],
            view: &NoView,
        }
    }

    #[inline]
    fn value(&self, repr: Repr, w: i64) -> Value {
        value_of_word(self.fins, repr, w)
    }

    #[inline]
    fn word(&self, repr: Repr, v: &Value) -> Eval<i64> {
        word_of(self.fins, repr, v).ok_or(Fault::Unrepresentable)
    }
}

/// Why evaluation stopped. Every fault sends the search back to the interpreter, which
/// either explores the state space itself or reports the error with its source position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// A value outside its type's carrier (an array index, a set element, a tuple field).
    Unrepresentable,
    /// Overflow, division by zero, or a negative `Nat`.
    Arithmetic,
    /// The value inside `nil`.
    Nil,
    /// An error of the interpreter's evaluation of an interned value (`head` of an empty
    /// sequence, a missing map key…).
    Interpreted,
    /// An `ensuring` predicate that is false after the effect (E0516).
    Ensuring,
    /// A read or write of a member outside a component family (E0515).
    NoMember,
    /// An integer outside the bits a packed state gives it (`pack.rs`): the search explores
    /// again with 64-bit integers, not with the interpreter.
    WideInteger,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            Fault::Unrepresentable => "a value outside its type's universe",
            Fault::Arithmetic => {
                "an arithmetic error (overflow, division by zero or a negative Nat)"
            }
            Fault::Nil => "`.val` of nil",
            Fault::Interpreted => {
                "an error in the evaluation of a sequence, map or other interned value"
            }
            Fault::Ensuring => "an `ensuring` predicate that does not hold",
            Fault::NoMember => "a read of a component family member that does not exist",
            Fault::WideInteger => "an integer wider than its packed field",
        })
    }
}

/// The result of evaluating an expression.
pub type Eval<T> = Result<T, Fault>;

/// From a word to a rank of a finite type: `rank = word - lo`, which must be below `card`.
#[derive(Debug, Clone, Copy)]
pub struct Conv {
    /// The least integer (0 for types other than `Int`).
    pub lo: i64,
    /// How many values.
    pub card: u64,
}

impl Conv {
    #[inline]
    fn rank(self, w: i64) -> Eval<u64> {
        self.rank_if_any(w).ok_or(Fault::Unrepresentable)
    }

    #[inline]
    fn rank_if_any(self, w: i64) -> Option<u64> {
        let r = w.wrapping_sub(self.lo) as u64;
        (r < self.card).then_some(r)
    }
}

/// Integer comparisons (and equality of any word).
#[derive(Debug, Clone, Copy)]
pub enum Cmp {
    /// `=`.
    Eq,
    /// `≠`.
    Ne,
    /// `<`.
    Lt,
    /// `≤`.
    Le,
    /// `>`.
    Gt,
    /// `≥`.
    Ge,
}

/// Integer arithmetic.
#[derive(Debug, Clone, Copy)]
pub enum Arith {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `div` (floor).
    Div,
    /// `mod` (non-negative).
    Mod,
    /// `min`.
    Min,
    /// `max`.
    Max,
}

/// Set operations.
#[derive(Debug, Clone, Copy)]
pub enum SetOp {
    /// `∪`.
    Union,
    /// `∩`.
    Intersect,
    /// `-`.
    Difference,
}

/// Comparisons of sets.
#[derive(Debug, Clone, Copy)]
pub enum SetCmp {
    /// `=`.
    Eq,
    /// `≠`.
    Ne,
    /// `⊆`.
    SubsetEq,
    /// `⊂`.
    Subset,
}

/// What a quantifier or loop variable ranges over; the variable's word is `lo + rank`.
#[derive(Debug)]
pub enum Domain {
    /// Every value of a finite type.
    All(Conv),
    /// The elements of a small set.
    Members(Box<Code>, i64),
    /// The elements of a bit set.
    BigMembers(Big, i64),
    /// These words, in this order (the carrier of a type without ranks).
    Words(Vec<i64>),
    /// The integers of a finite `Int`/`Nat` carrier within bounds the guard gives
    /// (`0 ≤ k ∧ k < size(s) ⇒ …`): each `(code, offset)` of `lows` is an inclusive lower
    /// bound `code + offset`, of `highs` an inclusive upper one. The guard is still evaluated
    /// for every integer visited, so skipping the others changes no result; a bound whose
    /// code faults is left out.
    Range {
        /// The carrier.
        conv: Conv,
        /// Lower bounds.
        lows: Bounds,
        /// Upper bounds.
        highs: Bounds,
    },
    /// The elements of a collection the interpreter computes, in its order, as words.
    Values {
        /// The collection.
        coll: Box<Interp>,
        /// How an element is held.
        repr: Repr,
        /// A multiset's elements as often as it holds them (`for` loops), else once.
        repeat: bool,
    },
}

/// Integer bounds of a [`Domain::Range`]: each a code and the offset that makes it inclusive.
pub type Bounds = Vec<(Code, i64)>;

/// A piece of the IR evaluated by the interpreter. Its expression reads locals and the
/// automaton's parameters only: every state variable it reads, and every local it does not
/// bind itself, is an input, computed by the word code (or decoded from the state) before the
/// interpreter runs.
#[derive(Debug)]
pub struct Interp {
    /// The expression.
    pub expr: ioa_lang::ir::Expr,
    /// The values it reads, by local slot.
    pub inputs: Vec<Input>,
    /// Local slots it uses.
    pub n_locals: u32,
    /// Its id for the table of remembered results (`compiled/interp_memo.rs`).
    pub id: u64,
    /// Whether its results are remembered: it reads few enough words (at most 16).
    pub memo: bool,
    /// Whether it holds a `choose` (inside an effect the explorer's script resolves it, so
    /// the result is not a function of the inputs alone there).
    pub chooses: bool,
    /// The span of its one `choose` when it holds exactly one and evaluating the node always
    /// runs it exactly once (not under a quantifier, a conditional or the right of `∧`, `∨`,
    /// `⇒`; no `det` block): then a result per candidate is a function of the inputs.
    pub choice: Option<Span>,
}

/// A value an [`Interp`] reads.
#[derive(Debug)]
pub enum Input {
    /// A word, turned into a value.
    Word {
        /// The local slot.
        local: u32,
        /// The word.
        code: Code,
        /// How the word holds the value.
        repr: Repr,
    },
    /// A whole state variable (an array or a bit set).
    Slot {
        /// The local slot.
        local: u32,
        /// The state variable.
        slot: u32,
    },
}

thread_local! {
    /// Each worker's spare local arrays for [`Interp`] evaluations (a stack: inputs are
    /// computed, possibly by nested evaluations, before the interpreter runs).
    static VALUES: RefCell<Vec<Vec<Value>>> = const { RefCell::new(Vec::new()) };
}

impl Interp {
    /// The value of the expression in state `st`.
    pub fn value(&self, env: &Env, locals: &mut [i64]) -> Eval<Value> {
        self.value_from(env, locals, None, None)
    }

    /// The word of the expression's value in state `st`, from the table of remembered
    /// results when the node is remembered and has met these inputs before. Inside an effect,
    /// where the explorer's script resolves a `choose` the node holds, a result is remembered
    /// per candidate, and only for a node whose one `choose` runs exactly once ([`Interp::choice`]).
    pub fn word(&self, env: &Env, repr: Repr, locals: &mut [i64]) -> Eval<i64> {
        let chooser = env.cx.choices.filter(|_| self.chooses);
        if !self.memo || (chooser.is_some() && self.choice.is_none()) {
            let v = self.value(env, locals)?;
            return env.cx.word(repr, &v);
        }
        super::interp_memo::with_key(self.id, |key| {
            for input in &self.inputs {
                match input {
                    Input::Word { code, .. } => key.push(eval(env, code, locals)?),
                    Input::Slot { slot, .. } => {
                        let (offset, len) = env.cx.layout.slot_words(env.cx.fins, *slot);
                        key.extend(&env.st[offset..offset + len]);
                    }
                }
            }
            match (chooser, self.choice) {
                (Some(chooser), Some(span)) => {
                    self.word_choosing(env, repr, locals, key, chooser, span)
                }
                _ => {
                    if let Some(w) = key.get() {
                        return Ok(w);
                    }
                    let v = self.value_from(env, locals, Some(key.inputs()), None)?;
                    let w = env.cx.word(repr, &v)?;
                    key.insert(w);
                    Ok(w)
                }
            }
        })
    }

    /// [`Interp::word`] for a node whose one `choose` (at `span`) the effect's `chooser`
    /// resolves: the chooser takes its position among the candidates exactly as when the
    /// interpreter evaluates the node, and the result for that position is remembered.
    fn word_choosing(
        &self,
        env: &Env,
        repr: Repr,
        locals: &mut [i64],
        key: &super::interp_memo::Key,
        chooser: &RefCell<dyn Chooser + '_>,
        span: Span,
    ) -> Eval<i64> {
        if let Some(n) = key.candidates() {
            let Some(k) = chooser.borrow_mut().choose_index(span, n) else {
                let v = self.value(env, locals)?;
                return env.cx.word(repr, &v);
            };
            let k = k.map_err(|_| Fault::Interpreted)?;
            if let Some(w) = key.chosen(k) {
                return Ok(w);
            }
            // The choice is made: evaluate with it forced.
            let mut forced = Forced { k, n };
            let v = self.value_from(env, locals, Some(key.inputs()), Some(&mut forced))?;
            let w = env.cx.word(repr, &v)?;
            key.insert_chosen(n, k, w);
            return Ok(w);
        }
        let mut probe = Probe {
            inner: chooser,
            taken: Vec::new(),
            by_index: true,
        };
        let v = self.value_from(env, locals, Some(key.inputs()), Some(&mut probe))?;
        let w = env.cx.word(repr, &v)?;
        if let ([(k, n)], true) = (probe.taken.as_slice(), probe.by_index) {
            key.insert_chosen(*n, *k, w);
        }
        Ok(w)
    }

    /// The value of the expression; `words`, when given, are the input words already
    /// computed ([`Interp::word`]'s key: a word per `Word` input, a slot's words per `Slot`);
    /// `chooser`, when given, resolves its `choose`s instead of the effect's.
    fn value_from(
        &self,
        env: &Env,
        locals: &mut [i64],
        words: Option<&[i64]>,
        chooser: Option<&mut dyn Chooser>,
    ) -> Eval<Value> {
        let mut values = VALUES.with(|v| v.borrow_mut().pop()).unwrap_or_default();
        // The array only grows: every input is written before the interpreter runs and every
        // local the expression binds is set by it before it is read, so what an earlier
        // evaluation left there is never read (filling and emptying the whole array on every
        // call cost LCR's compiled search a sixth of its time). The inputs are let go after.
        if values.len() < self.n_locals as usize {
            values.resize(self.n_locals as usize, Value::Nil);
        }
        let result = self.value_with(env, locals, &mut values, words, chooser);
        for input in &self.inputs {
            let (Input::Word { local, .. } | Input::Slot { local, .. }) = input;
            values[*local as usize] = Value::Nil;
        }
        VALUES.with(|v| v.borrow_mut().push(values));
        result
    }

    fn value_with(
        &self,
        env: &Env,
        locals: &mut [i64],
        values: &mut [Value],
        mut words: Option<&[i64]>,
        chooser: Option<&mut dyn Chooser>,
    ) -> Eval<Value> {
        let (cx, st) = (env.cx, env.st);
        for input in &self.inputs {
            match input {
                Input::Word { local, code, repr } => {
                    let w = match &mut words {
                        Some(ws) => {
                            let w = ws[0];
                            *ws = &ws[1..];
                            w
                        }
                        None => eval(env, code, locals)?,
                    };
                    values[*local as usize] = cx.value(*repr, w);
                }
                Input::Slot { local, slot } => {
                    if let Some(ws) = &mut words {
                        // The slot's words were read from `st` itself.
                        *ws = &ws[cx.layout.slot_words(cx.fins, *slot).1..];
                    }
                    values[*local as usize] =
                        cx.layout
                            .decode_slot_for_reading(cx.fins, *slot as usize, st)
                }
            }
        }
        let result = match (chooser, cx.choices) {
            (Some(chooser), _) => cx.scope().eval(&self.expr, values, chooser),
            (None, Some(choices)) => {
                cx.scope()
                    .eval(&self.expr, values, &mut *choices.borrow_mut())
            }
            (None, None) => cx.scope().eval(&self.expr, values, &mut NoChoice),
        };
        result.map_err(|_| Fault::Interpreted)
    }
}

/// Resolves a node's one `choose` to the candidate the effect's chooser already took.
struct Forced {
    /// Its position.
    k: usize,
    /// How many candidates there were when it was taken.
    n: usize,
}

impl Chooser for Forced {
    fn choose(&mut self, span: Span, candidates: &[Value]) -> EvalResult<Value> {
        match candidates.get(self.k) {
            Some(v) if candidates.len() == self.n => Ok(v.clone()),
            _ => Err(RunError::UnresolvedChoice { span }),
        }
    }
}

/// Passes a node's `choose`s to the effect's chooser, noting the positions it took.
struct Probe<'c, 'x> {
    inner: &'c RefCell<dyn Chooser + 'x>,
    /// Each choice made: the position and the number of candidates.
    taken: Vec<(usize, usize)>,
    /// Whether every choice was made by position.
    by_index: bool,
}

impl Chooser for Probe<'_, '_> {
    fn choose(&mut self, span: Span, candidates: &[Value]) -> EvalResult<Value> {
        let picked = self.inner.borrow_mut().choose_index(span, candidates.len());
        match picked {
            Some(k) => {
                let k = k?;
                self.taken.push((k, candidates.len()));
                candidates
                    .get(k)
                    .cloned()
                    .ok_or(RunError::UnresolvedChoice { span })
            }
            None => {
                self.by_index = false;
                self.inner.borrow_mut().choose(span, candidates)
            }
        }
    }

    fn offered(&mut self) -> Option<Value> {
        let offer = self.inner.borrow_mut().offered();
        self.by_index &= offer.is_none();
        offer
    }

    fn records_offers(&self) -> bool {
        self.inner.borrow().records_offers()
    }

    fn took_offer(&mut self, index: Option<usize>) {
        self.inner.borrow_mut().took_offer(index)
    }
}

/// A word-valued expression.
#[derive(Debug)]
pub enum Code {
    /// A constant.
    Const(i64),
    /// A local (action parameter, quantified or loop variable).
    Local(u32),
    /// A state word.
    Word(u32),
    /// An entry of an array state variable.
    ArrayGet {
        /// The first entry's position.
        base: u32,
        /// The index.
        index: Box<Code>,
        /// Index word to rank.
        conv: Conv,
    },
    /// An entry of a component family's variable (`P.x[i]` for `P[i].x`), which must be a
    /// member's.
    MemberGet {
        /// The first entry's position.
        base: u32,
        /// The index.
        index: Box<Code>,
        /// Index word to rank.
        conv: Conv,
        /// The ranks that are members.
        members: Arc<Vec<bool>>,
    },
    /// `¬`.
    Not(Box<Code>),
    /// Integer negation.
    Neg(Box<Code>),
    /// `∧` (short-circuit).
    And(Box<Code>, Box<Code>),
    /// `∨` (short-circuit).
    Or(Box<Code>, Box<Code>),
    /// `⇒` (short-circuit).
    Implies(Box<Code>, Box<Code>),
    /// A comparison.
    Cmp(Cmp, Box<Code>, Box<Code>),
    /// `a = b` (`a ≠ b` with `ne`) of any type: words are canonical, so equal words are
    /// equal values; a tuple, `embed` or set literal built outside its type's universe equals
    /// no value that has a word.
    Eq {
        /// `≠`.
        ne: bool,
        /// The left operand.
        a: Box<Code>,
        /// The right operand.
        b: Box<Code>,
    },
    /// Arithmetic.
    Arith(Arith, Box<Code>, Box<Code>),
    /// `abs`.
    Abs(Box<Code>),
    /// A tuple from its fields.
    Tuple {
        /// Each field, its conversion to a rank, and its stride.
        fields: Vec<(Code, Conv, u64)>,
        /// The list, for listed tuple types.
        listed: Option<Arc<Listed>>,
    },
    /// A tuple's field.
    Field {
        /// The tuple.
        tuple: Box<Code>,
        /// The list, for listed tuple types.
        listed: Option<Arc<Listed>>,
        /// The field's stride.
        stride: u64,
        /// The field type's values.
        card: u64,
        /// The field type's least integer (0 unless `Int`).
        lo: i64,
    },
    /// The value inside a `Null` (fault on `nil`); `lo` of the inner type.
    NullVal(Box<Code>, i64),
    /// `embed(x)`.
    Embed(Box<Code>, Conv),
    /// `if c then a else b`.
    Cond(Box<Code>, Box<Code>, Box<Code>),
    /// A small set from its elements.
    SetLit(Vec<Code>, Conv),
    /// A small set operation.
    SetOp(SetOp, Box<Code>, Box<Code>),
    /// `insert(x, S)` on a small set.
    SetInsert(Box<Code>, Conv, Box<Code>),
    /// `delete(x, S)` on a small set.
    SetDelete(Box<Code>, Conv, Box<Code>),
    /// `x ∈ S` on a small set.
    SetHas(Box<Code>, Conv, Box<Code>),
    /// `size(S)` of a small set.
    SetSize(Box<Code>),
    /// A comparison of small sets (bit masks).
    SetCmp(SetCmp, Box<Code>, Box<Code>),
    /// `x ∈ S` on a bit set.
    BigHas(Box<Code>, Conv, Big),
    /// `size(S)` of a bit set.
    BigSize(Big),
    /// A comparison of bit sets.
    BigCmp(SetCmp, Big, Big),
    /// `∀` / `∃`.
    Quant {
        /// `∃` (else `∀`).
        exists: bool,
        /// The variable's local slot.
        var: u32,
        /// What it ranges over.
        domain: Domain,
        /// The body.
        body: Box<Code>,
    },
    /// A value the interpreter computes, as a word.
    Interp(Box<Interp>, Repr),
    /// A tree with its machine code (`native.rs`), made after lowering.
    Native(Box<super::native::NativeCode>),
}

/// The word an [`Stmt::Update`] changes.
#[derive(Debug)]
pub enum Target {
    /// A one-word state variable.
    Word(u32),
    /// An entry of an array state variable.
    Entry {
        /// The first entry's position.
        base: u32,
        /// The index.
        index: Code,
        /// Index word to rank.
        conv: Conv,
        /// The ranks that are members, for a component family's variable.
        members: Option<Arc<Vec<bool>>>,
    },
}

/// A step into a place.
#[derive(Debug)]
pub enum Step {
    /// A tuple field.
    Field(u32),
    /// An array, map or sequence entry, with how the key's word holds it.
    Index(Code, Repr),
}

/// A set over a type with more than 63 values, as a bit set.
#[derive(Debug)]
pub enum Big {
    /// A state variable.
    Var {
        /// The first word.
        offset: u32,
        /// How many words.
        words: u32,
    },
    /// A literal (`{}` or `{a, b}`).
    Lit(Vec<Code>, Conv, u32),
    /// `insert(x, S)`.
    Insert(Box<Code>, Conv, Box<Big>),
    /// `delete(x, S)`.
    Delete(Box<Code>, Conv, Box<Big>),
    /// A set operation.
    Op(SetOp, Box<Big>, Box<Big>),
}

/// A compiled statement.
#[derive(Debug)]
pub enum Stmt {
    /// `x := e` for a one-word variable.
    SetWord {
        /// Its position.
        offset: u32,
        /// The value.
        value: Code,
        /// Whether it is a `Nat`.
        nat: bool,
    },
    /// `a[i] := e`.
    SetArray {
        /// The first entry's position.
        base: u32,
        /// The index.
        index: Code,
        /// Index word to rank.
        conv: Conv,
        /// The value.
        value: Code,
        /// Whether entries are `Nat`s.
        nat: bool,
        /// The ranks that are members, for a component family's variable.
        members: Option<Arc<Vec<bool>>>,
    },
    /// An assignment into a place inside a word (`m[k] := e` for a map, `t.f := e`,
    /// `a[i].f := e`): the word's value is updated by the interpreter's own place update.
    Update {
        /// The word updated.
        target: Target,
        /// How it holds its value.
        root: Repr,
        /// The steps into it.
        path: Vec<Step>,
        /// The value assigned.
        value: Code,
        /// How the value's word holds it.
        repr: Repr,
    },
    /// A whole state variable (an array, a bit set) assigned a value the interpreter computes.
    SetSlot {
        /// The state variable.
        slot: u32,
        /// The value.
        value: Box<Interp>,
    },
    /// A local assigned (the pre-state values an `ensuring` clause reads).
    SetLocal {
        /// The local's slot.
        slot: u32,
        /// The value.
        value: Code,
    },
    /// An `ensuring` predicate: false stops with [`Fault::Ensuring`].
    Ensure(Code),
    /// `S := e` for a bit set variable.
    SetBig {
        /// The first word.
        offset: u32,
        /// The value.
        value: Big,
    },
    /// `if … elseif … else … fi`.
    If {
        /// Conditions and branches.
        branches: Vec<(Code, Vec<Stmt>)>,
        /// The `else` branch.
        otherwise: Vec<Stmt>,
    },
    /// `for x in S` / `for x: T where P`, in value order over a snapshot of the domain.
    For {
        /// The variable's local slot.
        var: u32,
        /// What it ranges over.
        domain: Domain,
        /// The order to visit values in, as a sort key per rank, when it is not rank order.
        order: Option<Arc<Vec<u32>>>,
        /// The `where` condition.
        cond: Option<Code>,
        /// The body.
        body: Vec<Stmt>,
    },
}

#[inline]
fn truth(w: i64) -> bool {
    w != 0
}

/// Evaluates a word expression in state `st`: runs its machine code when it has some (a
/// root compiled by `native.rs`), else walks the tree.
#[inline]
pub fn eval(env: &Env, c: &Code, locals: &mut [i64]) -> Eval<i64> {
    match c {
        Code::Native(n) => n.eval(env, locals),
        _ => walk(env, c, locals),
    }
}

/// Evaluates a word expression in state `st` by walking its tree.
pub fn walk(env: &Env, c: &Code, locals: &mut [i64]) -> Eval<i64> {
    let st = env.st;
    Ok(match c {
        Code::Const(k) => *k,
        Code::Local(k) => locals[*k as usize],
        Code::Word(o) => st[*o as usize],
        Code::ArrayGet { base, index, conv } => {
            let r = conv.rank(eval(env, index, locals)?)?;
            st[*base as usize + r as usize]
        }
        Code::MemberGet {
            base,
            index,
            conv,
            members,
        } => {
            let r = conv.rank(eval(env, index, locals)?)?;
            if !members[r as usize] {
                return Err(Fault::NoMember);
            }
            st[*base as usize + r as usize]
        }
        Code::Not(a) => !truth(eval(env, a, locals)?) as i64,
        Code::Neg(a) => eval(env, a, locals)?
            .checked_neg()
            .ok_or(Fault::Arithmetic)?,
        Code::And(a, b) => (truth(eval(env, a, locals)?) && truth(eval(env, b, locals)?)) as i64,
        Code::Or(a, b) => (truth(eval(env, a, locals)?) || truth(eval(env, b, locals)?)) as i64,
        Code::Implies(a, b) => {
            (!truth(eval(env, a, locals)?) || truth(eval(env, b, locals)?)) as i64
        }
        Code::Cmp(op, a, b) => {
            let (x, y) = (eval(env, a, locals)?, eval(env, b, locals)?);
            (match op {
                Cmp::Eq => x == y,
                Cmp::Ne => x != y,
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                Cmp::Ge => x >= y,
            }) as i64
        }
        Code::Eq { ne, a, b } => {
            let equal = match (eval_built(env, a, locals)?, eval_built(env, b, locals)?) {
                (Some(x), Some(y)) => x == y,
                (None, None) => return Err(Fault::Unrepresentable),
                _ => false,
            };
            (equal != *ne) as i64
        }
        Code::Arith(op, a, b) => {
            let (x, y) = (eval(env, a, locals)?, eval(env, b, locals)?);
            match op {
                Arith::Add => x.checked_add(y),
                Arith::Sub => x.checked_sub(y),
                Arith::Mul => x.checked_mul(y),
                Arith::Div => x.checked_div_euclid(y),
                Arith::Mod => x.checked_rem_euclid(y),
                Arith::Min => Some(x.min(y)),
                Arith::Max => Some(x.max(y)),
            }
            .ok_or(Fault::Arithmetic)?
        }
        Code::Abs(a) => eval(env, a, locals)?
            .checked_abs()
            .ok_or(Fault::Arithmetic)?,
        Code::Tuple { fields, listed } => {
            let mut r = 0u64;
            for (f, conv, stride) in fields {
                r += conv.rank(eval(env, f, locals)?)? * stride;
            }
            match listed {
                None => r as i64,
                Some(l) => match l.to_rank[r as usize] {
                    u32::MAX => return Err(Fault::Unrepresentable),
                    k => k as i64,
                },
            }
        }
        Code::Field {
            tuple,
            listed,
            stride,
            card,
            lo,
        } => {
            let t = eval(env, tuple, locals)? as u64;
            let p = match listed {
                None => t,
                Some(l) => l.to_product[t as usize],
            };
            lo + ((p / stride) % card) as i64
        }
        Code::NullVal(a, lo) => match eval(env, a, locals)? {
            0 => return Err(Fault::Nil),
            r => lo + r - 1,
        },
        Code::Embed(a, conv) => 1 + conv.rank(eval(env, a, locals)?)? as i64,
        Code::Cond(c, a, b) => {
            if truth(eval(env, c, locals)?) {
                eval(env, a, locals)?
            } else {
                eval(env, b, locals)?
            }
        }
        Code::SetLit(items, conv) => {
            let mut m = 0u64;
            for x in items {
                m |= 1 << conv.rank(eval(env, x, locals)?)?;
            }
            m as i64
        }
        Code::SetOp(op, a, b) => {
            let (x, y) = (eval(env, a, locals)?, eval(env, b, locals)?);
            match op {
                SetOp::Union => x | y,
                SetOp::Intersect => x & y,
                SetOp::Difference => x & !y,
            }
        }
        Code::SetInsert(x, conv, s) => {
            let r = conv.rank(eval(env, x, locals)?)?;
            eval(env, s, locals)? | 1 << r
        }
        Code::SetDelete(x, conv, s) => {
            let r = conv.rank(eval(env, x, locals)?)?;
            eval(env, s, locals)? & !(1 << r)
        }
        Code::SetHas(x, conv, s) => {
            let w = match **x {
                Code::Tuple { .. } | Code::Embed(..) => eval_built(env, x, locals)?,
                _ => Some(eval(env, x, locals)?),
            };
            let m = eval(env, s, locals)?;
            match w.and_then(|w| conv.rank_if_any(w)) {
                Some(r) => (m >> r) & 1,
                // A value outside the carrier is in no representable set.
                None => 0,
            }
        }
        Code::SetSize(s) => eval(env, s, locals)?.count_ones() as i64,
        Code::SetCmp(op, a, b) => {
            let (x, y) = (eval(env, a, locals)?, eval(env, b, locals)?);
            set_cmp(*op, x == y, x & !y == 0) as i64
        }
        Code::BigHas(x, conv, s) => {
            let w = eval(env, x, locals)?;
            let Ok(r) = conv.rank(w) else { return Ok(0) };
            let r = r as usize;
            match s {
                Big::Var { offset, .. } => (st[*offset as usize + r / 64] >> (r % 64)) & 1,
                _ => {
                    let bits = big(env, s, locals)?;
                    (bits[r / 64] >> (r % 64)) & 1
                }
            }
        }
        Code::BigSize(s) => match s {
            Big::Var { offset, words } => st[*offset as usize..][..*words as usize]
                .iter()
                .map(|w| w.count_ones() as i64)
                .sum(),
            _ => big(env, s, locals)?
                .iter()
                .map(|w| w.count_ones() as i64)
                .sum(),
        },
        Code::BigCmp(op, a, b) => {
            let (x, y) = (big(env, a, locals)?, big(env, b, locals)?);
            let eq = x == y;
            let sub = x.iter().zip(&y).all(|(p, q)| p & !q == 0);
            set_cmp(*op, eq, sub) as i64
        }
        Code::Quant {
            exists,
            var,
            domain,
            body,
        } => {
            let mut found = !*exists;
            for_each(env, domain, locals, |w, locals| {
                locals[*var as usize] = w;
                let t = truth(eval(env, body, locals)?);
                if t == *exists {
                    found = *exists;
                    return Ok(false);
                }
                Ok(true)
            })?;
            found as i64
        }
        Code::Interp(i, repr) => interp_word(env, i, *repr, locals)?,
        Code::Native(n) => n.eval(env, locals)?,
    })
}

/// The word of `c`, or `None` when `c` builds a tuple or `embed` outside its type's universe
/// (which is then no value any word holds).
fn eval_built(env: &Env, c: &Code, locals: &mut [i64]) -> Eval<Option<i64>> {
    match c {
        Code::Tuple { fields, listed } => {
            let mut r = 0u64;
            for (f, conv, stride) in fields {
                let Some(x) = eval_built(env, f, locals)?.and_then(|w| conv.rank_if_any(w)) else {
                    return Ok(None);
                };
                r += x * stride;
            }
            Ok(match listed {
                None => Some(r as i64),
                Some(l) => match l.to_rank.get(r as usize) {
                    Some(&k) if k != u32::MAX => Some(k as i64),
                    _ => None,
                },
            })
        }
        Code::Embed(a, conv) => Ok(eval_built(env, a, locals)?
            .and_then(|w| conv.rank_if_any(w))
            .map(|r| 1 + r as i64)),
        _ => eval(env, c, locals).map(Some),
    }
}

/// The rank of index word `w`, which must be a member when `members` is given.
#[inline]
fn member(conv: Conv, members: &Option<Arc<Vec<bool>>>, w: i64) -> Eval<u64> {
    let r = conv.rank(w)?;
    match members {
        Some(m) if !m[r as usize] => Err(Fault::NoMember),
        _ => Ok(r),
    }
}

fn set_cmp(op: SetCmp, eq: bool, subset_eq: bool) -> bool {
    match op {
        SetCmp::Eq => eq,
        SetCmp::Ne => !eq,
        SetCmp::SubsetEq => subset_eq,
        SetCmp::Subset => subset_eq && !eq,
    }
}

/// Calls `f` with the word of every element of `domain` in rank order, until it returns false.
fn for_each(
    env: &Env,
    domain: &Domain,
    locals: &mut [i64],
    mut f: impl FnMut(i64, &mut [i64]) -> Eval<bool>,
) -> Eval<()> {
    match domain {
        Domain::All(conv) => {
            for r in 0..conv.card {
                if !f(conv.lo + r as i64, locals)? {
                    break;
                }
            }
        }
        Domain::Members(s, lo) => {
            let mut m = eval(env, s, locals)? as u64;
            while m != 0 {
                let r = m.trailing_zeros() as i64;
                m &= m - 1;
                if !f(lo + r, locals)? {
                    break;
                }
            }
        }
        Domain::BigMembers(s, lo) => {
            let owned;
            let bits: &[i64] = match s {
                Big::Var { offset, words } => &env.st[*offset as usize..][..*words as usize],
                _ => {
                    owned = big(env, s, locals)?;
                    &owned
                }
            };
            for (k, &w) in bits.iter().enumerate() {
                let mut m = w as u64;
                while m != 0 {
                    let r = (k * 64) as i64 + m.trailing_zeros() as i64;
                    m &= m - 1;
                    if !f(lo + r, locals)? {
                        return Ok(());
                    }
                }
            }
        }
        Domain::Words(words) => {
            for &w in words {
                if !f(w, locals)? {
                    break;
                }
            }
        }
        Domain::Range { conv, lows, highs } => {
            let mut lo = conv.lo;
            let mut hi = conv.lo.saturating_add(conv.card as i64 - 1);
            for (code, offset) in lows {
                if let Ok(v) = eval(env, code, locals) {
                    lo = lo.max(v.saturating_add(*offset));
                }
            }
            for (code, offset) in highs {
                if let Ok(v) = eval(env, code, locals) {
                    hi = hi.min(v.saturating_add(*offset));
                }
            }
            let mut w = lo;
            while w <= hi {
                if !f(w, locals)? {
                    break;
                }
                w += 1;
            }
        }
        Domain::Values { coll, repr, repeat } => {
            for w in element_words(env, coll, *repr, *repeat, locals)? {
                if !f(w, locals)? {
                    break;
                }
            }
        }
    }
    Ok(())
}

/// The word of an [`Interp`] node's value (kept out of [`eval`], whose frame stays small).
#[inline(never)]
fn interp_word(env: &Env, i: &Interp, repr: Repr, locals: &mut [i64]) -> Eval<i64> {
    i.word(env, repr, locals)
}

/// The words of a collection's elements in the interpreter's order (a multiset's as often as
/// it holds them with `repeat`).
#[inline(never)]
fn element_words(
    env: &Env,
    coll: &Interp,
    repr: Repr,
    repeat: bool,
    locals: &mut [i64],
) -> Eval<Vec<i64>> {
    let items: Vec<Value> = match coll.value(env, locals)? {
        Value::Set(x) => x.into_iter().collect(),
        Value::Mset(m) if repeat => m
            .into_iter()
            .flat_map(|(x, n)| std::iter::repeat_n(x, n as usize))
            .collect(),
        Value::Mset(m) => m.keys().cloned().collect(),
        Value::Seq(x) => x.iter().cloned().collect(),
        _ => return Err(Fault::Interpreted),
    };
    items.iter().map(|x| env.cx.word(repr, x)).collect()
}

/// The words of a bit-set expression.
pub fn big(env: &Env, b: &Big, locals: &mut [i64]) -> Eval<Vec<i64>> {
    let st = env.st;
    Ok(match b {
        Big::Var { offset, words } => st[*offset as usize..][..*words as usize].to_vec(),
        Big::Lit(items, conv, words) => {
            let mut out = vec![0i64; *words as usize];
            for x in items {
                let r = conv.rank(eval(env, x, locals)?)? as usize;
                out[r / 64] |= 1 << (r % 64);
            }
            out
        }
        Big::Insert(x, conv, s) => {
            let r = conv.rank(eval(env, x, locals)?)? as usize;
            let mut out = big(env, s, locals)?;
            out[r / 64] |= 1 << (r % 64);
            out
        }
        Big::Delete(x, conv, s) => {
            let r = conv.rank(eval(env, x, locals)?)? as usize;
            let mut out = big(env, s, locals)?;
            out[r / 64] &= !(1 << (r % 64));
            out
        }
        Big::Op(op, a, b) => {
            let mut x = big(env, a, locals)?;
            let y = big(env, b, locals)?;
            for (p, q) in x.iter_mut().zip(&y) {
                *p = match op {
                    SetOp::Union => *p | q,
                    SetOp::Intersect => *p & q,
                    SetOp::Difference => *p & !q,
                };
            }
            x
        }
    })
}

/// Runs statements on `st` in order (each sees the effects of the ones before).
pub fn exec(cx: &Cx, stmts: &[Stmt], st: &mut [i64], locals: &mut [i64]) -> Eval<()> {
    for s in stmts {
        match s {
            Stmt::SetWord { offset, value, nat } => {
                let v = eval(&Env { cx, st }, value, locals)?;
                if *nat && v < 0 {
                    return Err(Fault::Arithmetic);
                }
                st[*offset as usize] = v;
            }
            Stmt::SetArray {
                base,
                index,
                conv,
                value,
                nat,
                members,
            } => {
                let r = member(*conv, members, eval(&Env { cx, st }, index, locals)?)?;
                let v = eval(&Env { cx, st }, value, locals)?;
                if *nat && v < 0 {
                    return Err(Fault::Arithmetic);
                }
                st[*base as usize + r as usize] = v;
            }
            Stmt::SetBig { offset, value } => match value {
                // `S := insert(x, S)`: one bit, in place.
                Big::Insert(x, conv, inner) if matches!(**inner, Big::Var { offset: o, .. } if o == *offset) =>
                {
                    let r = conv.rank(eval(&Env { cx, st }, x, locals)?)? as usize;
                    st[*offset as usize + r / 64] |= 1 << (r % 64);
                }
                _ => {
                    let bits = big(&Env { cx, st }, value, locals)?;
                    st[*offset as usize..][..bits.len()].copy_from_slice(&bits);
                }
            },
            Stmt::Update {
                target,
                root,
                path,
                value,
                repr,
            } => {
                // As the interpreter: the value first, then the keys in order.
                let v = cx.value(*repr, eval(&Env { cx, st }, value, locals)?);
                let mut keys = Vec::with_capacity(path.len());
                for step in path {
                    keys.push(match step {
                        Step::Field(k) => Key::Field(*k as usize),
                        Step::Index(code, repr) => {
                            Key::Index(cx.value(*repr, eval(&Env { cx, st }, code, locals)?))
                        }
                    });
                }
                let at = match target {
                    Target::Word(offset) => *offset as usize,
                    Target::Entry {
                        base,
                        index,
                        conv,
                        members,
                    } => {
                        *base as usize
                            + member(*conv, members, eval(&Env { cx, st }, index, locals)?)?
                                as usize
                    }
                };
                let old = cx.value(*root, st[at]);
                let new = update_path(&old, &keys, v, ioa_lang::span::Span::default())
                    .map_err(|_| Fault::Interpreted)?;
                st[at] = cx.word(*root, &new)?;
            }
            Stmt::SetSlot { slot, value } => {
                let v = value.value(&Env { cx, st }, locals)?;
                cx.layout
                    .encode_slot(cx.fins, *slot as usize, &v, st)
                    .ok_or(Fault::Unrepresentable)?;
            }
            Stmt::SetLocal { slot, value } => {
                locals[*slot as usize] = eval(&Env { cx, st }, value, locals)?;
            }
            Stmt::Ensure(c) => {
                if !truth(eval(&Env { cx, st }, c, locals)?) {
                    return Err(Fault::Ensuring);
                }
            }
            Stmt::If {
                branches,
                otherwise,
            } => {
                let mut taken = false;
                for (c, body) in branches {
                    if truth(eval(&Env { cx, st }, c, locals)?) {
                        exec(cx, body, st, locals)?;
                        taken = true;
                        break;
                    }
                }
                if !taken {
                    exec(cx, otherwise, st, locals)?;
                }
            }
            Stmt::For {
                var,
                domain,
                order,
                cond,
                body,
            } => {
                // The domain is read once, before the body changes anything.
                let mut items = Vec::new();
                for_each(&Env { cx, st }, domain, locals, |w, _| {
                    items.push(w);
                    Ok(true)
                })?;
                if let Some(key) = order {
                    let lo = match domain {
                        Domain::All(conv) | Domain::Range { conv, .. } => conv.lo,
                        Domain::Members(_, lo) | Domain::BigMembers(_, lo) => *lo,
                        Domain::Words(_) | Domain::Values { .. } => 0,
                    };
                    items.sort_by_key(|w| key[(w - lo) as usize]);
                }
                for w in items {
                    locals[*var as usize] = w;
                    if let Some(c) = cond {
                        if !truth(eval(&Env { cx, st }, c, locals)?) {
                            continue;
                        }
                    }
                    exec(cx, body, st, locals)?;
                }
            }
        }
    }
    Ok(())
}
