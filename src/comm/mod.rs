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
    /// Whether the messages come by sender (checked in parallel: millions
    /// of messages at 65,536 ranks).
    pub fn is_by_sender(&self) -> bool {
        self.messages.par_windows(2).all(|w| w[0].from <= w[1].from)
    }

    /// `f(messages of one rank)` for every sending rank, by rank, in a few
    /// pieces (not copied into one vector: they are megabytes at 65,536
    /// ranks), or `None` when the messages do not come by sender. The
    /// pieces are ranges of messages cut between senders, run in parallel,
    /// each a plain loop over its runs that also checks the order (with
    /// rayon's `par_chunk_by` and a separate [`Pattern::is_by_sender`]
    /// pass, the model stage took about 30% longer at 65,536 ranks).
    pub fn per_sender<T: Send>(&self, f: impl Fn(&[Message]) -> T + Sync) -> Option<Vec<Vec<T>>> {
        let msgs = &self.messages;
        let pieces = (rayon::current_num_threads() * 4).clamp(1, msgs.len().max(1));
        let cuts = self.sender_cuts(pieces);
        // Per range: its first and last sender, and `f` of each run.
        type Part<T> = Option<(Option<(u32, u32)>, Vec<T>)>;
        let parts: Vec<Part<T>> = (0..pieces)
            .into_par_iter()
            .map(|k| {
                let mut out = Vec::new();
                let mut ends: Option<(u32, u32)> = None;
                for run in msgs[cuts[k]..cuts[k + 1]].chunk_by(|a, b| a.from == b.from) {
                    let from = run[0].from;
                    match &mut ends {
                        Some((_, last)) if *last >= from => return None,
                        Some((_, last)) => *last = from,
                        None => ends = Some((from, from)),
                    }
                    out.push(f(run));
                }
                Some((ends, out))
            })
            .collect();
        let mut pieces = Vec::with_capacity(parts.len());
        let mut last: Option<u32> = None;
        for (ends, out) in parts.into_iter().collect::<Option<Vec<_>>>()? {
            if let Some((first, end)) = ends {
                if last.is_some_and(|l| l >= first) {
                    return None;
                }
                last = Some(end);
            }
            pieces.push(out);
        }
        Some(pieces)
    }

    /// `pieces + 1` cuts of the messages into ranges of about equal length,
    /// each moved forward to the start of a sender's run.
    fn sender_cuts(&self, pieces: usize) -> Vec<usize> {
        let msgs = &self.messages;
        let mut cuts: Vec<usize> = (0..pieces)
            .map(|k| {
                let mut c = k * msgs.len() / pieces;
                while c > 0 && c < msgs.len() && msgs[c - 1].from == msgs[c].from {
                    c += 1;
                }
                c
            })
            .collect();
        cuts.push(msgs.len());
        cuts
    }

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

/// Counting sort: bucket `k`'s count at `start[k + 1]` becomes its offset
/// `start[k]`, and `start[last]` the total.
fn offsets(start: &mut [usize]) {
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
}

/// Messages `(from, to, ..)` ordered by `(from, to)`: nothing to do for
/// input built by sending rank (ptap's), else a stable counting sort by
/// sender (linear in messages, where a comparison sort of millions was a
/// third of extraction at 65,536 ranks), then each sender's run sorted.
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

/// One sender's message to one receiver, summed while the sender's rows
/// are visited.
#[derive(Clone, Copy)]
struct Outgoing {
    to: u32,
    rows: u32,
    /// Rows whose previous local row also goes to `to` (one run).
    continuing: u32,
    /// The latest row sent to `to`.
    last: u32,
    spgemm_bytes: u64,
}

/// Per task: receiver slots (sender last used for, index in its list),
/// and node stamps.
type Scratch = (Vec<(u32, u32)>, Vec<u32>);

/// `spmv` and `spgemm` patterns of one level (`p` = `None` on the
/// coarsest level: spmv only).
pub fn spmv_spgemm(
    a: &Csr,
    p: Option<&Csr>,
    part: &Partition,
    m: &Machine,
) -> (Pattern, Option<Pattern>) {
    let (spmv, spgemm) = spmv_spgemm_summarized(a, p, part, m);
    (spmv.0, spgemm.map(|s| s.0))
}

