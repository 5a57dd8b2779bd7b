//! Strength of connection (Ruge and Stueben 1987; Stueben 2001, sec. A.4).
//!
//! Two classical rules:
//! - `abs` (PyAMG's `classical_strength_of_connection`, norm 'abs'):
//!   `j != i` is strong if `|a_ij| >= theta * max_{k != i} |a_ik|`;
//! - `signed` (hypre BoomerAMG, RAPtor): `-s a_ij >= theta * max_{k != i}
//!   (-s a_ik)` with `s` the sign of `a_ii`, only if that maximum is
//!   positive; rows whose `|sum_j a_ij| > max_row_sum |a_ii|` have no strong
//!   connections (hypre's `max_row_sum`, off at 1.0);
//! - `symmetric` (PyAMG's `symmetric_strength_of_connection`):
//!   `|a_ij|^2 >= theta^2 |a_ii| |a_jj|`, a symmetric relation.
//!
//! - `raptor` (RAPtor 2018, `raptor/par_strength.cpp`,
//!   `classical_strength`): for `a_ii > 0`, `a_ij < theta * min_{k != i}
//!   a_ik` (strictly; mirrored for `a_ii < 0`), the minimum started at
//!   `RAND_MAX` and taken over the same unknown's off-diagonals, no row-sum
//!   test (a row whose couplings are all positive has none strong).
//!
//! With `num_functions > 1` only couplings between unknowns of the same
//! function are considered, as hypre's and RAPtor's unknown-based systems
//! AMG do: on the finest level function `i % num_functions`, on coarser
//! ones the function of the C point each row came from (`Functions`).
//!
//! The result keeps `A`'s row order and values, and stores the diagonal as
//! PyAMG's `C` does; [`strength_graph`] gives the graph the splittings
//! work on.

use rayon::prelude::*;

use super::raw::RawCsr;
use crate::matrix::Csr;

/// When `a_ij` is a strong connection of row `i`.
#[derive(Clone, Copy, Debug, PartialEq, clap::ValueEnum)]
pub enum Rule {
    /// PyAMG's classical: `|a_ij| >= theta max_k |a_ik|`.
    Abs,
    /// hypre's: `-a_ij > theta max_k(-a_ik)` (sign of the diagonal taken
    /// into account; strictly, as `hypre_BoomerAMGCreateS`), with
    /// `max_row_sum`.
    Signed,
    /// PyAMG's symmetric: `|a_ij|^2 >= theta^2 |a_ii a_jj|`.
    Symmetric,
    /// RAPtor 2018's classical: `a_ij < theta min_k a_ik` for `a_ii > 0`
    /// (mirrored for `a_ii < 0`), strictly, no row-sum test.
    Raptor,
}

/// Which unknown (function) each row of a level is, for the unknown
/// approach to systems: `i % k` on the finest level, the C points'
/// functions on the coarser ones (hypre's `dof_func`, RAPtor's
/// `variables`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Functions<'a> {
    /// One function: every coupling counts.
    One,
    /// Row `i` is function `i % k`.
    Modulo(usize),
    /// Row `i` is function `f[i]`.
    Listed(&'a [u8]),
}

impl Functions<'_> {
    /// Whether rows `i` and `j` are the same function.
    #[inline]
    pub(crate) fn same(&self, i: usize, j: usize) -> bool {
        match *self {
            Functions::One => true,
            Functions::Modulo(k) => i % k == j % k,
            Functions::Listed(f) => f[i] == f[j],
        }
    }

    /// The functions of the finest level: `i % num_functions`.
    pub(crate) fn finest(num_functions: usize) -> Functions<'static> {
        if num_functions <= 1 {
            Functions::One
        } else {
            Functions::Modulo(num_functions)
        }
    }

    /// Each row's function as a list (`rows` rows).
    pub(crate) fn to_vec(self, rows: usize) -> Vec<u8> {
        match self {
            Functions::One => vec![0; rows],
            Functions::Modulo(k) => (0..rows).map(|i| (i % k) as u8).collect(),
            Functions::Listed(f) => f.to_vec(),
        }
    }
}

/// The strength-of-connection settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrengthOptions {
    /// The test.
    pub rule: Rule,
    /// The threshold theta.
    pub theta: f64,
    /// hypre's `max_row_sum`; 1.0 (or more) switches the test off.
    pub max_row_sum: f64,
    /// Unknowns per node: only couplings `i % k == j % k` count (hypre's
    /// unknown approach for systems).
    pub num_functions: usize,
}

/// The strength graph the coarsenings see on the finest level: strong
/// connections of `a` without the diagonal, rows sorted, values of `a`.
pub fn strength_graph(a: &Csr, o: &StrengthOptions) -> Csr {
    without_diagonal_sorted(&strength(&RawCsr::from_csr(a), o)).to_csr()
}

