//! Machine code for the compiled engine: every guard, invariant and assigned value of a model
//! becomes a native function, generated with Cranelift at load time.
//!
//! The word code of [`super::code`] is a tree that [`eval`] walks; on the GROOVE Paxos model
//! that walk was 60% of the search's time (`perf`: `code::eval` 45%, the steps around it 14%).
//! Here each tree (a *root*: a precondition conjunct, an invariant, the value of an
//! assignment…) is translated into one function `f(st, locals, ctx, fault) -> word` that
//! computes exactly what [`eval`] computes, faults included: arithmetic is checked, ranks are
//! range-checked, and a fault stores its code and returns. A node this module does not
//! translate (interned values, `Interp` nodes, bit-set algebra, division…) is a call back
//! into [`eval`] on that subtree, so every tree compiles and the semantics stay the word
//! code's (which the interpreter checks, `tests/differential.rs`).
//!
//! Why Cranelift and not generated Rust or C compiled at run time: it is a library (no compiler
//! to find on the user's machine, no cache directory), it compiles a model's few hundred
//! functions in milliseconds, and the trees are small expressions where its code is as good
//! as an optimising C compiler's would matter little next to the state store.
//!
//! Safety: this is the one module of the workspace with `unsafe` code. The generated code
//! reads the state words and locals at positions computed at translation time; before each
//! call [`NativeCode::eval`] checks that the state and locals are long enough for every
//! position the function reads (else it walks the tree instead), and every computed index is
//! range-checked in the generated code as the tree walk does. The callback receives the
//! evaluation environment and locals as raw pointers that live for the duration of the call.
#![allow(unsafe_code)]

use super::code::{
    walk as eval, Arith, Big, Cmp, Code, Conv, Domain, Env, Eval, Fault, SetCmp, SetOp,
};
use super::Stmt;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I64, I8};
use cranelift_codegen::ir::{AbiParam, Block, BlockArg, FuncRef, InstBuilder, MemFlags, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use std::sync::Arc;

/// A generated function: `(state words, locals, callback context, fault cell) -> word`.
type NativeFn = unsafe extern "C" fn(*const i64, *mut i64, *const Ctx, *mut u32) -> i64;

/// What the callback needs to walk a subtree: the environment and the locals' length.
struct Ctx {
    env: *const (),
    locals_len: usize,
}

/// A word expression with its machine code.
pub struct NativeCode {
    /// The tree, walked when the state or locals are too short and by the callback.
    code: Box<Code>,
    /// Its machine code.
    handle: Handle,
    /// The code's memory, freed when the last function of the model is dropped.
    _memory: Arc<Memory>,
}

impl std::fmt::Debug for NativeCode {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_tuple("Native").field(&self.code).finish()
    }
}

/// The JIT module that owns the generated code.
struct Memory(Option<JITModule>);

// SAFETY: the module is not used after its functions are finalized, only freed on drop, when
// no thread can call them any more.
unsafe impl Send for Memory {}
// SAFETY: as above; no method of the module is called through a shared reference.
unsafe impl Sync for Memory {}

impl Drop for Memory {
    fn drop(&mut self) {
        if let Some(module) = self.0.take() {
            // SAFETY: the memory is freed when the last `NativeCode` pointing into it is
            // dropped (each holds this `Arc`), so no function of it can be called again.
            unsafe { module.free_memory() };
        }
    }
}

impl NativeCode {
    /// The word of the expression in `env`'s state: what [`eval`] returns on the tree.
    #[inline]
    pub fn eval(&self, env: &Env, locals: &mut [i64]) -> Eval<i64> {
        match self.handle.call(env, locals) {
            Some(w) => w,
            None => eval(env, &self.code, locals),
        }
    }
}

const FAULTS: [Fault; 7] = [
    Fault::Unrepresentable,
    Fault::Arithmetic,
    Fault::Nil,
    Fault::Interpreted,
    Fault::Ensuring,
    Fault::NoMember,
    Fault::WideInteger,
];

fn code_of(f: Fault) -> u32 {
    FAULTS.iter().position(|g| *g == f).unwrap_or(0) as u32 + 1
}

fn fault_of(k: u32) -> Fault {
    FAULTS[(k - 1) as usize]
}

/// The callback: walks `code` with the caller's environment and locals.
extern "C" fn walk(ctx: *const Ctx, code: *const Code, locals: *mut i64, fault: *mut u32) -> i64 {
    // SAFETY: `ctx`, `code`, `locals` and `fault` are the pointers `NativeCode::eval` passed
    // to the generated function (or the code it embeds), alive for the duration of the call.
    let (ctx, code) = unsafe { (&*ctx, &*code) };
    let env = unsafe { &*(ctx.env as *const Env) };
    let locals = unsafe { std::slice::from_raw_parts_mut(locals, ctx.locals_len) };
    match eval(env, code, locals) {
        Ok(w) => w,
        Err(f) => {
            unsafe { *fault = code_of(f) };
            0
        }
    }
}

/// Replaces every root expression of the model's actions, statements and invariants worth
/// compiling by its native version. Does nothing (the tree walk stays) where Cranelift has no
/// back end for this machine. Returns how many functions were generated.
pub(super) fn compile_roots(roots: Vec<&mut Code>) -> usize {
    let Some(mut jit) = Jit::new() else { return 0 };
    let mut pending = Vec::new();
    for root in roots {
        if !worth_compiling(root) {
            continue;
        }
        let code = Box::new(std::mem::replace(root, Code::Const(0)));
        match jit.translate(&code) {
            Some(id) => pending.push((root, code, id)),
            None => *root = *code,
        }
    }
    let ids: Vec<_> = pending.iter().map(|p| Some(p.2)).collect();
    let Some((handles, memory)) = jit.finish(&ids) else {
        for (root, code, _) in pending {
            *root = *code;
        }
        return 0;
    };
    let generated = pending.len();
    for ((root, code, _), handle) in pending.into_iter().zip(handles) {
        *root = Code::Native(Box::new(NativeCode {
            code,
            handle: handle.expect("every pending root was translated"),
            _memory: memory.clone(),
        }));
    }
    generated
}

