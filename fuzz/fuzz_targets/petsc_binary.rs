#![no_main]
//! PETSc binary bytes through `petsc::parse_all` (one matrix a file, or
//! the matrices `-pc_mg_dump_binary` writes one after another).
use amgcomm::matrix::io::{petsc, Values};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = petsc::parse_all(data, "fuzz", Values::Finite);
});
