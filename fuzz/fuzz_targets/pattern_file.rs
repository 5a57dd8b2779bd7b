#![no_main]
//! A pattern file (`.amgpat`, what `--save-patterns` writes and `replay`
//! reads) through `pattern_file::read`.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("pattern_file", data, &common::fresh());
});
