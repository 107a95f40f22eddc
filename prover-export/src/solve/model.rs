//! Reading a Z3 model back as IOA values. Z3 prints model values as terms (constructor
//! applications, `store` chains, constant arrays, `lambda`s, `(_ as-array f)` with a function
//! table); this module parses those terms, evaluates them, and prints each shown variable in
//! IOA syntax. A set over an unbounded type is printed through the elements the model
//! mentions anywhere (its *candidates*), which is every element that can be in it.

use crate::obligations::{Obligation, Section};
use crate::smt::sorts::{
    enum_constructor, field_accessor, is_boxed, mangle, obj_sort, tuple_constructor,
    union_accessor, union_constructor,
};
use ioa_lang::ir::{Spec, Type, TypeDefKind};
use std::collections::{BTreeMap, BTreeSet};

/// A failed obligation's counterexample, as IOA text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// The goal parts that are false in it.
    pub failed: Vec<String>,
    /// Variables by section, with their values in IOA syntax.
    pub sections: Vec<(Section, Vec<(String, String)>)>,
    /// The whole state, parameters and arguments as values, for the interpreter to re-execute
    /// (invariant obligations, see [`crate::obligations::Replay`]).
    pub replay: Option<ReplayValues>,
}

/// A counterexample's values as data: what `ioa prove` hands the interpreter to check it. Where
/// Z3's model leaves a value open, it is [`ModelValue::Unknown`] (a set member whose membership
/// is open is left out); the checker completes it, and its verdict, not Z3's, decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayValues {
    /// The automaton's parameters, in order.
    pub params: Vec<ModelValue>,
    /// Every state variable of the start or pre-state, in slot order.
    pub state: Vec<ModelValue>,
    /// The action's arguments, in order.
    pub action: Vec<ModelValue>,
    /// For each open type the obligation's model has elements of (tuples and unions read as
    /// uninterpreted sorts), those elements: the universe the counterexample lives in.
    pub carriers: Vec<(Type, Vec<ModelValue>)>,
}

/// One value of a Z3 model, read at its IOA type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelValue {
    /// A Boolean.
    Bool(bool),
    /// An integer (also `Nat`, `Char` as its code point).
    Int(i128),
    /// A string.
    Str(String),
    /// An enumeration constant, by name.
    Enum(String),
    /// A tuple's fields.
    Tuple(Vec<ModelValue>),
    /// A union value: tag and payload.
    Union(String, Box<ModelValue>),
    /// `nil`.
    Nil,
    /// `embed(v)`.
    Embed(Box<ModelValue>),
    /// A set's members, and the candidates whose membership the model leaves open.
    Set(Vec<ModelValue>, Vec<ModelValue>),
    /// A multiset's members with their counts.
    Mset(Vec<(ModelValue, u64)>),
    /// A sequence.
    Seq(Vec<ModelValue>),
    /// An array: its default (for the keys not listed) and entries.
    Array(Box<ModelValue>, Vec<(ModelValue, ModelValue)>),
    /// A map's entries.
    Map(Vec<(ModelValue, ModelValue)>),
    /// The model leaves it open.
    Unknown,
}

impl Counterexample {
    /// The counterexample as indented text lines.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for f in &self.failed {
            out.push_str(&format!("  false: {f}\n"));
        }
        for (section, vars) in &self.sections {
            let title = match section {
                Section::Params => "parameters",
                Section::Start => "start state",
                Section::Pre => "pre-state",
                Section::Action => "action",
                Section::Post => "post-state (changed)",
                Section::SpecPre => "specification pre-state",
                Section::SpecPost => "specification post-state (changed)",
            };
            out.push_str(&format!("  {title}:\n"));
            for (name, value) in vars {
                out.push_str(&format!("    {name} = {value}\n"));
            }
        }
        out
    }
}

/// An s-expression of a Z3 term.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Sexp {
    Atom(String),
    List(Vec<Sexp>),
}

pub(super) fn parse(text: &str) -> Option<Sexp> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' || c == ')' {
            tokens.push(c.to_string());
            i += 1;
        } else if c == '|' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != '|' {
                i += 1;
            }
            tokens.push(chars[start..i.min(chars.len())].iter().collect());
            i += 1;
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            i += 1;
            tokens.push(chars[start..i.min(chars.len())].iter().collect());
        } else {
            let start = i;
            while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '(' && chars[i] != ')'
            {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        }
    }
    let mut pos = 0;
    let e = parse_tokens(&tokens, &mut pos)?;
    Some(e)
}

fn parse_tokens(tokens: &[String], pos: &mut usize) -> Option<Sexp> {
    let t = tokens.get(*pos)?;
    *pos += 1;
    if t == "(" {
        let mut items = Vec::new();
        while tokens.get(*pos)? != ")" {
            items.push(parse_tokens(tokens, pos)?);
        }
        *pos += 1;
        Some(Sexp::List(items))
    } else {
        Some(Sexp::Atom(t.clone()))
    }
}

/// A value in a model.
#[derive(Debug, Clone)]
enum Val {
    Int(i128),
    Bool(bool),
    Str(String),
    Ctor(String, Vec<Val>),
    Seq(Vec<Val>),
    Const(Box<Val>),
    Store(Box<Val>, Box<Val>, Box<Val>),
    Lambda(Vec<String>, Sexp, Vec<(String, Val)>),
    Table(Vec<(Vec<Val>, Val)>, Sexp),
    Unknown,
}

/// Names the encoding gave constructors and accessors, and the type each constructor builds.
struct Names {
    ctors: BTreeMap<String, String>,
    accessors: BTreeMap<String, (String, usize)>,
    display: BTreeMap<String, String>,
}

