//! Constructs of the IOA manual that `ioa` does not read yet, recognised where the parser
//! stops on them, so that a user meets "`let` definitions not supported yet" pointing at the
//! construct rather than a generic "unexpected token" (E0008).
//!
//! The grammar does not know these constructs; when the parser rejects a token, the tokens
//! before it are matched against the shapes below. Anything else stays an ordinary syntax error.

use crate::lexer::{Lexer, Token};
use crate::parse::SyntaxError;
use crate::span::{FileId, Span};

/// A manual construct recognised at a rejected token, with what to write instead.
struct Known {
    construct: &'static str,
    hint: &'static str,
}

/// Words that open a top-level declaration of the manual's LSL side.
fn item_word(word: &str) -> Option<Known> {
    Some(match word {
        "uses" | "axioms" | "trait" | "assumes" | "introduces" | "asserts" => Known {
            construct: "LSL traits (`uses`, `axioms`, `trait`, `assumes`)",
            hint: "declare the data types with `type` and write the facts as invariants",
        },
        "backward" => Known {
            construct: "backward simulations",
            hint: "write a `forward simulation` (see book/src/reference/language.md)",
        },
        "timed" | "trajectories" | "hybrid" => Known {
            construct: "timed and hybrid automata",
            hint: "model time with an explicit clock variable",
        },
        _ => return None,
    })
}

/// Looks at the tokens up to the rejected one (`start..end`) for a construct of the manual.
pub(crate) fn recognise(
    file: FileId,
    source: &str,
    start: usize,
    end: usize,
) -> Option<SyntaxError> {
    let tokens: Vec<(usize, Token<'_>, usize)> = Lexer::new(source)
        .take_while(|t| t.as_ref().is_ok_and(|(s, _, _)| *s <= start))
        .filter_map(Result::ok)
        .collect();
    let (_, found, _) = *tokens.last()?;
    let before =
        |k: usize| -> Option<&Token<'_>> { tokens.len().checked_sub(k + 1).map(|i| &tokens[i].1) };
    let at = |s: usize, e: usize, k: Known| SyntaxError::NotSupported {
        construct: k.construct,
        span: Span::new(file, s, e),
        hint: k.hint,
    };
    // `det do … od` where no block is read: after a `so that`/`initially` predicate (the
    // manual's start-state det blocks), or anywhere else a statement cannot start.
    if let Token::Det = found {
        let start_state = tokens
            .iter()
            .rev()
            .take_while(|(_, t, _)| !matches!(t, Token::States | Token::Transitions))
            .any(|(_, t, _)| matches!(t, Token::So | Token::Initially));
        let known = if start_state {
            Known {
                construct: "`det do … od` blocks for start states",
                hint: "`ioa run` starts from the first value of each `choose`; give variables initial values, or steer the run from a schedule",
            }
        } else {
            Known {
                construct: "a `det do … od` block in this place",
                hint: "`det` blocks stand in schedules (of their own, or after `fire …`) and after a `choose`",
            }
        };
        return Some(at(start, end, known));
    }
    // A word of the LSL side where a declaration may start.
    if let Token::Ident(w) = found {
        if let Some(k) = item_word(w) {
            return Some(at(start, end, k));
        }
    }
    // … or one the parser took for the start of a statement, stopping at the next token.
    if let Some(Token::Ident(w)) = before(1) {
        if let Some(k) = item_word(w) {
            let (s, _, e) = tokens[tokens.len() - 2];
            return Some(at(s, e, k));
        }
    }
    // `let x = e in …` (the parser stops at `=`, or at the name after `let`).
    for k in 1..=2 {
        if let Some(Token::Ident("let")) = before(k) {
            let (s, _, e) = tokens[tokens.len() - 1 - k];
            return Some(at(
                s,
                e,
                Known {
                    construct: "`let` definitions",
                    hint: "write the expression in place, or keep it in a state variable",
                },
            ));
        }
    }
    // `automaton A(n: Int) where P`: a constraint on an automaton's parameters.
    if matches!(found, Token::Where) && matches!(before(1), Some(Token::RParen)) {
        let opened = tokens
            .iter()
            .rev()
            .skip(1)
            .take_while(|(_, t, _)| !matches!(t, Token::Signature | Token::Components))
            .any(|(_, t, _)| matches!(t, Token::Automaton));
        if opened {
            return Some(at(
                start,
                end,
                Known {
                    construct: "a `where` clause on an automaton's parameters",
                    hint: "check the parameters' constraint in an invariant or a `so that` clause",
                },
            ));
        }
    }
    // `transitions … internal a(x; local y: T)` or `local` variables of a transition.
    if let Token::Ident("local") = found {
        return Some(at(
            start,
            end,
            Known {
                construct: "transition-local variables (`local`)",
                hint: "assign locals with `y: T := e` inside `eff`",
            },
        ));
    }
    None
}