/// [`strength_graph`] on a coarse level, whose rows' unknowns (functions)
/// are `functions`: the finest level's `i % num_functions` carried to each
/// C point.
pub fn strength_graph_on(a: &Csr, o: &StrengthOptions, functions: &[u8]) -> Csr {
    let raw = RawCsr::from_csr(a);
    without_diagonal_sorted(&strength_on(&raw, o, Functions::Listed(functions))).to_csr()
}

/// Strong connections of `a` on the finest level (functions `i %
/// num_functions`): pattern with the diagonal, values of `a`, in `a`'s
/// stored order. Exact zeros are never kept.
pub(crate) fn strength(a: &RawCsr, o: &StrengthOptions) -> RawCsr {
    strength_on(a, o, Functions::finest(o.num_functions))
}

/// [`strength`] with the rows' functions given.
pub(crate) fn strength_on(a: &RawCsr, o: &StrengthOptions, functions: Functions) -> RawCsr {
    // |a_ii| for the symmetric rule (duplicates summed, as PyAMG does).
    let diags: Vec<f64> = if o.rule == Rule::Symmetric {
        (0..a.nrows)
            .into_par_iter()
            .map(|i| {
                let (c, v) = a.row(i);
                abs_diagonal(i, c, v)
            })
            .collect()
    } else {
        Vec::new()
    };
    RawCsr::from_row_fn(a.nrows, a.ncols, |i, cols, vals| {
        let (c, v) = a.row(i);
        strong_row(i, c, v, o, functions, &diags, cols, vals);
    })
}

/// `|a_ii|` of row `i` (its columns `c`, values `v`; duplicates summed),
/// for the symmetric rule.
pub(crate) fn abs_diagonal(i: usize, c: &[u32], v: &[f64]) -> f64 {
    c.iter()
        .zip(v)
        .filter(|&(&j, _)| j as usize == i)
        .map(|(_, &x)| x)
        .sum::<f64>()
        .abs()
}

/// Row `i` of [`strength_on`]: its columns `c` and values `v` (in one
/// index space with `i`, the diagonal included), the strong ones appended
/// to `cols` and `vals` in stored order. `diags`: every row's `|a_jj|`
/// (the symmetric rule's only).
#[allow(clippy::too_many_arguments)]
pub(crate) fn strong_row(
    i: usize,
    c: &[u32],
    v: &[f64],
    o: &StrengthOptions,
    functions: Functions,
    diags: &[f64],
    cols: &mut Vec<u32>,
    vals: &mut Vec<f64>,
) {
    let same_function = |j: u32| functions.same(i, j as usize);
    let threshold = match o.rule {
        Rule::Abs => {
            // PyAMG starts the maximum at the smallest normal double.
            let mut max = f64::MIN_POSITIVE;
            for (&j, &x) in c.iter().zip(v) {
                if j as usize != i && same_function(j) {
                    max = max.max(x.abs());
                }
            }
            Some((o.theta * max, 1.0))
        }
        Rule::Signed => signed_threshold(i, c, v, o, &same_function),
        Rule::Symmetric => Some((o.theta * o.theta * diags[i], 1.0)),
        Rule::Raptor => Some(raptor_threshold(i, c, v, o.theta, &same_function)),
    };
    let start = cols.len();
    for (&j, &x) in c.iter().zip(v) {
        let strong = j as usize == i
            || match (o.rule, threshold) {
                (_, None) => false,
                (Rule::Abs, Some((t, _))) => same_function(j) && x.abs() >= t,
                (Rule::Signed, Some((t, s))) => same_function(j) && -s * x > t,
                (Rule::Symmetric, Some((t, _))) => {
                    same_function(j) && x * x >= t * diags[j as usize]
                }
                // Below the threshold for a positive diagonal, above
                // it for a negative one.
                (Rule::Raptor, Some((t, s))) => same_function(j) && s * x < s * t,
            };
        if strong {
            cols.push(j);
            vals.push(x);
        }
    }
    drop_scaled_zeros(cols, vals, start);
}

/// RAPtor 2018's threshold (`classical_strength`): the diagonal is the
/// row's entry in column `i` (0 if none); for `a_ii >= 0` the smallest
/// same-function off-diagonal, started at `RAND_MAX`, times theta, and
/// `s = 1`; for `a_ii < 0` the largest, started at `-RAND_MAX`, and `s =
/// -1`. Strong: `s a_ij < s t`.
fn raptor_threshold(
    i: usize,
    c: &[u32],
    v: &[f64],
    theta: f64,
    same_function: &dyn Fn(u32) -> bool,
) -> (f64, f64) {
    const RAND_MAX: f64 = 2_147_483_647.0;
    let diag = c
        .iter()
        .zip(v)
        .find(|(&j, _)| j as usize == i)
        .map_or(0.0, |(_, &x)| x);
    let s = if diag < 0.0 { -1.0 } else { 1.0 };
    let mut scale = s * RAND_MAX;
    for (&j, &x) in c.iter().zip(v) {
        if j as usize != i && same_function(j) && s * x < s * scale {
            scale = x;
        }
    }
    (theta * scale, s)
}

