//! `analyze --measured FILE`: RAPtor's Blue Waters output and amgcomm's
//! measured JSON beside the model, through the binary.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use amgcomm::comm::Op;
use amgcomm::measured::parse;

/// Where [`common::write_logs`] puts the two runs in a test's folder.
const RUN: &str = "tests/data/raptor/lin_elas_128_8509518.bw.out";
const KILLED: &str = "tests/data/raptor/lin_elas_128_8509542.bw.out";

/// Runs the binary in `dir`, which holds the RAPtor logs the tests write.
fn amgcomm(dir: &Path, args: &[&str]) -> Output {
    common::write_logs(dir);
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs")
}

/// analyze gen:elasticity3d:16 (6 levels set up on 8 x 16 = 128 ranks) as the
/// RAPtor runs, with `extra`.
fn analyze(dir: &Path, extra: &[&str]) -> Output {
    let json = dir.join("r.json");
    let out = dir.join("rep");
    let mut args = vec![
        "analyze",
        "gen:elasticity3d:16",
        "--preset",
        "raptor-elasticity",
        "--nodes",
        "8",
        "--ppn",
        "16",
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    amgcomm(dir, &args)
}

fn report(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("r.json")).unwrap()).unwrap()
}

#[test]
fn measured_times_and_ratios_are_reported_per_level() {
    let d = tempfile::tempdir().unwrap();
    let o = analyze(d.path(), &["--measured", KILLED]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // Level 5 of the hierarchy is beyond the killed run's levels 0-4.
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("amgcomm: warning: --measured tests/data/raptor/lin_elas_128_8509542.bw.out: not measured (level op): 5 spmv; shown without a measurement"),
        "{err}"
    );
    let r = report(d.path());
    let levels = r["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 6);
    // The file's values, by hand: level 4, A*x and A*P.
    let l4 = &levels[4]["ops"];
    assert_eq!(l4["spmv"]["measured"]["seconds"], 2.064631e-04);
    assert_eq!(l4["spmv"]["measured"]["max_msgs"], 58);
    // RAPtor's Total Bytes: between nodes only.
    assert_eq!(l4["spmv"]["measured"]["inter_node_bytes"], 440120);
    assert_eq!(l4["spgemm"]["measured"]["seconds"], 1.368048e-03);
    for l in &levels[..5] {
        for op in ["spmv", "spgemm"] {
            let o = &l["ops"][op];
            if o.is_null() {
                continue;
            }
            let ratio =
                o["cost"]["total"].as_f64().unwrap() / o["measured"]["seconds"].as_f64().unwrap();
            assert_eq!(o["modeled_over_measured"].as_f64().unwrap(), ratio);
        }
        assert!(l["ops"]["ptap"]["measured"].is_null());
    }
    assert!(levels[5]["ops"]["spmv"]["measured"].is_null());
    assert_eq!(r["measured"]["format"], "raptor");
    assert_eq!(r["measured"]["warnings"].as_array().unwrap().len(), 1);
    // The table shows both; the CSV has both columns.
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(table.contains("measured model/meas"), "{table}");
    let csv = std::fs::read_to_string(d.path().join("rep/levels.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",total,measured_seconds,modeled_over_measured"));
    let row = csv.lines().find(|l| l.starts_with("4,spmv,")).unwrap();
    assert!(row.contains(",2.064631e-4,"), "{row}");
    // The complete run is deeper than this hierarchy: named, with both counts.
    let o = analyze(d.path(), &["--measured", RUN]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the measured run has 7 levels, the hierarchy 6"),
        "{err}"
    );
}

#[test]
fn a_file_of_another_run_is_refused_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let refused = |o: Output, code: i32, needle: &str| {
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(code), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "'{needle}' not in {err}");
        assert!(!p.join("rep").exists());
    };
    // 128 active ranks cannot be 64: before the matrix is even made.
    let o = amgcomm(
        p,
        &[
            "analyze",
            "gen:elasticity3d:60",
            "--nodes",
            "4",
            "--measured",
            RUN,
            "--out",
            p.join("rep").to_str().unwrap(),
        ],
    );
    refused(
        o,
        2,
        "128 ranks took part in a measured level, more than the 64 analysed",
    );
    let json = p.join("m.json");
    std::fs::write(
        &json,
        r#"{"format": "amgcomm-measured", "version": 1, "ranks": 64, "levels": [{"level": 0, "spmv": {"seconds": 1e-4}}]}"#,
    )
    .unwrap();
    refused(
        analyze(p, &["--measured", json.to_str().unwrap()]),
        2,
        "the measured run had 64 ranks, the analysis has 128",
    );
    let bad = p.join("bad.out");
    let good = common::log(common::RUN);
    let line = line_of(&good, "Comm Time: 1.193471e-04");
    std::fs::write(
        &bad,
        good.replacen("Comm Time: 1.193471e-04", "Comm Time: n/a", 1),
    )
    .unwrap();
    refused(
        analyze(p, &["--measured", bad.to_str().unwrap()]),
        1,
        &format!("bad.out: line {line}: 'Comm Time' has value 'n/a', not a number"),
    );
}

/// The 1-based line of `text` that holds `what`.
fn line_of(text: &str, what: &str) -> usize {
    text.lines().position(|l| l.contains(what)).unwrap() + 1
}

/// The reader on logs of RAPtor's format written from the table of the
/// two runs' figures: every block, and the killed run's complete levels.
#[test]
fn reads_the_two_blue_waters_runs() {
    let a = parse(&common::log(common::RUN)).unwrap();
    assert_eq!(a.format, "raptor");
    assert_eq!(a.depth(), 7);
    assert!((0..7).all(|l| a.get(l, Op::Spmv).is_some()));
    assert!((0..6).all(|l| a.get(l, Op::Spgemm).is_some()));
    let x0 = a.get(0, Op::Spmv).unwrap();
    assert_eq!(x0.seconds, 1.193471e-04);
    assert_eq!(
        (x0.max_msgs, x0.inter_node_bytes, x0.active_processes),
        (Some(19), Some(840144), Some(128))
    );
    let p1 = a.get(1, Op::Spgemm).unwrap();
    assert_eq!(
        (p1.seconds, p1.inter_node_bytes),
        (9.002438e-01, Some(6066560))
    );
    assert_eq!(a.get(6, Op::Spmv).unwrap().seconds, 1.813231e-04);
    assert_eq!(a.get(6, Op::Spmv).unwrap().active_processes, Some(85));
    assert_eq!(a.max_active(), Some(128));
    // Every figure of the table comes back.
    for b in common::blocks(common::RUN) {
        let m = a.get(b.level, b.op).unwrap();
        assert_eq!(m.seconds, b.comm_time.parse::<f64>().unwrap());
        assert_eq!(m.inter_node_bytes, Some(b.total_bytes));
        assert_eq!(m.bytes, None);
    }
    // The second run was killed after "Level 5": five levels stand.
    let b = parse(&common::log(common::KILLED)).unwrap();
    assert_eq!(b.depth(), 5);
    assert_eq!(b.get(4, Op::Spmv).unwrap().seconds, 2.064631e-04);
    assert_eq!(b.get(4, Op::Spgemm).unwrap().seconds, 1.368048e-03);
    assert!(b.get(5, Op::Spmv).is_none());
}

#[test]
fn malformed_logs_name_the_line() {
    let good = common::log(common::RUN);
    let line = line_of(&good, "Comm Time: 1.193471e-04");
    let e = parse(&good.replacen("Comm Time: 1.193471e-04", "Comm Time: fast", 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("line {line}: 'Comm Time' has value 'fast', not a number")
    );
    let e = parse(&good.replacen("Level 1", "Level one", 1)).unwrap_err();
    assert!(
        e.to_string().ends_with("'Level one': expected Level N"),
        "{e}"
    );
    let e = parse(&good.replacen("Comm Time: 1.455723e+00", "Comm Time: -1", 1)).unwrap_err();
    assert!(e.to_string().contains("-1 s is not a measurement"), "{e}");
    let e = parse("A*x\nComm Time: 1\n").unwrap_err();
    assert_eq!(e.to_string(), "line 1: 'A*x' before any 'Level N' line");
    let e = parse("hello\nworld\n").unwrap_err();
    assert!(e.to_string().starts_with("no measured level"), "{e}");
    // A block without its Comm Time is not measured.
    let cut = "Level 0\nA*x\nMax Num Msgs: 3\nComm Time: 2e-5\nLevel 1\nA*x\nMax Num Msgs: 4\n";
    assert_eq!(parse(cut).unwrap().depth(), 1);
    // A log of the other kind (the anisotropic benchmark's blocks) holds
    // no A*x or A*P block amgcomm reads.
    let e = parse("Level 0\nA Vector\nComm Time: 1e-5\n").unwrap_err();
    assert!(e.to_string().starts_with("no measured level"), "{e}");
    // Truncated inside a block: the levels before it stand.
    let cut = &good[..good.find("Level 3").unwrap() + 40];
    let m = parse(cut).unwrap();
    assert_eq!(m.depth(), 3);
}
