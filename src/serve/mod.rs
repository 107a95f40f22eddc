//! The interactive explorer behind `ioa serve` (in the spirit of Stateright's Explorer): one
//! path through a model's state space that a browser extends by firing enabled action
//! instances, steps back and forward along, and saves as an ITF trace. [`session`] is the
//! explorer's state and its JSON API as a plain function of a request, so it is tested without
//! a socket; `src/cli/serve.rs` puts it on HTTP.

pub mod session;
