//! The EuroMPI'18 experiment through the binary (issue 19): the problem's
//! size is the paper's, the preset is RAPtor's setting, MFEM's partition
//! is what the solver sees, and at 128 ranks level 0 matches RAPtor's
//! own Blue Waters output.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use amgcomm::amg::strength::Rule;
use amgcomm::amg::{Coarsening, Interpolation, Preset};

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// `report` of a run in `dir`, which holds the RAPtor logs the tests
/// write ([`common::write_logs`]): `args` name them by relative path.
fn report_in(dir: &Path, args: &[&str]) -> serde_json::Value {
    common::write_logs(dir);
    let mut all = args.to_vec();
    all.extend(["--json", "r.json", "--out", "out"]);
    let o = Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(&all)
        .current_dir(dir)
        .output()
        .expect("binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap()
}

fn report(dir: &Path, args: &[&str]) -> serde_json::Value {
    let json = dir.join("r.json");
    let mut all = args.to_vec();
    let out = dir.join("out");
    all.extend([
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = amgcomm(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

#[test]
fn the_beam_is_the_papers_problem() {
    // "about 840,000 unknowns and 65M nonzeros".
    let o = amgcomm(&["info", "gen:beam:5", "--json"]);
    assert!(o.status.success());
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["rows"], 839_619);
    assert_eq!(info["nnz"], 65_119_689);
    assert_eq!(info["symmetry"], "symmetric");
}

#[test]
fn raptor_2018_is_the_cited_setting() {
    let o = Preset::Raptor2018.options();
    assert_eq!(
        (o.strength.rule, o.strength.theta, o.strength.num_functions),
        (Rule::Raptor, 0.5, 3)
    );
    assert_eq!(o.coarsening, Coarsening::HmisRaptor);
    assert_eq!(o.interpolation, Interpolation::ExtendedI);
    // No truncation in RAPtor's extended interpolation.
    assert_eq!((o.p_max_elmts, o.trunc_factor), (0, 0.0));
    assert_eq!((o.max_coarse, o.max_levels), (50, 25));
    assert_ne!(o, Preset::RaptorElasticity.options());
}

#[test]
fn at_128_ranks_raptors_log_reads_beside_the_rebuild() {
    let d = tempfile::tempdir().unwrap();
    let args = [
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
    ];
    let r = report_in(d.path(), &args);
    let l0 = &r["levels"][0];
    assert_eq!(l0["active_processes"], 128);
    let spmv = &l0["ops"]["spmv"];
    // RAPtor printed 19 messages at most on level 0, and 840,144 "Total
    // Bytes": those between nodes only (its off-node classes, par_spmv.cpp),
    // read as such.
    let bytes = spmv["bytes"]["total"].as_f64().unwrap();
    let most = spmv["messages"]["max_sent"].as_u64().unwrap();
    assert!((17..=21).contains(&most), "{most}");
    assert_eq!(spmv["measured"]["seconds"], 1.193471e-04);
    assert_eq!(spmv["measured"]["inter_node_bytes"], 840_144);
    assert!(spmv["measured"].get("bytes").is_none());
    assert_eq!(r["partition"]["fine"], "mfem");
    assert!(r["hierarchy"]["source"]
        .as_str()
        .unwrap()
        .contains("mfem partition (2 serial refinements, 512 elements)"));
    // The same hierarchy cut into contiguous blocks of the mesh's rows
    // (slabs of whole x lines) makes many more neighbours: MFEM's
    // partition is what keeps level 0 at RAPtor's count.
    let d2 = tempfile::tempdir().unwrap();
    let blocks = report(
        d2.path(),
        &[
            "analyze",
            "gen:beam:4",
            "--nodes",
            "8",
            "--ppn",
            "16",
            "--preset",
            "raptor-2018",
        ],
    );
    let contiguous = blocks["levels"][0]["ops"]["spmv"]["bytes"]["total"]
        .as_f64()
        .unwrap();
    assert!(contiguous > 2.0 * bytes, "{contiguous} vs {bytes}");
}

#[test]
fn mfem_needs_a_mesh_and_enough_elements() {
    let fails = |args: &[&str], needle: &str| {
        let o = amgcomm(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{needle} not in {err}");
    };
    fails(
        &[
            "analyze",
            "matrices/elasticity3d_4.mtx",
            "--partition",
            "mfem",
        ],
        "matrices/elasticity3d_4.mtx has no mesh",
    );
    fails(
        &["analyze", "gen:poisson3d:8", "--partition", "mfem"],
        "gen:poisson3d:8 has no mesh",
    );
    fails(
        &["analyze", "gen:beam:1", "--partition", "mfem"],
        "the mesh has 64 elements, fewer than the 8192 ranks",
    );
    fails(
        &["analyze", "gen:beam:2", "--serial-refinements", "1"],
        "--serial-refinements 1 applies to --partition mfem only",
    );
    fails(
        &[
            "analyze",
            "gen:beam:2",
            "--nodes",
            "2",
            "--partition",
            "mfem",
            "--serial-refinements",
            "3",
        ],
        "the mesh is refined 2 times in all",
    );
    fails(
        &[
            "compare",
            "gen:beam:2",
            "--nodes",
            "2",
            "--variants",
            "partition=mfem",
        ],
        "cannot share one; run an analysis with --partition mfem",
    );
}

#[test]
fn the_partition_file_of_mfem_gives_the_same_level_0() {
    // `partition --method mfem` writes the owners in the generator's row
    // order; `analyze --partition mfem` renumbers the rows rank by rank.
    // Level 0's spmv depends on who owns what, not on the numbering: both
    // must agree to the byte. (Its spgemm carries rows of P, which the
    // numbering changes through the coarsening's random weights.)
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("beam.part");
    let o = amgcomm(&[
        "partition",
        "gen:beam:3",
        "--parts",
        "128",
        "--method",
        "mfem",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let base = [
        "analyze",
        "gen:beam:3",
        "--nodes",
        "8",
        "--ppn",
        "16",
        "--partition",
    ];
    let mut by_file = base.to_vec();
    by_file.push(file.to_str().unwrap());
    let mut by_mesh = base.to_vec();
    by_mesh.push("mfem");
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = report(d1.path(), &by_file);
    let b = report(d2.path(), &by_mesh);
    let (x, y) = (
        &a["levels"][0]["ops"]["spmv"],
        &b["levels"][0]["ops"]["spmv"],
    );
    assert_eq!(x["messages"], y["messages"]);
    assert_eq!(x["bytes"], y["bytes"]);
    assert_eq!(x["byte_hops"], y["byte_hops"]);
}
