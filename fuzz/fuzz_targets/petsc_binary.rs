#![no_main]
//! PETSc binary bytes through `petsc::parse_all` (one matrix a file, or
//! the matrices `-pc_mg_dump_binary` writes one after another).
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("petsc_binary", data, &common::fresh());
});
