//! `amgcomm calibrate` and `amgcomm replay` under a real `mpirun`
//! (feature `mpi`; Open MPI on loopback, as `.ci/run` installs it):
//!
//! - calibrate writes a machine file that `--machine` loads, every
//!   parameter finite and positive, its raw measurements beside it;
//! - replay sends exactly the saved messages and bytes: Open MPI's
//!   `pml_monitoring` counts every point-to-point message per pair, and
//!   two runs that differ only in their iteration count differ by exactly
//!   that many times the pattern, read back by the library's whole-file
//!   reader (an independent path from the replay's per-rank reading);
//! - a run with another rank count than the saved layout's fails on every
//!   rank within seconds, with one line from rank 0.
#![cfg(feature = "mpi")]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use amgcomm::comm::pattern_file;
use amgcomm::machine::Machine;

#[path = "mpi_checks/serial.rs"]
mod serial;

const BIN: &str = env!("CARGO_BIN_EXE_amgcomm");

/// One mpirun at a time: the tests oversubscribe the cores already, and
/// two jobs at once would time each other.
static ONE_JOB: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `mpirun -n ranks [extra] amgcomm args`, killed after `limit`.
fn mpirun(ranks: usize, extra: &[&str], args: &[&str], limit: Duration) -> (Output, Duration) {
    let _one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let mpirun = std::env::var("AMGCOMM_MPIRUN").unwrap_or_else(|_| "mpirun".into());
    let mut c = Command::new(mpirun);
    c.args(["-n", &ranks.to_string(), "--oversubscribe"])
        .args(extra)
        .arg(BIN)
        .args(args)
        // Open MPI refuses root without these (CI runs as root).
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = c
        .spawn()
        .expect("mpirun on PATH (apt-get install openmpi-bin)");
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("mpirun {args:?} still running after {limit:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), start.elapsed())
}

fn amgcomm(args: &[&str]) -> Output {
    let o = Command::new(BIN).args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// amgcomm's own lines on stderr.
fn our_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| l.starts_with("amgcomm:"))
        .map(String::from)
        .collect()
}

fn check_machine(path: &Path, nodes: usize, ppn: usize) -> Machine {
    let m = Machine::named_or_file(path.to_str().unwrap()).expect("a loadable machine file");
    assert_eq!((m.nodes, m.ppn), (nodes, ppn));
    let p = &m.params;
    let mut all = vec![p.r_n, p.gamma, p.delta, p.pack_per_run, p.pack_rate];
    for (_, l) in &p.rates.0 {
        for r in [l.short, l.eager, l.rend] {
            all.extend([r.alpha, r.rate]);
        }
    }
    assert!(
        all.iter().all(|x| x.is_finite() && *x > 0.0),
        "not all finite and positive: {all:?}"
    );
    assert!(p.eager_threshold <= p.rendezvous_threshold);
    let cal = m.calibration.as_ref().expect("a calibration block");
    assert_eq!(cal.ranks, nodes * ppn);
    assert_eq!(cal.real_nodes, 1);
    assert!(cal.loopback);
    assert!(cal.mpi_library.contains("MPI"), "{}", cal.mpi_library);
    // Every ping-pong class the loopback could measure was fitted.
    for name in ["socket.short", "socket.eager", "socket.rend", "gamma"] {
        assert!(
            cal.fits.iter().any(|f| f.parameter == name),
            "{name} not fitted"
        );
    }
    m
}

/// `mpirun -n ranks amgcomm calibrate --quick flags --out DIR/name.json`,
/// which must succeed.
fn calibrate(d: &Path, name: &str, ranks: usize, flags: &[&str]) -> (Output, std::path::PathBuf) {
    let out = d.join(format!("{name}.json"));
    let mut args = vec!["calibrate", "--quick", "--out", out.to_str().unwrap()];
    args.extend(flags);
    let (o, _) = mpirun(ranks, &[], &args, Duration::from_secs(180));
    ok(&o);
    (o, out)
}

