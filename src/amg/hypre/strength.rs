//! `hypre_BoomerAMGCreateSHost` (par_strength.c) on each rank.

use rayon::prelude::*;

use super::parcsr::{Local, ParCsr, Pattern};
use crate::amg::strength::{self, Functions, Rule, StrengthOptions};

/// A rank's strength matrix: the points each row strongly depends on, in
/// the order of `A`'s row (diagonal left out); `offd` indexes `A`'s
/// `col_map`, as hypre's `S` shares `A`'s columns.
#[derive(Clone, Debug)]
pub(crate) struct LocalS {
    pub diag: Pattern,
    pub offd: Pattern,
}

impl LocalS {
    /// Strong connections of row `i`, both blocks.
    pub fn len(&self, i: usize) -> usize {
        self.diag.len(i) + self.offd.len(i)
    }
}

/// Each row's function (hypre's `dof_func`) by global row, or none.
pub(crate) type Dof<'a> = Option<&'a [u8]>;

/// hypre's signed rule on one rank: for a positive diagonal, `j` is
/// strong when `a_ij < theta min_k a_ik` (the minimum started at 0), for
/// a negative one when `a_ij > theta max_k a_ik`; strictly, over the same
/// function only; no strong connection at all when `|sum_j a_ij| >
/// max_row_sum |a_ii|` (for `max_row_sum < 1`). The diagonal is the row's
/// first entry; diag entries come before offd ones in every sum.
pub(crate) fn create_s(l: &Local, first: usize, theta: f64, max_row_sum: f64, dof: Dof) -> LocalS {
    let n = l.rows();
    let same_d = |i: usize, j: u32| dof.is_none_or(|d| d[first + i] == d[first + j as usize]);
    let same_o =
        |i: usize, k: u32| dof.is_none_or(|d| d[first + i] == d[l.col_map[k as usize] as usize]);
    // Per row: the threshold and the diagonal's sign, or none.
    let rule = |i: usize| -> Option<(f64, bool)> {
        let (dc, dv) = l.diag.row(i);
        let (oc, ov) = l.offd.row(i);
        let diag = *dv.first()?;
        let neg = diag < 0.0;
        let (mut row_scale, mut row_sum) = (0.0f64, diag);
        let mut take = |x: f64| {
            row_scale = if neg {
                hypre_max(row_scale, x)
            } else {
                hypre_min(row_scale, x)
            };
            row_sum += x;
        };
        let d = dc.iter().zip(dv).skip(1).filter(|e| same_d(i, *e.0));
        d.for_each(|(_, &x)| take(x));
        let o = oc.iter().zip(ov).filter(|e| same_o(i, *e.0));
        o.for_each(|(_, &x)| take(x));
        if row_sum.abs() > diag.abs() * max_row_sum && max_row_sum < 1.0 {
            return None;
        }
        Some((theta * row_scale, neg))
    };
    let strong = |x: f64, (t, neg): (f64, bool)| if neg { x > t } else { x < t };
    // One pass: each row's strong entries picked while its entries are
    // still in cache from finding its threshold (three passes over the
    // rank's rows read them from memory three times).
    let pattern = |cap: usize| Pattern {
        indptr: Vec::with_capacity(n + 1),
        indices: Vec::with_capacity(cap),
    };
    let (mut diag, mut offd) = (
        pattern(l.diag.nnz().saturating_sub(n)),
        pattern(l.offd.nnz()),
    );
    diag.indptr.push(0);
    offd.indptr.push(0);
    // A row's strong entries are written to `buf` whether or not they
    // are strong, the count advanced by whether they are (on a coarse
    // level, strong or weak is a coin toss for a branch), then copied.
    let mut buf: Vec<u32> = Vec::new();
    for i in 0..n {
        if let Some(r) = rule(i) {
            let (dc, dv) = l.diag.row(i);
            let (oc, ov) = l.offd.row(i);
            buf.resize(buf.len().max(dc.len().max(oc.len())), 0);
            let mut t = 0;
            for (&j, &x) in dc.iter().zip(dv).skip(1) {
                buf[t] = j;
                t += usize::from(strong(x, r) & same_d(i, j));
            }
            diag.indices.extend_from_slice(&buf[..t]);
            t = 0;
            for (&k, &x) in oc.iter().zip(ov) {
                buf[t] = k;
                t += usize::from(strong(x, r) & same_o(i, k));
            }
            offd.indices.extend_from_slice(&buf[..t]);
        }
        diag.indptr.push(diag.indices.len());
        offd.indptr.push(offd.indices.len());
    }
    LocalS { diag, offd }
}

/// hypre_max and hypre_min: `a < b ? b : a` and `a < b ? a : b`.
#[inline]
pub(crate) fn hypre_max(a: f64, b: f64) -> f64 {
    if a < b {
        b
    } else {
        a
    }
}

#[inline]
pub(crate) fn hypre_min(a: f64, b: f64) -> f64 {
    if a < b {
        a
    } else {
        b
    }
}