/// The root expressions of statements, for [`compile_roots`].
pub(super) fn statement_roots<'a>(stmts: &'a mut [Stmt], roots: &mut Vec<&'a mut Code>) {
    for s in stmts {
        match s {
            Stmt::SetWord { value, .. } | Stmt::SetLocal { value, .. } => roots.push(value),
            Stmt::SetArray { index, value, .. } => {
                roots.push(index);
                roots.push(value);
            }
            Stmt::Update {
                target,
                path,
                value,
                ..
            } => {
                if let super::code::Target::Entry { index, .. } = target {
                    roots.push(index);
                }
                for step in path {
                    if let super::code::Step::Index(index, _) = step {
                        roots.push(index);
                    }
                }
                roots.push(value);
            }
            Stmt::SetBig { value, .. } => big_roots(value, roots),
            Stmt::Ensure(c) => roots.push(c),
            Stmt::If {
                branches,
                otherwise,
            } => {
                for (c, body) in branches {
                    roots.push(c);
                    statement_roots(body, roots);
                }
                statement_roots(otherwise, roots);
            }
            Stmt::For {
                domain, cond, body, ..
            } => {
                match domain {
                    Domain::Members(c, _) => roots.push(c),
                    Domain::BigMembers(b, _) => big_roots(b, roots),
                    Domain::Range { lows, highs, .. } => {
                        roots.extend(lows.iter_mut().chain(highs).map(|(c, _)| c));
                    }
                    Domain::All(_) | Domain::Words(_) | Domain::Values { .. } => {}
                }
                if let Some(c) = cond {
                    roots.push(c);
                }
                statement_roots(body, roots);
            }
            Stmt::SetSlot { .. } => {}
        }
    }
}

/// The expressions inside a bit-set expression, for [`compile_roots`].
fn big_roots<'a>(b: &'a mut Big, roots: &mut Vec<&'a mut Code>) {
    match b {
        Big::Var { .. } => {}
        Big::Lit(items, ..) => roots.extend(items.iter_mut()),
        Big::Insert(x, _, rest) | Big::Delete(x, _, rest) => {
            roots.push(x);
            big_roots(rest, roots);
        }
        Big::Op(_, l, r) => {
            big_roots(l, roots);
            big_roots(r, roots);
        }
    }
}

