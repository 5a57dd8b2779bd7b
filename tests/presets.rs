//! Machine presets (issue 27): each one's measured parameters refit from
//! the committed table of BenchPress medians (tests/data/presets/, the
//! project's own format naming its source) to exactly the preset's
//! file; the BenchPress readers by hand and against hostile files; the
//! networks driving analyze and compare from a machine file.

mod common;

use std::path::Path;

use common::{amgcomm, refused};

use amgcomm::machine::presets;
use amgcomm::machine::{Locality, Machine};
use amgcomm::measure::benchpress::{self, Bench, Layout};
use amgcomm::measure::calibrate::Experiment;

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/presets")
        .join(name)
}

#[test]
fn a_refit_from_the_table_gives_each_preset() {
    for name in ["lassen", "summit", "frontier", "elcapitan", "perlmutter"] {
        let table = data(&format!("{name}.csv"));
        let (m, source, medians) = amgcomm::measure::refit::refit(name, &table).unwrap();
        let preset = presets::preset(name).unwrap();
        assert_eq!(m.params, preset.params, "{name}");
        assert_eq!(m.gpus, preset.gpus, "{name}: the GPUs' parameters");
        assert!(m.gpus.is_some(), "{name} has its GPUs");
        assert_eq!(m.provenance, preset.provenance, "{name}");
        let benchpress = ["lassen", "summit", "frontier"].contains(&name);
        assert!(
            source[0].contains(if benchpress {
                "BenchPress"
            } else {
                "MPI Advance microbenchmarks"
            }),
            "{name}: the table names its source"
        );
        // 18 sizes per measured class; Lassen and Summit also R_N's 40
        // sender counts, Tuolumne 7 active pair counts; Delta gives the
        // socket class only (its off-node runs are Open MPI's).
        let pp = medians
            .iter()
            .filter(|m| matches!(m.experiment, Bench::Host(Experiment::PingPong(_))))
            .count();
        let inj = (medians.iter())
            .filter(|m| m.experiment == Bench::Host(Experiment::Injection))
            .count();
        let (classes, senders) = match name {
            "frontier" => (2, 0),
            "elcapitan" => (3, 7),
            "perlmutter" => (1, 0),
            _ => (3, 40),
        };
        assert_eq!((pp, inj), (18 * classes, senders), "{name}");
    }
    // The Summit reference values of BenchPress's benchmarks/summit/
    // ping-pongs (bienz2/BenchPress@ac2ede1; min of 3, median over pairs:
    // on-socket 4 B 0.48 us, off-node 512 KiB 51.0 us) are the table's.
    let (_, summit) =
        benchpress::read_table(&std::fs::read_to_string(data("summit.csv")).unwrap()).unwrap();
    let at = |l: Locality, bytes: u64| {
        summit
            .iter()
            .find(|m| m.experiment == Bench::Host(Experiment::PingPong(l)) && m.bytes == bytes)
            .unwrap()
            .seconds
    };
    assert!((at(Locality::SOCKET, 4) * 1e6 - 0.48).abs() < 0.005);
    assert!((at(Locality::NETWORK, 524288) * 1e6 - 51.0).abs() < 0.05);
    assert!((at(Locality::NODE, 65536) * 1e6 - 15.9).abs() < 0.05);
}

