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
//! Each `RAP_int` row goes to exactly one owner, so here the owner
//! computes it when it needs it, from the sender's blocks, and marks
//! columns by global index: the same sums in the same order.

use rayon::prelude::*;

use super::parcsr::{par_rows, Comm, Entry, FlatRows, Head, Local, ParCsr, Rows};
use crate::amg::raw::RawCsr;

/// A task's marks, each a column's place in its row plus one (0: not in
/// it), cleared after the row (4 bytes a column, so they stay in cache):
/// `mark` over the coarse columns of the row being built, `int` over
/// those of a `RAP_int` row, `ra` over the rank's fine columns (diag,
/// then offd) of the row of `R A`.
struct Marks {
    mark: Vec<u32>,
    int: Vec<u32>,
    /// The rows of `P` a row of `A` reaches, with their factors.
    batch: Vec<(Head, f64)>,
    ra: Vec<u32>,
    int_row: Acc,
    row_d: Acc,
    row_o: Acc,
    ra_o: Acc,
    ra_d: Acc,
}

/// A row being summed, in buffers as long as any row can be (so that
/// nothing grows in the inner loops); `len` entries.
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

    fn entries(&self) -> (&[u32], &[f64]) {
        (&self.cols[..self.len], &self.vals[..self.len])
    }

    fn append_to(&self, out: &mut Rows) {
        out.cols.extend_from_slice(&self.cols[..self.len]);
        out.vals.extend_from_slice(&self.vals[..self.len]);
    }

    /// The buffers and the length, apart (for the borrow checker and the
    /// registers).
    fn parts(&mut self) -> (&mut [u32], &mut [f64], &mut usize) {
        (&mut self.cols, &mut self.vals, &mut self.len)
    }
}

/// Adds `x` to column `g` of a row (`len` entries in `cols`, `vals`): a
/// new entry at the first touch (`mark[g]` its place plus one), a sum
/// after.
#[inline(always)]
fn touch(
    mark: &mut [u32],
    g: usize,
    col: u32,
    x: f64,
    cols: &mut [u32],
    vals: &mut [f64],
    len: &mut usize,
) {
    let m = mark[g];
    if m == 0 {
        mark[g] = *len as u32 + 1;
        cols[*len] = col;
        vals[*len] = x;
        *len += 1;
    } else {
        vals[m as usize - 1] += x;
    }
}

/// A coarse row being summed: its columns in `lo..hi` (the rank's own,
/// local indices) in `d`, the others in `o`, both marked in `mark` by
/// global column.
struct CoarseRow<'m> {
    mark: &'m mut [u32],
    lo: u32,
    hi: u32,
    d: &'m mut Acc,
    o: &'m mut Acc,
}

impl CoarseRow<'_> {
    #[inline(always)]
    fn add(&mut self, g: u32, x: f64) {
        let (acc, col) = if g.wrapping_sub(self.lo) < self.hi - self.lo {
            (&mut *self.d, g - self.lo)
        } else {
            (&mut *self.o, g)
        };
        let (cols, vals, len) = acc.parts();
        touch(self.mark, g as usize, col, x, cols, vals, len);
    }
}

/// Clears the marks of a row's columns (`mark[col + base]`).
#[inline(always)]
fn clear(mark: &mut [u32], cols: &[u32], base: usize) {
    for &c in cols {
        mark[c as usize + base] = 0;
    }
}

/// Every fine row of `P` with global coarse columns, in stored order
/// (diag block, then offd block), each tagged with how many of its
/// entries are its owner's columns: hypre's `P_ext` rows are these, split.
struct GlobalP {
    rows: FlatRows,
}

impl GlobalP {
    fn of(p: &ParCsr) -> GlobalP {
        let rows = FlatRows::build(
            &p.rows,
            |r| p.ranks[r].diag.nnz() + p.ranks[r].offd.nnz(),
            |r, e, heads| {
                let l = &p.ranks[r];
                let first = p.cols[r] as u32;
                let mut t = 0;
                for (i, h) in heads.iter_mut().enumerate() {
                    let start = t;
                    let (dc, dv) = l.diag.row(i);
                    for (&j, &x) in dc.iter().zip(dv) {
                        e[t] = Entry {
                            col: first + j,
                            val: x,
                        };
                        t += 1;
                    }
                    let (oc, ov) = l.offd.row(i);
                    for (&k, &x) in oc.iter().zip(ov) {
                        e[t] = Entry {
                            col: l.col_map[k as usize],
                            val: x,
                        };
                        t += 1;
                    }
                    *h = Head {
                        start,
                        len: (t - start) as u32,
                        tag: dc.len() as u32,
                    };
                }
            },
        );
        GlobalP { rows }
    }

    #[inline(always)]
    fn head(&self, g: usize) -> Head {
        self.rows.heads[g]
    }

    /// Row `g`'s head, its entries asked into the cache.
    #[inline(always)]
    fn fetch(&self, g: usize) -> Head {
        self.rows.fetch(g)
    }

    #[inline(always)]
    fn entries(&self, h: Head) -> &[Entry] {
        &self.rows.entries[h.start..h.start + h.len as usize]
    }

