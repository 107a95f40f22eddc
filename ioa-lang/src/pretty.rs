//! The pretty printer: turns a surface AST back into IOA source text in one canonical form.
//!
//! It exists so that tools can show (and write back) declarations they built or changed — a
//! proposed invariant, a generated schedule, a normalised file — and so that the parser can be
//! tested by round trips: for every tree `t` the parser can produce, parsing `print(t)` gives `t`
//! again (spans aside), and printing is idempotent.
//!
//! The canonical form uses the Unicode operators (`∀ ∃ ∧ ∨ ¬ ⇒ ⇔ ≠ ≤ ≥ ∈ ∉ ∪ ∩ ⊆ ⊂ ⊢`, `-` for
//! minus, `div`/`mod` infix), two-space indentation, a blank line between top-level declarations,
//! one state or signature entry per line, and one statement per line with `;` between the
//! statements of a list. Parentheses are inserted only where precedence or associativity needs
//! them, and always around a quantifier body. The grouping of signature entries and the spelling
//! of operators are not preserved. String literals are written with the escapes the
//! parser reads (`\"`, `\\`, `\n`, `\t`).
//!
//! Long lines are broken (see [`MAX_WIDTH`]): when a `pre`, `where`, `so that`, `if`/`elseif`/
//! `while` condition, invariant body or simulation relation does not fit, its top-level chain of
//! `∧` (or `∨`, `⇒`, `⇔`) is written one operand per line, each continuation line starting with
//! the operator under the start of the expression. An operand that still does not fit is broken
//! the same way when it is itself such a chain, a parenthesised one, a negation or a quantifier
//! (whose body is then laid out under the character after its `(`); anything else stays on one
//! line. A state variable's initial value that does not fit goes on the next line, and the names
//! of an enumeration (or the fields of a tuple or union type) fill lines lined up under the first.
//! Only [`print_expr`] never breaks lines.
//!
//! Comments are not in the AST. [`format_source`] takes them from the source text instead and
//! puts each one back before the declaration, entry or statement that follows it (or, for a
//! comment that ends a line of code, at the end of that node's last line); see
//! `pretty/comments.rs`. A comment inside an expression (or an inline `choose … det` block) moves
//! to before the next node. The other functions print no comments.

mod comments;
mod expr;
mod wrap;

use crate::ast::*;
use crate::lexer::Token;
use crate::span::Span;
use expr::prec;

pub use wrap::MAX_WIDTH;

/// Prints a whole file: its declarations separated by blank lines, ending in a newline.
pub fn print_file(file: &SourceFile) -> String {
    let mut p = Printer::default();
    p.file(file);
    p.finish()
}

/// Prints `file` like [`print_file`], keeping every `%` comment of `source`, the text `file` was
/// parsed from. This is what `ioa fmt` writes.
///
/// A comment on a line of its own is printed on its own line, at the indentation of the
/// declaration, signature entry, state, clause, transition, task, component, hidden entry, proof
/// entry or statement that follows it; comments after the last node of a `do … od`, `then`/`else`
/// block or file go at its end. A comment that ends a line of code is printed at the end of the
/// line where the node before it ends (consecutive such comments aligned), or before the next node
/// when that is not possible. A blank line before or after a group of comments is kept.
pub fn format_source(file: &SourceFile, source: &str) -> String {
    let mut p = Printer {
        src: Some(comments::Source::new(source)),
        ..Printer::default()
    };
    p.file(file);
    p.finish()
}

/// Prints one top-level declaration (without a trailing newline).
pub fn print_item(item: &Item) -> String {
    render(|p| p.item(item))
}

/// Prints an expression on one line (a `det` block inside a `choose` is written inline).
pub fn print_expr(e: &Expr) -> String {
    render(|p| p.expr(e))
}

/// Prints a type expression.
pub fn print_type(t: &TypeExpr) -> String {
    render(|p| p.ty(t))
}

/// Prints a statement list, one statement per line, with `;` between statements.
pub fn print_stmts(stmts: &[Stmt]) -> String {
    render(|p| p.stmt_list(stmts))
}

fn render(f: impl FnOnce(&mut Printer)) -> String {
    let mut p = Printer::default();
    f(&mut p);
    p.finish()
}

fn start(span: Span) -> usize {
    span.start as usize
}