/// Per sending rank, its messages by receiver (ordered), and the most
/// other nodes it sends to or receives from. Rank `q` sends row `i` to
/// the owners of the rows `j` with `A[j,i] != 0`: the columns of row `i`
/// of `A^T`, or of `A` when its pattern is symmetric. The nodes it
/// receives from own the columns of its rows of `A`, the same nodes when
/// the pattern is symmetric.
fn outgoing(
    a: &Csr,
    p: Option<&Csr>,
    part: &Partition,
    m: &Machine,
) -> Vec<(Vec<Outgoing>, usize)> {
    assert_eq!(a.rows(), part.owner.len());
    let p_row_nnz = |j: usize| {
        p.map_or(0, |p| {
            p.indptr().raw_storage()[j + 1] - p.indptr().raw_storage()[j]
        }) as u64
    };
    let (ranks, places) = (m.ranks(), m.places());
    let rows = part.rows_of_ranks();
    let a_ptr = a.indptr();
    let a_ptr = a_ptr.raw_storage();
    let transposed = (!crate::matrix::csr::is_pattern_symmetric(a))
        .then(|| crate::matrix::csr::transpose_pattern(a));
    let (t_ptr, t_idx) = match &transposed {
        Some((ptr, idx)) => (&ptr[..], &idx[..]),
        None => (a_ptr, a.indices()),
    };
    let owner = &part.owner;
    // Scratch is per rank of the machine: a few large tasks, not many.
    let tasks = rayon::current_num_threads() * 8;
    (0..ranks)
        .into_par_iter()
        .with_min_len(ranks.div_ceil(tasks))
        .map_init(
            || -> Scratch { (vec![(u32::MAX, 0); ranks], vec![u32::MAX; m.nodes]) },
            |(slot, node_seen), q| {
                let (q32, home) = (q as u32, places.node[q]);
                let mut out: Vec<Outgoing> = Vec::new();
                let mut talked = 0;
                let mut talk = |r: u32, node_seen: &mut Vec<u32>| {
                    let n = places.node[r as usize];
                    if n != home && node_seen[n as usize] != q32 {
                        node_seen[n as usize] = q32;
                        talked += 1;
                    }
                };
                let mut prev = None;
                for &i in &rows[q] {
                    let row_bytes = 4 + 12 * p_row_nnz(i as usize);
                    let i_ = i as usize;
                    for &j in &t_idx[t_ptr[i_]..t_ptr[i_ + 1]] {
                        let r = owner[j as usize];
                        if r == q32 {
                            continue;
                        }
                        let s = &mut slot[r as usize];
                        if s.0 != q32 {
                            *s = (q32, out.len() as u32);
                            out.push(Outgoing {
                                to: r,
                                rows: 0,
                                continuing: 0,
                                last: u32::MAX,
                                spgemm_bytes: 0,
                            });
                            talk(r, node_seen);
                        }
                        let e = &mut out[s.1 as usize];
                        if e.last != i {
                            e.rows += 1;
                            e.spgemm_bytes += row_bytes;
                            e.continuing += (Some(e.last) == prev) as u32;
                            e.last = i;
                        }
                    }
                    prev = Some(i);
                }
                if transposed.is_some() {
                    // Receives: not the mirror of the sends.
                    for &i in &rows[q] {
                        let i = i as usize;
                        for &j in &a.indices()[a_ptr[i]..a_ptr[i + 1]] {
                            talk(owner[j as usize], node_seen);
                        }
                    }
                }
                out.sort_unstable_by_key(|e| e.to);
                (out, talked)
            },
        )
        .collect()
}

/// A pattern and its [`summarize`].
pub type Summarized = (Pattern, Summary);

