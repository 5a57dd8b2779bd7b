//! The solve phase: interp and restrict against brute force on a real
//! hierarchy, the cycle's totals by hand from the report, W against V,
//! measured transfers beside the model, the advice's setup and solve,
//! and the flags refused before any input is read.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use amgcomm::amg::{self, Preset};
use amgcomm::comm::node_aware::{transfer_steps, Strategy};
use amgcomm::comm::{self, Op};
use amgcomm::machine::Machine;
use amgcomm::matrix::gen::{Kind, Problem};
use amgcomm::measured::raptor_log::{write, Printed};
use amgcomm::partition::{CoarseRule, Layout, Partition};
use common::{amgcomm, refused};
use serde_json::Value;

/// `(from, to) -> bytes` of interp by brute force: every entry of `P`
/// whose row and column live on different ranks puts its column in the
/// message column owner -> row owner, once.
fn brute(
    p: &amgcomm::matrix::Csr,
    fine: &Partition,
    coarse: &Partition,
) -> BTreeMap<(u32, u32), u64> {
    let mut cols: BTreeMap<(u32, u32), std::collections::BTreeSet<u32>> = BTreeMap::new();
    let ptr = p.indptr();
    let ptr = ptr.raw_storage();
    for i in 0..p.rows() {
        for &j in &p.indices()[ptr[i]..ptr[i + 1]] {
            let (q, r) = (coarse.owner[j as usize], fine.owner[i]);
            if q != r {
                cols.entry((q, r)).or_default().insert(j);
            }
        }
    }
    cols.into_iter()
        .map(|(k, v)| (k, 8 * v.len() as u64))
        .collect()
}

#[test]
fn interp_and_restrict_by_brute_force_on_a_hierarchy() {
    let a = Problem::new(Kind::Poisson3d, 14).generate().unwrap().csr;
    let h = amg::build(&a, &Preset::Hypre.options(), &mut |_, _| {}).unwrap();
    assert!(h.levels.len() >= 3);
    // Uneven random owners: some ranks own nothing on coarse levels.
    let m = Machine {
        nodes: 3,
        ppn: 5,
        ..Machine::bluewaters()
    };
    let owner: Vec<u32> = (0..a.rows())
        .map(|i| ((i * 7919 + i / 13) % m.ranks()) as u32)
        .collect();
    let fine = Partition {
        owner,
        ranks: m.ranks(),
    };
    let layout = Layout::new(&h, fine, CoarseRule::Inherit);
    let mut checked = 0;
    for l in 0..h.levels.len() - 1 {
        let p = h.levels[l].p.as_ref().unwrap();
        let (part, coarse) = (&layout.levels[l], &layout.levels[l + 1]);
        let want = brute(p, part, coarse);
        let interp = comm::interp(p, part, coarse);
        let got: BTreeMap<(u32, u32), u64> = (interp.messages.iter())
            .map(|x| ((x.from, x.to), x.bytes))
            .collect();
        assert_eq!(got, want, "level {l}");
        let restrict = comm::restrict(&interp, m.ranks());
        let back: BTreeMap<(u32, u32), u64> = (restrict.messages.iter())
            .map(|x| ((x.to, x.from), x.bytes))
            .collect();
        assert_eq!(back, want, "level {l}: restrict mirrors interp");
        // The standard step of the strategies' path is the same exchange.
        let steps = transfer_steps(Op::Interp, p, part, coarse, &m, Strategy::Standard);
        let standard: BTreeMap<(u32, u32), u64> = (steps[0].pattern.messages.iter())
            .map(|x| ((x.from, x.to), x.bytes))
            .collect();
        assert_eq!(standard, want);
        // Node-aware: each value crosses once per node pair both ways, so
        // restrict's inter-node step mirrors interp's.
        for s in [Strategy::NodeAware2, Strategy::NodeAware3] {
            let there = transfer_steps(Op::Interp, p, part, coarse, &m, s);
            let back = transfer_steps(Op::Restrict, p, part, coarse, &m, s);
            let inter = |steps: &[comm::node_aware::Step]| -> BTreeMap<(u32, u32), u64> {
                let step = steps.iter().find(|x| x.name == "inter-node").unwrap();
                (step.pattern.messages.iter())
                    .map(|x| ((x.from, x.to), x.bytes))
                    .collect()
            };
            let mirrored: BTreeMap<(u32, u32), u64> = inter(&back)
                .into_iter()
                .map(|((f, t), b)| ((t, f), b))
                .collect();
            assert_eq!(inter(&there), mirrored, "level {l} {s:?}");
            let bytes = |steps: &[comm::node_aware::Step]| -> u64 {
                steps
                    .iter()
                    .flat_map(|x| &x.pattern.messages)
                    .map(|x| x.bytes)
                    .sum()
            };
            assert_eq!(bytes(&there), bytes(&back));
        }
        checked += want.len();
    }
    assert!(checked > 100, "{checked} pairs");
}

