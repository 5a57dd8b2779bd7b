//! `hypre_BoomerAMGBuildExtPIInterpHost` (par_lr_interp.c) on each rank,
//! then `hypre_BoomerAMGInterpTruncation` and `hypre_build_interp_colmap`.
//!
//! hypre first fetches, for its offd points, their markers and coarse
//! indices, `A_ext` (their rows of `A` without the diagonal, keeping the
//! couplings of the sign opposite to the diagonal and, of the owner's own
//! columns, the C points) and `Sop` (their strong C points), each in the
//! owner's order: diag block, then offd block (`hypre_exchange_interp_data`,
//! aux_interp.c). Here a rank reads those rows where their owners hold
//! them, in the same order and with the same filters, and marks the
//! points of a row by their global index: the sums, the first-touch order
//! of the entries and the truncation are hypre's, and hypre's own offd
//! numbering of them (its `col_map` extended by the points first seen in
//! `A_ext` and `Sop`) never shows: the offd columns of `P` end sorted by
//! global coarse index either way.

use super::neighbours::{
    c_hits, c_places, couplings, hits_of, interpolated, local_hits, place, read_on_rank,
    strong_f_neighbours, ExtEntry, LocalRow, GI, LONG_ROWS, STRONG_F,
};
use super::parcsr::{FlatRows, Head, Local, ParCsr};
use super::strength::{Dof, LocalS};
use super::tasks::{par_rows, Rows};
use super::trunc::{changes_row, truncate_row};
use super::SF_PT;

/// A splitting as every rank knows it, by global fine index: the C/F
/// markers, and each C point's global coarse index (`u32::MAX` for the
/// others); the coarse blocks' starts.
pub(crate) struct Splitting<'a> {
    pub cf: &'a [i8],
    pub coarse_of: &'a [u32],
    pub coarse: &'a [usize],
}

/// Every point's global coarse index: the C points (markers `>= 0`)
/// numbered in order, `u32::MAX` for the others.
pub(crate) fn coarse_index(cf: &[i8]) -> Vec<u32> {
    let mut coarse_of = vec![u32::MAX; cf.len()];
    let mut next = 0u32;
    for (g, &x) in cf.iter().enumerate() {
        if x >= 0 {
            coarse_of[g] = next;
            next += 1;
        }
    }
    coarse_of
}

/// A task's marks by global fine index: the row (global index) a mark
/// belongs to in the high half, in the low one the point's place in the
/// row's diag entries, or in its offd entries with [`OFFD`] set (by where
/// the point is), [`GI`] for the row's own point, or [`STRONG_F`].
/// hypre's `P_marker` and `P_marker_offd`. So a coupling counts for the
/// row exactly when its point's mark is a place: one test, whether the
/// point is a C point or the row's own.
struct Marks {
    mark: Vec<u64>,
    cols: Vec<u32>,
    vals: Vec<f64>,
    /// The entries of a strong F neighbour's row that have a place (or
    /// are the row's own point, [`GI`]): where, and the coupling.
    hits: Vec<(u32, f64)>,
}

/// Offd entries are told from diag ones in the marks, the hits and the
/// truncation buffer by this bit (hypre shifts them past the diag
/// columns).
const OFFD: u32 = 1 << 31;
/// Every interpolated row's strong C points (an F point's, not `SF_PT`),
/// by global index: `(point, global coarse index)`, its strong diag
/// block's then its strong offd block's, in stored order (hypre's `Sop`
/// for another rank's point, `S` for the rank's own). A row's `C^_i`
/// reads these of each strong F neighbour; read here once, a neighbour's
/// C points no longer cost a lookup of its column, its marker and its
/// coarse index each time a row reaches it.
fn strong_c(a: &ParCsr, s: &[LocalS], sp: &Splitting) -> FlatRows<[u32; 2]> {
    let (cf, coarse_of) = (sp.cf, sp.coarse_of);
    let f = |g: usize| interpolated(cf[g]);
    FlatRows::build(
        &a.rows,
        |r| {
            let (first, sl) = (a.rows[r], &s[r]);
            (0..sl.diag.rows())
                .filter(|&i| f(first + i))
                .map(|i| sl.diag.len(i) + sl.offd.len(i))
                .sum()
        },
        |r, e, heads| {
            let (first, l, sl) = (a.rows[r], &a.ranks[r], &s[r]);
            let mut t = 0;
            for (i, h) in heads.iter_mut().enumerate() {
                let start = t;
                if f(first + i) {
                    let d = sl.diag.row(i).iter().map(|&k| first + k as usize);
                    let o = sl
                        .offd
                        .row(i)
                        .iter()
                        .map(|&k| l.col_map[k as usize] as usize);
                    // Each written, the count advanced by whether it is a
                    // C point (no branch on a coin toss).
                    for g in d.chain(o) {
                        e[t] = [g as u32, coarse_of[g]];
                        t += usize::from(cf[g] >= 0);
                    }
                }
                *h = Head {
                    start,
                    len: (t - start) as u32,
                    tag: 0,
                };
            }
        },
    )
}

