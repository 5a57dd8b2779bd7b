//! The analyze report: costs against an independent evaluation of
//! docs/model.md, files written, usage errors, the node-aware steps, the
//! timings. The classic models' terms from a machine file are
//! `tests/cli_models.rs`.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

use amgcomm::amg::{self, Preset};
use amgcomm::analysis::{self, Options};
use amgcomm::machine::{Locality, Machine};
use amgcomm::matrix::io;
use amgcomm::partition::{CoarseRule, Layout, Partition};

mod common;

use common::close;

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// docs/model.md's costs written out directly from the message list: Table 1
/// values typed in again, per-rank sums in hash maps.
fn model_md(
    messages: &[(u32, u32, u64, Locality, u32)],
    nodes: usize,
    ppn: usize,
) -> (f64, f64, f64) {
    let table = |loc: Locality, s: u64| -> (f64, f64) {
        let k = if s < 500 {
            0
        } else if s < 8000 {
            1
        } else {
            2
        };
        let rows = match loc {
            Locality::SOCKET => [(4.4e-07, 2.2e09), (5.3e-07, 3.2e09), (1.7e-06, 6.2e09)],
            Locality::NODE => [(8.3e-07, 4.8e08), (1.2e-06, 9.6e08), (2.5e-06, 6.2e09)],
            Locality::NETWORK => [(2.3e-06, 1.3e09), (7.0e-06, 7.5e08), (3.0e-06, 2.9e09)],
            other => panic!("Blue Waters has three classes, not {other:?}"),
        };
        rows[k]
    };
    let mut active: HashMap<usize, std::collections::HashSet<u32>> = HashMap::new();
    for &(f, _, _, loc, _) in messages {
        if loc == Locality::NETWORK {
            active.entry(f as usize / ppn).or_default().insert(f);
        }
    }
    let mut send: HashMap<u32, f64> = HashMap::new();
    let mut recv: HashMap<u32, f64> = HashMap::new();
    let (mut b, mut bh) = (0.0, 0.0);
    for &(f, t, s, loc, hops) in messages {
        let (alpha, rb) = table(loc, s);
        let time = if loc == Locality::NETWORK {
            let a = active[&(f as usize / ppn)].len() as f64;
            let rn = if s >= 8000 { 6.6e9 } else { f64::INFINITY };
            b += s as f64;
            bh += (s * hops as u64) as f64;
            alpha + a * s as f64 / rn.min(a * rb)
        } else {
            alpha + s as f64 / rb
        };
        *send.entry(f).or_default() += time;
        *recv.entry(t).or_default() += 1.0;
    }
    let max_rate = send.values().copied().fold(0.0, f64::max);
    let n = recv.values().copied().fold(0.0, f64::max);
    let h = if b > 0.0 { bh / b } else { 0.0 };
    let routers = nodes.div_ceil(2) as f64;
    (max_rate, 8.4e-09 * n * n, 1.0e-10 * h * h * h * b / routers)
}

