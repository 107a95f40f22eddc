//! Just enough reading of SMT-LIB2 terms (as the encoder writes them) to take one apart: the
//! items of an application, and whether a term is a ground value (a literal built from
//! constructors and numerals), its atoms, renaming atoms, the term opening at an offset. The
//! solver splits goals into conjuncts and instantiates hypotheses with it
//! (`solve/instances.rs`), and the encoder counts the members of a literal set.

/// The items of a parenthesised term (`(f a (g b))` → `f`, `a`, `(g b)`); `None` for an atom or
/// text that is not one balanced list.
pub fn items(term: &str) -> Option<Vec<String>> {
    let term = term.trim();
    let pieces = tokens(term);
    if pieces.first()?.1 != Token::Open {
        return None;
    }
    let mut out = Vec::new();
    let mut depth = 0i64;
    let mut start: Option<usize> = None;
    for &(i, piece) in &pieces {
        match piece {
            Token::Open => {
                depth += 1;
                if depth == 2 {
                    start = Some(i);
                }
            }
            Token::Close => {
                depth -= 1;
                if depth == 1 {
                    out.push(term[start.take()?..=i].to_string());
                } else if depth == 0 {
                    return (i + 1 == term.len()).then_some(out);
                }
            }
            Token::Atom if depth == 1 => out.push(term[i..atom_end(term, i)].to_string()),
            Token::Atom => {}
        }
    }
    None
}

/// Whether `term` is a ground constructor term: a numeral (or its negation), `true`/`false`, a
/// nullary constructor (`nil_…`), or a constructor (`mk_…`, `embed_…`) applied to ground terms.
/// Two such terms that differ as text are different values (datatypes are free).
pub fn is_ground_value(term: &str) -> bool {
    let term = term.trim();
    match items(term) {
        None => {
            term.chars().all(|c| c.is_ascii_digit())
                || term == "true"
                || term == "false"
                || term.starts_with("nil_")
        }
        Some(items) => match items.first().map(String::as_str) {
            Some("-") => items.len() == 2 && items[1].chars().all(|c| c.is_ascii_digit()),
            Some(head) if head.starts_with("mk_") || head.starts_with("embed_") => {
                items[1..].iter().all(|a| is_ground_value(a))
            }
            _ => false,
        },
    }
}

/// The atoms of `term`, in order (`|quoted|` symbols whole).
pub fn atoms(term: &str) -> impl Iterator<Item = &str> {
    tokens(term)
        .into_iter()
        .filter(|(_, t)| *t == Token::Atom)
        .map(move |(i, _)| &term[i..atom_end(term, i)])
}

/// `term` with every atom that `renaming` maps replaced, the rest of the text as it was.
pub fn rename_atoms(term: &str, renaming: &std::collections::HashMap<&str, &str>) -> String {
    let mut out = String::with_capacity(term.len());
    let mut copied = 0;
    for (i, t) in tokens(term) {
        if t != Token::Atom {
            continue;
        }
        let end = atom_end(term, i);
        if let Some(to) = renaming.get(&term[i..end]) {
            out.push_str(&term[copied..i]);
            out.push_str(to);
            copied = end;
        }
    }
    out.push_str(&term[copied..]);
    out
}

/// The parenthesised term that opens at byte `at` of `text` (which must be a `(`), or `None`
/// when it does not close.
pub fn term_at(text: &str, at: usize) -> Option<&str> {
    let mut depth = 0i64;
    for (i, t) in tokens(&text[at..]) {
        match t {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[at..=at + i]);
                }
            }
            Token::Atom => {}
        }
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    Atom,
}

/// The parentheses and atoms of `s` with their byte offsets; `|quoted|` symbols and `"strings"`
/// are single atoms.
fn tokens(s: &str) -> Vec<(usize, Token)> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'(' => out.push((i, Token::Open)),
            b')' => out.push((i, Token::Close)),
            b if b.is_ascii_whitespace() => {}
            _ => {
                out.push((i, Token::Atom));
                i = atom_end(s, i) - 1;
            }
        }
        i += 1;
    }
    out
}

/// Where the atom starting at `i` ends (exclusive).
fn atom_end(s: &str, i: usize) -> usize {
    let bytes = s.as_bytes();
    if let Some(quote @ (b'|' | b'"')) = bytes.get(i).copied() {
        return bytes[i + 1..]
            .iter()
            .position(|&b| b == quote)
            .map_or(bytes.len(), |p| i + p + 2);
    }
    bytes[i..]
        .iter()
        .position(|&b| b == b'(' || b == b')' || b.is_ascii_whitespace())
        .map_or(bytes.len(), |p| i + p)
}

#[cfg(test)]
mod tests {
    use super::{is_ground_value, items, rename_atoms, term_at};

    #[test]
    fn applications_are_taken_apart() {
        assert_eq!(
            items("(and (and a (f b)) |a b| (forall ((x Int)) x))").unwrap(),
            vec!["and", "(and a (f b))", "|a b|", "(forall ((x Int)) x)"]
        );
        assert_eq!(items("a"), None);
        assert_eq!(items("(a) (b)"), None);
    }

    #[test]
    fn atoms_are_renamed_whole_and_terms_found_by_their_opening() {
        let map = [("x.1", "c")].into_iter().collect();
        assert_eq!(
            rename_atoms("(f x.1 x.10 (g x.1))", &map),
            "(f c x.10 (g c))"
        );
        assert_eq!(term_at("(a (b c) d)", 3), Some("(b c)"));
        assert_eq!(term_at("(a (b c", 3), None);
    }

    #[test]
    fn ground_values_are_constructor_terms() {
        assert!(is_ground_value("(mk_Node 0)"));
        assert!(is_ground_value("(mk_Vote (mk_Ballot (- 1)) nil_Value)"));
        assert!(!is_ground_value("(mk_Node x)"));
        assert!(!is_ground_value("(select a 0)"));
    }
}
