//! hypre's ParCSR layout (parcsr_mv/par_csr_matrix.c, new_commpkg.c).
//!
//! Rank `r` owns rows `rows[r]..rows[r + 1]`. Its rows are a `diag` block
//! over its own columns (local indices, the diagonal first) and an `offd`
//! block over the other ranks' columns: indices into `col_map`, their
//! global numbers in increasing order. [`Comm`] is the matvec package
//! hypre builds from that (`hypre_MatvecCommPkgCreate`): a rank receives
//! its offd columns from their owners in `col_map` order, and sends each
//! neighbour, by increasing rank, the rows the neighbour's `col_map` names,
//! in increasing order. Every exchange of the setup follows these slots,
//! so the order in which a rank sees its neighbours' data is hypre's.

use rayon::prelude::*;

use super::tasks::PerThread;
use crate::amg::raw::{zeros, RawCsr};
use crate::matrix::Csr;

/// Rows of column indices without values (hypre's strength matrix `S`).
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
}

impl Pattern {
    pub fn rows(&self) -> usize {
        self.indptr.len() - 1
    }

    #[inline]
    pub fn row(&self, i: usize) -> &[u32] {
        &self.indices[self.indptr[i]..self.indptr[i + 1]]
    }

    #[inline]
    pub fn len(&self, i: usize) -> usize {
        self.indptr[i + 1] - self.indptr[i]
    }

    /// Row by row, in order: `row(i, cols)` appends row `i`.
    pub fn from_rows(n: usize, mut row: impl FnMut(usize, &mut Vec<u32>)) -> Pattern {
        let mut indptr = Vec::with_capacity(n + 1);
        let mut indices = Vec::new();
        indptr.push(0);
        for i in 0..n {
            row(i, &mut indices);
            indptr.push(indices.len());
        }
        Pattern { indptr, indices }
    }

    /// The transpose with `ncols` rows: hypre's counting sort
    /// (`hypre_CSRMatrixTranspose`), each row by increasing original row.
    pub fn transpose(&self, ncols: usize) -> Pattern {
        let mut indptr = zeros::<usize>(ncols + 1);
        for &j in &self.indices {
            indptr[j as usize + 1] += 1;
        }
        for j in 0..ncols {
            indptr[j + 1] += indptr[j];
        }
        let mut next = indptr.clone();
        let mut indices = vec![0u32; self.indices.len()];
        for i in 0..self.rows() {
            for &j in self.row(i) {
                indices[next[j as usize]] = i as u32;
                next[j as usize] += 1;
            }
        }
        Pattern { indptr, indices }
    }
}

/// An entry of [`FlatRows`]: column and value side by side, 12 bytes, so
/// a short row is one or two cache lines (the rows are read at random).
#[derive(Clone, Copy, Debug, Default, bytemuck::Zeroable)]
#[repr(C, packed(4))]
pub(crate) struct Entry {
    pub col: u32,
    pub val: f64,
}

/// Where a row of [`FlatRows`] is, with a tag its builder chose: one
/// read finds the row.
#[derive(Clone, Copy, Debug, Default, bytemuck::Zeroable)]
pub(crate) struct Head {
    pub start: usize,
    pub len: u32,
    pub tag: u32,
}

/// Rows by global index in one flat array (a level's rows as every rank
/// reads them), filled rank by rank in parallel; entries of type `E`
/// ([`Entry`] unless said).
pub(crate) struct FlatRows<E = Entry> {
    pub heads: Vec<Head>,
    pub entries: Vec<E>,
}

