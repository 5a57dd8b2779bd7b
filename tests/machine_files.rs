//! Machine files and today's machines driving the commands (issues 27,
//! 36): each network of a machine file through analyze and compare,
//! malformed networks refused before the input, the GPU sections and
//! memcpy files read or refused in one line, GPU requests that cannot be
//! refused as usage errors, every preset through every command, a
//! measured serial receive charged on `aa`. The presets' fits and the
//! BenchPress readers are `tests/presets.rs`.

mod common;

use std::path::Path;

use common::{amgcomm, refused};

use amgcomm::machine::presets;

/// A machine file with each network drives analyze and compare; the
/// report's machine object and header name the network and its size.
#[test]
fn machine_files_with_each_network_drive_analyze_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let networks = [
        (
            "torus3d",
            r#"{"kind": "torus3d", "nodes_per_switch": 2, "dims": [2, 2, 2]}"#,
            "torus3d [2, 2, 2]",
        ),
        (
            "dragonfly",
            r#"{"kind": "dragonfly", "nodes_per_switch": 1, "switches_per_group": 2, "links_between_groups": 1, "groups": 6, "routing": "adaptive"}"#,
            "dragonfly, 6 groups x 2 switches",
        ),
        (
            "fattree",
            r#"{"kind": "fattree", "nodes_per_switch": 2, "fanout": [2], "taper": [2, 1], "switches": 8}"#,
            "fattree, 8 leaf switches of 2 nodes",
        ),
    ];
    for (kind, network, header) in networks {
        let file = dir.path().join(format!("{kind}.json"));
        std::fs::write(
            &file,
            format!(r#"{{"name": "{kind}", "nodes": 8, "ppn": 4, "sockets_per_node": 2, "network": {network}}}"#),
        )
        .unwrap();
        let out = format!("r-{kind}");
        let o = amgcomm(
            dir.path(),
            &[
                "analyze",
                "gen:poisson2d:40",
                "--machine",
                file.to_str().unwrap(),
                "--nodes",
                "6",
                "--out",
                &out,
            ],
        );
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{kind}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(text.contains(header), "{kind}: {text}");
        let report: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.path().join(&out).join("report.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(report["machine"]["network"]["kind"], kind);
        assert!(
            report["machine"]["network"]["switches"].as_u64().unwrap() >= 3,
            "{kind}"
        );
        let level0 = &report["levels"][0]["ops"]["spmv"];
        assert!(
            level0["cost"]["contention"].as_f64().unwrap() > 0.0,
            "{kind}: {level0}"
        );
        // Scattered over the whole machine and packed, side by side.
        let o = amgcomm(
            dir.path(),
            &[
                "compare",
                "gen:poisson2d:40",
                "--machine",
                file.to_str().unwrap(),
                "--nodes",
                "6",
                "--variants",
                "allocation=contiguous;allocation=random:3",
                "--out",
                &format!("c-{kind}"),
            ],
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{kind}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(String::from_utf8_lossy(&o.stdout).contains("allocation=random:3"));
    }
}

/// A malformed network object is one line, exit 2, before any input is
/// read (the input named here does not exist).
#[test]
fn malformed_networks_are_refused_before_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.json");
    for (network, needle) in [
        (
            r#"{"kind": "hypercube", "nodes_per_switch": 1}"#,
            "\"hypercube\" is not a network (networks: box3d, torus3d, dragonfly, fattree)",
        ),
        (
            r#"{"kind": "dragonfly", "nodes_per_switch": 1, "switches_per_group": 0, "links_between_groups": 1}"#,
            "switches_per_group must be a whole number from 1",
        ),
        (
            r#"{"kind": "torus3d", "nodes_per_switch": 1, "dims": [2, 2, 1]}"#,
            "8 nodes do not fit the torus3d machine's 4 nodes",
        ),
        (
            r#"{"kind": "fattree", "nodes_per_switch": 2, "fanout": [0]}"#,
            "fanout must hold whole numbers from 1",
        ),
        (
            r#"{"kind": "fattree", "nodes_per_switch": 2, "fanout": [2], "taper": [0.5, 1]}"#,
            "taper must list 2 numbers from 1",
        ),
        (
            r#"{"kind": "torus3d", "nodes_per_switch": 1, "dims": [2, 2, 2], "wrap": false}"#,
            "unknown field `wrap` in network (fields: kind, nodes_per_switch, dims)",
        ),
    ] {
        std::fs::write(
            &file,
            format!(r#"{{"name": "m", "nodes": 8, "ppn": 2, "sockets_per_node": 1, "network": {network}}}"#),
        )
        .unwrap();
        let o = amgcomm(
            dir.path(),
            &["analyze", "missing.mtx", "--machine", "m.json"],
        );
        refused(&o, 2, &[needle]);
    }
    // A random allocation on Blue Waters' box, which names no machine.
    let o = amgcomm(
        dir.path(),
        &["analyze", "missing.mtx", "--allocation", "random"],
    );
    refused(
        &o,
        2,
        &["allocation random: the box3d network does not name the whole machine"],
    );
    // Frontier holds 9472 nodes.
    let o = amgcomm(
        dir.path(),
        &[
            "analyze",
            "missing.mtx",
            "--machine",
            "frontier",
            "--nodes",
            "9473",
        ],
    );
    refused(
        &o,
        2,
        &["9473 nodes do not fit the dragonfly machine's 9472 nodes"],
    );
}

/// The GPU readers (a ping-pong's GPU section, a memcpy output) against
/// the same hostile files as the CPU's: each one line, exit 1, naming
/// the file, through `machine fit`.
#[test]
fn hostile_gpu_sections_and_memcpy_files_are_one_line() {
    let row = |head: String| {
        let v: Vec<String> = (0..18)
            .map(|i| format!("{:e}", 1e-6 * (1 + i) as f64))
            .collect();
        format!("{head}\t{}\n", v.join("\t"))
    };
    let cpu = format!(
        "Profiling Standard CPU Ping-Pongs:\n{}{}",
        row("CPU 0 and CPU 1:".into()),
        row("CPU 0 and CPU 8:".into())
    );
    let gpu_head = "Profiling GPU Ping-Pongs\n";
    let gpu_good = format!(
        "{gpu_head}{}{}",
        row("GPU on rank 0 and GPU on rank 1:".into()),
        row("GPU on rank 0 and GPU on rank 8:".into())
    );
    let memcpy_good = format!(
        "Memcpy Host To Device:\nNum GPUs 8\n{}\nMemcpy Device To Host:\nNum GPUs 8\n{}",
        row("CPU 0, GPU 0:".into()),
        row("CPU 0, GPU 0:".into())
    );
    let hostile = |head: &str, good: &str| -> Vec<(String, Vec<u8>, String)> {
        let first = good.lines().find(|l| l.contains('\t')).unwrap().to_string();
        vec![
            (
                "empty".into(),
                Vec::new(),
                format!("no '{}", head.trim_end_matches(':')),
            ),
            (
                "binary".into(),
                vec![0xff, 0x00, 0x13, 0x37],
                "not valid text".into(),
            ),
            (
                "cut row".into(),
                format!(
                    "{head}\n{}\t1e-6\t2e-6\n",
                    first.split('\t').next().unwrap()
                )
                .into_bytes(),
                "2 times, 18 expected".into(),
            ),
            (
                "word".into(),
                good.replacen("2e-6", "fast", 1).into_bytes(),
                "'fast' is not a time".into(),
            ),
            (
                "nan".into(),
                good.replacen("2e-6", "NaN", 1).into_bytes(),
                "'NaN' is not a time".into(),
            ),
            (
                "huge".into(),
                good.replacen("2e-6", "1e300", 1).into_bytes(),
                "'1e300' is not a time".into(),
            ),
        ]
    };
    let dir = tempfile::tempdir().unwrap();
    // The GPU section of the ping-pongs.
    for (what, bytes, needle) in hostile("Profiling GPU Ping-Pongs", &gpu_good) {
        let folder = dir.path().join(format!("gpu_{}", what.replace(' ', "_")));
        std::fs::create_dir(&folder).unwrap();
        let mut text = cpu.clone().into_bytes();
        if what == "binary" {
            text = bytes.clone();
        } else {
            text.extend(&bytes);
        }
        for f in ["ping_pong.0.out", "ping_pong.2.out"] {
            std::fs::write(folder.join(f), &text).unwrap();
        }
        std::fs::write(folder.join("memcpy.out"), &memcpy_good).unwrap();
        let o = amgcomm(
            dir.path(),
            &["machine", "fit", "frontier", folder.to_str().unwrap()],
        );
        refused(&o, 1, &["ping_pong.0.out", &needle]);
    }
    let pp = format!("{cpu}{gpu_good}");
    let pair = format!("{}no pair", "");
    let mut memcpy_cases = hostile("Memcpy Host To Device:", &memcpy_good);
    memcpy_cases.push((
        pair,
        b"Memcpy Host To Device:\nCPU zero, GPU 0:\t1e-6\n".to_vec(),
        "not 'CPU p, GPU g:'".into(),
    ));
    for (what, bytes, needle) in memcpy_cases {
        let folder = dir
            .path()
            .join(format!("memcpy_{}", what.replace(' ', "_")));
        std::fs::create_dir(&folder).unwrap();
        for f in ["ping_pong.0.out", "ping_pong.2.out"] {
            std::fs::write(folder.join(f), &pp).unwrap();
        }
        std::fs::write(folder.join("memcpy.out"), &bytes).unwrap();
        let o = amgcomm(
            dir.path(),
            &["machine", "fit", "frontier", folder.to_str().unwrap()],
        );
        refused(&o, 1, &["memcpy.out", &needle]);
    }
    // A missing memcpy file and one too large.
    let folder = dir.path().join("no_memcpy");
    std::fs::create_dir(&folder).unwrap();
    for f in ["ping_pong.0.out", "ping_pong.2.out"] {
        std::fs::write(folder.join(f), &pp).unwrap();
    }
    let o = amgcomm(
        dir.path(),
        &["machine", "fit", "frontier", folder.to_str().unwrap()],
    );
    refused(&o, 1, &["memcpy.out", "no such file"]);
    let f = std::fs::File::create(folder.join("memcpy.out")).unwrap();
    f.set_len(65 << 20).unwrap();
    let o = amgcomm(
        dir.path(),
        &["machine", "fit", "frontier", folder.to_str().unwrap()],
    );
    refused(&o, 1, &["memcpy.out", "larger than"]);
}

/// A device strategy or --ranks-per-gpu on a machine without GPUs, a
/// host strategy with the data on GPUs, --ppn beside --ranks-per-gpu:
/// one line, exit 2, before the input (which does not exist) is read.
#[test]
fn gpu_requests_that_cannot_be_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &[&str]); 5] = [
        (
            &["--strategy", "gpu-aware"],
            &["--strategy gpu-aware", "bluewaters has no GPUs"],
        ),
        (
            &["--ranks-per-gpu", "2"],
            &["--ranks-per-gpu", "has no GPUs"],
        ),
        (
            &[
                "--machine",
                "lassen",
                "--ranks-per-gpu",
                "2",
                "--strategy",
                "node-aware-3",
            ],
            &[
                "--strategy node-aware-3",
                "gpu-aware, staged, staged-node-aware, split",
            ],
        ),
        (
            &["--machine", "lassen", "--ranks-per-gpu", "2", "--ppn", "8"],
            &["--ppn", "drop --ppn"],
        ),
        (
            &["--machine", "lassen", "--ranks-per-gpu", "0"],
            &["--ranks-per-gpu must be from 1"],
        ),
    ];
    for (flags, needles) in cases {
        let mut args = vec!["analyze", "missing.mtx"];
        args.extend_from_slice(flags);
        let o = amgcomm(dir.path(), &args);
        refused(&o, 2, needles);
    }
}

