//! hypre's own output through amgcomm (issue 20): the levels
//! `tools/hypre_dump_levels.c` prints after `HYPRE_BoomerAMGSetup` (a 7^3
//! Laplacian on 4 ranks of uneven row blocks, committed in
//! `tests/data/hypre/`; with the `mpi` feature the test also builds the
//! program, runs it under `mpirun` and checks its fresh output), read
//! with `--levels-from`, their ranks as the partition. Every level's
//! message counts and bytes are recomputed here from the files alone, and
//! the default model's costs from those messages, independently of
//! amgcomm's code: counts and bytes exact, costs to 1e-9. The hypre
//! preset against real hypre is `tests/hypre_preset.rs`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::hypre::{amgcomm, analyze_json, read_files, Files};
#[cfg(feature = "mpi")]
use common::hypre::{hypre_dump, mpirun};

/// Blue Waters' Table 1, docs/model.md: (alpha, R_b) per locality and
/// protocol.
fn table1(locality: usize, bytes: u64) -> (f64, f64) {
    let protocol = if bytes < 500 {
        0
    } else if bytes < 8000 {
        1
    } else {
        2
    };
    let t = [
        [(4.4e-7, 2.2e9), (5.3e-7, 3.2e9), (1.7e-6, 6.2e9)],
        [(8.3e-7, 4.8e8), (1.2e-6, 9.6e8), (2.5e-6, 6.2e9)],
        [(2.3e-6, 1.3e9), (7.0e-6, 7.5e8), (3.0e-6, 2.9e9)],
    ];
    t[locality][protocol]
}

/// The machine: `nodes` x `ppn`, `sockets` per node, `per_router` nodes a
/// router, routers in a `gx x gy x 1` box.
struct Box {
    ppn: usize,
    sockets: usize,
    per_router: usize,
    gx: usize,
}

impl Box {
    fn locality(&self, a: usize, b: usize) -> usize {
        let (na, nb) = (a / self.ppn, b / self.ppn);
        let per = self.ppn / self.sockets;
        if na != nb {
            2
        } else if (a % self.ppn) / per != (b % self.ppn) / per {
            1
        } else {
            0
        }
    }

    fn hops(&self, a: usize, b: usize) -> f64 {
        let (ra, rb) = (
            a / self.ppn / self.per_router,
            b / self.ppn / self.per_router,
        );
        let (xa, ya) = (ra % self.gx, ra / self.gx);
        let (xb, yb) = (rb % self.gx, rb / self.gx);
        (xa.abs_diff(xb) + ya.abs_diff(yb)) as f64
    }
}

/// Messages `q -> p` of one level: spmv bytes and spgemm bytes.
fn messages(a: &Files, p: Option<&Files>) -> BTreeMap<(usize, usize), (u64, u64)> {
    let owner = |j: usize| {
        a.ranges
            .iter()
            .position(|&(lo, hi)| (lo..hi).contains(&j))
            .unwrap()
    };
    let mut p_len: BTreeMap<usize, u64> = BTreeMap::new();
    if let Some(p) = p {
        for &(i, _) in &p.entries {
            *p_len.entry(i).or_default() += 1;
        }
    }
    let mut needed: BTreeMap<(usize, usize), BTreeSet<usize>> = BTreeMap::new();
    for &(i, j) in &a.entries {
        let (to, from) = (owner(i), owner(j));
        if to != from {
            needed.entry((from, to)).or_default().insert(j);
        }
    }
    needed
        .into_iter()
        .map(|(pair, cols)| {
            let spmv = 8 * cols.len() as u64;
            let spgemm = cols
                .iter()
                .map(|j| 4 + 12 * p_len.get(j).copied().unwrap_or(0))
                .sum();
            (pair, (spmv, spgemm))
        })
        .collect()
}