impl<E: bytemuck::Zeroable + Send> FlatRows<E> {
    /// Rank `r` owns rows `starts[r]..starts[r + 1]` and has at most
    /// `bound(r)` entries; `fill(r, entries, heads)` writes them from the
    /// front of its room, each head's start counted from the room's first
    /// entry. A bound read off the row lengths spares a pass that counts
    /// the entries a filter keeps.
    pub fn build<C, F>(starts: &[usize], bound: C, fill: F) -> FlatRows<E>
    where
        C: Fn(usize) -> usize + Sync,
        F: Fn(usize, &mut [E], &mut [Head]) + Sync,
    {
        let ranks = starts.len() - 1;
        let room: Vec<usize> = (0..ranks).into_par_iter().map(&bound).collect();
        let total: usize = room.iter().sum();
        // Zeroed pages from the system, first touched by the threads that
        // fill them (a serial fill here was a quarter of the setup's page
        // faults); room a rank leaves unfilled is written at most a row's
        // length past its last entry (by fills that write each candidate
        // and keep some), and a large array's is otherwise never paged in.
        let mut entries: Vec<E> = bytemuck::zeroed_vec(total);
        let mut heads: Vec<Head> = bytemuck::zeroed_vec(starts[ranks]);
        let mut pieces = Vec::with_capacity(ranks);
        let (mut e, mut h) = (&mut entries[..], &mut heads[..]);
        let mut base = 0;
        for (r, &k) in room.iter().enumerate() {
            let (e1, e2) = e.split_at_mut(k);
            let (h1, h2) = h.split_at_mut(starts[r + 1] - starts[r]);
            pieces.push((r, base, e1, h1));
            (e, h) = (e2, h2);
            base += k;
        }
        pieces.into_par_iter().for_each(|(r, base, e, h)| {
            fill(r, e, h);
            h.iter_mut().for_each(|x| x.start += base);
        });
        FlatRows { heads, entries }
    }

    /// Row `g`'s head, its entries asked into the cache (the rows are
    /// read at random: asking for several before reading them overlaps
    /// their cache misses).
    #[inline(always)]
    pub fn fetch(&self, g: usize) -> Head {
        let h = self.heads[g];
        if let Some(e) = self.entries.get(h.start) {
            prefetch(e);
        }
        h
    }

    #[inline(always)]
    pub fn row(&self, g: usize) -> (&[E], u32) {
        let h = self.heads[g];
        (&self.entries[h.start..h.start + h.len as usize], h.tag)
    }
}

/// Asks for the cache line of `x` (where the next reads go is known before
/// they are made: their cache misses then overlap the work between).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch only hints the cache (SSE is part of
        // x86_64); the address is a live reference's.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(x as *const T as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// One rank's rows.
#[derive(Clone, Debug)]
pub(crate) struct Local {
    /// Columns of this rank, local indices.
    pub diag: RawCsr,
    /// Columns of the others, indices into `col_map`.
    pub offd: RawCsr,
    /// Global column of each offd column, increasing.
    pub col_map: Vec<u32>,
}

impl Local {
    /// A rank's block from rows whose offd entries carry global columns:
    /// those become `col_map` (increasing), the entries its indices;
    /// `ncols`: the rank's own columns.
    fn with_global_offd(
        mut diag: RawCsr,
        mut offd: RawCsr,
        ncols: usize,
        marks: &mut [u32],
    ) -> Local {
        let col_map = sorted_unique(&mut offd.indices, marks);
        diag.ncols = ncols;
        offd.ncols = col_map.len();
        Local {
            diag,
            offd,
            col_map,
        }
    }

    /// Each rank's blocks (`ncols(r)` diag columns; offd columns global,
    /// below `global`) as a rank's matrix, the offd columns renumbered by
    /// increasing global index, in parallel.
    pub fn with_global_offds(
        blocks: Vec<(RawCsr, RawCsr)>,
        ncols: impl Fn(usize) -> usize + Sync,
        global: usize,
    ) -> Vec<Local> {
        let pool: PerThread<Vec<u32>> = PerThread::new();
        blocks
            .into_par_iter()
            .enumerate()
            .map(|(r, (diag, offd))| {
                let mut slot = pool.slot();
                let marks = slot.get_or_insert_with(|| zeros(global));
                Local::with_global_offd(diag, offd, ncols(r), marks)
            })
            .collect()
    }