/// One test of a [`Conjunction`]: an expression that must hold, or equal a local.
pub(super) enum Test<'c> {
    /// The expression is true.
    Holds(&'c Code),
    /// The expression's word equals local `slot` (a `const` argument).
    Equals(u32, &'c Code),
}

/// The tests that decide whether a transition case applies, as one function: 1 when they
/// all hold, 0 at the first that does not (the later ones are not evaluated, as in the
/// step's own loop), or a fault.
#[derive(Clone)]
pub(super) struct Conjunction {
    handle: Handle,
    _memory: Arc<Memory>,
}

/// A generated function with the bounds its reads need. A [`Conjunction`] or [`NativeCode`]
/// owns the memory; a copy of the handle is kept beside the instance list the search walks
/// in every state (the owner outlives it).
#[derive(Clone, Copy)]
pub(super) struct Handle {
    func: NativeFn,
    /// Locals must be longer than this.
    max_local: usize,
    /// The state must be longer than this.
    max_word: usize,
}

impl Conjunction {
    /// The function's handle.
    pub fn handle(&self) -> Handle {
        self.handle
    }

    /// Whether every test holds in `env`'s state; see [`Handle::holds`].
    #[inline]
    pub fn holds(&self, env: &Env, locals: &mut [i64]) -> Option<Eval<bool>> {
        self.handle.holds(env, locals)
    }
}

impl Handle {
    /// Runs the function in `env`'s state: its word or fault; `None` when the state or locals
    /// are too short for the code (the caller then walks the tree).
    #[inline]
    fn call(&self, env: &Env, locals: &mut [i64]) -> Option<Eval<i64>> {
        if locals.len() <= self.max_local || env.st.len() <= self.max_word {
            return None;
        }
        let ctx = Ctx {
            env: env as *const Env as *const (),
            locals_len: locals.len(),
        };
        let mut fault = 0u32;
        // SAFETY: the function reads state words up to `max_word` and locals up to
        // `max_local`, both checked above; the pointers live for the call.
        let w = unsafe { (self.func)(env.st.as_ptr(), locals.as_mut_ptr(), &ctx, &mut fault) };
        Some(match fault {
            0 => Ok(w),
            k => Err(fault_of(k)),
        })
    }

    /// Whether every test holds in `env`'s state; `None` when the state or locals are too
    /// short for the code (the caller then evaluates the tests one by one).
    #[inline]
    pub fn holds(&self, env: &Env, locals: &mut [i64]) -> Option<Eval<bool>> {
        self.call(env, locals).map(|r| r.map(|w| w != 0))
    }
}

/// One function per list of tests (`None` where none was made). The expressions must stay
/// where they are while the functions live: compiled roots (whose trees are boxed) or
/// expressions in vectors that are no longer changed.
pub(super) fn compile_conjunctions(lists: &[Vec<Test>]) -> Vec<Option<Conjunction>> {
    let none = || lists.iter().map(|_| None).collect();
    let Some(mut jit) = Jit::new() else {
        return none();
    };
    let mut ids = Vec::new();
    for tests in lists {
        ids.push(jit.translate_with(|g| {
            let (join, out) = g.join();
            let zero = g.iconst(0);
            for test in tests {
                let holds = g.test(test);
                let next = g.b.create_block();
                g.b.ins()
                    .brif(holds, next, &[], join, &[BlockArg::Value(zero)]);
                g.b.switch_to_block(next);
            }
            let one = g.iconst(1);
            g.jump(join, one);
            g.b.switch_to_block(join);
            out
        }));
    }
    finish_each(jit, &ids, |handle, _memory| Conjunction { handle, _memory })
}

/// Finalises `jit` and wraps the handle of each function of `ids` with `wrap` (every one
/// `None` when finalising fails).
fn finish_each<T>(
    jit: Jit,
    ids: &[Option<Translated>],
    wrap: impl Fn(Handle, Arc<Memory>) -> T,
) -> Vec<Option<T>> {
    let Some((handles, memory)) = jit.finish(ids) else {
        return ids.iter().map(|_| None).collect();
    };
    handles
        .into_iter()
        .map(|h| h.map(|handle| wrap(handle, memory.clone())))
        .collect()
}

/// The most instances one screening function tests (one bit each of its result word).
pub(super) const SCREEN_RUN: usize = 64;

/// One function testing a run of instances at once ([`compile_screens`]).
#[derive(Clone)]
pub(super) struct Screen {
    handle: Handle,
    _memory: Arc<Memory>,
}

impl Screen {
    /// Bit `i` set when every test of the run's `i`-th instance holds; `None` when the code
    /// cannot run on this state or locals, or a test faulted (the caller then tries each
    /// instance of the run itself, which finds the fault again).
    #[inline]
    pub fn enabled(&self, env: &Env, locals: &mut [i64]) -> Option<u64> {
        match self.handle.call(env, locals) {
            Some(Ok(mask)) => Some(mask as u64),
            _ => None,
        }
    }
}

/// One function per run of at most [`SCREEN_RUN`] instances, each given by its tests (those of
/// [`compile_conjunctions`]) and its argument words (the locals its tests read first). The
/// arguments are constants in each instance's code (so `a[p]` with `p` an argument reads a
/// word at a fixed place) and are also stored into the locals for the subtrees walked by
/// callback. `None` for a run whose code assigns an argument local (no code does today) or
/// that could not be translated.
pub(super) fn compile_screens(runs: &[Vec<(&[Test], &[i64])>]) -> Vec<Option<Screen>> {
    let none = || runs.iter().map(|_| None).collect();
    let Some(mut jit) = Jit::new() else {
        return none();
    };
    let mut ids = Vec::new();
    for run in runs {
        debug_assert!(run.len() <= SCREEN_RUN);
        let mut clobbered = false;
        let id = jit.translate_with(|g| {
            let mut mask = g.iconst(0);
            for (bit, (tests, args)) in run.iter().enumerate() {
                g.args.clear();
                for (k, &a) in args.iter().enumerate() {
                    let v = g.iconst(a);
                    g.set_local(k as u32, v);
                }
                g.args.extend_from_slice(args);
                let after = g.b.create_block();
                let next_mask = g.b.append_block_param(after, I64);
                for test in tests.iter() {
                    let holds = g.test(test);
                    let next = g.b.create_block();
                    g.b.ins()
                        .brif(holds, next, &[], after, &[BlockArg::Value(mask)]);
                    g.b.switch_to_block(next);
                }
                let with = g.b.ins().bor_imm(mask, 1i64 << bit);
                g.jump(after, with);
                g.b.switch_to_block(after);
                mask = next_mask;
            }
            g.args.clear();
            clobbered = g.clobbered;
            mask
        });
        ids.push(id.filter(|_| !clobbered));
    }
    finish_each(jit, &ids, |handle, _memory| Screen { handle, _memory })
}

/// Whether a call is cheaper than the walk: a tree of one leaf is not, nor one whose root
/// would only call back.
fn worth_compiling(c: &Code) -> bool {
    !matches!(
        c,
        Code::Const(_) | Code::Local(_) | Code::Word(_) | Code::Native(_)
    ) && native_node(c)
}

/// Whether this node is translated (else it is a callback).
fn native_node(c: &Code) -> bool {
    match c {
        Code::Eq { a, b, .. } => natively_built(a) && natively_built(b),
        Code::Arith(op, ..) => !matches!(op, Arith::Div | Arith::Mod),
        Code::Tuple { listed, .. } | Code::Field { listed, .. } => listed.is_none(),
        Code::SetHas(x, ..) => natively_built(x),
        Code::BigHas(_, _, s) | Code::BigSize(s) => matches!(s, Big::Var { .. }),
        Code::Quant { domain, .. } => matches!(
            domain,
            Domain::All(_)
                | Domain::Members(..)
                | Domain::Words(_)
                | Domain::BigMembers(Big::Var { .. }, _)
        ),
        Code::BigCmp(..) | Code::Interp(..) | Code::Native(_) => false,
        _ => true,
    }
}

/// Whether [`Gen::built`] translates `c`: a tuple or `embed` built from parts (a value built
/// outside its type's universe equals nothing) is translated unless a listed tuple type is
/// involved.
fn natively_built(c: &Code) -> bool {
    match c {
        Code::Tuple { fields, listed } => {
            listed.is_none() && fields.iter().all(|(f, ..)| natively_built(f))
        }
        Code::Embed(a, _) => natively_built(a),
        _ => true,
    }
}

/// A translated function: its id and the largest local and word positions it reads.
type Translated = (FuncId, usize, usize);

/// The Cranelift module being filled.
struct Jit {
    module: JITModule,
    walk: FuncId,
    builder: FunctionBuilderContext,
    n: usize,
}

impl Jit {
    fn new() -> Option<Self> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").ok()?;
        // The IR verifier costs more than the rest of the translation; the generated code is
        // checked against the word code by the tests instead.
        flags.set("enable_verifier", "false").ok()?;
        let isa = cranelift_native::builder()
            .ok()?
            .finish(settings::Flags::new(flags))
            .ok()?;
        let mut jb = JITBuilder::with_isa(isa, default_libcall_names());
        jb.symbol("ioa_walk", walk as *const u8);
        let mut module = JITModule::new(jb);
        let ptr = module.target_config().pointer_type();
        let mut sig = module.make_signature();
        for _ in 0..4 {
            sig.params.push(AbiParam::new(ptr));
        }
        sig.returns.push(AbiParam::new(I64));
        let walk = module
            .declare_function("ioa_walk", Linkage::Import, &sig)
            .ok()?;
        Some(Jit {
            module,
            walk,
            builder: FunctionBuilderContext::new(),
            n: 0,
        })
    }

    /// Finalises the module: a handle for each translated function (`None` where `ids` has
    /// none) and the memory that holds them; `None` when finalising fails.
    fn finish(mut self, ids: &[Option<Translated>]) -> Option<(Vec<Option<Handle>>, Arc<Memory>)> {
        self.module.finalize_definitions().ok()?;
        let handles = ids
            .iter()
            .map(|id| {
                id.map(|(id, max_local, max_word)| {
                    let f = self.module.get_finalized_function(id);
                    Handle {
                        // SAFETY: every function was generated with `NativeFn`'s signature.
                        func: unsafe { std::mem::transmute::<*const u8, NativeFn>(f) },
                        max_local,
                        max_word,
                    }
                })
            })
            .collect();
        Some((handles, Arc::new(Memory(Some(self.module)))))
    }

    /// Declares and defines the function of `code`: its id and the largest local and word
    /// positions it reads.
    fn translate(&mut self, code: &Code) -> Option<Translated> {
        self.translate_with(|g| g.gen(code))
    }

    /// Declares and defines a function whose body `body` generates (returning its result):
    /// its id and the largest local and word positions it reads.
    fn translate_with(&mut self, body: impl FnOnce(&mut Gen) -> Value) -> Option<Translated> {
        let ptr = self.module.target_config().pointer_type();
        let mut ctx = self.module.make_context();
        for _ in 0..4 {
            ctx.func.signature.params.push(AbiParam::new(ptr));
        }
        ctx.func.signature.returns.push(AbiParam::new(I64));
        self.n += 1;
        let id = self
            .module
            .declare_function(&format!("f{}", self.n), Linkage::Local, &ctx.func.signature)
            .ok()?;
        let (max_local, max_word) = {
            let mut b = FunctionBuilder::new(&mut ctx.func, &mut self.builder);
            let walk = self.module.declare_func_in_func(self.walk, b.func);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            let p = b.block_params(entry).to_vec();
            let exit = b.create_block();
            b.append_block_param(exit, I64);
            let mut g = Gen {
                b,
                st: p[0],
                locals: p[1],
                ctx: p[2],
                fault: p[3],
                walk,
                exit,
                max_local: 0,
                max_word: 0,
                args: Vec::new(),
                clobbered: false,
            };
            let v = body(&mut g);
            g.b.ins().jump(exit, &[BlockArg::Value(v)]);
            g.b.switch_to_block(exit);
            let r = g.b.block_params(exit)[0];
            g.b.ins().return_(&[r]);
            g.b.seal_all_blocks();
            let sizes = (g.max_local, g.max_word);
            g.b.finalize();
            sizes
        };
        let defined = self.module.define_function(id, &mut ctx).is_ok();
        self.module.clear_context(&mut ctx);
        defined.then_some((id, max_local, max_word))
    }
}

