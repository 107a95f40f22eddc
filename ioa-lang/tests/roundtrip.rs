//! Round trips through the pretty printer: for every tree the parser can produce,
//! `parse(print(t)) == t` (spans aside) and `print(parse(print(t))) == print(t)`; and the same for
//! `format_source`, which must also keep every comment.

use ioa_lang::ast::*;
use ioa_lang::parse::{parse_expr, parse_file};
use ioa_lang::pretty::{format_source, print_expr, print_file, MAX_WIDTH};
use ioa_lang::span::{FileId, Span};
use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------- helpers

/// The tree as JSON with every `span` key removed, so trees compare by shape alone.
fn spanless<T: serde::Serialize>(t: &T) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.remove("span");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v = serde_json::to_value(t).expect("the AST serialises");
    strip(&mut v);
    v
}

/// Checks both round-trip properties for a file tree; the error names the failing step.
fn check_file_roundtrip(file: &SourceFile) -> Result<(), String> {
    let printed = print_file(file);
    let reparsed = parse_file(FileId(0), &printed)
        .map_err(|e| format!("printed text does not parse: {e:?}\n--- printed ---\n{printed}"))?;
    if spanless(&reparsed) != spanless(file) {
        return Err(format!(
            "reparsed tree differs\n--- printed ---\n{printed}\n--- original ---\n{:#}\n--- reparsed ---\n{:#}",
            spanless(file),
            spanless(&reparsed)
        ));
    }
    let again = print_file(&reparsed);
    if again != printed {
        return Err(format!(
            "printing is not idempotent\n--- first ---\n{printed}\n--- second ---\n{again}"
        ));
    }
    Ok(())
}

fn check_expr_roundtrip(e: &Expr) -> Result<(), String> {
    let printed = print_expr(e);
    let reparsed = parse_expr(FileId(0), &printed).map_err(|err| {
        format!("printed text does not parse: {err:?}\n--- printed ---\n{printed}")
    })?;
    if spanless(&reparsed) != spanless(e) {
        return Err(format!(
            "reparsed tree differs\n--- printed ---\n{printed}\n--- original ---\n{:#}\n--- reparsed ---\n{:#}",
            spanless(e),
            spanless(&reparsed)
        ));
    }
    let again = print_expr(&reparsed);
    if again != printed {
        return Err(format!(
            "printing is not idempotent\n--- first ---\n{printed}\n--- second ---\n{again}"
        ));
    }
    Ok(())
}

