//! Matrix Market (`.mtx`, `.mtx.gz`): the coordinate format's reader
//! ([`read`]) and writer ([`mod@write`]).

mod header;
pub mod read;
mod tokens;
pub mod write;
