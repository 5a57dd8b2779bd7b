//! BoomerAMG's setup as hypre 2.26 runs it on P ranks with its defaults
//! (`src/parcsr_ls/`), one file per stage as hypre has them: the same
//! strength, splitting, interpolation, truncation and Galerkin product, in
//! the same entry order and with the same exchanges between ranks, so the
//! levels have hypre's rows and nonzeros and each rank keeps its own C
//! points.
//!
//! Order matters: hypre stores each row's diagonal first, then the other
//! entries as they came (`HYPRE_IJMatrixAddToValues` for level 0, first
//! touch in the Galerkin product after that); the Ruge-Stueben pass breaks
//! ties by that order, and the truncation of `P` by its quicksort.
//!
//! - [`tasks`]: a level's rows computed by the threads over the ranks
//!   (amgcomm's own: hypre's ranks are processes).
//! - [`parcsr`]: the ranks' blocks (`diag`, `offd`, `col_map`) and the
//!   communication packages (parcsr_mv/).
//! - [`strength`]: `hypre_BoomerAMGCreateSHost` (par_strength.c).
//! - [`ruge`]: `CoarsenRuge` with coarsen type 10, the first pass inside
//!   each rank (par_coarsen.c).
//! - [`pmis`]: `CoarsenPMISHost` with `CF_init = 1` over the ranks.
//! - [`indepset`]: what PMIS and CLJP share (par_indepset.c): the measures
//!   `|S^T_i|` plus `hypre_Rand()` seeded with `2747 + rank`, and the
//!   independent set of the largest measures.
//! - [`interp`]: `hypre_BoomerAMGBuildExtPIInterpHost` (par_lr_interp.c,
//!   aux_interp.c).
//! - [`trunc`]: `hypre_ParCSRMatrixTruncate` with `hypre_qsort2_abs`.
//! - [`rap`]: `hypre_BoomerAMGBuildCoarseOperatorKT` (par_rap.c).
//! - [`cljp`]: `hypre_BoomerAMGCoarsen` (CLJP), which the setup switches
//!   to after a level that kept three quarters of its rows.
//! - [`setup`]: the levels, as `hypre_BoomerAMGSetup` (par_amg_setup.c).
//!
//! May use `matrix` and the rest of `amg` (its CSR rows, presets and
//! levels); its files follow hypre's entry order without circles
//! (`tests/layering.rs`).

mod cljp;
mod indepset;
mod interp;
mod neighbours;
mod p_ext;
pub(crate) mod parcsr;
pub(crate) mod pmis;
mod rap;
mod ruge;
mod setup;
mod strength;
mod tasks;
mod trunc;

pub(crate) use setup::build;
pub(crate) use trunc::truncate;

use parcsr::{Comm, Pattern};
use strength::LocalS;

/// hypre's CF_marker values (par_coarsen.c).
pub(crate) const C_PT: i8 = 1;
pub(crate) const F_PT: i8 = -1;
pub(crate) const Z_PT: i8 = -2;
pub(crate) const SF_PT: i8 = -3;
pub(crate) const UNDECIDED: i8 = 0;

/// hypre's HMIS on one rank on a strength graph of the generic setup (no
/// diagonal), as C points.
pub(crate) fn hmis_splitting(s: &crate::amg::raw::RawCsr) -> Vec<bool> {
    let n = s.nrows;
    let g = LocalS {
        diag: Pattern::from_rows(n, |i, c| {
            c.extend(s.row(i).0.iter().copied().filter(|&j| j as usize != i))
        }),
        offd: Pattern::from_rows(n, |_, _| {}),
    };
    let first = ruge::first_pass(&g);
    let cf = pmis::pmis(
        std::slice::from_ref(&g),
        &[Comm::default()],
        Some(vec![first]),
    );
    cf[0].iter().map(|&x| x >= 0).collect()
}

#[cfg(test)]
mod tests {
    use super::indepset::HypreRand;

    #[test]
    fn park_miller_matches_the_minimal_standards_check_value() {
        // Park and Miller (CACM 1988): from seed 1, the 10,000th draw is
        // 1,043,618,065.
        let mut g = HypreRand::new(1);
        let mut x = 0;
        for _ in 0..10_000 {
            x = g.next_int();
        }
        assert_eq!(x, 1_043_618_065);
    }
}
