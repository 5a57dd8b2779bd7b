//! RAPtor 2018's HMIS (`split_hmis` in `ruge_stuben/par_cf_splitting.cpp`
//! at c00e9d6) on the ranks' row blocks.

use rayon::prelude::*;

use crate::amg::raw::RawCsr;

/// States of RAPtor 2018's splittings (`raptor/ruge_stuben/*cf_splitting.cpp`).
const R_UNDECIDED: i8 = -1;
const R_ISOLATED: i8 = -3;
const R_F: i8 = 0;
const R_C: i8 = 1;
const R_NEW_C: i8 = 2;
const R_NEW_F: i8 = 3;

/// HMIS as RAPtor 2018 runs it on ranks (`split_hmis`): `blocks` are the
/// ranks' row ranges (`blocks[r]..blocks[r+1]`), `random` each row's
/// random part of its PMIS weight.
///
/// 1. A row with no strong connection is isolated (`-3`), the rest
///    undecided (`set_initial_states`).
/// 2. Each rank runs the Ruge-Stueben first pass on its own part of `S`
///    ([`rs_first_pass_raptor`]).
/// 3. Rows with a strong connection to another rank, or on which another
///    rank's row depends, are undecided again (`reset_boundaries`).
/// 4. PMIS (`pmis_main_loop`): weights `random_i + |S^T_i|`; the on-rank
///    dependents of the first pass's C points become F; undecided rows of
///    weight below 1 become F; then rounds: an undecided row whose weight
///    no strong neighbour (either direction) exceeds becomes C, the
///    undecided rows depending on it become F.
///
/// The rounds are computed over the whole matrix at once; as RAPtor's
/// decisions in a round depend only on the states before it, they are the
/// same as its rank-by-rank exchanges.
#[cfg(test)]
pub(crate) fn hmis_raptor(
    s: &RawCsr,
    st: &RawCsr,
    blocks: &[usize],
    random: &[f64],
) -> crate::amg::coarsen::Splitting {
    let state = hmis_states(s, st, blocks, random);
    state.iter().map(|&x| x == R_C).collect()
}

/// [`hmis_raptor`]'s final states: C (1), F (0) or isolated (-3), as the
/// interpolation takes them.
pub(crate) fn hmis_states(s: &RawCsr, st: &RawCsr, blocks: &[usize], random: &[f64]) -> Vec<i8> {
    let n = s.nrows;
    let mut owner = vec![0u32; n];
    for (b, w) in blocks.windows(2).enumerate() {
        owner[w[0]..w[1]].fill(b as u32);
    }
    let mut state: Vec<i8> = (0..n)
        .map(|i| {
            if s.row(i).0.is_empty() {
                R_ISOLATED
            } else {
                R_UNDECIDED
            }
        })
        .collect();
    // 2. The first pass, rank by rank.
    let parts: Vec<(usize, Vec<i8>)> = blocks
        .par_windows(2)
        .map(|w| {
            let (lo, hi) = (w[0], w[1]);
            let mut local = state[lo..hi].to_vec();
            rs_first_pass_raptor(s, lo, hi, &mut local);
            (lo, local)
        })
        .collect();
    for (lo, local) in parts {
        state[lo..lo + local.len()].copy_from_slice(&local);
    }
    // 3. Rank boundaries undecided again.
    let other = |i: usize, js: &[u32]| js.iter().any(|&j| owner[j as usize] != owner[i]);
    for i in 0..n {
        if other(i, s.row(i).0) || other(i, st.row(i).0) {
            state[i] = R_UNDECIDED;
        }
    }
    // 4. PMIS.
    let mut w: Vec<f64> = (0..n)
        .map(|i| random[i] + st.row(i).0.len() as f64)
        .collect();
    for i in 0..n {
        if state[i] == R_C {
            for &r in st.row(i).0 {
                let r = r as usize;
                if owner[r] == owner[i] && state[r] == R_UNDECIDED {
                    state[r] = R_F;
                }
            }
        }
    }
    let mut undecided = Vec::new();
    for i in 0..n {
        if state[i] == R_UNDECIDED && w[i] < 1.0 {
            state[i] = R_F;
            w[i] = 0.0;
        } else if state[i] == R_UNDECIDED {
            undecided.push(i);
        } else {
            w[i] = 0.0;
        }
    }
    while !undecided.is_empty() {
        let weights: &[f64] = &w;
        let chosen: Vec<usize> = undecided
            .par_iter()
            .copied()
            .filter(|&u| {
                let beaten = |js: &[u32]| js.iter().any(|&j| weights[j as usize] > weights[u]);
                !beaten(s.row(u).0) && !beaten(st.row(u).0)
            })
            .collect();
        for &u in &chosen {
            state[u] = R_NEW_C;
        }
        for &u in &chosen {
            for &r in st.row(u).0 {
                if state[r as usize] == R_UNDECIDED {
                    state[r as usize] = R_NEW_F;
                }
            }
        }
        undecided.retain(|&u| match state[u] {
            R_NEW_C => {
                state[u] = R_C;
                w[u] = 0.0;
                false
            }
            R_NEW_F => {
                state[u] = R_F;
                w[u] = 0.0;
                false
            }
            _ => true,
        });
    }
    state
}

