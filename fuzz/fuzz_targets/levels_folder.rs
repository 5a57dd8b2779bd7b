#![no_main]
//! A levels folder (`--levels-from DIR`): the input's pieces, cut at 0xFF,
//! become A0.mtx, P0.mtx, C0.txt, A1.mtx, P1.mtx, C1.txt, A2.mtx, read by
//! `levels_io::load_levels_ranked` as `analyze --levels-from` does.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;

const NAMES: [&str; 7] = [
    "A0.mtx", "P0.mtx", "C0.txt", "A1.mtx", "P1.mtx", "C1.txt", "A2.mtx",
];

fuzz_target!(|data: &[u8]| {
    let d = common::fresh();
    for (name, piece) in NAMES.iter().zip(common::pieces(data)) {
        std::fs::write(d.join(name), piece).unwrap();
    }
    let _ = amgcomm::amg::levels_io::load_levels_ranked(&d);
});
