//! RAPtor's benchmark_matops problem (issue: strong scaling and advice
//! held against measured choices): the generator, the `aa` exchange and
//! level 0 against the Blue Waters logs, whose figures
//! `tests/data/raptor/aniso_level0.csv` keeps with their source.

use amgcomm::comm::{self, Op};
use amgcomm::machine::{Machine, Protocol};
use amgcomm::matrix::gen::{diffusion_stencil_2d, Kind, Problem};
use amgcomm::partition::{CoarseRule, Partition};

/// The stencil by hand at 45 degrees, eps = 0.001: C = S = 1/sqrt 2, so
/// CC = SS = CS = 1/2.
#[test]
fn the_stencil_and_a_4_by_4_grid_by_hand() {
    let e = 0.001;
    let st = diffusion_stencil_2d(e, 45.0);
    let corner_neg = ((-e - 1.0) + (3.0 * e - 3.0) / 2.0) / 6.0;
    let edge = (-e - 1.0) / 6.0;
    let corner_pos = ((-e - 1.0) + (-3.0 * e + 3.0) / 2.0) / 6.0;
    let centre = (8.0 * e + 8.0) / 6.0;
    let want = [
        corner_neg, edge, corner_pos, edge, centre, edge, corner_pos, edge, corner_neg,
    ];
    for (k, (a, b)) in st.iter().zip(want).enumerate() {
        assert!((a - b).abs() < 1e-15, "entry {k}: {a} vs {b}");
    }
    // Rows sum to zero in the interior (a pure diffusion operator).
    assert!(st.iter().sum::<f64>().abs() < 1e-14);
    let a = Problem::new(Kind::Aniso2d, 4).generate().unwrap().csr;
    // Interior 2 x 2 points have 9 entries, edges 6, corners 4.
    let nnz_of = |r: usize| a.outer_view(r).unwrap().nnz();
    assert_eq!((nnz_of(5), nnz_of(1), nnz_of(0)), (9, 6, 4));
    assert_eq!(a.nnz(), 4 * 9 + 8 * 6 + 4 * 4);
    // Row 5 = (x 1, y 1): its neighbour (dx, dy) is column 5 + dx + 4 dy
    // with stencil entry 3 (dy + 1) + (dx + 1).
    for dy in -1i64..=1 {
        for dx in -1i64..=1 {
            let col = (5 + dx + 4 * dy) as usize;
            let k = (3 * (dy + 1) + (dx + 1)) as usize;
            assert_eq!(a.get(5, col), Some(&st[k]), "({dx}, {dy})");
        }
    }
    // The corner (0, 0) couples to (1, 1) with the negative corner entry,
    // and the grid does not wrap: row 3 (x 3) has no column 4 (x 0, y 1).
    assert_eq!(a.get(0, 5), Some(&st[8]));
    assert_eq!(a.get(3, 4), None);
    assert_eq!(a.get(4, 3), None);
}

#[test]
fn aa_sends_packed_rows_of_a_along_the_halo_by_brute_force() {
    // Uneven blocks (10, 7 and 8 rows) of a 5 x 5 grid on 3 ranks, one per node.
    let a = Problem::new(Kind::Aniso2d, 5).generate().unwrap().csr;
    let owner: Vec<u32> = (0..25)
        .map(|i| {
            if i < 10 {
                0
            } else if i < 17 {
                1
            } else {
                2
            }
        })
        .collect();
    let part = Partition {
        owner: owner.clone(),
        ranks: 3,
    };
    let m = Machine {
        nodes: 3,
        ppn: 1,
        ..Machine::bluewaters()
    };
    let (spmv, aa) = comm::spmv_spgemm(&a, Some(&a), &part, &m);
    let aa = aa.unwrap();
    // Brute force: q sends row j to p when a row of p has column j owned by q.
    let mut want = std::collections::BTreeMap::new();
    for i in 0..25 {
        let view = a.outer_view(i).unwrap();
        for &j in view.indices() {
            let (p, q) = (owner[i], owner[j as usize]);
            if p != q {
                want.entry((q, p))
                    .or_insert_with(std::collections::BTreeSet::new)
                    .insert(j as usize);
            }
        }
    }
    let pairs: Vec<(u32, u32, u64, u64)> = (spmv.messages.iter().zip(&aa.messages))
        .map(|(x, r)| (x.from, x.to, x.bytes, r.bytes))
        .collect();
    let brute: Vec<(u32, u32, u64, u64)> = want
        .iter()
        .map(|(&(q, p), rows)| {
            let nnz: u64 = rows
                .iter()
                .map(|&j| a.outer_view(j).unwrap().nnz() as u64)
                .sum();
            (
                q,
                p,
                8 * rows.len() as u64,
                rows.len() as u64 * 4 + nnz * 12,
            )
        })
        .collect();
    assert_eq!(pairs, brute);
    assert_eq!(Op::Aa.name(), "aa");
}

