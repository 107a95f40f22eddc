//! Precondition conjuncts that, once false, stay false in every later state: an instance they
//! disable can never fire again, so its necessary enabling set is empty and it brings nothing
//! into a stubborn closure ([`super::stubborn`]).
//!
//! Protocols are full of such guards, and without this they chain every process into every
//! closure. In the composite Paxos, a receipt of a ballot-1 prepare that was already delivered
//! is disabled by the missing message; its sender is `prepare(1, b)`, disabled because node 1
//! moved past the ballot (`b.ordering > max(cbal, maxBal)`); and the writers of `cbal` and
//! `maxBal` are every receipt of node 1, whose own senders are the other nodes. But `cbal` and
//! `maxBal` never decrease, so that guard never holds again: the chain stops there.
//!
//! What is recognised, from the text of the automaton that owns the variables (only its own
//! transitions write them, whichever action fires them):
//! - a variable's *kind*: written only `true` (`crashed := true`), only a non-nil value
//!   (`learned := embed(…)`), or never decreased (`x := e` where a precondition conjunct or an
//!   enclosing `if` condition says `e > x`, `e ≥ x` or `e > max(…, x, …)`, read before anything
//!   it reads is assigned; or `x := x + c` with `c ≥ 0`; or `x := max(x, …)`). A variable that
//!   is never written has every kind;
//! - a conjunct that stays false: one that reads no state; `¬x` with `x` written only `true`; `x = nil` with `x` only
//!   made non-nil; `e > g`, `e ≥ g` (or `g < e`, `g ≤ e`) where `e` reads only the action's
//!   arguments, parameters and constants and `g` never decreases (a never-decreased variable,
//!   or `max`, `min` and `+` of such and of constants); and `a ∨ b` with both stable.
//!
//! Anything else is not stable: the analysis is sound by being narrow.

use ioa_lang::ir::{
    AutomatonBody, BinOp, Builtin, Expr, ExprKind, Primitive, Spec, Stmt, StmtKind, UnOp, VarRef,
};

use crate::ir_walk::walk_expr;
use interpreter::int_bounds::conjuncts;

/// How a state variable's value can change, over every transition of its automaton.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Kind {
    /// Every assignment writes `true`.
    only_true: bool,
    /// Every assignment writes `embed(…)`.
    only_non_nil: bool,
    /// No assignment decreases it.
    up: bool,
}

const UNWRITTEN: Kind = Kind {
    only_true: true,
    only_non_nil: true,
    up: true,
};

/// The kinds of one primitive automaton's state variables.
pub(super) struct Kinds {
    kinds: Vec<Kind>,
}

/// The kinds of every automaton's variables (`None` for a composite), or nothing at all when
/// some transition fires another automaton's action.
pub(super) fn kinds(spec: &Spec) -> Option<Vec<Option<Kinds>>> {
    let fires = spec.automata.iter().any(|a| match &a.body {
        AutomatonBody::Primitive(p) => p.transitions.iter().any(|t| t.eff.iter().any(has_fire)),
        _ => false,
    });
    if fires {
        return None;
    }
    Some(
        spec.automata
            .iter()
            .map(|a| match &a.body {
                AutomatonBody::Primitive(p) => Some(Kinds::of(p)),
                _ => None,
            })
            .collect(),
    )
}

fn has_fire(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Fire { .. } => true,
        StmtKind::If {
            branches,
            otherwise,
        } => branches.iter().any(|(_, b)| b.iter().any(has_fire)) || otherwise.iter().any(has_fire),
        StmtKind::ForIn { body, .. }
        | StmtKind::ForWhere { body, .. }
        | StmtKind::While { body, .. } => body.iter().any(has_fire),
        _ => false,
    }
}

/// A variable read or written in an effect: a state slot or a local.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Var {
    State(u32),
    Local(u32),
}

/// The variables `e` reads; `None` when it reads something else (another automaton's variable,
/// an auxiliary one).
pub(super) fn reads(e: &Expr) -> Option<Vec<Var>> {
    let mut out = Vec::new();
    let mut known = true;
    walk_expr(e, &mut |x| match &x.kind {
        ExprKind::Var(VarRef::State(s)) => out.push(Var::State(*s)),
        ExprKind::Var(VarRef::Local(k)) => out.push(Var::Local(*k)),
        ExprKind::Var(VarRef::Param(_) | VarRef::QualifiedParam { .. }) => {}
        ExprKind::Var(_) | ExprKind::Choose { .. } => known = false,
        _ => {}
    });
    known.then_some(out)
}

impl Kinds {
    fn of(p: &Primitive) -> Kinds {
        let mut kinds = Kinds {
            kinds: vec![UNWRITTEN; p.state.len()],
        };
        for t in &p.transitions {
            let mut facts: Vec<(&Expr, usize)> = t
                .where_clause
                .iter()
                .chain(&t.pre)
                .map(|e| (e, 0))
                .collect();
            let mut written = Vec::new();
            kinds.walk(&t.eff, &mut facts, &mut written, false);
        }
        kinds
    }