/// PyAMG scales each row of `S` by `1 / max |s_ij|` (NaN ignored, the
/// maximum started at the smallest normal double) and then drops entries
/// that became zero: zeros, and every finite entry of a row holding an
/// infinity (NaNs stay). Rows after `start` of `cols`/`vals` are one row.
fn drop_scaled_zeros(cols: &mut Vec<u32>, vals: &mut Vec<f64>, start: usize) {
    let largest = vals[start..]
        .iter()
        .fold(f64::MIN_POSITIVE, |m, &x| m.max(x.abs()));
    let inv = 1.0 / largest;
    let mut w = start;
    for r in start..cols.len() {
        if vals[r].abs() * inv != 0.0 {
            cols[w] = cols[r];
            vals[w] = vals[r];
            w += 1;
        }
    }
    cols.truncate(w);
    vals.truncate(w);
}

/// hypre's rule: `(theta * max_k(-s a_ik), s)`, or `None` when the row has
/// no strong connections (no off-diagonal of the sign opposite to the
/// diagonal, or the row-sum test fails).
fn signed_threshold(
    i: usize,
    c: &[u32],
    v: &[f64],
    o: &StrengthOptions,
    same_function: &dyn Fn(u32) -> bool,
) -> Option<(f64, f64)> {
    let mut diag = 0.0;
    let mut row_sum = 0.0;
    for (&j, &x) in c.iter().zip(v) {
        if j as usize == i {
            diag += x;
        }
        if same_function(j) {
            row_sum += x;
        }
    }
    let s = if diag < 0.0 { -1.0 } else { 1.0 };
    if o.max_row_sum < 1.0 && row_sum.abs() > o.max_row_sum * diag.abs() {
        return None;
    }
    let mut max = f64::NEG_INFINITY;
    for (&j, &x) in c.iter().zip(v) {
        if j as usize != i && same_function(j) {
            max = max.max(-s * x);
        }
    }
    (max > 0.0).then_some((o.theta * max, s))
}

