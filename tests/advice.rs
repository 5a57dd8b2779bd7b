//! "What would cut it": every piece of advice names the dominant term of
//! a level that carries at least 10% of the time, and `analyze` with the
//! run's flags plus its `try` flags gives exactly its predicted time.

use std::path::Path;
use std::process::Command;

fn analyze(dir: &Path, name: &str, extra: &[String]) -> serde_json::Value {
    let json = dir.join(format!("{name}.json"));
    let mut args: Vec<String> = [
        "analyze",
        "gen:elasticity3d:12",
        "--nodes",
        "16",
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.join(name).to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    args.extend_from_slice(extra);
    let o = Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        text.contains("What would cut it"),
        extra.iter().any(|a| a == "--advice")
    );
    serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap()
}

#[test]
fn every_piece_of_advice_is_reproduced_by_its_flags() {
    let d = tempfile::tempdir().unwrap();
    let r = analyze(d.path(), "base", &["--advice".into()]);
    let advice = r["advice"].as_array().unwrap();
    assert!(!advice.is_empty(), "no advice on a problem with hot levels");
    let whole: f64 = (r["levels"].as_array().unwrap().iter())
        .flat_map(|l| l["ops"].as_object().unwrap().values())
        .map(|o| o["cost"]["total"].as_f64().unwrap())
        .sum();
    for (k, a) in advice.iter().enumerate() {
        let (level, op) = (
            a["level"].as_u64().unwrap() as usize,
            a["op"].as_str().unwrap(),
        );
        let now = &r["levels"][level]["ops"][op]["cost"];
        let total = now["total"].as_f64().unwrap();
        assert_eq!(a["total"].as_f64().unwrap(), total);
        assert!(total >= 0.10 * whole, "L{level} {op} is not hot");
        // The dominant term is the largest, with its share.
        let share = a["share"].as_f64().unwrap();
        for key in ["max_rate", "queue_search", "contention"] {
            assert!(
                now[key].as_f64().unwrap() <= share * total * (1.0 + 1e-12),
                "{key}"
            );
        }
        let try_args: Vec<String> = (a["try"].as_array().unwrap().iter())
            .map(|x| x.as_str().unwrap().to_string())
            .collect();
        let again = analyze(d.path(), &format!("try{k}"), &try_args);
        let predicted = a["predicted_total"].as_f64().unwrap();
        assert_eq!(
            again["levels"][level]["ops"][op]["cost"]["total"]
                .as_f64()
                .unwrap(),
            predicted,
            "L{level} {op} with {try_args:?}"
        );
        assert!(predicted < total);
        assert_eq!(a["factor"].as_f64().unwrap(), total / predicted);
    }
    // Without --advice: none computed, no field.
    assert!(analyze(d.path(), "none", &[])["advice"].is_null());
}
