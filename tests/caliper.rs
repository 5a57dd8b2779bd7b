//! `--measured` reads a Caliper profile of a hypre run (json-split, as
//! hypre built `--with-caliper` and Caliper's MPI profiling write it):
//! per `MG level L`, the slowest rank's time in MPI point-to-point calls
//! of the solve, set beside the level's modeled solve, and the messages
//! Caliper counted below each level beside amgcomm's count on that run's
//! levels. The profiles are written here from
//! `tests/data/caliper/hypre_pcg.csv`, the figures of a profile hypre
//! 2.26 built `--with-caliper` wrote (`scripts/caliper_hypre.sh`); hostile
//! ones fail in one line.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use amgcomm::measured::caliper::POINT_TO_POINT;
use serde_json::{json, Value};

mod common;

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// A row of the table: (phase, level, region path, rank, seconds,
/// messages sent, received).
type Row = (String, usize, String, u64, f64, u64, u64);

const TABLE: &str = "tests/data/caliper/hypre_pcg.csv";

/// The rows of the table.
fn rows() -> Vec<Row> {
    std::fs::read_to_string(TABLE)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].into(),
                f[1].parse().unwrap(),
                f[2].into(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
                f[5].parse().unwrap(),
                f[6].parse().unwrap(),
            )
        })
        .collect()
}

/// The V-cycles of the recorded run (its PCG iterations plus one).
fn cycles() -> u64 {
    let t = std::fs::read_to_string(TABLE).unwrap();
    let line = t
        .lines()
        .find_map(|l| l.strip_prefix("# cycles: "))
        .unwrap();
    line.trim().parse().unwrap()
}

/// The profile Caliper writes for `rows`, in its json-split layout: the
/// region tree of each row's path (hypre's regions, the MPI call the
/// leaf), a row per call and rank with Caliper's columns, a row per
/// other region and rank (hypre's own time, no messages) and one per rank
/// outside every region (`path` null), as the recorded run has them.
fn profile(rows: &[Row]) -> Value {
    let mut nodes: Vec<Value> = Vec::new();
    let mut ids: BTreeMap<(Option<usize>, String), usize> = BTreeMap::new();
    let mut data = Vec::new();
    let mut inner = std::collections::BTreeSet::new();
    let ranks: std::collections::BTreeSet<u64> = rows.iter().map(|r| r.3).collect();
    for (_, _, region, rank, s, sent, recvd) in rows {
        let mut parent: Option<usize> = None;
        for label in region.split('/') {
            let id = *ids.entry((parent, label.to_string())).or_insert_with(|| {
                nodes.push(match parent {
                    Some(p) => json!({"label": label, "column": "path", "parent": p}),
                    None => json!({"label": label, "column": "path"}),
                });
                nodes.len() - 1
            });
            if let Some(p) = parent {
                inner.insert(p);
            }
            parent = Some(id);
        }
        data.push(json!([parent, rank, s, sent, recvd]));
    }
    for p in inner {
        for r in &ranks {
            data.push(json!([p, r, 1e-3, null, null]));
        }
    }
    for r in &ranks {
        data.push(json!([null, r, 2e-3, null, null]));
    }
    json!({
        "data": data,
        "columns": ["path", "mpi.rank", "time", "Msgs sent", "Msgs recvd"],
        "column_metadata": [{"is_value": false}, {"is_value": false}, {"is_value": true}, {"is_value": true}, {"is_value": true}],
        "nodes": nodes,
        "mpi.world.size": "4",
        "cali.caliper.version": "2.15.0-dev",
        "cali.channel": "runtime-profile",
    })
}

/// The MPI call a row's region ends in.
fn call(region: &str) -> &str {
    region.rsplit('/').next().unwrap()
}

/// Per level, the slowest rank's solve seconds, summed by hand.
fn by_hand(rows: &[Row]) -> BTreeMap<usize, f64> {
    let mut per: BTreeMap<(usize, u64), f64> = BTreeMap::new();
    let p2p = |r: &&Row| POINT_TO_POINT.contains(&call(&r.2));
    for (phase, level, _, rank, s, ..) in rows.iter().filter(|r| r.0 == "solve").filter(p2p) {
        assert_eq!(phase, "solve");
        *per.entry((*level, *rank)).or_default() += s;
    }
    let mut out = BTreeMap::new();
    for ((level, _), s) in per {
        let m: &mut f64 = out.entry(level).or_default();
        *m = m.max(s);
    }
    out
}

