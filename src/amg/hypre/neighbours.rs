//! A strong F neighbour's row as extended+i reads it for a row
//! (par_lr_interp.c): the couplings that count for the row, those to the
//! points of its `C^_i` and to its own point, of the sign opposite to
//! the neighbour's diagonal, in the neighbour's row order, and their sum.
//! A neighbour of another rank is read from its `A_ext` row ([`couplings`],
//! hypre's filters), one of the row's own rank where it is, as hypre reads
//! `A_diag` and `A_offd` ([`local_hits`], or through its C points'
//! places, [`c_places`], on levels of long rows).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use bytemuck::Zeroable;

use super::parcsr::{FlatRows, Head, ParCsr};
use super::strength::LocalS;
use super::SF_PT;

/// A strong F neighbour of the row (hypre's `strong_f_marker`).
pub(super) const STRONG_F: u32 = u32::MAX;
/// The row's own point: its mark's place, and so its hits'.
pub(super) const GI: u32 = u32::MAX - 1;

/// Whether mark `x` is a place in the row of `me` (its high half): not
/// another row's, not [`STRONG_F`]. A mark holds the row it belongs to
/// (its global index) in its high half, in its low half a place in the
/// row, [`GI`] or [`STRONG_F`] (extended+i's marks).
#[inline(always)]
pub(super) fn place(x: u64, me: u64) -> Option<u32> {
    let p = x.wrapping_sub(me);
    (p < STRONG_F as u64).then_some(p as u32)
}

/// Whether a point's row is interpolated: an F point's, not `SF_PT`'s
/// (whose row of `P` is empty).
#[inline(always)]
pub(super) fn interpolated(marker: i8) -> bool {
    marker < 0 && marker != SF_PT
}