    /// Walks statements in order. `written` lists what the effect assigned so far, in order;
    /// `facts` the conditions known true when `written` had the given length (valid while
    /// nothing they read is among the later entries). `in_loop` when facts cannot be used (an
    /// earlier iteration may have changed what they read).
    fn walk<'e>(
        &mut self,
        body: &'e [Stmt],
        facts: &mut Vec<(&'e Expr, usize)>,
        written: &mut Vec<Var>,
        in_loop: bool,
    ) {
        for s in body {
            match &s.kind {
                StmtKind::Assign { target, value } => {
                    let var = match target.root {
                        VarRef::State(x) => Var::State(x),
                        VarRef::Local(k) => Var::Local(k),
                        _ => continue,
                    };
                    if let Var::State(x) = var {
                        let kind = &mut self.kinds[x as usize];
                        if !target.path.is_empty() {
                            *kind = Kind {
                                only_true: false,
                                only_non_nil: false,
                                up: false,
                            };
                        } else {
                            kind.only_true &= matches!(value.kind, ExprKind::Bool(true));
                            kind.only_non_nil &=
                                matches!(value.kind, ExprKind::Call(Builtin::Embed, _));
                            if kind.up {
                                let usable: &[(&Expr, usize)] = if in_loop { &[] } else { facts };
                                kind.up = never_below(value, x, usable, written);
                            }
                        }
                    }
                    written.push(var);
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    let mut after = written.clone();
                    for (c, b) in branches {
                        let mut w = written.clone();
                        let depth = facts.len();
                        let now = written.len();
                        facts.extend(conjuncts(c).into_iter().map(|e| (e, now)));
                        self.walk(b, facts, &mut w, in_loop);
                        facts.truncate(depth);
                        after.extend(w);
                    }
                    let mut w = written.clone();
                    self.walk(otherwise, facts, &mut w, in_loop);
                    after.extend(w);
                    *written = after;
                }
                StmtKind::ForIn { var, body, .. } | StmtKind::ForWhere { var, body, .. } => {
                    written.push(Var::Local(*var));
                    let mut w = written.clone();
                    self.walk(body, facts, &mut w, true);
                    // Everything the body writes, once or more.
                    *written = w;
                }
                StmtKind::While { body, .. } => {
                    let mut w = written.clone();
                    self.walk(body, facts, &mut w, true);
                    *written = w;
                }
                StmtKind::Fire { .. } | StmtKind::Ignore | StmtKind::Yield(_) => {}
                StmtKind::Ensure(_) => {}
            }
        }
    }
}

/// Whether `x := value` never decreases state variable `x`, given `facts`, each true when the
/// effect had made the first so many writes of `written`.
fn never_below(value: &Expr, x: u32, facts: &[(&Expr, usize)], written: &[Var]) -> bool {
    let is_x = |e: &Expr| matches!(e.kind, ExprKind::Var(VarRef::State(s)) if s == x);
    match &value.kind {
        _ if is_x(value) => return true,
        ExprKind::Binary(BinOp::Add, a, b)
            if (is_x(a) && non_negative(b)) || (is_x(b) && non_negative(a)) =>
        {
            return true
        }
        ExprKind::Call(Builtin::Max, args) if args.iter().any(is_x) => return true,
        _ => {}
    }
    let Some(value_reads) = reads(value) else {
        return false;
    };
    let unchanged_since =
        |vars: &[Var], since: usize| vars.iter().all(|v| !written[since..].contains(v));
    facts.iter().any(|&(f, since)| {
        let (big, small) = match &f.kind {
            ExprKind::Binary(BinOp::Gt | BinOp::Ge, a, b) => (a, b),
            ExprKind::Binary(BinOp::Lt | BinOp::Le, a, b) => (b, a),
            _ => return false,
        };
        // The fact and the value read the same variables, unchanged since the fact held.
        same(big, value)
            && at_least(small, x)
            && unchanged_since(&value_reads, since)
            && reads(f).is_some_and(|vars| unchanged_since(&vars, since))
    })
}

/// Whether `e` is a non-negative integer literal.
fn non_negative(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Int(c) if c >= 0)
}

/// Whether `e ≥ x` holds whatever the state: `e` is `x`, or a `max` one of whose arguments is.
fn at_least(e: &Expr, x: u32) -> bool {
    match &e.kind {
        ExprKind::Var(VarRef::State(s)) => *s == x,
        ExprKind::Call(Builtin::Max, args) => args.iter().any(|a| at_least(a, x)),
        _ => false,
    }
}

