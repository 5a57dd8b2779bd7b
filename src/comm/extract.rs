//! Extraction: the messages of `spmv`, `spgemm` and `ptap` on one level,
//! from the level's matrices and its row partition (rules in the module
//! docs of [`super`]).

use std::collections::HashMap;

use rayon::prelude::*;

use super::summary::{Summary, Tally};
use super::{offsets, Message, Op, Pattern};
use crate::amg::raw::cut;
use crate::machine::{Machine, Places};
use crate::matrix::Csr;
use crate::partition::Partition;

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
    places: &Places,
) -> Vec<(Vec<Outgoing>, usize)> {
    assert_eq!(a.rows(), part.owner.len());
    let p_row_nnz = |j: usize| {
        p.map_or(0, |p| {
            p.indptr().raw_storage()[j + 1] - p.indptr().raw_storage()[j]
        }) as u64
    };
    let ranks = places.ranks();
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
            || -> Scratch { (vec![(u32::MAX, 0); ranks], vec![u32::MAX; places.nodes()]) },
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

/// A pattern and its [`super::summarize`].
pub type Summarized = (Pattern, Summary);

/// [`spmv_spgemm`] with each pattern's [`super::summarize`]. Messages are built
/// by sending rank (`outgoing`), so they come in order with no scatter
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
    let per_rank = outgoing(a, p, part, &places);
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
            let mut sums = [Tally::new(&places), Tally::new(&places)];
            let (mut run, mut run2) = (Vec::new(), Vec::new());
            let mut k = 0;
            for (q, (out, _)) in per_rank.iter().enumerate().take(hi).skip(lo) {
                run.clear();
                run2.clear();
                for e in out {
                    let runs = e.rows - e.continuing;
                    let msg = Message {
                        from: q as u32,
                        to: e.to,
                        bytes: 8 * e.rows as u64,
                        runs,
                    };
                    run.push(msg);
                    if p.is_some() {
                        run2.push(Message {
                            bytes: e.spgemm_bytes,
                            ..msg
                        });
                    }
                }
                // run2 is empty without a P.
                let k2 = k.min(spgemm.len());
                let outs = [&mut spmv[k..], &mut spgemm[k2..]];
                for ((sums, run), out) in sums.iter_mut().zip([&run, &run2]).zip(outs) {
                    sums.add_sender(run, &places);
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
        .unwrap_or_else(|| [Tally::new(&places), Tally::new(&places)]);
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
    Pattern::new(
        Op::Ptap,
        per_rank.into_iter().flatten().collect(),
        m.ranks(),
    )
}
