//! Exchanges of data that lives on the GPUs (Bienz, Olson, Gropp and
//! Lockhart, HPEC 2021; Lockhart et al., Parallel Computing 116, 2023),
//! from the standard pattern between the GPUs' owner ranks:
//!
//! - `gpu-aware`: each message device to device (`device`);
//! - `staged`: each GPU copies what it sends to the host (`to-host`), the
//!   owners exchange host buffers (`host`), each GPU copies what it
//!   received back (`to-device`);
//! - `staged-node-aware`: the same with node-aware-3's rounds over each
//!   GPU's serving ranks in place of `host`, as BenchPress runs RAPtor's
//!   TAPComm with the GPU's ranks as the "node": the owner hands each
//!   serving rank what it sends (`to-senders`), the serving ranks
//!   exchange the GPUs' messages (`global`), each hands what it received
//!   to its owner (`to-owner`);
//! - `split`: the same `global` round, each serving rank copying what it
//!   sends and receives itself through a duplicated device pointer
//!   (BenchPress's `dup_devptr_node_aware`), no round inside the GPU.
//!
//! TAPComm's `global` round (RAPtor `tap_comm.cpp` at BenchPress's
//! submodule b34bd19): each GPU has one owner, so no value is merged and
//! every standard message is one global message. The receiving GPU orders its
//! sources by decreasing size and the `j`-th is received by its serving
//! rank `j mod k`; the sending GPU orders its destinations by decreasing
//! size and the `i`-th is sent by its serving rank `k - 1 - (i mod k)`
//! (`form_local_R_par_comm`, `form_global_par_comm`; ties, which
//! `std::sort` leaves unordered, in GPU order).
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
/// (a host step between owner ranks).
pub(crate) fn steps(standard: Step, m: &Machine, strategy: Strategy) -> Vec<Step> {
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
    let host = |name, pattern| Step {
        name,
        pattern,
        kind: StepKind::Host,
    };
    let sent = |p: &Pattern| totals(p, m.ranks(), |msg| msg.from);
    let received = |p: &Pattern| totals(p, m.ranks(), |msg| msg.to);
    match strategy {
        Strategy::GpuAware => vec![Step {
            name: "device",
            kind: StepKind::Device,
            ..standard
        }],
        Strategy::Staged => {
            let (to_host, to_device) = (sent(&standard.pattern), received(&standard.pattern));
            vec![
                copies("to-host", Copy::ToHost, 1, to_host),
                Step {
                    name: "host",
                    ..standard
                },
                copies("to-device", Copy::ToDevice, 0, to_device),
            ]
        }
        Strategy::StagedNodeAware => {
            let (to_host, to_device) = (sent(&standard.pattern), received(&standard.pattern));
            let tap = Tap::of(&standard.pattern, m);
            vec![
                copies("to-host", Copy::ToHost, 1, to_host),
                host("to-senders", tap.to_senders),
                host("global", tap.global),
                host("to-owner", tap.to_owners),
                copies("to-device", Copy::ToDevice, 1, to_device),
            ]
        }
        Strategy::Split => {
            let global = Tap::of(&standard.pattern, m).global;
            // Each serving rank copies what it sends and what it receives.
            let (to_host, to_device) = (sent(&global), received(&global));
            vec![
                copies("to-host", Copy::ToHost, 1, to_host),
                host("global", global),
                copies("to-device", Copy::ToDevice, 1, to_device),
            ]
        }
        _ => unreachable!("{} is not a device strategy", strategy.name()),
    }
}

/// TAPComm's rounds over each GPU's serving ranks for a standard pattern
/// between the GPUs' owners (module doc): the owners' hand-over to the
/// serving ranks that send (none to itself), the global messages, the
/// hand-over from the serving ranks that received to their owners.
struct Tap {
    to_senders: Pattern,
    global: Pattern,
    to_owners: Pattern,
}

