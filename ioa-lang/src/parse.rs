//! Parsing one file: runs the lexer and the generated parser and turns their failures into
//! [`SyntaxError`] data.

use crate::ast::{ProofBlock, ProofEntry, SourceFile, StateDecl, Stmt};
use crate::lexer::{Lexer, Token};
use crate::span::{FileId, Span};
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, dead_code)]
    grammar
);

/// A syntax error in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxError {
    /// Text that starts no token.
    BadCharacter {
        /// The bad text.
        span: Span,
        /// The text itself, for the message.
        text: String,
    },
    /// A token where the grammar allows none of that kind.
    UnexpectedToken {
        /// The token.
        span: Span,
        /// The token's text.
        found: String,
        /// What the grammar would have accepted.
        expected: Vec<String>,
    },
    /// The file ended in the middle of a declaration.
    UnexpectedEof {
        /// The end of the file.
        span: Span,
        /// What the grammar would have accepted.
        expected: Vec<String>,
    },
    /// An integer literal that does not fit in 64 bits.
    IntegerTooLarge {
        /// The literal.
        span: Span,
    },
    /// A string literal with an escape the language does not have.
    BadEscape {
        /// The literal.
        span: Span,
        /// The escape, backslash included.
        escape: String,
    },
    /// A construct of the IOA manual that `ioa` does not read yet.
    NotSupported {
        /// What the construct is, for the message.
        construct: &'static str,
        /// Where it starts.
        span: Span,
        /// What to do instead.
        hint: &'static str,
    },
    /// A statement after the first `for` entry of a proof block, or statements with no `start`.
    ProofStatementOutOfPlace {
        /// The misplaced statement.
        span: Span,
        /// Whether a `start` keyword was present at all.
        has_start: bool,
    },
}

/// One item of a proof block's body as the grammar reads it (see the grammar's comment).
// Short-lived: the grammar builds these and `build_proof_block` consumes them at once.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum ProofItem {
    /// A statement (belongs to `start`).
    Stmt(Stmt),
    /// A `for … do … od` or `for … ignore` entry.
    Entry(ProofEntry),
}

/// Splits a proof block's items into the start block and the entries, checking their order.
pub(crate) fn build_proof_block(
    states: Vec<StateDecl>,
    start: Option<Span>,
    items: Vec<ProofItem>,
    span: Span,
) -> Result<ProofBlock, ParseError<usize, Token<'static>, SyntaxError>> {
    let mut start_stmts = Vec::new();
    let mut entries = Vec::new();
    for item in items {
        match item {
            ProofItem::Stmt(stmt) => {
                if !entries.is_empty() || start.is_none() {
                    return Err(ParseError::User {
                        error: SyntaxError::ProofStatementOutOfPlace {
                            span: stmt.span,
                            has_start: start.is_some(),
                        },
                    });
                }
                start_stmts.push(stmt);
            }
            ProofItem::Entry(entry) => entries.push(entry),
        }
    }
    Ok(ProofBlock {
        states,
        start: start_stmts,
        entries,
        span,
    })
}

/// Reads the escapes of a string literal's text: `\"`, `\\`, `\n`, `\t`.
pub fn unescape(raw: &str, span: Span) -> Result<String, SyntaxError> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            other => {
                return Err(SyntaxError::BadEscape {
                    span,
                    escape: format!("\\{}", other.map(String::from).unwrap_or_default()),
                })
            }
        }
    }
    Ok(out)
}

/// Reads a decimal literal (`12.50`): its digits as one integer (`1250`) and how many of them
/// follow the point (`2`), so that the printer writes it back as it was.
pub fn decimal(text: &str, span: Span) -> Result<(i64, u32), SyntaxError> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits: i64 = format!("{whole}{frac}")
        .parse()
        .map_err(|_| SyntaxError::IntegerTooLarge { span })?;
    let scale = u32::try_from(frac.len()).map_err(|_| SyntaxError::IntegerTooLarge { span })?;
    10i64
        .checked_pow(scale)
        .ok_or(SyntaxError::IntegerTooLarge { span })?;
    Ok((digits, scale))
}

