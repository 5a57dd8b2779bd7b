//! Every input under `tests/data/fuzz/<target>/` (hostile inputs, and
//! those that once broke a reader under `scripts/fuzz.sh`) replayed
//! through its fuzz target's entry point, the one the command line uses:
//! each must end in the reader's typed error, without a panic and without
//! allocating beyond its bound (1 GB here, as under the fuzzer).

use std::path::PathBuf;

#[path = "common/fuzz_entries.rs"]
mod entries;

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
            assert!(
                entries::TARGETS.contains(&target.as_str()),
                "{}: no such fuzz target",
                t.display()
            );
            let outcome = std::panic::catch_unwind(|| entries::refused(&target, &data, d.path()));
            match outcome {
                Ok(true) => replayed += 1,
                Ok(false) => panic!("{}: read as valid", input.display()),
                Err(_) => panic!("{}: the reader panicked", input.display()),
            }
        }
    }
    assert!(replayed >= 10, "{replayed}");
}
