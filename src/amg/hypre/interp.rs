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

use rayon::prelude::*;

use super::parcsr::{par_rows, source, Comm, Local, ParCsr, Rows};
use super::strength::{Dof, LocalS};
use super::trunc::truncate_row;
use super::SF_PT;

/// A splitting as every rank knows it, by global fine index: the C/F
/// markers, and each C point's global coarse index (`u32::MAX` for the
/// others); the coarse blocks' starts.
pub(crate) struct Splitting<'a> {
    pub cf: &'a [i8],
    pub coarse_of: &'a [u32],
    pub coarse: &'a [usize],
}

/// A task's marks by global fine index: the row (global index) a mark
/// belongs to in the high half, in the low one the point's place in the
/// row's diag or offd entries (by where the point is), or [`STRONG_F`].
/// hypre's `P_marker` and `P_marker_offd`.
struct Marks {
    mark: Vec<u64>,
    cols: Vec<u32>,
    vals: Vec<f64>,
}

/// A strong F neighbour of the row (hypre's `strong_f_marker`).
const STRONG_F: u32 = u32::MAX;
/// Offd entries are told from diag ones in the truncation buffer by
/// this bit (hypre shifts them past the diag columns).
const OFFD: u32 = 1 << 31;

/// The interpolation of every rank.
pub(crate) fn ext_pi(
    a: &ParCsr,
    s: &[LocalS],
    comms: &[Comm],
    sp: &Splitting,
    dof: Dof,
    trunc_factor: f64,
    max_elmts: usize,
) -> Vec<Local> {
    let n = a.global_rows();
    let rows: Vec<usize> = a.ranks.iter().map(Local::rows).collect();
    let init = || Marks {
        mark: vec![u64::MAX; n],
        cols: Vec::new(),
        vals: Vec::new(),
    };
    let blocks = par_rows(&rows, init, |m, r, i, d, o| {
        row(a, s, comms, sp, dof, trunc_factor, max_elmts, m, r, i, d, o)
    });
    blocks
        .into_par_iter()
        .enumerate()
        .map(|(r, (mut diag, mut offd))| {
            // The offd columns: increasing global coarse index.
            let (col_map, place) = super::parcsr::sorted_unique(&offd.indices);
            offd.indices = place;
            diag.ncols = sp.coarse[r + 1] - sp.coarse[r];
            offd.ncols = col_map.len();
            Local {
                diag,
                offd,
                col_map,
            }
        })
        .collect()
}