impl Tap {
    fn of(p: &Pattern, m: &Machine) -> Tap {
        let k = m.ranks_per_gpu.unwrap_or(1);
        let gpu = |r: u32| m.gpu_of(r as usize);
        let serving = |owner: u32, l: usize| m.serving_rank(owner as usize, l) as u32;
        // Each message's place among its sender's, then its receiver's,
        // messages: by decreasing size, ties in GPU order.
        let place = |key: &dyn Fn(&Message) -> (u32, usize)| {
            let keys: Vec<_> = (p.messages.iter())
                .map(|x| {
                    let (owner, other) = key(x);
                    (owner, std::cmp::Reverse(x.bytes), other)
                })
                .collect();
            let mut order: Vec<usize> = (0..keys.len()).collect();
            order.sort_unstable_by_key(|&i| keys[i]);
            let mut at = vec![0usize; keys.len()];
            for w in 1..order.len() {
                if keys[order[w - 1]].0 == keys[order[w]].0 {
                    at[order[w]] = at[order[w - 1]] + 1;
                }
            }
            at
        };
        let out = place(&|x| (x.from, gpu(x.to)));
        let inn = place(&|x| (x.to, gpu(x.from)));
        let mut hand_over = std::collections::BTreeMap::new();
        let mut hand_back = std::collections::BTreeMap::new();
        let mut global = Vec::with_capacity(p.messages.len());
        for (i, x) in p.messages.iter().enumerate() {
            let sender = serving(x.from, k - 1 - out[i] % k);
            let receiver = serving(x.to, inn[i] % k);
            global.push((sender, receiver, x.bytes));
            if sender != x.from {
                *hand_over.entry((x.from, sender)).or_insert(0) += x.bytes;
            }
            if receiver != x.to {
                *hand_back.entry((receiver, x.to)).or_insert(0) += x.bytes;
            }
        }
        let pattern = |raw: Vec<(u32, u32, u64)>| Pattern::new(p.op, raw, m.ranks());
        let flat = |map: std::collections::BTreeMap<(u32, u32), u64>| {
            map.into_iter().map(|((f, t), b)| (f, t, b)).collect()
        };
        Tap {
            to_senders: pattern(flat(hand_over)),
            global: pattern(global),
            to_owners: pattern(flat(hand_back)),
        }
    }
}

/// The ranks `strategy` aggregates over on `m` where that is not the
/// node: `staged-node-aware` runs node-aware-3 over each GPU's serving
/// ranks, as BenchPress's programs do (`spmv/mpi_sparse_mat.cu`: TAPComm
/// with each GPU's ranks as its "node"), not over the node's CPU ranks.
/// `None` for the others and with one GPU a node (the node is then the
/// GPU's group).
pub fn grouping(strategy: Strategy, m: &Machine) -> Option<String> {
    let (gpus, k) = (m.gpus.as_ref()?, m.ranks_per_gpu?);
    (strategy == Strategy::StagedNodeAware && gpus.per_node > 1).then(|| {
        format!(
            "node-aware-3 over each GPU's {k} serving ranks, as BenchPress groups them, \
             not over the node's {} CPU ranks: {} groups a node",
            m.ppn, gpus.per_node
        )
    })
}

