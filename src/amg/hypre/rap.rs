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

use super::parcsr::{par_rows, sorted_unique, source, Comm, Local, ParCsr, Rows};
use crate::amg::raw::RawCsr;

/// A task's marks, the row (or a counter) they belong to in the high
/// half, the place in the row in the low one: `mark` over the coarse
/// columns of the row being built, `int` over those of a `RAP_int` row,
/// `ra` over the fine columns of the row of `R A`.
struct Marks {
    mark: Vec<u64>,
    int: Vec<u64>,
    count: u64,
    ra: Vec<u64>,
    int_row: Rows,
    ra_o: Rows,
    ra_d: Rows,
}

/// Adds `x` to global column `g` of a row: a new entry at the first touch
/// (the low half of `mark[g]` its place), a sum after.
#[inline]
fn touch(mark: &mut [u64], me: u64, g: usize, col: u32, x: f64, out: &mut Rows) {
    if mark[g] >> 32 != me {
        mark[g] = me << 32 | out.cols.len() as u64;
        out.cols.push(col);
        out.vals.push(x);
    } else {
        out.vals[mark[g] as u32 as usize] += x;
    }
}

/// Rank `o`'s row `row` of `P`, global coarse columns, each to `f`: the
/// columns in `lo..hi` first, then the others (hypre's split of `P_ext`
/// into diag and offd), each in stored order (diag block, then offd).
/// `o`'s own columns are all inside when `o` is the rank of `lo..hi`,
/// else all outside.
#[inline]
fn p_ext_row(
    p: &ParCsr,
    o: usize,
    row: usize,
    lo: usize,
    hi: usize,
    mut f: impl FnMut(usize, f64),
) {
    let po = &p.ranks[o];
    let first = p.cols[o];
    let (dc, dv) = po.diag.row(row);
    let (oc, ov) = po.offd.row(row);
    let own = first == lo;
    for pass in [true, false] {
        if own == pass {
            for (&j, &x) in dc.iter().zip(dv) {
                f(first + j as usize, x);
            }
        }
        for (&j, &x) in oc.iter().zip(ov) {
            let g = po.col_map[j as usize] as usize;
            if (lo..hi).contains(&g) == pass {
                f(g, x);
            }
        }
    }
}

/// `P^T A P` over the ranks; `a_comms` and `p_comms` are `A`'s and `P`'s
/// packages.
pub(crate) fn rap(a: &ParCsr, p: &ParCsr, a_comms: &[Comm], p_comms: &[Comm]) -> ParCsr {
    let r_diag: Vec<RawCsr> = p.ranks.par_iter().map(|l| l.diag.transpose()).collect();
    let r_offd: Vec<RawCsr> = p.ranks.par_iter().map(|l| l.offd.transpose()).collect();
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
    let (nf, nc) = (a.global_rows(), p.global_cols());
    let coarse_rows: Vec<usize> = p.ranks.iter().map(|l| l.diag.ncols).collect();
    let init = || Marks {
        mark: vec![u64::MAX; nc],
        int: vec![u64::MAX; nc],
        count: 0,
        ra: vec![u64::MAX; nf],
        int_row: Rows::default(),
        ra_o: Rows::default(),
        ra_d: Rows::default(),
    };
    let ctx = Ctx {
        a,
        p,
        a_comms,
        p_comms,
        r_diag: &r_diag,
        r_offd: &r_offd,
    };
    let blocks = par_rows(&coarse_rows, init, |m, r, ic, d, o| {
        let (ptr, list) = &slots[r];
        ctx.row(m, r, ic, &list[ptr[ic]..ptr[ic + 1]], d, o)
    });
    let ranks = blocks
        .into_par_iter()
        .enumerate()
        .map(|(r, (mut diag, mut offd))| {
            let (col_map, place) = sorted_unique(&offd.indices);
            offd.indices = place;
            diag.ncols = coarse_rows[r];
            offd.ncols = col_map.len();
            Local {
                diag,
                offd,
                col_map,
            }
        })
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
    a_comms: &'a [Comm],
    p_comms: &'a [Comm],
    r_diag: &'a [RawCsr],
    r_offd: &'a [RawCsr],
}

