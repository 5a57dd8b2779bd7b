//! `amgcomm models reproduce`: every classic model against its paper.

use std::process::Command;

#[test]
fn reproduce_json_is_within_one_percent_of_every_printed_value() {
    let o = Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(["models", "reproduce", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cases: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let all = cases.as_array().unwrap();
    // The Lassen GPU rows (the preset against its BenchPress medians):
    // 3 localities and 2 copies x 18 sizes, mult 4 x 18, split 4 x 16,
    // each within 25%; the published GPU off-node 4 B median is 6.3 us
    // (the minimum of repeats, median over pairs, of BenchPress's
    // benchmarks/lassen/spectrum/ ping-pongs, bienz2/BenchPress@ac2ede1).
    let (measured, cases): (Vec<_>, Vec<_>) = (all.iter()).partition(|c| {
        let name = c["case"].as_str().unwrap();
        ["Lassen", "El Capitan", "Perlmutter", "Fitted"]
            .iter()
            .any(|p| name.starts_with(p))
    });
    let of = |p: &str| -> Vec<&serde_json::Value> {
        (measured.iter().copied())
            .filter(|c| c["case"].as_str().unwrap().starts_with(p))
            .collect()
    };
    // El Capitan (Tuolumne): 3 host and 2 GPU localities and 2 copies x
    // 18 sizes, 7 injection counts; Perlmutter (Delta): its socket class.
    assert_eq!(of("El Capitan").len(), 7 * 18 + 7);
    assert_eq!(of("Perlmutter").len(), 18);
    // Within 25% but where one alpha + s / R cannot follow the data:
    // Tuolumne's copies within the APU's memory change path near 2 KiB
    // (21-29 us below it, 42-79 us from 4 to 64 KiB), and its GPU-aware
    // off-node ping-pong steps at its 32 KiB rendezvous threshold;
    // Delta's Open MPI changes protocol at 4 KiB, inside Cray MPICH's
    // eager range the preset keeps (its network is Cray MPICH's).
    let (bent, fitted): (Vec<_>, Vec<_>) = (of("El Capitan").into_iter().chain(of("Perlmutter")))
        .partition(|c| {
            let name = c["case"].as_str().unwrap();
            (name.contains("memcpy")
                && [
                    "4096 B", "8192 B", "16384 B", "32768 B", "65536 B", "524288 B",
                ]
                .iter()
                .any(|s| name.contains(&format!(" {s} "))))
                || name.contains("GPU ping-pong network 32768 B")
                || name == "Perlmutter (Delta) ping-pong socket 4096 B (us)"
        });
    for c in &fitted {
        assert!(c["rel_diff"].as_f64().unwrap().abs() < 0.25, "{c}");
    }
    assert_eq!(bent.len(), 14);
    for c in &bent {
        let r = c["rel_diff"].as_f64().unwrap().abs();
        assert!((0.25..0.40).contains(&r), "{c}");
    }
    let lassen = of("Lassen");
    assert_eq!(lassen.len(), 5 * 18 + 4 * 18 + 4 * 16);
    for c in &lassen {
        assert!(c["rel_diff"].as_f64().unwrap().abs() < 0.25, "{c}");
    }
    let net4 = (lassen.iter())
        .find(|c| c["case"] == "Lassen GPU ping-pong network 4 B (us)")
        .unwrap();
    assert!(
        (net4["paper"].as_f64().unwrap() - 6.3).abs() < 0.05,
        "{net4}"
    );
    // Each fit of the work around the messages beside the measurements
    // it was fitted to: one row per level-op of its table, and their
    // median factor is the machine's error, the close-call factor.
    let median_factor = |rows: &[&serde_json::Value]| {
        let mut logs: Vec<f64> = (rows.iter())
            .map(|c| {
                (c["amgcomm"].as_f64().unwrap() / c["paper"].as_f64().unwrap())
                    .ln()
                    .abs()
            })
            .collect();
        logs.sort_by(f64::total_cmp);
        let n = logs.len();
        (if n % 2 == 1 {
            logs[n / 2]
        } else {
            0.5 * (logs[n / 2 - 1] + logs[n / 2])
        })
        .exp()
    };
    let row_work = of("Fitted row work, Blue Waters aa");
    assert_eq!(row_work.len(), 56);
    let bw = amgcomm::machine::RowWork::bluewaters().error;
    assert!(
        (median_factor(&row_work) - bw).abs() < 1e-9,
        "{}",
        median_factor(&row_work)
    );
    let device = of("Fitted device work, Lassen");
    assert_eq!(device.len(), 96);
    let lassen_error = amgcomm::machine::presets::preset("lassen")
        .unwrap()
        .gpus
        .unwrap()
        .work
        .error;
    assert!((median_factor(&device) - lassen_error).abs() < 1e-9);
    // Issue 52's mark on the same table, per layout: the decisive levels
    // (the measured fastest strategy leads the next by more than a fifth)
    // and those whose fastest the model names. Counted by hand from the
    // table's measured and modeled times (the messages alone, as
    // BenchPress's comm-only program times them): the model names split
    // on every level; at 384 ranks that is right on L0-L3 and wrong on
    // L6, L9 and L11 (staged measured), at 640 ranks right on L0-L4 and
    // wrong on L6 and L8 (staged).
    let winners = of("Fitted device work's fastest strategy, Lassen");
    let marks: Vec<(f64, f64)> = (winners.iter())
        .map(|c| (c["paper"].as_f64().unwrap(), c["amgcomm"].as_f64().unwrap()))
        .collect();
    assert_eq!(marks, [(7.0, 4.0), (7.0, 5.0)], "{winners:?}");
    let cases: Vec<&serde_json::Value> = cases.into_iter().collect();
    assert_eq!(cases.len(), 16);
    let find = |prefix: &str| {
        cases
            .iter()
            .find(|c| c["case"].as_str().unwrap().starts_with(prefix))
            .unwrap_or_else(|| panic!("no case {prefix}"))
    };
    for c in &cases {
        let (paper, ours) = (c["paper"].as_f64().unwrap(), c["amgcomm"].as_f64().unwrap());
        let rel = c["rel_diff"].as_f64().unwrap();
        assert!((rel - (ours - paper) / paper).abs() < 1e-12, "{c}");
        assert!(rel.abs() < 0.01, "{c}");
        assert!(!c["note"].as_str().unwrap().is_empty());
    }
    // The printed values, typed in from the papers.
    for (case, paper) in [
        ("log3P Titan T01", 580.0),
        ("log3P Titan T00", 452.0),
        ("LogP request-reply", 316.0),
        ("LoPC request-reply", 453.0),
        ("LoGPC request-reply", 499.0),
        ("copy-transfer T3D transpose 1Q1024", 25.0),
        ("copy-transfer T3D buffer packing 1Q1 ", 27.9),
        ("copy-transfer T3D buffer packing 1Q64", 25.2),
        ("copy-transfer T3D buffer packing wQw", 14.2),
        ("copy-transfer T3D chained 1Q'1", 70.0),
        ("copy-transfer T3D chained 1Q'64", 38.0),
        ("copy-transfer T3D chained wQ'w", 32.0),
    ] {
        assert_eq!(find(case)["paper"].as_f64().unwrap(), paper, "{case}");
    }
    // The 64Q1 typo is explained.
    let typo = find("copy-transfer T3D buffer packing 64Q1");
    assert!(typo["note"].as_str().unwrap().contains("17.1"));
    assert!((typo["amgcomm"].as_f64().unwrap() - 18.16).abs() < 0.01);
    // F = 1 + sqrt(1.5).
    let f = find("LoGPC contention ratio bound")["amgcomm"]
        .as_f64()
        .unwrap();
    assert!((f - 2.224745).abs() < 1e-6);
}
