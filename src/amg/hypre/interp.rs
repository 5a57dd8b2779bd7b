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

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use bytemuck::Zeroable;

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

/// A strong F neighbour of the row (hypre's `strong_f_marker`).
const STRONG_F: u32 = u32::MAX;
/// Offd entries are told from diag ones in the marks, the hits and the
/// truncation buffer by this bit (hypre shifts them past the diag
/// columns).
const OFFD: u32 = 1 << 31;
/// The row's own point: its mark's place, and so its hits'.
const GI: u32 = u32::MAX - 1;

/// Whether an interpolated row (an F point's, not `SF_PT`) of another
/// rank has point `g` as a strong F neighbour, by global index: the rows
/// of [`couplings`] that are read (a rank reads its own points' rows where
/// they are, as hypre does).
fn strong_f_neighbours(a: &ParCsr, s: &[LocalS], cf: &[i8]) -> Vec<bool> {
    let f = |g: usize| cf[g] < 0 && cf[g] != SF_PT;
    let needed: Vec<AtomicBool> = (0..cf.len()).map(|_| AtomicBool::new(false)).collect();
    (a.ranks.par_iter().zip(s).enumerate()).for_each(|(r, (l, sl))| {
        let first = a.rows[r];
        for i in (0..l.rows()).filter(|&i| f(first + i)) {
            for &k in sl.offd.row(i) {
                let g = l.col_map[k as usize] as usize;
                if f(g) {
                    needed[g].store(true, Ordering::Relaxed);
                }
            }
        }
    });
    needed.into_iter().map(AtomicBool::into_inner).collect()
}

/// A coupling of an [`couplings`] row: to a C point, or to an F point
/// with `at`, how many of the row's C points come before it in the row.
#[derive(Clone, Copy, Debug, bytemuck::Zeroable)]
struct ExtEntry {
    col: u32,
    at: u32,
    val: f64,
}

/// Every row's couplings of the sign opposite to its diagonal, without
/// it (hypre's `A_ext` rule: the diag block's first entry is the
/// diagonal, positive when `>= 0`), diag block then offd block, global
/// columns, of the points that can count for a row that reads it: C
/// points, and F points of ranks other than the owner's (one of them may
/// be the reading row's own point; an F point of the owner's rank never
/// is, as a row is read here only by other ranks, and hypre's sum skips
/// it). Each row holds its C points' couplings in order, then its F
/// points' (the head's `tag`: how many C points): a reading row looks
/// for its own point among the F points alone, then reads the C points
/// with it in its place, in row order. On 64 ranks of the 100^3
/// Laplacian, level 1's rows hold 3.31 million F points' couplings and
/// 1.08 million C points'. Only the rows `needed` marks are filled (a
/// strong F neighbour's on another rank is the only row ever read: on 2
/// ranks of the 100^3 Laplacian, 12,696 rows and 62,853 entries on level
/// 1, 209,054 with the own rank's F points, where every strong F
/// neighbour's row held 6.0 million entries); the others are left empty.
fn couplings(a: &ParCsr, needed: &[bool], cf: &[i8]) -> FlatRows<ExtEntry> {
    let read = |g: usize| needed[g];
    let sgn = |v: &[f64]| {
        if v.first().is_some_and(|&d| d >= 0.0) {
            1.0
        } else {
            -1.0
        }
    };
    FlatRows::build(
        &a.rows,
        |r| {
            let l = &a.ranks[r];
            (0..l.rows())
                .filter(|&i| read(a.rows[r] + i))
                .map(|i| l.diag.row(i).0.len() + l.offd.row(i).0.len())
                .sum()
        },
        |r, e, heads| {
            let l = &a.ranks[r];
            let first = a.rows[r];
            // A row's F points, before they follow its C points.
            let longest = (0..l.rows()).map(|i| l.offd.row(i).0.len()).max();
            let mut fine = vec![ExtEntry::zeroed(); longest.unwrap_or(0)];
            let mut t = 0;
            for (i, h) in heads.iter_mut().enumerate() {
                let start = t;
                let (dc, dv) = l.diag.row(i);
                if !read(first + i) {
                    *h = Head {
                        start,
                        len: 0,
                        tag: 0,
                    };
                    continue;
                }
                let s = sgn(dv);
                // Each coupling written, the counts advanced by whether it
                // is kept (C point or not is a coin toss for a branch); the
                // room is the row's whole length.
                for (&j, &y) in dc.iter().zip(dv).skip(1) {
                    let g = first + j as usize;
                    e[t] = ExtEntry {
                        col: g as u32,
                        at: 0,
                        val: y,
                    };
                    t += usize::from((s * y < 0.0) & (cf[g] >= 0));
                }
                let (oc, ov) = l.offd.row(i);
                let mut f = 0;
                for (&k, &y) in oc.iter().zip(ov) {
                    let g = l.col_map[k as usize] as usize;
                    let x = ExtEntry {
                        col: g as u32,
                        at: (t - start) as u32,
                        val: y,
                    };
                    let opposite = s * y < 0.0;
                    e[t] = x;
                    fine[f] = x;
                    t += usize::from(opposite & (cf[g] >= 0));
                    f += usize::from(opposite & (cf[g] < 0) & (cf[g] != SF_PT));
                }
                let c = t - start;
                e[t..t + f].copy_from_slice(&fine[..f]);
                t += f;
                *h = Head {
                    start,
                    len: (t - start) as u32,
                    tag: c as u32,
                };
            }
        },
    )
}

