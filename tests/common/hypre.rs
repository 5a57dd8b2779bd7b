//! What the tests of hypre's output share (`tests/hypre.rs`,
//! `tests/hypre_preset.rs`): the binary, hypre's rank files read back,
//! `analyze`'s JSON, and hypre's programs built and run under `mpirun`.

use std::path::Path;
use std::process::{Command, Output};

/// The binary with `args`, in the repository's folder.
pub fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// One matrix of hypre rank files: each rank's row range and entries.
pub struct Files {
    pub ranges: Vec<(usize, usize)>,
    /// (row, column) of every stored entry.
    pub entries: Vec<(usize, usize)>,
    /// The value of each entry.
    pub values: Vec<f64>,
}

pub fn read_files(prefix: &Path) -> Files {
    let mut ranges = Vec::new();
    let mut entries = Vec::new();
    let mut values = Vec::new();
    for r in 0.. {
        let path = format!("{}.{r:05}", prefix.display());
        let Ok(text) = std::fs::read_to_string(&path) else {
            break;
        };
        let mut lines = text.lines();
        let head: Vec<i64> = lines
            .next()
            .unwrap()
            .split_whitespace()
            .map(|w| w.parse().unwrap())
            .collect();
        let (lo, hi) = (head[0], head[1] + 1);
        ranges.push(if hi > lo {
            (lo as usize, hi as usize)
        } else {
            (0, 0)
        });
        for l in lines {
            let w: Vec<&str> = l.split_whitespace().collect();
            entries.push((w[0].parse().unwrap(), w[1].parse().unwrap()));
            values.push(w[2].parse().unwrap());
        }
    }
    Files {
        ranges,
        entries,
        values,
    }
}

/// `amgcomm analyze ARGS` with its report in `work/NAME` and its JSON
/// (`work/NAME.json`) read back; the run must succeed.
pub fn analyze_json(work: &Path, name: &str, args: &[&str]) -> serde_json::Value {
    let json = work.join(format!("{name}.json"));
    let out = work.join(name);
    let mut all = vec!["analyze"];
    all.extend(args);
    all.extend([
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = amgcomm(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// One mpirun at a time: the tests run in parallel threads, and ranks
/// beyond the cores make each run slower.
#[cfg(feature = "mpi")]
pub static MPIRUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `mpirun -n k` of `exe` with `args`, as root if need be.
#[cfg(feature = "mpi")]
pub fn mpirun(k: usize, exe: &Path, args: &[&str]) -> Output {
    let _one = MPIRUN.lock().unwrap_or_else(|e| e.into_inner());
    Command::new("mpirun")
        .args(["-n", &k.to_string(), "--oversubscribe"])
        .arg(exe)
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("mpirun on PATH (apt-get install openmpi-bin)")
}

/// `mpicc -O2 SOURCE` against Debian's hypre, into `exe`.
#[cfg(feature = "mpi")]
pub fn compile(source: &str, exe: &Path) {
    let cc = Command::new("mpicc")
        .args([
            "-O2",
            source,
            "-I/usr/include/hypre",
            "-lHYPRE",
            "-lm",
            "-o",
        ])
        .arg(exe)
        .output()
        .expect("mpicc on PATH (apt-get install libopenmpi-dev libhypre-dev)");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
}

/// Builds `tools/hypre_dump_levels.c` (mpicc, hypre's headers) and runs
/// it on `ranks` ranks for an `n^3` Laplacian, as `.ci/run` does with the
/// packages it installs: the folder of its files.
#[cfg(feature = "mpi")]
pub fn hypre_dump(ranks: usize, n: usize) -> tempfile::TempDir {
    hypre_dump_with(ranks, n, &[])
}

/// [`hypre_dump`] with the program's options after `N` (`solve`,
/// `renumber=SEED`).
#[cfg(feature = "mpi")]
pub fn hypre_dump_with(ranks: usize, n: usize, options: &[&str]) -> tempfile::TempDir {
    let work = tempfile::tempdir().unwrap();
    let exe = work.path().join("hypre_dump_levels");
    compile("tools/hypre_dump_levels.c", &exe);
    let out = work.path().join("dump");
    std::fs::create_dir(&out).unwrap();
    let n_arg = n.to_string();
    let mut args = vec![out.to_str().unwrap(), n_arg.as_str()];
    args.extend(options);
    let run = mpirun(ranks, &exe, &args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let said = format!("of a {n}^3 Laplacian on {ranks} ranks");
    assert!(String::from_utf8_lossy(&run.stdout).contains(&said));
    work
}