/// docs/model.md's default model on `msgs` ((from, to), bytes): max-rate,
/// queue search, contention.
fn cost(msgs: &[((usize, usize), u64)], m: &Box, ranks: usize, routers: usize) -> [f64; 3] {
    let node = |r: usize| r / m.ppn;
    let mut network_senders: BTreeMap<usize, BTreeSet<usize>> = BTreeMap::new();
    for &((from, to), _) in msgs {
        if m.locality(from, to) == 2 {
            network_senders.entry(node(from)).or_default().insert(from);
        }
    }
    let mut per_sender = vec![0.0f64; ranks];
    let mut recv = vec![0u64; ranks];
    let (mut bytes, mut byte_hops) = (0.0, 0.0);
    for &((from, to), s) in msgs {
        let loc = m.locality(from, to);
        let (alpha, rb) = table1(loc, s);
        let s_f = s as f64;
        per_sender[from] += if loc == 2 {
            let a = network_senders[&node(from)].len() as f64;
            let rate = if s >= 8000 {
                (a * rb).min(6.6e9)
            } else {
                a * rb
            };
            bytes += s_f;
            byte_hops += s_f * m.hops(from, to);
            alpha + a * s_f / rate
        } else {
            alpha + s_f / rb
        };
        recv[to] += 1;
    }
    let max_rate = per_sender.iter().copied().fold(0.0, f64::max);
    let n = *recv.iter().max().unwrap() as f64;
    let queue = 8.4e-9 * n * n;
    let h = if bytes > 0.0 { byte_hops / bytes } else { 0.0 };
    let contention = 1.0e-10 * h * h * h * bytes / routers as f64;
    [max_rate, queue, contention]
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-300)
}

/// `analyze --levels-from dir` on `machine`, every level checked against
/// the files.
fn check_levels(dir: &Path, machine_args: &[&str], m: &Box, ranks: usize, routers: usize) {
    let work = tempfile::tempdir().unwrap();
    let mut args = vec!["--levels-from", dir.to_str().unwrap()];
    args.extend(machine_args);
    let r = analyze_json(work.path(), "r", &args);
    assert_eq!(r["partition"]["fine"], "input ranks");
    assert_eq!(r["partition"]["coarse"], "files");
    let levels = r["levels"].as_array().unwrap();
    assert!(levels.len() >= 3);
    for (l, level) in levels.iter().enumerate() {
        let a = read_files(&dir.join(format!("A{l}")));
        assert_eq!(a.ranges.len(), ranks);
        let p = (l + 1 < levels.len()).then(|| read_files(&dir.join(format!("P{l}"))));
        let msgs = messages(&a, p.as_ref());
        let active = a.ranges.iter().filter(|(lo, hi)| hi > lo).count();
        assert_eq!(level["active_processes"], active, "level {l}");
        for (op, pick) in [("spmv", 0), ("spgemm", 1)] {
            if op == "spgemm" && p.is_none() {
                assert!(level["ops"]["spgemm"].is_null());
                continue;
            }
            let list: Vec<((usize, usize), u64)> = msgs
                .iter()
                .map(|(&k, &(s, g))| (k, if pick == 0 { s } else { g }))
                .collect();
            let got = &level["ops"][op];
            let mut sent = vec![0u64; ranks];
            let mut recv = vec![0u64; ranks];
            for &((f, t), _) in &list {
                sent[f] += 1;
                recv[t] += 1;
            }
            let total: u64 = list.iter().map(|m| m.1).sum();
            assert_eq!(got["messages"]["total"], list.len(), "level {l} {op}");
            assert_eq!(
                got["messages"]["max_sent"],
                *sent.iter().max().unwrap(),
                "level {l} {op}"
            );
            assert_eq!(
                got["messages"]["max_recv"],
                *recv.iter().max().unwrap(),
                "level {l} {op}"
            );
            assert_eq!(got["bytes"]["total"], total, "level {l} {op}");
            let [mr, q, c] = cost(&list, m, ranks, routers);
            let want = [
                ("max_rate", mr),
                ("queue_search", q),
                ("contention", c),
                ("total", mr + q + c),
            ];
            for (k, v) in want {
                let x = got["cost"][k].as_f64().unwrap();
                assert!(close(x, v), "level {l} {op} {k}: amgcomm {x}, by hand {v}");
            }
        }
    }
}

