#![no_main]
//! hypre IJ rank files `A.00000, A.00001, ...` (the pieces of the input,
//! cut at 0xFF) through `hypre_ij::read`, as `analyze path/A` reads them.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("hypre_ij", data, &common::fresh());
});
