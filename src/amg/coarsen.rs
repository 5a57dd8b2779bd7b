//! C/F splittings of the strength graph `S` (no diagonal, sorted rows;
//! `S_i` = the points `i` strongly depends on, `S^T_i` = the points that
//! strongly depend on `i`).
//!
//! - [`rs`]: classical Ruge-Stueben first pass (Ruge and Stueben 1987;
//!   Trottenberg et al., *Multigrid*, sec. A.7), with the bucket order and
//!   tie-breaking of PyAMG's `rs_cf_splitting`, and the optional second
//!   pass (`rs_cf_splitting_pass2`).

use super::raw::RawCsr;

/// `true` marks a C point.
pub type Splitting = Vec<bool>;

const F: u8 = 0;
const C: u8 = 1;
const U: u8 = 2;
const PRE_F: u8 = 3;

/// Ruge-Stueben coarsening. `s`: strength graph, `st`: its transpose.
///
/// Points are taken in decreasing measure `lambda_i = |S^T_i \cap U| + 2
/// |S^T_i \cap F|` (kept in buckets); among equal measures the point placed
/// last in its bucket goes first, which reproduces PyAMG's choices.
pub fn rs(s: &RawCsr, st: &RawCsr, second_pass: bool) -> Splitting {
    let n = s.nrows;
    let mut lambda: Vec<usize> = (0..n).map(|i| st.indptr[i + 1] - st.indptr[i]).collect();
    let lambda_max = (2 * lambda.iter().copied().max().unwrap_or(0)).max(n + 1);

    // Buckets: interval_ptr[l] is the first index of measure l in
    // index_to_node, interval_count[l] how many are there.
    let mut interval_ptr = vec![0usize; lambda_max + 1];
    let mut interval_count = vec![0usize; lambda_max + 1];
    let mut index_to_node = vec![0usize; n];
    let mut node_to_index = vec![0usize; n];
    for &l in &lambda {
        interval_count[l] += 1;
    }
    let mut cumsum = 0;
    for l in 0..lambda_max {
        interval_ptr[l] = cumsum;
        cumsum += interval_count[l];
        interval_count[l] = 0;
    }
    for i in 0..n {
        let l = lambda[i];
        let index = interval_ptr[l] + interval_count[l];
        index_to_node[index] = i;
        node_to_index[i] = index;
        interval_count[l] += 1;
    }

    let mut state = vec![U; n];
    for i in 0..n {
        let (sti, _) = st.row(i);
        if lambda[i] == 0 || (lambda[i] == 1 && sti[0] as usize == i) {
            state[i] = F;
        }
    }

    for top in (0..n).rev() {
        let i = index_to_node[top];
        let li = lambda[i];
        interval_count[li] -= 1;
        if lambda[i] == 0 {
            break;
        }
        if state[i] != U {
            continue;
        }
        state[i] = C;
        let (sti, _) = st.row(i);
        for &j in sti {
            if state[j as usize] == U {
                state[j as usize] = PRE_F;
            }
        }
        for &j in sti {
            let j = j as usize;
            if state[j] != PRE_F {
                continue;
            }
            state[j] = F;
            // Each undecided k that j depends on gains measure: move k to
            // the end of its bucket, then into the next bucket.
            for &k in s.row(j).0 {
                let k = k as usize;
                if state[k] != U || lambda[k] >= n - 1 {
                    continue;
                }
                let lk = lambda[k];
                let old_pos = node_to_index[k];
                let new_pos = interval_ptr[lk] + interval_count[lk] - 1;
                node_to_index[index_to_node[old_pos]] = new_pos;
                node_to_index[index_to_node[new_pos]] = old_pos;
                index_to_node.swap(old_pos, new_pos);
                interval_count[lk] -= 1;
                interval_count[lk + 1] += 1;
                interval_ptr[lk + 1] = new_pos;
                lambda[k] += 1;
            }
        }
        // Each undecided j that i depends on loses measure: move j to the
        // start of its bucket, then into the previous bucket.
        for &j in s.row(i).0 {
            let j = j as usize;
            if state[j] != U || lambda[j] == 0 {
                continue;
            }
            let lj = lambda[j];
            let old_pos = node_to_index[j];
            let new_pos = interval_ptr[lj];
            node_to_index[index_to_node[old_pos]] = new_pos;
            node_to_index[index_to_node[new_pos]] = old_pos;
            index_to_node.swap(old_pos, new_pos);
            interval_count[lj] -= 1;
            interval_count[lj - 1] += 1;
            interval_ptr[lj] += 1;
            interval_ptr[lj - 1] = interval_ptr[lj] - interval_count[lj - 1];
            lambda[j] -= 1;
        }
    }
    let mut splitting: Splitting = state.iter().map(|&x| x == C).collect();
    if second_pass {
        rs_second_pass(s, &mut splitting);
    }
    splitting
}

/// Second pass: an F point `i` and a strong F neighbour `j` without a
/// common strong C point make `j` a tentative C point; a later such `j`
/// of the same row replaces the earlier one (PyAMG's rule).
fn rs_second_pass(s: &RawCsr, splitting: &mut Splitting) {
    for i in 0..s.nrows {
        if splitting[i] {
            continue;
        }
        let si = s.row(i).0;
        let mut tentative: Option<usize> = None;
        for &j in si {
            let j = j as usize;
            if splitting[j] {
                continue;
            }
            let sj = s.row(j).0;
            let common = si.iter().any(|&k| splitting[k as usize] && sj.contains(&k));
            if common {
                continue;
            }
            if let Some(t) = tentative {
                splitting[t] = false;
            }
            tentative = Some(j);
            splitting[j] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strength graph of the 1D Laplacian on n points.
    fn path(n: usize) -> RawCsr {
        RawCsr::from_row_fn(n, n, |i, c, v| {
            if i > 0 {
                c.push(i as u32 - 1);
                v.push(-1.0);
            }
            if i + 1 < n {
                c.push(i as u32 + 1);
                v.push(-1.0);
            }
        })
    }

    #[test]
    fn rs_on_a_path_picks_every_other_point() {
        let s = path(7);
        let split = rs(&s, &s.transpose(), false);
        // Highest measure, highest index first: 5, then 3, then 1.
        assert_eq!(split, vec![false, true, false, true, false, true, false]);
    }

    #[test]
    fn every_f_point_has_a_strong_c_neighbour() {
        let s = path(50);
        let split = rs(&s, &s.transpose(), true);
        for i in 0..50 {
            if !split[i] {
                assert!(s.row(i).0.iter().any(|&j| split[j as usize]), "{i}");
            }
        }
    }
}