fn machine_file(dir: &Path, nodes: usize, ppn: usize, sockets: usize, per_router: usize) -> String {
    let path = dir.join(format!("m{nodes}x{ppn}.json"));
    std::fs::write(
        &path,
        format!(r#"{{"name": "test", "nodes": {nodes}, "ppn": {ppn}, "sockets_per_node": {sockets}, "nodes_per_router": {per_router}}}"#),
    )
    .unwrap();
    path.to_str().unwrap().to_string()
}

/// Both machines: 4 nodes of 1 rank, one node a router (every message on
/// the network, routers 2 x 2); 2 nodes of 2 ranks on 2 sockets (socket,
/// other-socket and network messages).
fn check_dump(dir: &Path) {
    let t = tempfile::tempdir().unwrap();
    let wide = machine_file(t.path(), 4, 1, 1, 1);
    let b = Box {
        ppn: 1,
        sockets: 1,
        per_router: 1,
        gx: 2,
    };
    check_levels(dir, &["--machine", &wide], &b, 4, 4);
    let b = Box {
        ppn: 2,
        sockets: 2,
        per_router: 2,
        gx: 1,
    };
    check_levels(dir, &["--nodes", "2", "--ppn", "2"], &b, 4, 1);
}

#[test]
fn hypres_levels_give_the_messages_and_costs_of_their_files() {
    check_dump(Path::new("tests/data/hypre"));
}

#[test]
fn the_ij_matrix_of_the_dump_is_level_0_with_its_ranks() {
    let work = tempfile::tempdir().unwrap();
    let run = |input: &[&str], name: &str| -> serde_json::Value {
        let json = work.path().join(format!("{name}.json"));
        let mut args = vec!["analyze"];
        args.extend(input);
        args.extend([
            "--nodes",
            "2",
            "--ppn",
            "2",
            "--json",
            json.to_str().unwrap(),
        ]);
        let out = work.path().join(name);
        args.extend(["--out", out.to_str().unwrap()]);
        let o = amgcomm(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
    };
    let ij = run(&["tests/data/hypre/A"], "ij");
    let levels = run(&["--levels-from", "tests/data/hypre"], "levels");
    assert_eq!(ij["partition"]["fine"], "input ranks");
    assert_eq!(
        ij["levels"][0]["ops"]["spmv"],
        levels["levels"][0]["ops"]["spmv"]
    );
    // The rank count must be the machine's, unless --partition says
    // otherwise.
    let o = amgcomm(&[
        "analyze",
        "tests/data/hypre/A",
        "--nodes",
        "2",
        "--ppn",
        "4",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(err.lines().count(), 1);
    assert!(
        err.contains("written by 4 ranks (4 rank files), the machine has 2 nodes x 4 ppn = 8"),
        "{err}"
    );
}

/// The program's fresh output on 4 ranks checks out against the files.
#[cfg(feature = "mpi")]
#[test]
fn the_dump_program_runs_and_its_levels_check_out() {
    let work = hypre_dump(4, 9);
    check_dump(&work.path().join("dump"));
}

/// `mpirun -n K amgcomm analyze` (the files read and the messages found
/// by K processes together) gives the serial run's report: every level's
/// figures and costs, the hierarchy's sizes, the partition; for K below,
/// equal to and above the ranks that wrote the files. Failures are one
/// line from rank 0.
#[cfg(feature = "mpi")]
#[test]
fn processes_together_give_the_serial_report() {
    let exe = Path::new(env!("CARGO_BIN_EXE_amgcomm"));
    let dump = hypre_dump(6, 16);
    let dir = dump.path().join("dump");
    let work = tempfile::tempdir().unwrap();
    let report = |k: usize, input: &[&str], machine: &[&str]| -> serde_json::Value {
        let json = work.path().join(format!("{k}.json"));
        let out = work.path().join(format!("{k}"));
        let mut args: Vec<&str> = vec!["analyze"];
        args.extend(input);
        args.extend(machine);
        args.extend([
            "--json",
            json.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let o = if k == 0 {
            amgcomm(&args)
        } else {
            mpirun(k, exe, &args)
        };
        assert!(
            o.status.success(),
            "{k}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let mut r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        // Where the hierarchy came from, and how long it took, differ.
        r["hierarchy"]["source"] = serde_json::Value::Null;
        r["timings"] = serde_json::Value::Null;
        r
    };
    let levels = ["--levels-from", dir.to_str().unwrap()];
    let six = ["--nodes", "3", "--ppn", "2"];
    let serial = report(0, &levels, &six);
    assert!(serial["levels"].as_array().unwrap().len() >= 4);
    for k in [2, 4, 6, 8] {
        assert_eq!(report(k, &levels, &six), serial, "{k} processes");
    }
    // The matrix alone, and the committed fixture on another machine.
    let a = dir.join("A");
    let one = [a.to_str().unwrap(), "--max-levels", "1"];
    assert_eq!(report(3, &one, &six), report(0, &one, &six));
    let fixture = ["--levels-from", "tests/data/hypre"];
    let four = ["--nodes", "2", "--ppn", "2"];
    assert_eq!(report(3, &fixture, &four), report(0, &fixture, &four));

    let fails = |args: &[&str], code: i32, needle: &str| {
        let o = mpirun(3, exe, args);
        let err = String::from_utf8_lossy(&o.stderr);
        let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("amgcomm:")).collect();
        assert_eq!(ours.len(), 1, "{err}");
        assert!(ours[0].contains(needle), "{err}");
        assert_eq!(o.status.code(), Some(code), "{err}");
    };
    // A bad value in one rank file, read by one process.
    let bad = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        std::fs::copy(&path, bad.path().join(path.file_name().unwrap())).unwrap();
    }
    let victim = bad.path().join("A1.00004");
    let text = std::fs::read_to_string(&victim).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[3] = "1 1 banana";
    std::fs::write(&victim, lines.join("\n")).unwrap();
    let out = work.path().join("bad");
    let bad_levels = [
        "analyze",
        "--levels-from",
        bad.path().to_str().unwrap(),
        "--nodes",
        "3",
        "--ppn",
        "2",
        "--out",
        out.to_str().unwrap(),
    ];
    fails(
        &bad_levels,
        1,
        "A1.00004: line 4: value 'banana' is not a number",
    );
    assert!(!out.exists());
    // What needs the whole matrix is refused before anything is read.
    let mut advice = bad_levels.to_vec();
    advice.push("--advice");
    fails(&advice, 2, "--advice repartitions the whole matrix");
    fails(
        &["analyze", a.to_str().unwrap(), "--nodes", "3", "--ppn", "2"],
        2,
        "or --max-levels 1 for the matrix alone",
    );
    fails(
        &["hierarchy", "gen:poisson3d:5"],
        2,
        "hierarchy runs as one process",
    );
}

#[test]
fn inconsistent_levels_name_the_file() {
    let fails = |edit: &dyn Fn(&Path), needle: &str| {
        let d = tempfile::tempdir().unwrap();
        for e in std::fs::read_dir("tests/data/hypre").unwrap() {
            let path = e.unwrap().path();
            std::fs::copy(&path, d.path().join(path.file_name().unwrap())).unwrap();
        }
        edit(d.path());
        let o = amgcomm(&[
            "analyze",
            "--levels-from",
            d.path().to_str().unwrap(),
            "--nodes",
            "2",
            "--ppn",
            "2",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{needle} not in {err}");
    };
    // A column block of P0 that leaves a coarse row to no rank.
    let set_cols = |d: &Path, rank: usize, lo: &str, hi: &str| {
        let f = d.join(format!("P0.{rank:05}"));
        let text = std::fs::read_to_string(&f).unwrap();
        let (head, rest) = text.split_once('\n').unwrap();
        let w: Vec<&str> = head.split(' ').collect();
        std::fs::write(&f, format!("{} {} {lo} {hi}\n{rest}", w[0], w[1])).unwrap();
    };
    fails(
        &|d: &Path| set_cols(d, 1, "15", "40"),
        "P0.00001: line 1: its columns 15-40 leave columns 14 to no rank",
    );
    // Columns that tile, but not as A1's rows: rank 0 owns coarse rows
    // 0-13, not 0-14.
    fails(
        &|d: &Path| {
            set_cols(d, 0, "0", "14");
            set_cols(d, 1, "15", "40");
        },
        "P0.00000: its ranks' columns are not A1's rows (rank 0: 0-14 against 0-13)",
    );
    // A rank file lost: its rows' columns are beyond the rest.
    fails(
        &|d: &Path| std::fs::remove_file(d.join("A2.00003")).unwrap(),
        "A2.00000: line 40: column 22 is beyond the 15 columns the rank files give",
    );
    // A P missing under a deeper A.
    fails(
        &|d: &Path| {
            for r in 0..4 {
                std::fs::remove_file(d.join(format!("P1.{r:05}"))).unwrap();
            }
        },
        "P1.00000: missing, but A2.00000 exists",
    );
}
