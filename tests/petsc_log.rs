//! `--measured` reads PETSc's `-log_view` of a run with `-pc_mg_log`: per
//! level its `MGSmooth`, `MGResid` and `MGInterp` events, PETSc's levels
//! numbered from the coarsest. The figures of one real run are kept in
//! `tests/data/petsc/mg_log.csv` (the tests write PETSc's layout from
//! them); with the `mpi` feature, `.ci/run` builds
//! `tools/petsc_solve_levels.c` against Debian's PETSc, runs it on 4 ranks
//! and checks that amgcomm counts the messages PETSc counted, per level.

use std::process::{Command, Output};

use amgcomm::measured::{parse, Phase};

mod common;

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// (event, PETSc level, calls, seconds, messages, mean bytes), as printed.
type Row = (String, usize, String, String, String, String);

fn table() -> Vec<Row> {
    std::fs::read_to_string("tests/data/petsc/mg_log.csv")
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].into(),
                f[1].parse().unwrap(),
                f[2].into(),
                f[3].into(),
                f[4].into(),
                f[5].into(),
            )
        })
        .collect()
}

/// A `-log_view` in PETSc 3.18's layout holding `rows`.
fn log(rows: &[Row]) -> String {
    let mut s = String::from(
        "------------------------------------------------------------------ PETSc Performance Summary: ------------------------------------------------------------------\n\n./petsc_solve_levels on a  named vm with 4 processors, by root Thu Nov 26 14:22:25 2026\nUsing Petsc Release Version 3.18.5, Feb 27, 2023\n\n--- Event Stage 2: MG Apply\n\n",
    );
    s += "MatMult              132 1.0 1.8209e-02 1.8 9.23e+05 1.3 7.0e+02 1.0e+03 0.0e+00 12 36 38 41  0  72 64 77 90  0   174\n";
    for (event, k, calls, secs, mess, len) in rows {
        s += &format!(
            "{:<20} {calls:>5} 1.0 {secs} 1.0 0.00e+00 0.0 {mess} {len} 0.0e+00  0  0  0  0  0   0  0  0  0  0     0\n",
            format!("{event} Level {k}")
        );
    }
    s
}

#[test]
fn petsc_levels_are_mapped_from_the_coarsest() {
    let rows = table();
    let m = parse(&log(&rows)).unwrap();
    assert_eq!((m.format, m.ranks), ("petsc", Some(4)));
    // Four PETSc levels: its Level 3 is level 0 here.
    assert_eq!(m.depth(), 4);
    for (event, k, calls, secs, mess, len) in &rows {
        let phase = match event.as_str() {
            "MGSmooth" => Phase::Smooth,
            "MGResid" => Phase::Residual,
            _ => Phase::Transfer,
        };
        let p = &m.phases[&(3 - k)][&phase];
        assert_eq!(p.event, format!("{event} Level {k}"));
        assert_eq!(p.calls, Some(calls.parse().unwrap()));
        assert_eq!(p.seconds, secs.parse::<f64>().unwrap());
        let mess: f64 = mess.parse().unwrap();
        assert_eq!(p.messages, Some(mess));
        let len: f64 = len.parse().unwrap();
        assert_eq!(p.avg_bytes, (mess > 0.0).then_some(len));
    }
    // An event in two stages is summed over them.
    let twice = log(&[rows[8].clone(), rows[8].clone()]);
    let p = &parse(&twice).unwrap().phases[&0][&Phase::Residual];
    assert_eq!((p.calls, p.messages), (Some(22), Some(132.0)));
}

