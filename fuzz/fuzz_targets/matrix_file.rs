#![no_main]
//! A matrix file (Matrix Market plain or gzip, PETSc binary, by content)
//! through `matrix::io::read`, as `analyze FILE` reads it.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("matrix_file", data, &common::fresh());
});
