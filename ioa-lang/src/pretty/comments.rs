//! Putting the source's comments back when reformatting a file (`format_source`).
//!
//! The comments are found by scanning the text: a `%` outside a string literal starts a comment
//! that runs to the end of the line. The printer writes the tree in source order and, before each
//! node that can carry comments (an *anchor*: a declaration, section, entry, clause or statement),
//! writes every comment not yet written that starts before the node, each on its own line. A
//! comment that ends a line of code right after a node (with only `,`, `;` or `)` between them)
//! is instead written at the end of the line where that node ends. Whatever is left at the end of
//! a `do … od`, `then`/`else` block or of the file is written there. So every comment is written
//! exactly once, and reading the output back puts each comment in the same place again.
//!
//! The source's tokens are kept too, to find keywords that have no node of their own (`states`,
//! `do`, `od`, `else`, …), so that a comment before such a keyword stays before it.

use super::Printer;
use crate::lexer::{Lexer, Token};

/// One comment of the source.
pub(super) struct Comment {
    /// Byte offset of its `%`.
    start: usize,
    /// The text from `%` to the end of the line, without trailing white space.
    text: String,
    /// Whether a blank line separates it from what comes before it.
    blank_before: bool,
    /// Whether a blank line separates it from what comes after it.
    blank_after: bool,
}

/// The source being reformatted: its comments (with how many are written) and its tokens.
pub(super) struct Source<'s> {
    text: &'s str,
    comments: Vec<Comment>,
    next: usize,
    tokens: Vec<(usize, Token<'s>, usize)>,
}

impl<'s> Source<'s> {
    pub(super) fn new(text: &'s str) -> Self {
        Source {
            text,
            comments: scan(text),
            next: 0,
            tokens: Lexer::new(text).filter_map(Result::ok).collect(),
        }
    }
}

/// The comments of `text`, in order.
fn scan(text: &str) -> Vec<Comment> {
    let bytes = text.as_bytes();
    let mut comments = Vec::new();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => in_string = !in_string,
            b'\n' => in_string = false,
            b'%' if !in_string => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                let before = &text[..i];
                let space_before = &before[before.trim_end().len()..];
                let after = &text[end..];
                let rest = after.trim_start();
                let space_after = &after[..after.len() - rest.len()];
                comments.push(Comment {
                    start: i,
                    text: text[i..end].trim_end().to_string(),
                    blank_before: space_before.matches('\n').count() >= 2,
                    blank_after: !rest.is_empty() && space_after.matches('\n').count() >= 2,
                });
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    comments
}

impl Printer<'_> {
    /// The next comment not yet written, if it starts before `pos` (and comments are wanted here).
    fn comment_before(&self, pos: usize) -> Option<&Comment> {
        if self.inline {
            return None;
        }
        let src = self.src.as_ref()?;
        src.comments.get(src.next).filter(|c| c.start < pos)
    }

    /// Whether a comment not yet written starts before `pos`.
    pub(super) fn has_comments_before(&self, pos: usize) -> bool {
        self.comment_before(pos).is_some()
    }

    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.pending_indent
    }

    /// Ends the output with a blank line (at a line start, and not at the start of the output).
    fn blank_line(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    /// Writes, each on its own line, the comments that start before `pos`. Returns whether the
    /// last one written had a blank line after it.
    fn own_line_comments(&mut self, pos: usize) -> bool {
        let mut blank_after = false;
        if !self.at_line_start() {
            return false; // they wait for the next line
        }
        while let Some(c) = self.comment_before(pos) {
            let (text, blank_before) = (c.text.clone(), c.blank_before);
            blank_after = c.blank_after;
            if let Some(src) = &mut self.src {
                src.next += 1;
            }
            if blank_before && !self.block_start {
                self.blank_line();
            }
            self.text(&[&text]);
            self.nl();
            self.block_start = false;
        }
        blank_after
    }

    /// Before a node that starts at `pos` in the source: the comments before it.
    pub(super) fn comments_before(&mut self, pos: usize) {
        if self.own_line_comments(pos) {
            self.blank_line();
        }
        self.block_start = false;
    }

    /// At the end of a block whose closing keyword is at `pos` (or of the file): the comments
    /// left before it.
    pub(super) fn comments_at_end(&mut self, pos: usize) {
        self.own_line_comments(pos);
    }

    /// After a node that ends at `pos` in the source: a comment on the rest of its line is kept
    /// for the end of the current output line.
    pub(super) fn trailing_after(&mut self, pos: usize) {
        if self.inline || self.pending_trailing.is_some() {
            return;
        }
        let Some(src) = &mut self.src else { return };
        let Some(c) = src.comments.get(src.next) else {
            return;
        };
        let between = src.text.get(pos..c.start).unwrap_or("\n");
        if between
            .chars()
            .all(|ch| matches!(ch, ' ' | '\t' | ',' | ';' | ')'))
        {
            self.pending_trailing = Some(c.text.clone());
            src.next += 1;
        }
    }

    /// Where the first token at or after `from` that satisfies `want` starts (0 without a
    /// source).
    pub(super) fn find_token(&self, from: usize, want: impl Fn(Token) -> bool) -> usize {
        let Some(src) = &self.src else { return 0 };
        let first = src.tokens.partition_point(|t| t.0 < from);
        src.tokens[first..]
            .iter()
            .find(|t| want(t.1))
            .map_or(from, |t| t.0)
    }

    /// The start and end of the first token at or after `from` that does not satisfy `skip`.
    pub(super) fn token_after(&self, from: usize, skip: impl Fn(Token) -> bool) -> (usize, usize) {
        let Some(src) = &self.src else { return (0, 0) };
        let first = src.tokens.partition_point(|t| t.0 < from);
        src.tokens[first..]
            .iter()
            .find(|t| !skip(t.1))
            .map_or((from, from), |t| (t.0, t.2))
    }

    /// Where the last token that ends at or before `pos` starts.
    pub(super) fn token_before(&self, pos: usize) -> usize {
        let Some(src) = &self.src else { return 0 };
        let after = src.tokens.partition_point(|t| t.2 <= pos);
        after.checked_sub(1).map_or(0, |i| src.tokens[i].0)
    }

    /// The output, with the comments that end lines added, each run of them on consecutive lines
    /// lined up two columns after the longest of those lines.
    pub(super) fn finish(self) -> String {
        if self.trailing.is_empty() {
            return self.out;
        }
        let mut lines: Vec<String> = self.out.split('\n').map(str::to_string).collect();
        let mut runs = self.trailing.as_slice();
        while !runs.is_empty() {
            let len = 1 + runs.windows(2).take_while(|w| w[1].0 == w[0].0 + 1).count();
            let (run, rest) = runs.split_at(len);
            let width = run
                .iter()
                .map(|(line, _)| lines[*line].chars().count())
                .max()
                .unwrap_or(0);
            for (line, comment) in run {
                let pad = width - lines[*line].chars().count() + 2;
                lines[*line].extend(std::iter::repeat_n(' ', pad));
                lines[*line].push_str(comment);
            }
            runs = rest;
        }
        lines.join("\n")
    }
}
