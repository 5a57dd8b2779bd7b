//! The classic models' terms driven from a machine file, through
//! analyze's report: the routed and pack terms beside the cube estimate,
//! copy-transfer's two strategies, LogGP's parameters, inconsistent
//! parameters refused in one line, a calibrated pack table feeding the
//! pack term.

mod common;

use std::path::Path;
use std::process::Output;

use amgcomm::machine::Machine;

use common::{close, refused};

/// `amgcomm args` in the repository's folder.
fn amgcomm(args: &[&str]) -> Output {
    common::amgcomm(Path::new("."), args)
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
        let run = amgcomm(&[
            "analyze",
            "gen:poisson3d:4",
            "--machine",
            &f,
            "--out",
            o.to_str().unwrap(),
        ]);
        refused(&run, 2, &[needle]);
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
