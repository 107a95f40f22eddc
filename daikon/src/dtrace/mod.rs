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
//! There is one program point for the automaton's state (`Global1:::OBJECT`, one sample per
//! reached state) and one per action (`Global1.vote(Node,Ballot):::ENTER`, one sample per step,
//! with the parameters and the state before the step). See [`layout`] for how IOA values are
//! flattened into Daikon's scalars and one-dimensional arrays.

pub mod layout;
pub mod write;

pub use write::{DaikonWriter, ProgramPoint};
