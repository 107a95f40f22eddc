//! Fixed-seed 128-bit state fingerprints and the hash set that stores them.
//!
//! A state is identified by the XXH3-128 hash of its values (through `Value`'s `Hash`), with a
//! fixed seed, so the same model explores the same states in the same order on every run and
//! every build. With 128 bits, the chance that two of 10⁹ distinct states share a fingerprint
//! is about 10⁻²¹; the explorer treats equal fingerprints as equal states (as TLC and SPIN's
//! hash-compact mode do) and says so in its documentation.

use interpreter::value::Value;
use std::cell::RefCell;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use xxhash_rust::const_xxh3::const_custom_default_secret;
use xxhash_rust::xxh3::{xxh3_128_with_secret, xxh3_128_with_seed};

/// A state's fingerprint.
pub type Fingerprint = u128;

/// A fingerprint kept as two words: aligned to 8 bytes rather than a `u128`'s 16, so that a
/// frontier entry (an id, this, a boxed state) takes 40 bytes instead of 48.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PackedFingerprint([u64; 2]);

impl From<Fingerprint> for PackedFingerprint {
    fn from(fp: Fingerprint) -> Self {
        PackedFingerprint([fp as u64, (fp >> 64) as u64])
    }
}

impl From<PackedFingerprint> for Fingerprint {
    fn from(PackedFingerprint([lo, hi]): PackedFingerprint) -> Self {
        (hi as u128) << 64 | lo as u128
    }
}

/// The seed of every fingerprint. Changing it changes nothing but the order of hash-set
/// iteration; it is fixed so that runs are reproducible.
pub const SEED: u64 = 0x10A0_5EED;

/// The secret XXH3 derives from [`SEED`] for inputs longer than 240 bytes, derived once
/// (`xxh3_128_with_seed` derives it at every call: 116 instructions of the ~600 a 448-byte
/// state of the composite Paxos costs).
static LONG_SECRET: [u8; 192] = const_custom_default_secret(SEED);

/// The XXH3-128 hash of `bytes` with [`SEED`]: the same digest as `xxh3_128_with_seed`.
pub fn hash_bytes(bytes: &[u8]) -> Fingerprint {
    if bytes.len() > 240 {
        xxh3_128_with_secret(bytes, &LONG_SECRET)
    } else {
        xxh3_128_with_seed(bytes, SEED)
    }
}

/// Collects the bytes `Hash` feeds a hasher, so that they are hashed in one pass (XXH3's
/// one-shot function gives the same digest as its streaming form, several times faster on the
/// many small writes a value makes).
struct Bytes<'a>(&'a mut Vec<u8>);

impl Hasher for Bytes<'_> {
    fn finish(&self) -> u64 {
        unreachable!("only the collected bytes are used")
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

thread_local! {
    /// Each worker thread's byte buffer, reused from state to state.
    static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The fingerprint of a sequence of values (a state vector).
pub fn fingerprint(values: &[Value]) -> Fingerprint {
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        buffer.clear();
        let mut bytes = Bytes(&mut buffer);
        for v in values {
            v.hash(&mut bytes);
        }
        hash_bytes(&buffer)
    })
}

/// A hasher for keys that are already fingerprints: their low 64 bits are uniformly mixed, so
/// hashing them again would only cost time.
#[derive(Default, Clone, Copy)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only reached for keys other than `u128`; fold them in so the hasher stays correct.
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(29) ^ u64::from_le_bytes(word))
                .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u128(&mut self, i: u128) {
        self.0 = i as u64;
    }
}

/// A set of fingerprints.
pub type FingerprintSet = HashSet<Fingerprint, BuildHasherDefault<PassThrough>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_bytes_is_xxh3_with_the_seed_at_every_length() {
        let bytes: Vec<u8> = (0..700u32).map(|i| (i * 37 % 251) as u8).collect();
        for n in 0..bytes.len() {
            assert_eq!(
                hash_bytes(&bytes[..n]),
                xxh3_128_with_seed(&bytes[..n], SEED),
                "{n}"
            );
        }
    }

    #[test]
    fn fingerprints_are_fixed_and_tell_states_apart() {
        let a = vec![Value::Int(1), Value::Bool(true)];
        let b = vec![Value::Int(1), Value::Bool(false)];
        assert_eq!(fingerprint(&a), fingerprint(&a.clone()));
        assert_ne!(fingerprint(&a), fingerprint(&b));
        let mut set = FingerprintSet::default();
        assert!(set.insert(fingerprint(&a)));
        assert!(!set.insert(fingerprint(&a)));
    }
}
