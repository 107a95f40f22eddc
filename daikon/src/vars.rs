//! The variables that invariants are stated over, built once from a machine's state layout.
//!
//! Every state variable is a variable. An array or a map over a finite index type (`voted:
//! Array[Node, Set[Ballot]]`, `votes: Map[Node, Int]`) becomes an *element variable* `voted[n]`
//! that depends on a quantified index `n: Node`; its invariants hold for every index and are
//! printed under `∀ n: Node (…)`. A map may lack a key (looking it up is then an error), so a
//! map element is *absent* at such a key: no invariant is checked there, and its invariants are
//! printed under the guard `defined(votes, n) ⇒ …`, which is true of every key of a map built
//! with `constant(v)`. Derived variables are added after the variables they are computed from
//! (so a state can be evaluated in order):
//!
//! - `size(S)` for every set, multiset or sequence variable;
//! - `A ∩ B` for every two set variables with the same element type (only its size takes part in
//!   invariants: `size(A ∩ B) = 0` is proposed as the disjointness relation instead);
//! - for an array or map with `Null` entries (`val: Array[Ballot, Null[Value]]`), the set of
//!   indices whose entry is not `nil` (`keys(val)`, a `Set[Ballot]`) and the set of non-`nil`
//!   values (`values(val)`, a `Set[Value]`);
//! - for any other array, the set of its *non-default keys*: the indices whose entry differs from
//!   the default of the array in the start state (`keys(voted)`, the nodes with `voted[n] ≠ {}`
//!   for `voted := constant({})`); for a map, the keys that are defined and, if the start state's
//!   map has a default, differ from it — see [`KeyRule`];
//! - `size(keys(a))` of every such key set, which takes part in bounds and constants only.
//!
//! The key and value sets have no IOA spelling of their own; the printer writes the invariants
//! over them with a quantifier (`∀ b: Ballot (val[b] ≠ nil ⇒ val[b].val ∈ proposed)`), and only
//! relations that can be written that way are proposed.
//!
//! With splitting on actions ([`crate::preconditions`]), each eligible action also gives a
//! Boolean variable, "some instance is enabled", which is never itself the subject of an
//! invariant and serves only as a condition.

mod keys;

pub use keys::KeyRule;

use crate::preconditions::ActionSplit;
use interpreter::machine::Machine;
use interpreter::universe::type_text;
use interpreter::value::Value;
use ioa_lang::ir::{Spec, Type, TypeDefKind};
use std::sync::Arc;

/// The position of a variable in [`VarModel::vars`].
pub type VarId = usize;

/// The largest index carrier over which an array is quantified; larger arrays are left out.
pub const MAX_INDEX_CARRIER: usize = 1024;

/// Which derived variables to add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeriveOptions {
    /// `size(S)` of every collection.
    pub sizes: bool,
    /// `A ∩ B` of every two sets with the same element type (and its size).
    pub intersections: bool,
    /// The non-`nil` indices and values of `Null`-valued arrays and maps.
    pub null_arrays: bool,
    /// The non-default keys of other arrays and maps, and the sizes of all key sets.
    pub keys: bool,
    /// Compare every two numbers, sizes of sets of different element types included (Daikon's
    /// `var-comparability none`). By default a size is compared only with sizes of collections
    /// of the same type (and plain integers with plain integers): `size(proposed) ≤
    /// size(initiated)` is then out of reach, but so are artefacts like `size(decided) ≤
    /// size(quorums)`.
    pub compare_all_numbers: bool,
}

impl DeriveOptions {
    /// Every kind of derived variable.
    pub fn all() -> Self {
        DeriveOptions {
            sizes: true,
            intersections: true,
            null_arrays: true,
            keys: true,
            compare_all_numbers: false,
        }
    }

    /// No derived variables: only state variables and array elements.
    pub fn none() -> Self {
        DeriveOptions {
            sizes: false,
            intersections: false,
            null_arrays: false,
            keys: false,
            compare_all_numbers: false,
        }
    }
}

impl Default for DeriveOptions {
    fn default() -> Self {
        DeriveOptions::all()
    }
}

/// How a variable's value is computed from a state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// A state variable: its slot in the machine's state vector.
    Slot(usize),
    /// `a[i]`: the entry of the array or map in this slot at the quantified index.
    Elem(usize),
    /// `size(S)`.
    Size(VarId),
    /// `A ∩ B`.
    Inter(VarId, VarId),
    /// The indices of the array or map in this slot whose entry is present under its
    /// [`KeyRule`] (not `nil`, or not the default, or defined).
    Keys(usize),
    /// The non-`nil` values of the `Null`-valued array or map in this slot.
    Values(usize),
    /// Whether some instance of action split `k` ([`VarModel::actions`]) is enabled.
    Enabled(usize),
}