    /// Row `i` with global columns (`first`: the rank's first column) into
    /// `cols`, `vals`, in stored order (diag block, then offd block); its
    /// length.
    #[inline]
    pub fn global_row(&self, i: usize, first: u32, cols: &mut [u32], vals: &mut [f64]) -> usize {
        let mut k = 0;
        let (dc, dv) = self.diag.row(i);
        for (&j, &x) in dc.iter().zip(dv) {
            cols[k] = first + j;
            vals[k] = x;
            k += 1;
        }
        let (oc, ov) = self.offd.row(i);
        for (&j, &x) in oc.iter().zip(ov) {
            cols[k] = self.col_map[j as usize];
            vals[k] = x;
            k += 1;
        }
        k
    }

    pub fn rows(&self) -> usize {
        self.diag.nrows
    }
}

/// A matrix over the ranks.
#[derive(Clone, Debug)]
pub(crate) struct ParCsr {
    /// Row starts: rank `r` owns rows `rows[r]..rows[r + 1]`.
    pub rows: Vec<usize>,
    /// Column starts: the diag block of rank `r` is columns
    /// `cols[r]..cols[r + 1]`.
    pub cols: Vec<usize>,
    pub ranks: Vec<Local>,
}

impl ParCsr {
    /// The ranks' blocks of `a` (rows in stored order, as hypre's IJ
    /// interface stores a row it is given whole: the diagonal first, then
    /// the other local columns, and the others, in the order they came).
    pub fn split(a: &RawCsr, starts: &[usize]) -> ParCsr {
        let n = a.nrows;
        // A thread's marks over the global columns, for with_global_offd.
        let pool: PerThread<Vec<u32>> = PerThread::new();
        let ranks = starts
            .par_windows(2)
            .map(|w| {
                let mut marks = pool.slot();
                let marks = marks.get_or_insert_with(|| zeros::<u32>(n));
                let (lo, m) = (w[0], w[1] - w[0]);
                let nnz = a.indptr[lo + m] - a.indptr[lo];
                let nd: usize = (lo..lo + m)
                    .map(|g| {
                        let c = a.row(g).0;
                        c.iter()
                            .filter(|&&j| (j as usize).wrapping_sub(lo) < m)
                            .count()
                    })
                    .sum();
                let block = |cap: usize| RawCsr {
                    nrows: m,
                    ncols: 0,
                    indptr: Vec::with_capacity(m + 1),
                    indices: Vec::with_capacity(cap),
                    data: Vec::with_capacity(cap),
                };
                // The offd block with global columns first.
                let (mut diag, mut offd) = (block(nd), block(nnz - nd));
                diag.indptr.push(0);
                offd.indptr.push(0);
                for i in 0..m {
                    let g = lo + i;
                    let (c, v) = a.row(g);
                    if let Some(k) = c.iter().position(|&j| j as usize == g) {
                        diag.indices.push(i as u32);
                        diag.data.push(v[k]);
                    }
                    for (&j, &x) in c.iter().zip(v) {
                        let j = j as usize;
                        if j.wrapping_sub(lo) < m {
                            if j != g {
                                diag.indices.push((j - lo) as u32);
                                diag.data.push(x);
                            }
                        } else {
                            offd.indices.push(j as u32);
                            offd.data.push(x);
                        }
                    }
                    diag.indptr.push(diag.indices.len());
                    offd.indptr.push(offd.indices.len());
                }
                Local::with_global_offd(diag, offd, m, marks)
            })
            .collect();
        ParCsr {
            rows: starts.to_vec(),
            cols: starts.to_vec(),
            ranks,
        }
    }

    /// [`ParCsr::split`] taking `a` over, with `a` back whole when its
    /// rows are sorted and the split copied it. On one rank `a`'s own
    /// arrays become the diag block, each row's diagonal moved to its
    /// front in place: a copy would be as large as the input, and on this
    /// VM its fresh pages took 0.6 s of elasticity 65's 5.4 s setup.
    pub fn split_owned(mut a: RawCsr, starts: &[usize]) -> (ParCsr, Option<Csr>) {
        if starts.len() != 2 {
            let m = ParCsr::split(&a, starts);
            return (m, a.try_into_csr().ok());
        }
        let n = a.nrows;
        a.each_row_mut(|g, c, v| {
            if let Some(k) = c.iter().position(|&j| j as usize == g) {
                c[..=k].rotate_right(1);
                v[..=k].rotate_right(1);
            }
        });
        a.ncols = n;
        let offd = RawCsr {
            nrows: n,
            ncols: 0,
            indptr: bytemuck::zeroed_vec(n + 1),
            indices: Vec::new(),
            data: Vec::new(),
        };
        let local = Local {
            diag: a,
            offd,
            col_map: Vec::new(),
        };
        let m = ParCsr {
            rows: starts.to_vec(),
            cols: starts.to_vec(),
            ranks: vec![local],
        };
        (m, None)
    }

