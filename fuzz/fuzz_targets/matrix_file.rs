#![no_main]
//! A matrix file (Matrix Market plain or gzip, PETSc binary, by content)
//! through `matrix::io::read`, as `analyze FILE` reads it.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let p = common::file("m.mtx", data);
    let _ = amgcomm::matrix::io::read(&p);
});
