//! The lexer: turns IOA source text into tokens with byte offsets, for the lalrpop parser.
//!
//! Every operator has a Unicode spelling (the papers') and an ASCII spelling (IOA's); both map to
//! the same token, so the parser and everything after it never see the difference.

use logos::Logos;

/// A lexical error: a character or sequence that starts no token.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LexicalError {
    /// Byte offset where the bad text starts.
    pub start: usize,
    /// Byte offset one past the bad text.
    pub end: usize,
}

/// The tokens of IOA.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"%[^\n]*", allow_greedy = true))]
pub enum Token<'input> {
    #[regex(r"[A-Za-z_][A-Za-z0-9_']*", |lex| lex.slice(), priority = 1)]
    Ident(&'input str),
    #[regex(r"[0-9]+", |lex| lex.slice())]
    Int(&'input str),
    /// A decimal literal (`2.5`): a `Real`.
    #[regex(r"[0-9]+\.[0-9]+", |lex| lex.slice())]
    Decimal(&'input str),
    /// A string literal's text between the quotes, escapes (`\"`, `\\`, `\n`, `\t`) still
    /// written out (`parse::unescape` reads them).
    #[regex(r#""([^"\\\n]|\\[^\n])*""#, |lex| { let s = lex.slice(); &s[1..s.len() - 1] })]
    Str(&'input str),
    /// A character literal (`'a'`, `'\n'`): the manual's `Char`, which the grammar does not
    /// accept yet (the parser reports it as not supported).
    #[regex(r#"'([^'\\\n]|\\[^\n])'"#, |lex| lex.slice())]
    CharLit(&'input str),

    // Keywords.
    #[token("automaton")]
    Automaton,
    #[token("type")]
    Type,
    #[token("tuple")]
    Tuple,
    #[token("of")]
    Of,
    #[token("enumeration")]
    Enumeration,
    #[token("union")]
    Union,
    #[token("signature")]
    Signature,
    #[token("input")]
    Input,
    #[token("output")]
    Output,
    #[token("internal")]
    Internal,
    #[token("const")]
    Const,
    #[token("where")]
    Where,
    #[token("states")]
    States,
    #[token("so")]
    So,
    /// `initially P`: the manual's other spelling of `so that P` on start states.
    #[token("initially")]
    Initially,
    /// `ensuring P` after an effect, checked when the effect has run.
    #[token("ensuring")]
    Ensuring,
    #[token("that")]
    That,
    #[token("transitions")]
    Transitions,
    #[token("case")]
    Case,
    #[token("pre")]
    Pre,
    #[token("eff")]
    Eff,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("elseif")]
    Elseif,
    #[token("else")]
    Else,
    #[token("fi")]
    Fi,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("do")]
    Do,
    #[token("od")]
    Od,
    #[token("choose")]
    Choose,
    #[token("det")]
    Det,
    /// `det` opening a block of its own (a schedule's statement), rather than the block of the
    /// `fire` or `choose` just before it. The lexer never matches this spelling; [`Lexer`] turns
    /// a `det` into it where a statement starts (after `;`, `do`, `then`, `else`, `od`, `fi`).
    DetBlock,
    #[token("yield")]
    Yield,
    #[token("tasks")]
    Tasks,
    #[token("components")]
    Components,
    #[token("hidden")]
    Hidden,
    #[token("network")]
    Network,
    #[token("invariant")]
    Invariant,
    #[token("liveness")]
    Liveness,
    #[token("eventually")]
    Eventually,
    #[token("using")]
    Using,
    #[token("forward")]
    Forward,
    #[token("simulation")]
    Simulation,
    #[token("from")]
    From,
    #[token("to")]
    To,
    #[token("proof")]
    Proof,
    #[token("start")]
    Start,
    #[token("fire")]
    Fire,
    #[token("ignore")]
    Ignore,
    #[token("schedule")]
    Schedule,
    #[token("while")]
    While,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("nil")]
    Nil,
    #[token("import")]
    Import,
    #[token("is")]
    Is,
    #[token("div")]
    Div,
    #[token("mod")]
    Mod,

    // Punctuation.
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(":=")]
    Assign,
    #[token(".")]
    Dot,
    #[token("|")]
    Bar,

    // Operators, each with its Unicode and ASCII spellings.
    #[token("∀")]
    #[token("\\A")]
    ForAll,
    #[token("∃")]
    #[token("\\E")]
    Exists,
    #[token("∧")]
    #[token("/\\")]
    And,
    #[token("∨")]
    #[token("\\/")]
    Or,
    #[token("¬")]
    #[token("~")]
    Not,
    #[token("⇒")]
    #[token("=>")]
    Implies,
    #[token("⇔")]
    #[token("<=>")]
    Iff,
    /// "leads to" of a liveness property (TLA+'s `~>`).
    #[token("↝")]
    #[token("~>")]
    LeadsTo,
    #[token("=")]
    Eq,
    #[token("≠")]
    #[token("~=")]
    #[token("!=")]
    Neq,
    #[token("<")]
    Lt,
    #[token("≤")]
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token("≥")]
    #[token(">=")]
    Ge,
    #[token("∈")]
    #[token("\\in")]
    Member,
    #[token("∉")]
    #[token("\\notin")]
    NotMember,
    #[token("∪")]
    #[token("\\union")]
    #[token("\\U")]
    Cup,
    #[token("∩")]
    #[token("\\intersect")]
    #[token("\\I")]
    Cap,
    #[token("⊆")]
    #[token("\\subseteq")]
    SubsetEq,
    #[token("⊂")]
    #[token("\\subset")]
    Subset,
    #[token("⊢")]
    #[token("|-")]
    Append,
    /// `s || t`: sequence `s` followed by sequence `t` (the IOA manual's concatenation).
    #[token("||")]
    Concat,
    /// `e ⊣ s`: `e` put in front of sequence `s`.
    #[token("⊣")]
    #[token("-|")]
    Prepend,
    #[token("+")]
    Plus,
    #[token("-")]
    #[token("−")]
    Minus,
    #[token("*")]
    Star,
    /// `/`: division of `Real`s.
    #[token("/")]
    Slash,
}

