//! Every number of a handful of reports stays what it was before the
//! architecture rework (issue 15): the JSON written by today's binary must
//! contain every field of `tests/data/golden/<case>.json` with the same
//! value, bit for bit. Fields may be added; none may be renamed or removed.
//!
//! The golden files were written once by `AMGCOMM_WRITE_GOLDEN=1 cargo test
//! --release --test regression` at the commit named in
//! `tests/data/README.md`. Rewrite them only for a change of numbers that is
//! intended, and say so in the commit.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// (name, command line): each preset; METIS with node-aware-3; the classic
/// terms with round-robin placement; every optional term with random
/// placement; copy-transfer and pack with
/// contiguous-nnz and rebalance; a compare run over every variant key;
/// the paper's setting (beam, MFEM's partition, RAPtor 2018) at small
/// scale; then the inputs and outputs added before the pipeline moved
/// into the library (issue 26): hypre IJ rank files, hypre and PETSc
/// levels, `--advice`, and MFEM's partition of `gen:beam:4` at 128 ranks
/// with RAPtor's measured times beside it.
const CASES: [(&str, &[&str]); 15] = [
    (
        "beam_mfem_raptor_2018",
        &[
            "analyze",
            "gen:beam:2",
            "--nodes",
            "4",
            "--ppn",
            "4",
            "--partition",
            "mfem",
            "--preset",
            "raptor-2018",
        ],
    ),
    (
        "preset_hypre",
        &[
            "analyze",
            "gen:elasticity3d:8",
            "--nodes",
            "8",
            "--ppn",
            "8",
            "--preset",
            "hypre",
        ],
    ),
    (
        "preset_pyamg",
        &[
            "analyze",
            "tests/data/reference/poisson3d_20.mtx",
            "--nodes",
            "4",
            "--ppn",
            "16",
            "--preset",
            "pyamg",
        ],
    ),
    (
        "preset_raptor_elasticity",
        &[
            "analyze",
            "gen:elasticity3d:8",
            "--nodes",
            "4",
            "--ppn",
            "16",
            "--preset",
            "raptor-elasticity",
        ],
    ),
    (
        "metis_node_aware_3",
        &[
            "analyze",
            "gen:poisson3d:16",
            "--permute",
            "3",
            "--nodes",
            "8",
            "--ppn",
            "8",
            "--partition",
            "metis",
            "--strategy",
            "node-aware-3",
        ],
    ),
    (
        "loggp_logpc_routed_round_robin",
        &[
            "analyze",
            "gen:elasticity3d:10",
            "--nodes",
            "128",
            "--ppn",
            "4",
            "--placement",
            "round-robin",
            "--model",
            "loggp+queue-measured+logpc+routed",
        ],
    ),
    (
        "every_extra_term_random_placement",
        &[
            "analyze",
            "gen:elasticity3d:10",
            "--nodes",
            "128",
            "--ppn",
            "4",
            "--placement",
            "random",
            "--placement-seed",
            "7",
            "--model",
            "nodeaware+queue+contention+logpc+routed+pack",
        ],
    ),
    (
        "copytransfer_pack_nnz_rebalance",
        &[
            "analyze",
            "tests/data/reference/beam_tet_2k.mtx.gz",
            "--nodes",
            "16",
            "--ppn",
            "4",
            "--partition",
            "contiguous-nnz",
            "--coarse-partition",
            "rebalance",
            "--model",
            "copytransfer+queue+contention+pack",
        ],
    ),
    (
        "compare",
        &[
            "compare",
            "gen:poisson3d:16",
            "--permute",
            "1",
            "--nodes",
            "4",
            "--ppn",
            "8",
            "--variants",
            "partition=contiguous;partition=metis,strategy=node-aware-3;placement=round-robin;\
             coarse-partition=rebalance,strategy=node-aware-2;partition=metis-nodes,placement=random",
        ],
    ),
    (
        "hypre_ij",
        &["analyze", "tests/data/hypre/A", "--nodes", "2", "--ppn", "2"],
    ),
    (
        "hypre_levels",
        &[
            "analyze",
            "--levels-from",
            "tests/data/hypre",
            "--nodes",
            "2",
            "--ppn",
            "2",
        ],
    ),
    (
        "petsc_levels",
        &[
            "analyze",
            "--levels-from",
            "tests/data/petsc/levels",
            "--nodes",
            "2",
            "--ppn",
            "4",
        ],
    ),
    (
        "petsc_dump_binary",
        &[
            "analyze",
            "--levels-from",
            "tests/data/petsc/binaryoutput",
            "--nodes",
            "1",
            "--ppn",
            "4",
            "--strategy",
            "node-aware-2",
        ],
    ),
    (
        "advice",
        &[
            "analyze",
            "gen:poisson3d:16",
            "--permute",
            "2",
            "--nodes",
            "4",
            "--ppn",
            "8",
            "--advice",
        ],
    ),
    (
        "beam4_mfem_128_measured",
        &[
            "analyze",
            "gen:beam:4",
            "--nodes",
            "8",
            "--ppn",
            "16",
            "--partition",
            "mfem",
            "--preset",
            "raptor-2018",
            "--measured",
            "tests/data/raptor/lin_elas_128_8509518.bw.out",
        ],
    ),
];

fn golden(name: &str) -> PathBuf {
    Path::new("tests/data/golden").join(format!("{name}.json"))
}