/// The interpolation of every rank.
pub(crate) fn ext_pi(
    a: &ParCsr,
    s: &[LocalS],
    sp: &Splitting,
    dof: Dof,
    trunc_factor: f64,
    max_elmts: usize,
) -> Vec<Local> {
    let n = a.global_rows();
    assert!(n < OFFD as usize, "too many rows");
    let rows: Vec<usize> = a.ranks.iter().map(Local::rows).collect();
    let ext = couplings(a, &strong_f_neighbours(a, s, sp.cf), sp.cf);
    let sc = strong_c(a, s, sp);
    let long = a.nnz_per_row() >= LONG_ROWS;
    let cp = long.then(|| c_places(a, &read_on_rank(a, s, sp.cf), sp.cf));
    let init = || Marks {
        mark: vec![u64::MAX; n],
        cols: Vec::new(),
        vals: Vec::new(),
        hits: Vec::new(),
    };
    // Room to reserve for a row of P (a guess): at most max_elmts entries
    // are kept; untruncated, about as many as A's row has.
    let per_row = if max_elmts > 0 {
        max_elmts as f64
    } else {
        a.nnz_per_row()
    };
    let blocks = par_rows(&rows, [per_row; 2], init, |m, r, i, d, o| {
        let fixed = (trunc_factor, max_elmts);
        row(
            a,
            s,
            sp,
            (&ext, &sc, cp.as_ref()),
            dof,
            fixed,
            m,
            r,
            i,
            d,
            o,
        )
    });
    drop((ext, sc, cp));
    // The offd columns: increasing global coarse index.
    let coarse = sp.coarse;
    Local::with_global_offds(
        blocks,
        |r| coarse[r + 1] - coarse[r],
        coarse[coarse.len() - 1],
    )
}

/// A new entry of the row for point `g` (a C point) unless it has one:
/// in the diag entries `d` (`tag` 0) or the offd ones (`tag` [`OFFD`]).
#[inline(always)]
fn add(mark: &mut [u64], me: u64, g: usize, col: u32, out: &mut Rows, tag: u32) {
    if place(mark[g], me).is_none() {
        debug_assert!(out.cols.len() < OFFD as usize);
        mark[g] = me | (out.cols.len() as u32 | tag) as u64;
        out.cols.push(col);
        out.vals.push(0.0);
    }
}

/// hypre's distribution of a strong F neighbour's coupling `x`: `x / sum`
/// times each of the couplings that counted (their sum `sum`), in row
/// order; to the diagonal when none did.
#[inline(always)]
fn spread(hits: &[(u32, f64)], x: f64, sum: f64, diagonal: &mut f64, d: &mut Rows, o: &mut Rows) {
    if sum == 0.0 {
        *diagonal += x;
        return;
    }
    let distribute = x / sum;
    for &(p, y) in hits {
        if p == GI {
            *diagonal += distribute * y;
        } else if p & OFFD != 0 {
            o.vals[(p & !OFFD) as usize] += distribute * y;
        } else {
            d.vals[p as usize] += distribute * y;
        }
    }
}

