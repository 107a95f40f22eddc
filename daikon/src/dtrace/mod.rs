//! Daikon interop: the runs fed to `ioa infer`, written in Daikon 5's input format, so that
//! Daikon itself can be run on them (`java daikon.Daikon A.decls A.dtrace`).
//!
//! The format is Daikon's "version 2" declaration format (Daikon Developer Manual, appendix
//! *File formats*): a `.decls` file that starts with `decl-version 2.0` and
//! `var-comparability implicit` and declares each program point (`ppt`, `ppt-type`) with its
//! variables (`variable`, `var-kind`, `enclosing-var`, `array`, `dec-type`, `rep-type`, `flags`,
//! `comparability`); and a `.dtrace` file of samples, each the program point's name followed by
//! every variable's name, value and modified bit (always 1, or 2 with the value `nonsensical`),
//! ending in a blank line. Names escape blanks as `\_` and backslashes as `\\`.
//!
//! The layout is the one Daikon's Java front end gives an object and its methods, so that
//! `java daikon.Daikon A.decls A.dtrace` with no flags reports everything: a program point for
//! the automaton's state (`Global1:::OBJECT`) and, per action, a procedure entry and exit
//! (`Global1.vote(Node,Ballot):::ENTER` and `…:::EXIT1`, the parameters and the state before
//! and after one step), linked to the state's point by `parent` records (Daikon's program-point
//! hierarchy: the state's invariants are what holds at every entry and exit). See
//! [`write::DaikonWriter`] for the records and [`layout`] for how IOA values are flattened into
//! Daikon's scalars and one-dimensional arrays, and what is comparable with what.

pub mod layout;
pub mod synthetic;
pub mod write;

pub use write::{DaikonWriter, ProgramPoint};
