//! Draws a [`Chart`] as an SVG message-sequence chart: a column per lifeline (and one for the
//! network), a row per step, a dot per step on its lifeline (✕ for crashes and losses), an
//! arrow per delivered message from the row that sent it to the row that delivered it, the
//! violating row shaded red and a liveness trace's critical row orange, and the numbered log line of each step on the right. Elements carry
//! the lifeline classes (`l0`, …) the page's script filters by, and the log lines the step ids
//! (`s12`) it selects by; two elements per step keep a 10,000-step page quick to open. The same
//! SVG stands alone (`ioa view --svg`).

use super::chart::Chart;
use std::fmt::Write;

/// Height of a step's row.
pub const ROW: usize = 20;
/// Height of the lifeline names' band.
const TOP: usize = 44;
/// Margin left of the first lifeline's column.
const LEFT: usize = 10;
/// Distance between lifelines.
const LANE: usize = 110;

/// Escapes text for XML content and attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

fn lane_x(i: usize) -> usize {
    LEFT + LANE / 2 + i * LANE
}

fn row_y(k: usize) -> usize {
    TOP + k * ROW + ROW / 2
}

/// The chart as one `<svg>` element (standalone: it declares its namespace and styles).
pub fn render(chart: &Chart) -> String {
    let n = chart.lanes.len();
    let net_x = (chart.network).then(|| lane_x(n) - LANE / 4);
    let text_x = match net_x {
        Some(x) => x + LANE / 2,
        None if n > 0 => lane_x(n - 1) + LANE / 2,
        None => LEFT + 10,
    };
    let longest = chart
        .steps
        .iter()
        .map(|s| s.line.chars().count())
        .max()
        .unwrap_or(0);
    // 12px monospace is about 7.2px a character.
    let width = text_x + 20 + longest * 8;
    let height = TOP + chart.steps.len() * ROW + 10;
    let mut s = String::with_capacity(200 * chart.steps.len() + 1000);
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"ioa-chart\" data-top=\"{TOP}\" data-row=\"{ROW}\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"12\">"
    );
    s.push_str(
        "<style>.row{fill:transparent}.row.bad{fill:#fdd}.row.crit{fill:#ffe2b8}.lbl.crit{fill:#a50}.row.sel{fill:#dde8ff}\
         .life{stroke:#999;stroke-dasharray:4 3}.net{stroke:#bbb;stroke-dasharray:1 3}\
         .msg{stroke:#2a5db0;fill:none}.orphan{stroke:#888;stroke-dasharray:3 2}\
         .dot{fill:#333}.dot.send{fill:#2a5db0}.dot.deliver{fill:#1b7f3b}\
         .mark{stroke:#c00;stroke-width:2.5}.lbl{fill:#222}.lbl.bad{fill:#c00}\
         .head{font-weight:bold}</style>\n",
    );
    s.push_str(
        "<defs><marker id=\"ah\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#2a5db0\"/></marker></defs>\n",
    );
    // Lifelines.
    for (i, name) in chart.lanes.iter().enumerate() {
        let x = lane_x(i);
        let _ = writeln!(
            s,
            "<g class=\"lane l{i}\" data-lane=\"{i}\"><text class=\"head\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{}</text><line class=\"life\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/></g>",
            TOP - 16,
            esc(name),
            TOP - 8,
            height - 6
        );
    }
    if let Some(x) = net_x {
        let _ = writeln!(
            s,
            "<g class=\"netlane\"><text class=\"head\" x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"#888\">network</text><line class=\"net\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/></g>",
            TOP - 16,
            TOP - 8,
            height - 6
        );
    }
    // The violating row's band, and the selection band the page's script moves (off the
    // canvas until then). Two elements for all rows: a 10,000-step page stays light.
    let bad = chart.highlight.as_ref().map(|h| h.step);
    if let Some(b) = bad {
        let _ = writeln!(
            s,
            "<rect class=\"row bad\" x=\"0\" y=\"{}\" width=\"{width}\" height=\"{ROW}\"/>",
            row_y(b) - ROW / 2
        );
    }
    let critical = chart.critical.as_ref().map(|h| h.step);
    if let Some(c) = critical {
        let _ = writeln!(
            s,
            "<rect class=\"row crit\" x=\"0\" y=\"{}\" width=\"{width}\" height=\"{ROW}\"/>",
            row_y(c) - ROW / 2
        );
    }
    let _ = writeln!(
        s,
        "<rect id=\"sel\" class=\"row sel\" x=\"0\" y=\"-{ROW}\" width=\"{width}\" height=\"{ROW}\"/>"
    );
    // Rows: the event on its lifeline and the numbered log line.
    for (k, step) in chart.steps.iter().enumerate() {
        let y = row_y(k);
        let lane_class = step.lane.map_or(String::new(), |l| format!(" l{l}"));
        let x = match (step.lane, net_x) {
            (Some(l), _) => Some(lane_x(l)),
            (None, Some(nx)) if step.role == "network" => Some(nx),
            _ => None,
        };
        if let Some(x) = x {
            match step.mark {
                Some(m) => {
                    let _ = write!(
                        s,
                        "<path class=\"mark {m}{lane_class}\" d=\"M{},{} l10,10 m0,-10 l-10,10\"/>",
                        x - 5,
                        y - 5
                    );
                }
                None => {
                    let _ = write!(
                        s,
                        "<circle class=\"dot {}{lane_class}\" cx=\"{x}\" cy=\"{y}\" r=\"4\"/>",
                        step.role
                    );
                }
            }
        }
        let _ = writeln!(
            s,
            "<text id=\"s{k}\" class=\"lbl{lane_class}{}\" data-step=\"{k}\" x=\"{text_x}\" y=\"{}\">{k}: {}</text>",
            if bad == Some(k) {
                " bad"
            } else if critical == Some(k) {
                " crit"
            } else {
                ""
            },
            y + 4,
            esc(&step.line)
        );
    }
    // Arrows.
    for a in &chart.arrows {
        let (x2, y2) = (lane_x(a.to_lane), row_y(a.to_step));
        let (x1, y1, orphan) = match (a.from_step, a.from_lane) {
            (Some(f), Some(l)) => (lane_x(l), row_y(f), false),
            _ => (net_x.unwrap_or(LEFT), y2.saturating_sub(ROW), true),
        };
        // Stop short of the receiving dot.
        let (dx, dy) = (x2 as f64 - x1 as f64, y2 as f64 - y1 as f64);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        let (ex, ey) = (x2 as f64 - dx / len * 5.0, y2 as f64 - dy / len * 5.0);
        let from_lane = a.from_lane.map_or(String::new(), |l| format!(" l{l}"));
        let _ = writeln!(
            s,
            "<line class=\"msg{}{from_lane} l{}\" data-from=\"{}\" data-to=\"{}\" x1=\"{x1}\" y1=\"{y1}\" x2=\"{ex:.1}\" y2=\"{ey:.1}\" marker-end=\"url(#ah)\"><title>{} → {}</title></line>",
            if orphan { " orphan" } else { "" },
            a.to_lane,
            a.from_step.map_or("net".to_string(), |f| f.to_string()),
            a.to_step,
            a.from_step
                .map_or("(no matching send)".to_string(), |f| esc(&chart.steps[f].line)),
            esc(&chart.steps[a.to_step].line)
        );
    }
    s.push_str("</svg>\n");
    s
}