/// Every interpolated row's strong C points (an F point's, not `SF_PT`),
/// by global index: `(point, global coarse index)`, its strong diag
/// block's then its strong offd block's, in stored order (hypre's `Sop`
/// for another rank's point, `S` for the rank's own). A row's `C^_i`
/// reads these of each strong F neighbour; read here once, a neighbour's
/// C points no longer cost a lookup of its column, its marker and its
/// coarse index each time a row reaches it.
fn strong_c(a: &ParCsr, s: &[LocalS], sp: &Splitting) -> FlatRows<[u32; 2]> {
    let (cf, coarse_of) = (sp.cf, sp.coarse_of);
    let f = |g: usize| cf[g] < 0 && cf[g] != SF_PT;
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

/// The couplings of a strong F neighbour's [`couplings`] row that count
/// for the row of point `gi` marked `me` (its C^_i and itself: the points
/// whose marks are places), into `hits` in row order; their sum. Of the
/// row's F points only `gi` can count: it is looked for among them, the C
/// points read with it in its place.
#[inline(always)]
fn hits_of(
    (row, c): (&[ExtEntry], u32),
    gi: usize,
    mark: &[u64],
    me: u64,
    hits: &mut Vec<(u32, f64)>,
) -> f64 {
    hits.clear();
    let (cs, fs) = row.split_at(c as usize);
    let mut sum = 0.0;
    let mut take = |x: &ExtEntry| hit(mark, me, x.col as usize, x.val, &mut sum, hits);
    match fs.iter().find(|x| x.col as usize == gi) {
        None => cs.iter().for_each(&mut take),
        Some(own) => {
            let (before, after) = cs.split_at(own.at as usize);
            before.iter().for_each(&mut take);
            take(own);
            after.iter().for_each(&mut take);
        }
    }
    sum
}

/// A neighbour's coupling `y` to point `g`: one of `hits` (added to their
/// `sum`) when `g`'s mark is a place in the row marked `me`.
#[inline(always)]
fn hit(mark: &[u64], me: u64, g: usize, y: f64, sum: &mut f64, hits: &mut Vec<(u32, f64)>) {
    if let Some(p) = place(mark[g], me) {
        *sum += y;
        hits.push((p, y));
    }
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
    let mixed = mixed_signs(a);
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
        row(a, s, sp, (&ext, &sc, mixed), dof, fixed, m, r, i, d, o)
    });
    drop((ext, sc));
    // The offd columns: increasing global coarse index.
    let coarse = sp.coarse;
    Local::with_global_offds(
        blocks,
        |r| coarse[r + 1] - coarse[r],
        coarse[coarse.len() - 1],
    )
}

/// Whether a level's rows couple with both signs off the diagonal (an
/// elasticity operator's do, a Laplacian's hardly), judged on about 4,096
/// rows spread over the ranks: a tenth or more of their off-diagonal
/// entries with the diagonal's sign. Only the speed of [`local_hits`]
/// depends on it (its couplings found 16 at a time where a branch per
/// coupling would often be mispredicted), never the result.
fn mixed_signs(a: &ParCsr) -> bool {
    let rows = a.global_rows();
    let step = (rows / 4096).max(1);
    let (mut same, mut all) = (0usize, 0usize);
    for (r, l) in a.ranks.iter().enumerate() {
        let first = a.rows[r];
        // This rank's sampled rows: the multiples of `step` in its block.
        let from = first.div_ceil(step) * step - first;
        for i in (from..l.rows()).step_by(step) {
            let (_, v) = l.diag.row(i);
            let Some((&d, off)) = v.split_first() else {
                continue;
            };
            let sgn = if d < 0.0 { -1.0 } else { 1.0 };
            let off = off.iter().chain(l.offd.row(i).1);
            for &y in off {
                all += 1;
                same += usize::from(sgn * y > 0.0);
            }
        }
    }
    10 * same >= all && same > 0
}

