//! Matrix Market (`.mtx`, `.mtx.gz`): the coordinate format's reader
//! ([`read`]) and writer ([`mod@write`]).
//!
//! May use the rest of `matrix` and the ground floor (`output`, `memory`);
//! `read.rs` uses `header.rs` and `tokens.rs`, `header.rs` uses `tokens.rs`
//! (`tests/layering.rs`).

mod header;
pub mod read;
mod tokens;
pub mod write;
