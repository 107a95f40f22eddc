//! The proof script of one simulation step lemma, shaped like the action's proof block entry.
//!
//! The entry's statements are walked in order. A conditional opens a case split (`proof (cases
//! "P")`, with `True`/`False` cases and an `elseif` as a split nested in the `False` case); the
//! statements after a conditional are copied into each of its branches, which turns a sequence
//! of conditionals into nested ones as §7 of the paper describes. A `fire` adds a specification
//! action, and the state it leads to, to the witness execution; `ignore` adds nothing. At each
//! leaf the witness is given to `sim_goalI` and the remaining goals are left to `auto` with the
//! definitions of both automata, the relation and the invariants.

use super::automaton::AutomatonInfo;
use super::error::{Construct, ExportError};
use super::expr::{term, Env};
use ioa_lang::ast::Quantifier;
use ioa_lang::ir::{BinOp, Expr, ExprKind, Stmt, StmtKind, Type, VarRef};

/// The definitions of the implementation's invariants a leaf may unfold.
#[derive(Debug, Clone)]
pub struct InvariantDefs {
    /// All of them at once (`A_invs_defs`).
    pub all: String,
    /// The conjunction (`A_invs_def`).
    pub conj: String,
    /// The finiteness of the state (`A_finite_def`).
    pub finite: String,
    /// Each invariant's IOA name and definition.
    pub by_name: Vec<(String, String)>,
}

/// What a leaf needs when Z3 compared tuples by an integer field (`b'.ordering < b.ordering`):
/// a case split on the order of the case's witness and the action's parameter, with the
/// invariants quantified over that tuple type instantiated at both.
#[derive(Debug, Clone, Default)]
pub struct OrderHints {
    /// Tuple types compared by a field in the implementation's preconditions or invariants:
    /// (type, the field's Isabelle name, whether it is the type's only field).
    pub fields: Vec<(Type, String, bool)>,
    /// Invariants whose formula starts with `∀` over such types: (IOA name, Isabelle
    /// constant, how many leading bound variables).
    pub prefixed: Vec<(String, String, usize)>,
    /// Invariants without a leading quantifier: (IOA name, Isabelle constant); their
    /// post-state instance (from the invariants theory's step lemma) is given to the leaf.
    pub ground: Vec<(String, String)>,
    /// The action's parameters with their types.
    pub params: Vec<(String, Type)>,
    /// The action's precondition conjuncts (its only transition's).
    pub pre: Vec<Expr>,
    /// The definitions that unfold the transition to its precondition.
    pub pre_defs: Vec<String>,
    /// Precondition conjuncts `∀ x: T (body)` over a compared type: (slot of x, body).
    pub pre_forall: Vec<(u32, Expr)>,
    /// Invariants `∀ y: T (A ⇒ ∀ x: T B)` over a compared type: (IOA name, slot of y, slot of
    /// x, `A ⇒ B`).
    pub nested: Vec<(String, u32, u32, Expr)>,
    /// The implementation's state variables' types, by slot.
    pub state_types: Vec<Type>,
}

impl InvariantDefs {
    /// The definition of the invariant named `name` in IOA.
    pub fn def_of(&self, name: &str) -> Option<&String> {
        self.by_name.iter().find(|(n, _)| n == name).map(|(_, d)| d)
    }
}

/// Z3's unsat cores of a case's order sub-obligations: the order and the core (`None`: not
/// proved or not named).
pub type OrderCores = Vec<super::hints::OrderAnswer>;

/// Writes the proof of one step lemma.
pub struct StepScript<'a> {
    env: Env<'a>,
    b: &'a AutomatonInfo,
    facts: String,
    simp: Vec<String>,
    n_cases: usize,
    invs: Option<InvariantDefs>,
    /// Z3's unsat core per leaf, in the order the leaves are written.
    cores: Vec<Option<Vec<String>>>,
    n_leaves: usize,
    /// Whether the implementation's transition has several cases (an `if` among the facts,
    /// which the leaves split with `if_split_asm`).
    split_cases: bool,
    order: OrderHints,
    /// Per leaf: Z3's cores of the order sub-obligations, when it was asked them (see
    /// `Hints::sim_order_cores`).
    order_cores: Vec<Option<OrderCores>>,
    /// Witnesses obtained from the existential conditions on the path: name, type, fact.
    witnesses: Vec<(String, Type, String)>,
    n_witnesses: usize,
}

