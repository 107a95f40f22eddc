//! Positions between the front end's byte offsets and LSP's (line, UTF-16 code unit) pairs.
//!
//! The language's Unicode operators (`∧` is three UTF-8 bytes and one UTF-16 unit, `𝔸` would be
//! four and two) make the two differ on most lines of a model, so every position crossing the
//! protocol goes through this one conversion.

use lsp_types::{Position, Range};

/// Where each line of a text starts.
pub struct LineIndex {
    /// Byte offset of the first byte of every line; the first is 0.
    line_starts: Vec<u32>,
    /// The text's length in bytes.
    len: u32,
}

impl LineIndex {
    /// Indexes `text`. Lines end at `\n` (a `\r` before it stays part of the line's text).
    pub fn new(text: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex {
            line_starts,
            len: text.len() as u32,
        }
    }

    /// The LSP position of a byte offset of `text` (the text this index was built from). An
    /// offset inside a character counts as that character's start.
    pub fn position(&self, text: &str, offset: u32) -> Position {
        let offset = offset.min(self.len);
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let character = text[start..end].encode_utf16().count() as u32;
        Position::new(line as u32, character)
    }

    /// The LSP range of a byte range.
    pub fn range(&self, text: &str, start: u32, end: u32) -> Range {
        Range::new(self.position(text, start), self.position(text, end))
    }

    /// The byte offset of an LSP position. A line past the end is the end of the text; a
    /// character past the end of its line is the line's end; a position inside a surrogate
    /// pair is the character's start.
    pub fn offset(&self, text: &str, position: Position) -> u32 {
        let Some(&start) = self.line_starts.get(position.line as usize) else {
            return self.len;
        };
        let line_end = self
            .line_starts
            .get(position.line as usize + 1)
            .map(|next| next - 1)
            .unwrap_or(self.len);
        let line = &text[start as usize..line_end as usize];
        let mut units = 0;
        for (byte, c) in line.char_indices() {
            let next = units + c.len_utf16() as u32;
            if next > position.character {
                return start + byte as u32;
            }
            units = next;
        }
        line_end
    }

    /// The range of the whole text.
    pub fn whole(&self, text: &str) -> Range {
        Range::new(Position::new(0, 0), self.position(text, self.len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `∧` is 3 bytes and 1 UTF-16 unit, `𝔸` 4 bytes and 2 units; every character boundary
    /// must survive the round trip.
    #[test]
    fn offsets_and_positions_round_trip_through_utf16() {
        let text = "a ∧ b\n∀ x: 𝔸 (x ≤ y)\r\n\nend";
        let index = LineIndex::new(text);
        for (offset, _) in text.char_indices() {
            let position = index.position(text, offset as u32);
            assert_eq!(
                index.offset(text, position),
                offset as u32,
                "at byte {offset}"
            );
        }
        // `b` is byte 6 (a, space, 3 bytes of ∧, space) but character 4.
        assert_eq!(index.position(text, 6), Position::new(0, 4));
        // `(` on line 1 follows `∀ x: 𝔸 `: 1 + 4 + 2 + 1 units.
        let paren = text.find('(').unwrap() as u32;
        assert_eq!(index.position(text, paren), Position::new(1, 8));
        assert_eq!(index.offset(text, Position::new(1, 8)), paren);
        // Inside the surrogate pair of 𝔸 is the character's start.
        let double_struck = text.find('𝔸').unwrap() as u32;
        assert_eq!(index.offset(text, Position::new(1, 6)), double_struck);
        // Past the end of a line, past the last line.
        assert_eq!(index.offset(text, Position::new(0, 99)), 7);
        assert_eq!(index.offset(text, Position::new(9, 0)), text.len() as u32);
        assert_eq!(index.whole(text).end, Position::new(3, 3));
    }
}
