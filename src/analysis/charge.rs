//! A hierarchy through the stages: each level placed on the layout's
//! ranks, its messages extracted per operation and strategy, and charged
//! with the model ([`analyze`]); or messages extracted elsewhere (the
//! ranks of `mpirun`) charged alone ([`analyze_extracted`]).

use std::time::Instant;

use super::exchange::{Charging, Exchanged, Sites};
use super::{Analysis, AnalysisError, LevelAnalysis, OpAnalysis, Options, StageSeconds};
use crate::amg::Hierarchy;
use crate::comm::node_aware::{self, Strategy};
use crate::comm::{self, Op, Pattern};
use crate::machine::Machine;
use crate::partition::Layout;

/// Every level of `h`, its rows placed by `layout` on `m`, charged with
/// `o.model` under `o.strategy`.
pub fn analyze(
    h: &Hierarchy,
    layout: &Layout,
    m: &Machine,
    o: &Options,
) -> Result<Analysis, AnalysisError> {
    if layout.ranks() != m.ranks() {
        return Err(AnalysisError::Ranks {
            layout: layout.ranks(),
            machine: m.ranks(),
        });
    }
    if layout.levels.len() != h.levels.len() {
        return Err(AnalysisError::Levels {
            layout: layout.levels.len(),
            hierarchy: h.levels.len(),
        });
    }
    charge_levels(h.levels.len(), m, o, |l, sites| {
        let places = &sites.places;
        let (level, part) = (&h.levels[l], &layout.levels[l]);
        // Each operation's exchange: one pattern with its summary, or a
        // strategy's steps.
        let mut exchanges: Vec<Charging> = Vec::new();
        let p = (level.p.as_deref()).filter(|_| o.ops.has(Op::Spgemm));
        // The nonzeros of a matrix of rows per rank (the rowcopy term's).
        let local = |rows: Option<&crate::matrix::Csr>| {
            rows.map(|r| {
                let ptr = r.indptr();
                let ptr = ptr.raw_storage();
                (part.rows_of_ranks().iter())
                    .map(|mine| {
                        (mine.iter())
                            .map(|&i| (ptr[i as usize + 1] - ptr[i as usize]) as u64)
                            .sum()
                    })
                    .collect::<Vec<u64>>()
            })
        };
        let mut halo = |op: Op, rows: Option<&crate::matrix::Csr>, spmv: bool| {
            if o.strategy == Strategy::Standard {
                let (x, moved) = comm::spmv_spgemm_summarized(&level.a, rows, part, m);
                if spmv {
                    exchanges.push((Op::Spmv, Exchanged::One(x), None));
                }
                if let Some((mut pat, summary)) = moved {
                    pat.op = op;
                    exchanges.push((op, Exchanged::One((pat, summary)), local(rows)));
                }
            } else {
                let steps =
                    |op, rows| node_aware::steps_of(op, &level.a, rows, part, m, o.strategy);
                if spmv {
                    exchanges.push((
                        Op::Spmv,
                        Exchanged::steps(Op::Spmv, steps(Op::Spmv, None), m, sites),
                        None,
                    ));
                }
                if let Some(rows) = rows {
                    exchanges.push((
                        op,
                        Exchanged::steps(op, steps(op, Some(rows)), m, sites),
                        local(Some(rows)),
                    ));
                }
            }
        };
        // spmv and spgemm share one pass over A's halo.
        halo(Op::Spgemm, p, o.ops.has(Op::Spmv));
        if o.ops.has(Op::Aa) {
            halo(Op::Aa, Some(&level.a), false);
        }
        if let (true, Some(p)) = (o.ops.has(Op::Ptap), &level.p) {
            let pat = comm::ptap(&level.a, p, part, &layout.levels[l + 1], m);
            if o.strategy.is_device() {
                // The device strategies need only the owners' pattern.
                let steps = comm::device::steps_of_standard(pat, m, o.strategy);
                exchanges.push((Op::Ptap, Exchanged::steps(Op::Ptap, steps, m, sites), None));
            } else {
                let summary = comm::summarize_on(&pat, places);
                exchanges.push((Op::Ptap, Exchanged::One((pat, summary)), None));
            }
        }
        if let Some(p) = &level.p {
            transfers(p, part, &layout.levels[l + 1], m, o, sites, &mut exchanges);
        }
        let size = (level.a.rows(), level.a.nnz(), part.active_ranks());
        (size, exchanges)
    })
}

