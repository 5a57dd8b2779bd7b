//! Node-aware communication (Bienz, Gropp and Olson, "Node aware sparse
//! matrix-vector multiplication", JPDC 2019): the inter-node part of an
//! exchange goes as one message per pair of nodes, each needed value once.
//!
//! From the standard pattern's (receiver p, sender q, column j) triples:
//! - `node-aware-3`: (1) on node A, each rank q sends its values needed on
//!   node B to A's designated sender for B (local index `B % ppn`); (2) that
//!   rank sends one message to B's designated receiver for A (local index
//!   `A % ppn`) with every value node B needs from A; (3) the receiver
//!   scatters them to the ranks of B that need them.
//! - `node-aware-2`: (1) each rank q sends its values needed on node B to
//!   its counterpart on B (same local index); (2) on node B, each
//!   counterpart forwards to the ranks that need them.
//!
//! On-node messages of the standard pattern stay as they are (the `on-node`
//! step). A value costs 8 bytes in spmv and `4 + 12 nnz(P[j,:])` in spgemm,
//! as in docs/model.md. Every step is a [`Pattern`], charged like any other.

use rayon::prelude::*;

pub use super::strategy::{Step, StepKind, Strategy};
use super::{Op, Pattern};
use crate::machine::Machine;
use crate::matrix::Csr;
use crate::partition::Partition;

/// For each receiving rank p, the (sender q, column j) pairs of the
/// standard exchange along `a` (the columns p needs from other ranks):
/// `a`'s rows placed by `part`, its columns by `cols` (`part` itself for
/// `A_l`, the next level's partition for `P_l`).
pub(crate) fn needed_columns(a: &Csr, part: &Partition, cols: &Partition) -> Vec<Vec<(u32, u32)>> {
    per_receiver(a, part, cols, |_, _: &mut (), visit| {
        let mut needed = Vec::new();
        visit(&mut |q, j, _| needed.push((q, j)));
        needed.sort_unstable();
        needed
    })
}

/// A visitor over the needed (sender q, column j) pairs of one receiving
/// rank, each pair once, in no particular order. The third argument is the
/// visit's stamp: `stamp[k]` is the rank for columns visited so far.
type Visit<'a> = &'a mut dyn FnMut(&mut dyn FnMut(u32, u32, &[u32]));

/// `per_rank(rank, scratch, visit)` for every receiving rank, in
/// parallel; `scratch` is per thread.
fn per_receiver<S: Default + Send, T: Send>(
    a: &Csr,
    part: &Partition,
    cols: &Partition,
    per_rank: impl Fn(usize, &mut S, Visit) -> T + Sync,
) -> Vec<T> {
    let rows = part.rows_of_ranks();
    let a_ptr = a.indptr();
    let a_ptr = a_ptr.raw_storage();
    (0..part.ranks)
        .into_par_iter()
        .map_init(
            || (vec![u32::MAX; a.cols()], S::default()),
            |(stamp, scratch), r| {
                per_rank(r, scratch, &mut |f| {
                    for &i in &rows[r] {
                        for &j in &a.indices()[a_ptr[i as usize]..a_ptr[i as usize + 1]] {
                            let q = cols.owner[j as usize];
                            if q as usize != r && stamp[j as usize] != r as u32 {
                                stamp[j as usize] = r as u32;
                                f(q, j, stamp);
                            }
                        }
                    }
                })
            },
        )
        .collect()
}

/// The steps of `strategy` for spmv (`p = None`) or spgemm (`p = Some`).
pub fn steps(
    a: &Csr,
    p: Option<&Csr>,
    part: &Partition,
    m: &Machine,
    strategy: Strategy,
) -> Vec<Step> {
    let op = if p.is_some() { Op::Spgemm } else { Op::Spmv };
    steps_of(op, a, p, part, m, strategy)
}

/// The steps of `strategy` for `op`, whose messages along `a`'s halo
/// carry 8 bytes per value (`rows = None`) or the packed rows of `rows`
/// (spgemm: `P_l`; aa: `A_l`).
pub fn steps_of(
    op: Op,
    a: &Csr,
    rows: Option<&Csr>,
    part: &Partition,
    m: &Machine,
    strategy: Strategy,
) -> Vec<Step> {
    let weight = |j: u32| -> u64 {
        match rows {
            None => 8,
            Some(rows) => {
                let ptr = rows.indptr();
                let ptr = ptr.raw_storage();
                4 + 12 * (ptr[j as usize + 1] - ptr[j as usize]) as u64
            }
        }
    };
    let needed = needed_columns(a, part, part);
    along(op, &needed, &weight, m, strategy, false)
}

