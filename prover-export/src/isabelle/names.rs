//! Isabelle names for IOA names: escaping into valid identifiers, avoiding HOL's own constants
//! and keywords, and the one place that decides how each declared thing is called in a theory
//! (state fields, action constructors, transition definitions, tuple fields, …).
//!
//! Every generated name carries its owner's name as a prefix (`Cons_chosen`, `Ballot_ordering`,
//! `Global1_act_vote`) because a simulation theory imports two automata whose variables and
//! actions often share names, and Isabelle constants live in one name space.

use ioa_lang::ir::{Spec, Type, TypeDefKind};

/// Words that cannot be used as a variable or constant name in a HOL term: outer and inner
/// syntax keywords and the HOL constants the export itself uses.
const RESERVED: &[&str] = &[
    "if",
    "then",
    "else",
    "let",
    "in",
    "case",
    "of",
    "o",
    "O",
    "SOME",
    "THE",
    "ALL",
    "EX",
    "LEAST",
    "GREATEST",
    "op",
    "div",
    "mod",
    "dvd",
    "UN",
    "INT",
    "True",
    "False",
    "Some",
    "None",
    "the",
    "card",
    "int",
    "nat",
    "size",
    "length",
    "set",
    "insert",
    "hd",
    "tl",
    "min",
    "max",
    "Min",
    "Max",
    "abs",
    "dom",
    "fst",
    "snd",
    "map",
    "last",
    "undefined",
    "add_mset",
    "list",
    "option",
    "bool",
    "real",
    "fun",
    "id",
    "inv",
    "range",
    "image",
    "trans",
    "sym",
    "refl",
    "start",
    "reachable",
    "invariant",
    "exec_frag",
    "last_state",
    "sim_goal",
    "is_forward_sim",
    "ioa",
    "ioa_start",
    "ioa_trans",
    "map_filter",
    "Pair",
    "Nil",
    "Cons",
    "finite",
    "mset",
    "filter",
    "rev",
    "sum",
    "prod",
    "lemma",
    "theorem",
    "where",
    "and",
    "assumes",
    "shows",
    "fixes",
    "obtains",
    "is",
    "with",
    "from",
    "have",
    "show",
    "thus",
    "hence",
    "proof",
    "qed",
    "by",
    "next",
    "using",
    "unfolding",
    "note",
    "datatype",
    "record",
    "definition",
    "begin",
    "end",
    "imports",
    "theory",
    "value",
    "types",
    "typedecl",
    "ext_trace",
    "count",
    "take",
    "drop",
    "nth",
    "zip",
    "concat",
    "sort",
    "distinct",
    "Pow",
    "UNIV",
    "Collect",
    "Suc",
    "even",
    "odd",
    "sgn",
    "gcd",
    "lcm",
    "top",
    "bot",
    "sup",
    "inf",
    "Union",
    "Inter",
    "member",
    "butlast",
    "fold",
    "foldl",
    "foldr",
    "comp",
    "power",
    "upt",
    "replicate",
    "lists",
    "Ball",
    "Bex",
    "set_mset",
    "split",
    "removeAll",
    "list_update",
    "is_none",
    "Let",
    "If",
    "Not",
    "fix",
    "assume",
    "obtain",
    "case_prod",
];

/// Theory names of HOL's own theories that a generated theory must not take.
const RESERVED_THEORIES: &[&str] = &[
    "Main",
    "HOL",
    "List",
    "Set",
    "Map",
    "Nat",
    "Int",
    "Option",
    "String",
    "Fun",
    "Product_Type",
    "Sum_Type",
    "Record",
    "Multiset",
    "Complex_Main",
    "Finite_Set",
    "Relation",
    "Groups",
    "Orderings",
    "Lattices",
    "Wellfounded",
    "Power",
    "Divides",
    "Num",
];

/// Makes `raw` a valid Isabelle identifier: letters, digits, `_` and `'`, starting with a
/// letter, and not a reserved word.
pub fn ident(raw: &str) -> String {
    let mut out = part(raw);
    if RESERVED.contains(&out.as_str()) {
        out.push_str("_v");
    }
    out
}

/// Escapes `raw` for use inside a longer generated name (`Cons_` + part), where it cannot clash
/// with a reserved word: like [`ident`] without the reserved-word check.
pub fn part(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '\'' {
            out.push(c);
        } else {
            out.push('_');
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert(0, 'x');
    }
    // Isabelle reads a trailing underscore or prime run oddly in some positions; keep names
    // ending in a letter, digit or a single prime as the IOA source wrote them.
    while out.ends_with('_') {
        out.pop();
        out.push_str("_u");
    }
    out
}

/// A theory name for `raw`, kept off HOL's own theory names.
pub fn theory(raw: &str) -> String {
    let mut name = part(raw);
    if RESERVED_THEORIES.contains(&name.as_str()) {
        name.push_str("_IOA");
    }
    name
}

/// The names of the model's declared types and their parts, shared by every theory.
pub struct TypeNames<'a> {
    spec: &'a Spec,
}

impl<'a> TypeNames<'a> {
    /// Names for `spec`'s types.
    pub fn new(spec: &'a Spec) -> Self {
        TypeNames { spec }
    }

    /// The HOL type (record or datatype) for declared type `id`.
    pub fn type_name(&self, id: u32) -> String {
        ident(&self.spec.types[id as usize].name)
    }

    /// The record field for field `k` of tuple type `id`.
    pub fn field(&self, id: u32, k: u32) -> String {
        let def = &self.spec.types[id as usize];
        let field = match &def.kind {
            TypeDefKind::Tuple(fields) => fields[k as usize].0.as_str(),
            _ => "field",
        };
        format!("{}_{}", part(&def.name), part(field))
    }