/// [`spmv_spgemm`] with each pattern's [`summarize`]. Messages are built
/// by sending rank ([`outgoing`]), so they come in order with no scatter
/// (a counting sort of millions of 32-byte messages by sender was a third
/// of extraction at 65,536 ranks), and the summaries are summed as they
/// are written.
pub fn spmv_spgemm_summarized(
    a: &Csr,
    p: Option<&Csr>,
    part: &Partition,
    m: &Machine,
) -> (Summarized, Option<Summarized>) {
    let (ranks, places) = (m.ranks(), m.places());
    let per_rank = outgoing(a, p, part, m);
    let talked = per_rank.iter().map(|(_, t)| *t).max().unwrap_or(0);
    // Ranges of senders of about equal messages, one per thread; each
    // writes its messages in place (no initialising pass over millions of
    // messages) and sums its part of both summaries as it goes.
    let mut start: Vec<usize> = std::iter::once(0)
        .chain(per_rank.iter().map(|(out, _)| out.len()))
        .collect();
    offsets(&mut start);
    let total = start[ranks];
    let ranges = crate::matrix::csr::balanced_blocks(&start);
    let lens = || ranges.iter().map(|&(lo, hi)| start[hi] - start[lo]);
    let mut spmv: Vec<Message> = Vec::with_capacity(total);
    let mut spgemm: Vec<Message> = Vec::with_capacity(if p.is_some() { total } else { 0 });
    let spgemm_parts = match p {
        Some(_) => cut(&mut spgemm.spare_capacity_mut()[..total], lens()),
        None => ranges.iter().map(|_| Default::default()).collect(),
    };
    let parts: Vec<[Tally; 2]> = ranges
        .par_iter()
        .zip(cut(&mut spmv.spare_capacity_mut()[..total], lens()))
        .zip(spgemm_parts)
        .map(|((&(lo, hi), spmv), spgemm)| {
            let mut sums = [Tally::new(ranks), Tally::new(ranks)];
            let (mut run, mut run2) = (Vec::new(), Vec::new());
            let mut k = 0;
            for (q, (out, _)) in per_rank.iter().enumerate().take(hi).skip(lo) {
                run.clear();
                run2.clear();
                for e in out {
                    let runs = e.rows - e.continuing;
                    let msg = Message::new(q as u32, e.to, 8 * e.rows as u64, runs, &places, m);
                    run.push(msg);
                    if p.is_some() {
                        run2.push(Message {
                            bytes: e.spgemm_bytes,
                            protocol: Protocol::of(e.spgemm_bytes, &m.params),
                            ..msg
                        });
                    }
                }
                // run2 is empty without a P.
                let k2 = k.min(spgemm.len());
                let outs = [&mut spmv[k..], &mut spgemm[k2..]];
                for ((sums, run), out) in sums.iter_mut().zip([&run, &run2]).zip(outs) {
                    sums.add_sender(run);
                    for (slot, msg) in out.iter_mut().zip(run) {
                        slot.write(*msg);
                    }
                }
                k += out.len();
            }
            sums
        })
        .collect();
    // SAFETY: the parts cut from the first `total` slots cover them all,
    // and each is written in full above (its ranks' `out.len()` messages
    // each).
    unsafe {
        spmv.set_len(total);
        if p.is_some() {
            spgemm.set_len(total);
        }
    }
    let [spmv_sums, spgemm_sums] = parts
        .into_iter()
        .reduce(|[a, b], [c, d]| [a.merge(c), b.merge(d)])
        .unwrap_or_else(|| [Tally::new(ranks), Tally::new(ranks)]);
    let spmv = Pattern {
        op: Op::Spmv,
        messages: spmv,
    };
    let spmv_summary = spmv_sums.finish(talked);
    let spgemm = p.map(|_| {
        let pat = Pattern {
            op: Op::Spgemm,
            messages: spgemm,
        };
        (pat, spgemm_sums.finish(talked))
    });
    ((spmv, spmv_summary), spgemm)
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

/// A summary being summed: sender figures, and receive counts per rank.
struct Tally {
    sums: Summary,
    recv: Vec<u64>,
    recv_bytes: Vec<u64>,
}

impl Tally {
    fn new(ranks: usize) -> Tally {
        Tally {
            sums: Summary::empty(),
            recv: vec![0; ranks],
            recv_bytes: vec![0; ranks],
        }
    }

    /// Adds one sender's messages.
    fn add_sender(&mut self, run: &[Message]) {
        if run.is_empty() {
            return;
        }
        self.sums = std::mem::take(&mut self.sums).add_sender(run);
        for msg in run {
            self.recv[msg.to as usize] += 1;
            self.recv_bytes[msg.to as usize] += msg.bytes;
        }
    }

    fn merge(self, o: Tally) -> Tally {
        Tally {
            sums: self.sums.merge(o.sums),
            recv: add_counts(self.recv, o.recv),
            recv_bytes: add_counts(self.recv_bytes, o.recv_bytes),
        }
    }

    /// The summary: receive maxima and mean hops.
    fn finish(self, max_nodes_talked_to: usize) -> Summary {
        let mut s = self.sums;
        s.messages.max_recv = self.recv.into_iter().max().unwrap_or(0);
        s.bytes.max_recv = self.recv_bytes.into_iter().max().unwrap_or(0);
        s.max_nodes_talked_to = max_nodes_talked_to;
        s.avg_hops = if s.bytes.inter_node > 0 {
            s.byte_hops as f64 / s.bytes.inter_node as f64
        } else {
            0.0
        };
        s
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

/// MODEL.md's figures of one pattern: each sender's run of messages (the
/// pattern is ordered by sender) added to a [`Tally`], in one range of
/// messages per thread (a tally holds two per-rank arrays).
pub fn summarize(pat: &Pattern, m: &Machine) -> Summary {
    if !pat.is_by_sender() {
        // Patterns put together elsewhere (the steps of a strategy, one
        // after another).
        let mut sorted = pat.clone();
        sorted.messages.par_sort_by_key(|msg| msg.from);
        return summarize(&sorted, m);
    }
    let ranks = m.ranks();
    let msgs = &pat.messages;
    let pieces = rayon::current_num_threads().clamp(1, msgs.len().max(1));
    let cuts = pat.sender_cuts(pieces);
    let tally = (0..pieces)
        .into_par_iter()
        .map(|k| {
            let mut tally = Tally::new(ranks);
            for run in msgs[cuts[k]..cuts[k + 1]].chunk_by(|a, b| a.from == b.from) {
                tally.add_sender(run);
            }
            tally
        })
        .reduce_with(Tally::merge)
        .unwrap_or_else(|| Tally::new(ranks));
    tally.finish(max_nodes_talked_to(pat, &m.places()))
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
            let (spmv, spgemm) = spmv_spgemm_summarized(&level.a, level.p.as_ref(), &parts[l], m);
            let mut ops = vec![spmv];
            if let (Some(spgemm), Some(p)) = (spgemm, &level.p) {
                ops.push(spgemm);
                let ptap = ptap(&level.a, p, &parts[l], &parts[l + 1], m);
                let summary = summarize(&ptap, m);
                ops.push((ptap, summary));
            }
            LevelComm {
                level: l,
                rows: level.a.rows(),
                nnz: level.a.nnz(),
                active_processes: parts[l].active_ranks(),
                ops,
            }
        })
        .collect()
}
