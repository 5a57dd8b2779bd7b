//! A level of the hierarchy, and its matrices: whole, or as the ranks'
//! blocks hypre's setup leaves them, made whole when first read whole.

use std::sync::OnceLock;

use super::hypre::parcsr::ParCsr;
use super::raw::RawCsr;
use super::{Hierarchy, Step, Stopwatch};
use crate::matrix::Csr;

/// One level: its operator, and (except on the coarsest) its interpolation
/// and the fine indices of its coarse points, in coarse order.
#[derive(Clone, Debug)]
pub struct Level {
    /// The operator `A_l`.
    pub a: LevelMatrix,
    /// The interpolation `P_l` to this level from the next (none on the
    /// coarsest).
    pub p: Option<LevelMatrix>,
    /// Fine indices of the coarse points, in coarse order.
    pub coarse_points: Vec<u32>,
}

impl Level {
    /// Whether its operator or interpolation holds the ranks' blocks.
    fn holds_blocks(&self) -> bool {
        self.a.holds_blocks() || self.p.as_ref().is_some_and(|p| p.holds_blocks())
    }

    /// The coarsest level: its operator alone.
    pub(crate) fn coarsest(a: RawCsr) -> Level {
        Level::coarsest_of(a.into_csr().into())
    }

    pub(crate) fn coarsest_of(a: LevelMatrix) -> Level {
        Level {
            a,
            p: None,
            coarse_points: Vec::new(),
        }
    }
}

/// A level's matrix, whole with global indices and sorted rows, as every
/// reader sees it (it dereferences to [`Csr`]). The hypre preset leaves
/// it as its ranks' blocks and makes it whole the first time it is read
/// whole, as a `LazyLock` does: its rows, columns and nonzeros need no
/// gathering, so `amgcomm hierarchy` never makes a level whole unless
/// it saves the levels (on 2 ranks of elasticity 65 the gathers were a
/// fifth of the setup's time). [`Hierarchy::make_whole`] gathers every
/// level and frees the blocks, for a reader of every level.
#[derive(Clone, Debug)]
pub struct LevelMatrix {
    whole: OnceLock<Csr>,
    blocks: Option<Box<ParCsr>>,
    shape: (usize, usize),
    nnz: usize,
}

impl From<Csr> for LevelMatrix {
    fn from(a: Csr) -> LevelMatrix {
        LevelMatrix {
            shape: (a.rows(), a.cols()),
            nnz: a.nnz(),
            whole: OnceLock::from(a),
            blocks: None,
        }
    }
}

impl LevelMatrix {
    /// The matrix the ranks' blocks `m` hold.
    pub(crate) fn of_blocks(m: ParCsr) -> LevelMatrix {
        let nnz = (m.ranks.iter()).map(|l| l.diag.nnz() + l.offd.nnz()).sum();
        LevelMatrix {
            shape: (m.global_rows(), m.global_cols()),
            nnz,
            whole: OnceLock::new(),
            blocks: Some(Box::new(m)),
        }
    }

    /// Rows, without making it whole.
    pub fn rows(&self) -> usize {
        self.shape.0
    }

    /// Columns, without making it whole.
    pub fn cols(&self) -> usize {
        self.shape.1
    }

    /// Stored entries, without making it whole.
    pub fn nnz(&self) -> usize {
        self.nnz
    }

    /// Whether the matrix is whole already (reading it costs no gather).
    pub fn is_whole(&self) -> bool {
        self.whole.get().is_some()
    }

    /// Whether it still holds the ranks' blocks (whole or not).
    fn holds_blocks(&self) -> bool {
        self.blocks.is_some()
    }

    /// Each row of an operator as `(row, its diagonal or 0, whether it
    /// stores no entry)`, in order, without making it whole (a rank's
    /// diag block's columns are its rows).
    pub fn diagonals(&self) -> Box<dyn Iterator<Item = (usize, f64, bool)> + '_> {
        let Some(b) = self.blocks.as_ref().filter(|_| !self.is_whole()) else {
            return Box::new(super::diagnose::diagonals(self, 0));
        };
        let rows = (b.ranks.iter().enumerate()).flat_map(move |(r, l)| {
            (0..l.rows()).map(move |i| {
                let (c, v) = l.diag.row(i);
                let d = c
                    .iter()
                    .position(|&j| j as usize == i)
                    .map_or(0.0, |k| v[k]);
                let empty = c.is_empty() && l.offd.row(i).0.is_empty();
                (b.rows[r] + i, d, empty)
            })
        });
        Box::new(rows)
    }

    /// Made whole, the blocks freed (one rank's taken over in place).
    pub fn make_whole(&mut self) {
        if let Some(b) = self.blocks.take() {
            if !self.is_whole() {
                let _ = self.whole.set(b.into_whole());
            }
        }
    }

    /// The whole matrix, taken over.
    pub fn into_whole(mut self) -> Csr {
        self.make_whole();
        self.whole.into_inner().expect("made whole")
    }
}

impl std::ops::Deref for LevelMatrix {
    type Target = Csr;

    fn deref(&self) -> &Csr {
        self.whole.get_or_init(|| {
            (self.blocks.as_ref())
                .expect("a level matrix is whole or in blocks")
                .gather()
        })
    }
}

impl Hierarchy {
    /// Whether every level's matrices are whole, no blocks held.
    pub fn is_whole(&self) -> bool {
        (self.levels.iter()).all(|l| !l.holds_blocks())
    }

