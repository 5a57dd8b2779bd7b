#![no_main]
//! A levels folder (`--levels-from DIR`): the input's pieces, cut at
//! 0xFF, become A0.mtx, P0.mtx, C0.txt, A1.mtx, P1.mtx, C1.txt, A2.mtx,
//! read by `levels_io::load_levels_ranked` as `analyze --levels-from`
//! does.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;
#[allow(dead_code)]
#[path = "../../tests/common/fuzz_entries.rs"]
mod entries;

fuzz_target!(|data: &[u8]| {
    entries::refused("levels_folder", data, &common::fresh());
});