/// What kind of invariants a variable takes part in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// `Int` or `Nat` (including sizes): bounds, order and linear relations.
    Numeric,
    /// A set with this element type: subset, equality, disjointness, membership.
    Set(Type),
    /// Any other value, compared by equality only.
    Scalar,
}

/// One variable.
#[derive(Debug, Clone)]
pub struct Var {
    /// How it is computed.
    pub term: Term,
    /// Its IOA type.
    pub ty: Type,
    /// The index space it depends on, if it is (derived from) an array element.
    pub index: Option<usize>,
    /// What invariants it can take part in.
    pub shape: Shape,
    /// Numeric comparability: numbers are only compared with numbers of the same class (sizes
    /// of sets of the same element type, or plain integers).
    pub class: String,
    /// Whether invariants are proposed over it (an intersection only feeds its size).
    pub proposes: bool,
    /// Whether it takes part in relations with other variables (the size of a key set takes
    /// part in unary invariants only: `size(keys(a)) ≤ size(B)` has no IOA spelling).
    pub relates: bool,
    /// Its name in messages and Daikon files (`voted[n]`, `size(succeeded ∩ dead)`).
    pub name: String,
    /// For a set variable, how many values its element type has in the universe.
    pub elem_carrier: Option<usize>,
    /// The variables it is computed from (empty for state variables and elements).
    pub inputs: Vec<VarId>,
    /// How many values its type has in the universe, for small finite non-set types.
    pub carrier: Option<usize>,
    /// Whether its type is an enumeration.
    pub enumeration: bool,
}

impl Var {
    /// Whether this is a derived variable.
    pub fn is_derived(&self) -> bool {
        !self.inputs.is_empty()
    }

    /// Whether the variable has an IOA spelling of its own (keys and values do not).
    pub fn is_term(&self) -> bool {
        !matches!(self.term, Term::Keys(_) | Term::Values(_))
    }

    /// Whether this is the key or value set of an array or map.
    pub fn is_keyed(&self) -> bool {
        matches!(self.term, Term::Keys(_) | Term::Values(_))
    }

    /// The least value its type allows, for numbers with one (sizes and `Nat`s: 0).
    pub fn floor(&self) -> Option<i64> {
        match (&self.term, &self.ty) {
            (Term::Size(_), _) | (_, Type::Nat) => Some(0),
            _ => None,
        }
    }

    /// Whether this is the size of an intersection.
    pub fn is_intersection_size(&self, model: &VarModel) -> bool {
        match self.term {
            Term::Size(s) => matches!(model.vars[s].term, Term::Inter(..)),
            _ => false,
        }
    }
}

/// A finite index type that element variables are quantified over.
#[derive(Debug, Clone)]
pub struct IndexSpace {
    /// The index type.
    pub ty: Type,
    /// Its values, in order.
    pub carrier: Arc<[Value]>,
    /// The name of the quantified variable in printed invariants (`n` for `Node`).
    pub var_name: String,
}

/// All variables of one automaton, in evaluation order.
#[derive(Debug, Clone)]
pub struct VarModel {
    /// The variables; a derived variable comes after its inputs.
    pub vars: Vec<Var>,
    /// The index spaces of element variables.
    pub indices: Vec<IndexSpace>,
    /// The names of the machine's state slots (`x`, or `P[0].x` in a composite).
    pub slot_names: Vec<String>,
    /// The types of the machine's state slots.
    pub slot_types: Vec<Type>,
    /// For each state slot holding an array or map with a key set, when an entry is present.
    pub key_rules: Vec<Option<KeyRule>>,
    /// The actions split on (see [`crate::preconditions`]); `Term::Enabled(k)` is `actions[k]`.
    pub actions: Vec<ActionSplit>,
    /// Names printed invariants must not bind (state variables, types, constants, indices).
    pub taken: Vec<String>,
    /// The automaton's name.
    pub automaton: String,
    /// The options it was built with.
    pub options: DeriveOptions,
}