#[test]
fn calibrate_writes_a_loadable_positive_machine_file() {
    let d = tempfile::tempdir().unwrap();
    let (o, out) = calibrate(d.path(), "loop", 2, &["--name", "loop"]);
    let m = check_machine(&out, 1, 2);
    assert_eq!(m.name, "loop");
    let cal = m.calibration.unwrap();
    // One node: no network, no R_N, no contention; said so.
    let missing = cal.not_measured.join("; ");
    assert!(missing.contains("network: one node"), "{missing}");
    assert!(missing.contains("r_n: fewer than 2 nodes"), "{missing}");
    assert!(
        missing.contains("delta: contention is fitted only with at least 3 nodes"),
        "{missing}"
    );
    // The raw measurements beside it: a header and a row per sample.
    let csv = std::fs::read_to_string(d.path().join("loop.measurements.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].starts_with("experiment,locality,pattern,bytes"));
    assert!(
        rows.iter()
            .filter(|r| r.starts_with("pingpong,socket"))
            .count()
            >= 20
    );
    assert!(rows.iter().any(|r| r.starts_with("queue-reversed")));
    // The table beside Blue Waters', on rank 0's stdout only.
    let table = String::from_utf8_lossy(&o.stdout);
    assert_eq!(table.matches("parameter ").count(), 1, "{table}");
    assert!(table.contains("socket.rend alpha"));
    // The file drives an analysis on its 1 node x 2 ranks.
    let r = amgcomm(&[
        "analyze",
        "gen:poisson3d:6",
        "--machine",
        out.to_str().unwrap(),
        "--out",
        d.path().join("report").to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&r.stdout).contains("on 1 nodes x 2 ppn = 2 ranks (loop)"));
}

/// An independent measure of the copy: a plain loop over 4 M nonzeros
/// copying (column, value) through a column map, timed here; seconds a
/// nonzero (the fastest of 5). `ranks` threads run it at once, as
/// calibrate's ranks share this machine's cores, and the slowest counts,
/// as calibrate takes the slowest rank's batch. It is a job as an mpirun
/// is: none runs beside it.
fn copy_loop_per_nonzero(ranks: usize) -> f64 {
    let _one = ONE_JOB.lock().unwrap_or_else(|e| e.into_inner());
    let one = || {
        let n = 1 << 22;
        let map: Vec<i32> = (0..n as i32).map(|j| j ^ 1).collect();
        let cols: Vec<i32> = (0..n as i32).map(|j| (j * 7) % n as i32).collect();
        let vals: Vec<f64> = (0..n).map(|j| j as f64).collect();
        let (mut oc, mut ov) = (vec![0i32; n], vec![0.0f64; n]);
        (0..5)
            .map(|_| {
                let t = std::time::Instant::now();
                for k in 0..n {
                    oc[k] = map[cols[k] as usize];
                    ov[k] = vals[k];
                }
                std::hint::black_box((&oc, &ov));
                t.elapsed().as_secs_f64() / n as f64
            })
            .fold(f64::INFINITY, f64::min)
    };
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..ranks).map(|_| s.spawn(one)).collect();
        runs.into_iter()
            .map(|r| r.join().unwrap())
            .fold(0.0, f64::max)
    })
}

/// calibrate times RAPtor's work around the messages where it runs: the
/// machine file's row work is this machine's (not Blue Waters' 2012
/// figures), says so, and agrees within a factor 5 with a copy loop timed
/// here on as many threads as calibrate had ranks (4 on this machine's 2
/// cores: one thread alone was up to 5.1 times faster than each rank).
/// Its serial receive is measured too where it separates, and checked
/// against the raw rows it was fitted from (45-51 ns here, against a
/// one-way message's 0.3-0.5 us).
#[test]
fn calibrate_measures_the_row_work_here() {
    let d = tempfile::tempdir().unwrap();
    let (_, out) = calibrate(d.path(), "rows", 4, &["--name", "rows"]);
    let m = check_machine(&out, 1, 4);
    let rw = m.params.row_work;
    let bw = amgcomm::machine::RowWork::bluewaters();
    assert_ne!(rw.copy_per_nonzero, bw.copy_per_nonzero);
    assert_ne!(rw.per_element, bw.per_element);
    let cal = m.calibration.as_ref().unwrap();
    for name in ["row_work.copy_per_nonzero", "row_work.per_element"] {
        let f = (cal.fits.iter().find(|f| f.parameter == name))
            .unwrap_or_else(|| panic!("{name}: {}", cal.not_measured.join("; ")));
        assert!(
            f.method.starts_with("measured by amgcomm calibrate on ")
                && f.method.contains(&cal.date),
            "{}",
            f.method
        );
    }
    let kept = cal.not_measured.join("; ");
    let here = copy_loop_per_nonzero(4);
    let ratio = rw.copy_per_nonzero / here;
    assert!(
        (0.2..5.0).contains(&ratio),
        "{:e} against {here:e}",
        rw.copy_per_nonzero
    );
    // A (value, index) pair costs about what a copied nonzero does, and
    // far less than a microsecond.
    assert!(
        rw.per_element > 0.0 && rw.per_element < 1e-6,
        "{:e}",
        rw.per_element
    );
    let csv = std::fs::read_to_string(d.path().join("rows.measurements.csv")).unwrap();
    assert_eq!(
        csv.lines().filter(|r| r.starts_with("row-copy,")).count(),
        2
    );
    serial::check(&csv, &m, &kept);
}

