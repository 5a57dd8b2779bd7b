//! The hypre preset against real hypre (issue 50): BoomerAMG's levels
//! recorded on 1 to 64 ranks (`tests/data/hypre/`), hypre's own dumped
//! levels and values, and, with the `mpi` feature, hypre's programs
//! (`tools/hypre_levels.c`, `tools/hypre_dump_levels.c`) built and run
//! here under `mpirun`: the same rows and nonzeros on every level, the
//! same values, the same messages.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::hypre::{amgcomm, analyze_json, read_files};
#[cfg(feature = "mpi")]
use common::hypre::{compile, hypre_dump, hypre_dump_with, mpirun};

/// `amgcomm hierarchy INPUT --preset hypre` as `(rows, nnz)` per level.
fn preset_levels(input: &str, num_functions: usize) -> Vec<(u64, u64)> {
    preset_levels_on(input, num_functions, &[])
}

/// [`preset_levels`] with more flags (the ranks, a partition).
fn preset_levels_on(input: &str, num_functions: usize, more: &[&str]) -> Vec<(u64, u64)> {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("h.json");
    let nf = num_functions.to_string();
    let mut args = vec![
        "hierarchy",
        input,
        "--preset",
        "hypre",
        "--num-functions",
        &nf,
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend(more);
    let out = amgcomm(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    v["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["rows"].as_u64().unwrap(), l["nnz"].as_u64().unwrap()))
        .collect()
}

/// BoomerAMG's levels on 2 to 64 ranks, recorded by
/// `scripts/record_hypre_ranks.sh` (`tools/hypre_levels.c` under `mpirun`)
/// in `tests/data/hypre/boomeramg_ranks.csv`: the hypre preset built on the
/// same ranks has the same rows and nonzeros on every level, and as many
/// levels: the 7-point and 27-point Laplacians, 3D elasticity with
/// `--num-functions 3`, on contiguous blocks, METIS's partition and a
/// random one (each rank's rows renumbered into a block, as hypre needs);
/// MFEM's beam (rows in its refinement's order, two materials) on 2 to 64
/// ranks.
#[test]
fn the_hypre_preset_builds_boomeramgs_levels_on_the_ranks() {
    let table = std::fs::read_to_string("tests/data/hypre/boomeramg_ranks.csv").unwrap();
    type Run = (String, usize, usize, String);
    let mut runs: BTreeMap<Run, Vec<(u64, u64)>> = BTreeMap::new();
    for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (
            f[0].to_string(),
            f[1].parse().unwrap(),
            f[2].parse().unwrap(),
            f[3].to_string(),
        );
        runs.entry(key)
            .or_default()
            .push((f[5].parse().unwrap(), f[6].parse().unwrap()));
    }
    assert_eq!(runs.len(), 28);
    for ((input, nf, ranks, partition), hypre) in runs {
        let p = ranks.to_string();
        let got = preset_levels_on(&input, nf, &["--ranks", &p, "--partition", &partition]);
        assert_eq!(got, hypre, "{input} on {ranks} ranks ({partition})");
    }
}

/// The stronger check: the levels hypre wrote with their own ranks
/// (`tools/hypre_dump_levels.c`, read with `--levels-from`) and the hypre
/// preset set up from the dump's matrix on the same ranks (its rank files
/// are the partition) give every level the same messages and bytes of
/// every operation.
fn dump_and_preset_agree(dir: &Path, machine: &[&str]) {
    let work = tempfile::tempdir().unwrap();
    let run = |input: &[&str], name: &str| -> serde_json::Value {
        let mut args = input.to_vec();
        args.extend(machine);
        args.extend(["--ops", "spmv,spgemm,ptap,interp,restrict"]);
        analyze_json(work.path(), name, &args)
    };
    let a = dir.join("A");
    let dumped = run(&["--levels-from", dir.to_str().unwrap()], "dumped");
    let built = run(&[a.to_str().unwrap()], "built");
    assert_eq!(dumped["hierarchy"]["levels"], built["hierarchy"]["levels"]);
    let (d, b) = (
        dumped["levels"].as_array().unwrap(),
        built["levels"].as_array().unwrap(),
    );
    assert!(d.len() >= 3);
    let mut checked = 0;
    for (ld, lb) in d.iter().zip(b) {
        let ops = ld["ops"].as_object().unwrap();
        for (op, x) in ops {
            if x.is_null() {
                continue;
            }
            let y = &lb["ops"][op];
            let level = &ld["level"];
            assert_eq!(x["messages"], y["messages"], "level {level} {op}");
            assert_eq!(x["bytes"], y["bytes"], "level {level} {op}");
            checked += 1;
        }
    }
    assert!(checked >= 4 * d.len() - 4, "{checked} level-operations");
}

/// hypre's levels as its rank files hold them (`dir/A0`, `dir/P0`, ...)
/// and the hypre preset's, set up on the ranks of `dir/A`: the same
/// entries with the same values to the 15 digits hypre prints, operator
/// and interpolation on every level. The values are what the next level
/// is decided from (strength, truncation), so this is where a sum taken
/// in another order or a wrong rule for a neighbour's row would show.
fn preset_values_are_hypres(dir: &Path) -> usize {
    let work = tempfile::tempdir().unwrap();
    let saved = work.path().join("levels");
    let out = amgcomm(&[
        "hierarchy",
        dir.join("A").to_str().unwrap(),
        "--preset",
        "hypre",
        "--save-levels",
        saved.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut compared = 0;
    for level in 0.. {
        let mut found = false;
        for m in ["A", "P"] {
            let files = read_files(&dir.join(format!("{m}{level}")));
            if files.ranges.is_empty() {
                continue;
            }
            found = true;
            let theirs: BTreeMap<(usize, usize), f64> =
                files.entries.into_iter().zip(files.values).collect();
            let path = saved.join(format!("{m}{level}.mtx"));
            let ours: BTreeMap<(usize, usize), f64> =
                amgcomm::matrix::source::Source::parse(path.to_str().unwrap())
                    .unwrap()
                    .load(None)
                    .unwrap()
                    .csr
                    .iter()
                    .map(|(&x, (i, j))| ((i as usize, j as usize), x))
                    .collect();
            let missing = (theirs.keys()).find(|at| !ours.contains_key(at));
            assert_eq!(
                missing, None,
                "{m}{level}: an entry of hypre's, not amgcomm's"
            );
            assert_eq!(ours.len(), theirs.len(), "{m}{level}: entries");
            let big = theirs.values().fold(0.0f64, |b, v| b.max(v.abs()));
            for (at, &y) in &theirs {
                let x = ours[at];
                assert!(
                    (x - y).abs() <= 1e-13 * y.abs() + 1e-14 * big,
                    "{m}{level} {at:?}: {x} against hypre's {y}"
                );
            }
            compared += theirs.len();
        }
        if !found {
            assert!(level >= 3, "{} holds {level} levels", dir.display());
            break;
        }
    }
    compared
}

/// The committed dump (4 ranks of uneven row blocks).
#[test]
fn the_hypre_preset_computes_hypres_values() {
    assert!(preset_values_are_hypres(Path::new("tests/data/hypre")) > 1000);
}

/// A fresh dump on 8 ranks of a 20^3 Laplacian: ranks of two and a half
/// planes, whose strong F neighbours are often on the same rank and often
/// not.
#[cfg(feature = "mpi")]
#[test]
fn the_hypre_preset_computes_hypres_values_on_8_ranks() {
    let work = hypre_dump(8, 20);
    assert!(preset_values_are_hypres(&work.path().join("dump")) > 100_000);
}

#[test]
fn hypres_dumped_levels_and_the_preset_on_their_ranks_send_the_same_messages() {
    dump_and_preset_agree(
        Path::new("tests/data/hypre"),
        &["--nodes", "2", "--ppn", "2"],
    );
}

/// BoomerAMG's own levels (hypre 2.26, its defaults, 1 rank), recorded by
/// `tools/hypre_levels.c` in `tests/data/hypre/boomeramg_levels.csv`: the
/// hypre preset builds the same rows and nonzeros on every level, and as
/// many levels, for the 7-point Laplacian and for 3D elasticity with hypre's
/// unknown approach (`--num-functions 3`).
#[test]
fn the_hypre_preset_builds_boomeramgs_levels() {
    let table = std::fs::read_to_string("tests/data/hypre/boomeramg_levels.csv").unwrap();
    let mut runs: BTreeMap<(String, usize), Vec<(u64, u64)>> = BTreeMap::new();
    for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let key = (f[0].to_string(), f[1].parse().unwrap());
        runs.entry(key)
            .or_default()
            .push((f[3].parse().unwrap(), f[4].parse().unwrap()));
    }
    assert_eq!(runs.len(), 5);
    for ((input, nf), hypre) in runs {
        assert_eq!(preset_levels(&input, nf), hypre, "{input}");
    }
}

/// Builds `tools/hypre_levels.c` and runs it on 1 rank: `(rows, nnz)` per
/// level of BoomerAMG's setup.
#[cfg(feature = "mpi")]
fn boomeramg_levels(work: &Path, matrix: &str, num_functions: usize) -> Vec<(u64, u64)> {
    boomeramg_levels_on(work, matrix, num_functions, 1, None)
}

/// [`boomeramg_levels`] on `ranks` ranks, their rows contiguous blocks or
/// those of a partition file.
#[cfg(feature = "mpi")]
fn boomeramg_levels_on(
    work: &Path,
    matrix: &str,
    num_functions: usize,
    ranks: usize,
    partition: Option<&Path>,
) -> Vec<(u64, u64)> {
    let exe = work.join("hypre_levels");
    if !exe.exists() {
        compile("tools/hypre_levels.c", &exe);
    }
    let nf = num_functions.to_string();
    let mut args = vec![matrix, &nf];
    if let Some(p) = partition {
        args.push(p.to_str().unwrap());
    }
    let run = mpirun(ranks, &exe, &args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8_lossy(&run.stdout)
        .lines()
        .filter(|l| !l.starts_with("setup_seconds"))
        .map(|l| {
            let w: Vec<u64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            (w[1], w[2])
        })
        .collect()
}

/// `amgcomm generate ARGS -o dir/NAME`: the file's path.
#[cfg(feature = "mpi")]
fn generated(dir: &Path, name: &str, args: &[&str]) -> String {
    let path = dir.join(name);
    let path = path.to_str().unwrap();
    let mut all = vec!["generate"];
    all.extend(args);
    all.extend(["-o", path]);
    common::ok(&amgcomm(&all));
    path.to_string()
}

/// `amgcomm generate elasticity3d --n N` into `dir`: the file's path.
#[cfg(feature = "mpi")]
fn elasticity(dir: &Path, n: usize) -> String {
    let n = n.to_string();
    generated(dir, &format!("el{n}.mtx"), &["elasticity3d", "--n", &n])
}

/// Real hypre, run here: the preset's levels equal BoomerAMG's on a 3D
/// Laplacian built by the program and on a 3D elasticity matrix amgcomm
/// writes (`--num-functions 3`), read by both.
#[cfg(feature = "mpi")]
#[test]
fn the_hypre_preset_equals_boomeramg_run_here() {
    let work = tempfile::tempdir().unwrap();
    assert_eq!(
        preset_levels("gen:poisson3d:30", 1),
        boomeramg_levels(work.path(), "lap:30", 1)
    );
    let el = elasticity(work.path(), 12);
    assert_eq!(preset_levels(&el, 3), boomeramg_levels(work.path(), &el, 3));
}

/// Real hypre, run here on 2, 4, 8 and 16 ranks: the preset set up on the
/// same ranks has BoomerAMG's levels, for a 3D Laplacian, the same
/// Laplacian renumbered at random (every rank's rows coupled to most
/// others') and 3D elasticity with `--num-functions 3`, on contiguous
/// blocks and on a METIS partition file.
#[cfg(feature = "mpi")]
#[test]
fn the_hypre_preset_equals_boomeramg_on_2_to_16_ranks() {
    let work = tempfile::tempdir().unwrap();
    let el = elasticity(work.path(), 8);
    let el = el.as_str();
    let renumbered = generated(
        work.path(),
        "renumbered.mtx",
        &["poisson3d", "--n", "20", "--permute", "7"],
    );
    let renumbered = renumbered.as_str();
    for ranks in [2, 4, 8, 16] {
        let p = ranks.to_string();
        let on = ["--ranks", p.as_str()];
        assert_eq!(
            preset_levels_on("gen:poisson3d:20", 1, &on),
            boomeramg_levels_on(work.path(), "lap:20", 1, ranks, None),
            "Laplacian on {ranks} ranks"
        );
        assert_eq!(
            preset_levels_on(renumbered, 1, &on),
            boomeramg_levels_on(work.path(), renumbered, 1, ranks, None),
            "renumbered Laplacian on {ranks} ranks"
        );
        assert_eq!(
            preset_levels_on(el, 3, &on),
            boomeramg_levels_on(work.path(), el, 3, ranks, None),
            "elasticity on {ranks} ranks"
        );
    }
    let part = work.path().join("metis.part");
    let o = amgcomm(&[
        "partition",
        "gen:poisson3d:20",
        "--method",
        "metis",
        "--parts",
        "4",
        "-o",
        part.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(
        preset_levels_on(
            "gen:poisson3d:20",
            1,
            &["--ranks", "4", "--partition", part.to_str().unwrap()]
        ),
        boomeramg_levels_on(work.path(), "lap:20", 1, 4, Some(&part)),
    );
}

/// The program's fresh dump on 6 ranks: its levels and the preset on its
/// ranks send the same messages on every level.
#[cfg(feature = "mpi")]
#[test]
fn a_fresh_dump_and_the_preset_on_its_ranks_send_the_same_messages() {
    let work = hypre_dump(6, 16);
    dump_and_preset_agree(&work.path().join("dump"), &["--nodes", "3", "--ppn", "2"]);
}

/// The same with the grid points renumbered at random (the program's
/// `renumber=7`): every rank's rows couple to most other ranks', so each
/// level's offd blocks, column maps and packages are large and scattered.
/// Same messages on every level, and hypre's values.
#[cfg(feature = "mpi")]
#[test]
fn a_fresh_renumbered_dump_and_the_preset_agree() {
    let work = hypre_dump_with(6, 16, &["renumber=7"]);
    let dump = work.path().join("dump");
    dump_and_preset_agree(&dump, &["--nodes", "3", "--ppn", "2"]);
    assert!(preset_values_are_hypres(&dump) > 80_000);
}
