//! What several test files share: RAPtor's Blue Waters logs, written by
//! the tests from the figures of `tests/data/raptor/lin_elas_128.csv` (the
//! project commits no log RAPtor printed); the binary run in a folder, and
//! the reliability contract's check of a refusal.

#![allow(dead_code)]

pub mod hypre;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use amgcomm::comm::Op;
use amgcomm::measured::raptor_log::{write, Printed};

/// The run that printed every level (7, the coarsest without `A*P`).
pub const RUN: &str = "8509518";
/// The run killed after printing `Level 5`.
pub const KILLED: &str = "8509542";

/// The blocks of `run` in the table, in order.
pub fn blocks(run: &str) -> Vec<Printed> {
    let text = std::fs::read_to_string("tests/data/raptor/lin_elas_128.csv").unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("run,"))
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[0] == run)
        .map(|f| Printed {
            level: f[1].parse().unwrap(),
            op: if f[2] == "spmv" { Op::Spmv } else { Op::Spgemm },
            max_msgs: f[3].parse().unwrap(),
            total_bytes: f[4].parse().unwrap(),
            active_processes: f[5].parse().unwrap(),
            comm_time: f[6].to_string(),
        })
        .collect()
}

/// `run`'s log in RAPtor's format: the killed run ends on its last
/// `Level 5` and the batch system's report of the kill.
pub fn log(run: &str) -> String {
    let tail = match run {
        KILLED => "Level 5\nApplication 66270251 exit codes: 139\nApplication 66270251 exit signals: Killed\n",
        _ => "Application 66270168 resources: utime ~38208s, stime ~5964s\n",
    };
    write(&blocks(run), tail)
}

/// Writes both logs as `dir/tests/data/raptor/lin_elas_128_<run>.bw.out`
/// (the names the commands in the README use) and returns that relative
/// path of `run`'s, for commands run in `dir`.
pub fn write_logs(dir: &Path) -> [PathBuf; 2] {
    let folder = dir.join("tests/data/raptor");
    std::fs::create_dir_all(&folder).unwrap();
    [RUN, KILLED].map(|run| {
        let name = format!("lin_elas_128_{run}.bw.out");
        std::fs::write(folder.join(&name), log(run)).unwrap();
        Path::new("tests/data/raptor").join(name)
    })
}

/// `amgcomm args` run in `dir`.
pub fn amgcomm(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("binary runs")
}

/// Failed with `code`, one line `amgcomm: ...` holding every needle and
/// no debug or OS text, nothing on stdout. Returns the line.
pub fn refused(o: &Output, code: i32, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "not one line: {err}");
    assert!(err.starts_with("amgcomm: "), "{err}");
    for raw in [
        "os error",
        "Os {",
        "Error(",
        "Kind(",
        "panicked",
        "internal error",
        "stream did not contain",
    ] {
        assert!(!err.contains(raw), "'{raw}' in {err}");
    }
    for n in needles {
        assert!(err.contains(n), "'{n}' not in {err}");
    }
    assert!(o.stdout.is_empty());
    err.trim_end().to_string()
}

/// Succeeded; its standard error.
pub fn ok(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    err.to_string()
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A small symmetric matrix file in `dir`.
pub fn matrix(dir: &Path, name: &str) -> String {
    ok(&amgcomm(
        dir,
        &["generate", "poisson2d", "--n", "12", "-o", name],
    ));
    name.to_string()
}

/// Equal to a relative 1e-9 (both 0 included).
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-300
}
