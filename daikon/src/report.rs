//! The outcome of a detection: every candidate with its verdict, and the reported ones as
//! numbered, sorted, deduplicated IOA `invariant` declarations; as IOA text, as `%` comments
//! explaining the dropped candidates, or as JSON.

use crate::engine::{Counts, Engine};
use crate::invariant::{Finding, Invariant, Kind, Verdict};
use crate::print::IoaPrinter;
use crate::suppress::suppress;
use crate::vars::VarModel;
use crate::Options;
use ioa_lang::ast::{Ident, InvariantDecl, Item};
use ioa_lang::ir::Spec;
use ioa_lang::span::Span;
use serde_json::{json, Value as Json};

/// One reported invariant, as declared.
#[derive(Debug, Clone, PartialEq)]
pub struct Declaration {
    /// Its name (`Inv_3`).
    pub name: String,
    /// Its predicate, on one line.
    pub text: String,
    /// The whole declaration, as the pretty printer lays it out.
    pub declaration: String,
    /// The finding it reports.
    pub finding: usize,
}

/// Every candidate and the reported declarations.
#[derive(Debug, Clone)]
pub struct Report {
    /// The automaton the invariants are about.
    pub automaton: String,
    /// The confidence used.
    pub confidence: f64,
    /// What the engine saw.
    pub counts: Counts,
    /// Every candidate with its verdict.
    pub findings: Vec<Finding>,
    /// The printed predicate of each finding, when it has one.
    pub texts: Vec<Option<String>>,
    /// The printed premise of each conditional finding (without its quantifier).
    pub premises: Vec<Option<String>>,
    /// The reported invariants, numbered in order.
    pub declarations: Vec<Declaration>,
    var_names: Vec<String>,
}

impl Report {
    /// Judges, suppresses, prints and numbers the engine's candidates. Declarations are named
    /// `PREFIX1`, `PREFIX2`, …, skipping names in `taken`.
    pub fn build(
        spec: &Spec,
        model: &VarModel,
        engine: &Engine,
        options: &Options,
        taken: &[String],
    ) -> Report {
        let (confidence, prefix) = (options.confidence, options.prefix.as_str());
        let printer = IoaPrinter::new(spec, model);
        let mut findings = engine.findings(confidence);
        let texts: Vec<Option<String>> = findings
            .iter()
            .map(|f| printer.text(&f.invariant))
            .collect();
        let premises: Vec<Option<String>> = findings
            .iter()
            .map(|f| {
                let c = f.invariant.condition.as_ref()?;
                printer.premise_text(c)
            })
            .collect();
        crate::suppress::type_facts(model, &mut findings, options.grammar);
        for (f, t) in findings.iter_mut().zip(&texts) {
            if t.is_none() && matches!(f.verdict, Verdict::Reported | Verdict::Unjustified) {
                f.verdict = Verdict::Unprintable;
            }
        }
        suppress(model, &mut findings, options.grammar);
        let mut order: Vec<usize> = (0..findings.len()).collect();
        order.sort_by(|&i, &j| {
            sort_key(&findings[i], &texts[i]).cmp(&sort_key(&findings[j], &texts[j]))
        });
        // Deduplicate by text: two candidates can print the same.
        let mut first_with_text: rustc_hash::FxHashMap<&str, usize> = Default::default();
        let mut duplicates = Vec::new();
        for &i in &order {
            if !findings[i].reported() {
                continue;
            }
            let text = texts[i].as_deref().expect("reported findings print");
            match first_with_text.get(text) {
                Some(&j) => duplicates.push((i, j)),
                None => {
                    first_with_text.insert(text, i);
                }
            }
        }
        for (i, j) in duplicates {
            findings[i].verdict = Verdict::Suppressed {
                by: vec![j],
                reason: "the same invariant, printed alike".into(),
            };
        }
        let mut declarations = Vec::new();
        let mut k = 0;
        for &i in &order {
            if !findings[i].reported() {
                continue;
            }
            let name = loop {
                k += 1;
                let candidate = format!("{prefix}{k}");
                if !taken.contains(&candidate) {
                    break candidate;
                }
            };
            let body = printer
                .expr(&findings[i].invariant)
                .expect("reported findings print");
            let item = Item::Invariant(InvariantDecl {
                name: ident(&name),
                automaton: ident(&model.automaton),
                using: None,
                body,
                span: Span::default(),
            });
            declarations.push(Declaration {
                name,
                text: texts[i].clone().expect("reported findings print"),
                declaration: ioa_lang::pretty::print_item(&item),
                finding: i,
            });
        }
        Report {
            automaton: model.automaton.clone(),
            confidence,
            counts: engine.counts(),
            findings,
            texts,
            premises,
            declarations,
            var_names: model.vars.iter().map(|v| v.name.clone()).collect(),
        }
    }