#[test]
fn the_cli_refits_a_preset_and_shows_its_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let table = data("lassen.csv");
    let o = amgcomm(
        dir.path(),
        &["machine", "fit", "lassen", table.to_str().unwrap()],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let m: Machine = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(m, presets::preset("lassen").unwrap());
    let o = amgcomm(dir.path(), &["machine", "show", "frontier"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("dragonfly, 74 groups x 32 switches, 4 nodes per switch"),
        "{text}"
    );
    assert!(
        text.contains("provenance:\n  measurements: published: BenchPress"),
        "{text}"
    );
    assert!(
        text.contains("  r_n: published: 4 Slingshot-11 NICs"),
        "{text}"
    );
    let o = amgcomm(dir.path(), &["machine", "show", "bluewaters"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("EuroMPI'18 Table 1"));
    // A preset without BenchPress runs, before anything is read.
    let o = amgcomm(dir.path(), &["machine", "fit", "bluewaters", "nowhere"]);
    refused(
        &o,
        2,
        &[
            "machine fit bluewaters: no measured runs",
            "lassen, summit, frontier",
        ],
    );
    // The table is not overwritten by --write-table.
    let copy = dir.path().join("t.csv");
    std::fs::copy(&table, &copy).unwrap();
    let o = amgcomm(
        dir.path(),
        &[
            "machine",
            "fit",
            "lassen",
            "t.csv",
            "--write-table",
            "t.csv",
        ],
    );
    refused(&o, 2, &["--write-table"]);
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&table).unwrap()
    );
}

/// Ping-pong outputs written here in BenchPress's format: 2 nodes of 2
/// ranks on 2 sockets, two runs. Medians by hand.
#[test]
fn medians_by_hand() {
    let row = |a: usize, b: usize, t: f64| {
        let v: Vec<String> = (0..18)
            .map(|i| format!("{:e}", t * (1 + i) as f64))
            .collect();
        format!("CPU {a} and CPU {b}:\t{}\t\n", v.join("\t"))
    };
    let run = |scale: f64| {
        let mut s = String::from("Warning: a line before\nProfiling Standard CPU Ping-Pongs:\n");
        s += &row(0, 1, 1e-6 * scale); // node
        s += &row(0, 2, 3e-6 * scale); // network
        s += &row(0, 3, 5e-6);
        s += &row(1, 2, 4e-6);
        s += &row(1, 3, 2e-6 * scale);
        s += "\nProfiling GPU Ping-Pongs\nGPU on rank 0 and GPU on rank 1:\t1e-5\n";
        s
    };
    let runs = [
        benchpress::ping_pong(&run(1.0)).unwrap(),
        benchpress::ping_pong(&run(0.5)).unwrap(),
    ];
    assert_eq!(runs[0].len(), 5);
    let m = benchpress::medians(&runs, &[], Layout { ppn: 2, sockets: 2 }).unwrap();
    // Node class: pair (0, 1), min of 1 and 0.5 us at size 0.
    let node = m
        .iter()
        .find(|x| x.experiment == Bench::Host(Experiment::PingPong(Locality::NODE)))
        .unwrap();
    assert_eq!((node.bytes, node.seconds, node.count), (4, 0.5e-6, 1));
    // Network: mins 1.5, 5, 4, 1 us: median 2.75 us.
    let net = m
        .iter()
        .find(|x| x.experiment == Bench::Host(Experiment::PingPong(Locality::NETWORK)))
        .unwrap();
    assert_eq!(net.count, 4);
    assert!((net.seconds - 2.75e-6).abs() < 1e-18);
    // The last size is 512 KiB, 18 times the first size's time.
    let last = m
        .iter()
        .rfind(|x| x.experiment == Bench::Host(Experiment::PingPong(Locality::NETWORK)))
        .unwrap();
    assert_eq!(last.bytes, 512 * 1024);
    assert!((last.seconds - 18.0 * 2.75e-6).abs() < 1e-15);
    // Runs with other pairs do not mix.
    let other =
        benchpress::ping_pong(&run(1.0).replace("CPU 1 and CPU 3", "CPU 1 and CPU 0")).unwrap();
    let e = benchpress::medians(
        &[runs[0].clone(), other],
        &[],
        Layout { ppn: 2, sockets: 2 },
    );
    assert!(e.unwrap_err().0.contains("other rank pairs"));
    // The table reads back as written.
    let text = benchpress::write_table(&["by hand".into()], &m);
    let (source, back) = benchpress::read_table(&text).unwrap();
    assert_eq!((source, back), (vec!["by hand".to_string()], m));
}

