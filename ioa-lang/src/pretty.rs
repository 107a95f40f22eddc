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
//! them, and always around a quantifier body. Comments are not in the AST and so are not
//! preserved; nor is the grouping of signature entries or the spelling of operators. String
//! literals are written as stored: the language has no escapes, so a string holding `"` or a line
//! break (which the parser never produces) cannot be printed faithfully.

use crate::ast::*;

/// Prints a whole file: its declarations separated by blank lines, ending in a newline.
pub fn print_file(file: &SourceFile) -> String {
    render(|p| {
        for (i, item) in file.items.iter().enumerate() {
            if i > 0 {
                p.nl();
                p.nl();
            }
            p.item(item);
        }
        p.nl();
    })
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
    p.out
}

/// Binding strength of each expression level, loosest first (see the grammar).
mod prec {
    pub const TOP: u8 = 0; // `if … then … else`, `choose`
    pub const IFF: u8 = 1;
    pub const IMPLIES: u8 = 2;
    pub const OR: u8 = 3;
    pub const AND: u8 = 4;
    pub const NOT: u8 = 5;
    pub const CMP: u8 = 6;
    pub const ADD: u8 = 7;
    pub const MUL: u8 = 8;
    pub const NEG: u8 = 9;
    pub const POSTFIX: u8 = 10;
    pub const ATOM: u8 = 11;
}

/// The level an expression's outermost node lives at.
fn level(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Cond(..) | ExprKind::Choose { .. } => prec::TOP,
        ExprKind::Binary(op, ..) => binop_info(*op).1,
        ExprKind::Unary(UnOp::Not, _) => prec::NOT,
        ExprKind::Unary(UnOp::Neg, _) => prec::NEG,
        ExprKind::Is(..) => prec::CMP,
        ExprKind::Field(..) | ExprKind::Index(..) => prec::POSTFIX,
        _ => prec::ATOM,
    }
}

/// A binary operator's symbol, its level, and the levels its left and right operands need.
fn binop_info(op: BinOp) -> (&'static str, u8, u8, u8) {
    use prec::*;
    let (sym, lvl) = match op {
        BinOp::Iff => ("⇔", IFF),
        BinOp::Implies => ("⇒", IMPLIES),
        BinOp::Or => ("∨", OR),
        BinOp::And => ("∧", AND),
        BinOp::Eq => ("=", CMP),
        BinOp::Neq => ("≠", CMP),
        BinOp::Lt => ("<", CMP),
        BinOp::Le => ("≤", CMP),
        BinOp::Gt => (">", CMP),
        BinOp::Ge => ("≥", CMP),
        BinOp::In => ("∈", CMP),
        BinOp::NotIn => ("∉", CMP),
        BinOp::SubsetEq => ("⊆", CMP),
        BinOp::Subset => ("⊂", CMP),
        BinOp::Add => ("+", ADD),
        BinOp::Sub => ("-", ADD),
        BinOp::Union => ("∪", ADD),
        BinOp::Append => ("⊢", ADD),
        BinOp::Mul => ("*", MUL),
        BinOp::Intersect => ("∩", MUL),
        BinOp::Div => ("div", MUL),
        BinOp::Mod => ("mod", MUL),
    };
    let (left, right) = match lvl {
        IFF => (IFF, IMPLIES),    // left-associative
        IMPLIES => (OR, IMPLIES), // right-associative
        CMP => (ADD, ADD),        // non-associative
        _ => (lvl, lvl + 1),      // left-associative
    };
    (sym, lvl, left, right)
}

/// Accumulates output with indentation, which is written lazily so that blank lines carry no
/// trailing spaces. In inline mode (statements inside an expression) line breaks become spaces.
#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
    pending_indent: bool,
    inline: bool,
}

impl Printer {
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

    /// `keyword` on a new line, then `f` indented below it.
    fn section(&mut self, keyword: &str, f: impl FnOnce(&mut Self)) {
        self.nl();
        self.text(&[keyword]);
        self.indented(2, f);
    }

    /// `: T` when `ty` is present.
    fn opt_ty(&mut self, ty: Option<&TypeExpr>) {
        if let Some(ty) = ty {
            self.text(&[": "]);
            self.ty(ty);
        }
    }

    /// `e` on the next line, indented.
    fn below(&mut self, e: &Expr) {
        self.indented(2, |p| {
            p.nl();
            p.expr(e);
        });
    }

    /// `keyword e` when `e` is present.
    fn clause(&mut self, keyword: &str, e: Option<&Expr>) {
        if let Some(e) = e {
            self.text(&[keyword]);
            self.expr(e);
        }
    }

    // ------------------------------------------------------------ declarations