/// The presets of today's machines (issue 40) drive analyze (CPU ranks
/// and data on the GPUs), compare and scale, with advice; `machine list`
/// shows every preset in one line each.
#[test]
fn todays_machines_drive_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for m in ["elcapitan", "aurora", "perlmutter"] {
        let out = |k: &str| d.join(format!("{m}-{k}")).to_str().unwrap().to_string();
        for (k, extra) in [
            ("cpu", vec!["--advice"]),
            (
                "gpu",
                vec![
                    "--ranks-per-gpu",
                    "2",
                    "--strategy",
                    "gpu-aware",
                    "--advice",
                ],
            ),
        ] {
            let o = out(k);
            let mut args = vec![
                "analyze",
                "gen:poisson3d:16",
                "--machine",
                m,
                "--nodes",
                "4",
            ];
            args.extend(extra);
            args.extend(["--out", &o]);
            let r = amgcomm(d, &args);
            assert!(
                r.status.success(),
                "{m} {k}: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            let report: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(Path::new(&o).join("report.json")).unwrap(),
            )
            .unwrap();
            assert_eq!(report["machine"]["name"], m);
        }
        for (k, command, flags) in [
            (
                "cmp",
                "compare",
                vec![
                    "--nodes",
                    "4",
                    "--variants",
                    "strategy=standard;strategy=node-aware-3",
                ],
            ),
            ("scale", "scale", vec!["--nodes", "2,4"]),
        ] {
            let o = out(k);
            let mut args = vec![command, "gen:poisson3d:16", "--machine", m];
            args.extend(flags);
            args.extend(["--out", &o]);
            let r = amgcomm(d, &args);
            assert!(
                r.status.success(),
                "{m} {command}: {}",
                String::from_utf8_lossy(&r.stderr)
            );
        }
    }
    // machine list: the seven presets, one line each; the JSON counts
    // every provenance line by its kind and gives each its dates.
    let r = amgcomm(d, &["machine", "list"]);
    assert!(r.status.success());
    let text = String::from_utf8(r.stdout).unwrap();
    assert_eq!(text.lines().count(), 1 + presets::names().len());
    let line = text.lines().find(|l| l.starts_with("elcapitan")).unwrap();
    assert!(
        line.contains("4 GPUs sharing the CPUs' memory") && line.contains("11136"),
        "{line}"
    );
    let r = amgcomm(d, &["machine", "list", "--json"]);
    let list: Vec<serde_json::Value> = serde_json::from_slice(&r.stdout).unwrap();
    for (l, name) in list.iter().zip(presets::names()) {
        assert_eq!(l["name"], name);
        let m = presets::preset(name).unwrap();
        let kinds: u64 = (0..4).map(|k| l["kinds"][k].as_u64().unwrap()).sum();
        let notes = (m.provenance_or_default().iter())
            .filter(|s| s.parameter.starts_with("note"))
            .count() as u64;
        assert_eq!(
            kinds + notes,
            m.provenance_or_default().len() as u64,
            "{name}"
        );
        assert!(!l["dates"].as_str().unwrap().is_empty(), "{name}");
    }
    // Aurora has no public message measurement: no fitted line.
    assert_eq!(list[5]["name"], "aurora");
    assert_eq!(list[5]["kinds"][0], 0);
}

