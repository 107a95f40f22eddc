//! How IOA values become Daikon variables: each state variable or action parameter is
//! flattened into a list of [`DaikonVar`]s, each with a path that reads its value(s) out of the
//! IOA value.
//!
//! | IOA type | Daikon variables |
//! |---|---|
//! | `Int`, `Nat` | `x`: `int` |
//! | `Bool` | `x`: `boolean` |
//! | `String`, enumeration | `x`: `java.lang.String` (enumerations flagged `is_enum`) |
//! | tuple | `x`: `hashcode`, then each field `x.f` (`var-kind field f`) |
//! | union | `x`: `hashcode`, and `x.tag`: `java.lang.String` |
//! | `Null[T]` | `x`: `hashcode` (`null` for `nil`), and `x.val` as a `T` (nonsensical for `nil`) |
//! | `Set[T]`, `Mset[T]`, `Seq[T]` | `x`: `hashcode`, `x[..]`: an array of `T` (`var-kind array`; sets flagged `no_dups not_ordered`, multisets `not_ordered`), and for a tuple `T` the arrays of its fields `x[..].f` |
//! | `Array[K, V]`, `K` finite | `x`: `hashcode`, and one group of variables per index, `x[k]` (`var-kind field [k]`) |
//! | anything else | `x`: `hashcode` |
//!
//! A `hashcode` is the value's identity: equal values get equal numbers, in order of first
//! appearance. Inside an array only one level is kept (Daikon arrays have one dimension), so a
//! set of sets is an array of hashcodes.
//!
//! **Comparability** follows the declared types, so that Daikon never relates values of
//! different kinds: every variable's comparability number stands for its IOA type, except that
//! a field of a tuple type with a built-in type (`Int`, `Nat`, `Bool`, `String`) stands for the
//! field itself (`Node.location`, `Ballot.ordering`, `Value.value` are three numbers, not one
//! `Int`), and a union's tag for the union. `Nat` and `Int` are one type (they unify in IOA).
//! The elements of a collection take the number of their element type, and its index (and so
//! Daikon's derived `size(x[..])`) one number per collection type: sizes of two `Set[Ballot]`s
//! are comparable, the size of a `Set[Node]` with neither.

use interpreter::universe::{type_text, Universe};
use interpreter::value::Value;
use ioa_lang::ir::{Spec, Type, TypeDefKind};
use std::collections::BTreeMap;

/// The largest finite index type whose arrays are written out index by index.
pub const MAX_EXPANDED_INDICES: usize = 64;

/// Daikon's representation types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rep {
    /// `int`.
    Int,
    /// `boolean`.
    Bool,
    /// `java.lang.String`.
    Str,
    /// `hashcode`: an identity.
    Hash,
}

impl Rep {
    /// The rep-type's name.
    pub fn name(self) -> &'static str {
        match self {
            Rep::Int => "int",
            Rep::Bool => "boolean",
            Rep::Str => "java.lang.String",
            Rep::Hash => "hashcode",
        }
    }
}

/// The `var-kind` of a Daikon variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VarKind {
    /// A top-level variable.
    Variable,
    /// A field of its enclosing variable, with the field's relative name.
    Field(String),
    /// The elements of its enclosing collection.
    Array,
    /// A synthetic function of other variables: its name and its arguments.
    Function(String, Vec<String>),
}

/// One step of a path from a root value to a variable's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A tuple field, by position.
    Field(usize),
    /// A union's tag (as a string).
    Tag,
    /// The value inside a non-`nil` `Null`.
    Val,
    /// An array entry at this index.
    Index(Value),
    /// The elements of a collection (the variable is an array from here on).
    Elements,
}

/// One declared Daikon variable.
#[derive(Debug, Clone, PartialEq)]
pub struct DaikonVar {
    /// Its name (unescaped).
    pub name: String,
    /// Its kind.
    pub kind: VarKind,
    /// The variable it is a field or the elements of.
    pub enclosing: Option<String>,
    /// Whether it is an array (one value per element).
    pub array: bool,
    /// The IOA type, as declared.
    pub dec_type: String,
    /// What its values look like.
    pub rep: Rep,
    /// `flags`.
    pub flags: Vec<&'static str>,
    /// `comparability`.
    pub comparability: String,
    /// Which root value (state slot or action parameter) it reads.
    pub root: usize,
    /// How it reads it.
    pub path: Vec<Step>,
}