fn names(spec: &Spec) -> Names {
    let mut n = Names {
        ctors: BTreeMap::new(),
        accessors: BTreeMap::new(),
        display: BTreeMap::new(),
    };
    for (k, t) in spec.types.iter().enumerate() {
        let id = ioa_lang::ir::TypeId(k as u32);
        let sort = mangle(spec, &Type::Named(id));
        match &t.kind {
            TypeDefKind::Tuple(fields) => {
                let c = tuple_constructor(spec, id);
                n.ctors.insert(c.clone(), sort);
                for (j, (f, _)) in fields.iter().enumerate() {
                    n.accessors
                        .insert(field_accessor(spec, id, f), (c.clone(), j));
                }
            }
            TypeDefKind::Enumeration(cs) => {
                for c in cs {
                    let name = enum_constructor(spec, id, c);
                    n.ctors.insert(name.clone(), sort.clone());
                    n.display.insert(name, c.clone());
                }
            }
            TypeDefKind::Union(tags) => {
                for (tag, _) in tags {
                    let c = union_constructor(spec, id, tag);
                    n.ctors.insert(c.clone(), sort.clone());
                    n.display.insert(c.clone(), tag.clone());
                    n.accessors.insert(union_accessor(spec, id, tag), (c, 0));
                }
            }
        }
    }
    n
}

impl Names {
    fn is_ctor(&self, name: &str) -> bool {
        self.ctors.contains_key(name) || name.starts_with("nil_") || name.starts_with("embed_")
    }

    fn sort_of(&self, ctor: &str) -> Option<String> {
        if let Some(s) = self.ctors.get(ctor) {
            return Some(s.clone());
        }
        ctor.strip_prefix("nil_")
            .or_else(|| ctor.strip_prefix("embed_"))
            .map(|m| format!("Null_{m}"))
    }

    fn accessor(&self, name: &str) -> Option<(String, usize)> {
        if let Some(a) = self.accessors.get(name) {
            return Some(a.clone());
        }
        name.strip_prefix("val_").map(|m| (format!("embed_{m}"), 0))
    }
}

struct Evaluator<'n> {
    names: &'n Names,
    funcs: BTreeMap<String, Val>,
    candidates: BTreeMap<String, Vec<Val>>,
    ints: BTreeSet<i128>,
    /// Evaluation steps left for the whole counterexample, and how deeply function tables are
    /// applied now: Z3's model of a lambda can define a function through itself (`k!54` in terms
    /// of `(_ as-array k!54)`), whose evaluation never ends. What is not evaluated within them is
    /// shown as unknown (`?`).
    fuel: std::cell::Cell<u64>,
    depth: std::cell::Cell<u32>,
}

/// Evaluation steps for one counterexample (see [`Evaluator::fuel`]).
const EVAL_FUEL: u64 = 2_000_000;
/// How deeply function tables and lambdas may be applied inside one another.
const EVAL_DEPTH: u32 = 48;

