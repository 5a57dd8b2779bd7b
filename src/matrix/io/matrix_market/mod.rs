//! Matrix Market (`.mtx`, `.mtx.gz`): the coordinate format's reader
//! ([`read`]) and writer ([`write`]).

pub mod read;
pub mod write;