/// The solve's grid transfers of `P_l` asked for by `o.ops`: `interp`
/// and its mirror `restrict` (one pass over `P_l` for both under the
/// standard exchange).
fn transfers(
    p: &crate::matrix::Csr,
    part: &crate::partition::Partition,
    coarse: &crate::partition::Partition,
    m: &Machine,
    o: &Options,
    sites: &Sites,
    exchanges: &mut Vec<Charging>,
) {
    let asked = [Op::Interp, Op::Restrict].map(|op| o.ops.has(op));
    if asked == [false, false] {
        return;
    }
    if o.strategy == Strategy::Standard {
        let interp = comm::interp(p, part, coarse);
        let restrict = asked[1].then(|| comm::restrict(&interp, m.ranks()));
        for pat in [Some(interp).filter(|_| asked[0]), restrict]
            .into_iter()
            .flatten()
        {
            let summary = comm::summarize_on(&pat, &sites.places);
            exchanges.push((pat.op, Exchanged::One((pat, summary)), None));
        }
    } else {
        for (op, _) in [Op::Interp, Op::Restrict]
            .into_iter()
            .zip(asked)
            .filter(|x| x.1)
        {
            let steps = node_aware::transfer_steps(op, p, part, coarse, m, o.strategy);
            exchanges.push((op, Exchanged::steps(op, steps, m, sites), None));
        }
    }
}

/// Every level's exchanges from `extract(level, sites)` (the level's
/// rows, nonzeros and active ranks, and its operations' messages), timed
/// and charged: the one loop of [`analyze`] and [`analyze_extracted`].
fn charge_levels(
    count: usize,
    m: &Machine,
    o: &Options,
    mut extract: impl FnMut(usize, &Sites) -> ((usize, usize, usize), Vec<Charging>),
) -> Result<Analysis, AnalysisError> {
    let sites = Sites::of(m);
    let mut seconds = StageSeconds::default();
    let mut levels = Vec::with_capacity(count);
    for l in 0..count {
        let clock = Instant::now();
        let ((rows, nnz, active_processes), exchanges) = extract(l, &sites);
        seconds.extraction += clock.elapsed().as_secs_f64();
        let clock = Instant::now();
        let ops = charge_level(l, exchanges, m, &sites, o)?;
        seconds.model += clock.elapsed().as_secs_f64();
        levels.push(LevelAnalysis {
            level: l,
            rows,
            nnz,
            active_processes,
            ops,
        });
    }
    Ok(Analysis {
        levels,
        seconds,
        strategy: o.strategy,
    })
}

/// One level's messages found without its whole matrices (a distributed
/// run gathers them from every process's share of the rows,
/// [`crate::comm::share`]), ready for [`analyze_extracted`].
#[derive(Clone, Debug)]
pub struct Extracted {
    /// Rows of `A_l`.
    pub rows: usize,
    /// Nonzeros of `A_l`.
    pub nnz: usize,
    /// Ranks owning at least one row.
    pub active_processes: usize,
    /// `A_l x`.
    pub spmv: Pattern,
    /// `A_l P_l`, on levels with a `P`.
    pub spgemm: Option<Pattern>,
    /// `P_l^T (A_l P_l)`, on levels with a `P`.
    pub ptap: Option<Pattern>,
}

/// Levels extracted elsewhere, each pattern summarised and charged as
/// [`analyze`] does it under the standard strategy (`o.strategy` must be
/// standard: node-aware steps need the matrices).
pub fn analyze_extracted(
    extracted: Vec<Extracted>,
    m: &Machine,
    o: &Options,
) -> Result<Analysis, AnalysisError> {
    assert_eq!(
        o.strategy,
        Strategy::Standard,
        "node-aware steps need the matrices"
    );
    let count = extracted.len();
    let mut levels = extracted.into_iter();
    charge_levels(count, m, o, |_, sites| {
        let e = levels.next().expect("one per level");
        let ptap = e.ptap.filter(|_| o.ops.has(Op::Ptap));
        let exchanges = [
            (Op::Spmv, Some(e.spmv)),
            (Op::Spgemm, e.spgemm),
            (Op::Ptap, ptap),
        ]
        .into_iter()
        .filter_map(|(op, pat)| {
            let pat = pat?;
            debug_assert!(pat.messages.is_sorted_by_key(|m| (m.from, m.to)));
            let summary = comm::summarize_on(&pat, &sites.places);
            Some((op, Exchanged::One((pat, summary)), None))
        })
        .collect();
        ((e.rows, e.nnz, e.active_processes), exchanges)
    })
}

