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
use ioa_lang::ir::{Stmt, StmtKind};

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
        }
    }

    /// Leaves that also split the `if`s among the facts (`if_split_asm`): for an implementation
    /// action with several transition cases, whose relation is an `if` over them.
    pub fn split_cases(mut self, yes: bool) -> Self {
        self.split_cases = yes;
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
                    out.push_str(&self.walk(
                        &seq,
                        fired.clone(),
                        b_state.clone(),
                        facts.clone(),
                        depth + 1,
                    )?);
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
}