/// The translation of one tree.
struct Gen<'f> {
    b: FunctionBuilder<'f>,
    st: Value,
    locals: Value,
    ctx: Value,
    fault: Value,
    walk: FuncRef,
    /// Returns its argument (0 after a fault, whose code is stored).
    exit: Block,
    max_local: usize,
    max_word: usize,
    /// The argument words of the instance being screened ([`compile_screens`]): locals
    /// `0..args.len()` are these constants. Empty elsewhere.
    args: Vec<i64>,
    /// Whether the code assigned one of those locals (then the constants would be wrong).
    clobbered: bool,
}

const TRUSTED: MemFlags = MemFlags::trusted();

impl Gen<'_> {
    fn iconst(&mut self, k: i64) -> Value {
        self.b.ins().iconst(I64, k)
    }

    /// A truth value (`I8`) as a word.
    fn word(&mut self, t: Value) -> Value {
        self.b.ins().uextend(I64, t)
    }

    fn truth(&mut self, w: Value) -> Value {
        self.b.ins().icmp_imm(IntCC::NotEqual, w, 0)
    }

    fn local(&mut self, k: u32) -> Value {
        if let Some(&a) = self.args.get(k as usize) {
            return self.iconst(a);
        }
        self.max_local = self.max_local.max(k as usize);
        self.b.ins().load(I64, TRUSTED, self.locals, 8 * k as i32)
    }

    fn set_local(&mut self, k: u32, v: Value) {
        self.clobbered |= (k as usize) < self.args.len();
        self.max_local = self.max_local.max(k as usize);
        self.b.ins().store(TRUSTED, v, self.locals, 8 * k as i32);
    }

    /// Whether one test of a conjunction holds (a truth value).
    fn test(&mut self, test: &Test) -> Value {
        match test {
            Test::Holds(c) => {
                let w = self.gen(c);
                self.truth(w)
            }
            Test::Equals(slot, c) => {
                let w = self.gen(c);
                let l = self.local(*slot);
                self.b.ins().icmp(IntCC::Equal, w, l)
            }
        }
    }

    /// The state word at `base + r` (`r` a checked rank below `card`).
    fn state_at(&mut self, base: u32, r: Value, card: u64) -> Value {
        self.max_word = self
            .max_word
            .max(base as usize + card.saturating_sub(1) as usize);
        let off = self.b.ins().ishl_imm(r, 3);
        let addr = self.b.ins().iadd(self.st, off);
        self.b.ins().load(I64, TRUSTED, addr, 8 * base as i32)
    }

    /// Stops with `fault` when `cond` holds.
    fn fail_if(&mut self, cond: Value, fault: Fault) {
        let bad = self.b.create_block();
        let ok = self.b.create_block();
        self.b.ins().brif(cond, bad, &[], ok, &[]);
        self.b.switch_to_block(bad);
        let k = self.b.ins().iconst(I32, code_of(fault) as i64);
        self.b.ins().store(TRUSTED, k, self.fault, 0);
        let zero = self.iconst(0);
        self.b.ins().jump(self.exit, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(ok);
    }

    /// The rank of word `w` of a type converted by `conv`, faulting outside it.
    fn rank(&mut self, w: Value, conv: Conv) -> Value {
        let r = self.b.ins().iadd_imm(w, conv.lo.wrapping_neg());
        let outside = self
            .b
            .ins()
            .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, r, conv.card as i64);
        self.fail_if(outside, Fault::Unrepresentable);
        r
    }

    /// A subtree walked by [`eval`].
    fn callback(&mut self, c: &Code) -> Value {
        let code = self.iconst(c as *const Code as i64);
        let call = self
            .b
            .ins()
            .call(self.walk, &[self.ctx, code, self.locals, self.fault]);
        let w = self.b.inst_results(call)[0];
        let k = self.b.ins().load(I32, TRUSTED, self.fault, 0);
        let faulted = self.b.ins().icmp_imm(IntCC::NotEqual, k, 0);
        let ok = self.b.create_block();
        let zero = self.iconst(0);
        self.b
            .ins()
            .brif(faulted, self.exit, &[BlockArg::Value(zero)], ok, &[]);
        self.b.switch_to_block(ok);
        w
    }

    /// A join block with one word parameter, and the parameter.
    fn join(&mut self) -> (Block, Value) {
        let join = self.b.create_block();
        let v = self.b.append_block_param(join, I64);
        (join, v)
    }

    fn jump(&mut self, to: Block, v: Value) {
        self.b.ins().jump(to, &[BlockArg::Value(v)]);
    }

    fn gen(&mut self, c: &Code) -> Value {
        if let Code::Native(n) = c {
            // A compiled root inside a conjunction: its tree, translated inline.
            return self.gen(&n.code);
        }
        if !native_node(c) {
            return self.callback(c);
        }
        match c {
            Code::Const(k) => self.iconst(*k),
            Code::Local(k) => self.local(*k),
            Code::Word(o) => {
                self.max_word = self.max_word.max(*o as usize);
                self.b.ins().load(I64, TRUSTED, self.st, 8 * *o as i32)
            }
            Code::ArrayGet { base, index, conv } => {
                let w = self.gen(index);
                let r = self.rank(w, *conv);
                self.state_at(*base, r, conv.card)
            }
            Code::MemberGet {
                base,
                index,
                conv,
                members,
            } => {
                let w = self.gen(index);
                let r = self.rank(w, *conv);
                let table = self.iconst(members.as_ptr() as i64);
                let addr = self.b.ins().iadd(table, r);
                let member = self.b.ins().uload8(I32, TRUSTED, addr, 0);
                let not = self.b.ins().icmp_imm(IntCC::Equal, member, 0);
                self.fail_if(not, Fault::NoMember);
                self.state_at(*base, r, conv.card)
            }
            Code::Not(a) => {
                let w = self.gen(a);
                let t = self.b.ins().icmp_imm(IntCC::Equal, w, 0);
                self.word(t)
            }
            Code::Neg(a) => {
                let w = self.gen(a);
                let min = self.b.ins().icmp_imm(IntCC::Equal, w, i64::MIN);
                self.fail_if(min, Fault::Arithmetic);
                self.b.ins().ineg(w)
            }
            Code::Abs(a) => {
                let w = self.gen(a);
                let min = self.b.ins().icmp_imm(IntCC::Equal, w, i64::MIN);
                self.fail_if(min, Fault::Arithmetic);
                self.b.ins().iabs(w)
            }
            Code::And(a, b) | Code::Or(a, b) | Code::Implies(a, b) => {
                // The right operand is evaluated when the left one does not decide.
                let decided_by = !matches!(c, Code::And(..));
                let wa = self.gen(a);
                let mut t = self.truth(wa);
                if matches!(c, Code::Implies(..)) {
                    t = self.b.ins().bxor_imm(t, 1);
                }
                let (join, out) = self.join();
                let rhs = self.b.create_block();
                let decided = self.iconst(decided_by as i64);
                if decided_by {
                    self.b
                        .ins()
                        .brif(t, join, &[BlockArg::Value(decided)], rhs, &[]);
                } else {
                    self.b
                        .ins()
                        .brif(t, rhs, &[], join, &[BlockArg::Value(decided)]);
                }
                self.b.switch_to_block(rhs);
                let wb = self.gen(b);
                let tb = self.truth(wb);
                let wb = self.word(tb);
                self.jump(join, wb);
                self.b.switch_to_block(join);
                out
            }
            Code::Cmp(op, a, b) => {
                let (x, y) = (self.gen(a), self.gen(b));
                let cc = match op {
                    Cmp::Eq => IntCC::Equal,
                    Cmp::Ne => IntCC::NotEqual,
                    Cmp::Lt => IntCC::SignedLessThan,
                    Cmp::Le => IntCC::SignedLessThanOrEqual,
                    Cmp::Gt => IntCC::SignedGreaterThan,
                    Cmp::Ge => IntCC::SignedGreaterThanOrEqual,
                };
                let t = self.b.ins().icmp(cc, x, y);
                self.word(t)
            }
            Code::Eq { ne, a, b } => {
                let ((ok_x, x), (ok_y, y)) = (self.built(a), self.built(b));
                // Equal words of two values; a value with no word equals one with a word, and
                // two values without words cannot be compared (the tree walk's fault).
                let neither = self.b.ins().bor(ok_x, ok_y);
                let neither = self.b.ins().icmp_imm(IntCC::Equal, neither, 0);
                self.fail_if(neither, Fault::Unrepresentable);
                let both = self.b.ins().band(ok_x, ok_y);
                let same = self.b.ins().icmp(IntCC::Equal, x, y);
                let equal = self.b.ins().band(both, same);
                let t = if *ne {
                    self.b.ins().bxor_imm(equal, 1)
                } else {
                    equal
                };
                self.word(t)
            }
            Code::Arith(op, a, b) => {
                let (x, y) = (self.gen(a), self.gen(b));
                let (r, overflow) = match op {
                    Arith::Add => self.b.ins().sadd_overflow(x, y),
                    Arith::Sub => self.b.ins().ssub_overflow(x, y),
                    Arith::Mul => self.b.ins().smul_overflow(x, y),
                    Arith::Min => return self.b.ins().smin(x, y),
                    Arith::Max => return self.b.ins().smax(x, y),
                    Arith::Div | Arith::Mod => unreachable!("called back"),
                };
                self.fail_if(overflow, Fault::Arithmetic);
                r
            }
            Code::Tuple { fields, .. } => {
                let mut r = self.iconst(0);
                for (f, conv, stride) in fields {
                    let w = self.gen(f);
                    let k = self.rank(w, *conv);
                    let k = self.b.ins().imul_imm(k, *stride as i64);
                    r = self.b.ins().iadd(r, k);
                }
                r
            }
            Code::Field {
                tuple,
                stride,
                card,
                lo,
                ..
            } => {
                let t = self.gen(tuple);
                let q = self.b.ins().udiv_imm(t, *stride as i64);
                let r = self.b.ins().urem_imm(q, *card as i64);
                self.b.ins().iadd_imm(r, *lo)
            }
            Code::NullVal(a, lo) => {
                let w = self.gen(a);
                let nil = self.b.ins().icmp_imm(IntCC::Equal, w, 0);
                self.fail_if(nil, Fault::Nil);
                self.b.ins().iadd_imm(w, lo.wrapping_sub(1))
            }
            Code::Embed(a, conv) => {
                let w = self.gen(a);
                let r = self.rank(w, *conv);
                self.b.ins().iadd_imm(r, 1)
            }
            Code::Cond(cond, a, b) => {
                let w = self.gen(cond);
                let (then, other) = (self.b.create_block(), self.b.create_block());
                let (join, out) = self.join();
                self.b.ins().brif(w, then, &[], other, &[]);
                self.b.switch_to_block(then);
                let wa = self.gen(a);
                self.jump(join, wa);
                self.b.switch_to_block(other);
                let wb = self.gen(b);
                self.jump(join, wb);
                self.b.switch_to_block(join);
                out
            }
            Code::SetLit(items, conv) => {
                let mut m = self.iconst(0);
                for x in items {
                    let w = self.gen(x);
                    let r = self.rank(w, *conv);
                    let bit = self.bit(r);
                    m = self.b.ins().bor(m, bit);
                }
                m
            }
            Code::SetOp(op, a, b) => {
                let (x, y) = (self.gen(a), self.gen(b));
                match op {
                    SetOp::Union => self.b.ins().bor(x, y),
                    SetOp::Intersect => self.b.ins().band(x, y),
                    SetOp::Difference => self.b.ins().band_not(x, y),
                }
            }
            Code::SetInsert(x, conv, s) | Code::SetDelete(x, conv, s) => {
                let w = self.gen(x);
                let r = self.rank(w, *conv);
                let m = self.gen(s);
                let bit = self.bit(r);
                match c {
                    Code::SetInsert(..) => self.b.ins().bor(m, bit),
                    _ => self.b.ins().band_not(m, bit),
                }
            }
            Code::SetHas(x, conv, s) => {
                let (ok, w) = self.built(x);
                let m = self.gen(s);
                let r = self.b.ins().iadd_imm(w, conv.lo.wrapping_neg());
                let inside = self
                    .b
                    .ins()
                    .icmp_imm(IntCC::UnsignedLessThan, r, conv.card as i64);
                let inside = self.b.ins().band(inside, ok);
                let shifted = self.b.ins().ushr(m, r);
                let bit = self.b.ins().band_imm(shifted, 1);
                let zero = self.iconst(0);
                self.b.ins().select(inside, bit, zero)
            }
            Code::SetSize(s) => {
                let m = self.gen(s);
                self.b.ins().popcnt(m)
            }
            Code::SetCmp(op, a, b) => {
                let (x, y) = (self.gen(a), self.gen(b));
                let t = self.set_cmp(*op, x, y);
                self.word(t)
            }
            Code::BigHas(x, conv, Big::Var { offset, words }) => {
                let w = self.gen(x);
                let r = self.b.ins().iadd_imm(w, conv.lo.wrapping_neg());
                let inside = self
                    .b
                    .ins()
                    .icmp_imm(IntCC::UnsignedLessThan, r, conv.card as i64);
                let (join, out) = self.join();
                let read = self.b.create_block();
                let zero = self.iconst(0);
                // A value outside the carrier is in no set.
                self.b
                    .ins()
                    .brif(inside, read, &[], join, &[BlockArg::Value(zero)]);
                self.b.switch_to_block(read);
                let k = self.b.ins().ushr_imm(r, 6);
                let words_read = (conv.card.saturating_sub(1) / 64 + 1).max(*words as u64);
                let bits = self.state_at(*offset, k, words_read);
                let shifted = self.b.ins().ushr(bits, r);
                let bit = self.b.ins().band_imm(shifted, 1);
                self.jump(join, bit);
                self.b.switch_to_block(join);
                out
            }
            Code::BigSize(Big::Var { offset, words }) => {
                let mut n = self.iconst(0);
                for k in 0..*words {
                    let o = offset + k;
                    self.max_word = self.max_word.max(o as usize);
                    let w = self.b.ins().load(I64, TRUSTED, self.st, 8 * o as i32);
                    let c = self.b.ins().popcnt(w);
                    n = self.b.ins().iadd(n, c);
                }
                n
            }
            Code::Quant {
                exists,
                var,
                domain,
                body,
            } => self.quant(*exists, *var, domain, body),
            _ => unreachable!("native_node decides"),
        }
    }

    /// What the tree walk's `eval_built` computes: whether `c` has a word (`I8`), and the
    /// word. Only tuples and `embed`s can be without one.
    fn built(&mut self, c: &Code) -> (Value, Value) {
        match c {
            Code::Tuple { fields, .. } => {
                // The first field without a rank decides: the later ones are not evaluated.
                let out = self.b.create_block();
                let ok = self.b.append_block_param(out, I8);
                let word = self.b.append_block_param(out, I64);
                let (no, zero) = (self.b.ins().iconst(I8, 0), self.iconst(0));
                let mut r = self.iconst(0);
                for (f, conv, stride) in fields {
                    let (ok_f, w) = self.built(f);
                    let k = self.b.ins().iadd_imm(w, conv.lo.wrapping_neg());
                    let inside =
                        self.b
                            .ins()
                            .icmp_imm(IntCC::UnsignedLessThan, k, conv.card as i64);
                    let has = self.b.ins().band(ok_f, inside);
                    let next = self.b.create_block();
                    self.b.ins().brif(
                        has,
                        next,
                        &[],
                        out,
                        &[BlockArg::Value(no), BlockArg::Value(zero)],
                    );
                    self.b.switch_to_block(next);
                    let k = self.b.ins().imul_imm(k, *stride as i64);
                    r = self.b.ins().iadd(r, k);
                }
                let yes = self.b.ins().iconst(I8, 1);
                self.b
                    .ins()
                    .jump(out, &[BlockArg::Value(yes), BlockArg::Value(r)]);
                self.b.switch_to_block(out);
                (ok, word)
            }
            Code::Embed(a, conv) => {
                let (ok_a, w) = self.built(a);
                let k = self.b.ins().iadd_imm(w, conv.lo.wrapping_neg());
                let inside = self
                    .b
                    .ins()
                    .icmp_imm(IntCC::UnsignedLessThan, k, conv.card as i64);
                let ok = self.b.ins().band(ok_a, inside);
                (ok, self.b.ins().iadd_imm(k, 1))
            }
            _ => {
                let w = self.gen(c);
                (self.b.ins().iconst(I8, 1), w)
            }
        }
    }

    /// `1 << r`.
    fn bit(&mut self, r: Value) -> Value {
        let one = self.iconst(1);
        self.b.ins().ishl(one, r)
    }

    fn set_cmp(&mut self, op: SetCmp, x: Value, y: Value) -> Value {
        let eq = self.b.ins().icmp(IntCC::Equal, x, y);
        let rest = self.b.ins().band_not(x, y);
        let sub = self.b.ins().icmp_imm(IntCC::Equal, rest, 0);
        match op {
            SetCmp::Eq => eq,
            SetCmp::Ne => self.b.ins().bxor_imm(eq, 1),
            SetCmp::SubsetEq => sub,
            SetCmp::Subset => {
                let ne = self.b.ins().bxor_imm(eq, 1);
                self.b.ins().band(sub, ne)
            }
        }
    }

    /// `∀`/`∃` over a type's values, a small set's members or a list of words: the body is
    /// evaluated for each in rank order until one decides.
    fn quant(&mut self, exists: bool, var: u32, domain: &Domain, body: &Code) -> Value {
        if let Domain::BigMembers(Big::Var { offset, words }, lo) = domain {
            return self.quant_bits(exists, var, (*offset, *words, *lo), body);
        }
        let (join, out) = self.join();
        let header = self.b.create_block();
        let cursor = self.b.append_block_param(header, I64);
        let visit = self.b.create_block();
        let undecided = self.iconst(!exists as i64);
        let decided = self.iconst(exists as i64);
        // The cursor: a rank (`All`), the members not yet visited (`Members`), a position
        // (`Words`).
        let (start, words): (Value, Option<&Vec<i64>>) = match domain {
            Domain::All(_) => (self.iconst(0), None),
            Domain::Members(s, _) => (self.gen(s), None),
            Domain::Words(ws) => (self.iconst(0), Some(ws)),
            _ => unreachable!("native_node decides"),
        };
        self.jump(header, start);
        self.b.switch_to_block(header);
        let done = match domain {
            Domain::All(conv) => {
                self.b
                    .ins()
                    .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, cursor, conv.card as i64)
            }
            Domain::Members(..) => self.b.ins().icmp_imm(IntCC::Equal, cursor, 0),
            _ => self.b.ins().icmp_imm(
                IntCC::UnsignedGreaterThanOrEqual,
                cursor,
                words.map_or(0, Vec::len) as i64,
            ),
        };
        self.b
            .ins()
            .brif(done, join, &[BlockArg::Value(undecided)], visit, &[]);
        self.b.switch_to_block(visit);
        let (value, next) = match domain {
            Domain::All(conv) => (
                self.b.ins().iadd_imm(cursor, conv.lo),
                self.b.ins().iadd_imm(cursor, 1),
            ),
            Domain::Members(_, lo) => {
                let r = self.b.ins().ctz(cursor);
                let less = self.b.ins().iadd_imm(cursor, -1);
                (
                    self.b.ins().iadd_imm(r, *lo),
                    self.b.ins().band(cursor, less),
                )
            }
            _ => {
                let table = self.iconst(words.map_or(0, |w| w.as_ptr() as i64));
                let off = self.b.ins().ishl_imm(cursor, 3);
                let addr = self.b.ins().iadd(table, off);
                (
                    self.b.ins().load(I64, TRUSTED, addr, 0),
                    self.b.ins().iadd_imm(cursor, 1),
                )
            }
        };
        self.visit(exists, (var, value), body, (join, decided));
        self.jump(header, next);
        self.b.switch_to_block(join);
        out
    }

    /// One element of a quantifier's domain: binds `var` to `value`, evaluates the body, and
    /// leaves for `join` with `decided` when the body decides the quantifier (true for `∃`,
    /// false for `∀`); else goes on in a new block, to the next element.
    fn visit(&mut self, exists: bool, bind: (u32, Value), body: &Code, out: (Block, Value)) {
        let (var, value) = bind;
        let (join, decided) = out;
        self.set_local(var, value);
        let w = self.gen(body);
        let t = self.truth(w);
        let found = if exists {
            t
        } else {
            self.b.ins().bxor_imm(t, 1)
        };
        let again = self.b.create_block();
        self.b
            .ins()
            .brif(found, join, &[BlockArg::Value(decided)], again, &[]);
        self.b.switch_to_block(again);
    }

    /// `∀`/`∃` over the members of a bit-set state variable (`offset`, `words`; the member of
    /// rank `r` is `lo + r`), in rank order.
    fn quant_bits(&mut self, exists: bool, var: u32, set: (u32, u32, i64), body: &Code) -> Value {
        let (offset, words, lo) = set;
        self.max_word = self.max_word.max(offset as usize + words as usize - 1);
        let (join, out) = self.join();
        let undecided = self.iconst(!exists as i64);
        let decided = self.iconst(exists as i64);
        // The word loop (`k`), then the loop over a word's members (`k`, the rest of it).
        let outer = self.b.create_block();
        let k = self.b.append_block_param(outer, I64);
        let inner = self.b.create_block();
        let kk = self.b.append_block_param(inner, I64);
        let rest = self.b.append_block_param(inner, I64);
        let zero = self.iconst(0);
        self.jump(outer, zero);
        self.b.switch_to_block(outer);
        let done = self
            .b
            .ins()
            .icmp_imm(IntCC::UnsignedGreaterThanOrEqual, k, words as i64);
        let read = self.b.create_block();
        self.b
            .ins()
            .brif(done, join, &[BlockArg::Value(undecided)], read, &[]);
        self.b.switch_to_block(read);
        let off = self.b.ins().ishl_imm(k, 3);
        let addr = self.b.ins().iadd(self.st, off);
        let bits = self.b.ins().load(I64, TRUSTED, addr, 8 * offset as i32);
        self.b
            .ins()
            .jump(inner, &[BlockArg::Value(k), BlockArg::Value(bits)]);
        self.b.switch_to_block(inner);
        let (next_word, visit) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(rest, visit, &[], next_word, &[]);
        self.b.switch_to_block(next_word);
        let k1 = self.b.ins().iadd_imm(kk, 1);
        self.jump(outer, k1);
        self.b.switch_to_block(visit);
        let r = self.b.ins().ctz(rest);
        let base = self.b.ins().ishl_imm(kk, 6);
        let rank = self.b.ins().iadd(base, r);
        let value = self.b.ins().iadd_imm(rank, lo);
        let less = self.b.ins().iadd_imm(rest, -1);
        let later = self.b.ins().band(rest, less);
        self.visit(exists, (var, value), body, (join, decided));
        self.b
            .ins()
            .jump(inner, &[BlockArg::Value(kk), BlockArg::Value(later)]);
        self.b.switch_to_block(join);
        out
    }
}
