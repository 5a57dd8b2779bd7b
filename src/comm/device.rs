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
//! between its GPU and the host.

use super::node_aware::{Step, StepKind, Strategy};
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
    let copies = |name, way, per_rank: Vec<(u32, u64)>| Step {
        name,
        pattern: Pattern {
            op,
            messages: (per_rank.into_iter())
                .filter(|&(_, b)| b > 0)
                .map(|(r, bytes)| Message {
                    from: r,
                    to: r,
                    bytes,
                    runs: 1,
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
            let mut out = vec![copies("to-host", Copy::ToHost, to_host)];
            match strategy {
                Strategy::Staged => out.push(Step {
                    name: "host",
                    ..standard
                }),
                _ => out.extend(node_aware()),
            }
            out.push(copies("to-device", Copy::ToDevice, to_device));
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
                copies("to-host", Copy::ToHost, to_host),
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
                copies("to-device", Copy::ToDevice, to_device),
            ]
        }
        _ => unreachable!("{} is not a device strategy", strategy.name()),
    }
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
    let mut per_gpu = std::collections::BTreeMap::new();
    for c in &copies.messages {
        *per_gpu.entry(m.gpu_owner(c.from as usize)).or_default() += c.bytes;
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

/// The split strategy's on-node messages (owner to owner) and inter-node
/// runs (serving rank `k` to serving rank `k`).
fn split(p: &Pattern, m: &Machine) -> (Pattern, Pattern) {
    let node = |r: u32| m.node_of(r as usize);
    let mut on_node = Vec::new();
    let mut raw: Vec<(u32, u32, u64)> = Vec::new();
    // Messages come by sender: each owner's inter-node messages in order.
    for run in p.messages.chunk_by(|a, b| a.from == b.from) {
        let q = run[0].from;
        let serving = m.serving(q as usize);
        let k = serving.len() as u64;
        let off: Vec<&Message> = run.iter().filter(|x| node(x.to) != node(q)).collect();
        on_node.extend(run.iter().filter(|x| node(x.to) == node(q)).copied());
        let total: u64 = off.iter().map(|x| x.bytes).sum();
        // Run c holds bytes [c total / k, (c + 1) total / k).
        let cut = |c: u64| (c * total).div_ceil(k.max(1));
        let mut at = 0u64;
        for x in off {
            let (start, end) = (at, at + x.bytes);
            at = end;
            let to = m.serving(x.to as usize);
            for c in 0..k {
                let (lo, hi) = (cut(c).max(start), cut(c + 1).min(end));
                if hi > lo {
                    let c = c as usize;
                    raw.push((serving[c] as u32, to[c.min(to.len() - 1)] as u32, hi - lo));
                }
            }
        }
    }
    let op = p.op;
    let on_node = Pattern {
        op,
        messages: on_node,
    };
    (on_node, Pattern::new(op, raw, m.ranks()))
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
    fn split_cuts_each_gpus_inter_node_bytes_in_equal_runs() {
        let m = machine();
        // Owner 0: 100 B to owner 2 (on node), 30 B to 4 and 50 B to 6.
        let s = standard(&[(0, 2, 100), (0, 4, 30), (0, 6, 50), (4, 0, 8)]);
        let steps = steps(s, &m, Strategy::Split, Vec::new);
        let names: Vec<&str> = steps.iter().map(|s| s.name).collect();
        assert_eq!(names, ["to-host", "on-node", "inter-node", "to-device"]);
        assert_eq!(triples(&steps[1].pattern), [(0, 2, 100)]);
        // 80 inter-node bytes in two runs of 40: rank 0 sends 30 to 4 and
        // 10 to 6; rank 1 the other 40 to 7. Owner 4's 8 B: 4 B per rank.
        assert_eq!(
            triples(&steps[2].pattern),
            [(0, 4, 30), (0, 6, 10), (1, 7, 40), (4, 0, 4), (5, 1, 4)]
        );
        // Copies: each serving rank its own bytes, both ways.
        assert_eq!(
            triples(&steps[0].pattern),
            [(0, 0, 140), (1, 1, 40), (4, 4, 4), (5, 5, 4)]
        );
        assert_eq!(
            triples(&steps[3].pattern),
            [
                (0, 0, 4),
                (1, 1, 4),
                (2, 2, 100),
                (4, 4, 30),
                (6, 6, 10),
                (7, 7, 40)
            ]
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
        let g = steps(s, &m, Strategy::GpuAware, Vec::new);
        assert_eq!((g.len(), g[0].kind), (1, StepKind::Device));
    }
}
