//! Pictures of runs: a trace as a message-sequence chart with its states ([`chart`]), drawn as
//! SVG ([`svg`]) and as a self-contained HTML page ([`page`]); which send each delivery
//! delivers is [`messages`]. Pure functions of the interpreter's trace: `ioa view` and `ioa
//! serve` read the files and write the results.

pub mod chart;
pub mod messages;
pub mod page;
pub mod svg;
