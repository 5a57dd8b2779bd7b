#![no_main]
//! A machine file (`--machine FILE.json`) through `Machine::named_or_file`,
//! then its network wired for its nodes, as `analyze` does.
use libfuzzer_sys::fuzz_target;
#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let p = common::file("machine.json", data);
    if let Ok(m) = amgcomm::machine::Machine::named_or_file(p.to_str().unwrap()) {
        let _ = m.network.wire(m.nodes, m.allocation);
    }
});
