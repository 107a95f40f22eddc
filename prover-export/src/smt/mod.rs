//! The SMT-LIB2 encoding of IOA: sorts ([`sorts`]), expressions ([`expr`]) and effects in SSA
//! ([`stmt`]), written into a [`Script`]. The same text is given to Z3 in process and written by
//! `ioa export smt`, so both always see one encoding.

pub mod alpha;
pub mod expr;
pub mod object_facts;
mod pointwise;
pub mod sexpr;
pub mod sorts;
pub mod stmt;

use std::fmt::Write;

/// An SMT-LIB2 script under construction: declarations and assertions in order.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// Lines of the script (commands and comments).
    lines: Vec<String>,
    /// Counter for fresh names.
    fresh: u32,
    /// Tracked hypotheses: label and the Boolean constant that guards it.
    hypotheses: Vec<(String, String)>,
}

impl Script {
    /// A fresh symbol starting with `base` (sanitized).
    pub fn fresh(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{}.{}", symbol(base), self.fresh)
    }

    /// A tracked hypothesis: `(=> hyp.N term)` with `hyp.N` a fresh Boolean constant that the
    /// check assumes, so that Z3's unsat core names the hypotheses a proof used.
    pub fn hypothesis(&mut self, label: &str, term: &str) {
        let name = format!("hyp.{}", self.hypotheses.len() + 1);
        self.comment(&format!("hypothesis {name}: {label}"));
        self.declare(&name, "Bool");
        self.assert(&format!("(=> {name} {term})"));
        self.hypotheses.push((label.to_string(), name));
    }

    /// The tracked hypotheses so far: label and guard constant.
    pub fn hypotheses(&self) -> &[(String, String)] {
        &self.hypotheses
    }

    /// `(declare-const name sort)`.
    pub fn declare(&mut self, name: &str, sort: &str) {
        self.lines.push(format!("(declare-const {name} {sort})"));
    }

    /// A fresh constant of the sort, declared.
    pub fn fresh_const(&mut self, base: &str, sort: &str) -> String {
        let name = self.fresh(base);
        self.declare(&name, sort);
        name
    }

    /// A fresh constant defined as `term` (an SSA step).
    pub fn define(&mut self, base: &str, sort: &str, term: &str) -> String {
        let name = self.fresh_const(base, sort);
        self.assert(&format!("(= {name} {term})"));
        name
    }

    /// `(assert term)`.
    pub fn assert(&mut self, term: &str) {
        self.lines.push(format!("(assert {term})"));
    }

    /// A `;` comment line.
    pub fn comment(&mut self, text: &str) {
        for line in text.lines() {
            self.lines.push(format!("; {line}"));
        }
    }

    /// A raw command.
    pub fn raw(&mut self, text: String) {
        self.lines.push(text);
    }

    /// The script text (without `check-sat`).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for l in &self.lines {
            let _ = writeln!(out, "{l}");
        }
        out
    }
}

/// Turns an IOA name into an SMT-LIB simple symbol (primes become `_q`).
pub fn symbol(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '.' => out.push(c),
            '\'' => out.push_str("_q"),
            _ => {
                let _ = write!(out, "_u{:x}", c as u32);
            }
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'v');
    }
    out
}

/// `(and …)` of terms, `true` for none.
pub fn and(terms: &[String]) -> String {
    match terms.len() {
        0 => "true".into(),
        1 => terms[0].clone(),
        _ => format!("(and {})", terms.join(" ")),
    }
}

/// `(or …)` of terms, `false` for none.
pub fn or(terms: &[String]) -> String {
    match terms.len() {
        0 => "false".into(),
        1 => terms[0].clone(),
        _ => format!("(or {})", terms.join(" ")),
    }
}