fn eq(a: &Val, b: &Val) -> Option<bool> {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some(x == y),
        (Val::Bool(x), Val::Bool(y)) => Some(x == y),
        (Val::Str(x), Val::Str(y)) => Some(x == y),
        (Val::Ctor(c, xs), Val::Ctor(d, ys)) => {
            if c != d || xs.len() != ys.len() {
                return Some(false);
            }
            for (x, y) in xs.iter().zip(ys) {
                if !eq(x, y)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        (Val::Seq(xs), Val::Seq(ys)) => {
            if xs.len() != ys.len() {
                return Some(false);
            }
            for (x, y) in xs.iter().zip(ys) {
                if !eq(x, y)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        _ => None,
    }
}

impl Evaluator<'_> {
    fn eval(&self, e: &Sexp, env: &[(String, Val)]) -> Val {
        match e {
            Sexp::Atom(a) => {
                if let Ok(i) = a.parse::<i128>() {
                    return Val::Int(i);
                }
                if a == "true" || a == "false" {
                    return Val::Bool(a == "true");
                }
                if a.starts_with('"') {
                    return Val::Str(a.trim_matches('"').to_string());
                }
                if let Some((_, v)) = env.iter().rev().find(|(n, _)| n == a) {
                    return v.clone();
                }
                if self.names.is_ctor(a) || a.contains("!val!") {
                    return Val::Ctor(a.clone(), vec![]);
                }
                self.funcs.get(a).cloned().unwrap_or(Val::Unknown)
            }
            Sexp::List(items) => self.eval_list(items, env),
        }
    }

    fn eval_list(&self, items: &[Sexp], env: &[(String, Val)]) -> Val {
        let Some(head) = items.first() else {
            return Val::Unknown;
        };
        if self.fuel.get() == 0 {
            return Val::Unknown;
        }
        self.fuel.set(self.fuel.get() - 1);
        let args = &items[1..];
        let ev = |k: usize| {
            args.get(k)
                .map(|x| self.eval(x, env))
                .unwrap_or(Val::Unknown)
        };
        let int = |v: Val| match v {
            Val::Int(i) => Some(i),
            _ => None,
        };
        let boolean = |v: Val| match v {
            Val::Bool(b) => Some(b),
            _ => None,
        };
        match head {
            Sexp::List(h) => {
                // `(as const S) v`, `(_ is C) x`, `(_ as-array f)` applied.
                match h.as_slice() {
                    [Sexp::Atom(a), Sexp::Atom(c), _] if a == "as" && c == "const" => {
                        Val::Const(Box::new(ev(0)))
                    }
                    [Sexp::Atom(a), Sexp::Atom(c)] if a == "as" && c == "seq.empty" => {
                        Val::Seq(vec![])
                    }
                    [Sexp::Atom(u), Sexp::Atom(m), f] if u == "_" && m == "map" => {
                        // A pointwise operation on arrays, as a lambda over the index.
                        let op = match f {
                            Sexp::Atom(a) => a.clone(),
                            Sexp::List(l) => match l.first() {
                                Some(Sexp::Atom(a)) => a.clone(),
                                _ => return Val::Unknown,
                            },
                        };
                        let arrays: Vec<Val> = (0..args.len()).map(ev).collect();
                        Val::Lambda(
                            vec!["map.i".into()],
                            Sexp::List(
                                std::iter::once(Sexp::Atom(op))
                                    .chain((0..arrays.len()).map(|k| {
                                        Sexp::List(vec![
                                            Sexp::Atom("select".into()),
                                            Sexp::Atom(format!("map.a{k}")),
                                            Sexp::Atom("map.i".into()),
                                        ])
                                    }))
                                    .collect(),
                            ),
                            arrays
                                .into_iter()
                                .enumerate()
                                .map(|(k, a)| (format!("map.a{k}"), a))
                                .collect(),
                        )
                    }
                    [Sexp::Atom(u), Sexp::Atom(is), Sexp::Atom(c)] if u == "_" && is == "is" => {
                        match ev(0) {
                            Val::Ctor(d, _) => Val::Bool(&d == c),
                            _ => Val::Unknown,
                        }
                    }
                    _ => {
                        let f = self.eval(head, env);
                        let vals: Vec<Val> = (0..args.len()).map(ev).collect();
                        self.apply(&f, &vals)
                    }
                }
            }
            Sexp::Atom(op) => match op.as_str() {
                "as" => match args {
                    [Sexp::Atom(s), _] if s == "seq.empty" => Val::Seq(vec![]),
                    [x, _] => self.eval(x, env),
                    _ => Val::Unknown,
                },
                "_" => match args {
                    [Sexp::Atom(k), Sexp::Atom(f)] if k == "as-array" => {
                        self.funcs.get(f).cloned().unwrap_or(Val::Unknown)
                    }
                    _ => Val::Unknown,
                },
                "-" if args.len() == 1 => int(ev(0)).map(|i| Val::Int(-i)).unwrap_or(Val::Unknown),
                "-" | "+" | "*" | "div" | "mod" => {
                    let mut vals = Vec::new();
                    for k in 0..args.len() {
                        match int(ev(k)) {
                            Some(i) => vals.push(i),
                            None => return Val::Unknown,
                        }
                    }
                    let mut it = vals.into_iter();
                    let Some(mut acc) = it.next() else {
                        return Val::Unknown;
                    };
                    for v in it {
                        acc = match op.as_str() {
                            "-" => acc - v,
                            "+" => acc + v,
                            "*" => acc * v,
                            "div" if v != 0 => acc.div_euclid(v),
                            "mod" if v != 0 => acc.rem_euclid(v),
                            _ => return Val::Unknown,
                        };
                    }
                    Val::Int(acc)
                }
                "<" | "<=" | ">" | ">=" => match (int(ev(0)), int(ev(1))) {
                    (Some(a), Some(b)) => Val::Bool(match op.as_str() {
                        "<" => a < b,
                        "<=" => a <= b,
                        ">" => a > b,
                        _ => a >= b,
                    }),
                    _ => Val::Unknown,
                },
                "=" => match eq(&ev(0), &ev(1)) {
                    Some(b) => Val::Bool(b),
                    None => Val::Unknown,
                },
                "distinct" => {
                    let vals: Vec<Val> = (0..args.len()).map(ev).collect();
                    for i in 0..vals.len() {
                        for j in i + 1..vals.len() {
                            match eq(&vals[i], &vals[j]) {
                                Some(true) => return Val::Bool(false),
                                Some(false) => {}
                                None => return Val::Unknown,
                            }
                        }
                    }
                    Val::Bool(true)
                }
                "not" => boolean(ev(0))
                    .map(|b| Val::Bool(!b))
                    .unwrap_or(Val::Unknown),
                "and" | "or" => {
                    let want = op == "or";
                    let mut unknown = false;
                    for k in 0..args.len() {
                        match boolean(ev(k)) {
                            Some(b) if b == want => return Val::Bool(want),
                            Some(_) => {}
                            None => unknown = true,
                        }
                    }
                    if unknown {
                        Val::Unknown
                    } else {
                        Val::Bool(!want)
                    }
                }
                "=>" => match (boolean(ev(0)), boolean(ev(1))) {
                    (Some(false), _) | (_, Some(true)) => Val::Bool(true),
                    (Some(true), Some(false)) => Val::Bool(false),
                    _ => Val::Unknown,
                },
                "ite" => match boolean(ev(0)) {
                    Some(true) => ev(1),
                    Some(false) => ev(2),
                    None => Val::Unknown,
                },
                "let" => {
                    let (Some(Sexp::List(binds)), Some(body)) = (args.first(), args.get(1)) else {
                        return Val::Unknown;
                    };
                    let mut inner = env.to_vec();
                    for b in binds {
                        if let Sexp::List(p) = b {
                            if let [Sexp::Atom(n), x] = p.as_slice() {
                                let v = self.eval(x, env);
                                inner.push((n.clone(), v));
                            }
                        }
                    }
                    self.eval(body, &inner)
                }
                "lambda" => {
                    let (Some(Sexp::List(binds)), Some(body)) = (args.first(), args.get(1)) else {
                        return Val::Unknown;
                    };
                    let params = binds
                        .iter()
                        .filter_map(|b| match b {
                            Sexp::List(p) => match p.first() {
                                Some(Sexp::Atom(n)) => Some(n.clone()),
                                _ => None,
                            },
                            _ => None,
                        })
                        .collect();
                    Val::Lambda(params, body.clone(), env.to_vec())
                }
                "select" => {
                    let a = ev(0);
                    let rest: Vec<Val> = (1..args.len()).map(ev).collect();
                    self.apply(&a, &rest)
                }
                "store" if args.len() >= 3 => {
                    // `(store a i v)`, or `(store a i j v)` for a relation: indices as a tuple.
                    let n = args.len();
                    let index = if n == 3 {
                        ev(1)
                    } else {
                        Val::Seq((1..n - 1).map(ev).collect())
                    };
                    Val::Store(Box::new(ev(0)), Box::new(index), Box::new(ev(n - 1)))
                }
                "union" | "intersection" | "setminus" => {
                    let (a, b) = (ev(0), ev(1));
                    let text = match op.as_str() {
                        "union" => "(or (select s.a s.i) (select s.b s.i))",
                        "intersection" => "(and (select s.a s.i) (select s.b s.i))",
                        _ => "(and (select s.a s.i) (not (select s.b s.i)))",
                    };
                    match parse(text) {
                        Some(body) => Val::Lambda(
                            vec!["s.i".into()],
                            body,
                            vec![("s.a".into(), a), ("s.b".into(), b)],
                        ),
                        None => Val::Unknown,
                    }
                }
                "seq.unit" => Val::Seq(vec![ev(0)]),
                "seq.++" => {
                    let mut out = Vec::new();
                    for k in 0..args.len() {
                        match ev(k) {
                            Val::Seq(xs) => out.extend(xs),
                            _ => return Val::Unknown,
                        }
                    }
                    Val::Seq(out)
                }
                ":var" => match args.first() {
                    Some(Sexp::Atom(k)) => env
                        .iter()
                        .find(|(n, _)| n == &format!(":var{k}"))
                        .map(|(_, v)| v.clone())
                        .unwrap_or(Val::Unknown),
                    _ => Val::Unknown,
                },
                name if self.names.is_ctor(name) => {
                    Val::Ctor(name.to_string(), (0..args.len()).map(ev).collect())
                }
                name => {
                    if let Some((ctor, k)) = self.names.accessor(name) {
                        return match ev(0) {
                            Val::Ctor(c, fields) if c == ctor => {
                                fields.get(k).cloned().unwrap_or(Val::Unknown)
                            }
                            _ => Val::Unknown,
                        };
                    }
                    match self.funcs.get(name) {
                        Some(f) => {
                            let vals: Vec<Val> = (0..args.len()).map(ev).collect();
                            self.apply(f, &vals)
                        }
                        None => Val::Unknown,
                    }
                }
            },
        }
    }

    fn apply(&self, f: &Val, args: &[Val]) -> Val {
        match f {
            Val::Const(v) => (**v).clone(),
            Val::Store(a, i, v) => match if args.len() == 1 {
                args.first().map(|x| eq(x, i))
            } else {
                Some(eq(&Val::Seq(args.to_vec()), i))
            } {
                Some(Some(true)) => (**v).clone(),
                Some(Some(false)) => self.apply(a, args),
                _ => Val::Unknown,
            },
            Val::Lambda(..) | Val::Table(..) if self.depth.get() >= EVAL_DEPTH => Val::Unknown,
            Val::Lambda(..) | Val::Table(..) => {
                self.depth.set(self.depth.get() + 1);
                let v = self.apply_function(f, args);
                self.depth.set(self.depth.get() - 1);
                v
            }
            _ => Val::Unknown,
        }
    }

    /// Applies a lambda or a function table (within the depth [`Self::apply`] checked).
    fn apply_function(&self, f: &Val, args: &[Val]) -> Val {
        match f {
            Val::Lambda(params, body, env) => {
                let mut inner = env.clone();
                for (p, a) in params.iter().zip(args) {
                    inner.push((p.clone(), a.clone()));
                }
                self.eval(body, &inner)
            }
            Val::Table(entries, otherwise) => {
                for (key, v) in entries {
                    if key.len() == args.len()
                        && key.iter().zip(args).all(|(k, a)| eq(k, a) == Some(true))
                    {
                        return v.clone();
                    }
                }
                let env: Vec<(String, Val)> = args
                    .iter()
                    .enumerate()
                    .map(|(k, a)| (format!(":var{k}"), a.clone()))
                    .collect();
                self.eval(otherwise, &env)
            }
            _ => Val::Unknown,
        }
    }

    /// Records ground constructor terms and integers of `e` as candidates.
    fn harvest(&mut self, e: &Sexp) {
        match e {
            Sexp::Atom(a) => {
                if let Ok(i) = a.parse::<i128>() {
                    self.ints.insert(i);
                } else if let Some((sort, _)) = a.split_once("!val!") {
                    // An element of an uninterpreted (object) sort.
                    let v = Val::Ctor(a.clone(), vec![]);
                    let list = self.candidates.entry(sort.to_string()).or_default();
                    if !list.iter().any(|x| eq(x, &v) == Some(true)) {
                        list.push(v);
                    }
                } else if self.names.display.contains_key(a) || a.starts_with("nil_") {
                    self.add_candidate(Val::Ctor(a.clone(), vec![]));
                }
            }
            Sexp::List(items) => {
                if let Some(Sexp::Atom(h)) = items.first() {
                    if self.names.is_ctor(h) {
                        let v = self.eval(e, &[]);
                        if ground(&v) {
                            self.add_candidate(v);
                        }
                    }
                    if h == "-" && items.len() == 2 {
                        if let Sexp::Atom(n) = &items[1] {
                            if let Ok(i) = n.parse::<i128>() {
                                self.ints.insert(-i);
                            }
                        }
                    }
                }
                for x in items {
                    self.harvest(x);
                }
            }
        }
    }

    fn add_candidate(&mut self, v: Val) {
        let Val::Ctor(c, _) = &v else { return };
        let Some(sort) = self.names.sort_of(c) else {
            return;
        };
        let list = self.candidates.entry(sort).or_default();
        if !list.iter().any(|x| eq(x, &v) == Some(true)) {
            list.push(v);
        }
    }
}

fn ground(v: &Val) -> bool {
    match v {
        Val::Int(_) | Val::Bool(_) | Val::Str(_) => true,
        Val::Ctor(_, xs) | Val::Seq(xs) => xs.iter().all(ground),
        _ => false,
    }
}

/// Prints model values in IOA syntax.
struct Printer<'a> {
    spec: &'a Spec,
    ev: &'a Evaluator<'a>,
    pool: BTreeMap<String, Vec<Val>>,
}

impl Printer<'_> {
    fn candidates(&self, ty: &Type) -> Vec<Val> {
        match ty {
            Type::Bool => vec![Val::Bool(false), Val::Bool(true)],
            Type::Int | Type::Nat => self.ev.ints.iter().map(|i| Val::Int(*i)).collect(),
            Type::Named(id) => match &self.spec.types[id.0 as usize].kind {
                TypeDefKind::Enumeration(cs) => cs
                    .iter()
                    .map(|c| Val::Ctor(enum_constructor(self.spec, *id, c), vec![]))
                    .collect(),
                _ => self
                    .ev
                    .candidates
                    .get(&mangle(self.spec, ty))
                    .cloned()
                    .unwrap_or_default(),
            },
            Type::Null(_) => self
                .ev
                .candidates
                .get(&mangle(self.spec, ty))
                .cloned()
                .unwrap_or_default(),
            _ if is_boxed(ty) => {
                let mut out = self
                    .ev
                    .candidates
                    .get(&obj_sort(self.spec, ty))
                    .cloned()
                    .unwrap_or_default();
                out.extend(
                    self.pool
                        .get(&mangle(self.spec, ty))
                        .cloned()
                        .unwrap_or_default(),
                );
                out
            }
            _ => vec![],
        }
    }

    /// The set of the candidates of type `t` whose membership `has` evaluates to true; `?`
    /// when the model leaves the membership of a candidate unknown (never a guess).
    fn set_of(&self, t: &Type, has: impl Fn(&Val) -> Val) -> String {
        let mut members = Vec::new();
        for c in self.candidates(t) {
            match has(&c) {
                Val::Bool(true) => members.push(self.show(&c, t)),
                Val::Bool(false) => {}
                _ => return "?".into(),
            }
        }
        members.sort();
        members.dedup();
        format!("{{{}}}", members.join(", "))
    }

    /// The value `v` at type `ty` as data: [`Printer::show`] without the printing.
    fn value(&self, v: &Val, ty: &Type) -> ModelValue {
        let spec = self.spec;
        if let Val::Ctor(name, _) = v {
            if name.contains("!val!") && is_boxed(ty) {
                if let Type::Set(t) = ty {
                    let has = format!("{}.has", mangle(spec, ty));
                    let Some(f) = self.ev.funcs.get(&has) else {
                        return ModelValue::Unknown;
                    };
                    return self.set_value(t, |c| self.ev.apply(f, &[v.clone(), c.clone()]));
                }
                let of = format!("{}.of", mangle(spec, ty));
                let value = match self.ev.funcs.get(&of) {
                    Some(f) => self.ev.apply(f, std::slice::from_ref(v)),
                    None => Val::Unknown,
                };
                return self.value(&value, ty);
            }
        }
        match (v, ty) {
            (Val::Unknown, _) => ModelValue::Unknown,
            (Val::Bool(b), _) => ModelValue::Bool(*b),
            (Val::Int(i), _) => ModelValue::Int(*i),
            (Val::Str(s), _) => ModelValue::Str(s.clone()),
            (Val::Ctor(c, _), Type::Named(id))
                if c.contains("!val!")
                    && matches!(spec.types[id.0 as usize].kind, TypeDefKind::Tuple(_)) =>
            {
                let TypeDefKind::Tuple(fs) = &spec.types[id.0 as usize].kind else {
                    return ModelValue::Unknown;
                };
                ModelValue::Tuple(
                    fs.iter()
                        .map(|(f, t)| {
                            let acc = field_accessor(spec, *id, f);
                            let x = match self.ev.funcs.get(&acc) {
                                Some(func) => self.ev.apply(func, std::slice::from_ref(v)),
                                None if fs.len() == 1 && matches!(t, Type::Int | Type::Nat) => c
                                    .rsplit("!val!")
                                    .next()
                                    .and_then(|n| n.parse::<i128>().ok())
                                    .map(Val::Int)
                                    .unwrap_or(Val::Unknown),
                                None => Val::Unknown,
                            };
                            self.value(&x, t)
                        })
                        .collect(),
                )
            }
            (Val::Ctor(c, fields), Type::Named(id)) => match &spec.types[id.0 as usize].kind {
                TypeDefKind::Tuple(fs) => ModelValue::Tuple(
                    fields
                        .iter()
                        .zip(fs)
                        .map(|(x, (_, t))| self.value(x, t))
                        .collect(),
                ),
                TypeDefKind::Enumeration(_) => match self.ev.names.display.get(c) {
                    Some(name) => ModelValue::Enum(name.clone()),
                    None => ModelValue::Unknown,
                },
                TypeDefKind::Union(tags) => {
                    let Some(tag) = self.ev.names.display.get(c) else {
                        return ModelValue::Unknown;
                    };
                    let t = tags.iter().find(|(n, _)| n == tag).map(|(_, t)| t.clone());
                    match (fields.first(), t) {
                        (Some(x), Some(t)) => {
                            ModelValue::Union(tag.clone(), Box::new(self.value(x, &t)))
                        }
                        _ => ModelValue::Unknown,
                    }
                }
            },
            (Val::Ctor(c, fields), Type::Null(t)) => {
                if c.starts_with("nil_") {
                    ModelValue::Nil
                } else {
                    match fields.first() {
                        Some(x) => ModelValue::Embed(Box::new(self.value(x, t))),
                        None => ModelValue::Unknown,
                    }
                }
            }
            (Val::Seq(xs), Type::Seq(t)) => {
                ModelValue::Seq(xs.iter().map(|x| self.value(x, t)).collect())
            }
            (_, Type::Set(t)) => self.set_value(t, |c| self.ev.apply(v, std::slice::from_ref(c))),
            (_, Type::Mset(t)) => {
                let mut members = Vec::new();
                for c in self.candidates(t) {
                    if let Val::Int(n) = self.ev.apply(v, std::slice::from_ref(&c)) {
                        if n > 0 {
                            members.push((self.value(&c, t), n.min(u64::MAX as i128) as u64));
                        }
                    }
                }
                ModelValue::Mset(members)
            }
            (_, Type::Array(k, val_ty)) if matches!(**val_ty, Type::Set(_)) => {
                let Type::Set(t) = &**val_ty else {
                    return ModelValue::Unknown;
                };
                let rows = self
                    .candidates(k)
                    .iter()
                    .map(|key| {
                        let row =
                            self.set_value(t, |c| self.ev.apply(v, &[key.clone(), c.clone()]));
                        (self.value(key, k), row)
                    })
                    .collect();
                ModelValue::Array(Box::new(ModelValue::Set(vec![], vec![])), rows)
            }
            (_, Type::Array(k, val_ty)) => {
                let default = array_default(v)
                    .map(|d| self.value(&d, val_ty))
                    .unwrap_or(ModelValue::Unknown);
                let entries = self
                    .candidates(k)
                    .iter()
                    .map(|c| {
                        let x = self.value(&self.ev.apply(v, std::slice::from_ref(c)), val_ty);
                        (self.value(c, k), x)
                    })
                    .collect();
                ModelValue::Array(Box::new(default), entries)
            }
            (_, Type::Map(k, val_ty)) => {
                let mut entries = Vec::new();
                for c in self.candidates(k) {
                    let x = self.ev.apply(v, std::slice::from_ref(&c));
                    if let Val::Ctor(name, fields) = &x {
                        if name.starts_with("embed_") {
                            let inner = fields
                                .first()
                                .map(|f| self.value(f, val_ty))
                                .unwrap_or(ModelValue::Unknown);
                            entries.push((self.value(&c, k), inner));
                        }
                    }
                }
                ModelValue::Map(entries)
            }
            _ => ModelValue::Unknown,
        }
    }

    /// The set of the candidates of type `t` whose membership `has` evaluates to true, and
    /// those whose membership the model leaves open (the interpreter's check completes them).
    fn set_value(&self, t: &Type, has: impl Fn(&Val) -> Val) -> ModelValue {
        let mut members = Vec::new();
        let mut open = Vec::new();
        for c in self.candidates(t) {
            let list = match has(&c) {
                Val::Bool(true) => &mut members,
                Val::Bool(false) => continue,
                _ => &mut open,
            };
            let m = self.value(&c, t);
            if !list.contains(&m) {
                list.push(m);
            }
        }
        ModelValue::Set(members, open)
    }

    fn show(&self, v: &Val, ty: &Type) -> String {
        let spec = self.spec;
        if let Val::Ctor(name, _) = v {
            if name.contains("!val!") && is_boxed(ty) {
                if let Type::Set(t) = ty {
                    let has = format!("{}.has", mangle(spec, ty));
                    let Some(f) = self.ev.funcs.get(&has) else {
                        return "?".into();
                    };
                    return self.set_of(t, |c| self.ev.apply(f, &[v.clone(), c.clone()]));
                }
                let of = format!("{}.of", mangle(spec, ty));
                let value = match self.ev.funcs.get(&of) {
                    Some(f) => self.ev.apply(f, std::slice::from_ref(v)),
                    None => Val::Unknown,
                };
                return self.show(&value, ty);
            }
        }
        match (v, ty) {
            (Val::Unknown, _) => "?".into(),
            (Val::Bool(b), _) => b.to_string(),
            // A character is encoded as its code point.
            (Val::Int(i), Type::Char) => u32::try_from(*i)
                .ok()
                .and_then(char::from_u32)
                .map_or_else(|| i.to_string(), ioa_lang::parse::escape_char),
            (Val::Int(i), _) => i.to_string(),
            (Val::Str(s), _) => format!("\"{s}\""),
            (Val::Ctor(c, _), Type::Named(id))
                if c.contains("!val!")
                    && matches!(spec.types[id.0 as usize].kind, TypeDefKind::Tuple(_)) =>
            {
                // An element of the tuple sort: its fields come from the accessor functions.
                let TypeDefKind::Tuple(fs) = &spec.types[id.0 as usize].kind else {
                    return "?".into();
                };
                let parts: Vec<String> = fs
                    .iter()
                    .map(|(f, t)| {
                        let acc = field_accessor(spec, *id, f);
                        let x = match self.ev.funcs.get(&acc) {
                            Some(func) => self.ev.apply(func, std::slice::from_ref(v)),
                            // The obligation never reads this field, so any distinct values
                            // complete the counterexample: the element's number serves.
                            None if fs.len() == 1 && matches!(t, Type::Int | Type::Nat) => c
                                .rsplit("!val!")
                                .next()
                                .and_then(|n| n.parse::<i128>().ok())
                                .map(Val::Int)
                                .unwrap_or(Val::Unknown),
                            None => Val::Unknown,
                        };
                        self.show(&x, t)
                    })
                    .collect();
                format!("[{}]", parts.join(", "))
            }
            (Val::Ctor(c, fields), Type::Named(id)) => match &spec.types[id.0 as usize].kind {
                TypeDefKind::Tuple(fs) => {
                    let parts: Vec<String> = fields
                        .iter()
                        .zip(fs)
                        .map(|(x, (_, t))| self.show(x, t))
                        .collect();
                    format!("[{}]", parts.join(", "))
                }
                TypeDefKind::Enumeration(_) => self
                    .ev
                    .names
                    .display
                    .get(c)
                    .cloned()
                    .unwrap_or_else(|| c.clone()),
                TypeDefKind::Union(tags) => {
                    let tag = self
                        .ev
                        .names
                        .display
                        .get(c)
                        .cloned()
                        .unwrap_or_else(|| c.clone());
                    let t = tags.iter().find(|(n, _)| *n == tag).map(|(_, t)| t.clone());
                    match (fields.first(), t) {
                        (Some(x), Some(t)) => format!("{tag}({})", self.show(x, &t)),
                        _ => tag,
                    }
                }
            },
            (Val::Ctor(c, fields), Type::Null(t)) => {
                if c.starts_with("nil_") {
                    "nil".into()
                } else {
                    match fields.first() {
                        Some(x) => format!("embed({})", self.show(x, t)),
                        None => "?".into(),
                    }
                }
            }
            (Val::Seq(xs), Type::Seq(t)) => {
                let parts: Vec<String> = xs.iter().map(|x| self.show(x, t)).collect();
                format!("{{{}}}", parts.join(", "))
            }
            (_, Type::Set(t)) => self.set_of(t, |c| self.ev.apply(v, std::slice::from_ref(c))),
            (_, Type::Mset(t)) => {
                let mut members = Vec::new();
                for c in self.candidates(t) {
                    if let Val::Int(n) = self.ev.apply(v, std::slice::from_ref(&c)) {
                        for _ in 0..n.clamp(0, 100) {
                            members.push(self.show(&c, t));
                        }
                    }
                }
                members.sort();
                format!("{{{}}}", members.join(", "))
            }
            (_, Type::Array(k, val_ty)) if matches!(**val_ty, Type::Set(_)) => {
                // A relation `(Array K T Bool)`: each row is the set of its true entries.
                let Type::Set(t) = &**val_ty else {
                    return "?".into();
                };
                let mut rows = BTreeMap::new();
                for key in self.candidates(k) {
                    let row = self.set_of(t, |c| self.ev.apply(v, &[key.clone(), c.clone()]));
                    rows.insert(self.show(&key, k), row);
                }
                with_default(rows, None)
            }
            (_, Type::Array(k, val_ty)) => {
                let default = array_default(v)
                    .map(|d| self.show(&d, val_ty))
                    .unwrap_or_else(|| "?".into());
                let mut entries = BTreeMap::new();
                for c in self.candidates(k) {
                    let x = self.show(&self.ev.apply(v, std::slice::from_ref(&c)), val_ty);
                    entries.insert(self.show(&c, k), x);
                }
                with_default(entries, (default != "?").then_some(default))
            }
            (_, Type::Map(k, val_ty)) => {
                let null = Type::Null(val_ty.clone());
                let mut parts = Vec::new();
                for c in self.candidates(k) {
                    let x = self.ev.apply(v, std::slice::from_ref(&c));
                    if let Val::Ctor(name, _) = &x {
                        if name.starts_with("embed_") {
                            parts.push(format!("{} ↦ {}", self.show(&c, k), self.show(&x, &null)));
                        }
                    }
                }
                parts.sort();
                format!("{{{}}}", parts.join(", "))
            }
            _ => "?".into(),
        }
    }
}

