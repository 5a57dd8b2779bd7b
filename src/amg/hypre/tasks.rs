//! A level's rows computed by rayon's threads over the ranks: one
//! scratch per thread ([`PerThread`]), the tasks (whole ranks, or blocks
//! of rows where whole ranks would leave a thread idle) and each rank's
//! rows assembled into its `diag` and `offd` blocks ([`par_rows`]).

use rayon::prelude::*;

use crate::amg::raw::RawCsr;

/// One scratch for each of rayon's threads, made at the thread's first
/// task: scratch spanning a level is too large to make per task.
pub(crate) struct PerThread<S>(Vec<std::sync::Mutex<Option<S>>>);

impl<S> PerThread<S> {
    pub fn new() -> PerThread<S> {
        let threads = rayon::current_num_threads().max(1);
        PerThread((0..threads).map(|_| std::sync::Mutex::new(None)).collect())
    }

    /// The calling thread's scratch, none before its first task.
    pub fn slot(&self) -> std::sync::MutexGuard<'_, Option<S>> {
        let t = rayon::current_thread_index().unwrap_or(0) % self.0.len();
        self.0[t].lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One task's output rows (a rank's, or a block of them): each row's
/// length, its columns and values.
#[derive(Default)]
pub(crate) struct Rows {
    pub lens: Vec<usize>,
    pub cols: Vec<u32>,
    pub vals: Vec<f64>,
}

/// Every rank's rows computed in parallel, each task with scratch from
/// `init`: `row(state, r, i, diag, offd)` appends row `i` of rank `r` to
/// both blocks (`vals` may stay empty for patterns). Per rank, the blocks
/// with ncols left 0 for the caller. A task is a whole rank when the
/// ranks keep the threads alike busy that way ([`whole_ranks`]): its rows
/// are then written once, into its own arrays. Otherwise the tasks are
/// blocks of at most 2048 rows (blocks of different ranks side by side,
/// so a few large ranks and many small ones keep the threads alike busy),
/// copied into their rank's arrays at the end. `per_row`: a guess of the
/// entries a row has (diag, offd), for a thread's first large task; then
/// the rates of its last task.
pub(crate) fn par_rows<S, I, F>(
    rows: &[usize],
    per_row: [f64; 2],
    init: I,
    row: F,
) -> Vec<(RawCsr, RawCsr)>
where
    S: Send,
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, usize, usize, &mut Rows, &mut Rows) + Sync + Send,
{
    let block = if whole_ranks(rows, rayon::current_num_threads()) {
        usize::MAX
    } else {
        2048
    };
    // A task's marks span the level; with them the entries per row of the
    // thread's last task (none yet: 0), to reserve the next.
    let pool: PerThread<(S, [f64; 2])> = PerThread::new();
    let items: Vec<(usize, usize, usize)> = (0..rows.len())
        .flat_map(|r| {
            let n = rows[r];
            let blocks = n.div_ceil(block).max(1);
            (0..blocks).map(move |b| (r, b * n / blocks, (b + 1) * n / blocks))
        })
        .collect();
    let parts: Vec<(Rows, Rows)> = items
        .par_iter()
        .map(|&(r, lo, hi)| {
            let mut slot = pool.slot();
            let (st, rate) = slot.get_or_insert_with(|| (init(), [0.0; 2]));
            // Room for rows like the last task's and a quarter, or like
            // the guess for a large first task (a whole rank's buffers
            // would otherwise grow from nothing, each growth a copy to new
            // pages): the buffers rarely grow. Room never used is never
            // touched.
            let n = hi - lo;
            let guess = |k: usize| {
                if rate[k] > 0.0 || n < 2048 {
                    rate[k]
                } else {
                    per_row[k]
                }
            };
            let reserved = |rate: f64| {
                let room = (n as f64 * rate * 1.25) as usize;
                Rows {
                    lens: Vec::with_capacity(n),
                    cols: Vec::with_capacity(room),
                    vals: Vec::with_capacity(room),
                }
            };
            let (mut d, mut o) = (reserved(guess(0)), reserved(guess(1)));
            for i in lo..hi {
                let (nd, no) = (d.cols.len(), o.cols.len());
                row(st, r, i, &mut d, &mut o);
                d.lens.push(d.cols.len() - nd);
                o.lens.push(o.cols.len() - no);
            }
            if n > 0 {
                *rate = [
                    d.cols.len() as f64 / n as f64,
                    o.cols.len() as f64 / n as f64,
                ];
            }
            (d, o)
        })
        .collect();
    let (d, o): (Vec<Rows>, Vec<Rows>) = parts.into_iter().unzip();
    let owners: Vec<usize> = items.iter().map(|&(r, _, _)| r).collect();
    let d = assemble(rows, &owners, d);
    let o = assemble(rows, &owners, o);
    d.into_iter().zip(o).collect()
}

/// Whether whole ranks, as tasks, keep `threads` threads alike busy: the
/// ranks, largest first, each given to the least loaded thread, end
/// within a tenth of an even share of the rows (2 ranks of a level on 2
/// threads do; 1 or 3 do not).
fn whole_ranks(rows: &[usize], threads: usize) -> bool {
    let mut sorted = rows.to_vec();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    let mut loads = vec![0usize; threads.max(1)];
    for n in sorted {
        let least = (0..loads.len()).min_by_key(|&t| loads[t]).unwrap_or(0);
        loads[least] += n;
    }
    let total: usize = rows.iter().sum();
    let busiest = loads.iter().copied().max().unwrap_or(0);
    busiest as f64 <= 1.1 * total as f64 / loads.len() as f64
}

