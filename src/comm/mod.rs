//! Stage 5: who sends how many bytes to whom on each level
//! (`docs/model.md`, "Definitions"). A
//! message here is logical: sender, receiver, bytes, and the runs of local
//! data it gathers. Where it goes on the machine (locality, protocol, hops,
//! route) is the machine's business ([`crate::machine::Places`]).
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
//! - `aa` (`A_l A_l`): the pairs of spmv; for each column `j` sent, row
//!   `j` of `A_l` packed as spgemm's rows (RAPtor's `par_matmult.cpp`:
//!   `rows * 4 + nnz * (4 + 8)` bytes).
//! - `interp` (`P_l e_{l+1}`): `q -> p` if `p`'s rows of `P_l` have
//!   nonzeros in coarse columns `q` owns (the next level's partition);
//!   `8 *` (distinct such columns) bytes.
//! - `restrict` (`P_l^T r_l`): its mirror, `p -> q` with the same bytes:
//!   `p` sums its rows' contributions to each coarse row `q` owns and sends
//!   one partial sum per column (RAPtor's `communicate_T`).
//!
//! Extraction ([`spmv_spgemm`], [`ptap`]) runs in parallel over ranks with
//! per-thread marker arrays; nothing is `O(P^2)`. [`summarize`] gives
//! the report's figures of a pattern; [`pattern_file`] saves and reads patterns.
//!
//! May use `matrix`, `amg`, `machine`, `partition`, and the ground floor
//! (`output`, `memory`, `json_in`); its files never import each other round
//! a circle (`tests/layering.rs`).

pub mod device;
pub mod dot;
mod extract;
pub mod node_aware;
pub mod pattern_file;
pub mod share;
pub mod strategy;
mod summary;
mod transfer;

use rayon::prelude::*;
use serde::Serialize;

use crate::amg::raw::cut;

pub use extract::{ptap, spmv_spgemm, spmv_spgemm_summarized, Summarized};
pub use summary::{summarize, summarize_on, ByteFigures, ClassFigures, MessageFigures, Summary};
pub use transfer::{interp, restrict};

/// The operations whose communication is extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// `A_l x`.
    Spmv,
    /// `A_l P_l`.
    Spgemm,
    /// `P_l^T (A_l P_l)`.
    Ptap,
    /// `A_l A_l`: rows of `A_l` along `A_l`'s halo (RAPtor's
    /// benchmark_matops `A Communication`).
    Aa,
    /// `P_l e_{l+1}`: coarse values along `P_l`'s halo (RAPtor's `P*e`).
    Interp,
    /// `P_l^T r_l`: partial sums back to the coarse rows' owners (RAPtor's
    /// `P.T*r`).
    Restrict,
}

/// The operations in report order.
pub const OPS: [Op; 6] = [
    Op::Spmv,
    Op::Spgemm,
    Op::Ptap,
    Op::Aa,
    Op::Interp,
    Op::Restrict,
];

impl Op {
    /// `spmv`, `spgemm`, `ptap`, `aa`, `interp` or `restrict`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Spmv => "spmv",
            Op::Spgemm => "spgemm",
            Op::Ptap => "ptap",
            Op::Aa => "aa",
            Op::Interp => "interp",
            Op::Restrict => "restrict",
        }
    }

    /// Whether it moves a vector along `P_l` (the solve's grid transfers).
    pub fn is_transfer(self) -> bool {
        matches!(self, Op::Interp | Op::Restrict)
    }
}

/// A set of operations (`analyze --ops`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ops(u8);

impl Ops {
    /// spmv, spgemm and ptap: what `analyze` charges unless told.
    pub const DEFAULT: Ops = Ops(0b0111);

    /// The set of `ops`.
    pub fn of(ops: &[Op]) -> Ops {
        Ops(ops.iter().fold(0, |b, &op| b | 1 << op as u8))
    }

    /// Whether `op` is in the set.
    pub fn has(self, op: Op) -> bool {
        self.0 & (1 << op as u8) != 0
    }

    /// The set with `op` in or out.
    pub fn with(self, op: Op, on: bool) -> Ops {
        if on {
            Ops(self.0 | 1 << op as u8)
        } else {
            Ops(self.0 & !(1 << op as u8))
        }
    }

    /// Its operations in report order.
    pub fn list(self) -> Vec<Op> {
        OPS.into_iter().filter(|&op| self.has(op)).collect()
    }
}

impl Default for Ops {
    fn default() -> Ops {
        Ops::DEFAULT
    }
}

/// One point-to-point message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Message {
    /// Sending rank.
    pub from: u32,
    /// Receiving rank.
    pub to: u32,
    /// Size.
    pub bytes: u64,
    /// Contiguous runs of the sender's local data that the message gathers
    /// (spmv and spgemm: runs of consecutive local rows, local rows being
    /// a rank's rows in global order); 1 for a buffer built packed.
    pub runs: u32,
}

/// The messages of one operation on one level, sorted by (from, to).
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// Which operation.
    pub op: Op,
    /// Its messages.
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
    pub(crate) fn sender_cuts(&self, pieces: usize) -> Vec<usize> {
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

    /// Messages `(from, to, bytes)` of buffers built packed (one run
    /// each), put in (from, to) order.
    pub(crate) fn new(op: Op, raw: Vec<(u32, u32, u64)>, ranks: usize) -> Pattern {
        let messages = by_sender(raw, ranks, |e| e.0)
            .into_par_iter()
            .map(|(from, to, bytes)| Message {
                from,
                to,
                bytes,
                runs: 1,
            })
            .collect();
        Pattern { op, messages }
    }
}

/// Counting sort: bucket `k`'s count at `start[k + 1]` becomes its offset
/// `start[k]`, and `start[last]` the total.
pub(crate) fn offsets(start: &mut [usize]) {
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
}

/// Messages `(from, to, ..)` ordered by `(from, to)`: nothing to do for
/// input built by sending rank (ptap's), else a stable counting sort by
/// sender (linear in messages, where a comparison sort of millions was a
/// third of extraction at 65,536 ranks), then each sender's run sorted.
pub(crate) fn by_sender<T: Copy + Default + Ord + Send>(
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
