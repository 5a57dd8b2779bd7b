//! Exchanges of data that lives on the GPUs (Bienz, Olson, Gropp and
//! Lockhart, HPEC 2021; Lockhart et al., Parallel Computing 116, 2023),
//! from the standard pattern between the GPUs' owner ranks:
//!
//! - `gpu-aware`: each message device to device (`device`);
//! - `staged`: each GPU copies what it sends to the host (`to-host`), the
//!   owners exchange host buffers (`host`), each GPU copies what it
//!   received back (`to-device`);
//! - `staged-node-aware`: the same with `node-aware-3`'s steps between
//!   the CPU ranks in place of `host`;
//! - `split`: staged, but each GPU's inter-node bytes, in order of
//!   destination, are cut into `ranks_per_gpu` equal runs, run `k` sent by
//!   the GPU's `k`-th serving rank to the destination GPU's `k`-th (the
//!   papers' split strategy with a duplicated device pointer: every
//!   serving rank copies its run itself). On-node messages stay between
//!   owners.
//!
//! A copy step's messages are `(r, r, bytes)`: rank `r` copies `bytes`
//! between its GPU and the host; their `runs` count the kernels rank `r`
//! launches with the copy (BenchPress `spmv/mpi_sparse_mat.cu`: a pack
//! kernel before every copy to the host; an unpack kernel after a copy
//! to the device where the values arrive through helper ranks, in
//! `staged-node-aware` and `split`; none where they land in place, in
//! `staged`).

use super::strategy::{Step, StepKind, Strategy};
use super::{Message, Pattern};
use crate::machine::{Copy, Machine};

/// The steps of device `strategy` from the standard exchange `standard`
/// (a host step between owner ranks); `node_aware` gives node-aware-3's
/// steps of the same exchange.
pub(crate) fn steps(
    standard: Step,
    m: &Machine,
    strategy: Strategy,
    node_aware: impl FnOnce() -> Vec<Step>,
) -> Vec<Step> {
    let op = standard.pattern.op;
    let copies = |name, way, kernels: u32, per_rank: Vec<(u32, u64)>| Step {
        name,
        pattern: Pattern {
            op,
            messages: (per_rank.into_iter())
                .filter(|&(_, b)| b > 0)
                .map(|(r, bytes)| Message {
                    from: r,
                    to: r,
                    bytes,
                    runs: kernels,
                })
                .collect(),
        },
        kind: StepKind::Copy(way),
    };
    let sent = |p: &Pattern| totals(p, m.ranks(), |msg| msg.from);
    let received = |p: &Pattern| totals(p, m.ranks(), |msg| msg.to);
    match strategy {
        Strategy::GpuAware => vec![Step {
            name: "device",
            kind: StepKind::Device,
            ..standard
        }],
        Strategy::Staged | Strategy::StagedNodeAware => {
            let (to_host, to_device) = (sent(&standard.pattern), received(&standard.pattern));
            let mut out = vec![copies("to-host", Copy::ToHost, 1, to_host)];
            match strategy {
                Strategy::Staged => out.push(Step {
                    name: "host",
                    ..standard
                }),
                _ => out.extend(node_aware()),
            }
            let unpack = u32::from(strategy == Strategy::StagedNodeAware);
            out.push(copies("to-device", Copy::ToDevice, unpack, to_device));
            out
        }
        Strategy::Split => {
            let (on_node, inter) = split(&standard.pattern, m);
            // Each serving rank copies what it sends and what it receives.
            let both = |f: &dyn Fn(&Pattern) -> Vec<(u32, u64)>| {
                let mut v = f(&on_node);
                for (x, y) in v.iter_mut().zip(f(&inter)) {
                    x.1 += y.1;
                }
                v
            };
            let (to_host, to_device) = (both(&sent), both(&received));
            vec![
                copies("to-host", Copy::ToHost, 1, to_host),
                Step {
                    name: "on-node",
                    pattern: on_node,
                    kind: StepKind::Host,
                },
                Step {
                    name: "inter-node",
                    pattern: inter,
                    kind: StepKind::Host,
                },
                copies("to-device", Copy::ToDevice, 1, to_device),
            ]
        }
        _ => unreachable!("{} is not a device strategy", strategy.name()),
    }
}