/// Charges one level's exchanges; an infinite or undefined cost is an
/// error naming the term.
fn charge_level(
    l: usize,
    exchanges: Vec<Charging>,
    m: &Machine,
    sites: &Sites,
    o: &Options,
) -> Result<Vec<OpAnalysis>, AnalysisError> {
    let mut ops = Vec::with_capacity(exchanges.len());
    for (op, exchanged, local) in exchanges {
        let charged = exchanged.charge(op, m, sites, o, local.as_deref());
        let cost = &charged.cost;
        if !cost.total.is_finite() {
            // The term to blame, or the sum when finite terms overflow.
            let bad = cost.terms.iter().find(|t| !t.charge.seconds.is_finite());
            return Err(AnalysisError::NotFinite {
                level: l,
                op: op.name(),
                term: bad.map_or("total", |t| t.term.name),
                seconds: bad.map_or(cost.total, |t| t.charge.seconds),
            });
        }
        ops.push(charged);
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::{build, Preset};
    use crate::machine::Locality;
    use crate::matrix::gen::{Kind, Problem};
    use crate::model::Model;
    use crate::partition::{CoarseRule, Partition};

    /// Patterns charged as extracted elsewhere (summarised afresh) give
    /// the analysis whose summaries were summed during extraction.
    #[test]
    fn extracted_patterns_charge_as_the_analysis_does() {
        let a = Problem::new(Kind::Poisson3d, 10).generate().unwrap().csr;
        let h = build(&a, &Preset::Hypre.options(), &mut |_, _| {}).unwrap();
        let m = crate::machine::test_machine(3, 4);
        let fine = Partition::contiguous(a.rows(), m.ranks());
        let layout = Layout::new(&h, fine, CoarseRule::Inherit);
        let want = analyze(&h, &layout, &m, &Options::default()).unwrap();
        let extracted = (h.levels.iter().enumerate())
            .map(|(l, level)| {
                let part = &layout.levels[l];
                let (spmv, spgemm) = comm::spmv_spgemm(&level.a, level.p.as_deref(), part, &m);
                let ptap = (level.p.as_ref())
                    .map(|p| comm::ptap(&level.a, p, part, &layout.levels[l + 1], &m));
                Extracted {
                    rows: level.a.rows(),
                    nnz: level.a.nnz(),
                    active_processes: part.active_ranks(),
                    spmv,
                    spgemm,
                    ptap,
                }
            })
            .collect();
        let got = analyze_extracted(extracted, &m, &Options::default()).unwrap();
        assert!(want.levels.len() >= 3);
        let json = |a: &Analysis| serde_json::to_string(&a.levels).unwrap();
        assert_eq!(json(&got), json(&want));
    }

    /// `op`'s exchange of `a` (rows of GPU g owned by its owner rank)
    /// under `strategy`, charged with `model` on `m`.
    fn device_charge(
        a: &crate::matrix::Csr,
        gpu_of_row: &[usize],
        m: &Machine,
        strategy: Strategy,
        model: &str,
    ) -> OpAnalysis {
        let part = Partition {
            owner: gpu_of_row.iter().map(|&g| m.owner_rank(g) as u32).collect(),
            ranks: m.ranks(),
        };
        let sites = Sites::of(m);
        let steps = node_aware::steps_of(Op::Spmv, a, None, &part, m, strategy);
        let o = Options {
            model: Model::parse(model).unwrap(),
            strategy,
            ..Options::default()
        };
        Exchanged::steps(Op::Spmv, steps, m, &sites).charge(Op::Spmv, m, &sites, &o, None)
    }

    /// Rows `block` per GPU; row i of GPU g couples to `cols(g, i)`.
    fn blocks(
        gpus: usize,
        block: usize,
        cols: impl Fn(usize, usize) -> Vec<usize>,
    ) -> (crate::matrix::Csr, Vec<usize>) {
        let n = gpus * block;
        let mut t = crate::matrix::csr::Triplets::default();
        for g in 0..gpus {
            for i in 0..block {
                let r = g * block + i;
                t.push(r as u32, r as u32, 1.0);
                for c in cols(g, i) {
                    t.push(r as u32, c as u32, -1.0);
                }
            }
        }
        let a = crate::matrix::csr::from_triplets(n, n, &[t], crate::matrix::Symmetry::General);
        (a, (0..n).map(|r| r / block).collect())
    }

    /// Two nodes x two GPUs, two ranks each (owners 0, 2 | 4, 6); a
    /// by-hand charge of each device strategy's steps.
    #[test]
    fn device_strategies_by_hand() {
        let mut m = crate::machine::test_machine(2, 4);
        let mut dev = crate::machine::Params::bluewaters();
        for (_, r) in dev.rates.0.iter_mut() {
            r.short.alpha *= 10.0;
            r.eager.alpha *= 10.0;
            r.rend.alpha *= 10.0;
        }
        let copy = crate::machine::Rate {
            alpha: 1e-5,
            rate: 1e10,
        };
        m.gpus = Some(crate::machine::Gpus {
            per_node: 2,
            params: dev.clone(),
            h2d: copy,
            d2h: crate::machine::Rate {
                alpha: 2e-5,
                rate: 5e9,
            },
            work: Default::default(),
            memory: Default::default(),
        });
        let m = m.on_devices(2).unwrap();
        // GPU 0 needs 1 value of GPU 1 (same node, other socket) and 100
        // of GPU 2 (other node); GPU 3 needs 2000 values of GPU 1.
        let (a, gpu) = blocks(4, 2000, |g, i| match (g, i) {
            (0, 0) => (2000..2001).chain(4000..4100).collect(),
            (3, _) => vec![2000 + i],
            _ => vec![],
        });
        let host = m.params.clone();
        let t = |p: &crate::machine::Params, l: Locality, bytes: u64, a: usize| {
            let mut mm = m.clone();
            mm.params = p.clone();
            crate::model::terms::message_time(&mm, l, bytes, a)
        };
        let (node, net) = (Locality::NODE, Locality::NETWORK);
        // Sends: owner 2 (GPU 1) 8 B to owner 0 and 16000 B to owner 6;
        // owner 4 (GPU 2) 800 B to owner 0. Node 0's network senders: 1.
        let sender2 = |p| t(p, node, 8, 1) + t(p, net, 16000, 1);
        let sender4 = |p| t(p, net, 800, 1);
        let gpu_aware = device_charge(&a, &gpu, &m, Strategy::GpuAware, "nodeaware");
        let want = sender2(&dev).max(sender4(&dev));
        assert!(
            (gpu_aware.cost.total - want).abs() < 1e-15,
            "{} {want}",
            gpu_aware.cost.total
        );
        // Staged: copies of the most one GPU sends (16008 B from GPU 1)
        // and receives (16000 B to GPU 3), the host messages between.
        let staged = device_charge(&a, &gpu, &m, Strategy::Staged, "nodeaware");
        let copies = (2e-5 + 16008.0 / 5e9) + (1e-5 + 16000.0 / 1e10);
        let want = copies + sender2(&host).max(sender4(&host));
        assert!(
            (staged.cost.total - want).abs() < 1e-15,
            "{} {want}",
            staged.cost.total
        );
        assert!((staged.cost.seconds("memcpy") - copies).abs() < 1e-18);
        let names: Vec<&str> = staged.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["to-host", "host", "to-device"]);
        assert_eq!(staged.steps[0].copy.as_ref().unwrap().max_gpu_bytes, 16008);
        // Split: TAPComm's global round. GPU 1 sends 16000 B (to GPU 3)
        // from rank 3 and 8 B (to GPU 0) from rank 2; GPU 2 its 800 B (to
        // GPU 0) from rank 5. GPU 0 receives 800 B at rank 0 and 8 B at
        // rank 1. One message each sender, in one step; the copies as
        // staged (the ranks of one GPU copy over its one link).
        let split = device_charge(&a, &gpu, &m, Strategy::Split, "nodeaware");
        let global = t(&host, node, 8, 1)
            .max(t(&host, net, 16000, 1))
            .max(t(&host, net, 800, 1));
        let want = copies + global;
        assert!(
            (split.cost.total - want).abs() < 1e-15,
            "{} {want}",
            split.cost.total
        );
        // Staged node-aware: the same global round, after owner 2 hands
        // rank 3 its 16000 B and owner 4 rank 5 its 800 B (same socket),
        // and before rank 1 hands owner 0 the 8 B it received.
        let sna = device_charge(&a, &gpu, &m, Strategy::StagedNodeAware, "nodeaware");
        let names: Vec<&str> = sna.steps.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["to-host", "to-senders", "global", "to-owner", "to-device"]
        );
        let socket = Locality::SOCKET;
        let want = copies
            + t(&host, socket, 16000, 1).max(t(&host, socket, 800, 1))
            + global
            + t(&host, socket, 8, 1);
        assert!(
            (sna.cost.total - want).abs() < 1e-15,
            "{} {want}",
            sna.cost.total
        );
    }

    /// The papers' orderings on Lassen: many small inter-node messages
    /// per GPU go fastest through the host, spread over each GPU's
    /// serving ranks (split); a few large ones device to device.
    #[test]
    fn device_strategies_win_where_the_papers_say() {
        let lassen = |nodes| {
            crate::machine::presets::preset("lassen")
                .unwrap()
                .allocated(Some(nodes), None, None, None)
                .unwrap()
                .on_devices(2)
                .unwrap()
        };
        let totals = |m: &Machine, a: &crate::matrix::Csr, gpu: &[usize]| -> Vec<(Strategy, f64)> {
            Strategy::all(true)
                .into_iter()
                .map(|s| {
                    (
                        s,
                        device_charge(a, gpu, m, s, "nodeaware+queue+contention+bare")
                            .cost
                            .total,
                    )
                })
                .collect()
        };
        let best = |t: &[(Strategy, f64)]| t.iter().min_by(|x, y| x.1.total_cmp(&y.1)).unwrap().0;
        // 8 nodes x 4 GPUs, one row each, every row coupled to all: each
        // GPU sends 8 B to 31 GPUs, 28 of them off its node.
        let m = lassen(8);
        let (a, gpu) = blocks(32, 1, |g, _| (0..32).filter(|&h| h != g).collect());
        let t = totals(&m, &a, &gpu);
        assert_eq!(best(&t), Strategy::Split, "{t:?}");
        // 2 nodes: each GPU needs 64 KiB of its partner on the other node.
        let m = lassen(2);
        let (a, gpu) = blocks(8, 8192, |g, i| vec![((g + 4) % 8) * 8192 + i]);
        let t = totals(&m, &a, &gpu);
        assert_eq!(best(&t), Strategy::GpuAware, "{t:?}");
    }

    /// ptap under a device strategy takes the strategy's steps from the
    /// owners' ptap messages, staged-node-aware's TAPComm rounds too.
    #[test]
    fn ptap_takes_each_device_strategys_steps() {
        let a = Problem::new(Kind::Poisson3d, 8).generate().unwrap().csr;
        let h = build(&a, &Preset::Hypre.options(), &mut |_, _| {}).unwrap();
        let m = crate::machine::presets::preset("lassen")
            .unwrap()
            .allocated(Some(2), None, None, None)
            .unwrap()
            .on_devices(2)
            .unwrap();
        let fine = Partition::contiguous(a.rows(), m.owners().ranks());
        let layout = Layout::new(&h, fine, CoarseRule::Inherit).spread(&m);
        for (strategy, names) in [
            (
                Strategy::StagedNodeAware,
                &["to-host", "to-senders", "global", "to-owner", "to-device"][..],
            ),
            (Strategy::Split, &["to-host", "global", "to-device"][..]),
            (Strategy::Staged, &["to-host", "host", "to-device"][..]),
        ] {
            let o = Options {
                strategy,
                ops: comm::Ops::of(&[Op::Spmv, Op::Ptap]),
                ..Options::default()
            };
            let r = analyze(&h, &layout, &m, &o).unwrap();
            let level = &r.levels[0];
            for op in [Op::Spmv, Op::Ptap] {
                let x = level.ops.iter().find(|x| x.op == op).unwrap();
                let got: Vec<&str> = x.steps.iter().map(|s| s.name.as_str()).collect();
                assert_eq!(got, names, "{} {}", strategy.name(), op.name());
                assert!(x.cost.total > 0.0);
            }
        }
    }

    #[test]
    fn an_infinite_cost_is_an_error_naming_the_term() {
        let a = Problem::new(Kind::Poisson3d, 8).generate().unwrap().csr;
        let h = build(&a, &Preset::Hypre.options(), &mut |_, _| {}).unwrap();
        // Parameters set in code skip validation: gamma n^2 overflows.
        let mut m = crate::machine::test_machine(2, 4);
        m.params.gamma = f64::MAX;
        let fine = Partition::contiguous(a.rows(), m.ranks());
        let layout = Layout::new(&h, fine, CoarseRule::Inherit);
        let e = analyze(&h, &layout, &m, &Options::default()).unwrap_err();
        assert!(
            matches!(
                e,
                AnalysisError::NotFinite {
                    level: 0,
                    op: "spmv",
                    term: "queue",
                    ..
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "level 0 spmv: the queue cost is inf s; check the machine's parameters"
        );
    }
}
