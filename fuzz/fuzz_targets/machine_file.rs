#![no_main]
//! A machine file (`--machine FILE.json`) through
//! `Machine::named_or_file`, whose validation wires its network for its
//! nodes, as `analyze` does.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("machine_file", data, &common::fresh());
});