impl Ctx<'_> {
    /// Coarse row `ic` of rank `r`; `slots`: its slots, whose rows of
    /// `RAP_int` come first.
    fn row(&self, m: &mut Marks, r: usize, ic: usize, slots: &[u32], d: &mut Rows, o: &mut Rows) {
        let (a, p) = (self.a, self.p);
        let (cr, ce) = (p.cols[r], p.cols[r + 1]);
        let gc = cr + ic;
        let me = gc as u64;
        let local = |g: usize| (cr..ce).contains(&g);
        let add = |mark: &mut [u64], g: usize, x: f64, d: &mut Rows, o: &mut Rows| {
            if local(g) {
                touch(mark, me, g, (g - cr) as u32, x, d);
            } else {
                touch(mark, me, g, g as u32, x, o);
            }
        };
        add(&mut m.mark, gc, 0.0, d, o);
        for &t in slots {
            let s = self.p_comms[r].sends[t as usize];
            self.rap_int_row(m, s.to as usize, s.at as usize);
            for (&g, &x) in m.int_row.cols.iter().zip(&m.int_row.vals) {
                add(&mut m.mark, g as usize, x, d, o);
            }
        }
        // Row ic of R A: its offd part, then its diag part, first touch.
        let l = &a.ranks[r];
        let first = a.rows[r];
        let (ra_o, ra_d) = (&mut m.ra_o, &mut m.ra_d);
        ra_o.cols.clear();
        ra_o.vals.clear();
        ra_d.cols.clear();
        ra_d.vals.clear();
        let (rc, rv) = self.r_diag[r].row(ic);
        for (&i1, &re) in rc.iter().zip(rv) {
            let (ac, av) = l.offd.row(i1 as usize);
            for (&k, &ae) in ac.iter().zip(av) {
                let (q, row) = source(self.a_comms, r, k as usize);
                touch(&mut m.ra, me, a.rows[q] + row, k, re * ae, ra_o);
            }
            let (ac, av) = l.diag.row(i1 as usize);
            for (&j, &ae) in ac.iter().zip(av) {
                touch(&mut m.ra, me, first + j as usize, j, re * ae, ra_d);
            }
        }
        for (&k, &rae) in ra_o.cols.iter().zip(&ra_o.vals) {
            let (q, row) = source(self.a_comms, r, k as usize);
            p_ext_row(p, q, row, cr, ce, |g, x| add(&mut m.mark, g, rae * x, d, o));
        }
        let pl = &p.ranks[r];
        for (&j, &rae) in ra_d.cols.iter().zip(&ra_d.vals) {
            let (pc, pv) = pl.diag.row(j as usize);
            for (&c, &x) in pc.iter().zip(pv) {
                add(&mut m.mark, cr + c as usize, rae * x, d, o);
            }
            let (pc, pv) = pl.offd.row(j as usize);
            for (&c, &x) in pc.iter().zip(pv) {
                add(&mut m.mark, pl.col_map[c as usize] as usize, rae * x, d, o);
            }
        }
    }

    /// Rank `q`'s row of `RAP_int` for its offd coarse column `at`, global
    /// columns, into `m.int_row`.
    fn rap_int_row(&self, m: &mut Marks, q: usize, at: usize) {
        let (a, p) = (self.a, self.p);
        m.count += 1;
        let me = m.count;
        let out = &mut m.int_row;
        out.cols.clear();
        out.vals.clear();
        let (cq, ce) = (p.cols[q], p.cols[q + 1]);
        let l = &a.ranks[q];
        let pl = &p.ranks[q];
        let (rc, rv) = self.r_offd[q].row(at);
        for (&i1, &re) in rc.iter().zip(rv) {
            let (ac, av) = l.offd.row(i1 as usize);
            for (&k, &ae) in ac.iter().zip(av) {
                let rae = re * ae;
                let (o, row) = source(self.a_comms, q, k as usize);
                let int = &mut m.int;
                p_ext_row(p, o, row, cq, ce, |g, x| {
                    touch(int, me, g, g as u32, rae * x, out)
                });
            }
            let (ac, av) = l.diag.row(i1 as usize);
            for (&j, &ae) in ac.iter().zip(av) {
                let rae = re * ae;
                let (pc, pv) = pl.diag.row(j as usize);
                for (&c, &x) in pc.iter().zip(pv) {
                    let g = cq + c as usize;
                    touch(&mut m.int, me, g, g as u32, rae * x, out);
                }
                let (pc, pv) = pl.offd.row(j as usize);
                for (&c, &x) in pc.iter().zip(pv) {
                    let g = pl.col_map[c as usize] as usize;
                    touch(&mut m.int, me, g, g as u32, rae * x, out);
                }
            }
        }
    }
}