impl<'a> StepScript<'a> {
    /// A script whose leaves use the facts `facts` (the lemma's assumptions) and unfold `simp`.
    /// `invs`: the implementation's invariants (when the lemma assumes them); `cores`: the
    /// hypotheses Z3 used in each case of the entry, leaf by leaf (empty: not known).
    pub fn new(
        env: Env<'a>,
        b: &'a AutomatonInfo,
        facts: String,
        simp: Vec<String>,
        invs: Option<InvariantDefs>,
        cores: Vec<Option<Vec<String>>>,
    ) -> Self {
        StepScript {
            env,
            b,
            facts,
            simp,
            n_cases: 0,
            invs,
            cores,
            n_leaves: 0,
            split_cases: false,
            order: OrderHints::default(),
            order_cores: Vec::new(),
            witnesses: Vec::new(),
            n_witnesses: 0,
        }
    }

    /// Leaves that also split the `if`s among the facts (`if_split_asm`): for an implementation
    /// action with several transition cases, whose relation is an `if` over them.
    pub fn split_cases(mut self, yes: bool) -> Self {
        self.split_cases = yes;
        self
    }

    /// Splits leaves on the order of tuples as `order` says (see [`OrderHints`]).
    pub fn with_order(mut self, order: OrderHints) -> Self {
        self.order = order;
        self
    }

    /// Z3's cores of the order sub-obligations, leaf by leaf (see [`OrderCores`]).
    pub fn with_order_cores(mut self, cores: Vec<Option<OrderCores>>) -> Self {
        self.order_cores = cores;
        self
    }

    /// How many leaves the script written so far has.
    pub fn leaves(&self) -> usize {
        self.n_leaves
    }

