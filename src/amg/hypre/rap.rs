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

use super::parcsr::{par_rows, Comm, FlatRows, Local, ParCsr, Rows};
use crate::amg::raw::RawCsr;

/// A task's marks, the row (or a counter) they belong to in the high
/// half, the place in the row in the low one: `mark` over the coarse
/// columns of the row being built, `int` over those of a `RAP_int` row,
/// `ra` over the rank's fine columns (diag, then offd) of the row of
/// `R A`.
struct Marks {
    mark: Vec<u64>,
    int: Vec<u64>,
    count: u64,
    ra: Vec<u64>,
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
/// new entry at the first touch (the low half of `mark[g]` its place), a
/// sum after.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn touch(
    mark: &mut [u64],
    me: u64,
    g: usize,
    col: u32,
    x: f64,
    cols: &mut [u32],
    vals: &mut [f64],
    len: &mut usize,
) {
    let m = mark[g];
    if m >> 32 != me {
        mark[g] = me << 32 | *len as u64;
        cols[*len] = col;
        vals[*len] = x;
        *len += 1;
    } else {
        vals[m as u32 as usize] += x;
    }
}

/// Every fine row of `P` with global coarse columns, in stored order
/// (diag block, then offd block): hypre's `P_ext` rows are these, split;
/// `diag[g]`: how many of row `g`'s entries are its owner's columns.
struct GlobalP {
    rows: FlatRows,
    diag: Vec<u32>,
}

impl GlobalP {
    fn of(p: &ParCsr) -> GlobalP {
        let rows = FlatRows::build(
            &p.rows,
            |r| p.ranks[r].diag.nnz() + p.ranks[r].offd.nnz(),
            |r, c, v, ends| {
                let l = &p.ranks[r];
                let first = p.cols[r] as u32;
                let mut t = 0;
                for (i, end) in ends.iter_mut().enumerate() {
                    t += l.global_row(i, first, &mut c[t..], &mut v[t..]);
                    *end = t;
                }
            },
        );
        let diag = (p.ranks.par_iter())
            .flat_map_iter(|l| (0..l.rows()).map(|i| l.diag.row(i).0.len() as u32))
            .collect();
        GlobalP { rows, diag }
    }

    #[inline(always)]
    fn row(&self, g: usize) -> (&[u32], &[f64]) {
        self.rows.row(g)
    }

    /// Row `g` split as hypre's `P_ext` on another rank, the one of
    /// coarse columns `lo..hi`: those columns first, then the others, each
    /// in stored order. hypre's diag part is the owner's offd entries in
    /// `lo..hi`: the owner's own columns are never there.
    #[inline(always)]
    fn split_row(&self, g: usize, lo: u32, hi: u32, mut f: impl FnMut(u32, f64)) {
        let (c, v) = self.row(g);
        let nd = self.diag[g] as usize;
        let inside = |j: u32| j.wrapping_sub(lo) < hi - lo;
        let (oc, ov) = (&c[nd..], &v[nd..]);
        if !oc.iter().any(|&j| inside(j)) {
            for (&j, &x) in c.iter().zip(v) {
                f(j, x);
            }
            return;
        }
        for (&j, &x) in oc.iter().zip(ov) {
            if inside(j) {
                f(j, x);
            }
        }
        for (&j, &x) in c[..nd].iter().zip(&v[..nd]) {
            f(j, x);
        }
        for (&j, &x) in oc.iter().zip(ov) {
            if !inside(j) {
                f(j, x);
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
        mark: vec![u64::MAX; nc],
        int: vec![u64::MAX; nc],
        count: 0,
        ra: vec![u64::MAX; fine_cols],
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
    let ranks = blocks
        .into_par_iter()
        .enumerate()
        .map(|(r, (diag, offd))| Local::with_global_offd(diag, offd, coarse_rows[r]))
        .collect();
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
        let me = gc as u64;
        let Marks {
            mark,
            int,
            count,
            int_row,
            row_d,
            row_o,
            ra,
            ra_o,
            ra_d,
        } = m;
        let mark = &mut mark[..];
        let (dc, dv, dn) = row_d.parts();
        let (oc, ov, on) = row_o.parts();
        (*dn, *on) = (0, 0);
        let mut add = |g: u32, x: f64| {
            if g.wrapping_sub(cr) < ce - cr {
                touch(mark, me, g as usize, g - cr, x, dc, dv, dn);
            } else {
                touch(mark, me, g as usize, g, x, oc, ov, on);
            }
        };
        add(gc as u32, 0.0);
        // The rows of RAP_int, by slot.
        for &t in slots {
            let s = self.p_comms[r].sends[t as usize];
            *count += 1;
            self.rap_int_row(int, *count, int_row, s.to as usize, s.at as usize);
            let (ic, iv) = int_row.entries();
            for (&g, &x) in ic.iter().zip(iv) {
                add(g, x);
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
                touch(ra, me, n + k as usize, k, re * ae, roc, rov, ron);
            }
            let (ac, av) = l.diag.row(i1 as usize);
            for (&j, &ae) in ac.iter().zip(av) {
                touch(ra, me, j as usize, j, re * ae, rdc, rdv, rdn);
            }
        }
        for (&k, &rae) in roc[..*ron].iter().zip(&rov[..*ron]) {
            let g = l.col_map[k as usize] as usize;
            gp.split_row(g, cr, ce, |c, x| add(c, rae * x));
        }
        for (&j, &rae) in rdc[..*rdn].iter().zip(&rdv[..*rdn]) {
            let (pc, pv) = gp.row(first + j as usize);
            for (&c, &x) in pc.iter().zip(pv) {
                add(c, rae * x);
            }
        }
        row_d.append_to(d);
        row_o.append_to(o);
    }

    /// Rank `q`'s row of `RAP_int` for its offd coarse column `at`, global
    /// columns, into `acc` (marked `me` in `int`).
    fn rap_int_row(&self, int: &mut [u64], me: u64, acc: &mut Acc, q: usize, at: usize) {
        let (a, p, gp) = (self.a, self.p, self.gp);
        let (cols, vals, len) = acc.parts();
        *len = 0;
        let (cq, ce) = (p.cols[q] as u32, p.cols[q + 1] as u32);
        let l = &a.ranks[q];
        let first = a.rows[q];
        let (rc, rv) = self.r_offd[q].row(at);
        for (&i1, &re) in rc.iter().zip(rv) {
            let (ac, av) = l.offd.row(i1 as usize);
            for (&k, &ae) in ac.iter().zip(av) {
                let rae = re * ae;
                let g = l.col_map[k as usize] as usize;
                gp.split_row(g, cq, ce, |c, x| {
                    touch(int, me, c as usize, c, rae * x, cols, vals, len)
                });
            }
            let (ac, av) = l.diag.row(i1 as usize);
            for (&j, &ae) in ac.iter().zip(av) {
                let rae = re * ae;
                let (pc, pv) = gp.row(first + j as usize);
                for (&c, &x) in pc.iter().zip(pv) {
                    touch(int, me, c as usize, c, rae * x, cols, vals, len);
                }
            }
        }
    }
}
