//! Interpolation `P` (fine x coarse) from a C/F splitting.
//!
//! - [`direct`]: Ruge-Stueben direct interpolation (Trottenberg et al.,
//!   *Multigrid*, p. 479): weights from strong C neighbours only, positive
//!   and negative couplings scaled separately.
//! - [`classical`]: PyAMG's modified classical interpolation (De Sterck,
//!   Falgout, Nolting and Yang 2008, eq. 9): strong F neighbours `k` are
//!   distributed to the strong C points of `i` through `a_kj`, ignoring
//!   couplings with the sign of `a_kk`; strong F-F pairs without a common C
//!   point are dropped first.
//!
//! - [`extended_i`]: extended+i interpolation (De Sterck, Falgout, Nolting
//!   and Yang 2008; hypre `interp_type 6`): distance-two, through the
//!   strong C points of strong F neighbours.
//! - truncation (`trunc_factor`, `P_max_elmts`) is hypre's own, in `super::hypre`,
//!   keeping each row's sum.
//!
//! `direct` and `classical` follow PyAMG's operation order (see `raw`), so
//! their weights agree bit for bit. C points interpolate by injection.

use super::coarsen::Splitting;
use super::raw::RawCsr;
use super::strength::Functions;

/// PyAMG's `C.multiply(A)` after `C.data[:] = 1`: the strength pattern `c`
/// with the values of `a`, plus, as SciPy's
/// element-wise product gives `0 * a_ij = NaN` for a non-finite `a_ij`
/// outside the pattern, those columns with value NaN. Order: by column when
/// `a` is canonical (SciPy's merge); otherwise SciPy's general product walks
/// a linked list: `a`-only columns in reverse `a` order, then the pattern's
/// columns in reverse order.
fn strong_with_values(a: &RawCsr, c: &RawCsr) -> RawCsr {
    let canonical = a.is_canonical();
    RawCsr::from_row_fn(c.nrows, c.ncols, |i, cols, vals| {
        let (cj, cv) = c.row(i);
        let mut row: Vec<(u32, f64)> = cj
            .iter()
            .zip(cv)
            .filter(|&(_, &x)| x != 0.0)
            .map(|(&j, &x)| (j, x))
            .collect();
        let kept = row.len();
        let (aj, ax) = a.row(i);
        for (&j, &x) in aj.iter().zip(ax) {
            if !x.is_finite() && !row[..kept].iter().any(|e| e.0 == j) {
                row.push((j, f64::NAN));
            }
        }
        if canonical {
            row.sort_unstable_by_key(|e| e.0);
        } else {
            row[..kept].reverse();
            row[kept..].reverse();
            row.rotate_left(kept);
        }
        for (j, x) in row {
            cols.push(j);
            vals.push(x);
        }
    })
}

/// Coarse index of every point (valid for C points) and the coarse count.
pub fn coarse_index(splitting: &Splitting) -> (Vec<u32>, usize) {
    let mut map = Vec::with_capacity(splitting.len());
    let mut nc = 0u32;
    for &is_c in splitting {
        map.push(nc);
        nc += u32::from(is_c);
    }
    (map, nc as usize)
}

/// Direct interpolation. `c`: strength (with diagonal, values of `a`).
pub fn direct(a: &RawCsr, c: &RawCsr, splitting: &Splitting) -> RawCsr {
    let s = strong_with_values(a, c);
    let (map, nc) = coarse_index(splitting);
    RawCsr::from_row_fn(a.nrows, nc, |i, cols, vals| {
        if splitting[i] {
            cols.push(map[i]);
            vals.push(1.0);
            return;
        }
        let (sj, sx) = s.row(i);
        let strong_c = |k: usize| splitting[sj[k] as usize] && sj[k] as usize != i;
        let (mut strong_pos, mut strong_neg) = (0.0, 0.0);
        for k in 0..sj.len() {
            if strong_c(k) {
                if sx[k] < 0.0 {
                    strong_neg += sx[k];
                } else {
                    strong_pos += sx[k];
                }
            }
        }
        let (mut all_pos, mut all_neg, mut diag) = (0.0, 0.0, 0.0);
        let (aj, ax) = a.row(i);
        for (&j, &x) in aj.iter().zip(ax) {
            if j as usize == i {
                diag += x;
            } else if x < 0.0 {
                all_neg += x;
            } else {
                all_pos += x;
            }
        }
        let alpha = all_neg / strong_neg;
        let mut beta = all_pos / strong_pos;
        if strong_pos == 0.0 {
            diag += all_pos;
            beta = 0.0;
        }
        let (neg_coeff, pos_coeff) = (-alpha / diag, -beta / diag);
        for k in 0..sj.len() {
            if strong_c(k) {
                cols.push(map[sj[k] as usize]);
                vals.push(if sx[k] < 0.0 {
                    neg_coeff * sx[k]
                } else {
                    pos_coeff * sx[k]
                });
            }
        }
    })
}