/// Whether an interpolated row (an F point's, not `SF_PT`) of another
/// rank has point `g` as a strong F neighbour, by global index: the rows
/// of [`couplings`] that are read (a rank reads its own points' rows where
/// they are, as hypre does).
pub(super) fn strong_f_neighbours(a: &ParCsr, s: &[LocalS], cf: &[i8]) -> Vec<bool> {
    let f = |g: usize| interpolated(cf[g]);
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
pub(super) struct ExtEntry {
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
pub(super) fn couplings(a: &ParCsr, needed: &[bool], cf: &[i8]) -> FlatRows<ExtEntry> {
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

/// From this many entries a row on average, a level's rows read on
/// their own rank are read through [`c_places`] ([`c_hits`]), below it
/// whole ([`local_hits`]): building the places costs a pass over the
/// rows read, and saves a mark read per F point at each read. Measured
/// per level (one thread): the 100^3 Laplacian's level 1 on one rank
/// (16.8 entries a row) 0.27 s against 0.22 s whole; on 64 ranks (28.8)
/// 0.57-0.61 s against 0.66-0.70 s; elasticity 65 with 3 functions on
/// 2 ranks, levels 1 to 4 (175 to 521) 5-50% faster, level 0 (79, few
/// rows read on their own rank) 5% slower.
pub(super) const LONG_ROWS: f64 = 24.0;

/// Per rank, whether each of its rows is read by a row of its own (a
/// strong F neighbour in `S_diag` of an interpolated row).
pub(super) fn read_on_rank(a: &ParCsr, s: &[LocalS], cf: &[i8]) -> Vec<Vec<bool>> {
    let f = |g: usize| interpolated(cf[g]);
    (a.ranks.par_iter().zip(s).enumerate())
        .map(|(r, (l, sl))| {
            let first = a.rows[r];
            let mut read = vec![false; l.rows()];
            for i in (0..l.rows()).filter(|&i| f(first + i)) {
                for &j in sl.diag.row(i) {
                    if f(first + j as usize) {
                        read[j as usize] = true;
                    }
                }
            }
            read
        })
        .collect()
}

/// The couplings to C points of the sign opposite to the diagonal (the
/// rule of [`local_hits`]) of every row `read` marks, as places
/// in its stored row: diag block from 1 (past the diagonal), then the
/// offd block from the diag block's length; the other rows left empty.
/// Of a row read on its own rank only these and the reading row's own
/// point can count.
pub(super) fn c_places(a: &ParCsr, read: &[Vec<bool>], cf: &[i8]) -> FlatRows<u32> {
    FlatRows::build(
        &a.rows,
        |r| {
            let l = &a.ranks[r];
            (0..l.rows())
                .filter(|&i| read[r][i])
                .map(|i| l.diag.row(i).0.len() + l.offd.row(i).0.len())
                .sum()
        },
        |r, e, heads| {
            let (first, l) = (a.rows[r], &a.ranks[r]);
            let mut t = 0;
            for (i, h) in heads.iter_mut().enumerate() {
                let start = t;
                if read[r][i] {
                    let (dc, dv) = l.diag.row(i);
                    let (oc, ov) = l.offd.row(i);
                    let sgn = local_sign(dv);
                    let nd = dc.len();
                    // Each written, the count advanced by whether it is
                    // kept (no branch on a coin toss).
                    for (p, (&j, &y)) in dc.iter().zip(dv).enumerate().skip(1) {
                        e[t] = p as u32;
                        t += usize::from((sgn * y < 0.0) & (cf[first + j as usize] >= 0));
                    }
                    for (p, (&k, &y)) in oc.iter().zip(ov).enumerate() {
                        e[t] = (nd + p) as u32;
                        let g = l.col_map[k as usize] as usize;
                        t += usize::from((sgn * y < 0.0) & (cf[g] >= 0));
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

/// The sign rule of a rank's own rows: 1 unless the diagonal (the diag
/// block's first entry) is negative (hypre's `A_ext` rule but for a NaN
/// or missing diagonal).
#[inline(always)]
fn local_sign(dv: &[f64]) -> f64 {
    if dv.first().is_some_and(|&d| d < 0.0) {
        -1.0
    } else {
        1.0
    }
}

/// A row of a rank read where it is: its diag block's columns and
/// values (the diagonal first), its offd block's, the rank's first row
/// and its `col_map`.
pub(super) struct LocalRow<'a> {
    pub diag: (&'a [u32], &'a [f64]),
    pub offd: (&'a [u32], &'a [f64]),
    pub first: usize,
    pub cmap: &'a [u32],
}

/// [`hits_of`] on row `j` of this rank read for its row `i`, where it is:
/// its C points' couplings of the sign opposite to its diagonal
/// ([`c_places`]: `at`, their places in the row, diag block then offd
/// block) and its coupling to `i` if of that sign, in row order. `i` is
/// looked for among the diag block's columns 16 at a time (compares
/// without branches), not by a mark read per coupling; it is there at
/// most once (an input's rows have increasing columns, the product's rows
/// each column once).
#[inline(always)]
pub(super) fn c_hits(
    at: &[u32],
    row: &LocalRow,
    i: u32,
    mark: &[u64],
    me: u64,
    hits: &mut Vec<(u32, f64)>,
) -> f64 {
    let ((c1, v1), (oc1, ov1), first, cmap) = (row.diag, row.offd, row.first, row.cmap);
    hits.clear();
    let nd = c1.len();
    let mut sum = 0.0;
    let mut take = |&p: &u32| {
        let p = p as usize;
        let (g, y) = if p < nd {
            (first + c1[p] as usize, v1[p])
        } else {
            (cmap[oc1[p - nd] as usize] as usize, ov1[p - nd])
        };
        hit(mark, me, g, y, &mut sum, hits);
    };
    let own = (c1.get(1..).and_then(|c| find(c, i)))
        .map(|p| p + 1)
        .filter(|&p| local_sign(v1) * v1[p] < 0.0);
    match own {
        None => at.iter().for_each(&mut take),
        Some(p) => {
            let (before, after) = at.split_at(at.partition_point(|&q| (q as usize) < p));
            before.iter().for_each(&mut take);
            take(&(p as u32));
            after.iter().for_each(&mut take);
        }
    }
    sum
}

/// Where `x` first is in `s`: 16 columns compared at a time, without a
/// branch per column.
#[inline(always)]
fn find(s: &[u32], x: u32) -> Option<usize> {
    let mut chunks = s.chunks_exact(16);
    let mut base = 0;
    for ch in &mut chunks {
        let mut m = 0u32;
        for (t, &y) in ch.iter().enumerate() {
            m |= u32::from(y == x) << t;
        }
        if m != 0 {
            return Some(base + m.trailing_zeros() as usize);
        }
        base += 16;
    }
    (chunks.remainder().iter().position(|&y| y == x)).map(|t| base + t)
}

/// The couplings of a strong F neighbour's [`couplings`] row that count
/// for the row of point `gi` marked `me` (its C^_i and itself: the points
/// whose marks are places), into `hits` in row order; their sum. Of the
/// row's F points only `gi` can count: it is looked for among them, the C
/// points read with it in its place.
#[inline(always)]
pub(super) fn hits_of(
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

/// [`hits_of`] on a row of this rank, read where it is, by the sign rule
/// of the rank's own rows ([`local_sign`]): each coupling of the opposite
/// sign whose point has a place (C points of the reading row's `C^_i`,
/// and its own point), in row order. On levels of short rows; [`c_hits`]
/// reads long ones.
#[inline(always)]
pub(super) fn local_hits(row: &LocalRow, mark: &[u64], me: u64, hits: &mut Vec<(u32, f64)>) -> f64 {
    let ((c1, v1), (oc1, ov1), first, cmap) = (row.diag, row.offd, row.first, row.cmap);
    let sgn = local_sign(v1);
    hits.clear();
    let mut sum = 0.0;
    let (c1, v1) = (c1.get(1..).unwrap_or(&[]), v1.get(1..).unwrap_or(&[]));
    for (&j2, &y) in c1.iter().zip(v1) {
        if sgn * y < 0.0 {
            hit(mark, me, first + j2 as usize, y, &mut sum, hits);
        }
    }
    for (&k2, &y) in oc1.iter().zip(ov1) {
        if sgn * y < 0.0 {
            hit(mark, me, cmap[k2 as usize] as usize, y, &mut sum, hits);
        }
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::hypre::{C_PT, F_PT};

    /// A splitting of `n` points: C, F and `SF_PT` points by the point's
    /// index modulo 7.
    fn splitting(n: usize) -> Vec<i8> {
        (0..n)
            .map(|g| match g % 7 {
                0 | 3 => C_PT,
                5 => SF_PT,
                _ => F_PT,
            })
            .collect()
    }

    /// The marks of row `gi`: places at every `step`-th C point, and its
    /// own point; its high half.
    fn mark_row(mark: &mut [u64], cf: &[i8], gi: usize, step: usize) -> u64 {
        let me = (gi as u64) << 32;
        for (k, g) in (0..cf.len())
            .filter(|&g| cf[g] == C_PT)
            .step_by(step)
            .enumerate()
        {
            mark[g] = me | k as u64;
        }
        mark[gi] = me | GI as u64;
        me
    }

    /// A row of the rank read through its C points' places ([`c_hits`])
    /// gives the couplings a read of the whole row ([`local_hits`]) gives,
    /// in the same order, with the same sum to the bit: every F row of a
    /// rank of elasticity (couplings of both signs), read for each F
    /// point of the rank in its diag block and for one not in it, with
    /// places at every third C point (only C points and the reading row's
    /// own point have places).
    #[test]
    fn c_places_give_the_whole_rows_couplings() {
        let a = ParCsr::of_spec("gen:elasticity3d:6", 2);
        let n = a.global_rows();
        let cf = splitting(n);
        let (r, l) = (1, &a.ranks[1]);
        let first = a.rows[r];
        let read: Vec<Vec<bool>> = a.ranks.iter().map(|l| vec![true; l.rows()]).collect();
        let cp = c_places(&a, &read, &cf);
        let cmap = &l.col_map[..];
        let mut mark = vec![u64::MAX; n];
        let (mut h1, mut h2) = (Vec::new(), Vec::new());
        let (mut reads, mut own, mut absent, mut counted) = (0, 0, 0, 0);
        for j in (0..l.rows()).filter(|&j| cf[first + j] == F_PT) {
            let (c1, o1) = (l.diag.row(j), l.offd.row(j));
            let inside: Vec<usize> = (c1.0.iter().skip(1))
                .map(|&q| q as usize)
                .filter(|&q| cf[first + q] == F_PT)
                .collect();
            let other =
                (0..l.rows()).find(|&q| cf[first + q] == F_PT && !c1.0.contains(&(q as u32)));
            absent += usize::from(other.is_some());
            for i in inside.into_iter().chain(other) {
                let gi = first + i;
                let me = mark_row(&mut mark, &cf, gi, 3);
                let row = LocalRow {
                    diag: c1,
                    offd: o1,
                    first,
                    cmap,
                };
                let s1 = c_hits(cp.row(first + j).0, &row, i as u32, &mark, me, &mut h1);
                let s2 = local_hits(&row, &mark, me, &mut h2);
                assert_eq!(s1.to_bits(), s2.to_bits(), "row {j} read for {i}");
                assert_eq!(h1.len(), h2.len(), "row {j} read for {i}");
                for (x, y) in h1.iter().zip(&h2) {
                    assert_eq!((x.0, x.1.to_bits()), (y.0, y.1.to_bits()), "row {j}");
                }
                reads += 1;
                counted += h1.len();
                own += h1.iter().filter(|x| x.0 == GI).count();
            }
        }
        // Many reads, the reading row's own point counted in many (and
        // not in others: a coupling of the diagonal's sign), rows it is
        // not in.
        assert!(
            reads > 1000 && own > 500 && own < reads && absent > 100 && counted > 5000,
            "{reads} {own} {absent} {counted}"
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
        let a = ParCsr::of_spec("gen:elasticity3d:5", 3);
        let n = a.global_rows();
        let cf = splitting(n);
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
                    let me = mark_row(&mut mark, &cf, gi, 4);
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