    fn env_at(&self, b_state: &str) -> Env<'a> {
        let mut env = self.env.clone();
        for q in &mut env.qualified {
            if q.0 == self.b.id {
                q.2 = b_state.to_string();
            }
        }
        env
    }

    /// The proof of the rest of an entry: `stmts` still to run, the specification steps fired so
    /// far (action and state terms), the specification's current state, and the case facts
    /// on the path here.
    pub fn body(
        &mut self,
        stmts: &[Stmt],
        fired: Vec<(String, String, usize)>,
        b_state: String,
        depth: usize,
    ) -> Result<String, ExportError> {
        self.walk(stmts, fired, b_state, Vec::new(), depth)
    }

    fn walk(
        &mut self,
        stmts: &[Stmt],
        mut fired: Vec<(String, String, usize)>,
        mut b_state: String,
        case_facts: Vec<String>,
        depth: usize,
    ) -> Result<String, ExportError> {
        let ind = "  ".repeat(depth);
        for (k, stmt) in stmts.iter().enumerate() {
            match &stmt.kind {
                StmtKind::Ignore => {}
                StmtKind::Fire {
                    automaton,
                    action,
                    args,
                    ..
                } => {
                    if *automaton != self.b.id {
                        return Err(ExportError::Unsupported {
                            construct: Construct::FireOfOtherAutomaton,
                            span: stmt.span,
                        });
                    }
                    let env = self.env_at(&b_state);
                    let info = &self.b.actions[action.0 as usize];
                    let args = args
                        .iter()
                        .map(|a| term(&env, a))
                        .collect::<Result<Vec<_>, _>>()?;
                    let act = if args.is_empty() {
                        info.constructor.clone()
                    } else {
                        format!("({} {})", info.constructor, args.join(" "))
                    };
                    let next = match &info.effect {
                        Some(eff) => {
                            let a: String = args.iter().map(|a| format!("{a} ")).collect();
                            format!("({eff} {a}{b_state})")
                        }
                        None => format!(
                            "(SOME \\<tau>'. {} {b_state} {act} \\<tau>')",
                            self.b.names.trans()
                        ),
                    };
                    fired.push((act, next.clone(), action.0 as usize));
                    b_state = next;
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    let rest = &stmts[k + 1..];
                    let env = self.env_at(&b_state);
                    let (cond, then) = &branches[0];
                    self.n_cases += 1;
                    let fact = format!("c{}", self.n_cases);
                    let mut out = format!(
                        "{ind}show ?thesis\n{ind}proof (cases \"{}\")\n{ind}  case True\n{ind}  note {fact} = this\n",
                        term(&env, cond)?
                    );
                    let mut facts = case_facts.clone();
                    facts.push(fact.clone());
                    let mut seq = then.clone();
                    seq.extend_from_slice(rest);
                    let saved = self.witnesses.len();
                    if let Some(obtain) = self.obtain(&env, cond, &fact)? {
                        out.push_str(&format!("{ind}  {obtain}\n"));
                    }
                    out.push_str(&self.walk(
                        &seq,
                        fired.clone(),
                        b_state.clone(),
                        facts.clone(),
                        depth + 1,
                    )?);
                    self.witnesses.truncate(saved);
                    out.push_str(&format!(
                        "{ind}next\n{ind}  case False\n{ind}  note {fact} = this\n"
                    ));
                    let mut seq: Vec<Stmt> = if branches.len() > 1 {
                        vec![Stmt {
                            kind: StmtKind::If {
                                branches: branches[1..].to_vec(),
                                otherwise: otherwise.clone(),
                            },
                            span: branches[1].0.span,
                        }]
                    } else {
                        otherwise.clone()
                    };
                    seq.extend_from_slice(rest);
                    out.push_str(&self.walk(&seq, fired, b_state, facts, depth + 1)?);
                    out.push_str(&format!("{ind}qed\n"));
                    return Ok(out);
                }
                _ => {
                    return Err(ExportError::Unsupported {
                        construct: Construct::ProofBlockStatement,
                        span: stmt.span,
                    })
                }
            }
        }
        let steps: Vec<String> = fired
            .iter()
            .map(|(a, s, _)| format!("({a}, {s})"))
            .collect();
        let mut simp = self.simp.clone();
        let core = self.cores.get(self.n_leaves).cloned().flatten();
        let order_cores = self.order_cores.get(self.n_leaves).cloned().flatten();
        self.n_leaves += 1;
        let core_words = match (&self.invs, &core) {
            (None, _) => String::new(),
            (Some(_), None) => "Z3's unsat core: not known (all invariants). ".to_string(),
            (Some(_), Some(c)) => format!("Z3's unsat core: {}. ", c.join(", ")),
        };
        if let Some(invs) = &self.invs {
            match &core {
                Some(c) => {
                    simp.push(invs.conj.clone());
                    simp.push(invs.finite.clone());
                    simp.push("int_card_eq_0_iff disjoint_iff".into());
                    for (name, def) in &invs.by_name {
                        if c.contains(name) {
                            simp.push(def.clone());
                        }
                    }
                }
                None => simp.push(invs.all.clone()),
            }
        }
        for (_, _, action) in &fired {
            for d in &self.b.actions[*action].defs {
                if !simp.contains(d) {
                    simp.push(d.clone());
                }
            }
        }
        let mut using = self.facts.clone();
        for f in &case_facts {
            using.push(' ');
            using.push_str(f);
        }
        if let Some(text) = self.order_leaf(
            &ind,
            &steps,
            &simp,
            &using,
            &core,
            &core_words,
            order_cores.as_deref(),
        ) {
            return Ok(text);
        }
        Ok(format!(
            "{ind}(* {core_words}Method: the witness, then auto. *)\n{ind}show ?thesis\n{ind}  using {using}\n{ind}  by - (rule sim_goalI[where steps = \"[{}]\"], auto simp: {} Let_def{})\n",
            steps.join(", "),
            simp.join(" "),
            if self.split_cases {
                " split: if_split_asm"
            } else {
                ""
            }
        ))
    }

    /// In the `True` case of `∃ x (P x)`: `obtain x where w: "P x"`, remembering `x` as a
    /// witness the leaves below may split on. `None` when a bound name would hide a parameter
    /// or an earlier witness.
    fn obtain(
        &mut self,
        env: &Env<'a>,
        cond: &ioa_lang::ir::Expr,
        fact: &str,
    ) -> Result<Option<String>, ExportError> {
        let ExprKind::Quant(Quantifier::Exists, vars, body) = &cond.kind else {
            return Ok(None);
        };
        let names: Vec<(String, Type)> = vars
            .iter()
            .map(|(slot, ty)| (env.local(*slot, ty), ty.clone()))
            .collect();
        let taken = |n: &String| {
            self.order.params.iter().any(|(p, _)| p == n)
                || self.witnesses.iter().any(|(w, _, _)| w == n)
        };
        if names.iter().any(|(n, _)| taken(n)) {
            return Ok(None);
        }
        self.n_witnesses += 1;
        let w = format!("w{}", self.n_witnesses);
        let text = format!(
            "from {fact} obtain {} where {w}: \"{}\" by blast",
            names
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            term(env, body)?
        );
        for (n, ty) in names {
            self.witnesses.push((n, ty, w.clone()));
        }
        Ok(Some(text))
    }

    /// The `less` (`k` = 0) or `greater` (2) case of an order leaf when Z3 proved that case with
    /// a core and settled each escape atom `older ∉ X` with a core: each settled atom as a
    /// `have` by metis with only its query's invariants, the order formulas instantiated at
    /// (newer, older) (the transition's `∀ x: T` preconditions at the witness, the core's
    /// nested invariants `∀ y (A ⇒ ∀ x B)`), then auto with the relation and the transition
    /// only. `None` when an answer is missing or a settled atom's core counts (`size`): the
    /// case keeps the plain order leaf.
    #[allow(clippy::too_many_arguments)]
    fn settled_case(
        &self,
        ind: &str,
        k: usize,
        steps: &[String],
        simp: &[String],
        using: &str,
        wfact: &str,
        answers: &[super::hints::OrderAnswer],
    ) -> Option<String> {
        use std::cmp::Ordering;
        let invs = self.invs.as_ref()?;
        let order = [Ordering::Less, Ordering::Equal, Ordering::Greater][k];
        if order == Ordering::Equal {
            return None;
        }
        let (w, ty, _) = self.witnesses.first()?;
        let (p, _) = self.order.params.iter().find(|(_, t)| t == ty)?;
        let (older, newer) = if order == Ordering::Less {
            (w.as_str(), p.as_str())
        } else {
            (p.as_str(), w.as_str())
        };
        let mine: Vec<&super::hints::OrderAnswer> =
            answers.iter().filter(|a| a.order == order).collect();
        let case_core = mine.iter().find(|a| a.settled.is_none())?.core.as_ref()?;
        let settled: Vec<&super::hints::OrderAnswer> = mine
            .iter()
            .copied()
            .filter(|a| a.settled.is_some())
            .collect();
        if settled.is_empty() || settled.iter().any(|a| a.core.is_none() || a.counting) {
            return None;
        }
        let i2 = format!("{ind}  ");
        let mut out = String::new();
        let env = self.env.clone();
        let bind = |env: &mut Env<'a>, slot: u32, name: &str| {
            if env.locals.len() <= slot as usize {
                env.locals.resize(slot as usize + 1, None);
            }
            env.locals[slot as usize] = Some(name.to_string());
        };
        let span = ioa_lang::span::Span::default();
        let mk = |kind, ty| Expr { kind, ty, span };
        // The transition's preconditions, as facts for the settled atoms' metis.
        let mut pre_facts = Vec::new();
        for (n, pre) in self.order.pre.iter().enumerate() {
            let f = format!("pre{}", n + 1);
            out.push_str(&format!(
                "{i2}have {f}: \"{}\" using T by (simp add: {})\n",
                term(&env, pre).ok()?,
                self.order.pre_defs.join(" ")
            ));
            pre_facts.push(f);
        }
        let mut case_facts: Vec<&str> = using
            .split_whitespace()
            .filter(|f| !matches!(*f, "F" | "I" | "T"))
            .collect();
        case_facts.push(wfact);
        let mut nds = Vec::new();
        for (n, a) in settled.iter().enumerate() {
            let slot = a.settled?;
            let tmp = env.locals.len().max(64) as u32;
            let mut e = env.clone();
            bind(&mut e, tmp, older);
            let set_ty = self.order.state_types.get(slot as usize)?.clone();
            let atom = mk(
                ExprKind::Binary(
                    BinOp::NotIn,
                    Box::new(mk(ExprKind::Var(VarRef::Local(tmp)), ty.clone())),
                    Box::new(mk(ExprKind::Var(VarRef::State(slot)), set_ty)),
                ),
                Type::Bool,
            );
            let defs: Vec<&String> = a
                .core
                .as_ref()?
                .iter()
                .filter_map(|c| invs.def_of(c))
                .collect();
            let f = format!("nd{}", n + 1);
            out.push_str(&format!(
                "{i2}(* Z3 settles `{}` in this case with: {}. *)\n{i2}have {f}: \"{}\" using I {} {} unfolding {} {} by (metis disjoint_iff)\n",
                term(&e, &atom).ok()?,
                a.core.as_ref()?.join(", "),
                term(&e, &atom).ok()?,
                case_facts.join(" "),
                pre_facts.join(" "),
                invs.conj,
                defs.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(" ")
            ));
            nds.push(f);
        }
        // The order formulas at (newer, older).
        let mut inst = Vec::new();
        if order == Ordering::Less {
            for (slot, body) in &self.order.pre_forall {
                let mut e = env.clone();
                bind(&mut e, *slot, older);
                let f = format!("p{}", inst.len() + 1);
                out.push_str(&format!(
                    "{i2}have {f}: \"{}\" using T by (simp add: {})\n",
                    term(&e, body).ok()?,
                    self.order.pre_defs.join(" ")
                ));
                inst.push(f);
            }
        }
        for (name, y, x, body) in &self.order.nested {
            if !case_core.contains(name) {
                continue;
            }
            let def = invs.def_of(name)?;
            let mut e = env.clone();
            bind(&mut e, *y, newer);
            bind(&mut e, *x, older);
            let f = format!("p{}", inst.len() + 1);
            out.push_str(&format!(
                "{i2}have {f}: \"{}\" using I by (simp add: {} {def})\n",
                term(&e, body).ok()?,
                invs.conj
            ));
            inst.push(f);
        }
        let inv_defs: Vec<&String> = invs.by_name.iter().map(|(_, d)| d).collect();
        let plain: Vec<&String> = simp
            .iter()
            .filter(|d| {
                **d != invs.all
                    && **d != invs.conj
                    && **d != invs.finite
                    && d.as_str() != "int_card_eq_0_iff disjoint_iff"
                    && !inv_defs.contains(d)
            })
            .collect();
        let facts: Vec<&str> = using.split_whitespace().filter(|f| *f != "I").collect();
        out.push_str(&format!(
            "{i2}show ?thesis\n{i2}  using {} {} {} {} {}\n{i2}  by - (rule sim_goalI[where steps = \"[{}]\"], auto simp: {})\n",
            facts.join(" "),
            ["less", "equal", "greater"][k],
            wfact,
            nds.join(" "),
            inst.join(" "),
            steps.join(", "),
            plain.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(" ")
        ));
        Some(out)
    }

    /// The leaf as a case split on the order of a witness and a parameter of a tuple type
    /// compared by a field, when there are both; `None` otherwise.
    #[allow(clippy::too_many_arguments)]
    fn order_leaf(
        &self,
        ind: &str,
        steps: &[String],
        simp: &[String],
        using: &str,
        core: &Option<Vec<String>>,
        core_words: &str,
        order_cores: Option<&[super::hints::OrderAnswer]>,
    ) -> Option<String> {
        let invs = self.invs.as_ref()?;
        let (w, ty, wfact) = self.witnesses.first()?;
        let (_, field, only) = self.order.fields.iter().find(|(t, _, _)| t == ty)?;
        let (p, _) = self.order.params.iter().find(|(_, t)| t == ty)?;
        let in_set = |name: &str| core.as_ref().is_none_or(|c| c.iter().any(|x| x == name));
        let prefixed: Vec<&(String, String, usize)> = self
            .order
            .prefixed
            .iter()
            .filter(|(n, _, _)| in_set(n))
            .collect();
        // The simp set: as the plain leaf's, but the invariants instantiated below stay folded.
        let mut simp: Vec<String> = simp
            .iter()
            .filter(|d| {
                **d != invs.all && !prefixed.iter().any(|(n, _, _)| invs.def_of(n) == Some(d))
            })
            .cloned()
            .collect();
        if core.is_none() {
            simp.push(invs.conj.clone());
            simp.push(invs.finite.clone());
            simp.push("int_card_eq_0_iff disjoint_iff".into());
            for (name, def) in &invs.by_name {
                if !prefixed.iter().any(|(n, _, _)| n == name) {
                    simp.push(def.clone());
                }
            }
        }
        simp.push("ex_upd_split".into());
        let mut out = format!(
            "{ind}(* {core_words}Method: the case's witness {w} and the order of {field} {w} and {field} {p} (Z3 compared them), the invariants over them instantiated, then auto. *)\n"
        );
        let mut facts = vec![wfact.clone()];
        for (k, (name, konst, n)) in prefixed.iter().enumerate() {
            let def = invs.def_of(name)?;
            let fact = format!("j{}", k + 1);
            out.push_str(&format!(
                "{ind}have {fact}: \"{konst} \\<sigma>\" using I by (simp add: {})\n",
                invs.conj
            ));
            let terms = [p.as_str(), w.as_str()];
            let mut tuples: Vec<Vec<&str>> = vec![vec![]];
            for _ in 0..*n {
                tuples = tuples
                    .into_iter()
                    .flat_map(|t| {
                        terms.iter().map(move |x| {
                            let mut t = t.clone();
                            t.push(*x);
                            t
                        })
                    })
                    .collect();
            }
            for t in tuples {
                let specs: String = t.iter().map(|x| format!(", THEN spec[of _ {x}]")).collect();
                facts.push(format!("{fact}[unfolded {def}{specs}]"));
            }
        }
        for (name, konst) in &self.order.ground {
            if in_set(name) {
                let def = invs.def_of(name)?;
                facts.push(format!("{konst}_step[OF I T, unfolded {def}]"));
            }
        }
        out.push_str(&format!(
            "{ind}show ?thesis\n{ind}proof (cases rule: linorder_cases[of \"{field} {w}\" \"{field} {p}\"])\n"
        ));
        for (k, case) in ["less", "equal", "greater"].iter().enumerate() {
            if k > 0 {
                out.push_str(&format!("{ind}next\n"));
            }
            out.push_str(&format!("{ind}  case {case}\n"));
            let asked = order_cores.and_then(|c| {
                c.iter().find(|a| {
                    a.settled.is_none()
                        && crate::obligations::simulation::order_word(a.order) == *case
                })
            });
            if let Some(a) = asked {
                let words = match &a.core {
                    Some(c) if c.is_empty() => "none".to_string(),
                    Some(c) => c.join(", "),
                    None => "not known".to_string(),
                };
                let settled = self.settled_case(
                    ind,
                    k,
                    steps,
                    &simp,
                    using,
                    wfact,
                    order_cores.unwrap_or_default(),
                );
                let method = match (&settled, *case == "equal" && *only) {
                    (Some(_), _) => " Method: each settled atom by metis with the invariants Z3 settled it with, the order formulas at the newer and the older, then auto with the relation and the transition only.",
                    (None, true) => " Method: the witness is the parameter (their field identifies them), the invariants over them instantiated, then auto.",
                    (None, false) => " Method: the invariants over the witness and the parameter instantiated, then auto.",
                };
                out.push_str(&format!(
                    "{ind}  (* Z3's unsat core of this order case (the witness a constant): {words}.{method} *)\n"
                ));
                if let Some(text) = settled {
                    out.push_str(&text);
                    continue;
                }
            }
            let mut extra = String::new();
            if *case == "equal" && *only {
                out.push_str(&format!(
                    "{ind}  have e: \"{w} = {p}\" using equal by (cases {w}, cases {p}) simp\n"
                ));
                extra.push_str(" e");
            }
            out.push_str(&format!(
                "{ind}  show ?thesis\n{ind}    using {using} {case}{extra} {}\n{ind}    by - (rule sim_goalI[where steps = \"[{}]\"], auto simp: {})\n",
                facts.join(" "),
                steps.join(", "),
                simp.join(" ")
            ));
        }
        out.push_str(&format!("{ind}qed\n"));
        Some(out)
    }
}