impl VarModel {
    /// Builds the variables of `machine`'s state, with the derived variables `options` asks for.
    pub fn new(machine: &Machine, options: DeriveOptions) -> VarModel {
        let spec = machine.spec;
        let slot_names = machine.slot_names();
        let slot_types = machine.slot_types();
        let taken = taken_names(spec, machine, &slot_names);
        let mut model = VarModel {
            vars: Vec::new(),
            indices: Vec::new(),
            slot_names: slot_names.clone(),
            slot_types: slot_types.clone(),
            key_rules: vec![None; slot_types.len()],
            actions: Vec::new(),
            taken: taken.clone(),
            automaton: spec.automata[machine.root.0 as usize].name.clone(),
            options,
        };
        // A start state gives the arrays' defaults (a `choose` takes its first candidate: a
        // default read off it is still a fixed value, so the key set stays well defined).
        let start = machine.initial_state(&mut keys::FirstChoice).ok();
        for (slot, ty) in slot_types.iter().enumerate() {
            let name = &slot_names[slot];
            match ty {
                Type::Array(key, entry) | Type::Map(key, entry) => {
                    let Some(carrier) = machine.universe.carrier(spec, key) else {
                        continue;
                    };
                    if carrier.is_empty() || carrier.len() > MAX_INDEX_CARRIER {
                        continue;
                    }
                    let index = model.index_space(spec, key, carrier, &taken);
                    let var_name = model.indices[index].var_name.clone();
                    let elem = model.push(
                        spec,
                        machine,
                        Term::Elem(slot),
                        (**entry).clone(),
                        Some(index),
                        format!("{name}[{var_name}]"),
                        vec![],
                    );
                    let map = matches!(ty, Type::Map(..));
                    let rule =
                        keys::key_rule(map, entry, start.as_ref().map(|s| &s[slot]), options);
                    let Some(rule) = rule else {
                        continue;
                    };
                    model.key_rules[slot] = Some(rule.clone());
                    let keys = model.push(
                        spec,
                        machine,
                        Term::Keys(slot),
                        Type::Set(key.clone()),
                        None,
                        format!("keys({name})"),
                        vec![elem],
                    );
                    if let Type::Null(inner) = &**entry {
                        model.push(
                            spec,
                            machine,
                            Term::Values(slot),
                            Type::Set(inner.clone()),
                            None,
                            format!("values({name})"),
                            vec![elem],
                        );
                    }
                    if options.sizes {
                        let size = model.push(
                            spec,
                            machine,
                            Term::Size(keys),
                            Type::Int,
                            None,
                            format!("size(keys({name}))"),
                            vec![keys],
                        );
                        model.vars[size].relates = false;
                    }
                }
                // Maps and arrays without a finite index type are compared as whole values.
                _ => {
                    model.push(
                        spec,
                        machine,
                        Term::Slot(slot),
                        ty.clone(),
                        None,
                        name.clone(),
                        vec![],
                    );
                }
            }
        }
        if options.sizes {
            let n = model.vars.len();
            for v in 0..n {
                let var = &model.vars[v];
                if var.is_term() && matches!(var.ty, Type::Set(_) | Type::Mset(_) | Type::Seq(_)) {
                    let name = format!("size({})", var.name);
                    let index = var.index;
                    model.push(
                        spec,
                        machine,
                        Term::Size(v),
                        Type::Int,
                        index,
                        name,
                        vec![v],
                    );
                }
            }
        }
        if options.intersections {
            model.add_intersections(spec, machine, options.sizes);
        }
        model
    }

    fn add_intersections(&mut self, spec: &Spec, machine: &Machine, sizes: bool) {
        let n = self.vars.len();
        for a in 0..n {
            for b in a + 1..n {
                let (va, vb) = (&self.vars[a], &self.vars[b]);
                let same_elem =
                    matches!((&va.shape, &vb.shape), (Shape::Set(x), Shape::Set(y)) if x == y);
                if !same_elem
                    || !va.is_term()
                    || !vb.is_term()
                    || va.is_derived()
                    || vb.is_derived()
                {
                    continue;
                }
                if !compatible(va.index, vb.index) {
                    continue;
                }
                let index = va.index.or(vb.index);
                let name = format!("{} ∩ {}", va.name, vb.name);
                let ty = va.ty.clone();
                let inter = self.push(
                    spec,
                    machine,
                    Term::Inter(a, b),
                    ty,
                    index,
                    name.clone(),
                    vec![a, b],
                );
                self.vars[inter].proposes = false;
                if sizes {
                    self.push(
                        spec,
                        machine,
                        Term::Size(inter),
                        Type::Int,
                        index,
                        format!("size({name})"),
                        vec![inter],
                    );
                }
            }
        }
    }

