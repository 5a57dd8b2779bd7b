//! Stage 5: who sends how many bytes to whom on each level
//! (`../shared/MODEL.md`, "Messages of one operation on one level").
//!
//! - `spmv` (`A_l x`): `q -> p` if `p`'s rows of `A_l` have nonzeros in
//!   columns `q` owns; `8 *` (distinct such columns) bytes.
//! - `spgemm` (`A_l P_l`): the same pairs; for each such column `j`, row `j`
//!   of `P_l` packed as a 4-byte length plus 12 bytes per entry.
//! - `ptap` (`P_l^T (A_l P_l)`), our rule: rank `p` holds the rows of
//!   `A_l P_l` for its fine rows `I_p` (after the spgemm exchange) and forms,
//!   for every coarse column `k` of its rows of `P_l`, the partial coarse row
//!   `sum_{i in I_p} P[i,k] (A P)[i,:]`. When `k`'s coarse owner `q` is not
//!   `p`, that partial row goes to `q`, packed like spgemm rows: 4 bytes +
//!   12 per entry, entries = the union of the patterns of `(A P)[i,:]` over
//!   `i in I_p` with `P[i,k] != 0`. One message `p -> q` carries all of
//!   them.
//!
//! Extraction runs in parallel over ranks with per-thread marker arrays;
//! nothing is `O(P^2)`.

pub mod dot;
pub mod node_aware;

use rayon::prelude::*;
use serde::Serialize;

use crate::amg::Hierarchy;
use crate::machine::{Locality, Machine};
use crate::matrix::Csr;
use crate::partition::Partition;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Spmv,
    Spgemm,
    Ptap,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Spmv => "spmv",
            Op::Spgemm => "spgemm",
            Op::Ptap => "ptap",
        }
    }
}

/// Message protocol by size (MODEL.md): short below the machine's eager
/// threshold (500 bytes on Blue Waters), rendezvous from its rendezvous
/// threshold (8000), eager between.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Short,
    Eager,
    Rend,
}

pub const PROTOCOLS: [Protocol; 3] = [Protocol::Short, Protocol::Eager, Protocol::Rend];

impl Protocol {
    pub fn of(bytes: u64, params: &crate::machine::Params) -> Protocol {
        if bytes < params.eager_threshold {
            Protocol::Short
        } else if bytes < params.rendezvous_threshold {
            Protocol::Eager
        } else {
            Protocol::Rend
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Protocol::Short => "short",
            Protocol::Eager => "eager",
            Protocol::Rend => "rend",
        }
    }
}

/// One point-to-point message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message {
    pub from: u32,
    pub to: u32,
    pub bytes: u64,
    pub locality: Locality,
    pub protocol: Protocol,
    /// Router hops (0 on the node).
    pub hops: u32,
}

/// The messages of one operation on one level, sorted by (from, to).
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub op: Op,
    pub messages: Vec<Message>,
}

impl Pattern {
    fn new(op: Op, mut raw: Vec<(u32, u32, u64)>, m: &Machine) -> Pattern {
        raw.par_sort_unstable();
        let b = m.router_box();
        let messages = raw
            .into_par_iter()
            .map(|(from, to, bytes)| {
                let locality = m.locality(from as usize, to as usize);
                let hops = if locality == Locality::Network {
                    m.hops(m.node_of(from as usize), m.node_of(to as usize), b) as u32
                } else {
                    0
                };
                Message {
                    from,
                    to,
                    bytes,
                    locality,
                    protocol: Protocol::of(bytes, &m.params),
                    hops,
                }
            })
            .collect();
        Pattern { op, messages }
    }
}

/// `spmv` and `spgemm` patterns of one level (`p` = `None` on the
/// coarsest level: spmv only). Pairs come from one pass per receiving rank.
pub fn spmv_spgemm(
    a: &Csr,
    p: Option<&Csr>,
    part: &Partition,
    m: &Machine,
) -> (Pattern, Option<Pattern>) {
    assert_eq!(a.rows(), part.owner.len());
    let p_row_nnz = |j: usize| {
        p.map_or(0, |p| {
            p.indptr().raw_storage()[j + 1] - p.indptr().raw_storage()[j]
        }) as u64
    };
    // Per receiving rank: (sender, spmv bytes, spgemm bytes), from the
    // (sender, column) pairs sorted by sender.
    let per_rank: Vec<Vec<(u32, u64, u64)>> = node_aware::needed_columns(a, part)
        .into_par_iter()
        .map(|needed| {
            let mut out: Vec<(u32, u64, u64)> = Vec::new();
            for (q, j) in needed {
                if out.last().is_none_or(|l| l.0 != q) {
                    out.push((q, 0, 0));
                }
                let last = out.last_mut().expect("pushed above");
                last.1 += 8;
                last.2 += 4 + 12 * p_row_nnz(j as usize);
            }
            out
        })
        .collect();
    let spmv: Vec<(u32, u32, u64)> = per_rank
        .iter()
        .enumerate()
        .flat_map(|(r, v)| v.iter().map(move |&(q, b, _)| (q, r as u32, b)))
        .collect();
    let spgemm = p.map(|_| {
        let raw = per_rank
            .iter()
            .enumerate()
            .flat_map(|(r, v)| v.iter().map(move |&(q, _, b)| (q, r as u32, b)))
            .collect();
        Pattern::new(Op::Spgemm, raw, m)
    });
    (Pattern::new(Op::Spmv, spmv, m), spgemm)
}