    /// The whole matrix (as [`ParCsr::gather`]), taking the blocks over:
    /// one rank's diag block, with no offd entries, becomes it in place.
    pub fn into_whole(mut self) -> Csr {
        if self.ranks.len() != 1 || self.ranks[0].offd.nnz() != 0 {
            return self.gather();
        }
        let mut d = self.ranks.pop().expect("one rank").diag;
        d.each_row_mut(|g, c, v| {
            // The diagonal back in its place (level 0's rows are sorted but
            // for it); other rows sorted.
            if c.first() == Some(&(g as u32)) {
                let p = c[1..].partition_point(|&j| j < g as u32);
                c[..=p].rotate_left(1);
                v[..=p].rotate_left(1);
            }
            if !c.windows(2).all(|w| w[0] < w[1]) {
                crate::amg::raw::sort_row(c, v);
            }
        });
        d.into_csr()
    }

    /// Every rank's communication package.
    pub fn comms(&self) -> Vec<Comm> {
        let maps: Vec<&[u32]> = self.ranks.iter().map(|l| l.col_map.as_slice()).collect();
        comm_pkgs(&self.cols, &maps)
    }

    pub fn global_rows(&self) -> usize {
        *self.rows.last().unwrap_or(&0)
    }

    /// Entries per row, over all ranks.
    pub fn nnz_per_row(&self) -> f64 {
        let nnz: usize = (self.ranks.iter())
            .map(|l| l.diag.nnz() + l.offd.nnz())
            .sum();
        nnz as f64 / self.global_rows().max(1) as f64
    }

    pub fn global_cols(&self) -> usize {
        *self.cols.last().unwrap_or(&0)
    }

    /// The whole matrix with global indices, rows sorted.
    pub fn gather(&self) -> Csr {
        // The rank of every global row, to find a row's block.
        let rank_of: Vec<u32> = (0..self.ranks.len())
            .flat_map(|r| std::iter::repeat_n(r as u32, self.rows[r + 1] - self.rows[r]))
            .collect();
        let at = |g: usize| {
            let r = rank_of[g] as usize;
            (r, g - self.rows[r])
        };
        crate::matrix::csr::from_rows(
            self.global_rows(),
            self.global_cols(),
            |g| {
                let (r, i) = at(g);
                let l = &self.ranks[r];
                l.diag.row(i).0.len() + l.offd.row(i).0.len()
            },
            |g, cols, vals| {
                let (r, i) = at(g);
                self.ranks[r].global_row(i, self.cols[r] as u32, cols, vals);
                crate::amg::raw::sort_row(cols, vals);
            },
        )
    }
}

#[cfg(test)]
impl ParCsr {
    /// The matrix of `spec` (a generator or a file) on `ranks` even row
    /// blocks: the tests' level 0.
    pub(crate) fn of_spec(spec: &str, ranks: usize) -> ParCsr {
        let m = crate::matrix::source::Source::parse(spec)
            .unwrap()
            .load(None)
            .unwrap();
        let n = m.csr.rows();
        let blocks: Vec<usize> = (0..=ranks).map(|r| r * n / ranks).collect();
        ParCsr::split(&RawCsr::from_csr(&m.csr), &blocks)
    }
}

/// One send of a rank's row to a neighbour (`send_map_elmts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// The receiving rank.
    pub to: u32,
    /// The local row sent.
    pub row: u32,
    /// Its place in the receiver's `col_map`.
    pub at: u32,
}