fn report(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["analyze", "gen:poisson3d:12", "--nodes", "2", "--ppn", "4"];
    all.extend(args);
    all.extend(["--out", "r"]);
    let o = amgcomm(dir, &all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(dir.join("r/report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("{v}"))
}

/// The operation's modeled total on `level`.
fn op(r: &Value, level: usize, op: &str) -> f64 {
    f(&r["levels"][level]["ops"][op]["cost"]["total"])
}

#[test]
fn the_cycle_is_its_parts_and_w_doubles_the_coarse_visits() {
    let d = tempfile::tempdir().unwrap();
    let flags = [
        "--max-levels",
        "3",
        "--pre-sweeps",
        "2",
        "--post-sweeps",
        "1",
        "--iterations",
        "7",
    ];
    let v = report(d.path(), &[&flags[..], &["--cycle", "V"]].concat());
    let c = &v["cycle"];
    assert_eq!(c["name"], "V(2,1)");
    assert_eq!(c["smoother"], "hybrid-gs");
    let levels = c["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 3);
    let close = |a: f64, b: f64| assert!((a - b).abs() <= 1e-12 * b.abs().max(1e-9), "{a} vs {b}");
    let (mut cycle, mut setup) = (0.0, 0.0);
    for (l, x) in levels.iter().enumerate() {
        let spmv = op(&v, l, "spmv");
        assert_eq!(f(&x["visits"]), 1.0);
        close(f(&x["smoothing"]), 3.0 * spmv);
        let mut want = 3.0 * spmv;
        if l < 2 {
            let (i, r) = (op(&v, l, "interp"), op(&v, l, "restrict"));
            close(f(&x["residual"]), spmv);
            close(f(&x["interp"]), i);
            close(f(&x["restrict"]), r);
            want += spmv + i + r;
            let s = op(&v, l, "spgemm") + op(&v, l, "ptap");
            close(f(&x["setup"]), s);
            setup += s;
            assert_eq!(x["break_even"].as_u64().unwrap(), (s / want).ceil() as u64);
        } else {
            // The coarsest: its sweeps only.
            for part in ["residual", "interp", "restrict", "setup"] {
                assert_eq!(f(&x[part]), 0.0, "{part}");
            }
        }
        close(f(&x["cycle"]), want);
        close(f(&x["solve"]), 7.0 * want);
        cycle += want;
    }
    close(f(&c["total"]["cycle"]), cycle);
    close(f(&c["total"]["solve"]), 7.0 * cycle);
    close(f(&c["total"]["setup"]), setup);
    assert_eq!(
        c["break_even"].as_u64().unwrap(),
        (setup / cycle).ceil() as u64
    );
    let phase = if setup > 7.0 * cycle {
        "setup"
    } else {
        "solve"
    };
    assert_eq!(c["dominates"], phase);
    // W: level l visited 2^l times, the setup unchanged.
    let w = report(d.path(), &[&flags[..], &["--cycle", "W"]].concat());
    assert_eq!(w["cycle"]["name"], "W(2,1)");
    for l in 0..3 {
        let (xv, xw) = (&c["levels"][l], &w["cycle"]["levels"][l]);
        let k = (1 << l) as f64;
        assert_eq!(f(&xw["visits"]), k);
        for part in ["smoothing", "residual", "interp", "restrict", "cycle"] {
            close(f(&xw[part]), k * f(&xv[part]));
        }
        close(f(&xw["setup"]), f(&xv["setup"]));
    }
    // The folder has the cycle chart; without --cycle, neither it nor
    // the operations.
    assert!(d.path().join("r/cycle.png").is_file() && d.path().join("r/interp.svg").is_file());
    let plain = report(d.path(), &["--max-levels", "3"]);
    assert!(plain.get("cycle").is_none());
    assert!(plain["levels"][0]["ops"].get("interp").is_none());
    assert!(!d.path().join("r/cycle.png").exists());
}

#[test]
fn measured_transfers_sit_beside_the_model() {
    let d = tempfile::tempdir().unwrap();
    let block = |level, op, comm_time: &str| Printed {
        level,
        op,
        max_msgs: 3,
        total_bytes: 1000,
        active_processes: 8,
        comm_time: comm_time.into(),
    };
    let mut blocks = Vec::new();
    for l in 0..3 {
        blocks.push(block(l, Op::Spmv, "2.0e-05"));
        if l < 2 {
            blocks.push(block(l, Op::Interp, "1.0e-05"));
            blocks.push(block(l, Op::Restrict, "3.0e-05"));
        }
    }
    std::fs::write(d.path().join("run.out"), write(&blocks, "")).unwrap();
    let r = report(
        d.path(),
        &["--max-levels", "3", "--cycle", "V", "--measured", "run.out"],
    );
    let l0 = &r["levels"][0]["ops"];
    assert_eq!(f(&l0["interp"]["measured"]["seconds"]), 1e-5);
    assert_eq!(f(&l0["restrict"]["measured"]["seconds"]), 3e-5);
    let ratio = f(&l0["interp"]["modeled_over_measured"]);
    assert!((ratio - op(&r, 0, "interp") / 1e-5).abs() < 1e-9 * ratio);
    // One V(1,1) measured: 2 sweeps + residual of 20 us, 10 + 30 us of
    // transfers on levels 0 and 1; 2 sweeps on the coarsest.
    let c = &r["cycle"];
    for l in 0..2 {
        let m = f(&c["levels"][l]["measured_cycle"]);
        assert!((m - 1e-4).abs() < 1e-15, "{m}");
    }
    assert!((f(&c["levels"][2]["measured_cycle"]) - 4e-5).abs() < 1e-15);
    assert!((f(&c["measured_cycle"]) - 2.4e-4).abs() < 1e-15);
}

#[test]
fn the_advice_weighs_setup_and_solve_as_analyze_would() {
    let d = tempfile::tempdir().unwrap();
    let cycle = ["--max-levels", "4", "--cycle", "V", "--iterations", "30"];
    let r = report(d.path(), &[&cycle[..], &["--advice"]].concat());
    let advice = r["advice"].as_array().unwrap();
    assert!(!advice.is_empty(), "{}", r["advice"]);
    let c = &r["cycle"]["total"];
    for a in advice {
        let e = &a["cycle"];
        assert_eq!(e["iterations"], 30);
        assert_eq!(f(&e["setup"][0]), f(&c["setup"]));
        assert_eq!(f(&e["solve"][0]), f(&c["solve"]));
        // The alternative's own analysis gives the predicted setup and solve.
        let try_args: Vec<&str> = (a["try"].as_array().unwrap().iter())
            .map(|x| x.as_str().unwrap())
            .collect();
        let then = report(d.path(), &[&cycle[..], &try_args[..]].concat());
        let t = &then["cycle"]["total"];
        assert_eq!(f(&e["setup"][1]), f(&t["setup"]), "{try_args:?}");
        assert_eq!(f(&e["solve"][1]), f(&t["solve"]), "{try_args:?}");
    }
}

#[test]
fn cycle_flags_are_refused_before_any_input_is_read() {
    let d = tempfile::tempdir().unwrap();
    for (args, needles) in [
        (
            &["--cycle", "V", "--ops", "spmv,spgemm"][..],
            &["--cycle V(1,1): --ops lacks interp and restrict"][..],
        ),
        (&["--iterations", "0"][..], &["--iterations", "0"][..]),
        (&["--cycle", "X"][..], &["--cycle", "X"][..]),
        (&["--pre-sweeps", "-1"][..], &["-1"][..]),
    ] {
        let all = [&["analyze", "missing.mtx"][..], args].concat();
        refused(&amgcomm(d.path(), &all), 2, needles);
    }
}
