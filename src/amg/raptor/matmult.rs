//! RAPtor 2018's Galerkin product (`util/linalg/par_matmult.cpp` at
//! c00e9d6): `AP = A->mult(P)`, then `Ac = AP->mult_T(P)`, over the ranks'
//! row blocks.
//!
//! - `AP(i, j)`: the sum from 0.0 of `a_ik p_kj` over row `i` of `A` in
//!   RAPtor's stored order ([`for_row`]); kept when `|v| > 1e-16`.
//! - Each rank `s` sums `P(r, i) AP(r, c)` over its fine rows `r` in order:
//!   for a coarse row `i` of its own that is the local part `L`, for one of
//!   another rank a partial sum sent to the owner, kept when
//!   `|v| > 1e-16` (par_matmult.cpp:590).
//! - The owner adds `L`, then the received partial sums, by sender
//!   (`communicate_T` in its package's order: the order messages arrived
//!   in, run to run; here by increasing rank, as with the sends sorted);
//!   kept when `|v| > 1e-16`.
//!
//! Sums are of rounded products, without fused multiply-adds, as RAPtor's
//! x86-64 build computes them.

use crate::amg::raw::RawCsr;

/// RAPtor's `zero_tol` (core/types.hpp).
pub(crate) const ZERO_TOL: f64 = 1e-16;

/// The rank of each row of blocks `blocks`.
pub(crate) fn owners(blocks: &[usize]) -> Vec<u32> {
    let mut owner = vec![0u32; *blocks.last().unwrap_or(&0)];
    for (r, w) in blocks.windows(2).enumerate() {
        owner[w[0]..w[1]].fill(r as u32);
    }
    owner
}

/// Row `i` (sorted) of `a` in RAPtor's stored order for the rank owning
/// columns `lo..hi`: the diagonal first (`move_diag`), the rank's other
/// columns, then the other ranks' columns, each increasing (`sort`, and an
/// off-rank column map in increasing order).
#[inline]
pub(crate) fn for_row(a: &RawCsr, i: usize, lo: usize, hi: usize, mut f: impl FnMut(u32, f64)) {
    let (c, v) = a.row(i);
    let first = c.partition_point(|&j| (j as usize) < lo);
    let last = c.partition_point(|&j| (j as usize) < hi);
    let diag = (first..last).find(|&k| c[k] as usize == i);
    if let Some(k) = diag {
        f(c[k], v[k]);
    }
    for k in (first..last).filter(|&k| Some(k) != diag) {
        f(c[k], v[k]);
    }
    for k in (0..first).chain(last..c.len()) {
        f(c[k], v[k]);
    }
}

/// A row being summed over `n` columns: the sums, and the columns touched.
struct Acc {
    sums: Vec<f64>,
    seen: Vec<bool>,
    cols: Vec<u32>,
}

impl Acc {
    fn new(n: usize) -> Acc {
        Acc {
            sums: vec![0.0; n],
            seen: vec![false; n],
            cols: Vec::new(),
        }
    }

    #[inline]
    fn add(&mut self, c: u32, x: f64) {
        let k = c as usize;
        self.sums[k] += x;
        if !self.seen[k] {
            self.seen[k] = true;
            self.cols.push(c);
        }
    }

    /// The row, columns increasing, keeping what `keep` says; cleared.
    fn emit(&mut self, keep: impl Fn(f64) -> bool, cols: &mut Vec<u32>, vals: &mut Vec<f64>) {
        self.cols.sort_unstable();
        for &c in &self.cols {
            let k = c as usize;
            let v = self.sums[k];
            if keep(v) {
                cols.push(c);
                vals.push(v);
            }
            self.sums[k] = 0.0;
            self.seen[k] = false;
        }
        self.cols.clear();
    }
}

/// `|v| > 1e-16`: what RAPtor's products keep (a NaN is dropped).
#[inline]
fn kept(v: f64) -> bool {
    v.abs() > ZERO_TOL
}

/// `A P` as RAPtor forms it; `blocks`: the ranks' rows of `a` (its
/// columns alike).
pub(crate) fn a_times_p(a: &RawCsr, p: &RawCsr, blocks: &[usize]) -> RawCsr {
    let owner = owners(blocks);
    RawCsr::from_row_fn_with(
        a.nrows,
        p.ncols,
        || Acc::new(p.ncols),
        |acc, i, cols, vals| {
            let r = owner[i] as usize;
            for_row(a, i, blocks[r], blocks[r + 1], |k, x| {
                let (pc, pv) = p.row(k as usize);
                for (&j, &y) in pc.iter().zip(pv) {
                    acc.add(j, x * y);
                }
            });
            acc.emit(kept, cols, vals);
        },
    )
}