fn analyze(dir: &Path, measured: &Path, extra: &[&str]) -> (Output, Option<Value>) {
    let json = dir.join("r.json");
    let out = dir.join("report");
    let _ = std::fs::remove_file(&json);
    // The levels of the run the profile is of, on its 4 ranks.
    let mut args = vec![
        "analyze",
        "--levels-from",
        "tests/data/caliper/levels",
        "--nodes",
        "1",
        "--ppn",
        "4",
        "--ops",
        "spmv,interp,restrict",
        "--measured",
        measured.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = amgcomm(&args);
    let r = std::fs::read(&json)
        .ok()
        .map(|b| serde_json::from_slice(&b).unwrap());
    (o, r)
}

/// The recorded run's profile, analyzed on its levels over its 9
/// V-cycles: the folder, the profile, the table's rows and the report.
fn the_recorded_run() -> (tempfile::TempDir, std::path::PathBuf, Vec<Row>, Value) {
    let d = tempfile::tempdir().unwrap();
    let rows = rows();
    let file = d.path().join("hypre.json");
    std::fs::write(&file, profile(&rows).to_string()).unwrap();
    let (o, r) = analyze(d.path(), &file, &["--cycle", "V", "--iterations", "9"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (d, file, rows, r.unwrap())
}

#[test]
fn a_hypre_profile_is_set_beside_each_levels_modeled_solve() {
    let (d, file, rows, r) = the_recorded_run();
    let m = &r["measured"];
    assert_eq!(m["format"], "caliper");
    assert_eq!(m["ranks"], 4);
    let want = by_hand(&rows);
    let levels = m["levels"].as_array().unwrap();
    assert_eq!(levels.len(), want.len());
    let cycle = r["cycle"]["levels"].as_array().unwrap();
    for l in levels {
        let k = l["level"].as_u64().unwrap() as usize;
        assert_eq!(l["phase"], "solve");
        assert_eq!(l["event"], format!("MPI point-to-point below MG level {k}"));
        let s = l["measured_seconds"].as_f64().unwrap();
        assert!(
            (s - want[&k]).abs() <= 1e-15,
            "level {k}: {s} vs {}",
            want[&k]
        );
        // Modeled: nine cycles of the level, as the report's cycle has it.
        let modeled = l["modeled_seconds"].as_f64().unwrap();
        let per_cycle = cycle[k]["cycle"].as_f64().unwrap();
        assert!(
            (modeled - 9.0 * per_cycle).abs() <= 1e-12 * modeled,
            "{modeled} {per_cycle}"
        );
        let ratio = l["modeled_over_measured"].as_f64().unwrap();
        assert!((ratio - modeled / s).abs() <= 1e-12 * ratio);
    }
    // The report says what it compares.
    let notes = m["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("does not say which operation"),
        "{notes:?}"
    );
    assert!(
        notes[1].as_str().unwrap().contains("only the solve"),
        "{notes:?}"
    );

    // Without --iterations, the measured solve stands without a model,
    // and a warning says what to give.
    let (o, r) = analyze(d.path(), &file, &[]);
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("--iterations N"), "{stderr}");
    let r = r.unwrap();
    assert!(r["measured"]["levels"][0].get("modeled_seconds").is_none());
}

/// A profile without a solve region counts every `MG level` region; one
/// deeper than the hierarchy is warned of; one with levels only in
/// regions of other names is refused.
#[test]
fn setup_only_deeper_and_foreign_profiles() {
    let d = tempfile::tempdir().unwrap();
    let mut rows = rows();
    rows.retain(|r| r.0 == "setup");
    let file = d.path().join("setup.json");
    std::fs::write(&file, profile(&rows).to_string()).unwrap();
    let (o, r) = analyze(d.path(), &file, &["--iterations", "10"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let notes = r.unwrap()["measured"]["notes"].clone();
    assert!(
        notes[1].as_str().unwrap().contains("no solve region"),
        "{notes}"
    );

    let mut deep = self::rows();
    deep.push((
        "solve".into(),
        40,
        "hypre_PCGSolve/hypre_BoomerAMGSolve/hypre_BoomerAMGCycle/MG level 40/Relaxation/MPI_Isend"
            .into(),
        0,
        1e-5,
        1,
        0,
    ));
    std::fs::write(&file, profile(&deep).to_string()).unwrap();
    let (o, _) = analyze(d.path(), &file, &[]);
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("the measured run has 41 levels"),
        "{stderr}"
    );

    let foreign = profile(&self::rows())
        .to_string()
        .replace("MG level", "AMG lvl");
    std::fs::write(&file, foreign).unwrap();
    let (o, _) = analyze(d.path(), &file, &[]);
    common::refused(&o, 1, &["no region named `MG level L`"]);
}

/// `good` with column `k` of the first `MPI_Isend` row set to `x`.
fn on_isend(good: &str, k: usize, x: Value) -> String {
    let mut v: Value = serde_json::from_str(good).unwrap();
    let isend = (v["nodes"].as_array().unwrap().iter())
        .position(|n| n["label"] == "MPI_Isend")
        .unwrap();
    let rows = v["data"].as_array_mut().unwrap();
    rows.iter_mut().find(|r| r[0] == isend).unwrap()[k] = x;
    v.to_string()
}

#[test]
fn hostile_profiles_fail_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let good = profile(&rows()).to_string();
    let file = d.path().join("bad.json");
    let deep = format!(
        "{{\"nodes\": {}0{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let cases: Vec<(String, &str)> = vec![
        (good[..good.len() / 2].to_string(), "line 1"),
        (deep, "recursion limit"),
        (good.replacen("0.001", "1e999", 1), "out of range"),
        (
            good.replacen("MG level 1", "MG level 99999999999999999999", 1),
            "names no level",
        ),
        (
            good.replacen("\"data\":[[", "\"data\":[\"x\",[", 1),
            "data[0] is not a row",
        ),
        (
            good.replacen("\"parent\":0", "\"parent\":\"main\"", 1),
            "is not an earlier node",
        ),
        (
            good.replacen("\"columns\":[\"path\"", "\"columns\":[\"region\"", 1),
            "no `path` column",
        ),
        (good.replace("\"time\"", "\"flops\""), "no time column"),
        (good.replace("MPI_", "PMPI_"), "no MPI point-to-point call"),
        (
            // A rank of -1 on a point-to-point call's row.
            on_isend(&good, 1, json!(-1)),
            "not a rank",
        ),
        (
            {
                let mut v: Value = serde_json::from_str(&good).unwrap();
                for row in v["data"].as_array_mut().unwrap() {
                    row[2] = json!(1.7e308);
                }
                v.to_string()
            },
            "sum past any number",
        ),
        (
            on_isend(&good, 2, json!("fast")),
            "time \"fast\" is not a number",
        ),
        (
            {
                let mut v: Value = serde_json::from_str(&good).unwrap();
                v["data"][0][3] = json!(-3);
                v.to_string()
            },
            "Msgs sent -3 is not a count",
        ),
    ];
    for (text, needle) in cases {
        std::fs::write(&file, &text).unwrap();
        let (o, _) = analyze(d.path(), &file, &[]);
        common::refused(&o, 1, &[needle]);
    }
}

/// The messages hypre's solve sent below each `MG level L`, as Caliper
/// counted them, against amgcomm's count on the levels of the same run:
/// per V-cycle, region L holds the smoother's two halo exchanges of `A_L`
/// (one sweep on the coarsest), the residual's and the restriction by
/// `P_L^T` (above the coarsest), and the interpolation by `P_{L-1}`
/// (below the finest): par_cycle.c's annotations.
#[test]
fn caliper_counts_the_messages_amgcomm_counts_on_the_same_levels() {
    let (_d, _, rows, r) = the_recorded_run();
    // Counted by hand from the table.
    let mut counted: BTreeMap<usize, u64> = BTreeMap::new();
    let (mut sent, mut received) = (0, 0);
    for (phase, level, _, _, _, s, rv) in &rows {
        if phase == "solve" {
            *counted.entry(*level).or_default() += s;
            sent += s;
            received += rv;
        }
    }
    assert_eq!(sent, received, "every message sent is received");
    // amgcomm's messages of one exchange per level and operation.
    let levels = r["levels"].as_array().unwrap();
    let msgs = |l: usize, op: &str| levels[l]["ops"][op]["messages"]["total"].as_u64().unwrap();
    let last = levels.len() - 1;
    let n = cycles();
    assert_eq!(counted.len(), levels.len());
    let mut table = Vec::new();
    for (&l, &c) in &counted {
        let relax = if l == last { 1 } else { 2 };
        let mut per_cycle = relax * msgs(l, "spmv");
        if l < last {
            per_cycle += msgs(l, "spmv") + msgs(l, "restrict");
        }
        if l > 0 {
            per_cycle += msgs(l - 1, "interp");
        }
        table.push((l, c, n * per_cycle));
        // And the reader read the same count.
        let read = &r["measured"]["levels"].as_array().unwrap()[l];
        assert_eq!(read["level"], l as u64);
        assert_eq!(read["measured_messages"].as_f64(), Some(c as f64), "{read}");
    }
    for &(l, counted, modeled) in &table {
        assert_eq!(counted, modeled, "MG level {l}: {table:?}");
    }
    assert_eq!(table.len(), 4);
}
