//! Random symmetric permutations `B = Q A Q^T`, to mimic the unstructured
//! numbering of a mesh generator. Nodes are permuted, not unknowns: the
//! `block` unknowns of a node stay together and interleaved, so
//! unknown-based AMG (`num_functions`) still sees them.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{csr, Csr};

/// `new_of_old[v]` for `nodes` nodes, reproducible from `seed` on every
/// platform (ChaCha8).
pub fn random_node_order(nodes: usize, seed: u64) -> Vec<u32> {
    let mut old_at: Vec<u32> = (0..nodes as u32).collect();
    old_at.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let mut new_of_old = vec![0u32; nodes];
    for (new, &old) in old_at.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    new_of_old
}

/// Apply the node permutation `new_of_old` to rows and columns.
pub fn permute_symmetric(a: &Csr, block: usize, new_of_old: &[u32]) -> Csr {
    assert_eq!(a.rows(), a.cols());
    assert_eq!(a.rows(), new_of_old.len() * block);
    let mut old_of_new = vec![0u32; new_of_old.len()];
    for (old, &new) in new_of_old.iter().enumerate() {
        old_of_new[new as usize] = old as u32;
    }
    let map = |old_unknown: usize| {
        (new_of_old[old_unknown / block] as usize * block + old_unknown % block) as u32
    };
    let old_row = |r: usize| old_of_new[r / block] as usize * block + r % block;
    let row_len = |r: usize| {
        let o = old_row(r);
        a.indptr().raw_storage()[o + 1] - a.indptr().raw_storage()[o]
    };
    csr::from_rows(a.rows(), a.cols(), row_len, |r, cols, vals| {
        let row = a.outer_view(old_row(r)).expect("row in range");
        let mut entries: Vec<(u32, f64)> = row.iter().map(|(c, &v)| (map(c), v)).collect();
        entries.sort_unstable_by_key(|e| e.0);
        for (k, (c, v)) in entries.into_iter().enumerate() {
            cols[k] = c;
            vals[k] = v;
        }
    })
}

/// `a`'s rows reordered: row `i` of the result is row `source[i]` of `a`
/// (columns kept).
pub fn permute_rows(a: &Csr, source: &[u32]) -> Csr {
    assert_eq!(a.rows(), source.len());
    let ptr = a.indptr();
    let ptr = ptr.raw_storage();
    csr::from_rows(
        a.rows(),
        a.cols(),
        |r| ptr[source[r] as usize + 1] - ptr[source[r] as usize],
        |r, cols, vals| {
            let s = source[r] as usize;
            cols.copy_from_slice(&a.indices()[ptr[s]..ptr[s + 1]]);
            vals.copy_from_slice(&a.data()[ptr[s]..ptr[s + 1]]);
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::gen::{Kind, Problem};

    #[test]
    fn permutation_is_a_bijection_and_reproducible() {
        let p = random_node_order(1000, 7);
        let mut seen = p.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<u32>>());
        assert_eq!(p, random_node_order(1000, 7));
        assert_ne!(p, random_node_order(1000, 8));
    }

    #[test]
    fn entries_move_with_their_nodes() {
        let a = Problem::new(Kind::Elasticity3d, 2).generate().unwrap().csr;
        let order = random_node_order(a.rows() / 3, 1);
        let b = permute_symmetric(&a, 3, &order);
        assert_eq!(b.nnz(), a.nnz());
        for (v, (i, j)) in a.iter() {
            let (i, j) = (i as usize, j as usize);
            let (ni, nj) = (
                order[i / 3] as usize * 3 + i % 3,
                order[j / 3] as usize * 3 + j % 3,
            );
            assert_eq!(b.get(ni, nj), Some(v));
        }
        assert!(csr::is_symmetric(&b));
    }
}
