//! `hypre_ParCSRMatrixTruncate` (par_csr_matrix.c, rescaled, infinity
//! norm) with `hypre_qsort2_abs` (utilities/qsort.c), as
//! `hypre_BoomerAMGInterpTruncation` calls it: each row is its diag
//! entries, then its offd ones.

use crate::amg::raw::RawCsr;

/// `hypre_qsort2_abs`: by decreasing `|w|`, hypre's quicksort (middle
/// pivot swapped to the left, Lomuto partition), so ties land where hypre
/// puts them; only as far as places below `keep` go (`isize::MAX`: the
/// whole sort). A part of the range that starts at `keep` or later is
/// left unsorted: the partitions of a quicksort never move an entry
/// across a pivot already placed, so the first `keep` places are what the
/// whole sort leaves there (truncation keeps only those).
pub(crate) fn qsort2_abs(v: &mut [u32], w: &mut [f64], left: isize, right: isize, keep: isize) {
    if left >= right || left >= keep {
        return;
    }
    let swap = |v: &mut [u32], w: &mut [f64], i: usize, j: usize| {
        v.swap(i, j);
        w.swap(i, j);
    };
    swap(v, w, left as usize, ((left + right) / 2) as usize);
    let mut last = left;
    for i in left + 1..=right {
        if w[i as usize].abs() > w[left as usize].abs() {
            last += 1;
            swap(v, w, last as usize, i as usize);
        }
    }
    swap(v, w, left as usize, last as usize);
    qsort2_abs(v, w, left, last - 1, keep);
    qsort2_abs(v, w, last + 1, right, keep);
}

/// Truncates a whole one-block matrix (the generic setup's `P`): drop
/// entries below `trunc_factor` times the row's largest magnitude, then
/// keep the `max_elmts` largest by hypre's sort; a row that lost entries
/// is scaled to keep its sum.
pub(crate) fn truncate(p: &RawCsr, trunc_factor: f64, max_elmts: usize) -> RawCsr {
    RawCsr::from_row_fn(p.nrows, p.ncols, |i, cols, vals| {
        let (c, v) = p.row(i);
        let begin = cols.len();
        cols.extend_from_slice(c);
        vals.extend_from_slice(v);
        let len = truncate_row(
            &mut cols[begin..],
            &mut vals[begin..],
            trunc_factor,
            max_elmts,
        );
        cols.truncate(begin + len);
        vals.truncate(begin + len);
    })
}

/// Whether [`truncate_row`] can change a row of `len` entries: it drops
/// entries only by `trunc_factor`, or beyond `max_elmts`.
#[inline]
pub(crate) fn changes_row(len: usize, trunc_factor: f64, max_elmts: usize) -> bool {
    len > 0 && (trunc_factor > 0.0 || (max_elmts > 0 && len > max_elmts))
}

/// One row, in place: its new length. Entries kept by `trunc_factor`
/// stay in order; those kept by `max_elmts` come in hypre's sorted order.
pub(crate) fn truncate_row(
    cols: &mut [u32],
    vals: &mut [f64],
    trunc_factor: f64,
    max_elmts: usize,
) -> usize {
    let mut len = cols.len();
    if trunc_factor > 0.0 {
        let mut norm = 0.0f64;
        for &x in vals.iter() {
            if norm < x.abs() {
                norm = x.abs();
            }
        }
        let drop = trunc_factor * norm;
        let (mut row_sum, mut scale) = (0.0, 0.0);
        let mut k = 0;
        for t in 0..len {
            row_sum += vals[t];
            if vals[t].abs() >= drop {
                scale += vals[t];
                cols[k] = cols[t];
                vals[k] = vals[t];
                k += 1;
            }
        }
        len = k;
        rescale(&mut vals[..len], row_sum, scale);
    }
    if max_elmts > 0 && len > max_elmts {
        let row_sum = vals[..len].iter().fold(0.0, |s, &x| s + x);
        let keep = max_elmts as isize;
        qsort2_abs(
            &mut cols[..len],
            &mut vals[..len],
            0,
            len as isize - 1,
            keep,
        );
        len = max_elmts;
        let scale = vals[..len].iter().fold(0.0, |s, &x| s + x);
        rescale(&mut vals[..len], row_sum, scale);
    }
    len
}

/// hypre's rescaling of a truncated row: times `row_sum / scale` unless
/// the kept sum is 0 or unchanged.
fn rescale(vals: &mut [f64], row_sum: f64, scale: f64) {
    if scale != 0.0 && scale != row_sum {
        let s = row_sum / scale;
        vals.iter_mut().for_each(|x| *x *= s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_hypres_largest_and_the_row_sum() {
        let p = RawCsr::from_row_fn(1, 4, |_, c, v| {
            c.extend([0, 1, 2, 3]);
            v.extend([0.1, 0.5, -0.1, 0.3]);
        });
        // Two largest: 0.5, 0.3; their sum is the row's 0.8: no scaling.
        let t = truncate(&p, 0.0, 2);
        assert_eq!(t.row(0), (&[1u32, 3][..], &[0.5, 0.3][..]));
        // trunc_factor 0.5 keeps |p| >= 0.25, in stored order.
        assert_eq!(truncate(&p, 0.5, 0).row(0).0, &[1, 3]);
        // Three: hypre's quicksort (pivot (0+3)/2 = 1 first, then 2 for
        // the rest) orders 1, 3, 2, 0: the tie 0.1 / -0.1 keeps column 2;
        // scaled by 0.8 / 0.7.
        let t = truncate(&p, 0.0, 3);
        assert_eq!(t.row(0).0, &[1, 3, 2]);
        let want = [0.5, 0.3, -0.1].map(|x| x * (0.8 / 0.7));
        for (x, w) in t.row(0).1.iter().zip(want) {
            assert!((x - w).abs() < 1e-15, "{x} {w}");
        }
    }

    /// The first `keep` places of the partial sort are the whole sort's,
    /// ties included (rows with repeated magnitudes, as symmetric stencils
    /// give), for every `keep`.
    #[test]
    fn the_partial_sort_places_the_first_entries_as_the_whole_sort() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(12345);
        for _ in 0..2000 {
            let n = rng.gen_range(1..=24);
            // Few distinct magnitudes, either sign: many ties.
            let w: Vec<f64> = (0..n)
                .map(|_| rng.gen_range(1..=5) as f64 * if rng.gen_bool(0.5) { 0.25 } else { -0.25 })
                .collect();
            let v: Vec<u32> = (0..n as u32).collect();
            let (mut vf, mut wf) = (v.clone(), w.clone());
            qsort2_abs(&mut vf, &mut wf, 0, n as isize - 1, isize::MAX);
            for keep in 1..=n {
                let (mut vp, mut wp) = (v.clone(), w.clone());
                qsort2_abs(&mut vp, &mut wp, 0, n as isize - 1, keep as isize);
                assert_eq!(vp[..keep], vf[..keep], "{w:?}, keep {keep}");
                assert_eq!(wp[..keep], wf[..keep]);
            }
        }
    }

    #[test]
    fn qsort2_abs_orders_by_magnitude_and_keeps_pairs() {
        let mut v = vec![0, 1, 2, 3, 4];
        let mut w = vec![0.1, -0.5, 0.3, 0.5, -0.2];
        qsort2_abs(&mut v, &mut w, 0, 4, isize::MAX);
        assert!(w.windows(2).all(|p| p[0].abs() >= p[1].abs()));
        for (&i, &x) in v.iter().zip(&w) {
            assert_eq!(x, [0.1, -0.5, 0.3, 0.5, -0.2][i as usize]);
        }
    }
}