/// Row `i` of rank `r`: hypre's fill pass (its count pass finds the same
/// entries), then the truncation over diag then offd entries. Offd
/// entries carry global coarse indices. A point of another rank's diag
/// block is never this rank's; of its offd block it may be.
#[allow(clippy::too_many_arguments)]
fn row(
    a: &ParCsr,
    s: &[LocalS],
    sp: &Splitting,
    (ext, sc, cp): (
        &FlatRows<ExtEntry>,
        &FlatRows<[u32; 2]>,
        Option<&FlatRows<u32>>,
    ),
    dof: Dof,
    (trunc_factor, max_elmts): (f64, usize),
    m: &mut Marks,
    r: usize,
    i: usize,
    d: &mut Rows,
    o: &mut Rows,
) {
    let first = a.rows[r];
    let n = a.rows[r + 1] - first;
    let gi = first + i;
    let cf = sp.cf;
    let coarse_of = sp.coarse_of;
    let c0 = sp.coarse[r] as u32;
    if cf[gi] >= 0 {
        d.cols.push(coarse_of[gi] - c0);
        d.vals.push(1.0);
        return;
    }
    if cf[gi] == SF_PT {
        return;
    }
    let l = &a.ranks[r];
    let cmap = &l.col_map[..];
    let sl = &s[r];
    let (bd, bo) = (d.cols.len(), o.cols.len());
    let me = (gi as u64) << 32;
    let sf_mark = me | STRONG_F as u64;
    let Marks {
        mark,
        cols,
        vals,
        hits,
    } = m;
    let mark = &mut mark[..];
    // The row's own point counts where a neighbour's row reaches it. The
    // row itself never reaches it past its first entry, the diagonal
    // (`ParCsr::split` and the product store it there, once), so no
    // direct coupling below takes the place `GI`.
    mark[gi] = me | GI as u64;
    // C^_i: the strong C points, and those of the strong F neighbours
    // (theirs on any rank: hypre's S for this rank's, Sop for another's).
    let neighbour = |mark: &mut [u64], g: usize, d: &mut Rows, o: &mut Rows| {
        mark[g] = sf_mark;
        for &[g1, c1] in sc.row(g).0 {
            if (g1 as usize).wrapping_sub(first) < n {
                add(mark, me, g1 as usize, c1 - c0, d, 0);
            } else {
                add(mark, me, g1 as usize, c1, o, OFFD);
            }
        }
    };
    // The strong F neighbours' rows of `sc`, asked into the cache
    // together (on many ranks they are read at random).
    let fine = |g: usize| interpolated(cf[g]);
    for &j in sl.diag.row(i) {
        let g = first + j as usize;
        if fine(g) {
            sc.fetch(g);
        }
    }
    for &k in sl.offd.row(i) {
        let g = cmap[k as usize] as usize;
        if fine(g) {
            sc.fetch(g);
        }
    }
    for &j in sl.diag.row(i) {
        let g = first + j as usize;
        if cf[g] >= 0 {
            add(mark, me, g, coarse_of[g] - c0, d, 0);
        } else if cf[g] != SF_PT {
            neighbour(mark, g, d, o);
        }
    }
    for &k in sl.offd.row(i) {
        let g = cmap[k as usize] as usize;
        if cf[g] >= 0 {
            add(mark, me, g, coarse_of[g], o, OFFD);
        } else if cf[g] != SF_PT {
            neighbour(mark, g, d, o);
        }
    }
    // The weights. Only C points have places, so the filters on C points
    // of hypre's A_ext need no test here.
    let same_fn = |g: usize| dof.is_none_or(|f| f[gi] == f[g]);
    let (dc, dv) = l.diag.row(i);
    let (oc, ov) = l.offd.row(i);
    // The strong F neighbours' rows of other ranks, asked into the cache
    // together.
    for &k in oc {
        let g = cmap[k as usize] as usize;
        if mark[g] == sf_mark {
            ext.fetch(g);
        }
    }
    let mut diagonal = dv.first().copied().unwrap_or(0.0);
    for (&j, &x) in dc.iter().zip(dv).skip(1) {
        let g = first + j as usize;
        let mk = mark[g];
        if let Some(p) = place(mk, me) {
            d.vals[p as usize] += x;
        } else if mk == sf_mark {
            // A strong F neighbour of this rank: its row, the couplings
            // of the sign opposite to its diagonal.
            let nb = LocalRow {
                diag: l.diag.row(j as usize),
                offd: l.offd.row(j as usize),
                first,
                cmap,
            };
            let sum = match cp {
                Some(cp) => c_hits(cp.row(g).0, &nb, i as u32, mark, me, hits),
                None => local_hits(&nb, mark, me, hits),
            };
            spread(hits, x, sum, &mut diagonal, d, o);
        } else if cf[g] != SF_PT && same_fn(g) {
            diagonal += x;
        }
    }
    for (&k, &x) in oc.iter().zip(ov) {
        let g = cmap[k as usize] as usize;
        let mk = mark[g];
        if let Some(p) = place(mk, me) {
            o.vals[(p & !OFFD) as usize] += x;
        } else if mk == sf_mark {
            // A_ext: the owner's row without its diagonal, the couplings of
            // the sign opposite to it (of the owner's columns the C points:
            // the others have no place).
            let sum = hits_of(ext.row(g), gi, mark, me, hits);
            spread(hits, x, sum, &mut diagonal, d, o);
        } else if cf[g] != SF_PT && same_fn(g) {
            diagonal += x;
        }
    }
    if diagonal != 0.0 {
        for x in &mut d.vals[bd..] {
            *x /= -diagonal;
        }
        for x in &mut o.vals[bo..] {
            *x /= -diagonal;
        }
    }
    let len = d.cols.len() - bd + o.cols.len() - bo;
    if changes_row(len, trunc_factor, max_elmts) {
        cols.clear();
        vals.clear();
        cols.extend_from_slice(&d.cols[bd..]);
        vals.extend_from_slice(&d.vals[bd..]);
        cols.extend(o.cols[bo..].iter().map(|&k| k | OFFD));
        vals.extend_from_slice(&o.vals[bo..]);
        let len = truncate_row(cols, vals, trunc_factor, max_elmts);
        d.cols.truncate(bd);
        d.vals.truncate(bd);
        o.cols.truncate(bo);
        o.vals.truncate(bo);
        for (&c, &x) in cols[..len].iter().zip(&vals[..len]) {
            if c & OFFD == 0 {
                d.cols.push(c);
                d.vals.push(x);
            } else {
                o.cols.push(c & !OFFD);
                o.vals.push(x);
            }
        }
    }
}