/// Writes a decimal literal read by [`decimal`].
pub fn write_decimal(digits: i64, scale: u32) -> String {
    let text = format!("{:0>width$}", digits, width = scale as usize + 1);
    let (whole, frac) = text.split_at(text.len() - scale as usize);
    format!("{whole}.{frac}")
}

/// Reads a character literal's text (quotes included, as the lexer gives it): one character or
/// one of the escapes [`unescape`] reads, with `\'` for the quote.
pub fn unescape_char(raw: &str, span: Span) -> Result<char, SyntaxError> {
    let inner = &raw[1..raw.len() - 1];
    if inner == "\\'" {
        return Ok('\'');
    }
    let text = unescape(inner, span)?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(SyntaxError::BadEscape {
            span,
            escape: inner.to_string(),
        }),
    }
}

/// Writes a character literal, quotes included, with the escapes [`unescape_char`] reads.
pub fn escape_char(c: char) -> String {
    match c {
        '\'' => "'\\''".to_string(),
        '"' => "'\"'".to_string(),
        c => format!("'{}'", escape(&c.to_string())),
    }
}

/// Writes a string's text with the escapes [`unescape`] reads.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

/// Parses the text of one file.
pub fn parse_file(file: FileId, source: &str) -> Result<SourceFile, SyntaxError> {
    let lexer = Lexer::new(source).map(|item| {
        item.map_err(|e| SyntaxError::BadCharacter {
            span: Span::new(file, e.start, e.end),
            text: source[e.start..e.end].to_string(),
        })
    });
    grammar::SourceFileParser::new()
        .parse(file, lexer)
        .map_err(|e| convert_error(file, source, e))
}

/// Parses a single expression (used by tests and by tools that read expressions on the command
/// line).
pub fn parse_expr(file: FileId, source: &str) -> Result<crate::ast::Expr, SyntaxError> {
    let lexer = Lexer::new(source).map(|item| {
        item.map_err(|e| SyntaxError::BadCharacter {
            span: Span::new(file, e.start, e.end),
            text: source[e.start..e.end].to_string(),
        })
    });
    grammar::ExprParser::new()
        .parse(file, lexer)
        .map_err(|e| convert_error(file, source, e))
}

fn convert_error(
    file: FileId,
    source: &str,
    error: ParseError<usize, Token<'_>, SyntaxError>,
) -> SyntaxError {
    match error {
        ParseError::InvalidToken { location } => {
            let end = next_char_boundary(source, location);
            SyntaxError::BadCharacter {
                span: Span::new(file, location, end),
                text: source[location..end].to_string(),
            }
        }
        ParseError::UnrecognizedEof { location, expected } => SyntaxError::UnexpectedEof {
            span: Span::new(file, location, location),
            expected: tidy_expected(expected),
        },
        ParseError::UnrecognizedToken {
            token: (start, _, end),
            expected,
        } => crate::unsupported::recognise(file, source, start, end).unwrap_or_else(|| {
            SyntaxError::UnexpectedToken {
                span: Span::new(file, start, end),
                found: source[start..end].to_string(),
                expected: tidy_expected(expected),
            }
        }),
        ParseError::ExtraToken {
            token: (start, _, end),
        } => SyntaxError::UnexpectedToken {
            span: Span::new(file, start, end),
            found: source[start..end].to_string(),
            expected: vec![],
        },
        ParseError::User { error } => error,
    }
}

fn next_char_boundary(source: &str, at: usize) -> usize {
    let mut end = (at + 1).min(source.len());
    while end < source.len() && !source.is_char_boundary(end) {
        end += 1;
    }
    end
}

/// Turns lalrpop's quoted terminal names into the plain words shown to users, sorted so the
/// message does not depend on the parser table's order.
fn tidy_expected(expected: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = expected
        .into_iter()
        // A block-opening `det` is a `det` to the user; where it may stand, so may statements.
        .filter(|e| e != "\"det-block\"")
        .map(|e| {
            let t = e.trim_matches('"').replace("\\\"", "\"");
            match t.as_str() {
                "identifier" | "integer" | "string" | "character" | "decimal" => t,
                _ => format!("`{t}`"),
            }
        })
        .collect();
    // Where a name may stand, `from`, `to` and `using` are names too: say "identifier" only.
    if out.iter().any(|t| t == "identifier") {
        out.retain(|t| !matches!(t.as_str(), "`from`" | "`to`" | "`using`"));
    }
    out.sort();
    out.dedup();
    out
}