fn end(span: Span) -> usize {
    span.end as usize
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Import(i) => i.span,
        Item::Type(t) => t.span,
        Item::Automaton(a) => a.span,
        Item::Invariant(i) => i.span,
        Item::Liveness(l) => l.span,
        Item::Simulation(s) => s.span,
        Item::Schedule(s) => s.span,
    }
}

/// Accumulates output with indentation, which is written lazily so that blank lines carry no
/// trailing spaces. In inline mode (statements inside an expression) line breaks become spaces.
/// With a source (`format_source`), it also puts the source's comments back (`comments.rs`).
#[derive(Default)]
struct Printer<'s> {
    out: String,
    indent: usize,
    pending_indent: bool,
    inline: bool,
    /// The comments (and tokens) of the source being reformatted, if any.
    src: Option<comments::Source<'s>>,
    /// A comment to write at the end of the current line, at the next line break.
    pending_trailing: Option<String>,
    /// Comments written at the end of lines: the line's index and the comment's text. They are
    /// added (aligned) by `finish`.
    trailing: Vec<(usize, String)>,
    /// Nothing has been written yet in the current block (so no blank line is wanted).
    block_start: bool,
}

impl Printer<'_> {
    /// Writes `parts` in order (after the pending indentation, if a line has just begun).
    fn text(&mut self, parts: &[&str]) {
        if std::mem::take(&mut self.pending_indent) {
            self.out.extend(std::iter::repeat_n(' ', self.indent));
        }
        parts.iter().for_each(|s| self.out.push_str(s));
    }

    fn nl(&mut self) {
        if self.inline {
            self.out.push(' ');
        } else {
            if let Some(comment) = self.pending_trailing.take() {
                let line = self.out.matches('\n').count();
                self.trailing.push((line, comment));
            }
            self.out.push('\n');
            self.pending_indent = true;
        }
    }

    /// Runs `f` with the indentation `by` columns deeper.
    fn indented(&mut self, by: usize, f: impl FnOnce(&mut Self)) {
        self.indent += by;
        f(self);
        self.indent -= by;
    }

    /// `open item, item, … close`.
    fn list<T>(&mut self, open: &str, items: &[T], close: &str, mut f: impl FnMut(&mut Self, &T)) {
        self.text(&[open]);
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.text(&[", "]);
            }
            f(self, item);
        }
        self.text(&[close]);
    }

    /// `(items)`, or nothing for no items (where the grammar makes the parentheses optional).
    fn args<T>(&mut self, items: &[T], f: impl FnMut(&mut Self, &T)) {
        if !items.is_empty() {
            self.list("(", items, ")", f);
        }
    }

    /// Each item on its own line, with `sep` after all but the last.
    fn lines<T>(&mut self, items: &[T], sep: &str, mut f: impl FnMut(&mut Self, usize, &T)) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.text(&[sep]);
            }
            self.nl();
            f(self, i, item);
        }
    }

    /// `keyword` (found at `at` in the source) on a new line, then `f` indented below it.
    fn section(&mut self, keyword: &str, at: usize, f: impl FnOnce(&mut Self)) {
        self.nl();
        self.comments_before(at);
        self.text(&[keyword]);
        self.block_start = true;
        self.indented(2, f);
    }

    /// `: T` when `ty` is present.
    fn opt_ty(&mut self, ty: Option<&TypeExpr>) {
        if let Some(ty) = ty {
            self.text(&[": "]);
            self.ty(ty);
        }
    }

    /// `e` on the next line, indented, broken if long.
    fn below(&mut self, e: &Expr) {
        self.indented(2, |p| {
            p.block_start = true;
            p.nl();
            p.comments_before(start(e.span));
            p.expr_wrapped(e, prec::TOP, 0);
            p.trailing_after(end(e.span));
        });
    }

    /// `keyword e` when `e` is present.
    fn clause(&mut self, keyword: &str, e: Option<&Expr>) {
        if let Some(e) = e {
            self.text(&[keyword]);
            self.expr(e);
        }
    }

    /// `keyword e` when `e` is present, broken if long; `tail` columns follow it on its line.
    fn wrapped_clause(&mut self, keyword: &str, e: Option<&Expr>, tail: usize) {
        if let Some(e) = e {
            self.text(&[keyword]);
            self.expr_wrapped(e, prec::TOP, tail);
        }
    }

    /// `keyword e` on a line of its own, with the comments before it.
    fn clause_line(&mut self, keyword: &str, e: &Expr) {
        self.nl();
        self.comments_before(start(e.span));
        self.wrapped_clause(keyword, Some(e), 0);
        self.trailing_after(end(e.span));
    }

    // ------------------------------------------------------------ declarations

    fn file(&mut self, file: &SourceFile) {
        self.block_start = true;
        for (i, item) in file.items.iter().enumerate() {
            if i > 0 {
                self.nl();
                self.nl();
            }
            let span = item_span(item);
            self.comments_before(start(span));
            self.item(item);
            self.trailing_after(end(span));
        }
        if !file.items.is_empty() {
            self.nl();
        }
        self.comments_at_end(usize::MAX);
        if self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Import(i) => self.text(&["import \"", &i.path, "\""]),
            Item::Type(t) => {
                self.text(&["type ", &t.name.name, " = "]);
                match &t.def {
                    TypeDef::Tuple(fields) => {
                        self.filled_list("tuple of ", fields, |p, f| p.field(f))
                    }
                    TypeDef::Enumeration(names) => {
                        self.filled_list("enumeration of ", names, |p, n| p.text(&[&n.name]))
                    }
                    TypeDef::Union(fields) => {
                        self.filled_list("union of ", fields, |p, f| p.field(f))
                    }
                    TypeDef::Alias(ty) => self.ty(ty),
                }
            }
            Item::Automaton(a) => {
                self.text(&["automaton ", &a.name.name]);
                self.args(&a.params, Self::param);
                let from = end(a.name.span);
                self.indented(2, |p| match &a.body {
                    AutomatonBody::Primitive(prim) => p.primitive(prim, from),
                    AutomatonBody::Composite(comp) => p.composite(comp, from),
                });
            }
            Item::Invariant(i) => {
                self.text(&["invariant ", &i.name.name, " of ", &i.automaton.name]);
                self.using(&i.using);
                self.text(&[":"]);
                self.below(&i.body);
            }
            Item::Liveness(l) => {
                self.text(&["liveness ", &l.name.name, " of ", &l.automaton.name, ":"]);
                self.indented(2, |p| {
                    p.block_start = true;
                    p.nl();
                    match &l.property {
                        Temporal::Eventually(e) => {
                            p.comments_before(start(e.span));
                            p.text(&["eventually "]);
                            p.expr_wrapped(e, prec::TOP, 0);
                            p.trailing_after(end(e.span));
                        }
                        // `P` on one line and `↝ Q` on the next: each may be long.
                        Temporal::LeadsTo(a, b) => {
                            p.comments_before(start(a.span));
                            p.expr_wrapped(a, prec::TOP, 0);
                            p.trailing_after(end(a.span));
                            p.nl();
                            p.comments_before(start(b.span));
                            p.text(&["↝ "]);
                            p.expr_wrapped(b, prec::TOP, 0);
                            p.trailing_after(end(b.span));
                        }
                    }
                });
            }
            Item::Simulation(s) => self.simulation(s),
            Item::Schedule(s) => {
                self.text(&["schedule"]);
                if let Some(name) = &s.name {
                    self.text(&[" ", &name.name]);
                }
                if let Some(target) = &s.target {
                    self.text(&[" for ", &target.name]);
                }
                let states_at = self.find_token(start(s.span), |t| matches!(t, Token::States));
                let od = self.token_before(end(s.span));
                let do_at = match s.body.first() {
                    Some(first) => self.token_before(start(first.span)),
                    None => self.token_before(od),
                };
                self.indented(2, |p| {
                    p.states(&s.states, states_at);
                    p.nl();
                    p.comments_before(do_at);
                    p.text(&["do"]);
                    p.block(&s.body, od);
                    p.text(&["od"]);
                });
            }
        }
    }

    fn field(&mut self, f: &Field) {
        self.text(&[&f.name.name]);
        self.opt_ty(Some(&f.ty));
    }

    fn ty(&mut self, t: &TypeExpr) {
        self.text(&[&t.name.name]);
        if !t.args.is_empty() {
            self.list("[", &t.args, "]", Self::ty);
        }
    }

    fn param(&mut self, p: &Param) {
        self.text(&[&p.name.name, ": "]);
        self.ty(&p.ty);
    }

    /// The body of a primitive automaton whose name ends at `from` in the source.
    fn primitive(&mut self, prim: &Primitive, from: usize) {
        // Consecutive entries of one kind share the keyword; later ones line up under the first
        // (a comment before an entry starts a new group).
        let sig = &prim.signature;
        let at = self.find_token(from, |t| matches!(t, Token::Signature));
        self.section("signature", at, |p| {
            for (i, entry) in sig.iter().enumerate() {
                let kw = entry.kind.keyword();
                let entry_start = start(entry.span);
                if i > 0 && sig[i - 1].kind == entry.kind && !p.has_comments_before(entry_start) {
                    p.text(&[","]);
                    p.nl();
                    p.text(&[&" ".repeat(kw.len() + 1)]);
                } else {
                    p.nl();
                    p.comments_before(entry_start);
                    p.text(&[kw, " "]);
                }
                p.text(&[&entry.name.name]);
                p.args(&entry.params, |p, param| match param {
                    SigParam::Formal(f) => p.param(f),
                    SigParam::Const(c) => p.clause("const ", Some(c)),
                });
                p.wrapped_clause(" where ", entry.where_clause.as_ref(), 1);
                p.trailing_after(end(entry.span));
            }
        });
        let at = self.find_token(from, |t| matches!(t, Token::States));
        self.states(&prim.states, at);
        if let Some(so_that) = &prim.so_that {
            self.clause_line("so that ", so_that);
        }
        if !prim.transitions.is_empty() {
            let at = self.find_token(from, |t| matches!(t, Token::Transitions));
            self.section("transitions", at, |p| {
                p.lines(&prim.transitions, "", |p, i, t| {
                    if i > 0 {
                        p.nl(); // a blank line between transitions
                    }
                    p.comments_before(start(t.span));
                    p.transition(t);
                    p.trailing_after(end(t.span));
                })
            });
        }
        if !prim.tasks.is_empty() {
            let at = self.find_token(from, |t| matches!(t, Token::Tasks));
            self.section("tasks", at, |p| {
                p.lines(&prim.tasks, ";", |p, _, t| {
                    p.comments_before(start(t.span));
                    p.task(t);
                    p.trailing_after(end(t.span));
                })
            });
        }
    }

    /// A `states` section (its keyword at `at`), one declaration per line, or nothing when there
    /// are none.
    fn states(&mut self, states: &[StateDecl], at: usize) {
        if states.is_empty() {
            return;
        }
        self.section("states", at, |p| {
            p.lines(states, ",", |p, _, s| {
                p.comments_before(start(s.span));
                p.text(&[&s.name.name, ": "]);
                p.ty(&s.ty);
                if let Some(init) = &s.init {
                    p.initialiser(init, 1);
                }
                p.trailing_after(end(s.span));
            })
        });
    }

    fn transition(&mut self, t: &Transition) {
        self.text(&[t.kind.keyword(), " ", &t.name.name]);
        self.args(&t.args, Self::action_arg);
        if let Some(case) = &t.case {
            self.text(&[" case ", &case.name]);
        }
        self.indented(2, |p| {
            p.block_start = true;
            for (keyword, e) in [("where ", &t.where_clause), ("pre ", &t.pre)] {
                if let Some(e) = e {
                    p.clause_line(keyword, e);
                }
            }
            if let Some(first) = t.eff.first() {
                p.nl();
                p.comments_before(start(first.span));
                p.text(&["eff "]); // the statements line up after `eff `
                p.indented(4, |p| p.stmt_list(&t.eff));
            }
            if let Some(e) = &t.ensuring {
                p.clause_line("ensuring ", e);
            }
        });
    }

    fn action_arg(&mut self, a: &ActionArg) {
        match a {
            ActionArg::Bind { name, ty } => {
                self.text(&[&name.name]);
                self.opt_ty(ty.as_ref());
            }
            // A literal prints bare, as the manual writes it (`send(0)`); it reads back as the
            // same `const`.
            ActionArg::Const(e) if is_literal(e) => self.clause("", Some(e)),
            ActionArg::Const(e) => self.clause("const ", Some(e)),
        }
    }

    fn task(&mut self, task: &Task) {
        self.list("{ ", &task.actions, "", |p, a| {
            p.text(&[&a.name.name]);
            p.args(&a.args, Self::expr);
        });
        if !task.bound.is_empty() {
            self.list(" for ", &task.bound, "", Self::param);
        }
        self.wrapped_clause(" where ", task.where_clause.as_ref(), 3);
        self.text(&[" }"]);
    }

    /// The body of a composite automaton whose name ends at `from` in the source.
    fn composite(&mut self, comp: &Composite, from: usize) {
        let at = self.find_token(from, |t| matches!(t, Token::Components));
        self.section("components", at, |p| {
            p.lines(&comp.components, ";", |p, _, c| {
                p.comments_before(start(c.span));
                p.text(&[&c.name.name]);
                if !c.indices.is_empty() {
                    p.list("[", &c.indices, "]", Self::param);
                }
                p.text(&[": ", &c.automaton.name]);
                p.args(&c.args, Self::expr);
                p.wrapped_clause(" where ", c.where_clause.as_ref(), 1);
                p.trailing_after(end(c.span));
            })
        });
        if let Some(network) = &comp.network {
            self.nl();
            self.comments_before(start(network.span));
            self.text(&["network "]);
            let names: Vec<&str> = network.components.iter().map(|n| n.name.as_str()).collect();
            self.text(&[&names.join(", ")]);
            self.trailing_after(end(network.span));
        }
        let Some(first) = comp.hidden.first() else {
            return;
        };
        // The entries share a line unless a comment comes between them; then the next entry
        // starts a line of its own, lined up under the first.
        self.nl();
        self.comments_before(start(first.span));
        self.text(&["hidden "]);
        self.indented("hidden ".len(), |p| {
            for (i, h) in comp.hidden.iter().enumerate() {
                if i > 0 {
                    p.text(&[","]);
                    if p.pending_trailing.is_some() || p.has_comments_before(start(h.span)) {
                        p.nl();
                        p.comments_before(start(h.span));
                    } else {
                        p.text(&[" "]);
                    }
                }
                p.text(&[&h.name.name]);
                p.args(&h.args, Self::action_arg);
                p.wrapped_clause(" where ", h.where_clause.as_ref(), 1);
                p.trailing_after(end(h.span));
            }
        });
    }

    fn using(&mut self, using: &Option<Vec<Ident>>) {
        if let Some(names) = using {
            self.text(&[" using"]);
            for (k, n) in names.iter().enumerate() {
                self.text(&[if k == 0 { " " } else { ", " }, &n.name]);
            }
        }
    }

    /// `(k, n)` after an automaton's name in a simulation's header.
    fn header_args(&mut self, args: &Option<Vec<Ident>>) {
        let Some(args) = args else { return };
        self.text(&["("]);
        for (k, a) in args.iter().enumerate() {
            if k > 0 {
                self.text(&[", "]);
            }
            self.text(&[&a.name]);
        }
        self.text(&[")"]);
    }

    fn simulation(&mut self, s: &SimulationDecl) {
        self.text(&["forward simulation "]);
        if let Some(name) = &s.name {
            self.text(&[&name.name, " "]);
        }
        self.text(&["from ", &s.from.name]);
        self.header_args(&s.from_args);
        self.text(&[" to ", &s.to.name]);
        self.header_args(&s.to_args);
        self.using(&s.using);
        self.text(&[":"]);
        self.below(&s.relation);
        let Some(proof) = &s.proof else { return };
        let proof_at = self.find_token(end(s.relation.span), |t| matches!(t, Token::Proof));
        let states_at = self.find_token(proof_at, |t| matches!(t, Token::States));
        let start_at = self.find_token(proof_at, |t| matches!(t, Token::Start));
        self.section("proof", proof_at, |p| {
            p.states(&proof.states, states_at);
            if !proof.start.is_empty() {
                p.section("start", start_at, |p| {
                    p.nl();
                    p.stmt_list(&proof.start);
                });
            }
            p.lines(&proof.entries, "", |p, _, entry| {
                p.comments_before(start(entry.span));
                p.text(&["for ", entry.kind.keyword(), " ", &entry.name.name]);
                p.args(&entry.args, Self::action_arg);
                p.using(&entry.using);
                match &entry.body {
                    None => p.text(&[" ignore"]),
                    Some(body) => {
                        let od = p.token_before(end(entry.span));
                        p.do_block(body, od)
                    }
                }
                p.trailing_after(end(entry.span));
            });
        });
    }

    // ------------------------------------------------------------ statements

    /// Statements one per line, `;` between them; the first starts at the current position.
    fn stmt_list(&mut self, stmts: &[Stmt]) {
        for (i, s) in stmts.iter().enumerate() {
            if i > 0 {
                self.text(&[";"]);
                self.nl();
            }
            self.comments_before(start(s.span));
            self.stmt(s);
            self.trailing_after(end(s.span));
        }
    }

    /// An indented statement block on its own lines, ending on a fresh line at the outer
    /// indentation; an empty block is a single space. `closer` is where the keyword that ends the
    /// block stands in the source: comments before it go at the end of the block.
    fn block(&mut self, stmts: &[Stmt], closer: usize) {
        if stmts.is_empty() && !self.has_comments_before(closer) {
            return self.text(&[" "]);
        }
        self.indented(2, |p| {
            p.block_start = true;
            p.nl();
            p.stmt_list(stmts);
            if !stmts.is_empty() {
                p.nl();
            }
            p.comments_at_end(closer);
        });
    }

    /// ` do <block> od`, the `od` at `closer` in the source.
    fn do_block(&mut self, stmts: &[Stmt], closer: usize) {
        self.text(&[" do"]);
        self.block(stmts, closer);
        self.text(&["od"]);
    }

    fn stmt(&mut self, s: &Stmt) {
        // The keyword that ends a compound statement (`od`, `fi`).
        let last = self.token_before(end(s.span));
        match &s.kind {
            StmtKind::Assign { lhs, ty, rhs } => {
                self.expr_at(lhs, prec::POSTFIX);
                self.opt_ty(ty.as_ref());
                self.clause(" := ", Some(rhs));
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (i, (cond, body)) in branches.iter().enumerate() {
                    self.text(&[if i == 0 { "if " } else { "elseif " }]);
                    self.expr_wrapped(cond, prec::TOP, " then".len());
                    self.text(&[" then"]);
                    let closer = if i + 1 == branches.len() && otherwise.is_none() {
                        last
                    } else {
                        // The `elseif` or `else` after the block.
                        let after = match body.last() {
                            Some(s) => end(s.span),
                            None => self.token_after(end(cond.span), |t| t == Token::RParen).1,
                        };
                        self.token_after(after, |t| t == Token::Semi).0
                    };
                    self.block(body, closer);
                }
                if let Some(body) = otherwise {
                    self.text(&["else"]);
                    self.block(body, last);
                }
                self.text(&["fi"]);
            }
            StmtKind::ForIn {
                var,
                collection,
                body,
            } => {
                self.text(&["for "]);
                self.param(var);
                self.clause(" in ", Some(collection));
                self.do_block(body, last);
            }
            StmtKind::ForWhere { var, cond, body } => {
                self.text(&["for "]);
                self.param(var);
                self.wrapped_clause(" where ", Some(cond), " do".len());
                self.do_block(body, last);
            }
            StmtKind::While { cond, body } => {
                self.wrapped_clause("while ", Some(cond), " do".len());
                self.do_block(body, last);
            }
            StmtKind::Fire {
                kind,
                name,
                args,
                det,
            } => {
                self.text(&["fire ", kind.keyword(), " ", &name.name]);
                self.args(args, Self::expr);
                if let Some(det) = det {
                    self.text(&[" det"]);
                    self.do_block(det, last);
                }
            }
            StmtKind::Ignore => self.text(&["ignore"]),
            StmtKind::Yield(e) => self.clause("yield ", Some(e)),
            StmtKind::Det(body) => {
                self.text(&["det"]);
                self.do_block(body, last);
            }
        }
    }
}

/// Whether `e` is a literal an action argument may stand as without `const`: a number, a
/// negated number, a string, a character, `true`, `false`, `nil`, or a tuple.
fn is_literal(e: &Expr) -> bool {
    use crate::ast::{ExprKind as K, UnOp};
    match &e.kind {
        K::Int(_) | K::Str(_) | K::Char(_) | K::Bool(_) | K::Nil | K::Tuple(_) => true,
        K::Unary(UnOp::Neg, x) => matches!(x.kind, K::Int(_)),
        _ => false,
    }
}