/// Which ranks `strategy` aggregates over on `m`, where that differs
/// from BenchPress's programs (`spmv/mpi_sparse_mat.cu`, whose node-aware
/// exchange runs TAPComm over each GPU's serving ranks): the grouping
/// charged here and BenchPress's. `None` where they agree: host
/// strategies, one GPU a node, and `split` (each GPU's serving ranks, as
/// BenchPress's `dup_devptr` pairs them).
pub fn grouping(strategy: Strategy, m: &Machine) -> Option<String> {
    let (gpus, k) = (m.gpus.as_ref()?, m.ranks_per_gpu?);
    (strategy == Strategy::StagedNodeAware && gpus.per_node > 1).then(|| {
        format!(
            "node-aware-3 charged over each node's {} CPU ranks; BenchPress's node-aware \
             exchange groups each GPU's {k} serving ranks ({} groups a node)",
            m.ppn, gpus.per_node
        )
    })
}

/// The steps of device `strategy` (not `staged-node-aware`) for the
/// standard pattern `standard` between owner ranks (ptap's).
pub fn steps_of_standard(standard: Pattern, m: &Machine, strategy: Strategy) -> Vec<Step> {
    let standard = Step {
        name: "standard",
        pattern: standard,
        kind: StepKind::Host,
    };
    steps(standard, m, strategy, || {
        unreachable!("no node-aware steps of a bare pattern")
    })
}

/// A copy step's bytes per GPU, keyed by the GPU's owner rank: the
/// ranks serving one GPU copy over its one link.
pub fn bytes_per_gpu(copies: &Pattern, m: &Machine) -> std::collections::BTreeMap<usize, u64> {
    per_gpu(copies, m, |c| c.bytes)
}

/// `f` of a copy step's copies summed per GPU, keyed by the GPU's owner
/// rank.
pub fn per_gpu(
    copies: &Pattern,
    m: &Machine,
    f: impl Fn(&Message) -> u64,
) -> std::collections::BTreeMap<usize, u64> {
    let mut per_gpu = std::collections::BTreeMap::new();
    for c in &copies.messages {
        *per_gpu.entry(m.gpu_owner(c.from as usize)).or_default() += f(c);
    }
    per_gpu
}

/// Bytes per rank of `p`'s messages, keyed by `rank(message)`.
fn totals(p: &Pattern, ranks: usize, rank: impl Fn(&Message) -> u32) -> Vec<(u32, u64)> {
    let mut t = vec![0u64; ranks];
    for msg in &p.messages {
        t[rank(msg) as usize] += msg.bytes;
    }
    (0..ranks as u32).zip(t).collect()
}

