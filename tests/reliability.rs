//! The reliability contract of the README, through the real binary: exit
//! status 2 for how amgcomm was asked (found before any input is read), 1
//! for bad data; one line `amgcomm: ...` in user terms; bounded memory on
//! hostile input; implausible machines refused and suspect hierarchies
//! warned about. What becomes of the user's files and of the outputs is
//! `tests/reliability_outputs.rs`.

mod common;

use common::{amgcomm, matrix, names, ok, refused};

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `amgcomm args` in `dir` with `input` on its standard input.
fn with_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The reader may stop early (and close the pipe): ignore EPIPE.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn usage_errors_exit_2_before_any_input_is_read() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    // The input does not exist: a usage error reported instead of "no
    // such file" was found before the input was touched.
    let missing = "missing.mtx";
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["analyze", missing, "--theta", "2"],
            vec!["--theta", "[0, 1], got 2"],
        ),
        (
            vec!["analyze", missing, "--theta", "-0.5"],
            vec!["--theta", "got -0.5"],
        ),
        (
            vec!["analyze", missing, "--max-levels", "0"],
            vec!["--max-levels", "at least 1"],
        ),
        (
            vec!["analyze", missing, "--nodes", "0"],
            vec!["--nodes must be at least 1"],
        ),
        (
            vec!["info", missing, "--spy", "x.jpg"],
            vec!["--spy x.jpg", ".png or .svg"],
        ),
        (
            vec!["info", missing, "--spy", "/nonexistent/x.png"],
            vec!["--spy /nonexistent/x.png: the folder /nonexistent does not exist"],
        ),
        (
            vec!["analyze", missing, "--json", "/nonexistent/r.json"],
            vec!["--json /nonexistent/r.json: the folder /nonexistent does not exist"],
        ),
        (
            vec!["analyze", missing, "--json", "."],
            vec!["--json .: is a folder, not a file"],
        ),
        (
            vec!["analyze", missing, "--out", "/proc/x/y"],
            vec!["--out /proc/x/y: cannot write in /proc"],
        ),
        (
            vec!["partition", missing, "--parts", "4", "-o", "."],
            vec!["--output .: is a folder"],
        ),
        (
            vec!["hierarchy", missing, "--save-levels", "/proc/1/levels"],
            vec!["--save-levels /proc/1/levels: cannot write in /proc/1"],
        ),
        (
            vec!["analyze", "--levels-from", missing, "--theta", "0.5"],
            vec!["'--levels-from <DIR>' cannot be used with '--theta <THETA>'"],
        ),
        (
            vec!["analyze", "--levels-from", missing, "--permute", "1"],
            vec!["cannot be used with '--permute <SEED>'"],
        ),
    ];
    for (args, needles) in cases {
        refused(&amgcomm(d, &args), 2, &needles);
    }
    // Flags of generate and generator specs: before anything is made.
    refused(
        &amgcomm(
            d,
            &[
                "generate",
                "elasticity3d",
                "--n",
                "60",
                "--young",
                "0",
                "-o",
                "y.mtx",
            ],
        ),
        2,
        &["--young: Young's modulus must be positive, got 0"],
    );
    refused(
        &amgcomm(
            d,
            &[
                "generate",
                "elasticity3d",
                "--n",
                "4",
                "--poisson-ratio",
                "-1.5",
                "-o",
                "y.mtx",
            ],
        ),
        2,
        &["--poisson-ratio", "(-1, 0.5)", "got -1.5"],
    );
    refused(
        &amgcomm(d, &["hierarchy", "gen:poisson3d:16", "--preset", "raptor-elasticity"]),
        2,
        &["gen:poisson3d:16: its 4096 rows are not a multiple of --num-functions 3 (the raptor-elasticity preset's)"],
    );
    assert!(names(d).is_empty(), "{:?}", names(d));
}