/// Structural equality, spans aside, for the expressions [`never_below`] compares (anything
/// else is unequal).
pub(super) fn same(a: &Expr, b: &Expr) -> bool {
    match (&a.kind, &b.kind) {
        (ExprKind::Var(x), ExprKind::Var(y)) => x == y,
        (ExprKind::Int(x), ExprKind::Int(y)) => x == y,
        (ExprKind::Bool(x), ExprKind::Bool(y)) => x == y,
        (ExprKind::Nil, ExprKind::Nil) => true,
        (ExprKind::EnumConst(x), ExprKind::EnumConst(y)) => x == y,
        (ExprKind::Field(x, i), ExprKind::Field(y, j)) => i == j && same(x, y),
        (ExprKind::NullVal(x), ExprKind::NullVal(y)) => same(x, y),
        (ExprKind::Unary(o, x), ExprKind::Unary(p, y)) => o == p && same(x, y),
        (ExprKind::Binary(o, x1, x2), ExprKind::Binary(p, y1, y2)) => {
            o == p && same(x1, y1) && same(x2, y2)
        }
        (ExprKind::Call(f, xs), ExprKind::Call(g, ys)) => {
            f == g && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        (ExprKind::Tuple(xs), ExprKind::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
        }
        _ => false,
    }
}

impl Kinds {
    /// Whether conjunct `e` of a transition with `n_args` action parameters, once false, stays
    /// false in every later state.
    pub(super) fn stays_false(&self, e: &Expr, n_args: u32) -> bool {
        let var = |e: &Expr| match e.kind {
            ExprKind::Var(VarRef::State(s)) => self.kinds.get(s as usize).copied(),
            _ => None,
        };
        if self.fixed(e, n_args) {
            // It reads no state: its value never changes.
            return true;
        }
        match &e.kind {
            ExprKind::Unary(UnOp::Not, x) => var(x).is_some_and(|k| k.only_true),
            ExprKind::Binary(BinOp::Eq, a, b) => match (&a.kind, &b.kind) {
                (_, ExprKind::Nil) => var(a).is_some_and(|k| k.only_non_nil),
                (ExprKind::Nil, _) => var(b).is_some_and(|k| k.only_non_nil),
                _ => false,
            },
            ExprKind::Binary(BinOp::Gt | BinOp::Ge, fixed, g)
            | ExprKind::Binary(BinOp::Lt | BinOp::Le, g, fixed) => {
                self.fixed(fixed, n_args) && self.never_decreases(g, n_args)
            }
            ExprKind::Binary(BinOp::Or, a, b) => {
                self.stays_false(a, n_args) && self.stays_false(b, n_args)
            }
            _ => false,
        }
    }

    /// Whether `e` reads only the action's arguments, parameters and constants.
    fn fixed(&self, e: &Expr, n_args: u32) -> bool {
        let mut fixed = true;
        walk_expr(e, &mut |x| match &x.kind {
            ExprKind::Var(VarRef::Param(_) | VarRef::QualifiedParam { .. }) => {}
            ExprKind::Var(VarRef::Local(k)) if *k < n_args => {}
            ExprKind::Var(_) | ExprKind::Choose { .. } | ExprKind::Quant(..) => fixed = false,
            _ => {}
        });
        fixed
    }

    /// Whether `e`'s value never decreases from one state to a later one.
    fn never_decreases(&self, e: &Expr, n_args: u32) -> bool {
        match &e.kind {
            ExprKind::Var(VarRef::State(s)) => self.kinds.get(*s as usize).is_some_and(|k| k.up),
            ExprKind::Call(Builtin::Max | Builtin::Min, args) => {
                args.iter().all(|a| self.never_decreases(a, n_args))
            }
            ExprKind::Binary(BinOp::Add, a, b) => {
                self.never_decreases(a, n_args) && self.never_decreases(b, n_args)
            }
            _ => self.fixed(e, n_args),
        }
    }
}

/// One precondition conjunct (or `where` clause) of a primitive automaton's transition, and
/// whether it stays false once false: what [`classify`] reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    /// The automaton's name.
    pub automaton: String,
    /// The action's name.
    pub action: String,
    /// The conjunct.
    pub span: ioa_lang::span::Span,
    /// Whether it stays false once false.
    pub stays_false: bool,
}

/// Every conjunct of every primitive automaton's transitions in `spec`, in text order, with
/// the analysis's verdict (for tests and for reading what the reduction will use).
pub fn classify(spec: &Spec) -> Vec<Classified> {
    let all = kinds(spec);
    let mut out = Vec::new();
    for (a, automaton) in spec.automata.iter().enumerate() {
        let AutomatonBody::Primitive(p) = &automaton.body else {
            continue;
        };
        let kinds = all.as_ref().and_then(|k| k[a].as_ref());
        for t in &p.transitions {
            let action = &automaton.actions[t.action.0 as usize];
            let n_args = action.params.len() as u32;
            for e in t.where_clause.iter().chain(&t.pre) {
                out.push(Classified {
                    automaton: automaton.name.clone(),
                    action: action.name.clone(),
                    span: e.span,
                    stays_false: kinds.is_some_and(|k| k.stays_false(e, n_args)),
                });
            }
        }
    }
    out
}