/// Row `i` of rank `r`: hypre's fill pass (its count pass finds the same
/// entries), then the truncation over diag then offd entries. Offd
/// entries carry global coarse indices.
#[allow(clippy::too_many_arguments)]
fn row(
    a: &ParCsr,
    s: &[LocalS],
    comms: &[Comm],
    sp: &Splitting,
    dof: Dof,
    trunc_factor: f64,
    max_elmts: usize,
    m: &mut Marks,
    r: usize,
    i: usize,
    d: &mut Rows,
    o: &mut Rows,
) {
    let first = a.rows[r];
    let last = a.rows[r + 1];
    let gi = first + i;
    let cf = sp.cf;
    if cf[gi] >= 0 {
        d.cols.push(sp.coarse_of[gi] - sp.coarse[r] as u32);
        d.vals.push(1.0);
        return;
    }
    if cf[gi] == SF_PT {
        return;
    }
    let l = &a.ranks[r];
    let sl = &s[r];
    let (bd, bo) = (d.cols.len(), o.cols.len());
    let me = (gi as u64) << 32;
    let Marks { mark, cols, vals } = m;
    let local = |g: usize| (first..last).contains(&g);
    // The global index of offd column k of rank q.
    let global = |q: usize, k: u32| {
        let (o, row) = source(comms, q, k as usize);
        a.rows[o] + row
    };
    let add = |g: usize, mark: &mut [u64], d: &mut Rows, o: &mut Rows| {
        if mark[g] >> 32 != gi as u64 || mark[g] as u32 == STRONG_F {
            if local(g) {
                mark[g] = me | d.cols.len() as u64;
                d.cols.push(sp.coarse_of[g] - sp.coarse[r] as u32);
                d.vals.push(0.0);
            } else {
                mark[g] = me | o.cols.len() as u64;
                o.cols.push(sp.coarse_of[g]);
                o.vals.push(0.0);
            }
        }
    };
    // C^_i: the strong C points, and those of the strong F neighbours.
    for &j in sl.diag.row(i) {
        let g = first + j as usize;
        if cf[g] >= 0 {
            add(g, mark, d, o);
        } else if cf[g] != SF_PT {
            mark[g] = me | STRONG_F as u64;
            for &k in sl.diag.row(j as usize) {
                let g1 = first + k as usize;
                if cf[g1] >= 0 {
                    add(g1, mark, d, o);
                }
            }
            for &k in sl.offd.row(j as usize) {
                let g1 = global(r, k);
                if cf[g1] >= 0 {
                    add(g1, mark, d, o);
                }
            }
        }
    }
    for &k in sl.offd.row(i) {
        let (q, row) = source(comms, r, k as usize);
        let g = a.rows[q] + row;
        if cf[g] >= 0 {
            add(g, mark, d, o);
        } else if cf[g] != SF_PT {
            mark[g] = me | STRONG_F as u64;
            // Sop: the owner's strong C points of the point.
            let (fq, sq) = (a.rows[q], &s[q]);
            for &k1 in sq.diag.row(row) {
                let g1 = fq + k1 as usize;
                if cf[g1] >= 0 {
                    add(g1, mark, d, o);
                }
            }
            for &k1 in sq.offd.row(row) {
                let g1 = global(q, k1);
                if cf[g1] >= 0 {
                    add(g1, mark, d, o);
                }
            }
        }
    }
    // The weights.
    let pos = |g: usize, mark: &[u64]| {
        let x = mark[g];
        (x >> 32 == gi as u64 && x as u32 != STRONG_F).then_some(x as u32 as usize)
    };
    let strong_f = |g: usize, mark: &[u64]| mark[g] == me | STRONG_F as u64;
    let spread = |g: usize, y: f64, mark: &[u64], d: &mut Rows, o: &mut Rows| {
        if let Some(p) = pos(g, mark) {
            if local(g) {
                d.vals[p] += y;
            } else {
                o.vals[p] += y;
            }
        }
    };
    let same_fn = |g: usize| dof.is_none_or(|f| f[gi] == f[g]);
    let (dc, dv) = l.diag.row(i);
    let mut diagonal = dv.first().copied().unwrap_or(0.0);
    for (&j, &x) in dc.iter().zip(dv).skip(1) {
        let g = first + j as usize;
        if pos(g, mark).is_some() {
            spread(g, x, mark, d, o);
        } else if strong_f(g, mark) {
            // A strong F neighbour of this rank: its row, the couplings
            // of the sign opposite to its diagonal.
            let (c1, v1) = l.diag.row(j as usize);
            let (oc1, ov1) = l.offd.row(j as usize);
            let sgn = if v1.first().is_some_and(|&d| d < 0.0) {
                -1.0
            } else {
                1.0
            };
            let mut sum = 0.0;
            for (&j2, &y) in c1.iter().zip(v1).skip(1) {
                let g2 = first + j2 as usize;
                if (pos(g2, mark).is_some() || g2 == gi) && sgn * y < 0.0 {
                    sum += y;
                }
            }
            for (&k2, &y) in oc1.iter().zip(ov1) {
                if pos(global(r, k2), mark).is_some() && sgn * y < 0.0 {
                    sum += y;
                }
            }
            if sum != 0.0 {
                let distribute = x / sum;
                for (&j2, &y) in c1.iter().zip(v1).skip(1) {
                    let g2 = first + j2 as usize;
                    if sgn * y < 0.0 {
                        spread(g2, distribute * y, mark, d, o);
                        if g2 == gi {
                            diagonal += distribute * y;
                        }
                    }
                }
                for (&k2, &y) in oc1.iter().zip(ov1) {
                    if sgn * y < 0.0 {
                        spread(global(r, k2), distribute * y, mark, d, o);
                    }
                }
            } else {
                diagonal += x;
            }
        } else if cf[g] != SF_PT && same_fn(g) {
            diagonal += x;
        }
    }
    let (oc, ov) = l.offd.row(i);
    for (&k, &x) in oc.iter().zip(ov) {
        let (q, row) = source(comms, r, k as usize);
        let g = a.rows[q] + row;
        if pos(g, mark).is_some() {
            spread(g, x, mark, d, o);
        } else if strong_f(g, mark) {
            // A_ext: the owner's row without its diagonal, the couplings of
            // the sign opposite to it, of the owner's columns the C points.
            let lq = &a.ranks[q];
            let fq = a.rows[q];
            let (c1, v1) = lq.diag.row(row);
            let (oc1, ov1) = lq.offd.row(row);
            let positive = v1.first().is_some_and(|&d| d >= 0.0);
            let opposite = |y: f64| if positive { y < 0.0 } else { y > 0.0 };
            let ext = (c1.iter().zip(v1).skip(1))
                .filter(|&(&j2, &y)| opposite(y) && cf[fq + j2 as usize] >= 0)
                .map(|(&j2, &y)| (fq + j2 as usize, y))
                .chain(
                    (oc1.iter().zip(ov1))
                        .filter(|&(_, &y)| opposite(y))
                        .map(|(&k2, &y)| (global(q, k2), y)),
                );
            let mut sum = 0.0;
            for (g2, y) in ext.clone() {
                if pos(g2, mark).is_some() || g2 == gi {
                    sum += y;
                }
            }
            if sum != 0.0 {
                let distribute = x / sum;
                for (g2, y) in ext {
                    spread(g2, distribute * y, mark, d, o);
                    if g2 == gi {
                        diagonal += distribute * y;
                    }
                }
            } else {
                diagonal += x;
            }
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
    if (trunc_factor > 0.0 || max_elmts > 0) && len > 0 {
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