    /// The constructor for constant `k` of enumeration `id`, or tag `k` of union `id`.
    pub fn constructor(&self, id: u32, k: u32) -> String {
        let def = &self.spec.types[id as usize];
        let name = match &def.kind {
            TypeDefKind::Enumeration(names) => names[k as usize].as_str(),
            TypeDefKind::Union(tags) => tags[k as usize].0.as_str(),
            TypeDefKind::Tuple(_) => "mk",
        };
        format!("{}_{}", part(&def.name), part(name))
    }

    /// The selector of union tag `k` of type `id`.
    pub fn selector(&self, id: u32, k: u32) -> String {
        format!("{}_val", self.constructor(id, k))
    }

    /// The discriminator of union tag `k` of type `id`.
    pub fn discriminator(&self, id: u32, k: u32) -> String {
        format!("is_{}", self.constructor(id, k))
    }

    /// The spec the names are for.
    pub fn spec(&self) -> &'a Spec {
        self.spec
    }
}

/// Names of one automaton's parts.
pub struct AutomatonNames {
    /// The automaton's name as an identifier (the prefix of everything else).
    pub prefix: String,
}

impl AutomatonNames {
    /// Names for automaton `name`.
    pub fn new(name: &str) -> Self {
        AutomatonNames { prefix: part(name) }
    }

    /// The theory.
    pub fn theory(&self) -> String {
        theory(&self.prefix)
    }

    /// The invariants' theory.
    pub fn invariants_theory(&self) -> String {
        format!("{}_Invariants", self.prefix)
    }

    /// The state record type.
    pub fn state_type(&self) -> String {
        format!("{}_state", self.prefix)
    }

    /// The action datatype.
    pub fn action_type(&self) -> String {
        format!("{}_action", self.prefix)
    }

    /// The record field of state variable `var`.
    pub fn field(&self, var: &str) -> String {
        format!("{}_{}", self.prefix, part(var))
    }

    /// The constant standing for automaton parameter `param`.
    pub fn param(&self, param: &str) -> String {
        format!("{}_param_{}", self.prefix, part(param))
    }

    /// The constructor of action `action`.
    pub fn action(&self, action: &str) -> String {
        format!("{}_act_{}", self.prefix, part(action))
    }

    /// The transition relation of action `action` (with its case suffix, if any). The `tr`
    /// infix keeps it apart from a state variable of the same name (LCR's `send`).
    pub fn transition(&self, action: &str, case: Option<&str>) -> String {
        match case {
            Some(c) => format!("{}_tr_{}_{}", self.prefix, part(action), part(c)),
            None => format!("{}_tr_{}", self.prefix, part(action)),
        }
    }

    /// The state function of a deterministic transition.
    pub fn effect(&self, transition: &str) -> String {
        format!("{transition}_eff")
    }

    /// The enabling condition of a transition case.
    pub fn enabled(&self, transition: &str) -> String {
        format!("{transition}_enabled")
    }

    /// The start-state predicate.
    pub fn start(&self) -> String {
        format!("{}_start", self.prefix)
    }

    /// The predicate "every set and map in the state is finite" (IOA's values are finite).
    pub fn finite(&self) -> String {
        format!("{}_finite", self.prefix)
    }

    /// The whole transition relation.
    pub fn trans(&self) -> String {
        format!("{}_trans", self.prefix)
    }

    /// The automaton as an `ioa` record.
    pub fn ioa(&self) -> String {
        format!("{}_ioa", self.prefix)
    }

    /// Invariant `name` (the `inv` infix keeps it apart from state variables and actions).
    pub fn invariant(&self, name: &str) -> String {
        format!("{}_inv_{}", self.prefix, part(name))
    }

    /// The conjunction of every exported invariant.
    pub fn all_invariants(&self) -> String {
        format!("{}_invs", self.prefix)
    }
}

/// A readable name for a local slot the IR kept no name for: the first letter of its type and
/// the slot number (`b3` for a `Ballot`), unique within a body because slots are.
pub fn generated_local(spec: &Spec, ty: &Type, slot: u32) -> String {
    let stem = match ty {
        Type::Named(id) => spec.types[id.0 as usize]
            .name
            .chars()
            .next()
            .map(|c| c.to_ascii_lowercase().to_string())
            .unwrap_or_else(|| "x".into()),
        Type::Set(_) | Type::Mset(_) => "S".into(),
        Type::Int | Type::Nat => "k".into(),
        Type::Bool => "p".into(),
        Type::Seq(_) => "xs".into(),
        _ => "x".into(),
    };
    let stem = if stem.chars().all(|c| c.is_ascii_alphabetic()) {
        stem
    } else {
        "x".into()
    };
    format!("{stem}{slot}")
}

/// Local names for a body: the given names where the IR kept them (made unique by slot number
/// when two slots share one), generated ones elsewhere.
pub fn local_names(given: &[String], n_locals: u32) -> Vec<Option<String>> {
    let mut out: Vec<Option<String>> = Vec::new();
    for slot in 0..n_locals as usize {
        let name = given.get(slot).map(|n| {
            let base = ident(n);
            let clash = given
                .iter()
                .enumerate()
                .any(|(other, m)| other != slot && ident(m) == base);
            if clash {
                format!("{base}_{slot}")
            } else {
                base
            }
        });
        out.push(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_escaped() {
        assert_eq!(ident("b'"), "b'");
        assert_eq!(ident("size"), "size_v");
        assert_eq!(ident("_0"), "x_0");
        assert_eq!(ident("a-b"), "a_b");
        assert_eq!(ident("x_"), "x_u");
        assert_eq!(theory("List"), "List_IOA");
    }
}