#[test]
fn calibrate_on_virtual_nodes_fits_network_injection_and_contention() {
    let d = tempfile::tempdir().unwrap();
    let (o, out) = calibrate(d.path(), "virtual", 6, &["--ppn", "2"]);
    let m = check_machine(&out, 3, 2);
    let cal = m.calibration.unwrap();
    assert!(cal.fits.iter().any(|f| f.parameter == "network.rend"));
    // R_N measured, or said why not, never the one-node excuse.
    assert!(
        cal.fits.iter().any(|f| f.parameter == "r_n")
            || cal
                .not_measured
                .iter()
                .any(|n| n == "r_n: no usable injection time"),
        "{cal:?}"
    );
    // delta is fitted, or kept with the reason: never silently.
    assert!(
        cal.fits.iter().any(|f| f.parameter == "delta")
            || cal.not_measured.iter().any(|n| n.starts_with("delta:")),
        "{cal:?}"
    );
    // The loopback is said plainly, on stderr and in the file.
    let lines = our_lines(&o);
    assert!(
        lines.iter().any(|l| l.contains(
            "the 'network' figures are shared memory between 3 virtual nodes of 2 ranks"
        )),
        "{lines:?}"
    );
    assert!(cal.notes.iter().any(|n| n.contains("not a network")));
    let csv = std::fs::read_to_string(d.path().join("virtual.measurements.csv")).unwrap();
    assert!(csv
        .lines()
        .any(|r| r.starts_with("contention,network,shift 1")));
    assert!(csv.lines().any(|r| r.starts_with("injection,network")));
}