    /// Row `g` split as hypre's `P_ext` on another rank, the one of
    /// coarse columns `lo..hi`: those columns first, then the others, each
    /// in stored order. hypre's diag part is the owner's offd entries in
    /// `lo..hi`: the owner's own columns are never there.
    #[inline(always)]
    fn split_row(&self, h: Head, lo: u32, hi: u32, mut f: impl FnMut(u32, f64)) {
        let (e, nd) = (self.entries(h), h.tag);
        let inside = |j: u32| j.wrapping_sub(lo) < hi - lo;
        let (de, oe) = e.split_at(nd as usize);
        if !oe.iter().any(|x| inside(x.col)) {
            for x in e {
                f(x.col, x.val);
            }
            return;
        }
        for x in oe {
            if inside(x.col) {
                f(x.col, x.val);
            }
        }
        for x in de {
            f(x.col, x.val);
        }
        for x in oe {
            if !inside(x.col) {
                f(x.col, x.val);
            }
        }
    }
}

/// `P^T A P` over the ranks; `p_comms`: `P`'s packages, whose slots say
/// which rank receives each row of `RAP_int`.
pub(crate) fn rap(a: &ParCsr, p: &ParCsr, p_comms: &[Comm]) -> ParCsr {
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
        mark: vec![0; nc],
        int: vec![0; nc],
        batch: Vec::new(),
        ra: vec![0; fine_cols],
        int_row: Acc::new(nc),
        row_d: Acc::new(nc),
        row_o: Acc::new(nc),
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
    let blocks = par_rows(&coarse_rows, init, |m, r, ic, d, o| {
        let (ptr, list) = &slots[r];
        ctx.row(m, r, ic, &list[ptr[ic]..ptr[ic + 1]], d, o)
    });
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
    /// Coarse row `ic` of rank `r`; `slots`: its slots, whose rows of
    /// `RAP_int` come first.
    fn row(&self, m: &mut Marks, r: usize, ic: usize, slots: &[u32], d: &mut Rows, o: &mut Rows) {
        let (a, p, gp) = (self.a, self.p, self.gp);
        let (cr, ce) = (p.cols[r] as u32, p.cols[r + 1] as u32);
        let gc = cr as usize + ic;
        let Marks {
            mark,
            int,
            int_row,
            batch,
            row_d,
            row_o,
            ra,
            ra_o,
            ra_d,
        } = m;
        (row_d.len, row_o.len) = (0, 0);
        let mut row = CoarseRow {
            mark,
            lo: cr,
            hi: ce,
            d: row_d,
            o: row_o,
        };
        row.add(gc as u32, 0.0);
        // The rows of RAP_int, by slot.
        for &t in slots {
            let s = self.p_comms[r].sends[t as usize];
            self.rap_int_row(int, batch, int_row, s.to as usize, s.at as usize);
            let (ic, iv) = int_row.entries();
            for (&g, &x) in ic.iter().zip(iv) {
                row.add(g, x);
            }
            clear(int, ic, 0);
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
        for (&k, &rae) in roc[..*ron].iter().zip(&rov[..*ron]) {
            let g = l.col_map[k as usize] as usize;
            gp.split_row(gp.head(g), cr, ce, |c, x| row.add(c, rae * x));
        }
        for (&j, &rae) in rdc[..*rdn].iter().zip(&rdv[..*rdn]) {
            for x in gp.entries(gp.head(first + j as usize)) {
                row.add(x.col, rae * x.val);
            }
        }
        clear(ra, &roc[..*ron], n);
        clear(ra, &rdc[..*rdn], 0);
        clear(row.mark, row.d.entries().0, cr as usize);
        clear(row.mark, row.o.entries().0, 0);
        row.d.append_to(d);
        row.o.append_to(o);
    }

    /// Rank `q`'s row of `RAP_int` for its offd coarse column `at`, global
    /// columns, into `acc` (marked in `int`, left for the caller to clear).
    fn rap_int_row(
        &self,
        int: &mut [u32],
        batch: &mut Vec<(Head, f64)>,
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
            // The rows of P this row of A reaches, found first: the
            // lookups are independent, so their cache misses overlap.
            batch.clear();
            let (ac, av) = l.offd.row(i1 as usize);
            for (&k, &ae) in ac.iter().zip(av) {
                batch.push((gp.fetch(l.col_map[k as usize] as usize), re * ae));
            }
            let no = batch.len();
            let (ac, av) = l.diag.row(i1 as usize);
            for (&j, &ae) in ac.iter().zip(av) {
                batch.push((gp.fetch(first + j as usize), re * ae));
            }
            for &(h, rae) in &batch[..no] {
                gp.split_row(h, cq, ce, |c, x| {
                    touch(int, c as usize, c, rae * x, cols, vals, len)
                });
            }
            for &(h, rae) in &batch[no..] {
                for x in gp.entries(h) {
                    let c = x.col;
                    touch(int, c as usize, c, rae * x.val, cols, vals, len);
                }
            }
        }
    }
}