/// PyAMG's sign test: zero counts as positive.
#[inline]
fn signof(x: f64) -> i8 {
    if x < 0.0 {
        -1
    } else {
        1
    }
}

/// PyAMG's `remove_strong_FF_connections`: for an F point `i`, a strong
/// F neighbour `j` (the diagonal included, as there) stays strong only if
/// `i` and `j` share a strong C point. Linear per row: `i`'s C points are
/// marked once, then each `j`'s row is scanned.
fn remove_strong_ff(c: &RawCsr, splitting: &Splitting) -> RawCsr {
    RawCsr::from_row_fn_with(
        c.nrows,
        c.ncols,
        || vec![false; c.ncols],
        |marked, i, cols, vals| {
            let (ci, cx) = c.row(i);
            if !splitting[i] {
                for &k in ci {
                    marked[k as usize] = splitting[k as usize];
                }
            }
            for (&j, &x) in ci.iter().zip(cx) {
                let keep = splitting[i]
                    || splitting[j as usize]
                    || c.row(j as usize).0.iter().any(|&k| marked[k as usize]);
                if keep {
                    cols.push(j);
                    vals.push(x);
                }
            }
            if !splitting[i] {
                for &k in ci {
                    marked[k as usize] = false;
                }
            }
        },
    )
}

/// Modified classical interpolation. `c`: strength (with diagonal, values of `a`).
pub fn classical(a: &RawCsr, c: &RawCsr, splitting: &Splitting) -> RawCsr {
    let s = strong_with_values(a, &remove_strong_ff(c, splitting));
    let (map, nc) = coarse_index(splitting);
    // Per task: row k of `a` scattered densely. An absent entry reads 0,
    // which is what PyAMG's search leaves in its place.
    RawCsr::from_row_fn_with(
        a.nrows,
        nc,
        || (vec![0f64; a.ncols], Vec::<f64>::new()),
        |(dense, a_kj), i, cols, vals| {
            if splitting[i] {
                cols.push(map[i]);
                vals.push(1.0);
                return;
            }
            let (sj, sx) = s.row(i);
            let mut denominator = 0.0;
            for &x in a.row(i).1 {
                denominator += x;
            }
            for (&j, &x) in sj.iter().zip(sx) {
                if j as usize != i {
                    denominator -= x;
                }
            }
            let strong_c: Vec<usize> = (0..sj.len())
                .filter(|&jj| splitting[sj[jj] as usize])
                .collect();
            // Strong F neighbours k: (position in the row, inner denominator
            // sum_{l strong C of i, sign(a_kl) != sign(a_kk)} a_kl), and
            // a_kj for every strong C point j (zeroed when its sign is that
            // of a_kk).
            let mut f_neighbours: Vec<(usize, f64)> = Vec::new();
            a_kj.clear();
            for kk in 0..sj.len() {
                let k = sj[kk] as usize;
                if splitting[k] || k == i {
                    continue;
                }
                let (kj, kx) = a.row(k);
                for (&col, &x) in kj.iter().zip(kx) {
                    dense[col as usize] = x;
                }
                let sign_kk = signof(dense[k]);
                let mut inner = 0.0;
                for &jj in &strong_c {
                    let a_kl = dense[sj[jj] as usize];
                    // An absent a_kl reads 0.0: adding it changes nothing.
                    if signof(a_kl) != sign_kk {
                        inner += a_kl;
                    }
                    a_kj.push(if signof(a_kl) == sign_kk { 0.0 } else { a_kl });
                }
                for &col in kj {
                    dense[col as usize] = 0.0;
                }
                f_neighbours.push((kk, inner));
            }
            let nc_i = strong_c.len();
            for (t, &jj) in strong_c.iter().enumerate() {
                let mut numerator = sx[jj];
                for (f, &(kk, inner)) in f_neighbours.iter().enumerate() {
                    let a_ik = sx[kk];
                    let a_kj = a_kj[f * nc_i + t];
                    if a_kj.abs() > 1e-15 * a_ik.abs() {
                        numerator += a_ik * a_kj / inner;
                    }
                }
                cols.push(map[sj[jj] as usize]);
                vals.push(-numerator / denominator);
            }
        },
    )
}