/// RAPtor's serial Ruge-Stueben first pass (`rs_first_pass`, "taken from
/// pyamg") on rows `lo..hi` of `s` and their strong connections among
/// themselves, `state` holding those rows' states. Unlike PyAMG's it keeps
/// the caller's states (isolated rows are never picked), does not make
/// zero-measure rows F first, and goes on to the last undecided row, so
/// every undecided row ends C or F.
fn rs_first_pass_raptor(s: &RawCsr, lo: usize, hi: usize, state: &mut [i8]) {
    let n = hi - lo;
    if n == 0 {
        return;
    }
    // The local S, and its transpose with each column's rows increasing.
    let local = |i: usize| {
        s.row(lo + i)
            .0
            .iter()
            .map(|&j| j as usize)
            .filter(|&j| (lo..hi).contains(&j))
            .map(move |j| j - lo)
    };
    let rows: Vec<Vec<usize>> = (0..n).map(|i| local(i).collect()).collect();
    let mut col_ptr = vec![0usize; n + 1];
    for r in &rows {
        for &j in r {
            col_ptr[j + 1] += 1;
        }
    }
    for k in 0..n {
        col_ptr[k + 1] += col_ptr[k];
    }
    let mut fill = col_ptr.clone();
    let mut col_idx = vec![0usize; col_ptr[n]];
    for (i, r) in rows.iter().enumerate() {
        for &j in r {
            col_idx[fill[j]] = i;
            fill[j] += 1;
        }
    }
    let mut weight: Vec<usize> = (0..n).map(|i| col_ptr[i + 1] - col_ptr[i]).collect();
    // Buckets of equal weight, as RAPtor lays them out.
    let mut sizes = vec![0usize; n + 1];
    for &x in &weight {
        sizes[x] += 1;
    }
    let mut ptr = vec![0usize; n + 2];
    for k in 0..n {
        ptr[k + 1] = ptr[k] + sizes[k];
        sizes[k] = 0;
    }
    let mut idx_to_col = vec![0usize; n];
    let mut col_to_idx = vec![0usize; n];
    for i in 0..n {
        let x = weight[i];
        let idx = ptr[x] + sizes[x];
        sizes[x] += 1;
        idx_to_col[idx] = i;
        col_to_idx[i] = idx;
    }
    let swap = |idx_to_col: &mut Vec<usize>, col_to_idx: &mut Vec<usize>, a: usize, b: usize| {
        col_to_idx[idx_to_col[a]] = b;
        col_to_idx[idx_to_col[b]] = a;
        idx_to_col.swap(a, b);
    };
    for top in (0..n).rev() {
        let col = idx_to_col[top];
        sizes[weight[col]] -= 1;
        if state[col] != R_UNDECIDED {
            continue;
        }
        state[col] = R_C;
        for &r in &col_idx[col_ptr[col]..col_ptr[col + 1]] {
            if state[r] != R_UNDECIDED {
                continue;
            }
            state[r] = R_F;
            for &k in &rows[r] {
                if state[k] != R_UNDECIDED {
                    continue;
                }
                let wk = weight[k];
                if wk >= n - 1 {
                    continue;
                }
                // To the end of its bucket, then into the next one.
                let old = col_to_idx[k];
                let new = ptr[wk] + sizes[wk] - 1;
                swap(&mut idx_to_col, &mut col_to_idx, old, new);
                sizes[wk] -= 1;
                sizes[wk + 1] += 1;
                ptr[wk + 1] = new;
                weight[k] += 1;
            }
        }
        for &j in &rows[col] {
            if state[j] != R_UNDECIDED || weight[j] == 0 {
                continue;
            }
            let wj = weight[j];
            // To the start of its bucket, then into the previous one.
            let old = col_to_idx[j];
            let new = ptr[wj];
            swap(&mut idx_to_col, &mut col_to_idx, old, new);
            sizes[wj] -= 1;
            sizes[wj - 1] += 1;
            ptr[wj] += 1;
            ptr[wj - 1] = ptr[wj] - sizes[wj - 1];
            weight[j] -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::coarsen::rs;

    fn path(n: usize) -> RawCsr {
        crate::amg::raw::test_util::laplace_1d(n, false)
    }

    use crate::amg::raw::test_util::grid;

    #[test]
    fn hmis_raptor_by_hand_on_two_ranks() {
        // A path of 6 points, rank 0 owns 0..2, rank 1 owns 2..6.
        // RS in rank 0: [F, C]; in rank 1 (points 2..5, measures 1 2 2 1):
        // 4 goes first (last of the top bucket) and makes 3 and 5 F, which
        // lifts 2 to measure 2; then 2 is C: [C, F, C, F]. Points 1 and 2
        // touch the other rank: undecided again. Weights random + |S^T|:
        // 2.2 and 2.3, so 2 beats 1 and 1 becomes F. Point 0 keeps the F
        // of the first pass without a C neighbour, as in RAPtor.
        let s = path(6);
        let st = s.transpose();
        let random = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
        let split = hmis_raptor(&s, &st, &[0, 2, 6], &random);
        assert_eq!(split, [false, false, true, false, true, false]);
        // Reversed random parts: 1 (2.5) beats 2 (2.4).
        let random = [0.6, 0.5, 0.4, 0.3, 0.2, 0.1];
        let split = hmis_raptor(&s, &st, &[0, 2, 6], &random);
        assert_eq!(split, [false, true, false, false, true, false]);
        // Ranks of equal halves: both first passes give [F, C, F] and the
        // boundary points 2 and 3 then depend on those C points.
        let split = hmis_raptor(&s, &st, &[0, 3, 6], &random);
        assert_eq!(split, [false, true, false, false, true, false]);
    }

    #[test]
    fn hmis_raptor_on_one_rank_is_the_first_pass() {
        // Every point has a strong neighbour and there is no rank boundary:
        // RAPtor's first pass decides all, with PyAMG's choices (same
        // buckets and order).
        let s = grid(9);
        let st = s.transpose();
        let split = hmis_raptor(&s, &st, &[0, 81], &[0.5; 81]);
        assert_eq!(split, rs(&s, &st, false));
        // An isolated point (no strong connection) stays F.
        let lone = RawCsr::from_row_fn(3, 3, |i, c, v| {
            if i == 1 {
                c.push(2);
                v.push(-1.0);
            } else if i == 2 {
                c.push(1);
                v.push(-1.0);
            }
        });
        let split = hmis_raptor(&lone, &lone.transpose(), &[0, 3], &[0.0; 3]);
        assert!(!split[0]);
        assert_eq!(split.iter().filter(|&&c| c).count(), 1);
    }
}
