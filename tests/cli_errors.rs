//! Bad input through the real binary: one clear line on stderr naming the
//! problem, a non-zero exit that is not a panic, nothing the user gave lost.

use std::path::Path;
use std::process::{Command, Output};

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("binary runs")
}

/// Run, expect failure with exactly one stderr line containing every needle.
fn fails_with(args: &[&str], needles: &[&str]) -> String {
    let out = amgcomm(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let code = out.status.code();
    assert!(
        code.is_some() && code != Some(0) && code != Some(101),
        "exit {code:?} for {args:?}: {stderr}"
    );
    assert_eq!(
        stderr.lines().count(),
        1,
        "not one line for {args:?}:\n{stderr}"
    );
    assert!(stderr.starts_with("amgcomm: "), "{stderr}");
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "internal error"] {
        assert!(!stderr.contains(bad), "{bad} in {stderr}");
    }
    for n in needles {
        assert!(stderr.contains(n), "expected '{n}' in: {stderr}");
    }
    assert!(out.stdout.is_empty(), "stdout not empty for {args:?}");
    stderr
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

const HEAD: &str = "%%MatrixMarket matrix coordinate real general\n";

#[test]
fn missing_file() {
    fails_with(
        &["info", "no/such/file.mtx"],
        &["no/such/file.mtx", "no such file"],
    );
}

#[test]
fn empty_file() {
    let d = tempfile::tempdir().unwrap();
    let f = write(d.path(), "empty.mtx", b"");
    fails_with(&["info", &f], &[&f, "empty file"]);
}

#[test]
fn wrong_banner() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "b.mtx",
        b"%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n",
    );
    fails_with(&["info", &f], &[&f, "line 1", "not a Matrix Market file"]);
    let g = write(
        d.path(),
        "bin.mtx",
        &(0..=255u8).cycle().take(600).collect::<Vec<u8>>(),
    );
    fails_with(&["info", &g], &[&g, "not a Matrix Market file"]);
}

#[test]
fn size_line_does_not_parse() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "s.mtx",
        format!("{HEAD}% comment\n4 four 2\n1 1 1\n").as_bytes(),
    );
    fails_with(
        &["info", &f],
        &[&f, "line 3", "size line '4 four 2' does not parse"],
    );
    let g = write(d.path(), "t.mtx", format!("{HEAD}4 4\n").as_bytes());
    fails_with(&["info", &g], &[&g, "line 2", "ROWS COLS ENTRIES"]);
}

#[test]
fn index_out_of_range_names_the_line() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "i.mtx",
        format!("{HEAD}3 3 3\n1 1 1\n2 2 1\n3 7 1\n").as_bytes(),
    );
    fails_with(
        &["info", &f],
        &[&f, "line 5", "column index 7 is out of range 1..=3"],
    );
    let g = write(
        d.path(),
        "z.mtx",
        format!("{HEAD}3 3 1\n0 1 1\n").as_bytes(),
    );
    fails_with(
        &["info", &g],
        &[&g, "line 3", "row index 0 is out of range", "1-based"],
    );
}

#[test]
fn fewer_entries_than_announced() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "f.mtx",
        format!("{HEAD}3 3 4\n1 1 1\n2 2 1\n").as_bytes(),
    );
    fails_with(
        &["info", &f],
        &[&f, "announces 4 entries but the file ends after 2"],
    );
}

#[test]
fn more_entries_than_announced() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "m.mtx",
        format!("{HEAD}3 3 2\n1 1 1\n2 2 1\n3 3 1\n").as_bytes(),
    );
    fails_with(&["info", &f], &[&f, "line 5", "more entries than the 2"]);
}

#[test]
fn value_not_a_number() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "v.mtx",
        format!("{HEAD}3 3 2\n1 1 1.0\n2 2 1,5\n").as_bytes(),
    );
    fails_with(
        &["info", &f],
        &[&f, "line 4", "value '1,5' is not a number"],
    );
}

#[test]
fn truncated_gzip() {
    let d = tempfile::tempdir().unwrap();
    let full = std::fs::read("tests/data/reference/beam_tet_2k.mtx.gz").unwrap();
    let f = write(d.path(), "cut.mtx.gz", &full[..full.len() / 2]);
    fails_with(&["info", &f], &[&f, "truncated or corrupt gzip"]);
}