/// The steps of device `strategy` for the standard pattern `standard`
/// between owner ranks (ptap's).
pub fn steps_of_standard(standard: Pattern, m: &Machine, strategy: Strategy) -> Vec<Step> {
    let standard = Step {
        name: "standard",
        pattern: standard,
        kind: StepKind::Host,
    };
    steps(standard, m, strategy)
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

    /// TAPComm's global round by hand. Owner 0 (GPU 0) sends 100 B to
    /// owner 2 (GPU 1), 50 B to 6, 30 B to 4; owner 2 sends 40 B to 4;
    /// owner 4 sends 8 B to 0. Senders: each GPU's destinations by
    /// decreasing size, the i-th from serving rank 1 - (i mod 2): GPU 0
    /// sends 100 from rank 1, 50 from rank 0, 30 from rank 1; GPU 1 its 40
    /// from rank 3; GPU 2 its 8 from rank 5. Receivers: each GPU's sources
    /// by decreasing size, the j-th at serving rank j mod 2: GPU 2 takes
    /// 40 (from GPU 1) at rank 4 and 30 (from GPU 0) at rank 5; every
    /// other GPU receives once, at its owner.
    fn standard_five() -> Step {
        standard(&[(0, 2, 100), (0, 4, 30), (0, 6, 50), (2, 4, 40), (4, 0, 8)])
    }

    const GLOBAL: [(u32, u32, u64); 5] =
        [(0, 6, 50), (1, 2, 100), (1, 5, 30), (3, 4, 40), (5, 0, 8)];

    #[test]
    fn split_sends_tapcomms_global_round_and_each_rank_copies_its_own() {
        let m = machine();
        let steps = steps(standard_five(), &m, Strategy::Split);
        let names: Vec<&str> = steps.iter().map(|s| s.name).collect();
        assert_eq!(names, ["to-host", "global", "to-device"]);
        assert_eq!(triples(&steps[1].pattern), GLOBAL);
        // Copies: each serving rank its own bytes, both ways; one kernel
        // each (pack, then unpack).
        assert_eq!(
            triples(&steps[0].pattern),
            [(0, 0, 50), (1, 1, 130), (3, 3, 40), (5, 5, 8)]
        );
        assert_eq!(
            triples(&steps[2].pattern),
            [(0, 0, 8), (2, 2, 100), (4, 4, 40), (5, 5, 30), (6, 6, 50)]
        );
        assert!(steps[2].pattern.messages.iter().all(|c| c.runs == 1));
    }

    #[test]
    fn staged_node_aware_runs_tapcomm_over_each_gpus_ranks() {
        let m = machine();
        let steps = steps(standard_five(), &m, Strategy::StagedNodeAware);
        let names: Vec<&str> = steps.iter().map(|s| s.name).collect();
        assert_eq!(
            names,
            ["to-host", "to-senders", "global", "to-owner", "to-device"]
        );
        // The owners copy everything, as in staged, with an unpack kernel
        // after the copy in.
        assert_eq!(
            triples(&steps[0].pattern),
            [(0, 0, 180), (2, 2, 40), (4, 4, 8)]
        );
        assert_eq!(
            triples(&steps[4].pattern),
            [(0, 0, 8), (2, 2, 100), (4, 4, 70), (6, 6, 50)]
        );
        assert!(steps[4].pattern.messages.iter().all(|c| c.runs == 1));
        // Each owner hands its sending ranks their bytes (rank 0 sends its
        // 50 itself), the same global round as split, and rank 5 hands
        // GPU 2's owner the 30 B it received for it.
        assert_eq!(
            triples(&steps[1].pattern),
            [(0, 1, 130), (2, 3, 40), (4, 5, 8)]
        );
        assert_eq!(triples(&steps[2].pattern), GLOBAL);
        assert_eq!(triples(&steps[3].pattern), [(5, 4, 30)]);
        for k in [1, 2, 3] {
            assert_eq!(steps[k].kind, StepKind::Host);
            // Every round stays within the ranks' GPUs: hand-overs inside
            // one GPU's ranks, global messages between GPUs.
            for x in &steps[k].pattern.messages {
                let same = m.gpu_of(x.from as usize) == m.gpu_of(x.to as usize);
                assert_eq!(same, k != 2, "{k}: {x:?}");
            }
        }
    }

    /// staged-node-aware says it aggregates over each GPU's serving
    /// ranks, not the node's; the others say nothing.
    #[test]
    fn staged_node_aware_names_the_grouping_it_charges() {
        let m = machine();
        let note = grouping(Strategy::StagedNodeAware, &m).unwrap();
        assert!(note.contains("each GPU's 2 serving ranks"), "{note}");
        assert!(
            note.contains("not over the node's 4 CPU ranks: 2 groups a node"),
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
        let st = steps(s.clone(), &m, Strategy::Staged);
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
        let g = steps(s, &m, Strategy::GpuAware);
        assert_eq!((g.len(), g[0].kind), (1, StepKind::Device));
    }
}
