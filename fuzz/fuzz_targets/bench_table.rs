#![no_main]
//! A preset's table of medians (`machine fit NAME TABLE.csv`) through
//! `benchpress::read_table`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = amgcomm::measure::benchpress::read_table(text);
    }
});