/// Adapts the logos lexer to the `(start, token, end)` triples lalrpop expects.
pub struct Lexer<'input> {
    inner: logos::SpannedIter<'input, Token<'input>>,
    /// The token before the next one, to tell a `det` that opens a block of its own.
    previous: Option<Token<'input>>,
}

impl<'input> Lexer<'input> {
    /// A lexer over the whole of `source`.
    pub fn new(source: &'input str) -> Self {
        Lexer {
            inner: Token::lexer(source).spanned(),
            previous: None,
        }
    }
}

/// One lexer item as the parser consumes it.
pub type Spanned<'input> = Result<(usize, Token<'input>, usize), LexicalError>;

impl<'input> Iterator for Lexer<'input> {
    type Item = Spanned<'input>;

    fn next(&mut self) -> Option<Self::Item> {
        let (token, range) = self.inner.next()?;
        Some(match token {
            Ok(token) => {
                // A `det` right after a `fire …` or a `choose …` belongs to it; where a statement
                // starts, it opens a block of its own (`fire internal a; det do yield 1 od`).
                let token = match (token, self.previous) {
                    (
                        Token::Det,
                        Some(
                            Token::Semi
                            | Token::Do
                            | Token::Then
                            | Token::Else
                            | Token::Od
                            | Token::Fi,
                        ),
                    ) => Token::DetBlock,
                    (t, _) => t,
                };
                self.previous = Some(token);
                Ok((range.start, token, range.end))
            }
            Err(()) => Err(LexicalError {
                start: range.start,
                end: range.end,
            }),
        })
    }
}

/// A hint for text that starts no token, when it looks like another language's operator.
pub fn hint_for_bad_text(text: &str) -> Option<&'static str> {
    let hint = match text {
        t if t.starts_with("&&") || t.starts_with('&') => "write `∧` or `/\\` for conjunction",
        t if t.starts_with('!') => "write `¬` or `~` for negation, `≠` or `~=` for inequality",
        t if t.starts_with('"') => "a string literal must end on the line it starts",
        t if t.starts_with('\\') => "backslash operators are \\A \\E \\in \\notin \\union \\U \\intersect \\I \\subseteq \\subset \\/",
        t if t.starts_with('/') => "write `/\\` for conjunction",
        t if t.starts_with('#') || t.starts_with("//") => "comments start with `%`",
        _ => return None,
    };
    Some(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<Token<'_>> {
        Lexer::new(source).map(|t| t.unwrap().1).collect()
    }

    #[test]
    fn unicode_and_ascii_spellings_give_the_same_tokens() {
        assert_eq!(
            kinds("∀ x ∈ S ∧ ¬ y ⇒ z ≠ w ∪ v ⊆ u"),
            kinds("\\A x \\in S /\\ ~ y => z ~= w \\union v \\subseteq u")
        );
    }

    #[test]
    fn sequence_operators_and_strings_with_escapes() {
        assert_eq!(kinds("x ⊣ s ⊢ y ↝ z"), kinds("x -| s |- y ~> z"));
        assert_eq!(
            kinds(r#""a \"b\" \\ c" 'x'"#),
            vec![Token::Str(r#"a \"b\" \\ c"#), Token::CharLit("'x'")]
        );
    }

    #[test]
    fn comments_and_primes() {
        assert_eq!(
            kinds("b' % a comment\n := 3"),
            vec![Token::Ident("b'"), Token::Assign, Token::Int("3")]
        );
    }

    #[test]
    fn bad_character_is_an_error_not_a_panic() {
        let items: Vec<_> = Lexer::new("x && y").collect();
        assert!(items.iter().any(|i| i.is_err()));
    }
}