/// One row of the level-0 table.
struct Logged {
    processes: usize,
    block: String,
    fields: Vec<u64>,
}

fn logged() -> Vec<Logged> {
    let text = std::fs::read_to_string("tests/data/raptor/aniso_level0.csv").unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("processes"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Logged {
                processes: f[0].parse().unwrap(),
                block: f[1].to_string(),
                fields: f[2..].iter().map(|x| x.parse().unwrap()).collect(),
            }
        })
        .collect()
}

#[test]
fn level_0_matches_the_blue_waters_logs_exactly() {
    let a = Problem::new(Kind::Aniso2d, 3200).generate().unwrap().csr;
    assert_eq!((a.rows(), a.nnz()), (10_240_000, 92_121_604));
    let rows = logged();
    assert_eq!(rows.len(), 6);
    // Level 0's P (CLJP with RAPtor's per-rank weights, modified
    // classical), built for each rank count: interp's exchange.
    let o = amgcomm::amg::Options {
        max_levels: 2,
        ..amgcomm::amg::Preset::RaptorMatops2018.options()
    };
    for processes in [128, 512] {
        let m = Machine {
            nodes: processes / 16,
            ..Machine::bluewaters()
        };
        // RAPtor's blocks: n / P rows, the remainder to the first ranks.
        let part = Partition::contiguous(a.rows(), processes);
        let (vector, matrix) = comm::spmv_spgemm_summarized(&a, Some(&a), &part, &m);
        let blocks: Vec<usize> = (0..=processes)
            .map(|r| r * (a.rows() / processes) + r.min(a.rows() % processes))
            .collect();
        let h = amgcomm::amg::build_ranked(a.clone(), &blocks, &o, &mut |_, _| {}).unwrap();
        let p0 = h.levels[0].p.as_ref().unwrap();
        let coarse = part.coarsen(&h.levels[0].coarse_points, CoarseRule::Inherit);
        let interp = comm::interp(p0, &part, &coarse);
        let interp = comm::summarize(&interp, &m);
        for (block, s) in [
            ("A Vector", vector.1),
            ("A", matrix.unwrap().1),
            ("P Vector", interp),
        ] {
            let row = rows
                .iter()
                .find(|r| r.processes == processes && r.block == block)
                .unwrap();
            let class = |locality: &str| {
                s.by_class
                    .iter()
                    .find(|c| c.locality == locality && c.protocol == Protocol::Rend)
                    .unwrap()
            };
            let small: u64 = (s.by_class.iter())
                .filter(|c| c.protocol != Protocol::Rend)
                .map(|c| c.messages)
                .sum();
            assert_eq!(small, 0, "{processes} {block}: no short or eager message");
            let ours = [
                s.messages.max_sent,
                s.bytes.inter_node,
                part.active_ranks() as u64,
                class("network").max_sent,
                class("node").max_sent,
                class("socket").max_sent,
                class("socket").max_bytes_sent,
            ];
            assert_eq!(ours.to_vec(), row.fields, "{processes} processes, {block}");
        }
    }
}

#[test]
fn scale_and_generator_flags_are_refused_before_any_input() {
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_amgcomm"))
            .args(args)
            .output()
            .unwrap()
    };
    for (args, needle) in [
        (
            &["analyze", "gen:poisson2d:10", "--nodes", "8,32"][..],
            "--nodes takes one count",
        ),
        (
            &["scale", "gen:beam:2", "--weak", "--nodes", "1,2"][..],
            "grid generator",
        ),
        (
            &["scale", "gen:poisson2d:10", "--nodes", "8,4"][..],
            "must increase",
        ),
        (&["scale", "gen:poisson2d:10"][..], "--nodes"),
        (
            &["analyze", "gen:poisson2d:10", "--epsilon", "0.1"][..],
            "gen:aniso2d:N",
        ),
        (
            &["analyze", "gen:aniso2d:10", "--epsilon", "-1"][..],
            "epsilon must be a positive",
        ),
        (
            &["analyze", "gen:aniso2d:10:theta=3"][..],
            "'theta=3' is not a parameter",
        ),
        (
            &[
                "scale",
                "gen:poisson2d:10",
                "--nodes",
                "1,2",
                "--measured",
                "missing_dir_x",
            ][..],
            "no such file",
        ),
    ] {
        let o = run(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("amgcomm: ") && err.contains(needle),
            "{needle} not in {err}"
        );
    }
}
