//! `analyze --save-patterns`: every level's spmv, spgemm and ptap
//! messages on disk, read back by the library, agree with the report; the
//! folder is replaced whole; a user's folder is never swept away.

use std::path::Path;
use std::process::{Command, Output};

use amgcomm::comm::node_aware::Strategy;
use amgcomm::comm::pattern_file;
use amgcomm::comm::Op;
use amgcomm::machine::{Machine, Placement};

fn amgcomm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn analyze(dir: &Path, extra: &[&str]) -> serde_json::Value {
    // Beside the report folder: an output inside another is refused.
    let json = dir.with_extension("json");
    let mut args = vec![
        "analyze",
        "gen:poisson3d:14",
        "--permute",
        "4",
        "--nodes",
        "4",
        "--ppn",
        "4",
        "--placement",
        "random",
        "--placement-seed",
        "3",
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend(extra);
    let o = amgcomm(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn saved_patterns_read_back_as_the_report_counted_them() {
    let d = tempfile::tempdir().unwrap();
    let pats = d.path().join("patterns");
    for strategy in ["standard", "node-aware-3"] {
        let r = analyze(
            &d.path().join("out"),
            &[
                "--strategy",
                strategy,
                "--save-patterns",
                pats.to_str().unwrap(),
            ],
        );
        let levels = r["levels"].as_array().unwrap();
        // spmv on every level, spgemm and ptap on all but the coarsest.
        assert_eq!(files(&pats).len(), 3 * levels.len() - 2, "{strategy}");
        let m = Machine {
            nodes: 4,
            ppn: 4,
            placement: Placement::Random { seed: 3 },
            ..Machine::bluewaters()
        };
        for level in levels {
            let l = level["level"].as_u64().unwrap() as usize;
            for op in [Op::Spmv, Op::Spgemm, Op::Ptap] {
                let Some(want) = level["ops"].get(op.name()) else {
                    continue;
                };
                let s = pattern_file::read(&pats.join(pattern_file::file_name(l, op))).unwrap();
                assert_eq!((s.level, s.op), (l, op));
                // Ptap is a standard exchange under every strategy.
                let saved = if op == Op::Ptap { "standard" } else { strategy };
                assert_eq!(s.strategy.name(), saved);
                assert_eq!(s.layout.placement, m.placement);
                let nodes: Vec<u32> = (0..16).map(|r| m.node_of(r) as u32).collect();
                assert_eq!(s.layout.node_of_rank, nodes);
                let all = s.steps.iter().flat_map(|(_, p)| &p.messages);
                let count = all.clone().count() as u64;
                let bytes: u64 = all.clone().map(|x| x.bytes).sum();
                let network = all
                    .filter(|x| m.node_of(x.from as usize) != m.node_of(x.to as usize))
                    .count() as u64;
                assert_eq!(count, want["messages"]["total"].as_u64().unwrap());
                assert_eq!(bytes, want["bytes"]["total"].as_u64().unwrap());
                assert_eq!(network, want["messages"]["inter_node"].as_u64().unwrap());
                let names: Vec<&str> = s.steps.iter().map(|(n, _)| n.as_str()).collect();
                if s.strategy == Strategy::Standard {
                    assert_eq!(names, [op.name()]);
                } else {
                    let report: Vec<&str> = (want["steps"].as_array().unwrap().iter())
                        .map(|x| x["name"].as_str().unwrap())
                        .collect();
                    assert_eq!(names, report);
                }
            }
        }
    }
}

#[test]
fn the_folder_is_replaced_whole_and_a_users_folder_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let pats = d.path().join("patterns");
    let p = pats.to_str().unwrap();
    let out = d.path().join("out");
    analyze(&out, &["--save-patterns", p]);
    let deep = files(&pats);
    assert!(deep.len() > 3);
    // Two levels now: no file of the deeper hierarchy stays behind.
    analyze(&out, &["--save-patterns", p, "--max-levels", "2"]);
    assert_eq!(
        files(&pats),
        [
            "level0_ptap.amgpat",
            "level0_spgemm.amgpat",
            "level0_spmv.amgpat",
            "level1_spmv.amgpat"
        ]
    );
    assert_eq!(files(d.path()), ["out", "out.json", "patterns"]);
    // A folder with a file of the user's is refused before any work.
    let mine = d.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep").unwrap();
    let o = amgcomm(&[
        "analyze",
        "gen:poisson3d:14",
        "--nodes",
        "2",
        "--save-patterns",
        mine.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1);
    assert!(err.contains("holds notes.txt"), "{err}");
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "keep"
    );
}

/// A pattern file's header names a misspelt field and the one meant.
#[test]
fn a_misspelt_header_field_is_named() {
    let d = tempfile::tempdir().unwrap();
    let pats = d.path().join("patterns");
    analyze(
        &d.path().join("out"),
        &["--save-patterns", pats.to_str().unwrap()],
    );
    let f = pats.join(pattern_file::file_name(0, Op::Spmv));
    let bytes = std::fs::read(&f).unwrap();
    let at = bytes.windows(5).position(|w| w == b"\"ppn\"").unwrap();
    let mut bad = bytes.clone();
    bad[at + 1..at + 4].copy_from_slice(b"ppm");
    std::fs::write(&f, bad).unwrap();
    let e = pattern_file::read(&f).unwrap_err().to_string();
    assert!(
        e.contains("header: unknown field `ppm` in the top level (did you mean `ppn`?)"),
        "{e}"
    );
}