/// The strength graph the splittings use: no diagonal, rows sorted (PyAMG
/// passes `remove_diagonal(S)`, whose `tocsr` sorts).
pub(crate) fn without_diagonal_sorted(s: &RawCsr) -> RawCsr {
    RawCsr::from_row_fn(s.nrows, s.ncols, |i, cols, vals| {
        let (c, v) = s.row(i);
        let start = cols.len();
        for (&j, &x) in c.iter().zip(v) {
            if j as usize != i {
                cols.push(j);
                vals.push(x);
            }
        }
        let mut row: Vec<(u32, f64)> = cols[start..]
            .iter()
            .copied()
            .zip(vals[start..].iter().copied())
            .collect();
        row.sort_unstable_by_key(|e| e.0);
        for (k, (j, x)) in row.into_iter().enumerate() {
            cols[start + k] = j;
            vals[start + k] = x;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row_matrix(rows: &[&[(u32, f64)]]) -> RawCsr {
        crate::amg::raw::test_util::from_lists(4, rows)
    }

    fn opts(rule: Rule, theta: f64) -> StrengthOptions {
        StrengthOptions {
            rule,
            theta,
            max_row_sum: 1.0,
            num_functions: 1,
        }
    }

    #[test]
    fn abs_rule_by_hand() {
        // max off-diagonal |a| = 4, threshold 1: -1 and 2 strong, 0.5 weak, 0 never.
        let a = row_matrix(&[
            &[(3, -1.0), (0, 10.0), (1, 0.5), (2, -4.0)],
            &[(1, 2.0), (0, 0.0), (3, 2.0)],
        ]);
        let s = strength(&a, &opts(Rule::Abs, 0.25));
        assert_eq!(s.row(0).0, &[3, 0, 2]);
        assert_eq!(s.row(0).1, &[-1.0, 10.0, -4.0]);
        assert_eq!(s.row(1).0, &[1, 3]);
        let sd = without_diagonal_sorted(&s);
        assert_eq!(sd.row(0).0, &[2, 3]);
    }

    #[test]
    fn signed_rule_ignores_positive_couplings_and_applies_row_sum() {
        let a = row_matrix(&[
            &[(0, 4.0), (1, -2.0), (2, 1.9), (3, -0.4)],
            &[(1, 4.0), (0, 1.0)],
            &[(2, 4.0), (0, -2.0), (1, -1.99)],
        ]);
        let s = strength(&a, &opts(Rule::Signed, 0.25));
        assert_eq!(s.row(0).0, &[0, 1]); // -2 strong; 1.9 positive; -0.4 < 0.5
        assert_eq!(s.row(1).0, &[1]); // no negative off-diagonal: nothing strong
        assert_eq!(s.row(2).0, &[2, 0, 1]);
        // Row 2 sums to 0.01 <= 0.9 * 4: kept. Row 0 sums to 3.5 <= 3.6: kept.
        let mut o = opts(Rule::Signed, 0.25);
        o.max_row_sum = 0.8; // 3.5 > 0.8 * 4 = 3.2: row 0 loses its connections
        let s = strength(&a, &o);
        assert_eq!(s.row(0).0, &[0]);
        assert_eq!(s.row(2).0, &[2, 0, 1]);
        // Strictly above: -0.25 is exactly theta times -1, so weak.
        let a = row_matrix(&[&[(0, 4.0), (1, -1.0), (2, -0.25)]]);
        assert_eq!(strength(&a, &opts(Rule::Signed, 0.25)).row(0).0, &[0, 1]);
    }

    #[test]
    fn rows_with_an_infinity_keep_only_infinities_and_nans() {
        let a = row_matrix(&[
            &[(0, f64::NAN), (1, -1.0), (2, f64::NEG_INFINITY), (3, 0.0)],
            &[(1, 0.0), (0, -1.0)],
        ]);
        let s = strength(&a, &opts(Rule::Abs, 0.25));
        // threshold = theta * inf: only the infinity is strong; the NaN
        // diagonal survives the scaling, nothing else does.
        assert_eq!(s.row(0).0, &[0, 2]);
        // A zero diagonal is dropped.
        assert_eq!(s.row(1).0, &[0]);
    }

    #[test]
    fn symmetric_rule_by_hand() {
        // |a_01|^2 = 4 >= 0.25 * 4 * 4 = 4: strong; |a_02|^2 = 1 < 0.25 * 4 * 9.
        let a = crate::amg::raw::test_util::from_lists(
            3,
            &[
                &[(0, 4.0), (1, -2.0), (2, 1.0)],
                &[(1, 4.0), (0, -2.0)],
                &[(2, -9.0), (0, 1.0)],
            ],
        );
        let s = strength(&a, &opts(Rule::Symmetric, 0.5));
        assert_eq!(s.row(0).0, &[0, 1]);
        assert_eq!(s.row(1).0, &[1, 0]);
        assert_eq!(s.row(2).0, &[2]);
    }

    #[test]
    fn raptor_rule_by_hand() {
        // Row 0 (diagonal 4): min off-diagonal -2, threshold -1 (theta 0.5):
        // -2 strong, -1 not (strictly below), 0.5 not. Row 1: no negative
        // off-diagonal, min 1, threshold 0.5: nothing is below it. Row 2
        // (negative diagonal): max 3, threshold 1.5: 3 strong. Row 3: only
        // a diagonal.
        let a = row_matrix(&[
            &[(0, 4.0), (1, -2.0), (2, -1.0), (3, 0.5)],
            &[(1, 4.0), (0, 1.0), (2, 2.0)],
            &[(2, -4.0), (0, 3.0), (1, 1.0)],
            &[(3, 1.0)],
        ]);
        let s = strength(&a, &opts(Rule::Raptor, 0.5));
        assert_eq!(s.row(0).0, &[0, 1]);
        assert_eq!(s.row(1).0, &[1]);
        assert_eq!(s.row(2).0, &[2, 0]);
        assert_eq!(s.row(3).0, &[3]);
        // hypre's signed rule is strict too (CreateS: weak when a_ij >=
        // theta min_k a_ik): it also leaves -1 out of row 0.
        assert_eq!(strength(&a, &opts(Rule::Signed, 0.5)).row(0).0, &[0, 1]);
    }

    #[test]
    fn coarse_functions_are_listed_not_modulo() {
        // Row 0 is function 1 (a C point of unknown y, say): only column 2,
        // also function 1, counts.
        let a = row_matrix(&[&[(0, 4.0), (1, -3.0), (2, -1.0)]]);
        let o = opts(Rule::Abs, 0.5);
        let f = [1u8, 0, 1, 0];
        assert_eq!(strength_on(&a, &o, Functions::Listed(&f)).row(0).0, &[0, 2]);
        assert_eq!(Functions::Modulo(3).to_vec(5), [0, 1, 2, 0, 1]);
    }

    #[test]
    fn num_functions_restricts_to_same_unknown() {
        let a = row_matrix(&[&[(0, 4.0), (1, -3.0), (2, -1.0)]]);
        let mut o = opts(Rule::Abs, 0.5);
        assert_eq!(strength(&a, &o).row(0).0, &[0, 1]);
        o.num_functions = 2; // only column 2 shares function 0 with row 0
        assert_eq!(strength(&a, &o).row(0).0, &[0, 2]);
    }
}
