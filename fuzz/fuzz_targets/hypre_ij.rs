#![no_main]
//! hypre IJ rank files `A.00000, A.00001, ...` (the pieces of the input,
//! cut at 0xFF) through `hypre_ij::read`, as `analyze path/A` reads them.
use amgcomm::matrix::io::{hypre_ij, Values};
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let d = common::fresh();
    for (r, piece) in common::pieces(data).iter().take(8).enumerate() {
        std::fs::write(d.join(format!("A.{r:05}")), piece).unwrap();
    }
    let _ = hypre_ij::read(&d.join("A"), Values::Finite);
});