/// `--like`: the network of a preset (Frontier's dragonfly, whose 3
/// nodes hang off one switch: every contention pattern has 0 hops) or
/// of a machine file (a ring of 3 switches, where they do not), and
/// delta fitted against that network's measure.
#[test]
fn calibrate_like_a_machine_takes_its_network() {
    let d = tempfile::tempdir().unwrap();
    let (_, out) = calibrate(d.path(), "like", 6, &["--ppn", "2", "--like", "frontier"]);
    let m = check_machine(&out, 3, 2);
    assert_eq!(
        m.network,
        amgcomm::machine::presets::preset("frontier")
            .unwrap()
            .network
    );
    let cal = m.calibration.unwrap();
    let said = cal
        .fits
        .iter()
        .map(|f| f.method.clone())
        .chain(cal.not_measured.clone())
        .find(|t| t.contains("delta"))
        .unwrap_or_default();
    assert!(
        said.contains("the busiest link of the dragonfly"),
        "{cal:?}"
    );
    let ring = d.path().join("ring.json");
    std::fs::write(
        &ring,
        r#"{"name": "ring", "nodes": 3, "ppn": 2, "sockets_per_node": 1, "network": {"kind": "torus3d", "nodes_per_switch": 1, "dims": [3, 1, 1]}}"#,
    )
    .unwrap();
    let (_, out) = calibrate(
        d.path(),
        "ring",
        6,
        &["--ppn", "2", "--like", ring.to_str().unwrap()],
    );
    let m = check_machine(&out, 3, 2);
    assert_eq!(m.network.kind.name, "torus3d");
    let cal = m.calibration.unwrap();
    assert!(
        cal.fits
            .iter()
            .any(|f| f.parameter == "delta" && f.method.contains("busiest link of the torus3d"))
            || cal
                .not_measured
                .iter()
                .any(|n| n.contains("busiest link of the torus3d")),
        "{cal:?}"
    );
    // --like and --nodes-per-router do not go together (clap, exit 2).
    let o = Command::new(BIN)
        .args([
            "calibrate",
            "--out",
            "x.json",
            "--like",
            "frontier",
            "--nodes-per-router",
            "2",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn calibrate_needs_two_ranks() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("m.json");
    let (o, t) = mpirun(
        1,
        &[],
        &["calibrate", "--out", out.to_str().unwrap()],
        Duration::from_secs(60),
    );
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(t < Duration::from_secs(20));
    assert_eq!(
        our_lines(&o),
        ["amgcomm: calibrate needs at least 2 ranks: run it under mpirun -n 2 (or more)"]
    );
    assert!(!out.exists());
}

/// Bytes and messages sent per (from, to) in `dir`'s spmv and spgemm
/// patterns, by the library's whole-file reader.
fn pattern_traffic(dir: &Path) -> BTreeMap<(u32, u32), (u64, u64)> {
    let mut t = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with("_ptap.amgpat") {
            continue;
        }
        for (_, p) in pattern_file::read(&path).unwrap().steps {
            for m in p.messages {
                let x = t.entry((m.from, m.to)).or_insert((0, 0));
                x.0 += m.bytes;
                x.1 += 1;
            }
        }
    }
    t
}

/// Point-to-point traffic per (from, to) that Open MPI's pml_monitoring
/// counted as the program's own (lines `E from to N bytes M msgs sent`).
fn monitored(dir: &Path, ranks: usize) -> BTreeMap<(u32, u32), (u64, u64)> {
    let mut t = BTreeMap::new();
    for r in 0..ranks {
        let text = std::fs::read_to_string(dir.join(format!("prof.{r}.prof")))
            .expect("pml_monitoring wrote a file per rank");
        for line in text.lines().filter(|l| l.starts_with("E\t")) {
            let f: Vec<&str> = line.split('\t').collect();
            let num = |s: &str| s.split(' ').next().unwrap().parse::<u64>().unwrap();
            let key = (num(f[1]) as u32, num(f[2]) as u32);
            t.insert(key, (num(f[3]), num(f[4])));
        }
    }
    t
}

/// Replays `pats` under pml_monitoring with `warmup + iterations` rounds.
fn replay_monitored(
    pats: &Path,
    ranks: usize,
    warmup: u64,
    iterations: u64,
    out: &Path,
) -> BTreeMap<(u32, u32), (u64, u64)> {
    let mon = out.with_extension("mon");
    std::fs::create_dir_all(&mon).unwrap();
    let prefix = mon.join("prof");
    let (o, _) = mpirun(
        ranks,
        &[
            "--mca",
            "pml_monitoring_enable",
            "2",
            "--mca",
            "pml_monitoring_enable_output",
            "3",
            "--mca",
            "pml_monitoring_filename",
            prefix.to_str().unwrap(),
        ],
        &[
            "replay",
            pats.to_str().unwrap(),
            "--iterations",
            &iterations.to_string(),
            "--warmup",
            &warmup.to_string(),
            "--ops",
            "spmv,spgemm,interp,restrict",
            "--out",
            out.to_str().unwrap(),
        ],
        Duration::from_secs(120),
    );
    ok(&o);
    monitored(&mon, ranks)
}

#[test]
fn replay_sends_exactly_the_saved_messages() {
    let d = tempfile::tempdir().unwrap();
    for strategy in ["standard", "node-aware-3"] {
        let pats = d.path().join(format!("pats-{strategy}"));
        // gen:elasticity3d:6 on 2 nodes x 4 under the strategy, into
        // DIR/{name}, with `extra` flags.
        let analyze = |name: &str, extra: &[&str]| {
            let out = d.path().join(format!("{name}-{strategy}"));
            let mut args = vec![
                "analyze",
                "gen:elasticity3d:6",
                "--nodes",
                "2",
                "--ppn",
                "4",
                "--strategy",
                strategy,
                "--out",
                out.to_str().unwrap(),
            ];
            args.extend(extra);
            amgcomm(&args)
        };
        // With the cycle: interp and restrict are saved and replayed too.
        analyze(
            "report",
            &["--cycle", "V", "--save-patterns", pats.to_str().unwrap()],
        );
        let want = pattern_traffic(&pats);
        assert!(!want.is_empty());
        // The setup (sizes exchanged by MPI_Alltoallv, reductions) is the
        // same in both runs: the difference is the timed iterations' alone.
        let short = replay_monitored(&pats, 8, 0, 1, &d.path().join(format!("{strategy}-1.json")));
        let long = replay_monitored(&pats, 8, 1, 3, &d.path().join(format!("{strategy}-4.json")));
        let mut pairs: Vec<(u32, u32)> = want.keys().chain(long.keys()).copied().collect();
        pairs.sort_unstable();
        pairs.dedup();
        for pair in pairs {
            let (b0, m0) = short.get(&pair).copied().unwrap_or_default();
            let (b1, m1) = long.get(&pair).copied().unwrap_or_default();
            let (bw, mw) = want.get(&pair).copied().unwrap_or_default();
            assert_eq!(
                (b1 - b0, m1 - m0),
                (3 * bw, 3 * mw),
                "{strategy}: pair {pair:?}: 3 more iterations sent {} bytes in {} messages, the pattern has {bw} in {mw}",
                b1 - b0,
                m1 - m0
            );
        }
        // The measured file: the pattern's figures, and analyze reads it.
        let file = d.path().join(format!("{strategy}-4.json"));
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(
            (m["ranks"].as_u64(), m["nodes"].as_u64(), m["ppn"].as_u64()),
            (Some(8), Some(2), Some(4))
        );
        assert_eq!(
            (m["iterations"].as_u64(), m["warmup"].as_u64()),
            (Some(3), Some(1))
        );
        assert_eq!(m["strategy"].as_str(), Some(strategy));
        let total_bytes: u64 = want.values().map(|v| v.0).sum();
        let replayed: u64 = (m["levels"].as_array().unwrap().iter())
            .flat_map(|l| {
                ["spmv", "spgemm", "interp", "restrict"]
                    .map(|op| l[op]["bytes"].as_u64().unwrap_or(0))
            })
            .sum();
        assert_eq!(replayed, total_bytes);
        let json = d.path().join(format!("overlay-{strategy}.json"));
        let r = analyze(
            "overlay",
            &[
                "--cycle",
                "V",
                "--measured",
                file.to_str().unwrap(),
                "--json",
                json.to_str().unwrap(),
            ],
        );
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let l0 = &report["levels"][0]["ops"]["spmv"];
        assert_eq!(l0["measured"]["seconds"], m["levels"][0]["spmv"]["seconds"]);
        assert!(l0["modeled_over_measured"].as_f64().unwrap() > 0.0);
        // Every part of the cycle was replayed: its measured time is the
        // replayed exchanges' weighted sum.
        let c = &report["cycle"]["levels"][0];
        let secs = |op: &str| m["levels"][0][op]["seconds"].as_f64().unwrap();
        let want = 3.0 * secs("spmv") + secs("interp") + secs("restrict");
        let got = c["measured_cycle"].as_f64().unwrap();
        assert!((got - want).abs() <= 1e-12 * want, "{got} vs {want}");
        assert!(String::from_utf8_lossy(&r.stdout).contains("measured"));
    }
}

#[test]
fn replay_with_another_rank_count_fails_fast_on_every_rank() {
    let d = tempfile::tempdir().unwrap();
    let pats = d.path().join("pats");
    amgcomm(&[
        "analyze",
        "gen:poisson3d:8",
        "--nodes",
        "2",
        "--ppn",
        "2",
        "--save-patterns",
        pats.to_str().unwrap(),
        "--out",
        d.path().join("r").to_str().unwrap(),
    ]);
    let out = d.path().join("m.json");
    let (o, t) = mpirun(
        3,
        &[],
        &[
            "replay",
            pats.to_str().unwrap(),
            "--iterations",
            "5",
            "--out",
            out.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(o.status.code().map(|c| c != 0), Some(true), "{o:?}");
    assert!(t < Duration::from_secs(20), "took {t:?}");
    assert_eq!(
        our_lines(&o),
        [format!(
            "amgcomm: the patterns in {} were saved for 4 ranks (2 nodes x 2), this run has 3: start it with mpirun -n 4",
            pats.display()
        )]
    );
    assert!(!out.exists());
    // A folder of no patterns, and an output inside the patterns: one
    // line each, nothing written.
    let empty = d.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let (o, _) = mpirun(
        2,
        &[],
        &[
            "replay",
            empty.to_str().unwrap(),
            "--iterations",
            "5",
            "--out",
            out.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    let lines = our_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains("no spmv, spgemm pattern files"),
        "{lines:?}"
    );
    let inside = pats.join("m.json");
    let (o, _) = mpirun(
        4,
        &[],
        &[
            "replay",
            pats.to_str().unwrap(),
            "--iterations",
            "5",
            "--out",
            inside.to_str().unwrap(),
        ],
        Duration::from_secs(60),
    );
    assert_eq!(o.status.code(), Some(2));
    let lines = our_lines(&o);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("inside the input folder"), "{lines:?}");
    assert!(!inside.exists());
}