#[test]
fn auxetic_materials_are_accepted() {
    let d = tempfile::tempdir().unwrap();
    let o = amgcomm(
        d.path(),
        &[
            "generate",
            "elasticity3d",
            "--n",
            "3",
            "--poisson-ratio",
            "-0.2",
            "-o",
            "aux.mtx",
        ],
    );
    ok(&o);
    let info = amgcomm(d.path(), &["info", "aux.mtx", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    // 3 unknowns per node of a 4 x 4 x 4 grid, the clamped face x = 0 removed.
    assert_eq!(v["rows"], 3 * 3 * 4 * 4);
}

#[test]
fn requests_beyond_the_memory_are_refused_at_once() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    // 160 million ranks: the per-rank tables alone exceed this computer.
    refused(
        &amgcomm(d, &["analyze", "missing.mtx", "--nodes", "10000000"]),
        2,
        &[
            "10000000 nodes x 16 ppn = 160000000 ranks needs about",
            "of memory available",
        ],
    );
    // 3.6e9 rows: an allocation abort before; now one line, exit 2.
    refused(
        &amgcomm(d, &["info", "gen:poisson2d:60000"]),
        2,
        &[
            "gen:poisson2d:60000",
            "3600000000 rows",
            "needs about",
            "of memory available",
        ],
    );
    // A size line announcing 4e9 rows: refused from the header, whether
    // mapped, inflated or piped.
    let big = b"%%MatrixMarket matrix coordinate real general\n4000000000 4000000000 1\n1 1 1\n";
    std::fs::write(d.join("big.mtx"), big).unwrap();
    refused(
        &amgcomm(d, &["info", "big.mtx"]),
        1,
        &["big.mtx: line 2: a 4000000000 x 4000000000 matrix with 1 entries needs about"],
    );
    refused(
        &with_stdin(d, &["info", "-"], big),
        1,
        &["stdin: line 2: a 4000000000 x 4000000000 matrix"],
    );
}

/// A gzip stream of `mb` megabytes of comment lines after a banner, then
/// `tail`.
fn comment_bomb(mb: usize, tail: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(b"%%MatrixMarket matrix coordinate real general\n")
        .unwrap();
    let line = format!("%{}\n", "x".repeat(1023));
    for _ in 0..mb * 1024 {
        z.write_all(line.as_bytes()).unwrap();
    }
    z.write_all(tail).unwrap();
    z.finish().unwrap()
}

#[test]
fn hostile_compressed_files_are_refused_early() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    // 200 MB of comments and no size line (1.5 GB in the report: the
    // reader stops at 64 MB whatever the length).
    std::fs::write(d.join("bomb.mtx.gz"), comment_bomb(200, b"")).unwrap();
    refused(
        &amgcomm(d, &["info", "bomb.mtx.gz"]),
        1,
        &[
            "bomb.mtx.gz",
            "no size line in the first 64 MB (only comments), not a matrix",
        ],
    );
    // A size line for one entry, then 200 MB of comments.
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(b"%%MatrixMarket matrix coordinate real general\n3 3 1\n")
        .unwrap();
    let line = format!("%{}\n", "x".repeat(1023));
    for _ in 0..200 * 1024 {
        z.write_all(line.as_bytes()).unwrap();
    }
    z.write_all(b"1 1 1\n").unwrap();
    let body = z.finish().unwrap();
    std::fs::write(d.join("padded.mtx.gz"), &body).unwrap();
    refused(
        &amgcomm(d, &["info", "padded.mtx.gz"]),
        1,
        &[
            "padded.mtx.gz",
            "more than 64 MB of text for the entries the size line announces",
        ],
    );
    refused(
        &with_stdin(d, &["info", "-"], &body),
        1,
        &["stdin", "more than 64 MB of text"],
    );
    // Binary content is named, not echoed.
    let elf: Vec<u8> = [b"\x7fELF\x02\x01\x01".as_slice(), &[0u8; 64], &[0xffu8; 64]].concat();
    std::fs::write(d.join("prog"), &elf).unwrap();
    let line = refused(
        &amgcomm(d, &["info", "prog"]),
        1,
        &["prog: line 1", "found binary data"],
    );
    assert!(line.is_ascii(), "{line}");
}

