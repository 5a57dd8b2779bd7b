//! `amgcomm hierarchy` through the binary: table, JSON, saved levels.

use std::process::Command;

fn amgcomm(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

#[test]
fn json_and_saved_levels_describe_the_same_hierarchy() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("h.json");
    let levels = d.path().join("levels");
    let out = amgcomm(&[
        "hierarchy",
        "tests/data/reference/poisson3d_20.mtx",
        "--preset",
        "pyamg",
        "--json",
        json.to_str().unwrap(),
        "--save-levels",
        levels.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("68,920"), "{table}");
    let h: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let lv = h["levels"].as_array().unwrap();
    // PyAMG 5.4.1 rs_classical on poisson3d_20 (tests/data/reference).
    let rows: Vec<u64> = lv.iter().map(|l| l["rows"].as_u64().unwrap()).collect();
    assert_eq!(rows, vec![8000, 4000, 669, 94, 15, 2]);
    assert!(lv.last().unwrap().get("p_nnz").is_none());
    assert_eq!(lv[0]["p_nnz"], 26800);
    assert!((h["operator_complexity"].as_f64().unwrap() - 143_666.0 / 53_600.0).abs() < 1e-12);
    for (l, level) in lv.iter().enumerate() {
        let a = amgcomm::matrix::io::read(&levels.join(format!("A{l}.mtx"))).unwrap();
        assert_eq!(a.csr.nnz() as u64, level["nnz"].as_u64().unwrap());
        if let Some(p_nnz) = level.get("p_nnz") {
            let p = amgcomm::matrix::io::read(&levels.join(format!("P{l}.mtx"))).unwrap();
            assert_eq!(p.csr.nnz() as u64, p_nnz.as_u64().unwrap());
            let c: Vec<usize> = std::fs::read_to_string(levels.join(format!("C{l}.txt")))
                .unwrap()
                .lines()
                .map(|x| x.parse().unwrap())
                .collect();
            assert_eq!(c.len(), p.csr.cols());
            // A C point interpolates by injection: its row of P is e_k.
            for (k, &i) in c.iter().enumerate() {
                let row = p.csr.outer_view(i).unwrap();
                assert_eq!(row.nnz(), 1);
                assert_eq!(row.get(k), Some(&1.0));
            }
        }
    }
}

#[test]
fn bad_hierarchy_flags_are_one_line() {
    for (args, needle) in [
        (
            &["hierarchy", "gen:poisson3d:4", "--preset", "boomer"][..],
            "invalid value 'boomer' for '--preset <PRESET>' [possible values: hypre, pyamg, raptor-elasticity, raptor-2018, raptor-matops-2018]",
        ),
        (
            &["hierarchy", "gen:poisson3d:4", "--theta", "1.5"][..],
            "theta must lie in [0, 1]",
        ),
        (
            &["hierarchy", "gen:poisson3d:4", "--coarsening", "xyz"][..],
            "'xyz'",
        ),
        (
            &["hierarchy", "gen:poisson3d:4", "--num-functions", "0"][..],
            "--num-functions",
        ),
    ] {
        let out = amgcomm(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{needle} not in {err}");
    }
}

/// `--timings`: a row of setup seconds per level and one of their sums,
/// the same seconds in the JSON (each step's total the sum of its levels),
/// and none of it without the flag.
#[test]
fn timings_give_every_levels_setup_steps() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("h.json");
    let run = |preset: &str, timed: bool| {
        let mut args = vec![
            "hierarchy",
            "gen:poisson3d:16",
            "--preset",
            preset,
            "--json",
            json.to_str().unwrap(),
        ];
        if preset == "hypre" {
            args.extend(["--ranks", "4"]);
        }
        if timed {
            args.push("--timings");
        }
        let out = amgcomm(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let h: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        (String::from_utf8_lossy(&out.stdout).into_owned(), h)
    };
    let (table, h) = run("hypre", false);
    assert!(h.get("setup_seconds").is_none());
    assert!(!table.contains("interpolation"), "{table}");
    let steps = ["strength", "coarsening", "interpolation", "rap", "gather"];
    for preset in ["hypre", "pyamg"] {
        let (table, h) = run(preset, true);
        let n = h["levels"].as_array().unwrap().len();
        let t = &h["setup_seconds"];
        let levels = t["levels"].as_array().unwrap();
        assert_eq!(levels.len(), n, "{preset}");
        for step in steps {
            let sum: f64 = levels.iter().map(|l| l[step].as_f64().unwrap()).sum();
            let total = t[step].as_f64().unwrap();
            assert!(
                (sum - total).abs() <= 1e-9 * total.max(1e-9),
                "{preset} {step}"
            );
            assert!(levels.iter().all(|l| l[step].as_f64().unwrap() >= 0.0));
        }
        // The coarsest level has no interpolation and no product.
        let last = &levels[n - 1];
        assert!(
            steps[2..4].iter().all(|s| last[*s] == 0.0),
            "{preset}: {last}"
        );
        assert!(levels[0]["interpolation"].as_f64().unwrap() > 0.0);
        // Only the hypre preset on ranks gathers its levels from blocks.
        let gathered = t["gather"].as_f64().unwrap();
        assert_eq!(gathered > 0.0, preset == "hypre", "{preset}: {gathered}");
        // The table: a row per level then "all", each total its row's sum
        // (of values rounded to 1 ms).
        let rows: Vec<Vec<f64>> = (table.lines())
            .skip_while(|l| !l.contains("interpolation"))
            .skip(1)
            .take(n + 1)
            .map(|l| {
                (l.split_whitespace().skip(1))
                    .map(|x| x.parse().unwrap())
                    .collect()
            })
            .collect();
        assert_eq!(rows.len(), n + 1, "{table}");
        assert!(table.contains("\n  all "), "{table}");
        for r in &rows {
            assert_eq!(r.len(), 6, "{table}");
            assert!(
                (r[..5].iter().sum::<f64>() - r[5]).abs() <= 0.003,
                "{table}"
            );
        }
        // The steps are inside the setup the last line times.
        let setup: f64 = (table.lines().last().unwrap())
            .split("set up in ")
            .nth(1)
            .and_then(|x| x.trim_end_matches(" s").parse().ok())
            .unwrap();
        assert!(rows[n][5] <= setup + 0.01, "{table}");
    }
}
