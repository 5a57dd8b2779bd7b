#![no_main]
//! A pattern file (`.amgpat`, what `--save-patterns` writes and `replay`
//! reads) through `pattern_file::read`.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let p = common::file("level0_spmv.amgpat", data);
    let _ = amgcomm::comm::pattern_file::read(&p);
});
