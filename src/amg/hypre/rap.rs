//! `hypre_BoomerAMGBuildCoarseOperatorKT` (par_rap.c) over the ranks.
//!
//! hypre transposes `P` by blocks (`R_diag`, `R_offd`, counting sorts),
//! fetches `P_ext` (the rows of `P` of its offd fine points, each split
//! into the coarse columns of the rank, then the others, in the owner's
//! order) and works in two passes:
//!
//! 1. `RAP_int`: the rows of `R_offd A P` for coarse points of other
//!    ranks, one triple loop (`A_offd` with `P_ext`, then `A_diag` with
//!    `P`) in first-touch order; each goes to the point's owner
//!    (`hypre_ExchangeExternalRows`).
//! 2. Each local coarse row: the diagonal first, the rows received for it
//!    (by sender, in slot order), then `R_diag A` (its offd part, then its
//!    diag part, each in first-touch order) times `P_ext` and `P`; nothing
//!    dropped; the offd columns are those used, by increasing index.
//!
//! Here the rows of `RAP_int` are computed as hypre's ranks compute
//! them, each sender's rows in one go (its rows of `A` and `P` are then
//! read while in cache), for a window of owners at a time (all of a
//! level's at once may not fit), and marked by global column; each owner
//! reads its own by slot: the same sums in the same order. A sender's
//! `P_ext` rows are split once ([`PExt`]), as hypre's are.

use rayon::prelude::*;

use super::p_ext::{GlobalP, PExt, LANES};
use super::parcsr::{Comm, Entry, Head, Local, ParCsr};
use super::tasks::{par_rows, PerThread, Rows};
use crate::amg::raw::{zeros, RawCsr};

/// A task's marks, each whether a column is in its row (0: not in it),
/// cleared after the row (a byte a column, so that more stay in cache:
/// level 1's coarse columns on 64 ranks of the 100^3 Laplacian in L1):
/// `mark` over the coarse columns of the row being built (and
/// [`LANES`] sinks after them, always marked), `ra` over the rank's fine
/// columns (diag, then offd) of the row of `R A`.
struct Marks {
    mark: Vec<u8>,
    ra: Vec<u8>,
    row: Acc,
    ra_o: Acc,
    ra_d: Acc,
}

/// A row being summed (see [`touch`]): its `len` columns in first-touch
/// order and its values by column, in buffers as long as any row can be
/// (so that nothing grows in the inner loops).
struct Acc {
    cols: Vec<u32>,
    vals: Vec<f64>,
    len: usize,
}

impl Acc {
    fn new(cap: usize) -> Acc {
        Acc {
            cols: vec![0; cap],
            vals: vec![0.0; cap],
            len: 0,
        }
    }

    /// The buffers and the length, apart (for the borrow checker and the
    /// registers).
    fn parts(&mut self) -> (&mut [u32], &mut [f64], &mut usize) {
        (&mut self.cols, &mut self.vals, &mut self.len)
    }
}

/// Adds `x` to column `g` of a row: its values are held by column
/// (`vals[g]`), its columns listed in first-touch order (`len` of them in
/// `cols`, as `col`), `mark[g]` set at the first touch. The mark and the
/// value are loaded side by side, not the value after the mark.
#[inline(always)]
fn touch(
    mark: &mut [u8],
    g: usize,
    col: u32,
    x: f64,
    cols: &mut [u32],
    vals: &mut [f64],
    len: &mut usize,
) {
    if mark[g] == 0 {
        mark[g] = 1;
        cols[*len] = col;
        vals[g] = x;
        *len += 1;
    } else {
        vals[g] += x;
    }
}

/// A coarse row being summed, by global column in first-touch order
/// (split into the rank's own columns and the others at its end, so no
/// add asks where its column is), marked in `mark`.
struct CoarseRow<'m> {
    mark: &'m mut [u8],
    acc: &'m mut Acc,
}