/// A rank's communication package.
#[derive(Clone, Debug, Default)]
pub(crate) struct Comm {
    /// Sends in hypre's order: by increasing receiver, rows increasing.
    pub sends: Vec<Slot>,
    /// For each offd column: its owner rank and the owner's slot that
    /// sends it here.
    pub from: Vec<(u32, u32)>,
    /// For each offd column: its owner rank and its row there.
    pub src: Vec<(u32, u32)>,
}

/// The packages of every rank of a matrix whose column blocks are
/// `cols` and whose ranks' offd columns are `col_maps`.
pub(crate) fn comm_pkgs(cols: &[usize], col_maps: &[&[u32]]) -> Vec<Comm> {
    let ranks = col_maps.len();
    // The owner and local index of each offd column, rank by rank.
    let owners: Vec<Vec<(u32, u32)>> = col_maps
        .par_iter()
        .map(|map| {
            let mut r = map
                .first()
                .map_or(0, |&g| cols.partition_point(|&s| s <= g as usize) - 1);
            map.iter()
                .map(|&g| {
                    let g = g as usize;
                    while cols[r + 1] <= g {
                        r += 1;
                    }
                    (r as u32, (g - cols[r]) as u32)
                })
                .collect()
        })
        .collect();
    // Each receiver's runs of offd columns of one owner, `(owner, first,
    // end)` in `col_map` order (an owner's columns are one run there).
    let runs: Vec<Vec<(u32, u32, u32)>> = owners
        .par_iter()
        .map(|o| {
            let mut at = 0;
            (o.chunk_by(|x, y| x.0 == y.0))
                .map(|run| {
                    at += run.len() as u32;
                    (run[0].0, at - run.len() as u32, at)
                })
                .collect()
        })
        .collect();
    // Each owner's runs by increasing receiver (so its slots come out in
    // hypre's order: by receiver, each one's columns increasing), and
    // each run's first slot among the owner's sends: one thread, but a
    // run per neighbour, not a column.
    let mut to_owner: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new(); ranks];
    let mut count = vec![0u32; ranks];
    let firsts: Vec<Vec<u32>> = (runs.iter().enumerate())
        .map(|(q, v)| {
            (v.iter())
                .map(|&(r, a, e)| {
                    to_owner[r as usize].push((q as u32, a, e));
                    let first = count[r as usize];
                    count[r as usize] += e - a;
                    first
                })
                .collect()
        })
        .collect();
    let sends: Vec<Vec<Slot>> = (to_owner.par_iter().zip(&count))
        .map(|(list, &n)| {
            let mut sends = Vec::with_capacity(n as usize);
            for &(q, a, e) in list {
                let o = &owners[q as usize];
                sends.extend((a..e).map(|at| Slot {
                    to: q,
                    row: o[at as usize].1,
                    at,
                }));
            }
            sends
        })
        .collect();
    let from: Vec<Vec<(u32, u32)>> = (runs.par_iter().zip(&firsts).zip(&owners))
        .map(|((v, f), o)| {
            let mut from = Vec::with_capacity(o.len());
            for (&(r, a, e), &first) in v.iter().zip(f) {
                from.extend((a..e).map(|at| (r, first + at - a)));
            }
            from
        })
        .collect();
    (sends.into_iter().zip(from).zip(owners))
        .map(|((sends, from), src)| Comm { sends, from, src })
        .collect()
}

/// An exchange through the packages `comms` (hypre's
/// `hypre_ParCSRCommHandleCreate`): each rank's offd columns receive
/// `f(owner, slot)`, the value the owner's send slot carries.
pub(crate) fn forward<T: Send>(
    comms: &[Comm],
    f: impl Fn(usize, usize) -> T + Sync,
) -> Vec<Vec<T>> {
    (comms.par_iter())
        .map(|c| {
            (c.from.iter())
                .map(|&(o, slot)| f(o as usize, slot as usize))
                .collect()
        })
        .collect()
}

