//! The solve's grid transfers on one level (rules in the module docs of
//! [`super`]): `interp` (`P_l e_{l+1}`), the halo of `P_l`'s columns
//! under the next level's partition, and `restrict` (`P_l^T r_l`), its
//! mirror.

use super::node_aware::needed_columns;
use super::{by_sender, Message, Op, Pattern};
use crate::matrix::Csr;
use crate::partition::Partition;

/// `interp`'s messages: `q -> p` carrying, 8 bytes each, the coarse
/// values `q` owns that `p`'s rows of `p_l` need. A message's runs are
/// the runs of consecutive local coarse rows of `q` it gathers.
pub fn interp(p_l: &Csr, part: &Partition, coarse: &Partition) -> Pattern {
    assert_eq!(p_l.rows(), part.owner.len());
    assert_eq!(p_l.cols(), coarse.owner.len());
    // Each coarse row's index among its owner's rows (global order).
    let mut count = vec![0u32; coarse.ranks];
    let local: Vec<u32> = (coarse.owner.iter())
        .map(|&q| {
            let k = count[q as usize];
            count[q as usize] += 1;
            k
        })
        .collect();
    let mut raw: Vec<(u32, u32, u64, u32)> = Vec::new();
    for (r, pairs) in needed_columns(p_l, part, coarse).iter().enumerate() {
        // Sorted by (q, j): each q's columns in its local order.
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            let breaks = run
                .windows(2)
                .filter(|w| local[w[1].1 as usize] != local[w[0].1 as usize] + 1)
                .count();
            raw.push((run[0].0, r as u32, 8 * run.len() as u64, 1 + breaks as u32));
        }
    }
    let messages = by_sender(raw, part.ranks, |e| e.0)
        .into_iter()
        .map(|(from, to, bytes, runs)| Message {
            from,
            to,
            bytes,
            runs,
        })
        .collect();
    Pattern {
        op: Op::Interp,
        messages,
    }
}

/// `restrict`'s messages from `interp`'s: each turned round, its partial
/// sums computed into a packed buffer (one run).
pub fn restrict(interp: &Pattern, ranks: usize) -> Pattern {
    let raw = (interp.messages.iter())
        .map(|m| (m.to, m.from, m.bytes))
        .collect();
    Pattern::new(Op::Restrict, raw, ranks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::csr::from_rows;

    /// Brute force: for every pair of ranks, the coarse columns of the
    /// receiver's rows of `p` the sender owns, by a plain scan.
    fn brute(p: &Csr, part: &Partition, coarse: &Partition) -> Vec<(u32, u32, u64)> {
        let ptr = p.indptr();
        let ptr = ptr.raw_storage();
        let stored = |i: usize, j: usize| p.indices()[ptr[i]..ptr[i + 1]].contains(&(j as u32));
        let mut out = Vec::new();
        for q in 0..part.ranks as u32 {
            for r in 0..part.ranks as u32 {
                if q == r {
                    continue;
                }
                let cols = (0..p.cols())
                    .filter(|&j| coarse.owner[j] == q)
                    .filter(|&j| (0..p.rows()).any(|i| part.owner[i] == r && stored(i, j)))
                    .count() as u64;
                if cols > 0 {
                    out.push((q, r, 8 * cols));
                }
            }
        }
        out
    }

    /// A nonsymmetric 9 x 4 `P` with uneven blocks and empty ranks.
    fn case() -> (Csr, Partition, Partition) {
        let entries: [&[u32]; 9] = [
            &[0],
            &[0, 3],
            &[1],
            &[1, 2],
            &[2],
            &[0, 2, 3],
            &[3],
            &[3],
            &[1],
        ];
        let p = from_rows(
            9,
            4,
            |i| entries[i].len(),
            |i, c, v| {
                c.copy_from_slice(entries[i]);
                v.iter_mut()
                    .enumerate()
                    .for_each(|(k, x)| *x = 0.5 + k as f64);
            },
        );
        // Fine: rank 0 three rows, rank 1 none, rank 2 five, rank 3 one;
        // coarse: rank 1 owns columns 0 and 3 (not adjacent in global
        // order but adjacent locally), rank 2 owns 1, rank 3 owns 2.
        let part = Partition {
            owner: vec![0, 0, 0, 2, 2, 2, 2, 2, 3],
            ranks: 4,
        };
        let coarse = Partition {
            owner: vec![1, 2, 3, 1],
            ranks: 4,
        };
        (p, part, coarse)
    }

    #[test]
    fn interp_and_restrict_by_brute_force() {
        let (p, part, coarse) = case();
        let pat = interp(&p, &part, &coarse);
        let got: Vec<(u32, u32, u64)> = pat
            .messages
            .iter()
            .map(|m| (m.from, m.to, m.bytes))
            .collect();
        assert_eq!(got, brute(&p, &part, &coarse));
        // By hand: rank 0's rows need columns 0, 3 (rank 1) and 1 (rank 2);
        // rank 2's need 0, 3 (rank 1), 2 (rank 3) and its own 1; rank 3's
        // row needs 1 (rank 2).
        assert_eq!(
            got,
            [(1, 0, 16), (1, 2, 16), (2, 0, 8), (2, 3, 8), (3, 2, 8)]
        );
        // Columns 0 and 3 are rank 1's local rows 0 and 1: one run.
        assert!(pat.messages.iter().all(|m| m.runs == 1));
        let r = restrict(&pat, 4);
        let back: Vec<(u32, u32, u64)> =
            r.messages.iter().map(|m| (m.from, m.to, m.bytes)).collect();
        assert_eq!(
            back,
            [(0, 1, 16), (0, 2, 8), (2, 1, 16), (2, 3, 8), (3, 2, 8)]
        );
        assert_eq!(r.op, Op::Restrict);
    }

    #[test]
    fn runs_count_gaps_in_the_senders_local_rows() {
        // One fine row on rank 1 needing coarse columns 0, 2, 3 of rank 0,
        // which owns 0, 1, 2, 3: local rows 0 | 2, 3 make two runs.
        let p = from_rows(
            2,
            4,
            |i| [1, 3][i],
            |i, c, v| {
                if i == 0 {
                    c[0] = 1;
                } else {
                    c.copy_from_slice(&[0, 2, 3]);
                }
                v.fill(1.0);
            },
        );
        let part = Partition {
            owner: vec![0, 1],
            ranks: 2,
        };
        let coarse = Partition {
            owner: vec![0; 4],
            ranks: 2,
        };
        let pat = interp(&p, &part, &coarse);
        assert_eq!(pat.messages.len(), 1);
        assert_eq!((pat.messages[0].bytes, pat.messages[0].runs), (24, 2));
    }
}
