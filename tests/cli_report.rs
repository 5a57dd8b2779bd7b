//! The analyze report: costs against an independent evaluation of
//! docs/model.md, files written, usage errors.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};

use amgcomm::amg::{self, Preset};
use amgcomm::analysis::{self, Options};
use amgcomm::machine::{Locality, Machine};
use amgcomm::matrix::io;
use amgcomm::partition::{CoarseRule, Layout, Partition};

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

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-300
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

#[test]
fn routed_and_pack_terms_are_reported_beside_the_cube_estimate() {
    let d = tempfile::tempdir().unwrap();
    let (json, out) = (d.path().join("r.json"), d.path().join("out"));
    let (r, table) = report_with(
        d.path(),
        "bluewaters",
        "nodeaware+queue+contention+logpc+routed+pack",
    );
    assert_eq!(r["model"], "nodeaware+queue+contention+logpc+routed+pack");
    let delta = 1.0e-10; // docs/model.md, Blue Waters
    let mut loaded = 0;
    for l in r["levels"].as_array().unwrap() {
        for (op, o) in l["ops"].as_object().unwrap() {
            let c = &o["cost"];
            let (routed, links) = (
                c["routed"].as_f64().unwrap(),
                c["max_link_bytes"].as_u64().unwrap(),
            );
            assert!(
                (routed - delta * links as f64).abs() <= 1e-12 * routed.max(1e-30),
                "{op}"
            );
            let sum: f64 = [
                "max_rate",
                "queue_search",
                "contention",
                "logpc",
                "routed",
                "pack",
            ]
            .iter()
            .map(|k| c[*k].as_f64().unwrap())
            .sum();
            assert!(
                (sum - c["total"].as_f64().unwrap()).abs() <= 1e-12 * sum,
                "{op}"
            );
            // One link carries at most all the network bytes, and at least
            // an even share of the byte-hops over the 2 x 2 x 1 box's 8
            // directed links.
            let net = o["bytes"]["inter_node"].as_u64().unwrap();
            let byte_hops = o["byte_hops"].as_u64().unwrap();
            assert!(
                links <= net && 8 * links >= byte_hops,
                "{op}: {links} {net} {byte_hops}"
            );
            loaded += (links > 0) as usize;
        }
    }
    assert!(loaded > 0);
    let csv = std::fs::read_to_string(out.join("levels.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",contention,logpc,routed,pack,total"));
    assert!(table.contains("routed"));
    // Without the terms, nothing about them is written.
    report_with(d.path(), "bluewaters", "nodeaware+queue+contention");
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(!text.contains("routed") && !text.contains("max_link_bytes"));
    assert!(!text.contains("\"pack\"") && !text.contains("logpc"));
}

/// A machine file: Blue Waters with `edit` applied to its JSON.
fn machine_file(dir: &Path, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = serde_json::to_value(Machine::bluewaters()).unwrap();
    edit(&mut v);
    let f = dir.join(name);
    std::fs::write(&f, v.to_string()).unwrap();
    f.to_str().unwrap().to_string()
}

fn report_with(dir: &Path, machine: &str, model: &str) -> (serde_json::Value, String) {
    let (json, out) = (dir.join("r.json"), dir.join("out"));
    let o = amgcomm(&[
        "analyze",
        "gen:poisson3d:16",
        "--machine",
        machine,
        "--nodes",
        "8",
        "--ppn",
        "4",
        "--model",
        model,
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (r, String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The T3D's copy-transfer rates (Stricker and Gross), `scale` times.
fn t3d_rates(p: &mut serde_json::Value, scale: f64) {
    p["copy_transfer"] = serde_json::json!({
        "1C1": 93e6 * scale, "wC1": 32.9e6 * scale, "1S0": 126e6 * scale,
        "wS0": 32e6 * scale, "0D1": 142e6 * scale,
        "congestion": [1, 2, 4],
        "network_data": [142e6 * scale, 69e6 * scale, 35e6 * scale]
    });
    // On a node the transfer is a copy at the locality's rendezvous R_b.
    for loc in ["socket", "node"] {
        let r = p[loc]["rend"]["rate"].as_f64().unwrap();
        p[loc]["rend"]["rate"] = (r * scale).into();
    }
}

#[test]
fn copy_transfer_reports_both_strategies_from_the_machine_file() {
    let d = tempfile::tempdir().unwrap();
    let t3d = machine_file(d.path(), "t3d.json", |v| t3d_rates(&mut v["params"], 1.0));
    let fast = machine_file(d.path(), "fast.json", |v| t3d_rates(&mut v["params"], 2.0));
    let (r, table) = report_with(d.path(), &t3d, "copytransfer+queue");
    let (r2, _) = report_with(d.path(), &fast, "copytransfer+queue");
    assert_eq!(r["model"], "copytransfer+queue");
    let mut levels = 0;
    for (l, l2) in r["levels"]
        .as_array()
        .unwrap()
        .iter()
        .zip(r2["levels"].as_array().unwrap())
    {
        for (op, o) in l["ops"].as_object().unwrap() {
            let c = &o["cost"];
            let ct = &c["copy_transfer"];
            let (packing, chained) = (
                ct["packing"].as_f64().unwrap(),
                ct["chained"].as_f64().unwrap(),
            );
            let cheaper = if packing <= chained {
                "packing"
            } else {
                "chained"
            };
            assert_eq!(ct["cheaper"], cheaper, "{op}");
            assert_eq!(c["max_rate"].as_f64().unwrap(), packing.min(chained));
            assert!(close(
                c["total"].as_f64().unwrap(),
                packing.min(chained) + c["queue_search"].as_f64().unwrap()
            ));
            // Every throughput doubled: both strategies take half the time.
            let ct2 = &l2["ops"][op]["cost"]["copy_transfer"];
            assert!(
                close(ct2["packing"].as_f64().unwrap(), packing / 2.0),
                "{op}"
            );
            assert!(
                close(ct2["chained"].as_f64().unwrap(), chained / 2.0),
                "{op}"
            );
            // The busiest sender moves its bytes no faster than 6.2e9 B/s
            // (an on-node copy); packing copies them twice more at 93e6.
            let max_sent = o["bytes"]["max_sent"].as_f64().unwrap();
            if max_sent > 0.0 {
                assert!(chained >= max_sent / 6.2e9, "{op}");
                assert!(packing >= 2.0 * max_sent / 93e6, "{op}");
            }
            levels += 1;
        }
    }
    assert!(levels > 3);
    assert!(table.contains("copy-transfer") && table.contains("cheaper"));
    let csv = std::fs::read_to_string(d.path().join("out/levels.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",contention,copy_packing,copy_chained,copy_cheaper,total"));
}

#[test]
fn loggp_parameters_from_the_machine_file() {
    // Only G is non-zero: a rank costs G per byte of its messages but one.
    let d = tempfile::tempdir().unwrap();
    let f = machine_file(d.path(), "g.json", |v| {
        v["params"]["loggp"] =
            serde_json::json!({"l": 0.0, "o_s": 0.0, "o_r": 0.0, "g": 0.0, "big_g": 1e-9});
    });
    let (r, _) = report_with(d.path(), &f, "loggp");
    for l in r["levels"].as_array().unwrap() {
        for (op, o) in l["ops"].as_object().unwrap() {
            let t = o["cost"]["max_rate"].as_f64().unwrap();
            let bytes = o["bytes"]["max_sent"].as_f64().unwrap();
            let count = o["messages"]["max_sent"].as_f64().unwrap();
            assert!(t <= bytes * 1e-9 * (1.0 + 1e-12), "{op}");
            assert!(t >= (bytes - count) * 1e-9 * (1.0 - 1e-12), "{op}");
        }
    }
}

#[test]
fn inconsistent_classic_parameters_are_one_line_errors() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("out");
    let bad = [
        (
            "table.json",
            serde_json::json!({"bytes": [64, 1024], "runs": [2], "seconds": [[1e-6]]}),
            "pack_table",
            "params.pack_table: seconds must have 2 rows",
        ),
        (
            "copy.json",
            serde_json::json!({"1C1": 1e9, "wC1": 1e8, "1S0": 1e9, "wS0": 1e8, "0D1": 1e9,
                               "congestion": [1, 2], "network_data": [1e9]}),
            "copy_transfer",
            "params.copy_transfer: network_data must give one rate per congestion level",
        ),
        (
            "loggp.json",
            serde_json::json!({"l": -1.0, "o_s": 0.0, "o_r": 0.0, "g": 0.0, "big_g": 1e-9}),
            "loggp",
            "params.loggp.l is -1; a time must lie in [0, 1] seconds",
        ),
    ];
    for (name, block, key, needle) in bad {
        let f = machine_file(d.path(), name, |v| v["params"][key] = block);
        usage_error(
            &[
                "analyze",
                "gen:poisson3d:4",
                "--machine",
                &f,
                "--out",
                o.to_str().unwrap(),
            ],
            needle,
        );
    }
    assert!(!o.exists());
}

#[test]
fn calibrated_pack_table_feeds_the_pack_term() {
    let d = tempfile::tempdir().unwrap();
    let o = amgcomm(&["machine", "calibrate-pack", "--source-bytes", "1048576"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut m: Machine = serde_json::from_slice(&o.stdout).unwrap();
    let t = m.params.pack_table.take().unwrap();
    assert_eq!(m, Machine::bluewaters());
    assert_eq!((t.bytes.len(), t.runs.len()), (7, 7));
    assert!(t.seconds.iter().all(|row| row.len() == 7));
    assert!(t
        .seconds
        .iter()
        .flatten()
        .all(|x| x.is_finite() && *x >= 0.0));
    let f = d.path().join("measured.json");
    std::fs::write(&f, &o.stdout).unwrap();
    let show = amgcomm(&["machine", "show", f.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&show.stdout).contains("pack: log3P table, 7 sizes x 7 runs"));
    let (r, _) = report_with(d.path(), f.to_str().unwrap(), "nodeaware+pack");
    let packs: Vec<f64> = r["levels"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["ops"].as_object().unwrap().values())
        .map(|o| o["cost"]["pack"].as_f64().unwrap())
        .collect();
    assert!(packs.iter().all(|p| p.is_finite() && *p >= 0.0));
    assert!(packs.iter().any(|p| *p > 0.0));
}
