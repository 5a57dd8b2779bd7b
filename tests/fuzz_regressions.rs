//! Every input under `tests/data/fuzz/<target>/` (hostile inputs, and
//! those that once broke a reader under `scripts/fuzz.sh`) replayed
//! through its fuzz target's entry point, the one the command line uses:
//! each must end in the reader's typed error, without a panic and without
//! allocating beyond its bound (1 GB here, as under the fuzzer).

use std::path::{Path, PathBuf};

use amgcomm::matrix::io::{hypre_ij, petsc, Values};

/// The fuzz targets' layout for multi-file inputs: files cut at 0xFF.
fn pieces(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == 0xFF).collect()
}

/// Whether the target's entry point refuses `data` (Err), in `dir`.
fn refused(target: &str, data: &[u8], dir: &Path) -> bool {
    let file = |name: &str| -> PathBuf {
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
        "measured" => {
            std::str::from_utf8(data).map_or(true, |t| amgcomm::measured::parse(t).is_err())
        }
        "machine_file" => {
            let p = file("machine.json");
            amgcomm::machine::Machine::named_or_file(p.to_str().unwrap()).is_err()
        }
        "partition_file" => {
            let n = u16::from_le_bytes([data[0], data[1]]) as usize;
            let ranks = data[2] as usize + 1;
            let p = dir.join("p.part");
            std::fs::write(&p, &data[3..]).unwrap();
            amgcomm::partition::Partition::read(&p, n, ranks).is_err()
        }
        "pattern_file" => amgcomm::comm::pattern_file::read(&file("level0_spmv.amgpat")).is_err(),
        "bench_table" => std::str::from_utf8(data).map_or(true, |t| {
            amgcomm::measure::benchpress::read_table(t).is_err()
        }),
        other => panic!("tests/data/fuzz/{other}: no such fuzz target"),
    }
}

#[test]
fn every_kept_input_is_refused_without_a_panic() {
    // The fuzzer's bound (scripts/fuzz.sh): the readers are told they
    // have 1 GB, and must refuse what would take more.
    std::env::set_var("AMGCOMM_MEMORY_LIMIT", (1u64 << 30).to_string());
    let mut replayed = 0;
    let mut targets: Vec<PathBuf> = std::fs::read_dir("tests/data/fuzz")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    targets.sort();
    for t in targets {
        let target = t.file_name().unwrap().to_string_lossy().into_owned();
        let mut inputs: Vec<PathBuf> = std::fs::read_dir(&t)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        inputs.sort();
        for input in inputs {
            let data = std::fs::read(&input).unwrap();
            let d = tempfile::tempdir().unwrap();
            let outcome = std::panic::catch_unwind(|| refused(&target, &data, d.path()));
            match outcome {
                Ok(true) => replayed += 1,
                Ok(false) => panic!("{}: read as valid", input.display()),
                Err(_) => panic!("{}: the reader panicked", input.display()),
            }
        }
    }
    assert!(replayed >= 10, "{replayed}");
}