fn array_default(v: &Val) -> Option<Val> {
    match v {
        Val::Const(d) => Some((**d).clone()),
        Val::Store(a, _, _) => array_default(a),
        _ => None,
    }
}

/// Reads the counterexample of `ob` from a model of its script.
pub fn counterexample(spec: &Spec, ob: &Obligation, model: &z3::Model) -> Counterexample {
    let names = names(spec);
    let mut ev = Evaluator {
        names: &names,
        funcs: BTreeMap::new(),
        candidates: BTreeMap::new(),
        ints: BTreeSet::new(),
        fuel: std::cell::Cell::new(EVAL_FUEL),
        depth: std::cell::Cell::new(0),
    };
    let mut consts: BTreeMap<String, z3::ast::Dynamic> = BTreeMap::new();
    let mut texts = Vec::new();
    for decl in model.iter() {
        let name = decl.name();
        if decl.arity() == 0 {
            consts.insert(name, decl.apply(&[]));
        } else if let Some(interp) = model.get_func_interp(&decl) {
            let mut entries = Vec::new();
            for e in interp.get_entries() {
                let args: Vec<Val> = e
                    .get_args()
                    .iter()
                    .map(|a| {
                        let t = a.to_string();
                        texts.push(t.clone());
                        parse(&t).map(|s| ev.eval(&s, &[])).unwrap_or(Val::Unknown)
                    })
                    .collect();
                let vt = e.get_value().to_string();
                texts.push(vt.clone());
                let v = parse(&vt).map(|s| ev.eval(&s, &[])).unwrap_or(Val::Unknown);
                entries.push((args, v));
            }
            let otherwise = interp
                .get_else()
                .and_then(|e| {
                    let t = e.to_string();
                    texts.push(t.clone());
                    parse(&t)
                })
                .unwrap_or(Sexp::Atom("?".into()));
            ev.funcs.insert(name, Val::Table(entries, otherwise));
        }
    }
    let mut values = BTreeMap::new();
    let wanted: BTreeSet<&str> = ob
        .shown
        .iter()
        .map(|s| s.constant.as_str())
        .chain(ob.goals.iter().map(|(_, g)| g.as_str()))
        .chain(ob.replay.iter().flat_map(|r| {
            r.params
                .iter()
                .chain(r.state.iter())
                .chain(r.action.iter())
                .map(|c| c.as_str())
        }))
        .collect();
    let mut sexps = BTreeMap::new();
    for w in &wanted {
        let Some(c) = consts.get(*w) else {
            continue;
        };
        // An array given as a function table (`(_ as-array k!54)`) is read here, through the
        // tables above: Z3 4.8's evaluator expands a table defined through itself without end.
        let text = match model.get_const_interp(c).map(|v| v.to_string()) {
            Some(t) if t.contains("as-array") => t,
            _ => model
                .eval(c, true)
                .map(|v| v.to_string())
                .unwrap_or_else(|| "?".into()),
        };
        texts.push(text.clone());
        if let Some(s) = parse(&text) {
            sexps.insert(w.to_string(), s);
        }
    }
    for t in &texts {
        if let Some(s) = parse(t) {
            ev.harvest(&s);
        }
    }
    for (name, s) in &sexps {
        values.insert(name.clone(), ev.eval(s, &[]));
    }
    let failed = ob
        .goals
        .iter()
        .filter(|(_, g)| !matches!(values.get(g), Some(Val::Bool(true))))
        .map(|(label, _)| label.clone())
        .collect();
    let mut printer = Printer {
        spec,
        ev: &ev,
        pool: BTreeMap::new(),
    };
    // Values of set types become the candidates of sets of sets.
    for s in &ob.shown {
        if matches!(s.ty, Type::Set(_)) {
            if let Some(v) = values.get(&s.constant) {
                printer
                    .pool
                    .entry(mangle(spec, &s.ty))
                    .or_default()
                    .push(v.clone());
            }
        }
    }
    let mut sections: Vec<(Section, Vec<(String, String)>)> = Vec::new();
    let mut pre_text: BTreeMap<(bool, String), String> = BTreeMap::new();
    for s in &ob.shown {
        let text = match values.get(&s.constant) {
            Some(v) => printer.show(v, &s.ty),
            None => "?".into(),
        };
        let is_spec = matches!(s.section, Section::SpecPre | Section::SpecPost);
        match s.section {
            Section::Pre | Section::SpecPre => {
                pre_text.insert((is_spec, s.label.clone()), text.clone());
            }
            Section::Post | Section::SpecPost
                if pre_text.get(&(is_spec, s.label.clone())) == Some(&text) =>
            {
                continue;
            }
            _ => {}
        }
        match sections.last_mut() {
            Some((sec, vars)) if *sec == s.section => vars.push((s.label.clone(), text)),
            _ => sections.push((s.section, vec![(s.label.clone(), text)])),
        }
    }
    // The interpreter's check reads the whole model: every element of every uninterpreted
    // sort becomes a candidate (an element no term mentions is still in the universe, and a
    // constant array ranges over it). The printed sections above keep the elements the model
    // mentions, as before.
    let pool = printer.pool;
    let replay = ob.replay.as_ref().map(|r| {
        for (_, elements) in model.sort_universes() {
            for e in elements.iter() {
                if let Some(s) = parse(&e.to_string()) {
                    ev.harvest(&s);
                }
            }
        }
        let printer = Printer {
            spec,
            ev: &ev,
            pool,
        };
        replay_values(spec, &printer, &values, r)
    });
    Counterexample {
        failed,
        sections,
        replay,
    }
}