/// The comments of `source` (a `%` outside a string literal up to the end of its line, without
/// trailing white space), sorted: a multiset to compare.
fn comment_texts(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in source.lines() {
        let mut in_string = false;
        for (i, c) in line.char_indices() {
            match c {
                '"' => in_string = !in_string,
                '%' if !in_string => {
                    out.push(line[i..].trim_end().to_string());
                    break;
                }
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// Formats `source` and checks that the result keeps the tree and every comment and is a fixed
/// point; returns the formatted text.
fn check_format(source: &str) -> Result<String, String> {
    let file =
        parse_file(FileId(0), source).map_err(|e| format!("source does not parse: {e:?}"))?;
    let formatted = format_source(&file, source);
    let reparsed = parse_file(FileId(0), &formatted).map_err(|e| {
        format!("formatted text does not parse: {e:?}\n--- formatted ---\n{formatted}")
    })?;
    if spanless(&reparsed) != spanless(&file) {
        return Err(format!(
            "formatting changed the tree\n--- source ---\n{source}\n--- formatted ---\n{formatted}"
        ));
    }
    if comment_texts(&formatted) != comment_texts(source) {
        return Err(format!(
            "formatting lost or changed comments: {:?} became {:?}\n--- source ---\n{source}\n--- formatted ---\n{formatted}",
            comment_texts(source),
            comment_texts(&formatted)
        ));
    }
    let again = format_source(&reparsed, &formatted);
    if again != formatted {
        return Err(format!(
            "formatting is not idempotent\n--- source ---\n{source}\n--- first ---\n{formatted}\n--- second ---\n{again}"
        ));
    }
    Ok(formatted)
}

fn ioa_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            ioa_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ioa") {
            out.push(path);
        }
    }
}

// ---------------------------------------------------------------- files on disk

#[test]
fn examples_and_ok_test_data_round_trip() {
    let (examples, data) = example_and_ok_files();

    let mut failures = Vec::new();
    let mut checked = 0;
    for (path, must_parse) in examples
        .iter()
        .map(|p| (p, true))
        .chain(data.iter().map(|p| (p, false)))
    {
        let source = std::fs::read_to_string(path).expect("readable file");
        let file = match parse_file(FileId(0), &source) {
            Ok(file) => file,
            Err(e) if must_parse => {
                failures.push(format!("{}: example does not parse: {e:?}", path.display()));
                continue;
            }
            Err(_) => continue,
        };
        checked += 1;
        if let Err(msg) = check_file_roundtrip(&file) {
            failures.push(format!("{}: {msg}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("round-tripped {checked} files");
}

/// The examples, and the files under tests/data that must parse.
fn example_and_ok_files() -> (Vec<PathBuf>, Vec<PathBuf>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut examples = Vec::new();
    ioa_files(&root.join("examples"), &mut examples);
    let mut data = Vec::new();
    ioa_files(&root.join("tests").join("data"), &mut data);
    data.retain(|p| p.to_string_lossy().replace('\\', "/").contains("/ok/"));
    assert!(!examples.is_empty(), "no examples found");
    examples.sort();
    data.sort();
    (examples, data)
}

#[test]
fn formatting_keeps_comments_and_trees_and_is_idempotent() {
    let (examples, data) = example_and_ok_files();
    let mut failures = Vec::new();
    for (path, must_parse) in examples
        .iter()
        .map(|p| (p, true))
        .chain(data.iter().map(|p| (p, false)))
    {
        let source = std::fs::read_to_string(path).expect("readable file");
        if !must_parse && parse_file(FileId(0), &source).is_err() {
            continue;
        }
        if let Err(msg) = check_format(&source) {
            failures.push(format!("{}: {msg}", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn examples_keep_every_comment() {
    let (examples, _) = example_and_ok_files();
    for path in examples {
        let source = std::fs::read_to_string(&path).expect("readable file");
        let file = parse_file(FileId(0), &source).expect("examples parse");
        let formatted = format_source(&file, &source);
        assert!(
            !comment_texts(&source).is_empty(),
            "{}: no comments",
            path.display()
        );
        assert_eq!(
            comment_texts(&formatted),
            comment_texts(&source),
            "{}: comments differ",
            path.display()
        );
    }
}

/// What `ioa fmt --check examples/*/*.ioa` checks in CI.
#[test]
fn examples_are_in_canonical_form() {
    let (examples, _) = example_and_ok_files();
    let mut unformatted = Vec::new();
    for path in examples {
        let source = std::fs::read_to_string(&path).expect("readable file");
        let file = parse_file(FileId(0), &source).expect("examples parse");
        if format_source(&file, &source) != source {
            unformatted.push(path.display().to_string());
        }
    }
    assert!(
        unformatted.is_empty(),
        "not in canonical form (run `ioa fmt --write` on them): {unformatted:?}"
    );
}

#[test]
fn comments_stay_where_they_were() {
    let source = r#"% The header.

import "a.ioa" ;   % after an import
type T = enumeration of a, b

automaton A(n: Int)   % after the name
  signature
    input x(i: Int),   % first
          y
    % before z
    input z
    output w where n > 0   % w
  states
    s: Int := 0,  % the counter
    t: Bool := false % a flag
  so that s = 0
  transitions
    input x(i)
      % before the effect
      eff s := s + i;  % add
          if s > n then
            % reset
            s := 0
            % end of then
          else
            % nothing
          fi;
          t := choose b: Bool det do % inline
            yield true od

    % the second transition

    input y
      eff for k: Int in {1, 2} do
            % nothing to do
          od
  tasks
    { w } % one task
automaton B
  components
    P: A(1);
    % the other one
    Q: A(2)
  hidden x,   % x is internal
         y, z % y and z too
% before the schedule
schedule S for A do % go
  fire input x(1) ; fire input y
  % done
od

% at the end
"#;
    let expected = r#"% The header.

import "a.ioa"  % after an import

type T = enumeration of a, b

automaton A(n: Int)
  % after the name
  signature
    input x(i: Int),  % first
          y
    % before z
    input z
    output w where n > 0  % w
  states
    s: Int := 0,      % the counter
    t: Bool := false  % a flag
  so that s = 0
  transitions
    input x(i)
      % before the effect
      eff s := s + i;  % add
          if s > n then
            % reset
            s := 0
            % end of then
          else
            % nothing
          fi;
          t := choose b: Bool det do yield true od

    % inline

    % the second transition

    input y
      eff for k: Int in {1, 2} do
            % nothing to do
          od
  tasks
    { w }  % one task

automaton B
  components
    P: A(1);
    % the other one
    Q: A(2)
  hidden x,    % x is internal
         y, z  % y and z too

% before the schedule
schedule S for A
  do
    % go
    fire input x(1);
    fire input y
    % done
  od

% at the end
"#;
    let formatted = check_format(source).unwrap();
    assert_eq!(formatted, expected, "\n--- got ---\n{formatted}");
}

#[test]
fn long_predicates_are_broken_at_top_level_operators() {
    let source = "automaton A
  signature
    internal go(i: Int)
  states
    first: Int := 0, second: Int := 0, third: Int := 0
  transitions
    internal go(i)
      pre first = 1 ∧ second = 2 ∧ third = 3 ∧ (first = second ∨ second = third ∨ third = first)
          ∧ ∀ k: Int (k > i ⇒ k > 0)
      eff if first = 1 ∧ second = 2 ∧ third = 3 ∧ first + second + third = 6 ∧ i = 1234567890123 then
            first := 0
          fi

invariant Long of A:
  ∀ i: Int (first = i ∨ second = i ∨ third = i ⇒ (first + second + third > i ∧ first + second + third < 1000 + i ∧ i ≥ 0))
";
    let expected = "automaton A
  signature
    internal go(i: Int)
  states
    first: Int := 0,
    second: Int := 0,
    third: Int := 0
  transitions
    internal go(i)
      pre first = 1
          ∧ second = 2
          ∧ third = 3
          ∧ (first = second ∨ second = third ∨ third = first)
          ∧ ∀ k: Int (k > i ⇒ k > 0)
      eff if first = 1
             ∧ second = 2
             ∧ third = 3
             ∧ first + second + third = 6
             ∧ i = 1234567890123 then
            first := 0
          fi

invariant Long of A:
  ∀ i: Int (first = i ∨ second = i ∨ third = i
            ⇒ first + second + third > i ∧ first + second + third < 1000 + i ∧ i ≥ 0)
";
    let formatted = check_format(source).unwrap();
    assert_eq!(formatted, expected, "\n--- got ---\n{formatted}");
    assert!(formatted.lines().all(|l| l.chars().count() <= MAX_WIDTH));
}

#[test]
fn hand_written_precedence_cases() {
    let cases = [
        ("¬ a = b", "¬(a = b)"),
        ("¬¬a", "¬¬a"),
        ("¬(a ∧ b)", "¬(a ∧ b)"),
        ("(¬a) = b", "(¬a) = b"),
        ("a ⇒ b ⇒ c", "a ⇒ b ⇒ c"),
        ("(a ⇒ b) ⇒ c", "(a ⇒ b) ⇒ c"),
        ("a ⇔ b ⇔ c", "a ⇔ b ⇔ c"),
        ("a ⇔ (b ⇔ c)", "a ⇔ (b ⇔ c)"),
        ("a - (b - c)", "a - (b - c)"),
        ("-a * -b", "-a * -b"),
        ("-(a * b)", "-(a * b)"),
        ("(a = b) = c", "(a = b) = c"),
        ("(a is t) = b", "(a is t) = b"),
        ("a + (if c then 1 else 2)", "a + (if c then 1 else 2)"),
        (
            "choose x: Int where (if a then b else c) det do yield 1; yield 2 od",
            "choose x: Int where (if a then b else c) det do yield 1; yield 2 od",
        ),
        ("\\A x: T \\A y: U (x = y)", "∀ x: T (∀ y: U (x = y))"),
        ("(∀ x: T (p)).f", "∀ x: T (p).f"),
        ("a div b mod c", "a div b mod c"),
        ("div(a, b)", "div(a, b)"),
        ("(-a).f[1]", "(-a).f[1]"),
        ("--a", "--a"),
    ];
    for (input, expected) in cases {
        let e = parse_expr(FileId(0), input).unwrap_or_else(|err| panic!("{input}: {err:?}"));
        assert_eq!(print_expr(&e), expected, "printing {input}");
        check_expr_roundtrip(&e).unwrap();
    }
}

// ---------------------------------------------------------------- strategies

fn sp() -> Span {
    Span::default()
}

fn mk(kind: ExprKind) -> Expr {
    Expr { kind, span: sp() }
}

fn id(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: sp(),
    }
}

/// Names that are not keywords.
fn ident() -> impl Strategy<Value = Ident> + Clone {
    prop::sample::select(vec!["a", "b", "x", "y", "n", "S", "q1", "b'", "_t", "foo"]).prop_map(id)
}

fn type_expr() -> BoxedStrategy<TypeExpr> {
    let name = prop::sample::select(vec!["Int", "Bool", "Node", "Set", "Map", "Seq"]).prop_map(id);
    let leaf = name.clone().prop_map(|name| TypeExpr {
        name,
        args: vec![],
        span: sp(),
    });
    leaf.prop_recursive(2, 6, 2, move |inner| {
        (name.clone(), prop::collection::vec(inner, 1..3)).prop_map(|(name, args)| TypeExpr {
            name,
            args,
            span: sp(),
        })
    })
    .boxed()
}

fn param() -> impl Strategy<Value = Param> + Clone {
    (ident(), type_expr()).prop_map(|(name, ty)| Param { name, ty })
}

fn params1() -> impl Strategy<Value = Vec<Param>> + Clone {
    prop::collection::vec(param(), 1..3)
}

fn action_kind() -> impl Strategy<Value = ActionKind> + Clone {
    prop_oneof![
        Just(ActionKind::Input),
        Just(ActionKind::Output),
        Just(ActionKind::Internal)
    ]
}

fn binop() -> impl Strategy<Value = BinOp> {
    use BinOp::*;
    prop::sample::select(vec![
        Iff, Implies, Or, And, Eq, Neq, Lt, Le, Gt, Ge, In, NotIn, SubsetEq, Subset, Add, Sub,
        Union, Append, Prepend, Concat, Mul, Intersect, Div, Mod,
    ])
}

fn leaf_expr() -> BoxedStrategy<Expr> {
    prop_oneof![
        ident().prop_map(ExprKind::Name),
        prop_oneof![0..100i64, 0..=i64::MAX].prop_map(ExprKind::Int),
        any::<bool>().prop_map(ExprKind::Bool),
        "[a-z0-9 _%]{0,6}".prop_map(ExprKind::Str),
        Just(ExprKind::Nil),
        Just(ExprKind::SetLit(vec![])),
    ]
    .prop_map(mk)
    .boxed()
}

/// Expressions of height at most `depth + 1`.
fn expr(depth: u32) -> BoxedStrategy<Expr> {
    if depth == 0 {
        return leaf_expr();
    }
    let sub = expr(depth - 1);
    let det = prop::option::of(stmts(depth - 1));
    let list = |range| prop::collection::vec(sub.clone(), range);
    let call_name = prop_oneof![ident(), Just(id("div")), Just(id("mod"))];
    let composite = prop_oneof![
        // Operators are where precedence goes wrong, so they come up most often.
        8 => (binop(), sub.clone(), sub.clone())
            .prop_map(|(op, l, r)| ExprKind::Binary(op, Box::new(l), Box::new(r))),
        3 => (prop_oneof![Just(UnOp::Not), Just(UnOp::Neg)], sub.clone())
            .prop_map(|(op, e)| ExprKind::Unary(op, Box::new(e))),
        1 => list(1..3).prop_map(ExprKind::Tuple),
        1 => list(0..3).prop_map(ExprKind::SetLit),
        1 => (sub.clone(), ident()).prop_map(|(e, f)| ExprKind::Field(Box::new(e), f)),
        1 => (sub.clone(), list(1..3)).prop_map(|(e, i)| ExprKind::Index(Box::new(e), i)),
        1 => (call_name, list(0..3)).prop_map(|(f, args)| ExprKind::Call(f, args)),
        1 => (sub.clone(), ident()).prop_map(|(e, t)| ExprKind::Is(Box::new(e), t)),
        1 => (
            prop_oneof![Just(Quantifier::ForAll), Just(Quantifier::Exists)],
            params1(),
            sub.clone()
        )
            .prop_map(|(q, ps, body)| ExprKind::Quant(q, ps, Box::new(body))),
        1 => (param(), sub.clone())
            .prop_map(|(var, cond)| ExprKind::SetComp { var, cond: Box::new(cond) }),
        1 => (sub.clone(), sub.clone(), sub.clone())
            .prop_map(|(c, a, b)| ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b))),
        1 => (param(), prop::option::of(sub.clone()), det).prop_map(|(var, cond, det)| {
            ExprKind::Choose {
                var,
                cond: cond.map(Box::new),
                det,
            }
        }),
    ]
    .prop_map(mk);
    prop_oneof![1 => leaf_expr(), 4 => composite].boxed()
}

/// An assignment target: a name followed by fields and indices.
fn lvalue(depth: u32) -> BoxedStrategy<Expr> {
    let index = prop::collection::vec(expr(depth), 1..3);
    ident()
        .prop_map(|n| mk(ExprKind::Name(n)))
        .prop_recursive(2, 4, 1, move |inner| {
            prop_oneof![
                (inner.clone(), ident()).prop_map(|(e, f)| mk(ExprKind::Field(Box::new(e), f))),
                (inner, index.clone()).prop_map(|(e, i)| mk(ExprKind::Index(Box::new(e), i))),
            ]
        })
        .boxed()
}

/// Statement lists (0–2 statements) nested at most `depth` deep.
fn stmts(depth: u32) -> BoxedStrategy<Vec<Stmt>> {
    prop::collection::vec(stmt(depth), 0..3).boxed()
}

fn stmt(depth: u32) -> BoxedStrategy<Stmt> {
    let e = expr(depth.min(1));
    let simple = prop_oneof![
        (lvalue(0), prop::option::of(type_expr()), e.clone())
            .prop_map(|(lhs, ty, rhs)| StmtKind::Assign { lhs, ty, rhs }),
        Just(StmtKind::Ignore),
        e.clone().prop_map(StmtKind::Yield),
        (
            action_kind(),
            ident(),
            prop::collection::vec(e.clone(), 0..3)
        )
            .prop_map(|(kind, name, args)| StmtKind::Fire {
                kind,
                name,
                args,
                det: None
            }),
    ];
    let kind = if depth == 0 {
        simple.boxed()
    } else {
        let body = stmts(depth - 1);
        let nested =
            prop_oneof![
                (
                    prop::collection::vec((e.clone(), body.clone()), 1..3),
                    prop::option::of(body.clone())
                )
                    .prop_map(|(branches, otherwise)| StmtKind::If {
                        branches,
                        otherwise
                    }),
                (param(), e.clone(), body.clone()).prop_map(|(var, collection, body)| {
                    StmtKind::ForIn {
                        var,
                        collection,
                        body,
                    }
                }),
                (param(), e.clone(), body.clone())
                    .prop_map(|(var, cond, body)| StmtKind::ForWhere { var, cond, body }),
                (e.clone(), body.clone()).prop_map(|(cond, body)| StmtKind::While { cond, body }),
                (
                    action_kind(),
                    ident(),
                    prop::collection::vec(e.clone(), 0..3),
                    prop::option::of(body)
                )
                    .prop_map(|(kind, name, args, det)| StmtKind::Fire {
                        kind,
                        name,
                        args,
                        det
                    }),
            ];
        prop_oneof![simple, nested].boxed()
    };
    kind.prop_map(|kind| Stmt { kind, span: sp() }).boxed()
}

fn action_arg() -> impl Strategy<Value = ActionArg> + Clone {
    prop_oneof![
        (ident(), prop::option::of(type_expr()))
            .prop_map(|(name, ty)| ActionArg::Bind { name, ty }),
        expr(1).prop_map(ActionArg::Const),
    ]
}

fn state_decl() -> impl Strategy<Value = StateDecl> + Clone {
    (ident(), type_expr(), prop::option::of(expr(2))).prop_map(|(name, ty, init)| StateDecl {
        name,
        ty,
        init,
        span: sp(),
    })
}

fn type_decl() -> impl Strategy<Value = TypeDecl> {
    let field = (ident(), type_expr()).prop_map(|(name, ty)| Field { name, ty });
    let fields = prop::collection::vec(field, 1..3);
    let def = prop_oneof![
        fields.clone().prop_map(TypeDef::Tuple),
        prop::collection::vec(ident(), 1..3).prop_map(TypeDef::Enumeration),
        fields.prop_map(TypeDef::Union),
        type_expr().prop_map(TypeDef::Alias),
    ];
    (ident(), def).prop_map(|(name, def)| TypeDecl {
        name,
        def,
        span: sp(),
    })
}

fn primitive() -> impl Strategy<Value = Primitive> {
    let e = expr(2);
    let sig_param = prop_oneof![
        param().prop_map(SigParam::Formal),
        expr(1).prop_map(SigParam::Const),
    ];
    let sig_entry = (
        action_kind(),
        ident(),
        prop::collection::vec(sig_param, 0..3),
        prop::option::of(e.clone()),
    )
        .prop_map(|(kind, name, params, where_clause)| SigEntry {
            kind,
            name,
            params,
            where_clause,
            span: sp(),
        });
    let transition = (
        (
            action_kind(),
            ident(),
            prop::collection::vec(action_arg(), 0..3),
        ),
        prop::option::of(ident()),
        prop::option::of(e.clone()),
        prop::option::of(e.clone()),
        (stmts(2), prop::option::of(e.clone())),
    )
        .prop_map(
            |((kind, name, args), case, where_clause, pre, (eff, ensuring))| Transition {
                kind,
                name,
                args,
                case,
                where_clause,
                pre,
                eff,
                ensuring,
                span: sp(),
            },
        );
    let task_action = (ident(), prop::collection::vec(expr(1), 0..3))
        .prop_map(|(name, args)| TaskAction { name, args });
    let task = (
        prop::collection::vec(task_action, 1..3),
        prop::collection::vec(param(), 0..3),
        prop::option::of(e.clone()),
    )
        .prop_map(|(actions, bound, where_clause)| Task {
            actions,
            bound,
            where_clause,
            span: sp(),
        });
    (
        prop::collection::vec(sig_entry, 0..5),
        prop::collection::vec(state_decl(), 0..3),
        prop::option::of(e),
        prop::collection::vec(transition, 0..3),
        prop::collection::vec(task, 0..3),
    )
        .prop_map(
            |(signature, states, so_that, transitions, tasks)| Primitive {
                signature,
                states,
                so_that,
                transitions,
                tasks,
            },
        )
}

fn composite() -> impl Strategy<Value = Composite> {
    let component = (
        ident(),
        prop::collection::vec(param(), 0..3),
        ident(),
        prop::collection::vec(expr(1), 0..3),
        prop::option::of(expr(2)),
    )
        .prop_map(
            |(name, indices, automaton, args, where_clause)| ComponentDecl {
                name,
                indices,
                automaton,
                args,
                where_clause,
                span: sp(),
            },
        );
    let hidden = (
        ident(),
        prop::collection::vec(action_arg(), 0..3),
        prop::option::of(expr(2)),
    )
        .prop_map(|(name, args, where_clause)| HiddenEntry {
            name,
            args,
            where_clause,
            span: sp(),
        });
    let network = prop::collection::vec(ident(), 1..3).prop_map(|components| NetworkClause {
        components,
        span: sp(),
    });
    (
        prop::collection::vec(component, 1..3),
        prop::option::of(network),
        prop::collection::vec(hidden, 0..3),
    )
        .prop_map(|(components, network, hidden)| Composite {
            components,
            network,
            hidden,
        })
}

fn automaton() -> impl Strategy<Value = AutomatonDecl> {
    let body = prop_oneof![
        primitive().prop_map(AutomatonBody::Primitive),
        composite().prop_map(AutomatonBody::Composite),
    ];
    (ident(), prop::collection::vec(param(), 0..3), body).prop_map(|(name, params, body)| {
        AutomatonDecl {
            name,
            params,
            body,
            span: sp(),
        }
    })
}

fn simulation() -> impl Strategy<Value = SimulationDecl> {
    let entry = (
        action_kind(),
        ident(),
        prop::collection::vec(action_arg(), 0..3),
        prop::option::of(stmts(2)),
    )
        .prop_map(|(kind, name, args, body)| ProofEntry {
            kind,
            name,
            args,
            using: None,
            body,
            span: sp(),
        });
    let proof = (
        prop::collection::vec(state_decl(), 0..3),
        stmts(2),
        prop::collection::vec(entry, 0..4),
    )
        .prop_map(|(states, start, entries)| ProofBlock {
            states,
            start,
            entries,
            span: sp(),
        });
    (
        prop::option::of(ident()),
        (ident(), header_args()),
        (ident(), header_args()),
        prop::option::of(prop::collection::vec(ident(), 0..3)),
        expr(3),
        prop::option::of(proof),
    )
        .prop_map(
            |(name, (from, from_args), (to, to_args), using, relation, proof)| SimulationDecl {
                name,
                from,
                from_args,
                to,
                to_args,
                using,
                relation,
                proof,
                span: sp(),
            },
        )
}

/// `(k, n)` after an automaton's name in a simulation's header, or nothing.
fn header_args() -> impl Strategy<Value = Option<Vec<Ident>>> {
    prop::option::of(prop::collection::vec(ident(), 1..3))
}

fn schedule() -> impl Strategy<Value = ScheduleDecl> {
    (
        prop::option::of(ident()),
        prop::option::of(ident()),
        prop::collection::vec(state_decl(), 0..3),
        stmts(3),
    )
        .prop_map(|(name, target, states, body)| ScheduleDecl {
            name,
            target,
            states,
            body,
            span: sp(),
        })
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        "[a-z./_]{1,12}".prop_map(|path| Item::Import(Import { path, span: sp() })),
        type_decl().prop_map(Item::Type),
        automaton().prop_map(Item::Automaton),
        (
            ident(),
            ident(),
            prop::option::of(prop::collection::vec(ident(), 0..3)),
            expr(3)
        )
            .prop_map(|(name, automaton, using, body)| {
                Item::Invariant(InvariantDecl {
                    name,
                    automaton,
                    using,
                    body,
                    span: sp(),
                })
            }),
        simulation().prop_map(Item::Simulation),
        schedule().prop_map(Item::Schedule),
    ]
}

fn config() -> ProptestConfig {
    // 256 cases unless PROPTEST_CASES says otherwise, as proptest does by default.
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        // Next to this file (there is no lib.rs above `tests/` for the default to find).
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_expressions_round_trip(e in expr(4)) {
        check_expr_roundtrip(&e).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn random_statements_round_trip(body in stmts(3)) {
        // Statements are checked inside a schedule, the one place every kind may stand.
        let file = SourceFile {
            items: vec![Item::Schedule(ScheduleDecl {
                name: None,
                target: None,
                states: vec![],
                body,
                span: sp(),
            })],
        };
        check_file_roundtrip(&file).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn random_files_round_trip(items in prop::collection::vec(item(), 0..5)) {
        check_file_roundtrip(&SourceFile { items }).map_err(TestCaseError::fail)?;
    }

    /// Comments (on lines of their own or ending lines) and blank lines put anywhere in a printed
    /// file survive formatting, which keeps the tree and is idempotent.
    #[test]
    fn random_comments_survive_formatting(
        items in prop::collection::vec(item(), 0..4),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..4u8, 0..8usize), 0..8),
    ) {
        let printed = print_file(&SourceFile { items });
        let mut lines: Vec<String> = printed.lines().map(str::to_string).collect();
        for (n, (at, kind, indent)) in edits.into_iter().enumerate() {
            let at = at.index(lines.len() + 1);
            match kind {
                0 if at < lines.len() => lines[at].push_str(&format!(" % end {n}")),
                1 => lines.insert(at, String::new()),
                _ => lines.insert(at, format!("{}% own {n}", " ".repeat(indent))),
            }
        }
        let source = lines.join("\n") + "\n";
        check_format(&source).map_err(TestCaseError::fail)?;
    }

    /// Comments put before any tokens of the examples and test files (so also inside
    /// expressions and between keywords) survive formatting too.
    #[test]
    fn comments_between_any_tokens_survive_formatting(
        which in any::<prop::sample::Index>(),
        spots in prop::collection::vec(any::<prop::sample::Index>(), 1..12),
    ) {
        let (examples, data) = example_and_ok_files();
        let files: Vec<&PathBuf> = examples.iter().chain(&data).collect();
        let mut source = std::fs::read_to_string(which.get(&files)).expect("readable file");
        prop_assume!(parse_file(FileId(0), &source).is_ok());
        let starts: Vec<usize> = ioa_lang::lexer::Lexer::new(&source)
            .filter_map(Result::ok)
            .map(|(start, _, _)| start)
            .collect();
        prop_assume!(!starts.is_empty());
        let mut at: Vec<usize> = spots.iter().map(|i| *i.get(&starts)).collect();
        at.sort_unstable_by(|a, b| b.cmp(a));
        at.dedup();
        for (n, pos) in at.into_iter().enumerate() {
            source.insert_str(pos, &format!("% inserted {n}\n"));
        }
        check_format(&source).map_err(TestCaseError::fail)?;
    }
}