impl CoarseRow<'_> {
    #[inline(always)]
    fn add(&mut self, g: u32, x: f64) {
        let (cols, vals, len) = self.acc.parts();
        touch(self.mark, g as usize, g, x, cols, vals, len);
    }

    /// Adds `f` times a row of `P` padded with sinks ([`touch_padded`]).
    #[inline(always)]
    fn add_padded(&mut self, row: &[Entry], f: f64) {
        let (cols, vals, len) = self.acc.parts();
        touch_padded(self.mark, row, f, cols, vals, len);
    }

    /// The row's columns `lo..hi` (local, less `lo`) to `d`, the others
    /// to `o`, each in first-touch order; its marks cleared.
    fn split_into(self, lo: u32, hi: u32, d: &mut Rows, o: &mut Rows) {
        let Acc { cols, vals, len } = &*self.acc;
        for &g in &cols[..*len] {
            let x = vals[g as usize];
            self.mark[g as usize] = 0;
            if g.wrapping_sub(lo) < hi - lo {
                d.cols.push(g - lo);
                d.vals.push(x);
            } else {
                o.cols.push(g);
                o.vals.push(x);
            }
        }
    }
}

/// Adds `f` times a row of `P` padded to whole [`LANES`] to a row marked
/// in `mark` (see [`touch`]), [`LANES`] entries at a time.
#[inline(always)]
fn touch_padded(
    mark: &mut [u8],
    row: &[Entry],
    f: f64,
    cols: &mut [u32],
    vals: &mut [f64],
    len: &mut usize,
) {
    for ch in row.chunks_exact(LANES) {
        for x in ch {
            touch(mark, x.col as usize, x.col, f * x.val, cols, vals, len);
        }
    }
}

/// Marks over `nc` columns and the [`LANES`] sinks after them, the
/// sinks' always set.
fn marks_with_sinks(nc: usize) -> Vec<u8> {
    (0..nc + LANES).map(|c| u8::from(c >= nc)).collect()
}

/// Clears the marks of a row's columns (`mark[col + base]`).
#[inline(always)]
fn clear(mark: &mut [u8], cols: &[u32], base: usize) {
    for &c in cols {
        mark[c as usize + base] = 0;
    }
}

/// A sender's scratch for its rows of `RAP_int`: `int` marks their
/// columns (as [`Marks`]), `batch` holds the rows of `P` its own rows
/// reach, with their factors; `ext` the rows of `P` its offd points
/// reach, split.
struct IntScratch {
    int: Vec<u8>,
    batch: Vec<(Head, f64)>,
    row: Acc,
    ext: PExt,
    /// A task's rows, copied out at its end (so each part is no longer
    /// than its rows).
    out: Vec<Entry>,
}

/// The rows of `RAP_int` that a window of owners receives, in parts
/// computed by their senders.
struct IntRows {
    parts: Vec<Vec<Entry>>,
    /// Per slot of the window's owners (owner by owner, in slot order):
    /// its row's part, start and length.
    heads: Vec<(u32, usize, u32)>,
    /// Each owner's first slot in `heads`.
    first: Vec<usize>,
}

impl IntRows {
    fn entries(&self) -> usize {
        self.parts.iter().map(Vec::len).sum()
    }

    /// The row of slot `t` of owner `r` (window-relative).
    fn row(&self, r: usize, t: u32) -> &[Entry] {
        let (k, start, len) = self.heads[self.first[r] + t as usize];
        &self.parts[k as usize][start..start + len as usize]
    }
}

/// Rows of `RAP_int` a sender computes per task (the tasks keep the
/// threads alike busy when a few ranks send much).
const INT_TASK: usize = 2048;

/// How many columns of a row of `R A` ahead of its reading a row of `P`
/// is asked for (4, 8 and 16 gave the same times on 64 ranks of the
/// 100^3 Laplacian).
const AHEAD: usize = 8;

/// About this many entries of `RAP_int` are kept at once (100 MB); a level
/// with more is taken in windows of owners, each sized by the entries per
/// row of the window before it.
const INT_ENTRIES: usize = 1 << 23;

