//! A generator of well-typed IOA models for differential tests: a primitive automaton over
//! bounded integers, Booleans, sets of a small enumeration and a bounded sequence, with guarded
//! actions (some with a parameter), effects that keep every value in range, and an invariant
//! that sometimes fails. Every choice comes from a seeded ChaCha generator, so a seed names a
//! model; [`Model::text`] is IOA source for `ioa`.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Integers stay in `0..INT_BOUND` (effects reduce with `mod`).
const INT_BOUND: i64 = 4;
/// Sequences stay shorter than this (appends are guarded).
const SEQ_BOUND: i64 = 3;

/// One generated model.
pub struct Model {
    /// Its seed.
    pub seed: u64,
    /// IOA source: one automaton `Gen` and one invariant `Inv` of it.
    pub text: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Int,
    Bool,
    Set,
    Seq,
}

struct Gen {
    rng: ChaCha8Rng,
    vars: Vec<(String, Ty)>,
}

impl Gen {
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.rng.random_range(0..xs.len())]
    }

    fn vars_of(&self, ty: Ty) -> Vec<String> {
        self.vars
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n.clone())
            .collect()
    }

    /// An integer expression (non-negative) over the state and, if any, the parameter `p`'s
    /// enumeration index is not used: parameters are elements.
    fn int(&mut self, depth: u32) -> String {
        let ints = self.vars_of(Ty::Int);
        let choice = if depth == 0 {
            self.rng.random_range(0..3)
        } else {
            self.rng.random_range(0..6)
        };
        match choice {
            0 if !ints.is_empty() => self.pick(&ints).clone(),
            0 | 1 => self.rng.random_range(0..INT_BOUND).to_string(),
            2 => {
                let sets = self.vars_of(Ty::Set);
                let seqs = self.vars_of(Ty::Seq);
                if !sets.is_empty() && self.rng.random_bool(0.5) {
                    format!("size({})", self.pick(&sets).clone())
                } else if !seqs.is_empty() {
                    format!("len({})", self.pick(&seqs).clone())
                } else {
                    "1".to_string()
                }
            }
            3 => format!("{} + {}", self.int(depth - 1), self.int(depth - 1)),
            4 => format!(
                "mod({} * {}, {INT_BOUND})",
                self.int(depth - 1),
                self.int(depth - 1)
            ),
            _ => format!(
                "(if {} then {} else {})",
                self.boolean(depth - 1),
                self.int(depth - 1),
                self.int(depth - 1)
            ),
        }
    }

    fn elem(&mut self, param: bool) -> String {
        if param && self.rng.random_bool(0.5) {
            "p".to_string()
        } else {
            self.pick(&["a", "b", "c"]).to_string()
        }
    }

    fn boolean(&mut self, depth: u32) -> String {
        let bools = self.vars_of(Ty::Bool);
        let choice = if depth == 0 {
            self.rng.random_range(0..3)
        } else {
            self.rng.random_range(0..8)
        };
        match choice {
            0 if !bools.is_empty() => self.pick(&bools).clone(),
            0 | 1 => {
                let op = self.pick(&["<", "≤", "=", "≠"]).to_string();
                format!("{} {op} {}", self.int(0), self.int(0))
            }
            2 => {
                let sets = self.vars_of(Ty::Set);
                if sets.is_empty() {
                    "true".to_string()
                } else {
                    let e = self.elem(false);
                    format!("{e} ∈ {}", self.pick(&sets).clone())
                }
            }
            3 => format!(
                "({} ∧ {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            4 => format!(
                "({} ∨ {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            5 => format!("¬({})", self.boolean(depth - 1)),
            6 => format!(
                "({} ⇒ {})",
                self.boolean(depth - 1),
                self.boolean(depth - 1)
            ),
            _ => {
                let sets = self.vars_of(Ty::Set);
                if sets.len() >= 2 {
                    format!("{} ⊆ {}", sets[0], sets[1])
                } else {
                    "false".to_string()
                }
            }
        }
    }

    /// One assignment that keeps its variable in range.
    fn assign(&mut self, param: bool) -> String {
        let (name, ty) = self.pick(&self.vars.clone()).clone();
        match ty {
            Ty::Int => format!("{name} := mod({}, {INT_BOUND})", self.int(2)),
            Ty::Bool => format!("{name} := {}", self.boolean(2)),
            Ty::Set => {
                let e = self.elem(param);
                match self.rng.random_range(0..3) {
                    0 => format!("{name} := insert({e}, {name})"),
                    1 => format!("{name} := delete({e}, {name})"),
                    _ => {
                        let others = self.vars_of(Ty::Set);
                        format!("{name} := {name} ∪ {}", self.pick(&others).clone())
                    }
                }
            }
            Ty::Seq => {
                if self.rng.random_bool(0.5) {
                    let e = self.elem(param);
                    format!(
                        "if len({name}) < {} then {name} := {name} ⊢ {e} fi",
                        SEQ_BOUND - 1
                    )
                } else {
                    format!("if {name} ≠ {{}} then {name} := tail({name}) fi")
                }
            }
        }
    }
}

impl Model {
    /// The model of `seed`.
    pub fn generate(seed: u64) -> Model {
        let mut g = Gen {
            rng: ChaCha8Rng::seed_from_u64(seed),
            vars: Vec::new(),
        };
        let n_vars = g.rng.random_range(2..5);
        let mut decls = Vec::new();
        for k in 0..n_vars {
            let ty = *g.pick(&[Ty::Int, Ty::Bool, Ty::Set, Ty::Seq]);
            let name = format!("v{k}");
            let decl = match ty {
                Ty::Int => format!("{name}: Int := {}", g.rng.random_range(0..INT_BOUND)),
                Ty::Bool => format!("{name}: Bool := {}", g.rng.random_bool(0.5)),
                Ty::Set => format!("{name}: Set[E] := {{}}"),
                Ty::Seq => format!("{name}: Seq[E] := {{}}"),
            };
            decls.push(decl);
            g.vars.push((name, ty));
        }
        let n_actions = g.rng.random_range(1..4);
        let mut sig = Vec::new();
        let mut transitions = Vec::new();
        for k in 0..n_actions {
            let param = g.rng.random_bool(0.5);
            let head = if param {
                format!("act{k}(p)")
            } else {
                format!("act{k}")
            };
            sig.push(if param {
                format!("act{k}(p: E)")
            } else {
                format!("act{k}")
            });
            let pre = g.boolean(2);
            let n_eff = g.rng.random_range(1..3);
            let effs: Vec<String> = (0..n_eff).map(|_| g.assign(param)).collect();
            transitions.push(format!(
                "    internal {head}\n      pre {pre}\n      eff {}",
                effs.join(";\n          ")
            ));
        }
        let inv = g.boolean(2);
        let text = format!(
            "% generated model, seed {seed}\ntype E = enumeration of a, b, c\n\nautomaton Gen\n  signature\n    internal {}\n  states\n    {}\n  transitions\n{}\n\ninvariant Inv of Gen: {inv}\n",
            sig.join(", "),
            decls.join(",\n    "),
            transitions.join("\n")
        );
        Model { seed, text }
    }
}