/// Assigns comparability numbers: one per IOA type (and per kind of array index).
#[derive(Debug, Default)]
pub struct Comparability {
    ids: BTreeMap<String, u32>,
}

impl Comparability {
    fn id(&mut self, key: String) -> u32 {
        let next = self.ids.len() as u32 + 1;
        *self.ids.entry(key).or_insert(next)
    }
}

/// Flattens values of one spec.
pub struct Flattener<'a> {
    /// The spec.
    pub spec: &'a Spec,
    /// Carriers, for array indices.
    pub universe: &'a Universe,
    /// Comparability numbers handed out so far.
    pub comparability: Comparability,
}

/// Where a variable sits while flattening.
struct At<'p> {
    root: usize,
    path: Vec<Step>,
    kind: VarKind,
    enclosing: Option<&'p str>,
    /// Inside a collection: the element and index comparability of the enclosing array.
    array: Option<u32>,
    flags: Vec<&'static str>,
    /// The comparability key when it is not the type's own (a built-in field of a tuple type).
    key: Option<String>,
}

impl<'a> Flattener<'a> {
    /// A flattener for `spec`'s types.
    pub fn new(spec: &'a Spec, universe: &'a Universe) -> Self {
        Flattener {
            spec,
            universe,
            comparability: Comparability::default(),
        }
    }