/// `P^T A P` over the ranks; `p_comms`: `P`'s packages, whose slots say
/// which rank receives each row of `RAP_int`.
pub(crate) fn rap(a: &ParCsr, p: &ParCsr, p_comms: &[Comm]) -> ParCsr {
    rap_within(a, p, p_comms, INT_ENTRIES)
}

/// [`rap`], keeping about `budget` entries of `RAP_int` at once.
fn rap_within(a: &ParCsr, p: &ParCsr, p_comms: &[Comm], budget: usize) -> ParCsr {
    let r_diag: Vec<RawCsr> = p.ranks.par_iter().map(|l| l.diag.transpose()).collect();
    let r_offd: Vec<RawCsr> = p.ranks.par_iter().map(|l| l.offd.transpose()).collect();
    let gp = GlobalP::of(p);
    // Each coarse row's slots, in order (CSR by local coarse row).
    let slots: Vec<(Vec<usize>, Vec<u32>)> = p_comms
        .par_iter()
        .zip(&p.ranks)
        .map(|(c, l)| {
            let n = l.diag.ncols;
            let mut ptr = vec![0usize; n + 1];
            for s in &c.sends {
                ptr[s.row as usize + 1] += 1;
            }
            for i in 0..n {
                ptr[i + 1] += ptr[i];
            }
            let mut next = ptr.clone();
            let mut list = vec![0u32; c.sends.len()];
            for (t, s) in c.sends.iter().enumerate() {
                list[next[s.row as usize]] = t as u32;
                next[s.row as usize] += 1;
            }
            (ptr, list)
        })
        .collect();
    let nc = p.global_cols();
    let fine_cols = (a.ranks.iter().map(|l| l.rows() + l.col_map.len()))
        .max()
        .unwrap_or(0);
    let coarse_rows: Vec<usize> = p.ranks.iter().map(|l| l.diag.ncols).collect();
    let init = || Marks {
        mark: marks_with_sinks(nc),
        ra: zeros(fine_cols),
        row: Acc::new(nc + LANES),
        ra_o: Acc::new(fine_cols),
        ra_d: Acc::new(fine_cols),
    };
    let ctx = Ctx {
        a,
        p,
        gp: &gp,
        p_comms,
        r_diag: &r_diag,
        r_offd: &r_offd,
    };
    let pool = PerThread::new();
    // A coarse row has about 2-3 times a fine row's entries (hypre's
    // levels of the Laplacian and of elasticity): room for 3.
    let guess = [3.0 * a.nnz_per_row(); 2];
    let mut blocks = Vec::with_capacity(coarse_rows.len());
    let (mut r0, mut window) = (0, budget / 64);
    while r0 < coarse_rows.len() {
        // The window: owners while their rows fit, at least one.
        let (mut r1, mut kept) = (r0 + 1, p_comms[r0].sends.len());
        while r1 < coarse_rows.len() && kept + p_comms[r1].sends.len() <= window {
            kept += p_comms[r1].sends.len();
            r1 += 1;
        }
        let ints = ctx.int_rows(r0, r1, &pool);
        let per_row = ints.entries().div_ceil(kept.max(1)).max(1);
        window = (budget / per_row).max(1);
        blocks.extend(par_rows(
            &coarse_rows[r0..r1],
            guess,
            init,
            |m, w, ic, d, o| {
                let (ptr, list) = &slots[r0 + w];
                let slots = &list[ptr[ic]..ptr[ic + 1]];
                ctx.row(m, r0 + w, ic, slots.iter().map(|&t| ints.row(w, t)), d, o)
            },
        ));
        r0 = r1;
    }
    drop(pool);
    drop(gp);
    let ranks = Local::with_global_offds(blocks, |r| coarse_rows[r], nc);
    ParCsr {
        rows: p.cols.clone(),
        cols: p.cols.clone(),
        ranks,
    }
}

struct Ctx<'a> {
    a: &'a ParCsr,
    p: &'a ParCsr,
    gp: &'a GlobalP,
    p_comms: &'a [Comm],
    r_diag: &'a [RawCsr],
    r_offd: &'a [RawCsr],
}