impl crate::diagnostics::IntoDiagnostic for SyntaxError {
    fn to_diagnostic(&self) -> crate::diagnostics::Diagnostic {
        use crate::diagnostics::Diagnostic;
        match self {
            SyntaxError::BadCharacter { span, text } => {
                let d = Diagnostic::error("E0001", format!("unexpected character `{text}`"), *span)
                    .with_label_message("no token starts here");
                match crate::lexer::hint_for_bad_text(text) {
                    Some(h) => d.with_hint(h),
                    None => {
                        d.with_hint("IOA operators are listed in book/src/reference/language.md")
                    }
                }
            }
            SyntaxError::UnexpectedToken {
                span,
                found,
                expected,
            } => {
                let d = Diagnostic::error("E0002", format!("unexpected `{found}`"), *span)
                    .with_label_message(expected_phrase(expected));
                match token_hint(found, expected) {
                    Some(h) => d.with_hint(h),
                    None => d,
                }
            }
            SyntaxError::UnexpectedEof { span, expected } => Diagnostic::error(
                "E0003",
                "the file ends in the middle of a declaration",
                *span,
            )
            .with_label_message(expected_phrase(expected))
            .with_hint(
                "a block opened with `do` ends with `od`, one opened with `if` ends with `fi`",
            ),
            SyntaxError::IntegerTooLarge { span } => {
                Diagnostic::error("E0004", "integer literal does not fit in 64 bits", *span)
                    .with_hint("integers range from -9223372036854775808 to 9223372036854775807")
            }
            SyntaxError::BadEscape { span, escape } => Diagnostic::error(
                "E0007",
                format!("unknown escape `{escape}` in a string literal"),
                *span,
            )
            .with_hint("the escapes are \\\" \\\\ \\n \\t"),
            SyntaxError::NotSupported {
                construct,
                span,
                hint,
            } => Diagnostic::error("E0008", format!("{construct} not supported yet"), *span)
                .with_label_message("a construct of the IOA manual that `ioa` does not read yet")
                .with_hint(*hint),
            SyntaxError::ProofStatementOutOfPlace { span, has_start } => {
                let d =
                    Diagnostic::error("E0005", "statement out of place in a proof block", *span);
                if *has_start {
                    d.with_label_message("this statement follows a `for` entry")
                        .with_hint("put every `start` assignment before the first `for` entry")
                } else {
                    d.with_label_message("this statement is not in a `start` block")
                        .with_hint("write `start` before the assignments that build the specification's start state")
                }
            }
        }
    }
}

fn expected_phrase(expected: &[String]) -> String {
    match expected.len() {
        0 => "nothing more was expected here".to_string(),
        1..=8 => format!("expected {}", join_or(expected)),
        n => format!(
            "expected one of {n} tokens, such as {}",
            join_or(&expected[..6])
        ),
    }
}

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn token_hint(found: &str, expected: &[String]) -> Option<String> {
    let expects = |t: &str| expected.iter().any(|e| e == t);
    if found == "=" && expects("`:=`") {
        return Some("assignment is written `:=`".to_string());
    }
    if found == "==" || (found == "=" && expects("`=`")) {
        return Some("equality is written `=`".to_string());
    }
    if expects("`od`") {
        return Some("a block opened with `do` must end with `od`".to_string());
    }
    if expects("`fi`") {
        return Some("an `if` statement must end with `fi`".to_string());
    }
    if crate::lexer::Lexer::new(found)
        .next()
        .and_then(|t| t.ok())
        .is_some_and(|(_, t, _)| !matches!(t, Token::Ident(_) | Token::Int(_) | Token::Str(_)))
        && found.chars().all(|c| c.is_ascii_alphabetic())
        && expects("identifier")
    {
        return Some(format!(
            "`{found}` is a reserved word and cannot be used as a name"
        ));
    }
    None
}
