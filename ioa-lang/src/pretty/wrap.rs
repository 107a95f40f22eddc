//! Breaking long predicates over several lines.

use super::expr::{binop_info, level, not_prefix, prec, quantifier};
use super::{render, Printer};
use crate::ast::{BinOp, Expr, ExprKind, UnOp};

/// The longest line (in characters) the printer writes when it can break it.
pub const MAX_WIDTH: usize = 100;

impl Printer<'_> {
    /// The column the next character goes to.
    fn column(&self) -> usize {
        let line = &self.out[self.out.rfind('\n').map_or(0, |i| i + 1)..];
        line.chars().count() + if self.pending_indent { self.indent } else { 0 }
    }

    /// A line break inside an expression, continuing at column `col`.
    fn break_to(&mut self, col: usize) {
        self.out.push('\n');
        self.out.extend(std::iter::repeat_n(' ', col));
        self.pending_indent = false;
    }

    /// Writes `e` like `expr_at(e, min)`, but when that would take the line past [`MAX_WIDTH`]
    /// (counting `tail` more columns written after it) and `e` is a chain of `∧`, `∨`, `⇒` or
    /// `⇔`, writes one operand per line, each after the first starting with the operator under
    /// the start of the chain. Operands that are still too long are broken in turn, as are the
    /// operand of a negation, the body of a quantifier and a parenthesised chain.
    pub(super) fn expr_wrapped(&mut self, e: &Expr, min: u8, tail: usize) {
        if self.inline {
            return self.expr_at(e, min);
        }
        let flat = render(|p| p.expr_at(e, min));
        if self.column() + flat.chars().count() + tail <= MAX_WIDTH {
            return self.text(&[&flat]);
        }
        if level(e) < min {
            self.text(&["("]);
            self.expr_wrapped(e, prec::TOP, tail + 1);
            return self.text(&[")"]);
        }
        match &e.kind {
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies | BinOp::Iff), ..) => {
                let sym = binop_info(*op).0;
                let col = self.column();
                let operands = chain(e, *op);
                let last = operands.len() - 1;
                for (i, (operand, min)) in operands.into_iter().enumerate() {
                    if i > 0 {
                        self.break_to(col);
                        self.text(&[sym, " "]);
                    }
                    self.expr_wrapped(operand, min, if i == last { tail } else { 0 });
                }
            }
            ExprKind::Unary(UnOp::Not, inner) => {
                self.text(&[not_prefix(inner)]);
                self.expr_wrapped(inner, super::expr::not_operand_level(inner), tail);
            }
            ExprKind::Quant(q, params, body) => {
                self.list(quantifier(*q), params, " (", Self::param);
                self.expr_wrapped(body, prec::TOP, tail + 1);
                self.text(&[")"]);
            }
            _ => self.text(&[&flat]),
        }
    }
}

impl Printer<'_> {
    /// ` := init` after a state variable, with `init` on the next line (indented) when it does not
    /// fit on this one; `tail` columns follow it.
    pub(super) fn initialiser(&mut self, init: &Expr, tail: usize) {
        let flat = render(|p| p.expr(init));
        if self.column() + " := ".len() + flat.chars().count() + tail <= MAX_WIDTH {
            return self.text(&[" := ", &flat]);
        }
        self.text(&[" :="]);
        self.indented(2, |p| {
            p.nl();
            p.text(&[&flat]);
        });
    }

    /// `open item, item, …`, as many items on a line as fit, later lines lined up under the first
    /// item.
    pub(super) fn filled_list<T>(&mut self, open: &str, items: &[T], f: impl Fn(&mut Printer, &T)) {
        self.text(&[open]);
        let col = self.column();
        for (i, item) in items.iter().enumerate() {
            let piece = render(|p| f(p, item));
            let comma = usize::from(i + 1 < items.len());
            if i > 0 {
                if self.column() + 2 + piece.chars().count() + comma > MAX_WIDTH {
                    self.text(&[","]);
                    self.break_to(col);
                } else {
                    self.text(&[", "]);
                }
            }
            self.text(&[&piece]);
        }
    }
}

/// The operands of the chain of `op` that `e` is (whose outermost operator is `op`), each with the
/// level it must be written at.
fn chain(e: &Expr, op: BinOp) -> Vec<(&Expr, u8)> {
    let (_, _, left, right) = binop_info(op);
    let mut operands = Vec::new();
    let mut cur = e;
    if op == BinOp::Implies {
        // Right-associative: a ⇒ (b ⇒ c).
        while let ExprKind::Binary(BinOp::Implies, l, r) = &cur.kind {
            operands.push((&**l, left));
            cur = r;
        }
        operands.push((cur, right));
    } else {
        // Left-associative: (a ∧ b) ∧ c.
        loop {
            match &cur.kind {
                ExprKind::Binary(o, l, r) if *o == op => {
                    operands.push((&**r, right));
                    cur = l;
                }
                _ => break,
            }
        }
        operands.push((cur, left));
        operands.reverse();
    }
    operands
}