/// Each rank's blocks of rows (`owners`: the rank of each part, in
/// order) as one CSR per rank, ncols left 0. A rank of one block takes
/// its arrays as they are; the others' arrays come from zeroed pages,
/// filled by all threads side by side.
fn assemble(rows: &[usize], owners: &[usize], parts: Vec<Rows>) -> Vec<RawCsr> {
    // Per rank: its parts, entries and values.
    let mut sizes = vec![(0, 0, 0); rows.len()];
    for (&r, p) in owners.iter().zip(&parts) {
        sizes[r].0 += 1;
        sizes[r].1 += p.cols.len();
        sizes[r].2 += p.vals.len();
    }
    let mut out: Vec<RawCsr> = (rows.iter().zip(&sizes))
        .map(|(&n, &(k, nnz, nvals))| {
            let room = |len: usize| if k > 1 { len } else { 0 };
            RawCsr {
                nrows: n,
                ncols: 0,
                indptr: bytemuck::zeroed_vec(n + 1),
                indices: bytemuck::zeroed_vec(room(nnz)),
                data: bytemuck::zeroed_vec(room(nvals)),
            }
        })
        .collect();
    let mut parts = parts;
    for (&r, p) in owners.iter().zip(&mut parts) {
        if sizes[r].0 == 1 {
            out[r].indices = std::mem::take(&mut p.cols);
            out[r].data = std::mem::take(&mut p.vals);
        }
    }
    // Every part's own pieces of its rank's arrays, and where it starts.
    let mut jobs = Vec::with_capacity(parts.len());
    let mut parts = parts.into_iter();
    let mut owners = owners.iter().peekable();
    for (r, m) in out.iter_mut().enumerate() {
        let (mut ip, mut ix, mut dv) = (&mut m.indptr[1..], &mut m.indices[..], &mut m.data[..]);
        let mut base = 0;
        while owners.next_if(|&&q| q == r).is_some() {
            let p = parts.next().expect("a part per block");
            let (a, rest) = std::mem::take(&mut ip).split_at_mut(p.lens.len());
            ip = rest;
            let (b, rest) = std::mem::take(&mut ix).split_at_mut(p.cols.len());
            ix = rest;
            let (c, rest) = std::mem::take(&mut dv).split_at_mut(p.vals.len());
            dv = rest;
            let len = p.lens.iter().sum::<usize>();
            jobs.push((p, base, a, b, c));
            base += len;
        }
    }
    jobs.into_par_iter().for_each(|(p, base, ip, ix, dv)| {
        let mut at = base;
        for (x, &l) in ip.iter_mut().zip(&p.lens) {
            at += l;
            *x = at;
        }
        ix.copy_from_slice(&p.cols);
        dv.copy_from_slice(&p.vals);
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whole ranks as tasks where the ranks, largest first to the least
    /// loaded thread, end within a tenth of an even share.
    #[test]
    fn whole_ranks_only_where_they_keep_the_threads_alike_busy() {
        assert!(whole_ranks(&[500, 500], 2));
        assert!(whole_ranks(&[480, 520], 2));
        assert!(!whole_ranks(&[400, 600], 2));
        assert!(!whole_ranks(&[1000], 2));
        assert!(!whole_ranks(&[300, 300, 300], 2));
        assert!(whole_ranks(&[300; 11], 2));
        assert!(!whole_ranks(&[300; 9], 2));
        assert!(whole_ranks(&[1000], 1));
        // One large rank among many small ones: 90 and 10 x 9 on 2 threads
        // end at 90 and 90.
        assert!(whole_ranks(&[90, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9], 2));
        assert!(!whole_ranks(&[120, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8], 2));
    }

    /// A rank's rows are the same whether it is one task or blocks of
    /// 2048 rows copied together: on one thread every rank is a task, on
    /// four threads two ranks are blocks.
    #[test]
    fn whole_ranks_and_blocks_give_the_same_rows() {
        let rows = [5000usize, 4321];
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                assert_eq!(whole_ranks(&rows, threads), threads == 1);
                par_rows(
                    &rows,
                    [2.0, 0.5],
                    || (),
                    |_, r, i, d, o| {
                        for k in 0..(i + r) % 5 {
                            d.cols.push((i + k) as u32);
                            d.vals.push((i * 7 + k + r) as f64);
                        }
                        if i % 3 == r {
                            o.cols.push(i as u32);
                            o.vals.push(-(i as f64));
                        }
                    },
                )
            })
        };
        let (whole, blocks) = (run(1), run(4));
        assert_eq!(whole.len(), 2);
        for ((d1, o1), (d2, o2)) in whole.iter().zip(&blocks) {
            for (x, y) in [(d1, d2), (o1, o2)] {
                assert_eq!(x.nrows, y.nrows);
                assert_eq!(x.indptr, y.indptr);
                assert_eq!(x.indices, y.indices);
                assert_eq!(x.data, y.data);
            }
            assert!(d1.nnz() > 8000 && o1.nnz() > 1000);
        }
    }
}
