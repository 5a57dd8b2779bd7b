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

use std::collections::HashMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::amg::raw::cut;
use crate::amg::Hierarchy;
use crate::machine::{Locality, Machine, Places};
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    #[default]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Message {
    pub from: u32,
    pub to: u32,
    pub bytes: u64,
    pub locality: Locality,
    pub protocol: Protocol,
    /// Router hops (0 on the node).
    pub hops: u32,
    /// Contiguous runs of the sender's local data that the message gathers
    /// (spmv and spgemm: runs of consecutive local rows, local rows being
    /// a rank's rows in global order); 1 for a buffer built packed.
    pub runs: u32,
}

/// The messages of one operation on one level, sorted by (from, to).
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub op: Op,
    pub messages: Vec<Message>,
}

impl Pattern {
    fn new(op: Op, raw: Vec<(u32, u32, u64)>, m: &Machine) -> Pattern {
        Pattern::from_sorted(op, by_sender(raw, m.ranks(), |e| e.0), m)
    }

    /// `sorted` ordered by (from, to).
    fn from_sorted(op: Op, sorted: Vec<(u32, u32, u64)>, m: &Machine) -> Pattern {
        let places = m.places();
        let messages = sorted
            .into_par_iter()
            .map(|(from, to, bytes)| Message::new(from, to, bytes, 1, &places, m))
            .collect();
        Pattern { op, messages }
    }
}

impl Message {
    fn new(from: u32, to: u32, bytes: u64, runs: u32, places: &Places, m: &Machine) -> Message {
        let locality = places.locality(from, to);
        let hops = if locality == Locality::Network {
            places.hops(from, to)
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
            runs,
        }
    }
}

/// Messages from lists built per receiving rank (`per_rank[r]`: senders
/// ascending, with a payload), ordered by (from, to) without a sort: a
/// counting sort by sender whose ranges of senders are filled in
/// parallel, each message built once in its final place.
fn from_receivers<T: Sync>(
    per_rank: &[Vec<T>],
    sender: impl Fn(&T) -> u32 + Sync,
    bytes: impl Fn(&T) -> u64 + Sync,
    runs: impl Fn(&T) -> u32 + Sync,
    m: &Machine,
) -> Vec<Message> {
    let ranks = m.ranks();
    let places = m.places();
    let mut start = per_rank
        .par_iter()
        .fold(
            || vec![0usize; ranks + 1],
            |mut start, list| {
                for e in list {
                    start[sender(e) as usize + 1] += 1;
                }
                start
            },
        )
        .reduce_with(add_counts)
        .unwrap_or_else(|| vec![0; ranks + 1]);
    offsets(&mut start);
    let total = start[ranks];
    // Sender ranges of about total / pieces messages each.
    let pieces = rayon::current_num_threads();
    let mut bounds = vec![0usize];
    for k in 1..pieces {
        let q = start
            .partition_point(|&s| s < k * total / pieces)
            .min(ranks);
        bounds.push(q.max(*bounds.last().expect("starts with 0")));
    }
    bounds.push(ranks);
    let mut out = vec![Message::default(); total];
    let slices = cut(
        &mut out,
        bounds.windows(2).map(|w| start[w[1]] - start[w[0]]),
    );
    let ranges = bounds.windows(2).map(|w| (w[0], w[1]));
    slices
        .into_par_iter()
        .zip(ranges.collect::<Vec<_>>())
        .for_each(|(slice, (lo, hi))| {
            let mut next: Vec<usize> = start[lo..hi].iter().map(|s| s - start[lo]).collect();
            for (r, list) in per_rank.iter().enumerate() {
                let first = if lo == 0 {
                    0
                } else {
                    list.partition_point(|e| (sender(e) as usize) < lo)
                };
                for e in &list[first..] {
                    let q = sender(e) as usize;
                    if q >= hi {
                        break;
                    }
                    slice[next[q - lo]] =
                        Message::new(q as u32, r as u32, bytes(e), runs(e), &places, m);
                    next[q - lo] += 1;
                }
            }
        });
    out
}

/// Counting sort: bucket `k`'s count at `start[k + 1]` becomes its offset
/// `start[k]`, and `start[last]` the total.
fn offsets(start: &mut [usize]) {
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
}

/// Messages `(from, to, ..)` ordered by `(from, to)`: a stable counting
/// sort by sender (linear in messages, where a comparison sort of millions
/// of messages was a third of extraction at 65,536 ranks), then each
/// sender's run sorted, which is already the case for input built per
/// receiving rank.
fn by_sender<T: Copy + Default + Ord + Send>(
    raw: Vec<T>,
    ranks: usize,
    from: impl Fn(&T) -> u32,
) -> Vec<T> {
    if raw.is_sorted() {
        return raw;
    }
    let mut start = vec![0usize; ranks + 1];
    for e in &raw {
        start[from(e) as usize + 1] += 1;
    }
    offsets(&mut start);
    let mut out = vec![T::default(); raw.len()];
    let mut next = start.clone();
    for e in raw {
        let f = from(&e) as usize;
        out[next[f]] = e;
        next[f] += 1;
    }
    let runs = cut(&mut out, start.windows(2).map(|w| w[1] - w[0]));
    runs.into_par_iter().for_each(|run| {
        if !run.is_sorted() {
            run.sort_unstable();
        }
    });
    out
}

