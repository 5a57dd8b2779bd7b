#![no_main]
//! A partition file (`--partition FILE`) through `Partition::read` for a
//! matrix of `n` rows on `ranks` ranks, both taken from the first bytes.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("partition_file", data, &common::fresh());
});