/// Issue 20's readers against hostile headers (issue 30): sizes past 32
/// and 64 bits, negative, more than the file or the memory can hold,
/// truncated after the header. One line, exit 1, nothing allocated for
/// what the header only announces.
#[test]
fn hostile_rank_files_and_petsc_headers_are_one_line() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let ij = |name: &str, text: &str| {
        std::fs::write(d.join(format!("{name}.00000")), text).unwrap();
        amgcomm(d, &["info", name])
    };
    // 4e9 rows announced by a two-line file: refused, not allocated.
    let o = ij("huge", "0 3999999999 0 3999999999\n0 0 1.0\n");
    refused(
        &o,
        1,
        &[
            "huge.00000: line 1: 4000000000 rows",
            "needs about",
            "memory available",
        ],
    );
    refused(
        &ij("neg", "0 -5 0 3\n"),
        1,
        &["neg.00000: line 1: a negative index"],
    );
    refused(
        &ij("down", "5 2 0 3\n"),
        1,
        &["upper index 2 below lower index 5"],
    );
    let o = ij("i64", "0 9223372036854775807 0 3\n");
    refused(&o, 1, &["index 9223372036854775807 beyond 32 bits"]);
    let o = ij("past64", "0 99999999999999999999 0 3\n");
    refused(&o, 1, &["past64.00000: line 1: not a hypre IJ file"]);
    // A header alone is a block of empty rows, as hypre writes one.
    let o = ij("empty", "0 3 0 3\n");
    ok(&o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("4 x 4"));
    // The same first line as a level of a hypre levels folder.
    let lv = d.join("lv");
    std::fs::create_dir(&lv).unwrap();
    std::fs::write(lv.join("A0.00000"), "0 3999999999 0 3999999999\n0 0 1.0\n").unwrap();
    std::fs::write(lv.join("P0.00000"), "0 3999999999 0 0\n0 0 1.0\n").unwrap();
    std::fs::write(lv.join("A1.00000"), "0 0 0 0\n0 0 1.0\n").unwrap();
    let args = [
        "analyze",
        "--levels-from",
        "lv",
        "--nodes",
        "1",
        "--ppn",
        "2",
        "--partition",
        "contiguous",
    ];
    refused(
        &amgcomm(d, &args),
        1,
        &["lv/A0.00000: line 1: 4000000000 rows", "needs about"],
    );
    assert!(!d.join("reports").exists());
    // PETSc binary: big-endian class id 1211216, then rows, columns,
    // nonzeros (32- or 64-bit).
    let petsc = |name: &str, ints: &[i64], wide: bool| {
        // A 64-bit PetscInt file writes its class id 64 bits wide too.
        let mut b = match wide {
            true => 1211216i64.to_be_bytes().to_vec(),
            false => 1211216i32.to_be_bytes().to_vec(),
        };
        for &x in ints {
            if wide {
                b.extend(x.to_be_bytes());
            } else {
                b.extend((x as i32).to_be_bytes());
            }
        }
        std::fs::write(d.join(name), b).unwrap();
        amgcomm(d, &["info", name])
    };
    let o = petsc("big.petsc", &[2_000_000_000, 2_000_000_000, 5], false);
    refused(
        &o,
        1,
        &[
            "big.petsc: truncated: a 2000000000 x 2000000000 matrix",
            "the file has 16",
        ],
    );
    let o = petsc("neg.petsc", &[-5, 3, 1], false);
    refused(
        &o,
        1,
        &["neg.petsc: header -5 x 3 with 1 nonzeros is not a sparse matrix"],
    );
    let o = petsc("cut.petsc", &[3, 3, 2], false);
    refused(
        &o,
        1,
        &["cut.petsc: truncated: a 3 x 3 matrix with 2 nonzeros takes 52 bytes"],
    );
    let o = petsc("wide.petsc", &[1 << 62, 1 << 62, 1 << 62], true);
    refused(&o, 1, &["wide.petsc: header 4611686018427387904 x 4611686018427387904 with 4611686018427387904 nonzeros is not a sparse matrix amgcomm reads"]);
}

#[test]
fn standard_input_and_pipes_are_read() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let m = matrix(d, "m.mtx");
    let text = std::fs::read(d.join(&m)).unwrap();
    let want = amgcomm(d, &["info", &m, "--json"]).stdout;
    for args in [["info", "-", "--json"], ["info", "/dev/stdin", "--json"]] {
        let o = with_stdin(d, &args, &text);
        ok(&o);
        assert_eq!(o.stdout, want, "{args:?}");
    }
    // Compressed on a pipe.
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(&text).unwrap();
    let o = with_stdin(d, &["info", "-", "--json"], &z.finish().unwrap());
    ok(&o);
    assert_eq!(o.stdout, want);
    // analyze from standard input names its report folder "stdin".
    let o = with_stdin(d, &["analyze", "-", "--nodes", "2", "--ppn", "4"], &text);
    ok(&o);
    assert!(d.join("reports/stdin/report.json").exists());
    // An empty pipe is one line, exit 1.
    refused(
        &with_stdin(d, &["info", "-"], b""),
        1,
        &["stdin: empty file"],
    );
}

/// A change to a machine description.
type Edit = fn(&mut serde_json::Value);