/// `ptap` pattern of one level (rule in the module docs). `coarse` is the
/// partition of the next level's rows (the columns of `p`).
pub fn ptap(a: &Csr, p: &Csr, part: &Partition, coarse: &Partition, m: &Machine) -> Pattern {
    assert_eq!(p.cols(), coarse.owner.len());
    let rows = part.rows_of_ranks();
    let (a_ptr, p_ptr) = (a.indptr(), p.indptr());
    let (a_ptr, p_ptr) = (a_ptr.raw_storage(), p_ptr.raw_storage());
    let p_row = |j: usize| &p.indices()[p_ptr[j]..p_ptr[j + 1]];
    let per_rank: Vec<Vec<(u32, u32, u64)>> = (0..part.ranks)
        .into_par_iter()
        .map_init(
            || (vec![u64::MAX; p.cols()], Vec::<(u32, u32)>::new()),
            |(stamp, pairs), r| {
                // (k, i): external coarse column k of P[i,:], i of rank r.
                pairs.clear();
                for &i in &rows[r] {
                    for &k in p_row(i as usize) {
                        if coarse.owner[k as usize] as usize != r {
                            pairs.push((k, i));
                        }
                    }
                }
                pairs.sort_unstable();
                let mut out: Vec<(u32, u32, u64)> = Vec::new();
                let mut g = 0;
                while g < pairs.len() {
                    let k = pairs[g].0;
                    // A stamp value unique to (rank, k) marks the columns of
                    // the partial coarse row k.
                    let mark = ((r as u64) << 32) | k as u64;
                    let mut entries = 0u64;
                    while g < pairs.len() && pairs[g].0 == k {
                        let i = pairs[g].1 as usize;
                        for &j in &a.indices()[a_ptr[i]..a_ptr[i + 1]] {
                            for &c in p_row(j as usize) {
                                if stamp[c as usize] != mark {
                                    stamp[c as usize] = mark;
                                    entries += 1;
                                }
                            }
                        }
                        g += 1;
                    }
                    let q = coarse.owner[k as usize];
                    let bytes = 4 + 12 * entries;
                    match out.last_mut() {
                        Some(last) if last.1 == q => last.2 += bytes,
                        _ => out.push((r as u32, q, bytes)),
                    }
                }
                // Several k of one owner need not be adjacent: merge.
                out.sort_unstable_by_key(|e| e.1);
                out.dedup_by(|b, a| {
                    if a.1 == b.1 {
                        a.2 += b.2;
                        true
                    } else {
                        false
                    }
                });
                out
            },
        )
        .collect();
    Pattern::new(Op::Ptap, per_rank.into_iter().flatten().collect(), m)
}