/// The same hostile inputs as the other readers: empty, binary, cut
/// rows, non-numbers, NaN, negative and huge values, a missing section,
/// a file too large; each one line, exit 1, through `machine fit`.
#[test]
fn hostile_benchpress_files_and_tables_are_one_line() {
    let good_row = |a: usize, b: usize| {
        let v: Vec<String> = (0..18)
            .map(|i| format!("{:e}", 1e-6 * (1 + i) as f64))
            .collect();
        format!("CPU {a} and CPU {b}:\t{}\n", v.join("\t"))
    };
    let header = "Profiling Standard CPU Ping-Pongs:\n";
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "empty",
            Vec::new(),
            "no 'Profiling Standard CPU Ping-Pongs:' rows",
        ),
        (
            "binary",
            vec![0xff, 0x00, 0x13, 0x37, 0xfe],
            "not valid text",
        ),
        (
            "no section",
            b"CPU 0 and CPU 1:\t1e-6\n".to_vec(),
            "no 'Profiling Standard",
        ),
        (
            "cut row",
            format!("{header}CPU 0 and CPU 1:\t1e-6\t2e-6\n").into_bytes(),
            "2 times, 18 expected",
        ),
        (
            "word",
            format!("{header}{}", good_row(0, 1).replace("2e-6", "fast")).into_bytes(),
            "'fast' is not a time",
        ),
        (
            "nan",
            format!("{header}{}", good_row(0, 1).replace("2e-6", "NaN")).into_bytes(),
            "'NaN' is not a time",
        ),
        (
            "negative",
            format!("{header}{}", good_row(0, 1).replace("2e-6", "-2e-6")).into_bytes(),
            "'-2e-6' is not a time",
        ),
        (
            "huge",
            format!("{header}{}", good_row(0, 1).replace("2e-6", "1e300")).into_bytes(),
            "'1e300' is not a time",
        ),
        (
            "no pair",
            format!("{header}CPU zero and one:\t1e-6\n").into_bytes(),
            "not 'CPU a and CPU b:'",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (what, bytes, needle) in &cases {
        let folder = dir.path().join(what.replace(' ', "_"));
        std::fs::create_dir(&folder).unwrap();
        // Tioga's runs: the frontier preset reads ping_pong.0.out and .2.out.
        std::fs::write(folder.join("ping_pong.0.out"), bytes).unwrap();
        std::fs::write(folder.join("ping_pong.2.out"), bytes).unwrap();
        let o = amgcomm(
            dir.path(),
            &["machine", "fit", "frontier", folder.to_str().unwrap()],
        );
        refused(&o, 1, &["ping_pong.0.out", needle]);
    }
    // A missing file names itself.
    let o = amgcomm(
        dir.path(),
        &["machine", "fit", "frontier", dir.path().to_str().unwrap()],
    );
    refused(&o, 1, &["ping_pong.0.out", "no such file"]);
    // Too large a file is refused before it is read.
    let big = dir.path().join("big");
    std::fs::create_dir(&big).unwrap();
    let f = std::fs::File::create(big.join("ping_pong.0.out")).unwrap();
    f.set_len(65 << 20).unwrap();
    let o = amgcomm(
        dir.path(),
        &["machine", "fit", "frontier", big.to_str().unwrap()],
    );
    refused(&o, 1, &["ping_pong.0.out", "larger than"]);
    // Tables: a wrong header, a cut line, a bad class, a bad count.
    let table = std::fs::read_to_string(data("frontier.csv")).unwrap();
    for (what, text, needle) in [
        (
            "header",
            table.replace("experiment,locality", "exp,loc"),
            "expected the header",
        ),
        (
            "cut",
            format!("{table}pingpong,socket,4\n"),
            "3 fields, 6 expected",
        ),
        (
            "class",
            table.replacen("pingpong,socket", "pingpong,rack", 1),
            "'pingpong,rack' is not a measurement",
        ),
        (
            "count",
            table.replacen(",1,", ",-1,", 1),
            "'-1' is not a count",
        ),
        ("empty", String::new(), "no medians"),
    ] {
        let f = dir.path().join(format!("{what}.csv"));
        std::fs::write(&f, text).unwrap();
        let o = amgcomm(
            dir.path(),
            &["machine", "fit", "frontier", f.to_str().unwrap()],
        );
        refused(&o, 1, &[&format!("{what}.csv"), needle]);
    }
}

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

