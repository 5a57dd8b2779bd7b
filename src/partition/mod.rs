//! Stage 4: which rank owns which row on every level (`../shared/MODEL.md`,
//! "Row partition").
//!
//! Level 0: contiguous balanced blocks (rank `r` owns `n / P` rows, the
//! first `n % P` ranks one more), or a partition file (one owner a line, as
//! METIS writes them; format in `partitioners/README.md`). Coarse levels:
//! `inherit` (a coarse row stays with the owner of its fine C point, as
//! hypre and RAPtor do) or `rebalance` (contiguous balanced again).

pub mod methods;

use std::path::Path;

/// Owner rank of every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    pub owner: Vec<u32>,
    pub ranks: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoarseRule {
    Inherit,
    Rebalance,
}

impl Partition {
    /// Contiguous balanced blocks of `n` rows over `ranks` ranks.
    pub fn contiguous(n: usize, ranks: usize) -> Partition {
        let (q, rem) = (n / ranks, n % ranks);
        let big = (q + 1) * rem;
        let owner = (0..n)
            .map(|i| if i < big { i / (q + 1) } else { rem + (i - big) / q.max(1) } as u32)
            .collect();
        Partition { owner, ranks }
    }

    /// Ranks owning at least one row.
    pub fn active_ranks(&self) -> usize {
        let mut seen = vec![false; self.ranks];
        for &o in &self.owner {
            seen[o as usize] = true;
        }
        seen.iter().filter(|&&s| s).count()
    }

    /// Rows of each rank, in increasing order (`rows[r]` = rows of rank r).
    pub fn rows_of_ranks(&self) -> Vec<Vec<u32>> {
        let mut rows = vec![Vec::new(); self.ranks];
        for (i, &o) in self.owner.iter().enumerate() {
            rows[o as usize].push(i as u32);
        }
        rows
    }

    /// The next level's partition: `coarse_points` are the fine indices of
    /// the coarse rows, in coarse order.
    pub fn coarsen(&self, coarse_points: &[u32], rule: CoarseRule) -> Partition {
        match rule {
            CoarseRule::Inherit => Partition {
                owner: coarse_points
                    .iter()
                    .map(|&c| self.owner[c as usize])
                    .collect(),
                ranks: self.ranks,
            },
            CoarseRule::Rebalance => Partition::contiguous(coarse_points.len(), self.ranks),
        }
    }

    /// Read a partition file for `n` rows and `ranks` ranks.
    pub fn read(path: &Path, n: usize, ranks: usize) -> Result<Partition, String> {
        let name = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{name}: no such partition file"),
            _ => format!("{name}: {e}"),
        })?;
        let mut owner = Vec::with_capacity(n);
        for (k, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('%') || t.starts_with('#') {
                continue;
            }
            let r: u64 = t
                .parse()
                .map_err(|_| format!("{name}: line {}: '{t}' is not a rank number", k + 1))?;
            if r >= ranks as u64 {
                return Err(format!(
                    "{name}: line {}: owner {r} is out of range: the machine has {ranks} ranks (0..{})",
                    k + 1,
                    ranks - 1
                ));
            }
            owner.push(r as u32);
        }
        if owner.len() != n {
            return Err(format!(
                "{name}: {} owners for a matrix of {n} rows (one line per row is needed)",
                owner.len()
            ));
        }
        Ok(Partition { owner, ranks })
    }
}

/// The partition of every level of `h`, from the fine one.
pub fn levels(h: &crate::amg::Hierarchy, fine: Partition, rule: CoarseRule) -> Vec<Partition> {
    let mut parts = vec![fine];
    for level in &h.levels[..h.levels.len() - 1] {
        let next = parts
            .last()
            .expect("fine partition")
            .coarsen(&level.coarse_points, rule);
        parts.push(next);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_blocks_follow_the_model() {
        // 10 rows on 4 ranks: 3, 3, 2, 2.
        let p = Partition::contiguous(10, 4);
        assert_eq!(p.owner, vec![0, 0, 0, 1, 1, 1, 2, 2, 3, 3]);
        // Fewer rows than ranks: ranks 3.. own nothing.
        let p = Partition::contiguous(3, 5);
        assert_eq!(p.owner, vec![0, 1, 2]);
        assert_eq!(p.active_ranks(), 3);
        let p = Partition::contiguous(12, 4);
        assert_eq!(p.rows_of_ranks()[2], vec![6, 7, 8]);
    }

    #[test]
    fn coarse_rules() {
        let fine = Partition::contiguous(8, 2); // rows 0-3 rank 0, 4-7 rank 1
        let coarse = [1, 2, 6];
        assert_eq!(
            fine.coarsen(&coarse, CoarseRule::Inherit).owner,
            vec![0, 0, 1]
        );
        assert_eq!(
            fine.coarsen(&coarse, CoarseRule::Rebalance).owner,
            vec![0, 0, 1]
        );
        let coarse = [0, 1, 2, 3];
        assert_eq!(
            fine.coarsen(&coarse, CoarseRule::Inherit).owner,
            vec![0, 0, 0, 0]
        );
        assert_eq!(
            fine.coarsen(&coarse, CoarseRule::Rebalance).owner,
            vec![0, 0, 1, 1]
        );
    }

    #[test]
    fn partition_files_are_validated() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("p.part");
        std::fs::write(&f, "% METIS\n0\n1\n\n1\n0\n").unwrap();
        assert_eq!(Partition::read(&f, 4, 2).unwrap().owner, vec![0, 1, 1, 0]);
        assert!(Partition::read(&f, 5, 2)
            .unwrap_err()
            .contains("4 owners for a matrix of 5 rows"));
        std::fs::write(&f, "0\n2\n").unwrap();
        assert!(Partition::read(&f, 2, 2)
            .unwrap_err()
            .contains("line 2: owner 2 is out of range"));
        std::fs::write(&f, "0\nx\n").unwrap();
        assert!(Partition::read(&f, 2, 2)
            .unwrap_err()
            .contains("line 2: 'x' is not a rank"));
    }
}
