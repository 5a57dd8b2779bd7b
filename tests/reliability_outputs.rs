//! The reliability contract's outputs (README), through the real binary:
//! nothing the user gave is overwritten; output folders are all or
//! nothing, replaced whole, also on Ctrl-C; `scale` reruns into its own
//! folder. The refusals are `tests/reliability.rs`.

mod common;

use common::{amgcomm, matrix, names, ok, refused};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Every file under `dir` (hidden ones too) with its content.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    out
}

#[test]
fn nothing_the_user_gave_is_overwritten() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let m = matrix(d, "m.mtx");
    std::fs::create_dir(d.join("lv")).unwrap();
    ok(&amgcomm(d, &["hierarchy", &m, "--save-levels", "lv"]));
    std::fs::write(
        d.join("machine.json"),
        amgcomm(d, &["machine", "show", "bluewaters", "--json"]).stdout,
    )
    .unwrap();
    std::fs::create_dir(d.join("data")).unwrap();
    std::fs::copy(d.join(&m), d.join("data/m.mtx")).unwrap();
    std::fs::hard_link(d.join(&m), d.join("link.mtx")).unwrap();
    std::fs::write(d.join("run.out"), common::log(common::RUN)).unwrap();
    let before = tree(d);
    let cases: Vec<(Vec<&str>, &str)> =
        vec![
        (
            vec!["analyze", "m.mtx", "--json", "m.mtx"],
            "--json m.mtx: that is the input m.mtx; amgcomm never overwrites an input",
        ),
        (
            vec!["analyze", "m.mtx", "--json", "./link.mtx"],
            "that is the input m.mtx",
        ),
        (
            vec![
                "analyze",
                "m.mtx",
                "--machine",
                "machine.json",
                "--json",
                "machine.json",
            ],
            "that is the input machine.json",
        ),
        (
            vec!["partition", "m.mtx", "--parts", "4", "-o", "m.mtx"],
            "--output m.mtx: that is the input m.mtx",
        ),
        (
            vec!["analyze", "m.mtx", "--nodes", "8", "--measured", "run.out", "--json", "run.out"],
            "--json run.out: that is the input run.out",
        ),
        (
            vec!["hierarchy", "m.mtx", "--json", "m.mtx"],
            "--json m.mtx: that is the input",
        ),
        (vec!["info", "m.mtx", "--spy", "m.mtx.png"], ""),
        (
            vec!["analyze", "--levels-from", "lv", "--json", "lv/r.json"],
            "--json lv/r.json: it is inside the input folder lv",
        ),
        (
            vec!["analyze", "--levels-from", "lv", "--out", "lv"],
            "--out lv: that is the input lv",
        ),
        (
            vec!["analyze", "data/m.mtx", "--out", "data"],
            "--out data: it holds the input data/m.mtx, which replacing the folder would delete",
        ),
        (
            vec!["hierarchy", "data/m.mtx", "--save-levels", "data"],
            "it holds the input data/m.mtx",
        ),
        (
            vec!["analyze", "m.mtx", "--out", "r", "--dot", "r/dot"],
            "--dot r/dot: it overlaps --out",
        ),
    ];
    for (args, needle) in cases {
        let o = amgcomm(d, &args);
        eprintln!(
            "{args:?} {:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        if needle.is_empty() {
            // A new file beside the input is fine.
            ok(&o);
            std::fs::remove_file(d.join("m.mtx.png")).unwrap();
            continue;
        }
        refused(&o, 2, &[needle]);
        assert_eq!(tree(d), before, "{args:?} changed the folder");
    }
    // A folder of the user's is never swept away by a report.
    std::fs::create_dir(d.join("mine")).unwrap();
    std::fs::write(d.join("mine/notes.txt"), "keep").unwrap();
    refused(
        &amgcomm(d, &["analyze", "m.mtx", "--out", "mine"]),
        2,
        &["--out mine: it holds notes.txt, which amgcomm did not write"],
    );
    refused(
        &amgcomm(d, &["hierarchy", "m.mtx", "--save-levels", "mine"]),
        2,
        &["--save-levels mine: it holds notes.txt"],
    );
    assert_eq!(
        std::fs::read_to_string(d.join("mine/notes.txt")).unwrap(),
        "keep"
    );
}