/// The values the interpreter needs of `replay`'s constants, and the universe of the model.
fn replay_values(
    spec: &Spec,
    printer: &Printer,
    values: &BTreeMap<String, Val>,
    replay: &crate::obligations::Replay,
) -> ReplayValues {
    let aut = &spec.automata[replay.automaton.0 as usize];
    let read = |constant: &String, ty: &Type| match values.get(constant) {
        Some(v) => printer.value(v, ty),
        None => ModelValue::Unknown,
    };
    let params = replay
        .params
        .iter()
        .zip(&aut.params)
        .map(|(c, p)| read(c, &p.ty))
        .collect();
    let state = replay
        .state
        .iter()
        .zip(crate::smt::expr::state_vars(spec, replay.automaton))
        .map(|(c, v)| read(c, &v.ty))
        .collect();
    let action = match replay.transition {
        Some(t) => {
            let ts =
                crate::obligations::invariant::transitions(spec, replay.automaton).unwrap_or(&[]);
            let sig = ts
                .get(t)
                .map(|t| &aut.actions[t.action.0 as usize].params[..])
                .unwrap_or(&[]);
            replay
                .action
                .iter()
                .zip(sig)
                .map(|(c, p)| read(c, &p.ty))
                .collect()
        }
        None => vec![],
    };
    let mut carriers = Vec::new();
    for (k, t) in spec.types.iter().enumerate() {
        if matches!(t.kind, TypeDefKind::Enumeration(_)) {
            continue;
        }
        let ty = Type::Named(ioa_lang::ir::TypeId(k as u32));
        let mut elements: Vec<ModelValue> = Vec::new();
        for c in printer.candidates(&ty) {
            let m = printer.value(&c, &ty);
            if !elements.contains(&m) {
                elements.push(m);
            }
        }
        if !elements.is_empty() {
            carriers.push((ty, elements));
        }
    }
    ReplayValues {
        params,
        state,
        action,
        carriers,
    }
}

/// An array in the interpreter's notation, `update(…(constant(d), k, x)…)`. The default is the
/// most common value among the keys shown (the universe of a counterexample is finite, so every
/// key that exists is shown), or the array's own default when none are.
fn with_default(entries: BTreeMap<String, String>, own: Option<String>) -> String {
    let mut counts: BTreeMap<&String, usize> = BTreeMap::new();
    for x in entries.values() {
        *counts.entry(x).or_default() += 1;
    }
    let default = counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map(|(x, _)| x.clone())
        .or(own)
        .unwrap_or_else(|| "?".into());
    let mut text = format!("constant({default})");
    for (key, x) in entries {
        if x != default {
            text = format!("update({text}, {key}, {x})");
        }
    }
    text
}