/// A machine whose serial receive costs something (`calibrate` measured
/// `row_work.per_received`) has `aa` charge `recvserial` without being
/// asked: `per_received` times the most messages a rank receives (the
/// report's `max_recv`, one step under the standard strategy). A preset,
/// which borrows Blue Waters' 0, and `+bare` charge no such column.
#[test]
fn a_measured_serial_receive_is_charged_on_aa() {
    let dir = tempfile::tempdir().unwrap();
    let shown = amgcomm(dir.path(), &["machine", "show", "bluewaters", "--json"]);
    let mut m: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let per_received = 2.5e-6;
    m["params"]["row_work"]["per_received"] = per_received.into();
    let file = dir.path().join("measured.json");
    std::fs::write(&file, m.to_string()).unwrap();
    let run = |out: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "analyze",
            "gen:poisson3d:16",
            "--nodes",
            "2",
            "--ppn",
            "4",
            "--ops",
            "aa",
            "--out",
            out,
        ];
        args.extend_from_slice(extra);
        let o = amgcomm(dir.path(), &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let report = std::fs::read(dir.path().join(out).join("report.json")).unwrap();
        serde_json::from_slice(&report).unwrap()
    };
    let machine = ["--machine", file.to_str().unwrap()];
    let measured = run("measured", &machine);
    let levels = measured["levels"].as_array().unwrap();
    let mut charged = 0;
    for l in levels {
        let aa = &l["ops"]["aa"];
        let cost = &aa["cost"];
        let recv = aa["messages"]["max_recv"].as_f64().unwrap();
        let serial = cost["recvserial"].as_f64().unwrap();
        assert!(common::close(serial, per_received * recv), "{l}");
        let parts: f64 = [
            "max_rate",
            "queue_search",
            "contention",
            "rowcopy",
            "rowpack",
        ]
        .iter()
        .map(|k| cost[k].as_f64().unwrap())
        .sum();
        assert!(
            common::close(cost["total"].as_f64().unwrap(), parts + serial),
            "{l}"
        );
        charged += usize::from(recv > 0.0);
    }
    assert!(charged >= 2, "{charged} levels receive");
    let preset = run("preset", &[]);
    let bare = run(
        "bare",
        &[
            machine[0],
            machine[1],
            "--model",
            "nodeaware+queue+contention+bare",
        ],
    );
    for r in [preset, bare] {
        for l in r["levels"].as_array().unwrap() {
            assert!(l["ops"]["aa"]["cost"].get("recvserial").is_none(), "{l}");
        }
    }
}