#[test]
fn hostile_logs_fail_in_one_line() {
    let d = tempfile::tempdir().unwrap();
    let good = log(&table());
    let file = d.path().join("log_view.txt");
    let cases = [
        (
            good.replace("MG", "XX"),
            "no MGSmooth, MGResid or MGInterp event",
        ),
        (
            good.replacen("Level 3 ", "Level 99999999999999999999 ", 1),
            "is not a level number",
        ),
        (
            good.replacen("6.6e+01", "-6.6e+01", 1),
            "Mess '-6.6e+01' is not a count",
        ),
        (
            good.replacen("6.6e+01", "1e999", 1),
            "Mess '1e999' is not a count",
        ),
        (
            good.replacen("2.0e+03", "lots", 1),
            "AvgLen 'lots' is not a count",
        ),
        (
            good.lines()
                .map(|l| {
                    if l.starts_with("MGResid Level 3") {
                        &l[..40]
                    } else {
                        l
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
            "an event line needs",
        ),
    ];
    for (text, needle) in cases {
        std::fs::write(&file, text).unwrap();
        let o = amgcomm(&[
            "analyze",
            "gen:poisson3d:16",
            "--nodes",
            "1",
            "--ppn",
            "4",
            "--measured",
            file.to_str().unwrap(),
            "--out",
            d.path().join("rep").to_str().unwrap(),
        ]);
        common::refused(&o, 1, &[needle]);
    }
}

/// Whether `x` prints as `printed` in PETSc's two digits (`%.1e`).
#[cfg(feature = "mpi")]
fn within_two_digits(x: f64, printed: f64) -> bool {
    if printed == 0.0 {
        return x == 0.0;
    }
    let half_unit = 0.5 * 10f64.powf(printed.abs().log10().floor() - 1.0);
    (x - printed).abs() <= half_unit * (1.0 + 1e-9)
}

/// `tools/petsc_solve_levels.c` built against Debian's PETSc and run on 4
/// ranks: its log's counts are the table's, and per level amgcomm's
/// message counts and bytes (the levels analysed with PETSc's own row
/// ownership, the smoother as PETSc ran it: Chebyshev(2) exchanges once
/// before the coarse-grid correction and twice after) are what PETSc
/// counted, to its two digits. Its MGInterp events count more than the
/// transfers' exchanges: the first restriction of each level sets up its
/// transposed scatter inside the event (SFSetUp and BuildTwoSided, a few
/// small messages over the run); they are bounded here, and the
/// interpolations alone (MatMultAdd) are exact.
#[cfg(feature = "mpi")]
#[test]
fn amgcomm_counts_the_messages_petsc_counted() {
    let d = tempfile::tempdir().unwrap();
    let exe = d.path().join("petsc_solve_levels");
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "petsc"])
        .output()
        .expect("pkg-config (apt-get install pkg-config petsc-dev)");
    assert!(
        flags.status.success(),
        "PETSc's pkg-config file (apt-get install petsc-dev)"
    );
    let flags = String::from_utf8(flags.stdout).unwrap();
    let cc = Command::new("mpicc")
        .args(["-O2", "tools/petsc_solve_levels.c"])
        .args(flags.split_whitespace())
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("mpicc on PATH (apt-get install libopenmpi-dev)");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let out = d.path().join("levels");
    std::fs::create_dir(&out).unwrap();
    let log_path = out.join("log_view.txt");
    let run = Command::new("mpirun")
        .args(["-n", "4", "--oversubscribe"])
        .arg(&exe)
        .arg(&out)
        .arg("16")
        .arg("-log_view")
        .arg(format!(":{}", log_path.display()))
        .arg("-pc_mg_log")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .output()
        .expect("mpirun on PATH");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("4 levels of a 16^3 Laplacian on 4 ranks")
    );

    // The run's counts are the table's (GAMG's aggregation is deterministic).
    let text = std::fs::read_to_string(&log_path).unwrap();
    let live = parse(&text).unwrap();
    let kept = parse(&log(&table())).unwrap();
    for (l, phases) in &kept.phases {
        for (ph, k) in phases {
            let x = &live.phases[l][ph];
            assert_eq!(
                (x.calls, x.messages, x.avg_bytes),
                (k.calls, k.messages, k.avg_bytes),
                "{}",
                k.event
            );
        }
    }

    let json = d.path().join("r.json");
    let o = amgcomm(&[
        "analyze",
        "--levels-from",
        out.to_str().unwrap(),
        "--nodes",
        "1",
        "--ppn",
        "4",
        "--ops",
        "spmv,interp,restrict",
        "--pre-sweeps",
        "1",
        "--post-sweeps",
        "2",
        "--measured",
        log_path.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "--out",
        d.path().join("rep").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let phases = r["measured"]["levels"].as_array().unwrap();
    assert_eq!(phases.len(), 10);
    let mut checked = 0;
    for p in phases {
        let f = |k: &str| p[k].as_f64();
        let calls = f("calls").unwrap();
        let printed = f("measured_messages_per_call").unwrap() * calls;
        let modeled = f("modeled_messages_per_call").unwrap() * calls;
        match p["phase"].as_str().unwrap() {
            "smooth" | "residual" => {
                assert!(within_two_digits(modeled, printed), "{p}");
                if modeled > 0.0 {
                    let (m, b) = (
                        f("measured_avg_bytes").unwrap(),
                        f("modeled_avg_bytes").unwrap(),
                    );
                    assert!(within_two_digits(b, m), "{p}");
                    // A residual is one exchange; PETSc's Chebyshev(2)
                    // smoothing three per V-cycle, 1.5 per call.
                    let want = if p["phase"] == "smooth" { 1.5 } else { 1.0 };
                    assert!(
                        (f("exchanges_per_call").unwrap() - want).abs() < 0.05,
                        "{p}"
                    );
                }
            }
            _ => {
                // Every exchange counted, and at most a message per call more.
                assert!(
                    printed + 0.5 >= modeled && printed <= modeled + calls,
                    "{p}"
                );
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 10);

    // The interpolations alone (MatMultAdd, 11 V-cycles over the three
    // transfers) are exactly amgcomm's interp messages.
    let interp: f64 = (r["levels"].as_array().unwrap().iter())
        .filter_map(|l| l["ops"]["interp"]["messages"]["total"].as_f64())
        .sum();
    let line = text
        .lines()
        .find(|l| l.starts_with("MatMultAdd "))
        .expect("MatMultAdd in the MG Apply stage");
    let w: Vec<&str> = line.split_whitespace().collect();
    let (calls, mess): (f64, f64) = (w[1].parse().unwrap(), w[7].parse().unwrap());
    assert_eq!(calls, 33.0, "{line}");
    assert!(within_two_digits(11.0 * interp, mess), "{line}: {interp}");
}
