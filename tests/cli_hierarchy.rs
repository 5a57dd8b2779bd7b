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