    /// The declarations as IOA source, after a `%` comment saying where they come from.
    pub fn ioa(&self) -> String {
        let mut out = self.ioa_header(self.declarations.len());
        for d in &self.declarations {
            out.push('\n');
            out.push_str(&d.declaration);
            out.push('\n');
        }
        out
    }

    /// The first line of the IOA output, for `count` printed invariants.
    pub fn ioa_header(&self, count: usize) -> String {
        let c = &self.counts;
        format!(
            "% ioa infer: {count} invariant(s) of {} from {} run(s), {} distinct state(s) of {} \
             (confidence {})\n",
            self.automaton, c.traces, c.samples, c.states, self.confidence
        )
    }

    /// Why each dropped candidate was dropped, as `%` comments (so the output stays IOA).
    pub fn explain(&self) -> String {
        let mut out = String::from("\n% Dropped candidates:\n");
        let mut order: Vec<usize> = (0..self.findings.len())
            .filter(|&i| !self.findings[i].reported())
            .collect();
        order.sort_by_key(|&i| (verdict_rank(&self.findings[i].verdict), i));
        for i in order {
            out.push_str(&format!("% {}\n", self.explain_one(i)));
        }
        out
    }

    /// One line about finding `i`.
    pub fn explain_one(&self, i: usize) -> String {
        let f = &self.findings[i];
        let text = self.describe(i);
        match &f.verdict {
            Verdict::Reported => format!("reported: {text}"),
            Verdict::Falsified(w) => {
                let mut place = format!("{}, state {}", w.trace, w.state);
                if let Some(a) = &w.action {
                    place.push_str(&format!(" (after {a})"));
                }
                if let Some(ix) = &w.index {
                    place.push_str(&format!(", at {ix}"));
                }
                let values = w
                    .values
                    .iter()
                    .map(|(n, v)| format!("{n} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("falsified: {text} — in {place}: {values}")
            }
            Verdict::Unjustified => format!(
                "unjustified: {text} — {} informative sample(s); chance {:.3} under {} is not \
                 below {:.3}",
                f.samples,
                f.probability,
                f.model,
                1.0 - self.confidence
            ),
            Verdict::Suppressed { by, reason } => {
                let premises = by
                    .iter()
                    .map(|&j| self.name_or_text(j))
                    .collect::<Vec<_>>()
                    .join(" and ");
                if premises.is_empty() {
                    format!("suppressed: {text} — {reason}")
                } else {
                    format!("suppressed: {text} — follows from {premises} ({reason})")
                }
            }
            Verdict::Unprintable => {
                format!(
                    "unprintable: {text} — held, but has no IOA spelling in this grammar (it \
                     would need ∃ over values, or a quantifier per element of a large set)"
                )
            }
        }
    }

    /// The name of a variable of the model (`voted[n]`, `enabled(vote)`).
    pub fn var_name(&self, v: usize) -> &str {
        self.var_names.get(v).map(String::as_str).unwrap_or("?")
    }

    /// The declared name of a reported finding, or its text.
    fn name_or_text(&self, i: usize) -> String {
        match self.declarations.iter().find(|d| d.finding == i) {
            Some(d) => format!("{} ({})", d.name, d.text),
            None => self.describe(i),
        }
    }

    /// The finding's IOA text, or a description in terms of variable names.
    pub fn describe(&self, i: usize) -> String {
        if let Some(t) = &self.texts[i] {
            return t.clone();
        }
        let inv = &self.findings[i].invariant;
        let n = |k: usize| self.var_names[inv.vars[k]].clone();
        let premise = match (&inv.condition, &self.premises[i]) {
            (Some(_), Some(p)) => format!("{p} ⇒ "),
            (Some(c), None) => format!("{} = {:?} ⇒ ", self.var_names[c.var], c.value),
            (None, _) => String::new(),
        };
        premise
            + &match &inv.kind {
                Kind::Const(_) => format!("{} is constant", n(0)),
                Kind::OneOf(vs) => format!("{} takes {} values", n(0), vs.len()),
                Kind::Lower(c) => format!("{} ≥ {c}", n(0)),
                Kind::Upper(c) => format!("{} ≤ {c}", n(0)),
                Kind::Less => format!("{} < {}", n(0), n(1)),
                Kind::LessEq => format!("{} ≤ {}", n(0), n(1)),
                Kind::Equal => format!("{} = {}", n(0), n(1)),
                Kind::Linear(a, b, c) => format!("{a}·{} + {b}·{} + {c} = 0", n(0), n(1)),
                Kind::Subset => format!("{} ⊆ {}", n(0), n(1)),
                Kind::Disjoint => format!("size({} ∩ {}) = 0", n(0), n(1)),
                Kind::Member => format!("{} ∈ {}", n(0), n(1)),
            }
    }

    /// The report as JSON; with `explain`, the dropped candidates too.
    pub fn to_json(&self, explain: bool) -> Json {
        let invariants: Vec<Json> = self
            .declarations
            .iter()
            .map(|d| {
                let f = &self.findings[d.finding];
                json!({
                    "name": d.name,
                    "automaton": self.automaton,
                    "text": d.text,
                    "declaration": d.declaration,
                    "kind": f.invariant.kind.name(),
                    "variables": self.vars_of(&f.invariant),
                    "condition": self.premises[d.finding],
                    "samples": f.samples,
                    "probability": f.probability,
                    "model": f.model,
                })
            })
            .collect();
        let mut out = json!({
            "automaton": self.automaton,
            "confidence": self.confidence,
            "counts": self.counts,
            "invariants": invariants,
        });
        if explain {
            let dropped: Vec<Json> = (0..self.findings.len())
                .filter(|&i| !self.findings[i].reported())
                .map(|i| self.dropped_json(i))
                .collect();
            out["dropped"] = Json::Array(dropped);
        }
        out
    }

    fn dropped_json(&self, i: usize) -> Json {
        let f = &self.findings[i];
        let mut j = json!({
            "text": self.describe(i),
            "kind": f.invariant.kind.name(),
            "variables": self.vars_of(&f.invariant),
            "samples": f.samples,
            "probability": f.probability,
            "model": f.model,
        });
        match &f.verdict {
            Verdict::Reported => j["verdict"] = "reported".into(),
            Verdict::Falsified(w) => {
                j["verdict"] = "falsified".into();
                j["witness"] = serde_json::to_value(w).unwrap_or_default();
            }
            Verdict::Unjustified => j["verdict"] = "unjustified".into(),
            Verdict::Suppressed { by, reason } => {
                j["verdict"] = "suppressed".into();
                j["reason"] = reason.clone().into();
                j["by"] = by
                    .iter()
                    .map(|&k| self.name_or_text(k))
                    .collect::<Vec<_>>()
                    .into();
            }
            Verdict::Unprintable => j["verdict"] = "unprintable".into(),
        }
        j
    }

    fn vars_of(&self, inv: &Invariant) -> Vec<String> {
        inv.vars
            .iter()
            .map(|v| self.var_names[*v].clone())
            .collect()
    }
}

/// Reported invariants are listed by the variables they relate (state variables first), then by
/// kind, then by text.
/// Conditional invariants come after the others, grouped by condition.
fn sort_key(f: &Finding, text: &Option<String>) -> (Option<usize>, Vec<usize>, u8, String) {
    let mut vars = f.invariant.vars.clone();
    vars.sort_unstable();
    (
        f.invariant.condition.as_ref().map(|c| c.var),
        vars,
        f.invariant.kind.rank(),
        text.clone().unwrap_or_default(),
    )
}

fn verdict_rank(v: &Verdict) -> u8 {
    match v {
        Verdict::Reported => 0,
        Verdict::Suppressed { .. } => 1,
        Verdict::Unjustified => 2,
        Verdict::Unprintable => 3,
        Verdict::Falsified(_) => 4,
    }
}

fn ident(n: &str) -> Ident {
    Ident {
        name: n.to_string(),
        span: Span::default(),
    }
}
