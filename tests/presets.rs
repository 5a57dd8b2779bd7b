//! Machine presets (issue 27): each one's measured parameters refit from
//! the committed table of BenchPress medians (tests/data/presets/, the
//! project's own format naming its source) to exactly the preset's
//! file; the BenchPress readers by hand and against hostile files; MPI
//! Advance's folders; where each machine's row work comes from. Machine
//! files and presets driving the commands are `tests/machine_files.rs`.

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