#[test]
fn complex_and_hermitian_are_refused_clearly() {
    let d = tempfile::tempdir().unwrap();
    let f = write(
        d.path(),
        "c.mtx",
        b"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
    );
    fails_with(&["info", &f], &[&f, "complex matrices are not supported"]);
    let h = write(
        d.path(),
        "h.mtx",
        b"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n",
    );
    fails_with(&["info", &h], &[&h, "hermitian matrices are not supported"]);
}

#[test]
fn directory_as_input() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().to_str().unwrap();
    fails_with(&["info", p], &[p, "is a directory"]);
}

#[test]
fn bad_flags_and_specs() {
    fails_with(
        &["info", "x.mtx", "--jsn"],
        &["unexpected argument '--jsn'"],
    );
    fails_with(
        &["generate", "cube", "--n", "3", "-o", "x.mtx"],
        &[
            "invalid value 'cube'",
            "possible values: elasticity3d, beam, poisson3d",
        ],
    );
    fails_with(
        &["generate", "poisson3d", "--n", "three", "-o", "x.mtx"],
        &["'three'", "--n"],
    );
    fails_with(
        &["generate", "poisson3d", "-o", "x.mtx"],
        &["required", "--n"],
    );
    fails_with(
        &["generate", "poisson3d", "--n", "0", "-o", "x.mtx"],
        &["at least 1"],
    );
    fails_with(
        &[
            "generate",
            "elasticity3d",
            "--n",
            "2",
            "--poisson-ratio",
            "0.5",
            "-o",
            "x.mtx",
        ],
        &["Poisson's ratio"],
    );
    fails_with(
        &["info", "gen:elasticity3d:abc"],
        &["gen:elasticity3d:abc", "not a positive integer"],
    );
    fails_with(&["info", "gen:torus:3"], &["unknown kind 'torus'"]);
    fails_with(
        &["info", "gen:poisson2d:3", "--spy", "x.jpg"],
        &["--spy", "x.jpg", ".png or .svg"],
    );
    assert!(!Path::new("x.jpg").exists());
    assert!(!Path::new("x.mtx").exists());
}

#[test]
fn failed_write_leaves_nothing_behind_and_keeps_existing_files() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("no/such/dir/out.mtx");
    fails_with(
        &[
            "generate",
            "poisson2d",
            "--n",
            "4",
            "-o",
            target.to_str().unwrap(),
        ],
        &["--output", "out.mtx", "the folder", "does not exist"],
    );
    // A directory in the way: refused before anything is made; the
    // directory and its content survive, no temporary file is left.
    let blocker = d.path().join("taken.mtx");
    std::fs::create_dir(&blocker).unwrap();
    std::fs::write(blocker.join("keep"), b"mine").unwrap();
    fails_with(
        &[
            "generate",
            "poisson2d",
            "--n",
            "4",
            "-o",
            blocker.to_str().unwrap(),
        ],
        &["taken.mtx", "is a folder, not a file"],
    );
    assert_eq!(std::fs::read(blocker.join("keep")).unwrap(), b"mine");
    let leftovers: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("taken.mtx")]);
}

#[test]
fn help_and_version_succeed() {
    let out = amgcomm(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("generate") && text.contains("info"));
    assert!(amgcomm(&["--version"]).status.success());
}

/// Without the mpi feature the measured side says how to get it: exit 2,
/// one line, before anything is read or written.
#[cfg(not(feature = "mpi"))]
#[test]
fn calibrate_and_replay_name_the_mpi_feature() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("m.json");
    let o = out.to_str().unwrap();
    for args in [
        vec!["calibrate", "--out", o],
        vec!["replay", "no/such/dir", "--iterations", "3", "--out", o],
    ] {
        let e = fails_with(&args, &["needs MPI", "--features mpi", "mpirun"]);
        assert!(
            e.starts_with(&format!("amgcomm: {} needs MPI", args[0])),
            "{e}"
        );
        assert_eq!(amgcomm(&args).status.code(), Some(2));
    }
    assert!(!out.exists());
    // Flag errors come first, as for every command.
    fails_with(
        &["replay", "x", "--iterations", "0", "--out", o],
        &["--iterations", "0 is not in 1..=1000000"],
    );
}