#[test]
fn implausible_machine_parameters_are_refused_before_any_output() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let shown = amgcomm(d, &["machine", "show", "bluewaters", "--json"]).stdout;
    let base: serde_json::Value = serde_json::from_slice(&shown).unwrap();
    let cases: [(&str, Edit, &str); 4] = [
        (
            "gamma.json",
            |v| v["params"]["gamma"] = 1e308.into(),
            "params.gamma is 1e308; a time must lie in [0, 1] seconds",
        ),
        (
            "alpha.json",
            |v| v["params"]["network"]["eager"]["alpha"] = 1e308.into(),
            "params.network.eager.alpha is",
        ),
        (
            "rate.json",
            |v| v["params"]["node"]["rend"]["rate"] = 1e-300.into(),
            "params.node.rend.rate is",
        ),
        (
            "delta.json",
            |v| v["params"]["delta"] = (-1.0).into(),
            "params.delta is -1; a time must lie in [0, 1] seconds",
        ),
    ];
    for (name, edit, needle) in cases {
        let mut v = base.clone();
        edit(&mut v);
        std::fs::write(d.join(name), v.to_string()).unwrap();
        refused(
            &amgcomm(
                d,
                &[
                    "analyze",
                    "gen:poisson3d:6",
                    "--machine",
                    name,
                    "--out",
                    "r",
                ],
            ),
            2,
            &[name, needle],
        );
        assert!(!d.join("r").exists());
    }
}

#[test]
fn suspect_hierarchies_are_warned_about() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    // The negative of a 1D Laplacian: every diagonal is -2.
    let mut text = String::from("%%MatrixMarket matrix coordinate real symmetric\n60 60 119\n");
    for i in 1..=60 {
        text += &format!("{i} {i} -2\n");
        if i < 60 {
            text += &format!("{} {i} 1\n", i + 1);
        }
    }
    std::fs::write(d.join("neg.mtx"), text).unwrap();
    let err = ok(&amgcomm(d, &["hierarchy", "neg.mtx"]));
    assert!(
        err.contains(
            "amgcomm: warning: row 1 (counted from 1, as in the file) has diagonal -2 (60 rows have a zero, negative or missing one)"
        ),
        "{err}"
    );
    // Rows named as the file numbers them (issue 30): row 2 stores a zero
    // diagonal, row 3 nothing at all; row 4 is fine.
    let text = "%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 2\n2 2 0\n4 4 1\n";
    std::fs::write(d.join("zero.mtx"), text).unwrap();
    let err = ok(&amgcomm(d, &["hierarchy", "zero.mtx"]));
    assert!(
        err.contains("row 2 (counted from 1, as in the file) has diagonal 0 (2 rows have"),
        "{err}"
    );
    let text = "%%MatrixMarket matrix coordinate real general\n4 4 3\n1 1 2\n2 2 1\n4 4 1\n";
    std::fs::write(d.join("empty.mtx"), text).unwrap();
    let err = ok(&amgcomm(d, &["hierarchy", "empty.mtx"]));
    assert!(
        err.contains(
            "row 3 (counted from 1, as in the file) is empty: it stores no entry (1 row has a zero"
        ),
        "{err}"
    );
    // A generator's rows, and a hypre rank file's, are counted from 0.
    std::fs::write(d.join("H.00000"), "0 2 0 2\n0 0 1\n1 1 -1\n2 2 1\n").unwrap();
    let err = ok(&amgcomm(d, &["hierarchy", "H"]));
    assert!(
        err.contains("row 1 (global index, counted from 0) has diagonal -1"),
        "{err}"
    );
    // Unknown-based strength that finds nothing strong: the setup stops
    // at level 0 with all rows.
    let err = ok(&amgcomm(
        d,
        &["hierarchy", "gen:poisson2d:22", "--num-functions", "4"],
    ));
    assert!(
        err.contains("amgcomm: warning: coarsening stopped at level 0 with 484 rows"),
        "{err}"
    );
    // The report records the warnings too.
    let o = amgcomm(
        d,
        &[
            "analyze", "neg.mtx", "--nodes", "1", "--ppn", "4", "--json", "r.json",
        ],
    );
    ok(&o);
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    assert_eq!(r["warnings"][0]["kind"], "diagonal");
    assert_eq!(r["warnings"][0]["row"], 0);
    assert_eq!(r["warnings"][0]["numbering"], "from-one");
    // A healthy problem has none.
    let err = ok(&amgcomm(d, &["hierarchy", "gen:poisson2d:30"]));
    assert!(!err.contains("warning"), "{err}");
}