/// `P^T (A P)` as RAPtor forms it: `ap` = [`a_times_p`], `blocks` the
/// ranks' fine rows, `coarse` their coarse rows. Each coarse row is summed
/// where it is owned, from the column of `P` (its fine rows increasing,
/// so rank by rank): the owner's part, then each other rank's partial sum
/// by increasing rank, those below the tolerance left out.
pub(crate) fn pt_times_ap(p: &RawCsr, ap: &RawCsr, blocks: &[usize], coarse: &[usize]) -> RawCsr {
    let nc = p.ncols;
    let pt = p.transpose();
    let owner = owners(blocks);
    let c_owner = owners(coarse);
    RawCsr::from_row_fn_with(
        nc,
        nc,
        || (Acc::new(nc), Acc::new(nc)),
        |(acc, part), i, cols, vals| {
            let (rows, ps) = pt.row(i);
            // Runs of the column's rows by rank (start, length); the
            // owner's first.
            let own = c_owner[i];
            let mut at = 0;
            let mut order: Vec<(usize, usize)> = Vec::new();
            for run in rows.chunk_by(|&x, &y| owner[x as usize] == owner[y as usize]) {
                order.push((at, run.len()));
                at += run.len();
            }
            order.sort_by_key(|&(at, _)| owner[rows[at] as usize] != own);
            let (mut pc, mut pv) = (Vec::new(), Vec::new());
            for (at, len) in order {
                let mine = owner[rows[at] as usize] == own;
                let sink = if mine { &mut *acc } else { &mut *part };
                for k in at..at + len {
                    let (c, v) = ap.row(rows[k] as usize);
                    let x = ps[k];
                    for (&c, &y) in c.iter().zip(v) {
                        sink.add(c, x * y);
                    }
                }
                if !mine {
                    pc.clear();
                    pv.clear();
                    part.emit(kept, &mut pc, &mut pv);
                    for (&c, &y) in pc.iter().zip(&pv) {
                        acc.add(c, y);
                    }
                }
            }
            acc.emit(kept, cols, vals);
        },
    )
}

/// RAPtor's coarse operator `P^T A P` on the ranks' rows `blocks`, whose
/// coarse rows are `coarse`.
pub(crate) fn galerkin(a: &RawCsr, p: &RawCsr, blocks: &[usize], coarse: &[usize]) -> RawCsr {
    let ap = a_times_p(a, p, blocks);
    pt_times_ap(p, &ap, blocks, coarse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::raw::test_util::{from_lists, laplace_1d};

    #[test]
    fn rows_in_raptors_order() {
        // Row 2 of a 1D Laplacian on 5 points, on a rank owning 2..4: the
        // diagonal, its other column, then column 1.
        let a = laplace_1d(5, true);
        let mut seen = Vec::new();
        for_row(&a, 2, 2, 4, |j, _| seen.push(j));
        assert_eq!(seen, vec![2, 3, 1]);
        seen.clear();
        for_row(&a, 3, 2, 4, |j, _| seen.push(j));
        assert_eq!(seen, vec![3, 2, 4]);
    }

    #[test]
    fn the_product_by_hand_drops_cancellations() {
        // A = 1D Laplacian on 3 points, P linear interpolation from the
        // ends: A P = [[1.5, -0.5], [0, 0], [-0.5, 1.5]]; the middle row
        // cancels and is dropped, P^T (A P) = [[1.5, -0.5], [-0.5, 1.5]],
        // on one rank or with row 2 on a second rank (its partial sums
        // sent to rank 0 for coarse row 0).
        let a = laplace_1d(3, true);
        let p = from_lists(2, &[&[(0, 1.0)], &[(0, 0.5), (1, 0.5)], &[(1, 1.0)]]);
        for (blocks, coarse) in [(vec![0, 3], vec![0, 2]), (vec![0, 2, 3], vec![0, 1, 2])] {
            let ap = a_times_p(&a, &p, &blocks);
            assert_eq!(ap.row(1).0.len(), 0);
            let ac = pt_times_ap(&p, &ap, &blocks, &coarse);
            assert_eq!(ac.indices, vec![0, 1, 0, 1]);
            assert_eq!(ac.data, vec![1.5, -0.5, -0.5, 1.5]);
        }
    }

    #[test]
    fn partial_sums_below_the_tolerance_never_reach_the_owner() {
        // Coarse point 0 from fine rows 0 and 1 (A = I): P^T A P =
        // 0.81e-16 + 0.25e-16, above the tolerance on one rank. With row
        // 1 on rank 1, its 0.25e-16 is dropped before it is sent, and the
        // owner's 0.81e-16 alone is dropped at the end.
        let a = from_lists(2, &[&[(0, 1.0)], &[(1, 1.0)]]);
        let p = from_lists(1, &[&[(0, 0.9e-8)], &[(0, 0.5e-8)]]);
        let one = pt_times_ap(&p, &a_times_p(&a, &p, &[0, 2]), &[0, 2], &[0, 1]);
        assert_eq!(one.data, vec![0.9e-8 * 0.9e-8 + 0.5e-8 * 0.5e-8]);
        let two = pt_times_ap(&p, &a_times_p(&a, &p, &[0, 1, 2]), &[0, 1, 2], &[0, 1, 1]);
        assert!(two.data.is_empty());
    }
}
