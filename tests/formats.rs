//! One matrix, three formats, one answer (issue 20): the same matrix read
//! as Matrix Market with a partition file, as hypre IJ rank files (their
//! ranks the partition), and as PETSc binary with the same partition file
//! gives the same report, figure for figure; a hierarchy saved as Matrix
//! Market and as PETSc binary reads back the same.

use std::path::Path;
use std::process::{Command, Output};

use amgcomm::matrix::io::{self, hypre_ij, petsc};

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn ok(o: Output) -> Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn report(dir: &Path, name: &str, args: &[&str]) -> serde_json::Value {
    let json = dir.join(format!("{name}.json"));
    let out = dir.join(name);
    let mut all = args.to_vec();
    all.extend([
        "--json",
        json.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    ok(amgcomm(&all));
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

#[test]
fn matrix_market_hypre_ij_and_petsc_give_the_same_figures() {
    let d = tempfile::tempdir().unwrap();
    let p = |n: &str| d.path().join(n).to_str().unwrap().to_string();
    ok(amgcomm(&[
        "generate",
        "elasticity3d",
        "--n",
        "5",
        "-o",
        &p("a.mtx"),
    ]));
    ok(amgcomm(&[
        "generate",
        "elasticity3d",
        "--n",
        "5",
        "-o",
        &p("a.petsc"),
    ]));
    let a = io::read(&d.path().join("a.mtx")).unwrap().csr;
    assert_eq!(
        petsc::parse(
            &std::fs::read(p("a.petsc")).unwrap(),
            "a",
            io::Values::Finite
        )
        .unwrap()
        .csr,
        a
    );
    // Uneven blocks of whole nodes on 4 ranks.
    let n = a.rows();
    let starts = [0, 3 * 10, 3 * 45, 3 * 80, n];
    hypre_ij::write(&d.path().join("A"), &a, &starts, &starts).unwrap();
    let owners: String = (0..n)
        .map(|i| {
            format!(
                "{}\n",
                starts
                    .windows(2)
                    .position(|w| (w[0]..w[1]).contains(&i))
                    .unwrap()
            )
        })
        .collect();
    std::fs::write(p("blocks.part"), owners).unwrap();
    let machine = ["--nodes", "2", "--ppn", "2"];
    let with = |input: &str, extra: &[&str]| {
        let mut v = vec!["analyze", input];
        v.extend(machine);
        v.extend(extra.iter().copied());
        v.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let part = p("blocks.part");
    let runs = [
        ("mtx", with(&p("a.mtx"), &["--partition", &part])),
        ("ij", with(&p("A"), &[])),
        ("petsc", with(&p("a.petsc"), &["--partition", &part])),
    ];
    let reports: Vec<serde_json::Value> = runs
        .iter()
        .map(|(name, args)| {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            report(d.path(), name, &args)
        })
        .collect();
    assert_eq!(reports[1]["partition"]["fine"], "input ranks");
    for (k, r) in reports.iter().enumerate().skip(1) {
        assert_eq!(
            r["hierarchy"]["levels"], reports[0]["hierarchy"]["levels"],
            "{}",
            runs[k].0
        );
        assert_eq!(r["levels"], reports[0]["levels"], "{}", runs[k].0);
        assert_eq!(r["totals"], reports[0]["totals"], "{}", runs[k].0);
    }
    // Not a trivial partition: every rank talks.
    assert_eq!(reports[0]["levels"][0]["active_processes"], 4);
    assert!(
        reports[0]["levels"][0]["ops"]["spmv"]["messages"]["total"]
            .as_u64()
            .unwrap()
            >= 6
    );
}

#[test]
fn a_hierarchy_saved_as_petsc_binary_reads_back_as_from_matrix_market() {
    let d = tempfile::tempdir().unwrap();
    let mtx = d.path().join("mtx");
    let bin = d.path().join("petsc");
    ok(amgcomm(&[
        "hierarchy",
        "gen:poisson3d:10",
        "--save-levels",
        mtx.to_str().unwrap(),
    ]));
    std::fs::create_dir(&bin).unwrap();
    for e in std::fs::read_dir(&mtx).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".mtx") {
            let a = io::read_with(&path, io::Values::Any).unwrap().csr;
            petsc::write(&bin.join(format!("{stem}.petsc")), &a).unwrap();
        }
    }
    let args = |dir: &Path| {
        vec![
            "analyze".to_string(),
            "--levels-from".into(),
            dir.to_str().unwrap().into(),
            "--nodes".into(),
            "2".into(),
            "--ppn".into(),
            "4".into(),
        ]
    };
    let a: Vec<String> = args(&mtx);
    let b: Vec<String> = args(&bin);
    let ra = report(
        d.path(),
        "m",
        &a.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let rb = report(
        d.path(),
        "p",
        &b.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert!(ra["levels"].as_array().unwrap().len() >= 3);
    assert_eq!(ra["levels"], rb["levels"]);
}

#[test]
fn broken_inputs_name_their_file_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let fails = |args: &[&str], code: i32, needle: &str| {
        let o = amgcomm(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{needle} not in {err}");
    };
    // hypre: a rank file missing in the middle, overlapping ranges.
    let prefix = d.path().join("A");
    std::fs::write(hypre_ij::rank_file(&prefix, 0), "0 1 0 1\n0 0 1\n1 1 1\n").unwrap();
    std::fs::write(hypre_ij::rank_file(&prefix, 2), "2 3 2 3\n2 2 1\n3 3 1\n").unwrap();
    let a = prefix.to_str().unwrap();
    fails(&["info", a], 1, "A.00001: cannot read file: missing");
    std::fs::write(hypre_ij::rank_file(&prefix, 1), "1 2 1 2\n1 1 1\n2 2 1\n").unwrap();
    fails(
        &["info", a],
        1,
        "A.00001: line 1: its rows 1-2 overlap those of",
    );
    // PETSc: cut short.
    let petsc_file = d.path().join("x.petsc");
    ok(amgcomm(&[
        "generate",
        "poisson2d",
        "--n",
        "4",
        "-o",
        petsc_file.to_str().unwrap(),
    ]));
    let bytes = std::fs::read(&petsc_file).unwrap();
    std::fs::write(&petsc_file, &bytes[..bytes.len() - 8]).unwrap();
    fails(
        &["info", petsc_file.to_str().unwrap()],
        1,
        "x.petsc: truncated: a 16 x 16 matrix",
    );
}

/// PETSc's own hierarchy (`tools/petsc_dump_levels.c`: PCGAMG on a 10^3
/// Laplacian, 4 ranks, committed in `tests/data/petsc/`), both ways
/// PETSc users get it: `levels/` holds each level viewed on its own
/// (`A0.petsc`, `P0.petsc`, ...), `binaryoutput` what `-pc_mg_dump_binary`
/// wrote in the same run (restrictions, then operators, coarsest first).
/// Both read as the sizes PETSc printed, and give the same report.
#[test]
fn petsc_gamg_levels_read_both_ways() {
    let d = tempfile::tempdir().unwrap();
    let machine = ["--nodes", "2", "--ppn", "2"];
    let run = |name: &str, from: &str| {
        let mut args = vec!["analyze", "--levels-from", from];
        args.extend(machine);
        let mut r = report(d.path(), name, &args);
        r["matrix"]["name"] = serde_json::Value::Null;
        r["hierarchy"]["source"] = serde_json::Value::Null;
        r
    };
    let levels = run("levels", "tests/data/petsc/levels");
    let dump = run("dump", "tests/data/petsc/binaryoutput");
    assert_eq!(levels, dump);
    // "level 0: 1000 rows, 6400 nonzeros", as PETSc printed them.
    let printed = std::fs::read_to_string("tests/data/petsc/petsc_dump_levels.out").unwrap();
    let sizes: Vec<(u64, u64)> = printed
        .lines()
        .filter_map(|l| l.strip_prefix("level "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[1].parse().unwrap(), w[3].parse().unwrap())
        })
        .collect();
    assert_eq!(sizes.len(), 3);
    let got: Vec<(u64, u64)> = (levels["hierarchy"]["levels"].as_array().unwrap())
        .iter()
        .map(|l| (l["rows"].as_u64().unwrap(), l["nnz"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, sizes);

    // A dump cut short, and a file that is no dump, in one line each.
    let cut = d.path().join("cut");
    let bytes = std::fs::read("tests/data/petsc/binaryoutput").unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let o = amgcomm(&["analyze", "--levels-from", cut.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        (o.status.code(), err.lines().count()),
        (Some(1), 1),
        "{err}"
    );
    assert!(
        err.contains("(matrix 5 at offset") && err.contains("truncated"),
        "{err}"
    );
    let o = amgcomm(&[
        "analyze",
        "--levels-from",
        "tests/data/petsc/petsc_dump_levels.out",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        (o.status.code(), err.lines().count()),
        (Some(1), 1),
        "{err}"
    );
    assert!(
        err.contains("-pc_mg_dump_binary writes; this file is neither"),
        "{err}"
    );
}
