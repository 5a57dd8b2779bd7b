#![no_main]
//! A `--measured` file: RAPtor's output, amgcomm's measured JSON, a
//! Caliper profile or PETSc's -log_view, through `measured::parse` as
//! `analyze --measured` reads it (after its UTF-8 check).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = amgcomm::measured::parse(text);
    }
});