/// Runs one case into a fresh folder and returns its JSON report, as
/// written.
/// A case that reads a RAPtor log runs in the temporary folder, where the
/// tests write the logs under the same relative paths
/// ([`common::write_logs`]); its other inputs are generators.
fn run(args: &[&str], threads: usize) -> String {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_amgcomm"));
    if args.iter().any(|a| a.starts_with("tests/data/raptor/")) {
        common::write_logs(d.path());
        cmd.current_dir(d.path());
    }
    let o = cmd
        .env("RAYON_NUM_THREADS", threads.to_string())
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let file = if args[0] == "compare" {
        "compare.json"
    } else {
        "report.json"
    };
    std::fs::read_to_string(out.join(file)).unwrap()
}

/// Where `new` lacks a field of `old` or holds another value: the first
/// such path. Numbers compare bit for bit: an integer that became a float,
/// a float off by one unit in the last place, or -0.0 for 0.0 differs.
fn first_difference(old: &Value, new: &Value, path: &str) -> Option<String> {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => a.iter().find_map(|(k, v)| match b.get(k) {
            None => Some(format!("{path}.{k}: removed")),
            Some(w) => first_difference(v, w, &format!("{path}.{k}")),
        }),
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (v, w))| first_difference(v, w, &format!("{path}[{i}]"))),
        (Value::Number(a), Value::Number(b)) if a.is_f64() || b.is_f64() => {
            let bits = |n: &serde_json::Number| n.is_f64().then(|| n.as_f64().map(f64::to_bits));
            (bits(a) != bits(b)).then(|| format!("{path}: was {old}, now {new}"))
        }
        _ if old == new => None,
        _ => Some(format!("{path}: was {old}, now {new}")),
    }
}

#[test]
fn every_number_of_the_golden_reports_is_unchanged() {
    let write = std::env::var_os("AMGCOMM_WRITE_GOLDEN").is_some();
    // Every case on 1, 2 and 3 threads: no number may depend on how rayon
    // splits the work (written once, on 1 thread).
    let counts: &[usize] = if write { &[1] } else { &[1, 2, 3] };
    let runs = CASES
        .iter()
        .flat_map(|case| counts.iter().map(move |&t| (case, t)));
    for (&(name, args), threads) in runs {
        let text = run(args, threads);
        if write {
            std::fs::create_dir_all("tests/data/golden").unwrap();
            std::fs::write(golden(name), text).unwrap();
            continue;
        }
        // serde_json's `float_roundtrip` (Cargo.toml) parses every float
        // exactly; its default parser can miss by one unit in the last place.
        let new: Value = serde_json::from_str(&text).unwrap();
        let old: Value = serde_json::from_str(
            &std::fs::read_to_string(golden(name))
                .unwrap_or_else(|e| panic!("{}: {e}", golden(name).display())),
        )
        .unwrap();
        if let Some(d) = first_difference(&old, &new, name) {
            panic!("{args:?} on {threads} threads\n{d}");
        }
    }
}

/// The library call of `examples/library_report.rs` (a request built in
/// code, run, rendered) gives `analyze`'s golden reports, every number.
#[test]
fn a_library_request_gives_the_golden_reports() {
    use amgcomm::amg::Preset;
    use amgcomm::analysis::{Input, Request};
    use amgcomm::machine::Machine;
    use amgcomm::partition::{methods::Method, Fine};
    use amgcomm::report::json::Report;
    let on = |nodes, ppn| Machine {
        nodes,
        ppn,
        ..Machine::bluewaters()
    };
    let matrix = |spec: &str| Input::Matrix {
        spec: spec.into(),
        permute: None,
    };
    let hypre = Request::new(matrix("tests/data/hypre/A"), on(2, 2));
    let mut beam = Request::new(matrix("gen:beam:2"), on(4, 4)).with_preset(Preset::Raptor2018);
    beam.partition = Some(Fine::Method(Method::Mfem));
    for (name, request) in [("hypre_ij", hypre), ("beam_mfem_raptor_2018", beam)] {
        let run = request.run(request.check().unwrap(), &|_| {}).unwrap();
        let new = serde_json::to_value(Report::of_run(&run, &request)).unwrap();
        let text = std::fs::read_to_string(golden(name)).unwrap();
        let old: Value = serde_json::from_str(&text).unwrap();
        if let Some(d) = first_difference(&old, &new, name) {
            panic!("{d}");
        }
    }
}

#[test]
fn the_comparison_sees_removed_fields_and_changed_digits() {
    let old: Value = serde_json::json!({"a": {"b": [1, 2.5]}, "c": "x"});
    let mut new = old.clone();
    new["d"] = 3.into();
    assert_eq!(first_difference(&old, &new, "r"), None);
    new["a"]["b"][1] = 2.5000000000000004.into();
    assert_eq!(
        first_difference(&old, &new, "r").unwrap(),
        "r.a.b[1]: was 2.5, now 2.5000000000000004"
    );
    new["a"]["b"][1] = 2.5.into();
    new["a"]["b"][0] = 1.0.into();
    assert!(first_difference(&old, &new, "r").is_some());
    new["a"]["b"][0] = 1.into();
    new["z"] = 0.0.into();
    let mut zero = new.clone();
    zero["z"] = (-0.0).into();
    assert_eq!(
        first_difference(&new, &zero, "r").unwrap(),
        "r.z: was 0.0, now -0.0"
    );
    new.as_object_mut().unwrap().remove("c");
    new["a"]["b"][0] = 1.into();
    assert_eq!(first_difference(&old, &new, "r").unwrap(), "r.c: removed");
}