#[test]
fn beam_report_costs_agree_with_an_independent_evaluation() {
    let d = tempfile::tempdir().unwrap();
    let (json, out) = (d.path().join("out.json"), d.path().join("report"));
    let o = amgcomm(&[
        "analyze",
        "tests/data/reference/beam_tet_2k.mtx.gz",
        "--nodes",
        "16",
        "--ppn",
        "16",
        "--preset",
        "pyamg",
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The terminal table ends each operation with its total row.
    let table = String::from_utf8_lossy(&o.stdout);
    assert_eq!(table.lines().filter(|l| l.starts_with("total ")).count(), 3);
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(
        r,
        serde_json::from_str::<serde_json::Value>(
            &std::fs::read_to_string(out.join("report.json")).unwrap()
        )
        .unwrap()
    );
    assert_eq!(r["model"], "nodeaware+queue+contention");

    // The same hierarchy and patterns in process.
    let a = io::read(Path::new("tests/data/reference/beam_tet_2k.mtx.gz"))
        .unwrap()
        .csr;
    let h = amg::build(&a, &Preset::Pyamg.options(), &mut |_, _| {}).unwrap();
    let m = Machine {
        nodes: 16,
        ppn: 16,
        ..Machine::bluewaters()
    };
    let layout = Layout::new(
        &h,
        Partition::contiguous(a.rows(), m.ranks()),
        CoarseRule::Inherit,
    );
    let o = Options {
        keep_patterns: true,
        ..Options::default()
    };
    let levels = analysis::analyze(&h, &layout, &m, &o).unwrap().levels;
    let report_levels = r["levels"].as_array().unwrap();
    assert_eq!(report_levels.len(), 5);
    let places = m.places();
    let mut checked = 0;
    for (l, level) in levels.iter().enumerate() {
        for (_, pat) in level.ops.iter().flat_map(|o| &o.patterns) {
            let msgs: Vec<_> = pat
                .messages
                .iter()
                .map(|x| {
                    let (f, t) = (x.from, x.to);
                    (f, t, x.bytes, places.locality(f, t), places.hops(f, t))
                })
                .collect();
            let (rate, queue, cont) = model_md(&msgs, 16, 16);
            let c = &report_levels[l]["ops"][pat.op.name()]["cost"];
            let got = |k: &str| c[k].as_f64().unwrap();
            assert!(
                close(got("max_rate"), rate),
                "level {l} {:?}: {} vs {rate}",
                pat.op,
                got("max_rate")
            );
            assert!(close(got("queue_search"), queue), "level {l} {:?}", pat.op);
            assert!(close(got("contention"), cont), "level {l} {:?}", pat.op);
            assert!(close(got("total"), rate + queue + cont));
            assert!(rate > 0.0);
            checked += 1;
        }
    }
    assert_eq!(checked, 5 + 4 + 4);
    // Totals: each term and the total summed over the levels, in level
    // order (so bit for bit), and close to the independent evaluation's.
    let mut independent = std::collections::HashMap::new();
    for level in &levels {
        for (_, pat) in level.ops.iter().flat_map(|o| &o.patterns) {
            let msgs: Vec<_> = (pat.messages.iter())
                .map(|x| {
                    let (f, t) = (x.from, x.to);
                    (f, t, x.bytes, places.locality(f, t), places.hops(f, t))
                })
                .collect();
            let (rate, queue, cont) = model_md(&msgs, 16, 16);
            *independent.entry(pat.op.name()).or_insert(0.0) += rate + queue + cont;
        }
    }
    for op in ["spmv", "spgemm", "ptap"] {
        let t = &r["totals"][op];
        for key in ["max_rate", "queue_search", "contention", "total"] {
            let sum = (report_levels.iter())
                .filter_map(|l| l["ops"][op]["cost"][key].as_f64())
                .fold(None, |s: Option<f64>, x| Some(s.map_or(x, |s| s + x)))
                .unwrap();
            assert_eq!(t[key].as_f64().unwrap(), sum, "{op} {key}");
        }
        assert!(close(t["total"].as_f64().unwrap(), independent[op]), "{op}");
    }
    // levels.csv: a header, one row per level and operation, and a total
    // row per operation with the same sums.
    let csv = std::fs::read_to_string(out.join("levels.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 13 + 3);
    for (line, op) in csv.lines().skip(1 + 13).zip(["spmv", "spgemm", "ptap"]) {
        assert!(line.starts_with(&format!("total,{op},,")), "{line}");
        let last: f64 = line.rsplit(',').next().unwrap().parse().unwrap();
        assert_eq!(last, r["totals"][op]["total"].as_f64().unwrap());
    }
    assert!(csv.starts_with("level,op,rows,nnz,active_processes,"));
    for f in ["spmv", "spgemm", "ptap", "messages"] {
        for ext in ["png", "svg"] {
            let p = out.join(format!("{f}.{ext}"));
            assert!(
                std::fs::metadata(&p).unwrap().len() > 5000,
                "{}",
                p.display()
            );
        }
    }
}

fn usage_error(args: &[&str], needle: &str) {
    let o = amgcomm(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "'{needle}' not in {err}");
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    let o = out.to_str().unwrap();
    usage_error(
        &["analyze", "gen:poisson3d:4", "--model", "logp", "--out", o],
        "unknown model term 'logp'",
    );
    usage_error(
        &[
            "analyze",
            "gen:poisson3d:4",
            "--model",
            "postal+maxrate",
            "--out",
            o,
        ],
        "two rate terms",
    );
    usage_error(
        &[
            "analyze",
            "gen:poisson3d:4",
            "--preset",
            "boomer",
            "--out",
            o,
        ],
        "invalid value 'boomer' for '--preset <PRESET>'",
    );
    usage_error(
        &["analyze", "gen:poisson3d:4", "--nodez", "4"],
        "unexpected argument '--nodez'",
    );
    let file = d.path().join("a-file");
    std::fs::write(&file, "mine").unwrap();
    let under = file.join("report");
    usage_error(
        &[
            "analyze",
            "gen:poisson3d:4",
            "--out",
            under.to_str().unwrap(),
        ],
        "--out",
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    usage_error(
        &["analyze", "gen:poisson3d:4", "--nodes", "0", "--out", o],
        "--nodes must be at least 1",
    );
}

#[test]
fn machine_show_json_round_trips_through_machine_file() {
    let o = amgcomm(&["machine", "show", "bluewaters", "--json"]);
    assert!(o.status.success());
    let m: Machine = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(m, Machine::bluewaters());
    assert_eq!(m.params.network().rend.rate, 2.9e9);
    let d = tempfile::tempdir().unwrap();
    let mut edited = serde_json::to_value(&m).unwrap();
    edited["name"] = "slow".into();
    edited["params"]["gamma"] = 1e-6.into();
    let f = d.path().join("slow.json");
    std::fs::write(&f, edited.to_string()).unwrap();
    let text =
        String::from_utf8(amgcomm(&["machine", "show", f.to_str().unwrap()]).stdout).unwrap();
    assert!(
        text.contains("slow: 512 nodes x 16 ppn") && text.contains("gamma = 1.0e-6"),
        "{text}"
    );
    // The edited gamma reaches the queue-search term.
    let json = d.path().join("r.json");
    let run = amgcomm(&[
        "analyze",
        "gen:poisson3d:10",
        "--machine",
        f.to_str().unwrap(),
        "--nodes",
        "1",
        "--ppn",
        "4",
        "--json",
        json.to_str().unwrap(),
        "--out",
        d.path().join("out").to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let spmv = &r["levels"][0]["ops"]["spmv"];
    let n = spmv["messages"]["max_recv"].as_f64().unwrap();
    assert!(close(
        spmv["cost"]["queue_search"].as_f64().unwrap(),
        1e-6 * n * n
    ));
}

#[test]
fn node_aware_strategy_reports_its_steps() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let o = amgcomm(&[
        "analyze",
        "gen:poisson3d:16",
        "--permute",
        "2",
        "--nodes",
        "4",
        "--ppn",
        "8",
        "--strategy",
        "node-aware-3",
        "--json",
        json.to_str().unwrap(),
        "--out",
        d.path().join("out").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("node-aware-3"));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["strategy"], "node-aware-3");
    for level in r["levels"].as_array().unwrap() {
        for op in ["spmv", "spgemm"] {
            let Some(o) = level["ops"].get(op) else {
                continue;
            };
            let steps = o["steps"].as_array().unwrap();
            let names: Vec<&str> = steps.iter().map(|s| s["name"].as_str().unwrap()).collect();
            assert_eq!(names, ["on-node", "gather", "inter-node", "scatter"]);
            let sum: f64 = steps
                .iter()
                .map(|s| s["cost"]["total"].as_f64().unwrap())
                .sum();
            assert!(close(o["cost"]["total"].as_f64().unwrap(), sum));
            let messages: u64 = steps
                .iter()
                .map(|s| s["messages"]["total"].as_u64().unwrap())
                .sum();
            assert_eq!(o["messages"]["total"].as_u64().unwrap(), messages);
            // Only the inter-node step crosses the network, once per node pair at most.
            assert!(o["messages"]["inter_node"].as_u64().unwrap() <= 4 * 3);
            assert_eq!(
                steps[2]["messages"]["inter_node"],
                o["messages"]["inter_node"]
            );
        }
        assert!(level["ops"]["spmv"]["steps"].is_array());
    }
    let bad = amgcomm(&["analyze", "gen:poisson3d:4", "--strategy", "teleport"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn timings_on_request_only() {
    let d = tempfile::tempdir().unwrap();
    let (a, b) = (d.path().join("a.json"), d.path().join("b.json"));
    let out = d.path().join("out");
    let o = amgcomm(&[
        "analyze",
        "gen:poisson3d:10",
        "--nodes",
        "2",
        "--timings",
        "--json",
        a.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("timings: input") && err.contains("extraction"),
        "{err}"
    );
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    let t = r["timings"].as_object().unwrap();
    for stage in [
        "input",
        "hierarchy",
        "partition",
        "extraction",
        "model",
        "charts and csv",
    ] {
        assert!(t[stage].as_f64().unwrap() >= 0.0, "{stage}");
    }
    // The setup's steps, which add up to no more than the hierarchy stage.
    let steps: f64 = ["strength", "coarsening", "interpolation", "rap"]
        .iter()
        .map(|s| t[&format!("hierarchy.{s}")].as_f64().unwrap())
        .sum();
    assert!(
        steps > 0.0 && steps <= t["hierarchy"].as_f64().unwrap(),
        "{t:?}"
    );
    assert!(err.contains("(strength "), "{err}");
    // Per level, the same steps: each step's levels add up to its total.
    assert!(t.contains_key("hierarchy.level.0.rap"), "{t:?}");
    for s in ["strength", "coarsening", "interpolation", "rap", "gather"] {
        let suffix = format!(".{s}");
        let per_level: f64 = (t.iter())
            .filter(|(k, _)| k.starts_with("hierarchy.level.") && k.ends_with(&suffix))
            .map(|(_, v)| v.as_f64().unwrap())
            .sum();
        let total = t[&format!("hierarchy.{s}")].as_f64().unwrap();
        assert!(
            (per_level - total).abs() <= 1e-9 * total.max(1e-3),
            "{s}: levels {per_level} against {total}"
        );
    }
    let o = amgcomm(&[
        "analyze",
        "gen:poisson3d:10",
        "--nodes",
        "2",
        "--json",
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    assert!(r.get("timings").is_none());
}