    /// The Daikon variables of a root value `name: ty`, appended to `out`.
    pub fn flatten(
        &mut self,
        name: &str,
        ty: &Type,
        root: usize,
        flags: &[&'static str],
        out: &mut Vec<DaikonVar>,
    ) {
        let at = At {
            root,
            path: vec![],
            kind: VarKind::Variable,
            enclosing: None,
            array: None,
            flags: flags.to_vec(),
            key: None,
        };
        self.var(name, ty, at, out);
    }

    /// The Daikon variables of a synthetic value `name = function(args…)` (flagged
    /// `synthetic`), appended to `out`.
    pub fn flatten_function(
        &mut self,
        name: &str,
        function: &str,
        args: Vec<String>,
        ty: &Type,
        root: usize,
        out: &mut Vec<DaikonVar>,
    ) {
        let at = At {
            root,
            path: vec![],
            kind: VarKind::Function(function.to_string(), args),
            enclosing: None,
            array: None,
            flags: vec!["synthetic"],
            key: None,
        };
        self.var(name, ty, at, out);
    }

    fn type_name(&self, ty: &Type) -> String {
        type_text(self.spec, ty).replace(' ', "")
    }

    /// What a variable of type `ty` is comparable with: its type (`Nat` read as `Int`), unless
    /// the place it sits in says otherwise.
    fn key(&self, ty: &Type, at: &At) -> String {
        match (&at.key, ty) {
            (Some(k), _) => k.clone(),
            (None, Type::Nat) => "Int".to_string(),
            (None, _) => self.type_name(ty),
        }
    }

    fn push(&mut self, name: &str, ty: &Type, rep: Rep, at: &At, out: &mut Vec<DaikonVar>) {
        let dec = self.type_name(ty);
        let key = self.key(ty, at);
        let elem = self.comparability.id(key);
        let (dec_type, comparability) = match at.array {
            Some(index) => (format!("{dec}[]"), format!("{elem}[{index}]")),
            None => (dec, elem.to_string()),
        };
        let mut flags = at.flags.clone();
        if rep == Rep::Str
            && matches!(ty, Type::Named(id) if matches!(self.spec.types[id.0 as usize].kind, TypeDefKind::Enumeration(_)))
        {
            flags.push("is_enum");
        }
        out.push(DaikonVar {
            name: name.to_string(),
            kind: at.kind.clone(),
            enclosing: at.enclosing.map(String::from),
            array: at.array.is_some(),
            dec_type,
            rep,
            flags,
            comparability,
            root: at.root,
            path: at.path.clone(),
        });
    }

    fn var(&mut self, name: &str, ty: &Type, at: At, out: &mut Vec<DaikonVar>) {
        let nested = at.array.is_some();
        match ty {
            Type::Int | Type::Nat => self.push(name, ty, Rep::Int, &at, out),
            Type::Bool => self.push(name, ty, Rep::Bool, &at, out),
            Type::String => self.push(name, ty, Rep::Str, &at, out),
            Type::Named(id) => match &self.spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(_) => self.push(name, ty, Rep::Str, &at, out),
                TypeDefKind::Tuple(fields) => {
                    self.push(name, ty, Rep::Hash, &at, out);
                    // The fields of distinct elements need not be distinct.
                    let flags: Vec<&'static str> = at
                        .flags
                        .iter()
                        .copied()
                        .filter(|f| *f != "no_dups")
                        .collect();
                    let tuple = self.type_name(ty);
                    for (k, (f, fty)) in fields.iter().enumerate() {
                        let mut path = at.path.clone();
                        path.push(Step::Field(k));
                        let builtin =
                            matches!(fty, Type::Int | Type::Nat | Type::Bool | Type::String);
                        let child = At {
                            root: at.root,
                            path,
                            kind: VarKind::Field(f.clone()),
                            enclosing: Some(name),
                            array: at.array,
                            flags: flags.clone(),
                            key: builtin.then(|| format!("{tuple}.{f}")),
                        };
                        self.var(&format!("{name}.{f}"), fty, child, out);
                    }
                }
                TypeDefKind::Union(_) => {
                    self.push(name, ty, Rep::Hash, &at, out);
                    let mut path = at.path.clone();
                    path.push(Step::Tag);
                    let child = At {
                        root: at.root,
                        path,
                        kind: VarKind::Field("tag".into()),
                        enclosing: Some(name),
                        array: at.array,
                        flags: at.flags.clone(),
                        key: Some(format!("{}.tag", self.type_name(ty))),
                    };
                    self.push(&format!("{name}.tag"), &Type::String, Rep::Str, &child, out);
                }
            },
            Type::Null(inner) => {
                self.push(name, ty, Rep::Hash, &at, out);
                if !nested {
                    let mut path = at.path.clone();
                    path.push(Step::Val);
                    let child = At {
                        root: at.root,
                        path,
                        kind: VarKind::Field("val".into()),
                        enclosing: Some(name),
                        array: None,
                        flags: at.flags.clone(),
                        key: None,
                    };
                    self.var(&format!("{name}.val"), inner, child, out);
                }
            }
            Type::Set(e) | Type::Mset(e) | Type::Seq(e) if !nested => {
                self.push(name, ty, Rep::Hash, &at, out);
                let index = self
                    .comparability
                    .id(format!("index of {}", self.type_name(ty)));
                let mut path = at.path.clone();
                path.push(Step::Elements);
                let mut flags = at.flags.clone();
                match ty {
                    Type::Set(_) => flags.extend(["no_dups", "not_ordered"]),
                    Type::Mset(_) => flags.push("not_ordered"),
                    _ => {}
                }
                let elems = format!("{name}[..]");
                let child = At {
                    root: at.root,
                    path,
                    kind: VarKind::Array,
                    enclosing: Some(name),
                    array: Some(index),
                    flags,
                    key: None,
                };
                self.var(&elems, e, child, out);
            }
            Type::Array(k, v) if !nested => {
                self.push(name, ty, Rep::Hash, &at, out);
                let Some(keys) = self.universe.carrier(self.spec, k) else {
                    return;
                };
                if keys.len() > MAX_EXPANDED_INDICES {
                    return;
                }
                let printer = interpreter::value::Printer::new(self.spec);
                for key in keys.iter() {
                    let text = format!("[{}]", printer.show(key));
                    let mut path = at.path.clone();
                    path.push(Step::Index(key.clone()));
                    let child = At {
                        root: at.root,
                        path,
                        kind: VarKind::Field(text.clone()),
                        enclosing: Some(name),
                        array: None,
                        flags: at.flags.clone(),
                        key: None,
                    };
                    self.var(&format!("{name}{text}"), v, child, out);
                }
            }
            _ => self.push(name, ty, Rep::Hash, &at, out),
        }
    }
}