/// The split strategy's messages (BenchPress's `dup_devptr_node_aware`:
/// RAPtor's TAPComm global step with each GPU's serving ranks as its
/// locality): the message from GPU `a` to GPU `b` goes from `a`'s serving
/// rank `b mod k` to `b`'s serving rank `a mod k`, each serving rank
/// copying its own messages straight from or to the owner's device
/// buffers. Messages between GPUs of one node go the same way; the first
/// pattern (kept for the steps' shape) is empty.
fn split(p: &Pattern, m: &Machine) -> (Pattern, Pattern) {
    let gpu = |r: u32| m.gpu_of(r as usize);
    let raw: Vec<(u32, u32, u64)> = (p.messages.iter())
        .map(|x| {
            let (from, to) = (m.serving(x.from as usize), m.serving(x.to as usize));
            let (a, b) = (gpu(x.from), gpu(x.to));
            (
                from[b % from.len()] as u32,
                to[a % to.len()] as u32,
                x.bytes,
            )
        })
        .collect();
    let op = p.op;
    let none = Pattern {
        op,
        messages: Vec::new(),
    };
    (none, Pattern::new(op, raw, m.ranks()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::Op;
    use crate::machine::{Gpus, Params, Rate};

    /// 2 nodes x 2 GPUs, 2 ranks per GPU: owners 0, 2 (node 0) and 4, 6.
    fn machine() -> Machine {
        let mut m = crate::machine::test_machine(2, 4);
        let r = Rate {
            alpha: 1e-5,
            rate: 1e10,
        };
        m.gpus = Some(Gpus {
            per_node: 2,
            params: Params::bluewaters(),
            h2d: r,
            d2h: r,
            work: Default::default(),
            memory: Default::default(),
        });
        m.on_devices(2).unwrap()
    }

    fn standard(messages: &[(u32, u32, u64)]) -> Step {
        Step {
            name: "standard",
            pattern: Pattern::new(Op::Spmv, messages.to_vec(), 8),
            kind: StepKind::Host,
        }
    }

    fn triples(p: &Pattern) -> Vec<(u32, u32, u64)> {
        p.messages.iter().map(|x| (x.from, x.to, x.bytes)).collect()
    }

    #[test]
    fn split_sends_each_gpu_pair_through_one_serving_rank_each_side() {
        let m = machine();
        // Owner 0 (GPU 0): 100 B to owner 2 (GPU 1, on node), 30 B to 4
        // (GPU 2) and 50 B to 6 (GPU 3); owner 4 (GPU 2) 8 B to owner 0.
        let s = standard(&[(0, 2, 100), (0, 4, 30), (0, 6, 50), (4, 0, 8)]);
        let steps = steps(s, &m, Strategy::Split, Vec::new);
        let names: Vec<&str> = steps.iter().map(|s| s.name).collect();
        assert_eq!(names, ["to-host", "on-node", "inter-node", "to-device"]);
        assert!(steps[1].pattern.messages.is_empty());
        // GPU a -> b: a's serving rank b mod 2 to b's serving rank a mod 2.
        assert_eq!(
            triples(&steps[2].pattern),
            [(0, 4, 30), (1, 2, 100), (1, 6, 50), (4, 0, 8)]
        );
        // Copies: each serving rank its own bytes, both ways; one kernel
        // each (pack, then unpack).
        assert_eq!(
            triples(&steps[0].pattern),
            [(0, 0, 30), (1, 1, 150), (4, 4, 8)]
        );
        assert_eq!(
            triples(&steps[3].pattern),
            [(0, 0, 8), (2, 2, 100), (4, 4, 30), (6, 6, 50)]
        );
        assert!(steps[3].pattern.messages.iter().all(|c| c.runs == 1));
    }

    /// staged-node-aware says it aggregates over the node, not over each
    /// GPU's serving ranks as BenchPress does; the others say nothing.
    #[test]
    fn staged_node_aware_names_the_grouping_it_charges() {
        let m = machine();
        let note = grouping(Strategy::StagedNodeAware, &m).unwrap();
        assert!(note.contains("each node's 4 CPU ranks"), "{note}");
        assert!(
            note.contains("each GPU's 2 serving ranks (2 groups a node)"),
            "{note}"
        );
        for s in [
            Strategy::Split,
            Strategy::Staged,
            Strategy::GpuAware,
            Strategy::NodeAware3,
        ] {
            assert_eq!(grouping(s, &m), None, "{}", s.name());
        }
        // One GPU a node: the node is the GPU's group.
        let mut one = crate::machine::test_machine(2, 2);
        one.sockets_per_node = 1;
        one.gpus = m.gpus.clone().map(|g| Gpus { per_node: 1, ..g });
        let one = one.on_devices(2).unwrap();
        assert_eq!(grouping(Strategy::StagedNodeAware, &one), None);
        // Data on the host: no GPU groups.
        assert_eq!(
            grouping(
                Strategy::StagedNodeAware,
                &crate::machine::test_machine(2, 4)
            ),
            None
        );
    }

    #[test]
    fn staged_copies_what_each_owner_sends_and_receives() {
        let m = machine();
        let s = standard(&[(0, 2, 100), (0, 4, 30), (6, 0, 8)]);
        let st = steps(s.clone(), &m, Strategy::Staged, Vec::new);
        let names: Vec<&str> = st.iter().map(|s| s.name).collect();
        assert_eq!(names, ["to-host", "host", "to-device"]);
        assert_eq!(triples(&st[0].pattern), [(0, 0, 130), (6, 6, 8)]);
        assert_eq!(
            triples(&st[2].pattern),
            [(0, 0, 8), (2, 2, 100), (4, 4, 30)]
        );
        assert_eq!(st[1].kind, StepKind::Host);
        // Staged: a pack kernel before the copy out, none after the copy
        // in (the values land in place).
        assert!(st[0].pattern.messages.iter().all(|c| c.runs == 1));
        assert!(st[2].pattern.messages.iter().all(|c| c.runs == 0));
        let g = steps(s, &m, Strategy::GpuAware, Vec::new);
        assert_eq!((g.len(), g[0].kind), (1, StepKind::Device));
    }
}