    fn item(&mut self, item: &Item) {
        match item {
            Item::Import(i) => self.text(&["import \"", &i.path, "\""]),
            Item::Type(t) => {
                self.text(&["type ", &t.name.name, " = "]);
                match &t.def {
                    TypeDef::Tuple(fields) => self.list("tuple of ", fields, "", Self::field),
                    TypeDef::Enumeration(names) => {
                        self.list("enumeration of ", names, "", |p, n| p.text(&[&n.name]))
                    }
                    TypeDef::Union(fields) => self.list("union of ", fields, "", Self::field),
                    TypeDef::Alias(ty) => self.ty(ty),
                }
            }
            Item::Automaton(a) => {
                self.text(&["automaton ", &a.name.name]);
                self.args(&a.params, Self::param);
                self.indented(2, |p| match &a.body {
                    AutomatonBody::Primitive(prim) => p.primitive(prim),
                    AutomatonBody::Composite(comp) => p.composite(comp),
                });
            }
            Item::Invariant(i) => {
                self.text(&["invariant ", &i.name.name, " of ", &i.automaton.name, ":"]);
                self.below(&i.body);
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
                self.indented(2, |p| {
                    p.states(&s.states);
                    p.nl();
                    p.text(&["do"]);
                    p.block(&s.body);
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

    fn primitive(&mut self, prim: &Primitive) {
        // Consecutive entries of one kind share the keyword; later ones line up under the first.
        let sig = &prim.signature;
        self.section("signature", |p| {
            for (i, entry) in sig.iter().enumerate() {
                let kw = entry.kind.keyword();
                if i > 0 && sig[i - 1].kind == entry.kind {
                    p.text(&[","]);
                    p.nl();
                    p.text(&[&" ".repeat(kw.len() + 1)]);
                } else {
                    p.nl();
                    p.text(&[kw, " "]);
                }
                p.text(&[&entry.name.name]);
                p.args(&entry.params, |p, param| match param {
                    SigParam::Formal(f) => p.param(f),
                    SigParam::Const(c) => p.clause("const ", Some(c)),
                });
                p.clause(" where ", entry.where_clause.as_ref());
            }
        });
        self.states(&prim.states);
        if let Some(so_that) = &prim.so_that {
            self.nl();
            self.clause("so that ", Some(so_that));
        }
        if !prim.transitions.is_empty() {
            self.section("transitions", |p| {
                p.lines(&prim.transitions, "", |p, i, t| {
                    if i > 0 {
                        p.nl(); // a blank line between transitions
                    }
                    p.transition(t)
                })
            });
        }
        if !prim.tasks.is_empty() {
            self.section("tasks", |p| p.lines(&prim.tasks, ";", |p, _, t| p.task(t)));
        }
    }

    /// A `states` section, one declaration per line, or nothing when there are none.
    fn states(&mut self, states: &[StateDecl]) {
        if states.is_empty() {
            return;
        }
        self.section("states", |p| {
            p.lines(states, ",", |p, _, s| {
                p.text(&[&s.name.name, ": "]);
                p.ty(&s.ty);
                p.clause(" := ", s.init.as_ref());
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
            for (keyword, e) in [("where ", &t.where_clause), ("pre ", &t.pre)] {
                if let Some(e) = e {
                    p.nl();
                    p.clause(keyword, Some(e));
                }
            }
            if !t.eff.is_empty() {
                p.nl();
                p.text(&["eff "]); // the statements line up after `eff `
                p.indented(4, |p| p.stmt_list(&t.eff));
            }
        });
    }

    fn action_arg(&mut self, a: &ActionArg) {
        match a {
            ActionArg::Bind { name, ty } => {
                self.text(&[&name.name]);
                self.opt_ty(ty.as_ref());
            }
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
        self.clause(" where ", task.where_clause.as_ref());
        self.text(&[" }"]);
    }

    fn composite(&mut self, comp: &Composite) {
        self.section("components", |p| {
            p.lines(&comp.components, ";", |p, _, c| {
                p.text(&[&c.name.name]);
                if !c.indices.is_empty() {
                    p.list("[", &c.indices, "]", Self::param);
                }
                p.text(&[": ", &c.automaton.name]);
                p.args(&c.args, Self::expr);
            })
        });
        if !comp.hidden.is_empty() {
            self.nl();
            self.list("hidden ", &comp.hidden, "", |p, h| {
                p.text(&[&h.name.name]);
                p.args(&h.args, Self::action_arg);
                p.clause(" where ", h.where_clause.as_ref());
            });
        }
    }

    fn simulation(&mut self, s: &SimulationDecl) {
        self.text(&["forward simulation "]);
        if let Some(name) = &s.name {
            self.text(&[&name.name, " "]);
        }
        self.text(&["from ", &s.from.name, " to ", &s.to.name, ":"]);
        self.below(&s.relation);
        let Some(proof) = &s.proof else { return };
        self.section("proof", |p| {
            p.states(&proof.states);
            if !proof.start.is_empty() {
                p.section("start", |p| {
                    p.nl();
                    p.stmt_list(&proof.start);
                });
            }
            p.lines(&proof.entries, "", |p, _, entry| {
                p.text(&["for ", entry.kind.keyword(), " ", &entry.name.name]);
                p.args(&entry.args, Self::action_arg);
                match &entry.body {
                    None => p.text(&[" ignore"]),
                    Some(body) => p.do_block(body),
                }
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
            self.stmt(s);
        }
    }

    /// An indented statement block on its own lines, ending on a fresh line at the outer
    /// indentation; an empty block is a single space.
    fn block(&mut self, stmts: &[Stmt]) {
        if stmts.is_empty() {
            return self.text(&[" "]);
        }
        self.indented(2, |p| {
            p.nl();
            p.stmt_list(stmts);
        });
        self.nl();
    }

    /// ` do <block> od`.
    fn do_block(&mut self, stmts: &[Stmt]) {
        self.text(&[" do"]);
        self.block(stmts);
        self.text(&["od"]);
    }

    fn stmt(&mut self, s: &Stmt) {
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
                    self.clause(if i == 0 { "if " } else { "elseif " }, Some(cond));
                    self.text(&[" then"]);
                    self.block(body);
                }
                if let Some(body) = otherwise {
                    self.text(&["else"]);
                    self.block(body);
                }
                self.text(&["fi"]);
            }
            StmtKind::ForIn {
                var,
                collection: e,
                body,
            } => self.for_loop(var, " in ", e, body),
            StmtKind::ForWhere { var, cond: e, body } => self.for_loop(var, " where ", e, body),
            StmtKind::While { cond, body } => {
                self.clause("while ", Some(cond));
                self.do_block(body);
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
                    self.do_block(det);
                }
            }
            StmtKind::Ignore => self.text(&["ignore"]),
            StmtKind::Yield(e) => self.clause("yield ", Some(e)),
        }
    }

    fn for_loop(&mut self, var: &Param, keyword: &str, e: &Expr, body: &[Stmt]) {
        self.text(&["for "]);
        self.param(var);
        self.clause(keyword, Some(e));
        self.do_block(body);
    }

    // ------------------------------------------------------------ expressions

    fn expr(&mut self, e: &Expr) {
        self.expr_at(e, prec::TOP);
    }

    /// Writes `e` where the grammar expects an expression of level `min`, parenthesising it if
    /// it binds more loosely.
    fn expr_at(&mut self, e: &Expr, min: u8) {
        let parens = level(e) < min;
        self.text(&[if parens { "(" } else { "" }]);
        self.expr_bare(e);
        self.text(&[if parens { ")" } else { "" }]);
    }

    fn expr_bare(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Name(n) => self.text(&[&n.name]),
            ExprKind::Int(v) => self.text(&[&v.to_string()]),
            ExprKind::Bool(b) => self.text(&[if *b { "true" } else { "false" }]),
            ExprKind::Str(s) => self.text(&["\"", s, "\""]),
            ExprKind::Nil => self.text(&["nil"]),
            ExprKind::Tuple(es) => self.list("[", es, "]", Self::expr),
            ExprKind::SetLit(es) => self.list("{", es, "}", Self::expr),
            ExprKind::Unary(UnOp::Not, inner) => {
                // A space marks an operand that is not a single term: `¬ a = b` is `¬(a = b)`.
                let spaced = level(inner) < prec::NEG;
                self.text(&["¬", if spaced { " " } else { "" }]);
                self.expr_at(inner, prec::NOT);
            }
            ExprKind::Unary(UnOp::Neg, inner) => {
                self.text(&["-"]);
                self.expr_at(inner, prec::NEG);
            }
            ExprKind::Binary(op, l, r) => {
                let (sym, _, left, right) = binop_info(*op);
                self.expr_at(l, left);
                self.text(&[" ", sym, " "]);
                self.expr_at(r, right);
            }
            ExprKind::Field(base, f) => {
                self.expr_at(base, prec::POSTFIX);
                self.text(&[".", &f.name]);
            }
            ExprKind::Index(base, idx) => {
                self.expr_at(base, prec::POSTFIX);
                self.list("[", idx, "]", Self::expr);
            }
            ExprKind::Call(f, args) => self.list(&format!("{}(", f.name), args, ")", Self::expr),
            ExprKind::Is(inner, tag) => {
                self.expr_at(inner, prec::ADD);
                self.text(&[" is ", &tag.name]);
            }
            ExprKind::Quant(q, params, body) => {
                let q = match q {
                    Quantifier::ForAll => "∀ ",
                    Quantifier::Exists => "∃ ",
                };
                self.list(q, params, " (", Self::param);
                self.expr(body);
                self.text(&[")"]);
            }
            ExprKind::Cond(c, a, b) => {
                self.clause("if ", Some(c));
                self.clause(" then ", Some(a));
                self.clause(" else ", Some(b));
            }
            ExprKind::Choose { var, cond, det } => {
                self.text(&["choose "]);
                self.param(var);
                if let Some(cond) = cond {
                    self.text(&[" where "]);
                    self.expr_at(cond, prec::IFF);
                }
                if let Some(det) = det {
                    // Statements inside an expression stay on its line.
                    let saved = std::mem::replace(&mut self.inline, true);
                    self.text(&[" det"]);
                    self.do_block(det);
                    self.inline = saved;
                }
            }
        }
    }
}