/// The steps of `strategy` for the grid transfers of `P_l` (rows placed
/// by `part`, columns by `coarse`), 8 bytes per value: `interp` as the
/// halo of `P_l`'s columns; `restrict` (`reversed`) as its mirror, each
/// partial sum going back along the path its coarse value came, steps in
/// reverse order (the scatter of interp becomes a gather that sums, as
/// RAPtor's `communicate_T`).
pub fn transfer_steps(
    op: Op,
    p: &Csr,
    part: &Partition,
    coarse: &Partition,
    m: &Machine,
    strategy: Strategy,
) -> Vec<Step> {
    let needed = needed_columns(p, part, coarse);
    along(op, &needed, &|_| 8, m, strategy, op == Op::Restrict)
}

/// The steps of `strategy` for the exchange whose receivers need the
/// (sender, column) pairs `needed`, a column weighing `weight(j)` bytes;
/// `reversed`: every message and the order of the steps after `on-node`
/// turned round.
fn along(
    op: Op,
    needed: &[Vec<(u32, u32)>],
    weight: &(dyn Fn(u32) -> u64 + Sync),
    m: &Machine,
    strategy: Strategy,
    reversed: bool,
) -> Vec<Step> {
    let node = |r: u32| m.node_of(r as usize) as u32;
    let local = |r: u32| m.local_of(r as usize);
    let mut on_node = Vec::new();
    let mut standard = Vec::new();
    // Inter-node triples (receiver, sender, column).
    let mut remote: Vec<(u32, u32, u32)> = Vec::new();
    for (r, pairs) in needed.iter().enumerate() {
        let r = r as u32;
        for &(q, j) in pairs {
            let w = weight(j);
            standard.push((q, r, w));
            if node(q) == node(r) {
                on_node.push((q, r, w));
            } else {
                remote.push((r, q, j));
            }
        }
    }
    let merge = |v: Vec<(u32, u32, u64)>| -> Vec<(u32, u32, u64)> {
        let mut v = v;
        v.par_sort_unstable_by_key(|e| (e.0, e.1));
        let mut out: Vec<(u32, u32, u64)> = Vec::with_capacity(v.len());
        for (f, t, b) in v {
            match out.last_mut() {
                Some(last) if last.0 == f && last.1 == t => last.2 += b,
                _ => out.push((f, t, b)),
            }
        }
        out
    };
    let step = |name: &'static str, raw: Vec<(u32, u32, u64)>| {
        let raw = match reversed {
            true => raw.into_iter().map(|(f, t, b)| (t, f, b)).collect(),
            false => raw,
        };
        Step {
            name,
            pattern: Pattern::new(op, merge(raw), m.ranks()),
            kind: StepKind::Host,
        }
    };
    if strategy == Strategy::Standard {
        return vec![step("standard", standard)];
    }
    if strategy.is_device() {
        return super::device::steps(step("standard", standard), m, strategy);
    }
    // Values of sender q needed anywhere on node B: (q, B, j), deduplicated.
    let mut by_sender: Vec<(u32, u32, u32)> =
        remote.iter().map(|&(r, q, j)| (q, node(r), j)).collect();
    by_sender.par_sort_unstable();
    by_sender.dedup();
    match strategy {
        Strategy::NodeAware3 => {
            let sender = |a_node: u32, b_node: u32| {
                m.rank_at(a_node as usize, b_node as usize % m.ppn) as u32
            };
            let receiver = |b_node: u32, a_node: u32| {
                m.rank_at(b_node as usize, a_node as usize % m.ppn) as u32
            };
            let gather = by_sender
                .iter()
                .filter(|&&(q, b, _)| sender(node(q), b) != q)
                .map(|&(q, b, j)| (q, sender(node(q), b), weight(j)))
                .collect();
            // (A, B, j) deduplicated: each value crosses once per node pair.
            let mut pairs: Vec<(u32, u32, u32)> =
                by_sender.iter().map(|&(q, b, j)| (node(q), b, j)).collect();
            pairs.par_sort_unstable();
            pairs.dedup();
            let inter = pairs
                .iter()
                .map(|&(a_n, b_n, j)| (sender(a_n, b_n), receiver(b_n, a_n), weight(j)))
                .collect();
            let scatter = remote
                .iter()
                .filter(|&&(r, q, _)| receiver(node(r), node(q)) != r)
                .map(|&(r, q, j)| (receiver(node(r), node(q)), r, weight(j)))
                .collect();
            match reversed {
                false => vec![
                    step("on-node", on_node),
                    step("gather", gather),
                    step("inter-node", inter),
                    step("scatter", scatter),
                ],
                // Partial sums gather on the receiving node, cross once,
                // scatter to their owners.
                true => vec![
                    step("on-node", on_node),
                    step("gather", scatter),
                    step("inter-node", inter),
                    step("scatter", gather),
                ],
            }
        }
        Strategy::NodeAware2 => {
            let counterpart = |q: u32, b_node: u32| m.rank_at(b_node as usize, local(q)) as u32;
            let inter = by_sender
                .iter()
                .map(|&(q, b, j)| (q, counterpart(q, b), weight(j)))
                .collect();
            let redistribute = remote
                .iter()
                .filter(|&&(r, q, _)| counterpart(q, node(r)) != r)
                .map(|&(r, q, j)| (counterpart(q, node(r)), r, weight(j)))
                .collect();
            match reversed {
                false => vec![
                    step("on-node", on_node),
                    step("inter-node", inter),
                    step("redistribute", redistribute),
                ],
                // Partial sums collect at the counterpart, then cross.
                true => vec![
                    step("on-node", on_node),
                    step("collect", redistribute),
                    step("inter-node", inter),
                ],
            }
        }
        _ => unreachable!("returned above"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::test_machine as machine;
    use crate::matrix::gen::{Kind, Problem};

    #[test]
    fn standard_step_is_the_standard_pattern() {
        let a = Problem::new(Kind::Poisson3d, 8).generate().unwrap().csr;
        let m = machine(4, 4);
        let part = Partition::contiguous(a.rows(), m.ranks());
        let (spmv, _) = super::super::spmv_spgemm(&a, None, &part, &m);
        let s = steps(&a, None, &part, &m, Strategy::Standard);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].pattern, spmv);
    }

    #[test]
    fn three_step_sends_each_value_once_per_node_pair() {
        // Two nodes x 2 ranks; ranks 2 and 3 (node 1) both need column 0
        // and column 1, owned by ranks 0 and 1 (node 0).
        let a = crate::matrix::csr::from_rows(
            4,
            4,
            |i| if i >= 2 { 3 } else { 1 },
            |i, c, v| {
                if i >= 2 {
                    c.copy_from_slice(&[0, 1, i as u32]);
                } else {
                    c[0] = i as u32;
                }
                v.fill(1.0);
            },
        );
        let m = machine(2, 2);
        let part = Partition::contiguous(4, 4);
        let s = steps(&a, None, &part, &m, Strategy::NodeAware3);
        let names: Vec<&str> = s.iter().map(|x| x.name).collect();
        assert_eq!(names, ["on-node", "gather", "inter-node", "scatter"]);
        // Standard: 4 network messages (0->2, 0->3, 1->2, 1->3) of 8 bytes.
        // Node-aware: sender for node 1 on node 0 is local 1 = rank 1, so
        // rank 0 gathers to rank 1 (8 bytes); one message 1 -> receiver for
        // node 0 on node 1, local 0 = rank 2, with 2 values (16 bytes);
        // rank 2 scatters both values to rank 3 (16 bytes).
        let triples = |k: usize| {
            s[k].pattern
                .messages
                .iter()
                .map(|x| (x.from, x.to, x.bytes))
                .collect::<Vec<_>>()
        };
        assert!(triples(0).is_empty());
        assert_eq!(triples(1), vec![(0, 1, 8)]);
        assert_eq!(triples(2), vec![(1, 2, 16)]);
        assert_eq!(triples(3), vec![(2, 3, 16)]);
        assert_ne!(m.node_of(1), m.node_of(2));
        // 2-step: 0 -> 2 and 1 -> 3 (counterparts), each 8 bytes; then
        // 2 -> 3 (column 0) and 3 -> 2 (column 1).
        let s2 = steps(&a, None, &part, &m, Strategy::NodeAware2);
        let t = |k: usize| {
            s2[k]
                .pattern
                .messages
                .iter()
                .map(|x| (x.from, x.to, x.bytes))
                .collect::<Vec<_>>()
        };
        assert_eq!(t(1), vec![(0, 2, 8), (1, 3, 8)]);
        assert_eq!(t(2), vec![(2, 3, 8), (3, 2, 8)]);
    }

    #[test]
    fn node_aware_3_sends_at_most_one_network_message_per_node_pair() {
        let a = Problem::new(Kind::Poisson3d, 12).generate().unwrap().csr;
        let order = crate::matrix::permute::random_node_order(a.rows(), 3);
        let a = crate::matrix::permute::permute_symmetric(&a, 1, &order);
        let m = machine(8, 4);
        let part = Partition::contiguous(a.rows(), m.ranks());
        let s = steps(&a, None, &part, &m, Strategy::NodeAware3);
        let inter = &s[2].pattern;
        let mut node_pairs: Vec<(usize, usize)> = inter
            .messages
            .iter()
            .map(|x| (m.node_of(x.from as usize), m.node_of(x.to as usize)))
            .collect();
        let n = node_pairs.len();
        node_pairs.sort_unstable();
        node_pairs.dedup();
        assert_eq!(n, node_pairs.len());
        // Every step but inter-node stays on the node.
        for k in [0, 1, 3] {
            assert!(s[k]
                .pattern
                .messages
                .iter()
                .all(|x| m.node_of(x.from as usize) == m.node_of(x.to as usize)));
        }
        // Inter-node bytes never exceed the standard exchange's.
        let standard = &steps(&a, None, &part, &m, Strategy::Standard)[0].pattern;
        let net = |p: &Pattern| {
            p.messages
                .iter()
                .filter(|x| m.node_of(x.from as usize) != m.node_of(x.to as usize))
                .map(|x| x.bytes)
                .sum::<u64>()
        };
        assert!(net(inter) <= net(standard));
    }
}