/// (sender, spmv bytes, spgemm bytes, rows, rows continuing a run).
type Needed = (u32, u64, u64, u32, u32);
/// Per thread: sender slots (rank last used for, index in its list).
type Scratch = Vec<(u32, u32)>;

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
    // The previous and next rows of the same owner: two needed rows that
    // are neighbours in the sender's local order share a run.
    let mut last = vec![u32::MAX; part.ranks];
    let prev: Vec<u32> = part
        .owner
        .iter()
        .enumerate()
        .map(|(j, &q)| std::mem::replace(&mut last[q as usize], j as u32))
        .collect();
    let mut next = vec![u32::MAX; prev.len()];
    for (j, &b) in prev.iter().enumerate() {
        if b != u32::MAX {
            next[b as usize] = j as u32;
        }
    }
    // Per receiving rank: (sender, spmv bytes, spgemm bytes, rows, rows
    // continuing a run), summed in place through a per-thread slot array
    // (rank it was last used for, index in `out`), then sorted by sender.
    let ranks = m.ranks();
    let per_rank: Vec<Vec<Needed>> =
        node_aware::per_receiver(a, part, |r, scratch: &mut Scratch, visit| {
            let slot = scratch;
            slot.resize(ranks, (u32::MAX, 0));
            let mut out: Vec<Needed> = Vec::new();
            visit(&mut |q, j, stamp| {
                let s = &mut slot[q as usize];
                if s.0 != r as u32 {
                    *s = (r as u32, out.len() as u32);
                    out.push((q, 0, 0, 0, 0));
                }
                let e = &mut out[s.1 as usize];
                e.1 += 8;
                e.2 += 4 + 12 * p_row_nnz(j as usize);
                e.3 += 1;
                // Each neighbouring pair is counted at its second row.
                let r = r as u32;
                let marked = |k: u32| k != u32::MAX && stamp[k as usize] == r;
                e.4 += marked(prev[j as usize]) as u32 + marked(next[j as usize]) as u32;
            });
            out.sort_unstable_by_key(|e| e.0);
            out
        });
    let runs = |e: &Needed| e.3 - e.4;
    let spmv = Pattern {
        op: Op::Spmv,
        messages: from_receivers(&per_rank, |e| e.0, |e| e.1, runs, m),
    };
    let spgemm = p.map(|_| Pattern {
        op: Op::Spgemm,
        messages: from_receivers(&per_rank, |e| e.0, |e| e.2, runs, m),
    });
    (spmv, spgemm)
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
            || (vec![0u64; p.cols()], 0u64, Vec::<(u32, u32)>::new()),
            |(stamp, mark, pairs), r| {
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
                let contributors: Vec<u32> = pairs.iter().map(|e| e.1).collect();
                // The entries of a partial row depend only on its set of
                // contributing rows i; with few rows per rank (many ranks)
                // most coarse columns k share a set, so each set is counted
                // once.
                let mut counted: HashMap<&[u32], u64> = HashMap::new();
                let mut out: Vec<(u32, u32, u64)> = Vec::new();
                let mut g = 0;
                while g < pairs.len() {
                    let k = pairs[g].0;
                    let end = g + pairs[g..].partition_point(|e| e.0 == k);
                    let set = &contributors[g..end];
                    g = end;
                    let entries = *counted.entry(set).or_insert_with(|| {
                        // A fresh stamp value marks the union's columns.
                        *mark += 1;
                        let mut entries = 0u64;
                        for &i in set {
                            let i = i as usize;
                            for &j in &a.indices()[a_ptr[i]..a_ptr[i + 1]] {
                                for &c in p_row(j as usize) {
                                    if stamp[c as usize] != *mark {
                                        stamp[c as usize] = *mark;
                                        entries += 1;
                                    }
                                }
                            }
                        }
                        entries
                    });
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

impl Summary {
    fn empty() -> Summary {
        Summary {
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
        }
    }

    /// Adds one sender's messages: totals add, and the sender's own
    /// counts raise the per-rank maxima.
    fn add_sender(mut self, run: &[Message]) -> Summary {
        let (mut n, mut b) = (0u64, 0u64);
        let mut class = [(0u64, 0u64); 9];
        for msg in run {
            n += 1;
            b += msg.bytes;
            if msg.locality == Locality::Network {
                self.messages.inter_node += 1;
                self.bytes.inter_node += msg.bytes;
                self.byte_hops += msg.bytes * msg.hops as u64;
            }
            let c = &mut class[msg.locality as usize * 3 + msg.protocol as usize];
            c.0 += 1;
            c.1 += msg.bytes;
        }
        self.messages.total += n;
        self.bytes.total += b;
        self.messages.max_sent = self.messages.max_sent.max(n);
        self.bytes.max_sent = self.bytes.max_sent.max(b);
        for (c, (k, kb)) in self.by_class.iter_mut().zip(class) {
            c.messages += k;
            c.bytes += kb;
            c.max_sent = c.max_sent.max(k);
            c.max_bytes_sent = c.max_bytes_sent.max(kb);
        }
        self
    }

    /// Totals add, per-rank maxima take the larger.
    fn merge(mut self, o: Summary) -> Summary {
        let (m, b) = (&mut self.messages, &mut self.bytes);
        m.total += o.messages.total;
        m.inter_node += o.messages.inter_node;
        m.max_sent = m.max_sent.max(o.messages.max_sent);
        m.max_recv = m.max_recv.max(o.messages.max_recv);
        b.total += o.bytes.total;
        b.inter_node += o.bytes.inter_node;
        b.max_sent = b.max_sent.max(o.bytes.max_sent);
        b.max_recv = b.max_recv.max(o.bytes.max_recv);
        self.byte_hops += o.byte_hops;
        self.max_nodes_talked_to = self.max_nodes_talked_to.max(o.max_nodes_talked_to);
        for (c, d) in self.by_class.iter_mut().zip(&o.by_class) {
            c.messages += d.messages;
            c.bytes += d.bytes;
            c.max_sent = c.max_sent.max(d.max_sent);
            c.max_bytes_sent = c.max_bytes_sent.max(d.max_bytes_sent);
        }
        self
    }
}

/// Element-wise sum, for parallel folds of per-rank counts.
fn add_counts<T: Copy + std::ops::AddAssign>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// Most distinct other nodes one rank sends to or receives from: the
/// nodes of each rank's network messages, both directions, bucketed by
/// rank (counting sort), then deduplicated per rank. Ranges of ranks are
/// done in parallel; a range's sends are one slice of the (sender-ordered)
/// pattern, its receives are picked from all messages.
fn max_nodes_talked_to(pat: &Pattern, places: &Places) -> usize {
    let ranks = places.node.len();
    let pieces = rayon::current_num_threads().min(ranks).max(1);
    let msgs = &pat.messages;
    (0..pieces)
        .into_par_iter()
        .map(|k| {
            let (lo, hi) = (k * ranks / pieces, (k + 1) * ranks / pieces);
            let sends = &msgs[msgs.partition_point(|m| (m.from as usize) < lo)
                ..msgs.partition_point(|m| (m.from as usize) < hi)];
            let network = |m: &&Message| m.locality == Locality::Network;
            let recvs = || {
                msgs.iter()
                    .filter(network)
                    .filter(|m| (lo..hi).contains(&(m.to as usize)))
            };
            let mut start = vec![0usize; hi - lo + 1];
            for m in sends.iter().filter(network) {
                start[m.from as usize - lo + 1] += 1;
            }
            for m in recvs() {
                start[m.to as usize - lo + 1] += 1;
            }
            offsets(&mut start);
            let mut next = start.clone();
            let mut talks = vec![0u32; start[hi - lo]];
            for m in sends.iter().filter(network) {
                let s = m.from as usize - lo;
                talks[next[s]] = places.node_of(m.to);
                next[s] += 1;
            }
            for m in recvs() {
                let t = m.to as usize - lo;
                talks[next[t]] = places.node_of(m.from);
                next[t] += 1;
            }
            (0..hi - lo)
                .map(|r| {
                    let run = &mut talks[start[r]..start[r + 1]];
                    run.sort_unstable();
                    run.chunk_by(|a, b| a == b).count()
                })
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

/// MODEL.md's figures of one pattern. Sender figures come from each
/// sender's run of messages (the pattern is ordered by sender), reduced
/// in parallel; receiver figures from per-rank counts.
pub fn summarize(pat: &Pattern, m: &Machine) -> Summary {
    if !pat.messages.is_sorted_by_key(|msg| msg.from) {
        // Patterns put together elsewhere (the steps of a strategy, one
        // after another).
        let mut sorted = pat.clone();
        sorted.messages.par_sort_by_key(|msg| msg.from);
        return summarize(&sorted, m);
    }
    let places = m.places();
    let mut s = pat
        .messages
        .par_chunk_by(|a, b| a.from == b.from)
        .fold(Summary::empty, Summary::add_sender)
        .reduce(Summary::empty, Summary::merge);
    let ranks = m.ranks();
    // One chunk per thread: each fold allocates two per-rank arrays.
    let chunk = pat
        .messages
        .len()
        .div_ceil(rayon::current_num_threads())
        .max(1 << 16);
    let (recv, recv_bytes) = pat
        .messages
        .par_chunks(chunk)
        .fold(
            || (vec![0u64; ranks], vec![0u64; ranks]),
            |(mut n, mut b), chunk| {
                for msg in chunk {
                    n[msg.to as usize] += 1;
                    b[msg.to as usize] += msg.bytes;
                }
                (n, b)
            },
        )
        .reduce_with(|(n, b), (n2, b2)| (add_counts(n, n2), add_counts(b, b2)))
        .unwrap_or_default();
    for (n, b) in recv.into_iter().zip(recv_bytes) {
        s.messages.max_recv = s.messages.max_recv.max(n);
        s.bytes.max_recv = s.bytes.max_recv.max(b);
    }
    s.max_nodes_talked_to = max_nodes_talked_to(pat, &places);
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