/// Whether mark `x` is a place in the row of `me` (its high half): not
/// another row's, not [`STRONG_F`].
#[inline(always)]
fn place(x: u64, me: u64) -> Option<u32> {
    let p = x.wrapping_sub(me);
    (p < STRONG_F as u64).then_some(p as u32)
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

/// [`hits_of`] on a row of this rank, read where it is, by the sign rule
/// of the rank's own rows (`sgn` 1 unless the diagonal is negative: the
/// rule of `A_ext` but for a NaN or missing diagonal). Only C points and
/// the row's own point have places in a row. `MIXED` (a level of both
/// signs, [`mixed_signs`]): the couplings of the opposite sign are found
/// 16 at a time; the same hits in the same order.
#[allow(clippy::too_many_arguments)]
fn local_hits<const MIXED: bool>(
    c1: &[u32],
    v1: &[f64],
    oc1: &[u32],
    ov1: &[f64],
    mark: &[u64],
    me: u64,
    first: usize,
    cmap: &[u32],
    hits: &mut Vec<(u32, f64)>,
) -> f64 {
    let sgn = if v1.first().is_some_and(|&d| d < 0.0) {
        -1.0
    } else {
        1.0
    };
    // The couplings that count, for the distribution after.
    hits.clear();
    let mut sum = 0.0;
    let mut visit = |j2: u32, y: f64| hit(mark, me, first + j2 as usize, y, &mut sum, hits);
    let (c1, v1) = (c1.get(1..).unwrap_or(&[]), v1.get(1..).unwrap_or(&[]));
    let mut base = 0;
    if MIXED {
        // Those of the opposite sign found 16 at a time (compares without
        // branches), then taken in row order.
        let mut chunks = v1.chunks_exact(16);
        for ch in &mut chunks {
            let mut m = 0u32;
            for (t, &y) in ch.iter().enumerate() {
                m |= u32::from(sgn * y < 0.0) << t;
            }
            while m != 0 {
                let k = base + m.trailing_zeros() as usize;
                visit(c1[k], v1[k]);
                m &= m - 1;
            }
            base += 16;
        }
    }
    for (&j2, &y) in c1[base..].iter().zip(&v1[base..]) {
        if sgn * y < 0.0 {
            visit(j2, y);
        }
    }
    for (&k2, &y) in oc1.iter().zip(ov1) {
        if sgn * y < 0.0 {
            hit(mark, me, cmap[k2 as usize] as usize, y, &mut sum, hits);
        }
    }
    sum
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
    (ext, sc, mixed): (&FlatRows<ExtEntry>, &FlatRows<[u32; 2]>, bool),
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
    let fine = |g: usize| cf[g] < 0 && cf[g] != SF_PT;
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
            let (c1, v1) = l.diag.row(j as usize);
            let (oc1, ov1) = l.offd.row(j as usize);
            let sum = if mixed {
                local_hits::<true>(c1, v1, oc1, ov1, mark, me, first, cmap, hits)
            } else {
                local_hits::<false>(c1, v1, oc1, ov1, mark, me, first, cmap, hits)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A Laplacian's off-diagonal couplings all have the sign opposite to
    /// the diagonal; elasticity's have both.
    #[test]
    fn mixed_signs_tells_elasticity_from_a_laplacian() {
        assert!(!mixed_signs(&ParCsr::of_spec("gen:poisson3d:12", 3)));
        assert!(mixed_signs(&ParCsr::of_spec("gen:elasticity3d:6", 3)));
    }

    /// The couplings found 16 at a time are those the branch per coupling
    /// finds, in the same order, with the same sum to the bit, on rows of
    /// both signs: every row of an elasticity matrix read for a row `gi`
    /// with places at every third point and at its own point.
    #[test]
    fn both_ways_of_finding_a_neighbours_couplings_agree() {
        let a = ParCsr::of_spec("gen:elasticity3d:6", 2);
        let n = a.global_rows();
        let (l, first) = (&a.ranks[1], a.rows[1]);
        let mut mark = vec![u64::MAX; n];
        let gi = first + 7;
        let me = (gi as u64) << 32;
        for (k, g) in (0..n).step_by(3).enumerate() {
            mark[g] = me | k as u64;
        }
        mark[gi] = me | GI as u64;
        let (mut h1, mut h2) = (Vec::new(), Vec::new());
        let (mut counted, mut own, mut long) = (0, 0, 0);
        for j in 0..l.rows() {
            let (c1, v1) = l.diag.row(j);
            let (oc1, ov1) = l.offd.row(j);
            let cmap = &l.col_map[..];
            let s1 = local_hits::<true>(c1, v1, oc1, ov1, &mark, me, first, cmap, &mut h1);
            let s2 = local_hits::<false>(c1, v1, oc1, ov1, &mark, me, first, cmap, &mut h2);
            assert_eq!(s1.to_bits(), s2.to_bits(), "row {j}");
            assert_eq!(h1.len(), h2.len(), "row {j}");
            for (x, y) in h1.iter().zip(&h2) {
                assert_eq!((x.0, x.1.to_bits()), (y.0, y.1.to_bits()), "row {j}");
            }
            counted += h1.len();
            own += h1.iter().filter(|x| x.0 == GI).count();
            long += usize::from(c1.len() > 32);
        }
        // Rows long enough for the 16-at-a-time path, the row's own point
        // among the couplings found, many couplings in all.
        assert!(
            long > 100 && own > 10 && counted > 1000,
            "{long} {own} {counted}"
        );
    }

    /// A reading row's couplings from an `A_ext` row, its own point found
    /// among the F points apart, are those a scan of the owner's whole row
    /// finds by hypre's rule (opposite sign; of the owner's own columns
    /// the C points), in the same order, with the same sum to the bit:
    /// every row of elasticity on 3 ranks (couplings of both signs), read
    /// for each point of another rank in it, with places at every fourth
    /// C point.
    #[test]
    fn a_rows_own_point_found_apart_keeps_hypres_sum() {
        use crate::amg::hypre::{C_PT, F_PT};
        let a = ParCsr::of_spec("gen:elasticity3d:5", 3);
        let n = a.global_rows();
        let cf: Vec<i8> = (0..n)
            .map(|g| match g % 7 {
                0 | 3 => C_PT,
                5 => SF_PT,
                _ => F_PT,
            })
            .collect();
        let ext = couplings(&a, &vec![true; n], &cf);
        let mut mark = vec![u64::MAX; n];
        let (mut hits, mut want) = (Vec::new(), Vec::new());
        let (mut reads, mut own, mut apart, mut absent) = (0, 0, 0, 0);
        for (r, l) in a.ranks.iter().enumerate() {
            let first = a.rows[r];
            for i in 0..l.rows() {
                let (dc, dv) = l.diag.row(i);
                let (oc, ov) = l.offd.row(i);
                let sgn = if dv[0] >= 0.0 { 1.0 } else { -1.0 };
                // The owner's row as hypre's A_ext keeps it.
                let row: Vec<(usize, f64, bool)> = (dc.iter().zip(dv).skip(1))
                    .map(|(&j, &y)| (first + j as usize, y, true))
                    .chain(
                        oc.iter()
                            .zip(ov)
                            .map(|(&k, &y)| (l.col_map[k as usize] as usize, y, false)),
                    )
                    .filter(|&(_, y, _)| sgn * y < 0.0)
                    .collect();
                let fine: Vec<usize> = (row.iter().filter(|x| !x.2 && cf[x.0] == F_PT))
                    .map(|x| x.0)
                    .collect();
                apart += fine.len();
                // Also an F point of another rank that is not in the row.
                let other = (0..n).find(|&g| {
                    cf[g] == F_PT
                        && (g < first || g >= first + l.rows())
                        && !row.iter().any(|x| x.0 == g)
                });
                absent += usize::from(other.is_some());
                for gi in fine.into_iter().chain(other) {
                    let me = (gi as u64) << 32;
                    for (k, g) in (0..n).filter(|&g| cf[g] == C_PT).step_by(4).enumerate() {
                        mark[g] = me | k as u64;
                    }
                    mark[gi] = me | GI as u64;
                    want.clear();
                    let mut sum = 0.0;
                    for &(g, y, diag) in &row {
                        if let Some(p) = place(mark[g], me) {
                            if !diag || cf[g] >= 0 {
                                sum += y;
                                want.push((p, y));
                            }
                        }
                    }
                    let got = hits_of(ext.row(first + i), gi, &mark, me, &mut hits);
                    assert_eq!(
                        got.to_bits(),
                        sum.to_bits(),
                        "row {}, read for {gi}",
                        first + i
                    );
                    assert_eq!(hits.len(), want.len());
                    for (x, y) in hits.iter().zip(&want) {
                        assert_eq!((x.0, x.1.to_bits()), (y.0, y.1.to_bits()));
                    }
                    reads += 1;
                    own += hits.iter().filter(|x| x.0 == GI).count();
                }
            }
        }
        // Many reads, the reading row's own point among the couplings
        // when it is in the row, F points to look through.
        assert!(
            reads > 1000 && own + absent == reads && absent > 100 && apart > 1000,
            "{reads} {own} {absent} {apart}"
        );
    }
}