/// The strength matrix of every rank: hypre's rule, or another rule of
/// [`strength`] applied to each row as hypre stores it (diag block then
/// offd block, global columns), its strong entries kept in that order.
pub(crate) fn of(a: &ParCsr, o: &StrengthOptions, dof: Dof) -> Vec<LocalS> {
    if o.rule == Rule::Signed {
        return a
            .ranks
            .par_iter()
            .enumerate()
            .map(|(r, l)| create_s(l, a.rows[r], o.theta, o.max_row_sum, dof))
            .collect();
    }
    // |a_ii| of every row, for the symmetric rule.
    let diags: Vec<f64> = if o.rule == Rule::Symmetric {
        a.ranks
            .iter()
            .flat_map(|l| {
                (0..l.rows()).map(move |i| {
                    let (c, v) = l.diag.row(i);
                    crate::amg::strength::abs_diagonal(i, c, v)
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    let functions = match dof {
        Some(d) => Functions::Listed(d),
        None => Functions::One,
    };
    a.ranks
        .par_iter()
        .enumerate()
        .map(|(r, l)| {
            let first = a.rows[r];
            let n = l.rows();
            let (mut diag, mut offd) = (Vec::with_capacity(n), Vec::with_capacity(n));
            let (mut row_c, mut row_v) = (Vec::new(), Vec::new());
            let (mut cols, mut vals) = (Vec::new(), Vec::new());
            for i in 0..n {
                let (dc, dv) = l.diag.row(i);
                let (oc, ov) = l.offd.row(i);
                row_c.clear();
                row_v.clear();
                row_c.extend(dc.iter().map(|&j| (first + j as usize) as u32));
                row_c.extend(oc.iter().map(|&k| l.col_map[k as usize]));
                row_v.extend_from_slice(dv);
                row_v.extend_from_slice(ov);
                cols.clear();
                vals.clear();
                let f = first + i;
                strength::strong_row(
                    f, &row_c, &row_v, o, functions, &diags, &mut cols, &mut vals,
                );
                // The strong entries are a subsequence of the row: walk both.
                let mut t = 0;
                let (mut d, mut e) = (Vec::new(), Vec::new());
                for (k, &g) in row_c.iter().enumerate() {
                    if t < cols.len() && cols[t] == g {
                        t += 1;
                        if k >= dc.len() {
                            e.push(oc[k - dc.len()]);
                        } else if g as usize != f {
                            d.push(dc[k]);
                        }
                    }
                }
                diag.push(d);
                offd.push(e);
            }
            LocalS {
                diag: Pattern::from_rows(n, |i, c| c.extend_from_slice(&diag[i])),
                offd: Pattern::from_rows(n, |i, c| c.extend_from_slice(&offd[i])),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::raw::test_util::from_lists;

    #[test]
    fn create_s_is_the_signed_rule_in_stored_order() {
        // The generic signed rule (amg::strength) by a second path: the
        // same strong set, here in hypre's order (diagonal first), split
        // over two ranks (rows 0-1, 2-3).
        let a = from_lists(
            4,
            &[
                &[(0, 4.0), (1, -2.0), (2, 1.9), (3, -0.5)],
                &[(0, 1.0), (1, -3.0), (2, 0.75), (3, 0.7)],
                &[(0, -2.0), (1, -1.99), (2, 4.0)],
                &[(0, -1.0), (2, -1.0), (3, 2.0)],
            ],
        );
        let o = StrengthOptions {
            rule: Rule::Signed,
            theta: 0.25,
            max_row_sum: 0.9,
            num_functions: 1,
        };
        let p = ParCsr::split(&a, &[0, 2, 4]);
        let s = of(&p, &o, None);
        // Row 0: -0.5 is exactly theta x -2: weak. Offd columns index
        // col_map (rank 0: [2, 3]; rank 1: [0, 1]).
        assert_eq!((s[0].diag.row(0), s[0].offd.row(0)), (&[1u32][..], &[][..]));
        // Negative diagonal: strong above 0.25 x max(1, 0.75, 0.7).
        assert_eq!(
            (s[0].diag.row(1), s[0].offd.row(1)),
            (&[0u32][..], &[0u32, 1][..])
        );
        assert_eq!(
            (s[1].diag.row(0), s[1].offd.row(0)),
            (&[][..], &[0u32, 1][..])
        );
        assert_eq!(
            (s[1].diag.row(1), s[1].offd.row(1)),
            (&[0u32][..], &[0u32][..])
        );
        let generic = strength::strength_on(&a, &o, Functions::One);
        for (g, (r, i)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
            let first = p.rows[r];
            let mut ours: Vec<u32> = (s[r]
                .diag
                .row(i)
                .iter()
                .map(|&j| (first + j as usize) as u32))
            .chain(
                s[r].offd
                    .row(i)
                    .iter()
                    .map(|&k| p.ranks[r].col_map[k as usize]),
            )
            .collect();
            ours.sort_unstable();
            let want: Vec<u32> = generic
                .row(g)
                .0
                .iter()
                .copied()
                .filter(|&j| j as usize != g)
                .collect();
            assert_eq!(ours, want, "row {g}");
        }
        // Another rule by the same path keeps its strong entries.
        let abs = StrengthOptions {
            rule: Rule::Abs,
            ..o
        };
        let s = of(&p, &abs, None);
        assert_eq!(s[0].diag.row(0), &[1]);
        assert_eq!(s[0].offd.row(0), &[0, 1]);
    }
}