#[test]
fn output_folders_are_replaced_whole() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let m = matrix(d, "m.mtx");
    // --save-levels: a 2-level save after a deep one leaves 2 levels, and
    // --levels-from reads 2.
    ok(&amgcomm(
        d,
        &["hierarchy", &m, "--save-levels", "lv", "--max-coarse", "2"],
    ));
    let deep = names(&d.join("lv"));
    assert!(deep.len() > 5, "{deep:?}");
    ok(&amgcomm(
        d,
        &["hierarchy", &m, "--save-levels", "lv", "--max-levels", "2"],
    ));
    assert_eq!(
        names(&d.join("lv")),
        ["A0.mtx", "A1.mtx", "C0.txt", "P0.mtx"]
    );
    let o = amgcomm(
        d,
        &[
            "analyze",
            "--levels-from",
            "lv",
            "--nodes",
            "2",
            "--ppn",
            "4",
            "--json",
            "two.json",
        ],
    );
    ok(&o);
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("two.json")).unwrap()).unwrap();
    assert_eq!(r["levels"].as_array().unwrap().len(), 2);
    // --dot and the report folder: the second, shallower run leaves only
    // its own files, and levels.csv agrees with report.json.
    let run = |levels: &str| {
        ok(&amgcomm(
            d,
            &[
                "analyze",
                &m,
                "--nodes",
                "2",
                "--ppn",
                "4",
                "--out",
                "rep",
                "--dot",
                "dot",
                "--max-levels",
                levels,
            ],
        ))
    };
    run("4");
    let dots = names(&d.join("dot"));
    assert!(dots.contains(&"level3_spmv.dot".to_string()), "{dots:?}");
    run("2");
    assert_eq!(
        names(&d.join("dot")),
        [
            "level0_ptap.dot",
            "level0_spgemm.dot",
            "level0_spmv.dot",
            "level1_spmv.dot"
        ]
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("rep/report.json")).unwrap()).unwrap();
    assert_eq!(report["levels"].as_array().unwrap().len(), 2);
    let csv = std::fs::read_to_string(d.join("rep/levels.csv")).unwrap();
    // A header, spmv and spgemm and ptap of level 0, spmv of level 1, and
    // a total row per operation.
    assert_eq!(csv.lines().count(), 1 + 3 + 1 + 3, "{csv}");
    // No temporary files anywhere.
    for (path, _) in tree(d) {
        let s = path.to_string_lossy();
        assert!(!s.contains(".amgcomm-"), "{s}");
    }
}

/// SIGINT to a run that is writing its output folders: exit 130, the
/// earlier content intact, no temporary file left.
#[test]
fn ctrl_c_keeps_the_previous_outputs() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    let args = |n: &str| -> Vec<String> {
        [
            "analyze",
            n,
            "--nodes",
            "64",
            "--out",
            "rep",
            "--save-patterns",
            "pats",
        ]
        .map(String::from)
        .to_vec()
    };
    ok(&amgcomm(
        d,
        &args("gen:poisson3d:10")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    ));
    let before = tree(d);
    let mut caught = 0;
    for attempt in 0..20 {
        let mut child = Command::new(env!("CARGO_BIN_EXE_amgcomm"))
            .args(args("gen:elasticity3d:24"))
            .current_dir(d)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let temp = format!(".pats.amgcomm-{}", child.id());
        // The first attempts interrupt the computation; the others wait
        // for the patterns folder to be under construction.
        let during_write = attempt > 0;
        let start = std::time::Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            let writing = d.join(&temp).exists();
            if (during_write && writing) || (!during_write && start.elapsed().as_millis() > 150) {
                // SAFETY: a plain signal to our own child, still running.
                let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
                assert_eq!(sent, 0);
                break;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let out = child.wait_with_output().unwrap();
        if out.status.code() == Some(0) {
            // Finished before the signal: put the old content back.
            for p in ["rep", "pats"] {
                std::fs::remove_dir_all(d.join(p)).unwrap();
            }
            ok(&amgcomm(
                d,
                &args("gen:poisson3d:10")
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            ));
            assert_eq!(tree(d).len(), before.len());
            continue;
        }
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{err}");
        assert!(err.contains("amgcomm: interrupted"), "{err}");
        assert_eq!(tree(d), before, "attempt {attempt}");
        caught += 1;
        if caught >= 3 && attempt > 0 {
            break;
        }
    }
    eprintln!("interrupted {caught} runs");
    assert!(caught >= 2, "caught only {caught} interrupted runs");
}

/// `scale --out DIR` run again replaces its own folder (its `nodes_<n>`
/// report folders included), and refuses one whose `nodes_<n>` holds a
/// file amgcomm did not write.
#[test]
fn scale_reruns_into_its_own_folder() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("sweep");
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_amgcomm"))
            .args(["scale", "gen:poisson2d:30", "--nodes", "1,2", "--out"])
            .arg(&out)
            .output()
            .unwrap()
    };
    assert!(run().status.success());
    let again = run();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    std::fs::write(out.join("nodes_1").join("notes.txt"), "mine").unwrap();
    let refused = run();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("it holds nodes_1"));
    assert!(out.join("nodes_1").join("notes.txt").exists());
}