/// The exchange back (hypre's job 12): each rank's send slots receive
/// `f(to, at)`, what the receiver holds for offd column `at`.
pub(crate) fn backward<T: Send>(
    comms: &[Comm],
    f: impl Fn(usize, usize) -> T + Sync,
) -> Vec<Vec<T>> {
    (comms.par_iter())
        .map(|c| {
            (c.sends.iter())
                .map(|s| f(s.to as usize, s.at as usize))
                .collect()
        })
        .collect()
}

/// The marks are scanned in order where the values span fewer than this
/// many marks a value (a scan reads a mark in about the time a sort
/// spends on a tenth of a value); sorted otherwise (a partition that
/// scatters a rank's columns).
const SCAN_SPAN: usize = 16;

/// The distinct values of `globals` in increasing order; each value is
/// replaced by its place among them, in place (a level's offd entries
/// are tens of millions at paper scale: no second array of them).
/// `marks` covers every value and is all zero, as it is left: a thread's
/// scratch over the global columns, read and written in place of a hash
/// of the rank's offd columns.
fn sorted_unique(globals: &mut [u32], marks: &mut [u32]) -> Vec<u32> {
    let mut unique: Vec<u32> = Vec::new();
    let (mut lo, mut hi) = (u32::MAX, 0);
    for &g in globals.iter() {
        if marks[g as usize] == 0 {
            marks[g as usize] = 1;
            unique.push(g);
            lo = lo.min(g);
            hi = hi.max(g);
        }
    }
    if !unique.is_empty() && ((hi - lo) as usize) < SCAN_SPAN * unique.len() {
        // A rank's offd columns mostly lie near its block: reading the
        // marks over their span finds them in order, for far less than a
        // sort (on 64 ranks of the 100^3 Laplacian the sorts were 400 M
        // of the setup's 22 G instructions).
        unique.clear();
        for (g, m) in (lo..=hi).zip(&mut marks[lo as usize..=hi as usize]) {
            if *m != 0 {
                unique.push(g);
                *m = unique.len() as u32;
            }
        }
    } else {
        unique.sort_unstable();
        for (pos, &g) in unique.iter().enumerate() {
            marks[g as usize] = pos as u32 + 1;
        }
    }
    for g in globals.iter_mut() {
        *g = marks[*g as usize] - 1;
    }
    for &g in &unique {
        marks[g as usize] = 0;
    }
    unique
}

