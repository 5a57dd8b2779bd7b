#![no_main]
//! A partition file (`--partition FILE`) through `Partition::read` for a
//! matrix of `n` rows on `ranks` ranks, both taken from the first bytes.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let n = u16::from_le_bytes([data[0], data[1]]) as usize;
    let ranks = data[2] as usize + 1;
    let p = common::file("p.part", &data[3..]);
    let _ = amgcomm::partition::Partition::read(&p, n, ranks);
});
