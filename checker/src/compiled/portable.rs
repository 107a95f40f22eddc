//! Compiled states as words that mean the same in every process: what the distributed explorer
//! sends between processes and writes to checkpoints.
//!
//! A word that holds an interned id means something only in the run that interned it (each
//! process has its own table, `intern.rs`, and a resumed run starts a new one). So a portable
//! state is the state's words with every interned id set to 0, followed, for each interned word
//! in layout order, by its value: the byte length of the value's ITF JSON text (the format
//! traces use, read back at the word's type by `interpreter::trace::from_itf`), then the text's
//! bytes, eight to a word. Reading a portable state interns the values again in this process.
//! A state without interned words is its words, unchanged.

use super::layout::{Repr, Slot};
use super::{CompiledModel, Packed};
use interpreter::value::Printer;
use ioa_lang::ir::Type;

impl CompiledModel<'_, '_> {
    /// The type of each interned word, in layout order.
    fn interned_types(&self) -> Vec<Type> {
        let mut out = Vec::new();
        for (slot, ty) in self.layout.slots.iter().zip(&self.layout.types) {
            match (slot, ty) {
                (
                    Slot::Word {
                        repr: Repr::Interned,
                        ..
                    },
                    _,
                ) => out.push(ty.clone()),
                (
                    Slot::Array {
                        elem: Repr::Interned,
                        index,
                        ..
                    },
                    Type::Array(_, elem),
                ) => {
                    let n = self.fins.get(*index).card as usize;
                    out.extend(std::iter::repeat_n((**elem).clone(), n));
                }
                _ => {}
            }
        }
        out
    }

    /// The state as words another process (or a later run) reads as the same state.
    pub fn portable_words(&self, state: &[u64]) -> Vec<i64> {
        self.with_words(state, |words| self.portable_words_of(words))
    }

    /// [`CompiledModel::portable_words`] of a state's words.
    fn portable_words_of(&self, state: &[i64]) -> Vec<i64> {
        let mut out = state.to_vec();
        if self.layout.interned.is_empty() {
            return out;
        }
        let printer = Printer::new(self.fins.machine().spec);
        for (&k, ty) in self.layout.interned.iter().zip(self.interned_types()) {
            let value = self.fins.interner.value(state[k as usize]);
            out[k as usize] = 0;
            let text = printer.itf(&value, &ty).to_string();
            out.push(text.len() as i64);
            for chunk in text.as_bytes().chunks(8) {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                out.push(i64::from_le_bytes(word));
            }
        }
        out
    }

    /// The state whose portable words these are ([`CompiledModel::portable_words`]), its
    /// values interned in this process; or why the words are not one.
    pub fn from_portable_words(&self, words: &[i64]) -> Result<Packed, String> {
        let n = self.layout.words;
        if words.len() < n {
            return Err(format!("a state of {} words, not {n}", words.len()));
        }
        let mut state: Vec<i64> = words[..n].to_vec();
        let spec = self.fins.machine().spec;
        let mut at = n;
        for (&k, ty) in self.layout.interned.iter().zip(self.interned_types()) {
            let len = *words.get(at).ok_or("a state cut short")? as usize;
            at += 1;
            let count = len.div_ceil(8);
            let bytes: Vec<u8> = words
                .get(at..at + count)
                .ok_or("a state cut short")?
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(len)
                .collect();
            at += count;
            let text = String::from_utf8(bytes).map_err(|e| e.to_string())?;
            let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            let value = interpreter::trace::from_itf(spec, &json, &ty)?;
            state[k as usize] = self.fins.interner.intern(value);
        }
        if at != words.len() {
            return Err("a state with words left over".into());
        }
        self.packing
            .pack(&state)
            .map_err(|_| "a state with a value outside its type's universe".into())
    }
}