/// The owner and local row of offd column `k` of rank `o`.
#[inline]
pub(crate) fn source(comms: &[Comm], o: usize, k: usize) -> (usize, usize) {
    let (q, row) = comms[o].src[k];
    (q as usize, row as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::raw::test_util::from_lists;

    /// The places and distinct values match a sort's, and the marks are
    /// left all zero for the next rank.
    #[test]
    fn sorted_unique_places_every_value_and_clears_its_marks() {
        let globals = [7u32, 3, 9, 3, 0, 7, 7, 12, 9];
        let mut marks = vec![0u32; 13];
        let mut place = globals;
        let unique = sorted_unique(&mut place, &mut marks);
        let want: Vec<u32> = std::collections::BTreeSet::from(globals)
            .into_iter()
            .collect();
        assert_eq!(unique, want);
        for (&g, &p) in globals.iter().zip(&place) {
            assert_eq!(unique[p as usize], g);
        }
        assert!(marks.iter().all(|&m| m == 0));
        assert_eq!(sorted_unique(&mut [], &mut marks), Vec::<u32>::new());
        // Values too spread for a scan of their span: sorted instead.
        let globals = [900u32, 4, 4000, 900, 17];
        const { assert!(4000 - 4 >= SCAN_SPAN * 4) };
        let mut marks = vec![0u32; 4001];
        let mut place = globals;
        assert_eq!(sorted_unique(&mut place, &mut marks), [4, 17, 900, 4000]);
        assert_eq!(place, [2, 0, 3, 2, 1]);
        assert!(marks.iter().all(|&m| m == 0));
    }

    #[test]
    fn split_puts_the_diagonal_first_and_maps_the_other_columns() {
        // 4 rows on 2 ranks (rows 0-1, 2-3).
        let a = from_lists(
            4,
            &[
                &[(0, 2.0), (1, -1.0), (3, -0.5)],
                &[(0, -1.0), (1, 2.0), (2, -1.0)],
                &[(1, -1.0), (2, 2.0), (3, -1.0)],
                &[(0, -0.5), (2, -1.0), (3, 2.0)],
            ],
        );
        let p = ParCsr::split(&a, &[0, 2, 4]);
        let r0 = &p.ranks[0];
        assert_eq!(r0.col_map, vec![2, 3]);
        assert_eq!(r0.diag.row(1), (&[1u32, 0][..], &[2.0, -1.0][..]));
        assert_eq!(r0.offd.row(0), (&[1u32][..], &[-0.5][..]));
        assert_eq!(r0.offd.row(1), (&[0u32][..], &[-1.0][..]));
        let r1 = &p.ranks[1];
        assert_eq!(r1.col_map, vec![0, 1]);
        assert_eq!(r1.diag.row(1), (&[1u32, 0][..], &[2.0, -1.0][..]));
        // Gathered back, the matrix is the input (rows sorted).
        let g = p.gather();
        assert_eq!(g.to_dense(), a.to_csr().to_dense());
        // Rank 0 sends rows 0 and 1 to rank 1 (its col_map 0, 1), rank 1
        // sends its rows 0, 1 (globals 2, 3) to rank 0.
        let comms = comm_pkgs(&p.cols, &[&r0.col_map, &r1.col_map]);
        let rows: Vec<u32> = comms[0].sends.iter().map(|s| s.row).collect();
        assert_eq!(rows, vec![0, 1]);
        assert_eq!(comms[1].from, vec![(0, 0), (0, 1)]);
        assert_eq!(comms[0].from, vec![(1, 0), (1, 1)]);
    }

    /// The packages as hypre defines them, slot by slot: each owner sends
    /// by increasing receiver, each receiver's columns increasing, and
    /// each offd column names its owner, its row there and the owner's
    /// slot that carries it. 9 ranks of uneven blocks, each rank's offd
    /// columns scattered over the others (one rank with none).
    #[test]
    fn packages_follow_hypres_order() {
        let cols = [0usize, 5, 5, 17, 30, 31, 44, 60, 61, 80];
        let ranks = cols.len() - 1;
        let maps: Vec<Vec<u32>> = (0..ranks)
            .map(|q| {
                (0..80u32)
                    .filter(|&g| {
                        let own = (cols[q]..cols[q + 1]).contains(&(g as usize));
                        !own && q != 4 && (g * 7 + q as u32 * 3) % 5 < 2
                    })
                    .collect()
            })
            .collect();
        let refs: Vec<&[u32]> = maps.iter().map(|m| m.as_slice()).collect();
        let comms = comm_pkgs(&cols, &refs);
        let owner = |g: u32| cols.partition_point(|&s| s <= g as usize) - 1;
        for (r, c) in comms.iter().enumerate() {
            // The definition: every receiver in turn, its columns that r owns.
            let want: Vec<Slot> = (0..ranks)
                .flat_map(|q| {
                    let m = &maps[q];
                    (0..m.len())
                        .filter(move |&at| owner(m[at]) == r)
                        .map(move |at| Slot {
                            to: q as u32,
                            row: (m[at] as usize - cols[r]) as u32,
                            at: at as u32,
                        })
                })
                .collect();
            assert_eq!(c.sends, want, "rank {r}");
        }
        for (q, c) in comms.iter().enumerate() {
            assert_eq!(c.from.len(), maps[q].len());
            for (at, (&(o, slot), &(o2, row))) in c.from.iter().zip(&c.src).enumerate() {
                let g = maps[q][at];
                assert_eq!((o as usize, o2 as usize), (owner(g), owner(g)));
                assert_eq!(row as usize, g as usize - cols[owner(g)]);
                let s = comms[o as usize].sends[slot as usize];
                assert_eq!((s.to as usize, s.at as usize), (q, at));
            }
        }
        assert!(
            comms[4].from.is_empty() && comms.iter().map(|c| c.sends.len()).sum::<usize>() > 200
        );
    }
}