/// Extended+i interpolation (hypre's `BuildExtPIInterp` in serial). For an
/// F point `i` with strong C points `C_i` and strong F points `F_i`, the
/// interpolatory set is `C^_i = C_i + union of C_k for k in F_i`; with
/// `a~_kl = a_kl` when its sign is opposite to `a_kk` (else 0):
///
/// `w_ij = -(a_ij + sum_{k in F_i} a_ik a~_kj / d_k) / (a_ii + sum_{k in F_i} a_ik a~_ki / d_k + sum_{weak n not in C^_i} a_in)`
///
/// with `d_k = sum_{l in C^_i or l = i} a~_kl`; a strong F neighbour with
/// `d_k = 0` is lumped into the diagonal. With `num_functions > 1`, weak
/// couplings to other functions are dropped (hypre's unknown approach).
pub(crate) fn extended_i(
    a: &RawCsr,
    c: &RawCsr,
    splitting: &Splitting,
    functions: Functions,
) -> RawCsr {
    let (map, nc) = coarse_index(splitting);
    // Per task: position of a column in the current row of P (or MAX),
    // and whether a column is a strong neighbour of i.
    RawCsr::from_row_fn_with(
        a.nrows,
        nc,
        || (vec![usize::MAX; a.ncols], vec![false; a.ncols]),
        |(pos, strong), i, cols, vals| {
            if splitting[i] {
                cols.push(map[i]);
                vals.push(1.0);
                return;
            }
            let start = cols.len();
            let si = c.row(i).0;
            let mut mark = |j: u32, cols: &mut Vec<u32>, vals: &mut Vec<f64>| {
                if pos[j as usize] == usize::MAX {
                    pos[j as usize] = cols.len();
                    cols.push(j);
                    vals.push(0.0);
                }
            };
            for &j in si {
                strong[j as usize] = true;
                if splitting[j as usize] {
                    mark(j, cols, vals);
                }
            }
            for &k in si {
                if !splitting[k as usize] && k as usize != i {
                    for &l in c.row(k as usize).0 {
                        if splitting[l as usize] {
                            mark(l, cols, vals);
                        }
                    }
                }
            }
            let in_hat = |j: usize| pos[j] != usize::MAX;
            let same_function = |j: usize| functions.same(i, j);
            let (aj, ax) = a.row(i);
            let mut diagonal = 0.0;
            for (&j, &x) in aj.iter().zip(ax) {
                let j = j as usize;
                if j == i {
                    diagonal += x;
                } else if in_hat(j) {
                    vals[pos[j]] += x;
                } else if strong[j] && !splitting[j] {
                    let (kj, kx) = a.row(j);
                    let a_kk: f64 = kj
                        .iter()
                        .zip(kx)
                        .filter(|(&l, _)| l as usize == j)
                        .map(|(_, &v)| v)
                        .sum();
                    let sgn = if a_kk < 0.0 { -1.0 } else { 1.0 };
                    let mut d = 0.0;
                    for (&l, &v) in kj.iter().zip(kx) {
                        let l = l as usize;
                        if (in_hat(l) || l == i) && sgn * v < 0.0 {
                            d += v;
                        }
                    }
                    if d != 0.0 {
                        let distribute = x / d;
                        for (&l, &v) in kj.iter().zip(kx) {
                            let l = l as usize;
                            if sgn * v < 0.0 {
                                if in_hat(l) {
                                    vals[pos[l]] += distribute * v;
                                } else if l == i {
                                    diagonal += distribute * v;
                                }
                            }
                        }
                    } else if same_function(j) {
                        diagonal += x;
                    }
                } else if same_function(j) {
                    diagonal += x;
                }
            }
            for k in start..cols.len() {
                pos[cols[k] as usize] = usize::MAX;
                vals[k] = -vals[k] / diagonal;
                cols[k] = map[cols[k] as usize];
            }
            for &j in si {
                strong[j as usize] = false;
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::strength::{strength, Rule, StrengthOptions};

    fn laplace_1d(n: usize) -> RawCsr {
        crate::amg::raw::test_util::laplace_1d(n, true)
    }

    #[test]
    fn multiply_order_and_non_finite_extras_follow_scipy() {
        // Unsorted a (not canonical): row 0 stores columns 2, 0, 1, 3.
        let a = RawCsr::from_row_fn(4, 4, |i, c, v| {
            if i == 0 {
                c.extend([2, 0, 1, 3]);
                v.extend([-1.0, 4.0, f64::INFINITY, -2.0]);
            } else {
                c.push(i as u32);
                v.push(1.0);
            }
        });
        // Strength pattern of row 0 (a's order): 2, 0, 3 (column 1 left out).
        let c = RawCsr::from_row_fn(4, 4, |i, cc, v| {
            if i == 0 {
                cc.extend([2, 0, 3]);
                v.extend([-1.0, 4.0, -2.0]);
            }
        });
        let s = strong_with_values(&a, &c);
        // a-only non-finite column 1 first (as NaN), then 3, 0, 2.
        assert_eq!(s.row(0).0, &[1, 3, 0, 2]);
        assert!(s.row(0).1[0].is_nan());
        assert_eq!(&s.row(0).1[1..], &[-2.0, 4.0, -1.0]);
    }

    #[test]
    fn extended_i_reaches_through_a_strong_f_neighbour() {
        // Path 0-1-2-3 with C F F C. For point 1: C^ = {0} + C_2 = {0, 3};
        // k = 2 spreads a_12 = -1 over a~_21 = a~_23 = -1 (d_2 = -2):
        // 0.5 * a_23 to column 3 and 0.5 * a_21 to the diagonal, so
        // w_10 = 1 / 1.5 and w_13 = 0.5 / 1.5: linear interpolation.
        let a = laplace_1d(4);
        let o = StrengthOptions {
            rule: Rule::Signed,
            theta: 0.25,
            max_row_sum: 1.0,
            num_functions: 1,
        };
        let c = strength(&a, &o);
        let split = vec![true, false, false, true];
        let p = extended_i(&a, &c, &split, Functions::One);
        assert_eq!(p.ncols, 2);
        let row = |i: usize| {
            let (c, v) = p.row(i);
            let mut r: Vec<(u32, f64)> = c.iter().copied().zip(v.iter().copied()).collect();
            r.sort_by_key(|e| e.0);
            r
        };
        let close = |x: f64, y: f64| (x - y).abs() < 1e-15;
        let r1 = row(1);
        assert_eq!(r1.len(), 2);
        assert!(
            close(r1[0].1, 2.0 / 3.0) && close(r1[1].1, 1.0 / 3.0),
            "{r1:?}"
        );
        let r2 = row(2);
        assert!(
            close(r2[0].1, 1.0 / 3.0) && close(r2[1].1, 2.0 / 3.0),
            "{r2:?}"
        );
        // Direct interpolation only sees the strong C point and scales its
        // weight to keep the row sum: alpha = (-2) / (-1), w = -alpha a_10 / a_11 = 1.
        assert_eq!(direct(&a, &c, &split).row(1).1, &[1.0]);
    }

    #[test]
    fn both_interpolate_linear_functions_in_1d() {
        let a = laplace_1d(7);
        let o = StrengthOptions {
            rule: Rule::Abs,
            theta: 0.25,
            max_row_sum: 1.0,
            num_functions: 1,
        };
        let c = strength(&a, &o);
        let split = vec![false, true, false, true, false, true, false];
        for p in [direct(&a, &c, &split), classical(&a, &c, &split)] {
            assert_eq!(p.ncols, 3);
            // Interior F point 2 between C points 1 and 3: weights 1/2, 1/2.
            assert_eq!(p.row(2).0, &[0, 1]);
            assert_eq!(p.row(2).1, &[0.5, 0.5]);
            // Boundary F point 0: a single C neighbour, weight 1/2 (Dirichlet).
            assert_eq!(p.row(0).1, &[0.5]);
            assert_eq!(p.row(1), (&[0u32][..], &[1.0][..]));
        }
    }
}