impl Ctx<'_> {
    /// The rows of `RAP_int` that owners `r0..r1` receive, each sender's
    /// in its own column order, in parallel.
    fn int_rows(&self, r0: usize, r1: usize, pool: &PerThread<IntScratch>) -> IntRows {
        let p = self.p;
        let nc = p.global_cols();
        let mut first = Vec::with_capacity(r1 - r0 + 1);
        first.push(0);
        for r in r0..r1 {
            first.push(first[r - r0] + self.p_comms[r].sends.len());
        }
        // The senders' offd columns that the window owns.
        let (lo, hi) = (p.cols[r0] as u32, p.cols[r1] as u32);
        let tasks: Vec<(usize, usize, usize)> = (p.ranks.iter().enumerate())
            .flat_map(|(q, l)| {
                let from = l.col_map.partition_point(|&g| g < lo);
                let to = l.col_map.partition_point(|&g| g < hi);
                (from..to)
                    .step_by(INT_TASK)
                    .map(move |at| (q, at, (at + INT_TASK).min(to)))
            })
            .collect();
        let parts: Vec<_> = tasks
            .par_iter()
            .map(|&(q, from, to)| {
                let mut slot = pool.slot();
                let sc = slot.get_or_insert_with(|| IntScratch {
                    int: marks_with_sinks(nc),
                    batch: Vec::new(),
                    row: Acc::new(nc + LANES),
                    ext: PExt::new(),
                    out: Vec::new(),
                });
                let IntScratch {
                    int,
                    batch,
                    row,
                    ext,
                    out,
                } = sc;
                out.clear();
                ext.start(q, self.a.ranks[q].col_map.len());
                let mut at_slot = Vec::with_capacity(to - from);
                for at in from..to {
                    self.rap_int_row(int, batch, ext, row, q, at);
                    let c = &row.cols[..row.len];
                    let start = out.len();
                    out.extend(c.iter().map(|&col| Entry {
                        col,
                        val: row.vals[col as usize],
                    }));
                    clear(int, c, 0);
                    let (r, t) = self.p_comms[q].from[at];
                    let s = first[r as usize - r0] + t as usize;
                    at_slot.push((s, start, c.len() as u32));
                }
                (out.to_vec(), at_slot)
            })
            .collect();
        let mut heads = vec![(0, 0, 0); first[r1 - r0]];
        for (k, (_, at_slot)) in parts.iter().enumerate() {
            for &(s, start, len) in at_slot {
                heads[s] = (k as u32, start, len);
            }
        }
        IntRows {
            parts: parts.into_iter().map(|(e, _)| e).collect(),
            heads,
            first,
        }
    }

    /// Coarse row `ic` of rank `r`; `ints`: the rows of `RAP_int` it
    /// receives, in slot order, which come first.
    fn row<'e>(
        &self,
        m: &mut Marks,
        r: usize,
        ic: usize,
        ints: impl Iterator<Item = &'e [Entry]>,
        d: &mut Rows,
        o: &mut Rows,
    ) {
        let (a, p, gp) = (self.a, self.p, self.gp);
        let (cr, ce) = (p.cols[r] as u32, p.cols[r + 1] as u32);
        let gc = cr as usize + ic;
        let Marks {
            mark,
            row: acc,
            ra,
            ra_o,
            ra_d,
        } = m;
        acc.len = 0;
        let mut row = CoarseRow { mark, acc };
        row.add(gc as u32, 0.0);
        // The rows of RAP_int, by slot.
        for e in ints {
            for x in e {
                row.add(x.col, x.val);
            }
        }
        // Row ic of R A: its offd part, then its diag part, first touch;
        // marked by local fine column (diag j, offd n + k).
        let l = &a.ranks[r];
        let n = l.rows();
        let first = a.rows[r];
        let (roc, rov, ron) = ra_o.parts();
        let (rdc, rdv, rdn) = ra_d.parts();
        (*ron, *rdn) = (0, 0);
        let (rc, rv) = self.r_diag[r].row(ic);
        let ra = &mut ra[..];
        for (&i1, &re) in rc.iter().zip(rv) {
            let (ac, av) = l.offd.row(i1 as usize);
            for (&k, &ae) in ac.iter().zip(av) {
                touch(ra, n + k as usize, k, re * ae, roc, rov, ron);
            }
            let (ac, av) = l.diag.row(i1 as usize);
            for (&j, &ae) in ac.iter().zip(av) {
                touch(ra, j as usize, j, re * ae, rdc, rdv, rdn);
            }
        }
        // The rows of P are read at random: each is asked for AHEAD
        // columns before it is read, so their cache misses overlap.
        let offd = &roc[..*ron];
        for (t, &k) in offd.iter().enumerate() {
            if let Some(&k2) = offd.get(t + AHEAD) {
                gp.fetch(l.col_map[k2 as usize] as usize);
            }
            let rae = rov[n + k as usize];
            let g = l.col_map[k as usize] as usize;
            gp.split_row(gp.head(g), cr, ce, |c, x| row.add(c, rae * x));
        }
        let diag = &rdc[..*rdn];
        for (t, &j) in diag.iter().enumerate() {
            if let Some(&j2) = diag.get(t + AHEAD) {
                gp.fetch(first + j2 as usize);
            }
            // The row padded with sinks, as RAP_int reads it: a row of
            // 1 to 4 entries would mispredict its end.
            let rae = rdv[j as usize];
            row.add_padded(gp.padded(gp.head(first + j as usize)), rae);
        }
        clear(ra, &roc[..*ron], n);
        clear(ra, &rdc[..*rdn], 0);
        row.split_into(cr, ce, d, o);
    }

    /// Rank `q`'s row of `RAP_int` for its offd coarse column `at`, global
    /// columns, into `acc` (marked in `int`, left for the caller to clear).
    fn rap_int_row(
        &self,
        int: &mut [u8],
        batch: &mut Vec<(Head, f64)>,
        ext: &mut PExt,
        acc: &mut Acc,
        q: usize,
        at: usize,
    ) {
        let (a, p, gp) = (self.a, self.p, self.gp);
        let (cols, vals, len) = acc.parts();
        *len = 0;
        let (cq, ce) = (p.cols[q] as u32, p.cols[q + 1] as u32);
        let l = &a.ranks[q];
        let first = a.rows[q];
        let (rc, rv) = self.r_offd[q].row(at);
        for (&i1, &re) in rc.iter().zip(rv) {
            // The rows of P this rank's points reach, found first: the
            // lookups are independent, so their cache misses overlap.
            batch.clear();
            let (ac, av) = l.diag.row(i1 as usize);
            for (&j, &ae) in ac.iter().zip(av) {
                batch.push((gp.fetch(first + j as usize), re * ae));
            }
            let (ac, av) = l.offd.row(i1 as usize);
            for (&k, &ae) in ac.iter().zip(av) {
                let g = l.col_map[k as usize] as usize;
                let row = ext.row(gp, k as usize, g, cq, ce);
                touch_padded(int, row, re * ae, cols, vals, len);
            }
            for &(h, rae) in batch.iter() {
                touch_padded(int, gp.padded(h), rae, cols, vals, len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::interp::{coarse_index, ext_pi, Splitting};
    use super::super::{pmis, ruge, strength, C_PT};
    use super::*;
    use crate::amg::Preset;

    /// Level 0 of hypre's setup of `spec` on `ranks` even blocks: `A`,
    /// `P` and `P`'s packages.
    fn level(spec: &str, ranks: usize) -> (ParCsr, ParCsr, Vec<Comm>) {
        let a = ParCsr::of_spec(spec, ranks);
        let comms = a.comms();
        let o = Preset::Hypre.options();
        let s = strength::of(&a, &o.strength, None);
        let first = s.iter().map(ruge::first_pass).collect();
        let cf = pmis::pmis(&s, &comms, Some(first));
        let mut coarse = vec![0];
        for c in &cf {
            coarse.push(coarse.last().unwrap() + c.iter().filter(|&&x| x == C_PT).count());
        }
        let cf: Vec<i8> = cf.concat();
        let coarse_of = coarse_index(&cf);
        let sp = Splitting {
            cf: &cf,
            coarse_of: &coarse_of,
            coarse: &coarse,
        };
        let ranks = ext_pi(&a, &s, &sp, None, o.trunc_factor, o.p_max_elmts);
        let p = ParCsr {
            rows: a.rows.clone(),
            cols: coarse,
            ranks,
        };
        let p_comms = p.comms();
        (a, p, p_comms)
    }

    /// The rows of `RAP_int` kept a few at a time (a window of one owner,
    /// each made after the rows of the one before were read) give the
    /// product of all kept at once, bit for bit.
    #[test]
    fn windows_of_owners_give_the_same_product() {
        let (a, p, p_comms) = level("gen:poisson3d:14", 8);
        assert!(p_comms.iter().all(|c| !c.sends.is_empty()));
        let whole = rap_within(&a, &p, &p_comms, usize::MAX / 2);
        let windows = rap_within(&a, &p, &p_comms, 16);
        assert_eq!(whole.rows, windows.rows);
        for (x, y) in whole.ranks.iter().zip(&windows.ranks) {
            assert_eq!(x.col_map, y.col_map);
            for (b, c) in [(&x.diag, &y.diag), (&x.offd, &y.offd)] {
                assert_eq!(b.indptr, c.indptr);
                assert_eq!(b.indices, c.indices);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&b.data), bits(&c.data));
            }
        }
        assert!(whole.ranks.iter().any(|l| l.offd.nnz() > 0));
    }

    /// A rank's `P_ext` rows, made at the first read and kept, are the
    /// rows split where they are read, bit for bit, on every read; another
    /// rank's task makes them again, split for that rank.
    #[test]
    fn p_ext_rows_are_the_split_rows() {
        let (a, p, _) = level("gen:elasticity3d:6", 4);
        let gp = GlobalP::of(&p);
        let mut ext = PExt::new();
        let (mut reads, mut reordered) = (0, 0);
        for q in (0..4).chain([1, 1, 3, 0]) {
            let (lo, hi) = (p.cols[q] as u32, p.cols[q + 1] as u32);
            let map = &a.ranks[q].col_map;
            ext.start(q, map.len());
            // Each offd point twice, the second time from the kept row.
            for k in (0..map.len()).rev().chain(0..map.len()) {
                let g = map[k] as usize;
                let mut want = Vec::new();
                gp.split_row(gp.head(g), lo, hi, |c, x| want.push((c, x.to_bits())));
                let row = ext.row(&gp, k, g, lo, hi);
                assert!(row.len().is_multiple_of(LANES));
                let got: Vec<(u32, u64)> = (row.iter().filter(|x| x.col < gp.sink))
                    .map(|x| (x.col, x.val.to_bits()))
                    .collect();
                assert_eq!(got, want, "rank {q}, offd point {k}");
                let stored: Vec<u32> = gp.entries(gp.head(g)).iter().map(|x| x.col).collect();
                reordered += usize::from(got.iter().map(|x| x.0).ne(stored));
                reads += 1;
            }
        }
        // Every row of P read with its sinks: the row, then sinks to whole
        // LANES.
        for g in 0..p.global_rows() {
            let h = gp.head(g);
            let (row, padded) = (gp.entries(h), gp.padded(h));
            assert!(padded.len().is_multiple_of(LANES) && padded.len() < row.len() + LANES);
            assert!(padded[..row.len()].iter().all(|x| x.col < gp.sink));
            for (k, x) in padded.iter().enumerate().skip(row.len()) {
                assert_eq!((x.col, x.val), (gp.sink + (k % LANES) as u32, 0.0));
            }
        }
        // Rows the split reorders (a column of the reading rank among a
        // row's offd columns), and many reads.
        assert!(reordered > 20 && reads > 1000, "{reordered} of {reads}");
    }
}
