//! Printing expressions on one line, with the parentheses precedence needs.

use super::Printer;
use crate::ast::*;

/// Binding strength of each expression level, loosest first (see the grammar).
pub(super) mod prec {
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
pub(super) fn level(e: &Expr) -> u8 {
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
pub(super) fn binop_info(op: BinOp) -> (&'static str, u8, u8, u8) {
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
        BinOp::Concat => ("||", ADD),
        BinOp::Prepend => ("⊣", ADD),
        BinOp::Mul => ("*", MUL),
        BinOp::Intersect => ("∩", MUL),
        BinOp::Div => ("div", MUL),
        BinOp::Mod => ("mod", MUL),
        BinOp::Slash => ("/", MUL),
    };
    let (left, right) = match lvl {
        IFF => (IFF, IMPLIES),    // left-associative
        IMPLIES => (OR, IMPLIES), // right-associative
        CMP => (ADD, ADD),        // non-associative
        _ => (lvl, lvl + 1),      // left-associative
    };
    (sym, lvl, left, right)
}

impl Printer<'_> {
    pub(super) fn expr(&mut self, e: &Expr) {
        self.expr_at(e, prec::TOP);
    }

    /// Writes `e` where the grammar expects an expression of level `min`, parenthesising it if
    /// it binds more loosely.
    pub(super) fn expr_at(&mut self, e: &Expr, min: u8) {
        let parens = level(e) < min;
        self.text(&[if parens { "(" } else { "" }]);
        self.expr_bare(e);
        self.text(&[if parens { ")" } else { "" }]);
    }

    pub(super) fn expr_bare(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Name(n) => self.text(&[&n.name]),
            ExprKind::Int(v) => self.text(&[&v.to_string()]),
            ExprKind::Bool(b) => self.text(&[if *b { "true" } else { "false" }]),
            ExprKind::Str(s) => self.text(&["\"", &crate::parse::escape(s), "\""]),
            ExprKind::Real(digits, scale) => {
                self.text(&[&crate::parse::write_decimal(*digits, *scale)])
            }
            ExprKind::Char(c) => self.text(&[&crate::parse::escape_char(*c)]),
            ExprKind::Nil => self.text(&["nil"]),
            ExprKind::Tuple(es) => self.list("[", es, "]", Self::expr),
            ExprKind::SetLit(es) => self.list("{", es, "}", Self::expr),
            ExprKind::Unary(UnOp::Not, inner) => {
                self.text(&[not_prefix(inner)]);
                self.expr_at(inner, not_operand_level(inner));
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
                self.list(quantifier(*q), params, " (", Self::param);
                self.expr(body);
                self.text(&[")"]);
            }
            ExprKind::SetComp { var, cond } => {
                self.text(&["{"]);
                self.param(var);
                self.text(&[" | "]);
                self.expr(cond);
                self.text(&["}"]);
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
                    // Statements inside an expression stay on its line (and carry no comments).
                    let saved = std::mem::replace(&mut self.inline, true);
                    self.text(&[" det"]);
                    self.do_block(det, 0);
                    self.inline = saved;
                }
            }
        }
    }
}

/// `¬`, followed by a space when the operand is not a single term: `¬ a = b` is `¬(a = b)`.
/// `¬` binds looser than comparisons, but the papers write `¬(i ∈ failed)`: a compound operand
/// is parenthesised, so the printer needs no space after `¬`.
pub(super) fn not_prefix(_operand: &Expr) -> &'static str {
    "¬"
}

/// The precedence `¬`'s operand is printed at: a nested `¬` as is, any other compound operand
/// in parentheses.
pub(super) fn not_operand_level(operand: &Expr) -> u8 {
    if matches!(operand.kind, ExprKind::Unary(UnOp::Not, _)) {
        prec::NOT
    } else {
        prec::NEG
    }
}

/// A quantifier and the space after it.
pub(super) fn quantifier(q: Quantifier) -> &'static str {
    match q {
        Quantifier::ForAll => "∀ ",
        Quantifier::Exists => "∃ ",
    }
}