/// Per-operation figures of MODEL.md's report, plus the breakdown by
/// locality x protocol and the most nodes a rank talks to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub messages: MessageFigures,
    pub bytes: ByteFigures,
    /// `sum(bytes * hops)` over network messages.
    pub byte_hops: u64,
    /// Byte-weighted mean hops of network messages, `byte_hops / bytes.inter_node`.
    pub avg_hops: f64,
    /// Messages and bytes by locality, then protocol: `[locality][protocol]`.
    pub by_class: Vec<ClassFigures>,
    /// Largest number of distinct other nodes one rank sends to or receives from.
    pub max_nodes_talked_to: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MessageFigures {
    pub total: u64,
    pub max_sent: u64,
    pub max_recv: u64,
    pub inter_node: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ByteFigures {
    pub total: u64,
    pub max_sent: u64,
    pub max_recv: u64,
    pub inter_node: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassFigures {
    pub locality: Locality,
    pub protocol: Protocol,
    pub messages: u64,
    pub bytes: u64,
    /// Most messages of this class one rank sends.
    pub max_sent: u64,
    /// Most bytes of this class one rank sends.
    pub max_bytes_sent: u64,
}

/// Per-rank figures (RAPtor's `profile_comm` set).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankFigures {
    pub sent: u64,
    pub recv: u64,
    pub bytes_sent: u64,
    pub bytes_recv: u64,
    pub nodes_talked_to: usize,
    /// Messages and bytes sent by class, `[locality * 3 + protocol]`.
    pub sent_by_class: [(u64, u64); 9],
}

pub fn rank_figures(pat: &Pattern, m: &Machine) -> Vec<RankFigures> {
    let mut f = vec![RankFigures::default(); m.ranks()];
    // Distinct other nodes per rank, through (rank, node) pairs.
    let mut talks: Vec<(u32, u32)> = Vec::with_capacity(2 * pat.messages.len());
    for msg in &pat.messages {
        let (s, t) = (msg.from as usize, msg.to as usize);
        f[s].sent += 1;
        f[s].bytes_sent += msg.bytes;
        let class = &mut f[s].sent_by_class[msg.locality as usize * 3 + msg.protocol as usize];
        class.0 += 1;
        class.1 += msg.bytes;
        f[t].recv += 1;
        f[t].bytes_recv += msg.bytes;
        if msg.locality == Locality::Network {
            talks.push((msg.from, m.node_of(t) as u32));
            talks.push((msg.to, m.node_of(s) as u32));
        }
    }
    talks.par_sort_unstable();
    talks.dedup();
    for (r, _) in talks {
        f[r as usize].nodes_talked_to += 1;
    }
    f
}

pub fn summarize(pat: &Pattern, m: &Machine) -> Summary {
    let ranks = rank_figures(pat, m);
    let mut s = Summary {
        by_class: crate::machine::LOCALITIES
            .iter()
            .flat_map(|&locality| {
                PROTOCOLS.iter().map(move |&protocol| ClassFigures {
                    locality,
                    protocol,
                    messages: 0,
                    bytes: 0,
                    max_sent: 0,
                    max_bytes_sent: 0,
                })
            })
            .collect(),
        ..Summary::default()
    };
    for msg in &pat.messages {
        s.messages.total += 1;
        s.bytes.total += msg.bytes;
        if msg.locality == Locality::Network {
            s.messages.inter_node += 1;
            s.bytes.inter_node += msg.bytes;
            s.byte_hops += msg.bytes * msg.hops as u64;
        }
        let class = &mut s.by_class[msg.locality as usize * 3 + msg.protocol as usize];
        class.messages += 1;
        class.bytes += msg.bytes;
    }
    for r in &ranks {
        s.messages.max_sent = s.messages.max_sent.max(r.sent);
        s.messages.max_recv = s.messages.max_recv.max(r.recv);
        s.bytes.max_sent = s.bytes.max_sent.max(r.bytes_sent);
        s.bytes.max_recv = s.bytes.max_recv.max(r.bytes_recv);
        s.max_nodes_talked_to = s.max_nodes_talked_to.max(r.nodes_talked_to);
        for (class, &(n, b)) in s.by_class.iter_mut().zip(&r.sent_by_class) {
            class.max_sent = class.max_sent.max(n);
            class.max_bytes_sent = class.max_bytes_sent.max(b);
        }
    }
    s.avg_hops = if s.bytes.inter_node > 0 {
        s.byte_hops as f64 / s.bytes.inter_node as f64
    } else {
        0.0
    };
    s
}

/// Everything extracted for one level.
#[derive(Clone, Debug)]
pub struct LevelComm {
    pub level: usize,
    pub rows: usize,
    pub nnz: usize,
    pub active_processes: usize,
    /// spmv, then (levels with a P) spgemm and ptap.
    pub ops: Vec<(Pattern, Summary)>,
}

/// Patterns and summaries of every level; `parts` from
/// [`crate::partition::levels`].
pub fn levels(h: &Hierarchy, parts: &[Partition], m: &Machine) -> Vec<LevelComm> {
    h.levels
        .iter()
        .enumerate()
        .map(|(l, level)| {
            let (spmv, spgemm) = spmv_spgemm(&level.a, level.p.as_ref(), &parts[l], m);
            let mut patterns = vec![spmv];
            if let (Some(spgemm), Some(p)) = (spgemm, &level.p) {
                patterns.push(spgemm);
                patterns.push(ptap(&level.a, p, &parts[l], &parts[l + 1], m));
            }
            let ops = patterns.into_iter().map(|pat| {
                let s = summarize(&pat, m);
                (pat, s)
            });
            LevelComm {
                level: l,
                rows: level.a.rows(),
                nnz: level.a.nnz(),
                active_processes: parts[l].active_ranks(),
                ops: ops.collect(),
            }
        })
        .collect()
}
