#![no_main]
//! A preset's table of medians (`machine fit NAME TABLE.csv`) through
//! `benchpress::read_table`.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("bench_table", data, &common::fresh());
});
