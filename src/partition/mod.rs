//! Stage 4: which rank owns which row on every level (`docs/model.md`,
//! "Definitions").
//!
//! Level 0 ([`Fine`]): a method ([`methods`]: contiguous balanced blocks by
//! default, rank `r` owning `n / P` rows and the first `n % P` ranks one
//! more; METIS, ...), or a partition file (one owner a line, as METIS
//! writes them; format in `partitioners/README.md`). Coarse levels
//! ([`CoarseRule`]): `inherit` (a coarse row stays with the owner of its
//! fine C point, as hypre and RAPtor do) or `rebalance` (contiguous
//! balanced again). [`Layout`] holds the partition of every level.
//!
//! May use `matrix`, `amg`, `machine`, and the ground floor (`output`,
//! `memory`, `json_in`); its files never import each other round a circle
//! (`tests/layering.rs`).

pub mod file;
pub mod methods;
pub mod mfem;

/// METIS 5 keeps its random generator's state in a global: two calls at
/// once in one process (tests, a library user's threads) partition
/// differently than one at a time. Every call holds this lock.
pub(crate) fn metis_lock() -> std::sync::MutexGuard<'static, ()> {
    static METIS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    METIS.lock().unwrap_or_else(|e| e.into_inner())
}

use std::path::PathBuf;

use serde::Serialize;

use crate::amg::Hierarchy;
use crate::machine::Machine;
use crate::matrix::{Csr, Ownership};
use methods::{Method, MethodOptions};

/// Owner rank of every row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    /// `owner[i]`: the rank that owns row `i`.
    pub owner: Vec<u32>,
    /// Ranks of the machine (some may own no row).
    pub ranks: usize,
}

/// Where the coarse levels' rows go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum CoarseRule {
    /// A coarse row stays with its C point's owner (hypre, RAPtor).
    Inherit,
    /// Contiguous balanced blocks again on every level.
    Rebalance,
    /// As the input's rank files give every level (hypre's dumps); where a
    /// rule is needed it is `inherit`, which hypre follows.
    #[value(skip)]
    Files,
}

/// How the fine rows are split among the ranks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fine {
    /// A partitioning method.
    Method(Method),
    /// A partition file: one owner rank a line.
    File(PathBuf),
    /// Row blocks the input came with (`mfem`: the rows renumbered rank
    /// by rank before the hierarchy was built), under that method's name.
    Blocks {
        /// The method that made them.
        name: String,
        /// Rank `r` owns rows `starts[r]..starts[r + 1]`.
        starts: Vec<usize>,
    },
}

impl Fine {
    /// A method's name, else a file path.
    pub fn parse(s: &str) -> Fine {
        match <Method as clap::ValueEnum>::from_str(s, false) {
            Ok(m) => Fine::Method(m),
            Err(_) => Fine::File(PathBuf::from(s)),
        }
    }

    /// The method's name or the file's path, for reports.
    pub fn name(&self) -> String {
        match self {
            Fine::Method(m) => m.name().to_string(),
            Fine::File(p) => p.display().to_string(),
            Fine::Blocks { name, .. } => name.clone(),
        }
    }

    /// The fine partition of `a` on `m`'s ranks.
    pub fn partition(
        &self,
        a: &Csr,
        m: &Machine,
        o: &MethodOptions,
    ) -> Result<Partition, PartitionError> {
        match self {
            Fine::Method(method) => methods::partition(a, m, *method, o),
            Fine::File(path) => Partition::read(path, a.rows(), m.ranks()),
            Fine::Blocks { starts, .. } => Ok(Partition::from_ownership(&Ownership {
                starts: starts.clone(),
            })),
        }
    }
}

/// The partition of every level of a hierarchy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `levels[l]`: owners of level `l`'s rows.
    pub levels: Vec<Partition>,
}

impl Layout {
    /// Every level's partition from the fine one, coarse levels by `rule`.
    pub fn new(h: &Hierarchy, fine: Partition, rule: CoarseRule) -> Layout {
        Layout {
            levels: levels(h, fine, rule),
        }
    }

    /// Ranks of the machine the layout is for.
    pub fn ranks(&self) -> usize {
        self.levels.first().map_or(0, |p| p.ranks)
    }