    /// Every level's matrices made whole, finest first, their blocks
    /// freed as each is gathered (so at most one level is held twice);
    /// the time each level took is added to its gather step.
    pub fn make_whole(&mut self) {
        for (l, level) in self.levels.iter_mut().enumerate() {
            if !level.holds_blocks() {
                continue;
            }
            let mut clock = Stopwatch::start();
            level.a.make_whole();
            if let Some(p) = &mut level.p {
                p.make_whole();
            }
            self.setup_times.add(l, Step::Gather, clock.split());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::Preset;

    /// A matrix left in blocks gives its sizes without a gather, and
    /// gathered is the matrix the blocks were split from.
    #[test]
    fn blocks_are_made_whole_when_read_whole() {
        let m = crate::matrix::source::Source::parse("gen:poisson3d:7")
            .unwrap()
            .load(None)
            .unwrap();
        let split = ParCsr::of_spec("gen:poisson3d:7", 3);
        assert_eq!(split.ranks.len(), 3);
        let mut lm = LevelMatrix::of_blocks(split);
        assert!(!lm.is_whole());
        assert_eq!((lm.rows(), lm.cols(), lm.nnz()), (343, 343, m.csr.nnz()));
        assert_eq!(*lm, m.csr);
        assert!(lm.is_whole() && lm.holds_blocks());
        lm.make_whole();
        assert!(lm.blocks.is_none());
        assert_eq!(lm.into_whole(), m.csr);
    }

    /// Each row's diagonal read from the blocks is the whole matrix's,
    /// a negative and a missing one included.
    #[test]
    fn the_blocks_give_every_rows_diagonal() {
        let m = crate::matrix::source::Source::parse("gen:poisson3d:5")
            .unwrap()
            .load(None)
            .unwrap();
        let mut rows: Vec<Vec<(u32, f64)>> = (m.csr.outer_iterator())
            .map(|r| r.iter().map(|(j, &x)| (j as u32, x)).collect())
            .collect();
        rows[7]
            .iter_mut()
            .filter(|e| e.0 == 7)
            .for_each(|e| e.1 = -1.0);
        rows[60].retain(|e| e.0 != 60);
        let lists: Vec<&[(u32, f64)]> = rows.iter().map(|r| r.as_slice()).collect();
        let raw = crate::amg::raw::test_util::from_lists(125, &lists);
        let diagonals = |a: &LevelMatrix| a.diagonals().collect::<Vec<_>>();
        let blocks = LevelMatrix::of_blocks(ParCsr::split(&raw, &[0, 40, 41, 125]));
        let whole = LevelMatrix::from(raw.into_csr());
        let want = diagonals(&whole);
        assert_eq!((want[7].1, want[60].1), (-1.0, 0.0));
        assert_eq!(diagonals(&blocks), want);
        assert!(!blocks.is_whole());
    }

    /// One rank's blocks made whole in place are the gathered matrix, for
    /// level 0 (split in place) and for a product's level.
    #[test]
    fn one_ranks_blocks_are_made_whole_in_place() {
        let m = crate::matrix::source::Source::parse("gen:poisson3d:9")
            .unwrap()
            .load(None)
            .unwrap();
        let n = m.csr.rows();
        let o = Preset::Hypre.options();
        let h = crate::amg::build_ranked(m.csr.clone(), &[0, n], &o, &mut |_, _| {}).unwrap();
        assert!(h.levels.len() > 2 && !h.levels[1].a.is_whole());
        let (split, input) = ParCsr::split_owned(RawCsr::from_csr(&m.csr), &[0, n]);
        assert!(input.is_none());
        // The diagonal first, the rest in order, as the copying split has it.
        let copied = ParCsr::split(&RawCsr::from_csr(&m.csr), &[0, n]);
        assert_eq!(split.ranks[0].diag.indices, copied.ranks[0].diag.indices);
        assert_eq!(split.ranks[0].diag.data, copied.ranks[0].diag.data);
        assert_eq!(split.into_whole(), m.csr);
        for l in h.levels {
            for x in [Some(l.a), l.p].into_iter().flatten() {
                let Some(b) = &x.blocks else { continue };
                let gathered = b.gather();
                assert!(!x.is_whole());
                assert_eq!(x.into_whole(), gathered);
            }
        }
    }

    /// The hypre preset on ranks leaves its levels in blocks; made whole,
    /// each level's sizes are what the blocks said.
    #[test]
    fn a_hierarchy_made_whole_keeps_its_sizes() {
        let m = crate::matrix::source::Source::parse("gen:poisson3d:12")
            .unwrap()
            .load(None)
            .unwrap();
        let blocks = [0, 600, 1100, 1728];
        let o = Preset::Hypre.options();
        let mut h = crate::amg::build_ranked(m.csr, &blocks, &o, &mut |_, _| {}).unwrap();
        assert!(h.levels.len() > 2 && !h.is_whole());
        // Read whole once: the blocks stay until made whole.
        let _: &Csr = &h.levels[1].a;
        assert!(h.levels[1].a.is_whole() && !h.is_whole());
        let before: Vec<(usize, usize, usize, Option<usize>)> = (h.levels.iter())
            .map(|l| {
                (
                    l.a.rows(),
                    l.a.cols(),
                    l.a.nnz(),
                    l.p.as_ref().map(|p| p.nnz()),
                )
            })
            .collect();
        let gathered = h.setup_times.gather;
        h.make_whole();
        assert!(h.is_whole());
        assert!(h.setup_times.gather > gathered);
        // The gathered matrices' own sizes.
        let whole: Vec<(usize, usize, usize, Option<usize>)> = (h.levels.iter())
            .map(|l| {
                let a: &Csr = &l.a;
                (a.rows(), a.cols(), a.nnz(), l.p.as_deref().map(|p| p.nnz()))
            })
            .collect();
        assert_eq!(whole, before);
    }
}
