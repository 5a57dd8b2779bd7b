#![no_main]
//! A `--measured` file: RAPtor's output, amgcomm's measured JSON, a
//! Caliper profile or PETSc's -log_view, through `measured::parse` as
//! `analyze --measured` reads it (after its UTF-8 check).
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("measured", data, &common::fresh());
});
