//! Each fuzz target's input through the entry point the command line uses,
//! shared by the targets (`fuzz/fuzz_targets/`) and by
//! `tests/fuzz_regressions.rs`, so that a kept input replays exactly as it
//! was fuzzed. Multi-file inputs are laid out in `dir`, cut at 0xFF.

use std::path::Path;

use amgcomm::matrix::io::{hypre_ij, petsc, Values};

/// The targets, in `scripts/fuzz.sh`'s order.
pub const TARGETS: [&str; 9] = [
    "matrix_file",
    "petsc_binary",
    "hypre_ij",
    "levels_folder",
    "measured",
    "machine_file",
    "partition_file",
    "pattern_file",
    "bench_table",
];

/// `data` cut into pieces at each 0xFF byte (the file separator).
pub fn pieces(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == 0xFF).collect()
}

/// Reads `data` as `target`'s input in the empty folder `dir`: whether the
/// reader refused it (its typed error). Panics on an unknown target.
pub fn refused(target: &str, data: &[u8], dir: &Path) -> bool {
    let file = |name: &str| {
        let p = dir.join(name);
        std::fs::write(&p, data).unwrap();
        p
    };
    match target {
        "matrix_file" => amgcomm::matrix::io::read(&file("m.mtx")).is_err(),
        "petsc_binary" => petsc::parse_all(data, "fuzz", Values::Finite).is_err(),
        "hypre_ij" => {
            for (r, piece) in pieces(data).iter().take(8).enumerate() {
                std::fs::write(dir.join(format!("A.{r:05}")), piece).unwrap();
            }
            hypre_ij::read(&dir.join("A"), Values::Finite).is_err()
        }
        "levels_folder" => {
            let names = [
                "A0.mtx", "P0.mtx", "C0.txt", "A1.mtx", "P1.mtx", "C1.txt", "A2.mtx",
            ];
            for (name, piece) in names.iter().zip(pieces(data)) {
                std::fs::write(dir.join(name), piece).unwrap();
            }
            amgcomm::amg::levels_io::load_levels_ranked(dir).is_err()
        }
        // After the command line's UTF-8 check.
        "measured" => {
            std::str::from_utf8(data).map_or(true, |t| amgcomm::measured::parse(t).is_err())
        }
        // named_or_file validates, which wires the network for its nodes.
        "machine_file" => {
            let p = file("machine.json");
            amgcomm::machine::Machine::named_or_file(p.to_str().unwrap()).is_err()
        }
        // Rows (2 bytes, little-endian) and ranks minus one (1 byte) first.
        "partition_file" => {
            let [n0, n1, r, rest @ ..] = data else {
                return true;
            };
            let p = dir.join("p.part");
            std::fs::write(&p, rest).unwrap();
            let n = u16::from_le_bytes([*n0, *n1]) as usize;
            amgcomm::partition::Partition::read(&p, n, *r as usize + 1).is_err()
        }
        "pattern_file" => amgcomm::comm::pattern_file::read(&file("level0_spmv.amgpat")).is_err(),
        "bench_table" => std::str::from_utf8(data).map_or(true, |t| {
            amgcomm::measure::benchpress::read_table(t).is_err()
        }),
        other => panic!("{other}: no such fuzz target"),
    }
}
