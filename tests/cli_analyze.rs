//! `amgcomm analyze` through the binary: report fields, bring-your-own
//! hierarchy, DOT export, bad input.

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary; `analyze` writes its report folder into a fresh
/// temporary directory unless the test names one.
fn amgcomm(args: &[&str]) -> Output {
    let out = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_amgcomm"));
    cmd.args(args);
    if args.first() == Some(&"analyze") && !args.contains(&"--out") {
        cmd.arg("--out").arg(out.path().join("report"));
    }
    cmd.output().expect("binary runs")
}

fn ok(args: &[&str]) -> String {
    let out = amgcomm(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn fails(args: &[&str], needles: &[&str]) {
    let out = amgcomm(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && out.status.code() != Some(101),
        "{args:?}"
    );
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "'{n}' not in: {err}");
    }
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn report_has_the_model_fields() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r.json");
    ok(&[
        "analyze",
        "gen:poisson3d:12",
        "--nodes",
        "2",
        "--ppn",
        "4",
        "--json",
        out.to_str().unwrap(),
    ]);
    let r = json(&out);
    for k in ["rows", "cols", "nnz"] {
        assert!(r["matrix"][k].is_u64(), "matrix.{k}");
    }
    assert_eq!(r["matrix"]["rows"], 1728);
    assert_eq!(r["machine"]["name"], "bluewaters");
    assert_eq!(
        (r["machine"]["nodes"].as_u64(), r["machine"]["ppn"].as_u64()),
        (Some(2), Some(4))
    );
    assert_eq!(r["machine"]["sockets_per_node"], 2);
    assert!(
        r["hierarchy"]["operator_complexity"].is_f64()
            && r["hierarchy"]["grid_complexity"].is_f64()
    );
    let levels = r["levels"].as_array().unwrap();
    assert_eq!(
        levels.len(),
        r["hierarchy"]["levels"].as_array().unwrap().len()
    );
    for (l, level) in levels.iter().enumerate() {
        for k in ["level", "rows", "nnz", "active_processes"] {
            assert!(level[k].is_u64(), "levels[{l}].{k}");
        }
        let ops = level["ops"].as_object().unwrap();
        let last = l + 1 == levels.len();
        assert_eq!(ops.contains_key("spgemm"), !last, "level {l}");
        let spmv = &ops["spmv"];
        for k in ["total", "max_sent", "max_recv", "inter_node"] {
            assert!(spmv["messages"][k].is_u64(), "messages.{k}");
        }
        for k in ["total", "max_sent", "inter_node"] {
            assert!(spmv["bytes"][k].is_u64(), "bytes.{k}");
        }
        assert!(spmv["byte_hops"].is_u64() && spmv["avg_hops"].is_number());
    }
    // Level 0: 1728 rows in 8 slabs of 216 = 1.5 z-planes; contiguous
    // slabs of a 7-point stencil talk to their two neighbours only.
    assert_eq!(levels[0]["ops"]["spmv"]["messages"]["max_recv"], 2);
    assert_eq!(levels[0]["ops"]["spmv"]["messages"]["total"], 14);
    assert_eq!(levels[0]["ops"]["spmv"]["bytes"]["total"], 14 * 144 * 8);
}

#[test]
fn levels_from_a_saved_hierarchy_gives_the_same_report() {
    levels_round_trip("gen:poisson3d:12");
    // PyAMG's classical interpolation divides by zero on elasticity: the
    // saved P and coarse A hold inf and NaN, which must read back.
    levels_round_trip("gen:elasticity3d:6");
}

fn levels_round_trip(input: &str) {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("levels");
    let (direct, from_dir, derived) = (
        d.path().join("a.json"),
        d.path().join("b.json"),
        d.path().join("c.json"),
    );
    let common = ["--nodes", "2", "--ppn", "4"];
    ok(&[
        "hierarchy",
        input,
        "--preset",
        "pyamg",
        "--save-levels",
        dir.to_str().unwrap(),
    ]);
    let mut args = vec![
        "analyze",
        input,
        "--preset",
        "pyamg",
        "--json",
        direct.to_str().unwrap(),
    ];
    args.extend(common);
    ok(&args);
    let mut args = vec![
        "analyze",
        "--levels-from",
        dir.to_str().unwrap(),
        "--json",
        from_dir.to_str().unwrap(),
    ];
    args.extend(common);
    ok(&args);
    assert_eq!(json(&direct)["levels"], json(&from_dir)["levels"]);
    // Without C{l}.txt the coarse points come from P's injection rows.
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "txt") {
            std::fs::remove_file(p).unwrap();
        }
    }
    let mut args = vec![
        "analyze",
        "--levels-from",
        dir.to_str().unwrap(),
        "--json",
        derived.to_str().unwrap(),
    ];
    args.extend(common);
    ok(&args);
    assert_eq!(json(&direct)["levels"], json(&derived)["levels"]);
    let saved = std::fs::read_to_string(dir.join("P0.mtx")).unwrap();
    assert_eq!(
        input.contains("elasticity"),
        saved.contains("inf") || saved.contains("NaN")
    );
}