    /// Every level's layout on `m`, the fine partition by `fine`, the
    /// coarse ones by `rule`. With the data on GPUs the rows are
    /// partitioned over the GPUs ([`Machine::owners`]) and each GPU's
    /// part goes to its owner rank ([`Machine::owner_rank`]); the other
    /// ranks own no rows.
    pub fn on(
        h: &Hierarchy,
        fine: &Fine,
        rule: CoarseRule,
        m: &Machine,
        o: &MethodOptions,
    ) -> Result<Layout, PartitionError> {
        let part = fine.partition(&h.levels[0].a, &m.owners(), o)?;
        Ok(Layout::new(h, part, rule).spread(m))
    }

    /// A layout over [`Machine::owners`]' ranks given to `m`'s owner
    /// ranks (itself when the data is in host memory).
    pub fn spread(self, m: &Machine) -> Layout {
        if !m.is_on_devices() {
            return self;
        }
        let rank: Vec<u32> = (0..m.owners().ranks())
            .map(|g| m.owner_rank(g) as u32)
            .collect();
        Layout {
            levels: (self.levels.into_iter())
                .map(|p| Partition {
                    owner: p.owner.iter().map(|&g| rank[g as usize]).collect(),
                    ranks: m.ranks(),
                })
                .collect(),
        }
    }
}

/// A partition that cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    /// The partition file is missing.
    #[error("{path}: no such partition file")]
    NotFound {
        /// The file given.
        path: String,
    },
    /// The partition file cannot be read.
    #[error("{path}: {}", crate::output::reason(.source))]
    Io {
        /// The file given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line of the partition file is wrong.
    #[error("{path}: line {line}: {problem}")]
    Line {
        /// The file given.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The file has not one owner per row.
    #[error("{path}: {found} owners for a matrix of {rows} rows (one line per row is needed)")]
    Count {
        /// The file given.
        path: String,
        /// Owners in the file.
        found: usize,
        /// Rows of the matrix.
        rows: usize,
    },
    /// METIS failed.
    #[error("METIS: {0}")]
    Metis(String),
    /// A mesh partition (`mfem`) that cannot be made.
    #[error("request.partition mfem: {0}")]
    Mesh(String),
    /// `mfem` asked of a matrix with no mesh.
    #[error("request.partition mfem partitions a mesh generator's elements (gen:beam:R, gen:elasticity3d:N); {0} has no mesh")]
    NoMesh(String),
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
            CoarseRule::Inherit | CoarseRule::Files => Partition {
                owner: coarse_points
                    .iter()
                    .map(|&c| self.owner[c as usize])
                    .collect(),
                ranks: self.ranks,
            },
            CoarseRule::Rebalance => Partition::contiguous(coarse_points.len(), self.ranks),
        }
    }

    /// Contiguous blocks as a source gave them (hypre's row ranges).
    pub fn from_ownership(o: &Ownership) -> Partition {
        let ranks = o.starts.len().saturating_sub(1);
        let mut owner = Vec::with_capacity(o.starts.last().copied().unwrap_or(0));
        for (r, w) in o.starts.windows(2).enumerate() {
            owner.extend(std::iter::repeat_n(r as u32, w[1] - w[0]));
        }
        Partition { owner, ranks }
    }
}

/// The partition of every level of `h`, from the fine one.
fn levels(h: &Hierarchy, fine: Partition, rule: CoarseRule) -> Vec<Partition> {
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
        let e = |n, ranks| Partition::read(&f, n, ranks).unwrap_err().to_string();
        assert!(e(5, 2).contains("4 owners for a matrix of 5 rows"));
        std::fs::write(&f, "0\n2\n").unwrap();
        assert!(e(2, 2).contains("line 2: owner 2 is out of range"));
        std::fs::write(&f, "0\nx\n").unwrap();
        assert!(e(2, 2).contains("line 2: 'x' is not a rank"));
        assert!(Partition::read(&d.path().join("none"), 2, 2)
            .unwrap_err()
            .to_string()
            .ends_with("none: no such partition file"));
    }

    #[test]
    fn ownership_and_names() {
        let p = Partition::from_ownership(&Ownership {
            starts: vec![0, 2, 2, 5],
        });
        assert_eq!(p.owner, vec![0, 0, 2, 2, 2]);
        assert_eq!((p.ranks, p.active_ranks()), (3, 2));
        assert_eq!(Fine::parse("metis-nodes"), Fine::Method(Method::MetisNodes));
        assert_eq!(Fine::parse("my.part").name(), "my.part");
        assert_eq!(Fine::parse("contiguous-nnz").name(), "contiguous-nnz");
    }
}
