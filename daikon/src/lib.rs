//! Daikon-style detection of likely invariants over automaton traces, printed back as IOA.
//!
//! Not built yet: this crate holds only its header until the invariant-detection issue is resolved.