#[test]
fn dot_files_are_written() {
    let d = tempfile::tempdir().unwrap();
    let dot = d.path().join("dot");
    ok(&[
        "analyze",
        "gen:poisson2d:20",
        "--nodes",
        "2",
        "--ppn",
        "2",
        "--dot",
        dot.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(dot.join("level0_spmv.dot")).unwrap();
    assert!(text.starts_with("digraph"), "{text}");
    assert!(text.contains("rank 1 (node 0)") && text.contains("style=bold"));
    assert!(dot.join("level0_ptap.dot").exists());
}

#[test]
fn bad_input_is_one_clear_line() {
    let d = tempfile::tempdir().unwrap();
    let part = d.path().join("p.part");
    std::fs::write(&part, "0\n1\n").unwrap();
    let p = part.to_str().unwrap();
    fails(
        &[
            "analyze",
            "gen:poisson2d:4",
            "--nodes",
            "1",
            "--ppn",
            "2",
            "--partition",
            p,
        ],
        &[p, "2 owners for a matrix of 16 rows"],
    );
    std::fs::write(&part, "0\n".repeat(15) + "7\n").unwrap();
    fails(
        &[
            "analyze",
            "gen:poisson2d:4",
            "--nodes",
            "1",
            "--ppn",
            "2",
            "--partition",
            p,
        ],
        &["line 16", "owner 7 is out of range"],
    );
    fails(
        &["analyze", "gen:poisson2d:4", "--nodes", "0"],
        &["--nodes must be at least 1"],
    );
    fails(
        &["analyze", "gen:poisson2d:4", "--ppn", "3"],
        &["--ppn 3", "not divisible by the 2 sockets"],
    );
    fails(
        &["analyze", "gen:poisson2d:4", "--machine", "nowhere.json"],
        &["nowhere.json", "no such file"],
    );
    fails(&["analyze"], &["required"]);
    // A levels directory with a missing, then a mis-sized P.
    let dir = d.path().join("levels");
    ok(&[
        "hierarchy",
        "gen:poisson3d:8",
        "--preset",
        "pyamg",
        "--save-levels",
        dir.to_str().unwrap(),
    ]);
    let lv = dir.to_str().unwrap();
    std::fs::rename(dir.join("P1.mtx"), d.path().join("P1.mtx")).unwrap();
    fails(
        &["analyze", "--levels-from", lv],
        &["P1.mtx", "missing, but A2.mtx exists"],
    );
    std::fs::copy(dir.join("P0.mtx"), dir.join("P1.mtx")).unwrap();
    fails(&["analyze", "--levels-from", lv], &["P1.mtx", "but A1 has"]);
    std::fs::rename(d.path().join("P1.mtx"), dir.join("P1.mtx")).unwrap();
    // No C file and a P without injection rows (aggregation's): each
    // coarse point is the row weighing most in its column, and it runs.
    std::fs::remove_file(dir.join("C0.txt")).unwrap();
    let p0 = amgcomm::matrix::io::read(&dir.join("P0.mtx")).unwrap().csr;
    let write_p0 = |p: &amgcomm::matrix::Csr| {
        amgcomm::matrix::io::write(
            &dir.join("P0.mtx"),
            p,
            amgcomm::matrix::Symmetry::General,
            "",
        )
        .unwrap()
    };
    write_p0(&p0.map(|v| 2.0 * v));
    ok(&[
        "analyze",
        "--levels-from",
        lv,
        "--out",
        d.path().join("r").to_str().unwrap(),
    ]);
    // A coarse column nothing interpolates from has no point: say which.
    let mut t = sprs::TriMatI::<f64, u32>::new((p0.rows(), p0.cols()));
    for (v, (i, j)) in p0.iter() {
        if j != 3 {
            t.add_triplet(i as usize, j as usize, *v);
        }
    }
    write_p0(&t.to_csr());
    fails(
        &["analyze", "--levels-from", lv],
        &["P0.mtx", "coarse column 3 is empty"],
    );
    fails(
        &[
            "analyze",
            "--levels-from",
            d.path().join("nothing").to_str().unwrap(),
        ],
        &["not a directory"],
    );
}

/// Without `--advice`, the terminal's last line names, per operation, the
/// level that costs most and its dominant term (the report's `cost`
/// columns, found here from the JSON), and says how to see what would
/// cut it; with `--advice` it is not printed (issue 30).
#[test]
fn the_table_ends_with_where_the_time_goes() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    let args = ["analyze", "gen:poisson3d:16", "--nodes", "4", "--ppn", "8"];
    let mut with_out = args.to_vec();
    with_out.extend(["--out", out.to_str().unwrap()]);
    let text = ok(&with_out);
    let last = text.lines().last().unwrap();
    let r = json(&out.join("report.json"));
    let mut want = Vec::new();
    for op in ["spmv", "spgemm", "ptap"] {
        let mut best: Option<(u64, &serde_json::Value)> = None;
        for l in r["levels"].as_array().unwrap() {
            if let Some(o) = l["ops"].get(op) {
                let t = o["cost"]["total"].as_f64().unwrap();
                if best.is_none_or(|(_, b)| t > b["cost"]["total"].as_f64().unwrap()) {
                    best = Some((l["level"].as_u64().unwrap(), o));
                }
            }
        }
        let (level, o) = best.unwrap();
        let cost = &o["cost"];
        let (name, secs) = [
            ("max-rate", "max_rate"),
            ("queue search", "queue_search"),
            ("contention", "contention"),
        ]
        .iter()
        .map(|(n, k)| (*n, cost[*k].as_f64().unwrap()))
        .fold(("", f64::MIN), |b, x| if x.1 > b.1 { x } else { b });
        let share = 100.0 * secs / cost["total"].as_f64().unwrap();
        want.push(format!("{op} L{level} ({name} {share:.0}% of "));
    }
    assert!(last.starts_with("most time: "), "{last}");
    assert!(
        last.ends_with("; add --advice to see what would cut it"),
        "{last}"
    );
    for w in &want {
        assert!(last.contains(w.as_str()), "{w} not in {last}");
    }
    let mut advised = args.to_vec();
    advised.push("--advice");
    assert!(!ok(&advised).contains("most time: "));
}