    fn index_space(
        &mut self,
        spec: &Spec,
        ty: &Type,
        carrier: Arc<[Value]>,
        taken: &[String],
    ) -> usize {
        if let Some(k) = self.indices.iter().position(|s| s.ty == *ty) {
            return k;
        }
        let text = type_text(spec, ty);
        let first = text
            .chars()
            .find(|c| c.is_alphabetic())
            .map(|c| c.to_lowercase().to_string())
            .unwrap_or_else(|| "i".to_string());
        let mut name = first.clone();
        let mut k = 1;
        while taken.contains(&name) || self.indices.iter().any(|s| s.var_name == name) {
            name = format!("{first}{k}");
            k += 1;
        }
        self.indices.push(IndexSpace {
            ty: ty.clone(),
            carrier,
            var_name: name,
        });
        self.indices.len() - 1
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        spec: &Spec,
        machine: &Machine,
        term: Term,
        ty: Type,
        index: Option<usize>,
        name: String,
        inputs: Vec<VarId>,
    ) -> VarId {
        let options = self.options;
        let (shape, class, elem_carrier) = match &ty {
            Type::Int | Type::Nat => {
                // Sizes of collections of one type share a class, whatever the collection.
                let class = match &term {
                    Term::Size(_) if options.compare_all_numbers => "Int".to_string(),
                    Term::Size(s) => format!("size of {}", type_text(spec, &self.vars[*s].ty)),
                    _ => "Int".to_string(),
                };
                (Shape::Numeric, class, None)
            }
            Type::Set(elem) => (
                Shape::Set((**elem).clone()),
                String::new(),
                machine.universe.carrier(spec, elem).map(|c| c.len()),
            ),
            _ => (Shape::Scalar, String::new(), None),
        };
        let carrier = match shape {
            Shape::Scalar => machine.universe.carrier(spec, &ty).map(|c| c.len()),
            _ => None,
        };
        let enumeration = matches!(&ty, Type::Named(id)
            if matches!(spec.types[id.0 as usize].kind, TypeDefKind::Enumeration(_)));
        self.vars.push(Var {
            term,
            ty,
            index,
            shape,
            class,
            proposes: true,
            relates: true,
            name,
            elem_carrier,
            inputs,
            carrier,
            enumeration,
        });
        self.vars.len() - 1
    }

    /// The number of positions a variable has in one state: 1, or its index carrier's size.
    pub fn width(&self, v: VarId) -> usize {
        match self.vars[v].index {
            Some(k) => self.indices[k].carrier.len(),
            None => 1,
        }
    }

    /// The map slots whose elements a variable is computed from at its own index (empty for
    /// key and value sets, which test definedness themselves).
    pub fn map_slots(&self, v: VarId) -> Vec<usize> {
        let var = &self.vars[v];
        let mut out = match var.term {
            Term::Elem(s) if matches!(self.slot_types[s], Type::Map(..)) => vec![s],
            Term::Keys(_) | Term::Values(_) => vec![],
            _ => var.inputs.iter().flat_map(|i| self.map_slots(*i)).collect(),
        };
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The state slots a variable is computed from.
    pub fn base_slots(&self, v: VarId) -> Vec<usize> {
        let var = &self.vars[v];
        let mut out = match var.term {
            Term::Slot(s) | Term::Elem(s) | Term::Keys(s) | Term::Values(s) => vec![s],
            Term::Enabled(_) => vec![],
            _ => var
                .inputs
                .iter()
                .flat_map(|i| self.base_slots(*i))
                .collect(),
        };
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The index space of an invariant over these variables, if any is indexed.
    pub fn index_of(&self, vars: &[VarId]) -> Option<usize> {
        vars.iter().find_map(|v| self.vars[*v].index)
    }
}

/// Whether two variables can appear in one invariant: at most one index space between them.
pub fn compatible(a: Option<usize>, b: Option<usize>) -> bool {
    a.is_none() || b.is_none() || a == b
}

/// Names a quantified index variable must not take: state variables, parameters, enumeration
/// constants and type names.
fn taken_names(spec: &Spec, machine: &Machine, slot_names: &[String]) -> Vec<String> {
    let mut taken: Vec<String> = slot_names.to_vec();
    taken.extend(
        spec.automata[machine.root.0 as usize]
            .params
            .iter()
            .map(|p| p.name.clone()),
    );
    for t in &spec.types {
        taken.push(t.name.clone());
        if let TypeDefKind::Enumeration(names) = &t.kind {
            taken.extend(names.iter().cloned());
        }
    }
    taken.extend(["nil", "true", "false", "size", "div", "mod"].map(String::from));
    taken
}
