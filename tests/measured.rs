//! `analyze --measured FILE`: RAPtor's Blue Waters output and amgcomm's
//! measured JSON beside the model, through the binary.

use std::path::Path;
use std::process::{Command, Output};

const RUN: &str = "tests/data/raptor/lin_elas_128_8509518.bw.out";
const KILLED: &str = "tests/data/raptor/lin_elas_128_8509542.bw.out";

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// analyze gen:elasticity3d:14 (6 levels) on 8 x 16 = 128 ranks, as the
/// RAPtor runs, with `extra`.
fn analyze(dir: &Path, extra: &[&str]) -> Output {
    let json = dir.join("r.json");
    let out = dir.join("rep");
    let mut args = vec![
        "analyze",
        "gen:elasticity3d:14",
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
    amgcomm(&args)
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
    assert_eq!(l4["spmv"]["measured"]["bytes"], 440120);
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
    let o = amgcomm(&[
        "analyze",
        "gen:elasticity3d:60",
        "--nodes",
        "4",
        "--measured",
        RUN,
        "--out",
        p.join("rep").to_str().unwrap(),
    ]);
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
    let text = std::fs::read_to_string(RUN).unwrap().replacen(
        "Comm Time: 1.193471e-04",
        "Comm Time: n/a",
        1,
    );
    std::fs::write(&bad, text).unwrap();
    refused(
        analyze(p, &["--measured", bad.to_str().unwrap()]),
        1,
        "bad.out: line 68: 'Comm Time' has value 'n/a', not a number",
    );
}