/// MPI Advance's outputs as `machine fit` reads them: a folder missing
/// a run names it; a run without its sections is one line.
#[test]
fn hostile_microbenchmark_folders_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let o = amgcomm(
        dir.path(),
        &["machine", "fit", "elcapitan", dir.path().to_str().unwrap()],
    );
    refused(
        &o,
        1,
        &["cpu_microbenchmarks_n2.f2Eam73EecfZ.out", "no such file"],
    );
    let runs = amgcomm::measure::locality_aware::Runs::of("elcapitan").unwrap();
    for f in runs.cpu {
        std::fs::write(
            dir.path().join(f),
            "0: Off-Node Ping-Pong:\n0: Size 1: 6e-06\n",
        )
        .unwrap();
    }
    for f in runs.gpu {
        let text =
            "Running standard GPU-Aware benchmarks\nGPU-Aware Off-Node Ping-Pong:\nSize 4: 1e-5\n";
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    let o = amgcomm(
        dir.path(),
        &["machine", "fit", "elcapitan", dir.path().to_str().unwrap()],
    );
    refused(&o, 1, &["no measured section 'On-NUMA Ping-Pong'"]);
    let o = amgcomm(dir.path(), &["machine", "fit", "aurora", "x"]);
    refused(&o, 2, &["aurora: no measured runs to fit it from"]);
}

/// Every machine says where its work around the messages comes from: Blue
/// Waters' own fit, the presets that borrow it (naming it), and a machine
/// file that carries Blue Waters' values without a source (borrowed); in
/// `machine show` and in report.html.
#[test]
fn every_machine_says_where_its_row_work_comes_from() {
    let dir = tempfile::tempdir().unwrap();
    let row_work_line = |name: &str| -> String {
        let o = amgcomm(dir.path(), &["machine", "show", name]);
        assert_eq!(o.status.code(), Some(0), "{name}");
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.starts_with("row work: "))
            .map(str::to_owned);
        line.unwrap_or_else(|| panic!("{name}: no row work line in {text}"))
    };
    assert!(row_work_line("bluewaters").contains("fitted to the measurements"));
    for name in [
        "lassen",
        "summit",
        "frontier",
        "elcapitan",
        "aurora",
        "perlmutter",
    ] {
        let line = row_work_line(name);
        assert!(
            line.contains("assumed: Blue Waters' fit to RAPtor's benchmark_matops logs"),
            "{name}: {line}"
        );
    }
    // A hand-written file with Blue Waters' parameters and no provenance.
    let mut m = Machine::bluewaters();
    m.name = "mine".into();
    let file = dir.path().join("mine.json");
    std::fs::write(&file, serde_json::to_string(&m).unwrap()).unwrap();
    let line = row_work_line(file.to_str().unwrap());
    assert!(line.contains("borrowed: Blue Waters' fit"), "{line}");
    let out = dir.path().join("report");
    let o = amgcomm(
        dir.path(),
        &[
            "analyze",
            "gen:poisson3d:6",
            "--machine",
            file.to_str().unwrap(),
            "--nodes",
            "1",
            "--ppn",
            "4",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    // The provenance table's row, HTML-escaped.
    assert!(
        html.contains("row_work") && html.contains("borrowed: Blue Waters&#39; fit"),
        "no row work source in report.html"
    );
}
