//! Matrix Market (`.mtx`, `.mtx.gz`): the coordinate format's reader
//! ([`read`]) and writer ([`mod@write`]).

pub mod read;
pub mod write;