/// `amgcomm --help` names every kind of INPUT and every generator, and
/// the guide's command list (docs/commands.md) holds every command `--help` lists, and no
/// other (issue 30).
#[test]
fn the_help_and_the_readme_list_every_input_and_command() {
    let o = amgcomm(&["--help"]);
    assert!(o.status.success());
    let help = String::from_utf8_lossy(&o.stdout).to_string();
    for kind in [
        "Matrix Market",
        ".mtx.gz",
        "PETSc binary",
        "hypre IJ",
        "path/A.00000",
        "- for standard input",
        "gen:KIND:N",
        "--levels-from",
    ] {
        assert!(help.contains(kind), "--help lacks {kind}: {help}");
    }
    for generator in [
        "elasticity3d",
        "beam",
        "poisson3d",
        "poisson3d-27",
        "poisson2d",
    ] {
        assert!(help.contains(generator), "--help lacks gen:{generator}");
    }
    // The commands --help lists, against the guide's block of usages.
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    let readme = std::fs::read_to_string("docs/commands.md").unwrap();
    let block = readme
        .split("```")
        .skip(1)
        .step_by(2)
        .find(|b| b.contains("amgcomm info INPUT"))
        .unwrap();
    let listed: std::collections::BTreeSet<&str> = block
        .lines()
        .filter_map(|l| {
            let l = l
                .trim_start_matches("mpirun -n P ")
                .trim_start_matches("mpirun -n K ");
            l.strip_prefix("amgcomm ")?.split_whitespace().next()
        })
        .collect();
    let given: std::collections::BTreeSet<&str> = commands.iter().map(String::as_str).collect();
    assert_eq!(listed, given, "docs/commands.md's block against --help");
    // Its INPUT paragraph names the same kinds.
    for kind in [
        "Matrix Market",
        "PETSc binary",
        "hypre IJ",
        "standard input",
        "gen:KIND:N",
    ] {
        assert!(
            block.contains("INPUT") && readme.contains(kind),
            "docs/commands.md lacks {kind}"
        );
    }
}

/// Every JSON file amgcomm reads names a field it does not know, with the
/// nearest known one: a machine file (a required parameter, an optional
/// one among the locality classes, a network field), a measured file and
/// a pattern file's header.
#[test]
fn json_readers_name_unknown_fields_and_the_nearest_known() {
    let d = tempfile::tempdir().unwrap();
    let shown = amgcomm(&["machine", "show", "elcapitan", "--json"]);
    assert!(shown.status.success());
    let machine = String::from_utf8(shown.stdout).unwrap();
    let cases = [
        (
            "\"delta\"",
            "\"dleta\"",
            "unknown field `dleta` in params (did you mean `delta`?)",
        ),
        (
            "\"nics\"",
            "\"nic\"",
            "unknown field `nic` in params (did you mean `nics`?)",
        ),
        (
            "\"ppn\"",
            "\"ppm\"",
            "unknown field `ppm` in the top level (did you mean `ppn`?)",
        ),
        (
            "\"groups\"",
            "\"grups\"",
            "unknown field `grups` in network (did you mean `groups`?)",
        ),
        (
            "\"h2d\"",
            "\"hd2\"",
            "unknown field `hd2` in gpus (did you mean `h2d`?)",
        ),
    ];
    for (k, (from, to, said)) in cases.into_iter().enumerate() {
        assert!(machine.contains(from), "{from}");
        let f = write(
            d.path(),
            &format!("m{k}.json"),
            machine.replacen(from, to, 1).as_bytes(),
        );
        fails_with(&["machine", "show", &f], &[said]);
    }
    let measured = write(
        d.path(),
        "measured.json",
        br#"{"format": "amgcomm-measured", "version": 1, "ranks": 16,
            "levels": [{"level": 0, "spmv": {"seconds": 1e-5, "max_msg": 3}}]}"#,
    );
    fails_with(
        &[
            "analyze",
            "gen:poisson2d:20",
            "--nodes",
            "1",
            "--measured",
            &measured,
        ],
        &["unknown field `max_msg` in levels[0].spmv (did you mean `max_msgs`?)"],
    );
}
