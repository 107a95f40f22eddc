//! The self-contained trace page of `ioa view`: one HTML file with the chart's SVG, the chart's
//! data as JSON, and the stylesheet and script embedded from `src/view/assets/` (no network
//! access: a Content-Security-Policy forbids loading anything).

use super::chart::Chart;
use super::svg;

const TEMPLATE: &str = include_str!("assets/page.html");
const CSS: &str = include_str!("assets/page.css");
const JS: &str = include_str!("assets/page.js");

/// JSON safe inside a `<script>` element.
pub fn script_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|_| "null".into())
        .replace("</", "<\\/")
}

/// `template` with each `{{NAME}}` replaced by its value, in one pass (a value that happens to
/// contain `{{…}}` is left alone).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find("}}").and_then(|j| {
            values
                .iter()
                .find(|(n, _)| *n == &after[..j])
                .map(|(_, v)| (j, v))
        }) {
            Some((j, v)) => {
                out.push_str(v);
                rest = &after[j + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The page for `chart`.
pub fn render(chart: &Chart) -> String {
    fill(
        TEMPLATE,
        &[
            ("CSS", CSS),
            ("JS", JS),
            ("TITLE", &svg::esc(&chart.title)),
            ("SVG", &svg::render(chart)),
            ("DATA", &script_json(chart)),
        ],
    )
}
