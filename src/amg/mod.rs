//! Stage 2: the classical AMG setup that produces the hierarchy
//! `A_0, P_0, A_1, P_1, ...` the analysis charges communication for.
//!
//! One module per step, as PyAMG's `classical/` folder:
//! [`strength`] -> `coarsen` (C/F splitting) -> `interp` -> `rap`
//! (Galerkin product), driven by [`build`]. The crate-private `raw` holds
//! the operator type that keeps SciPy's entry order (why: see there).

mod coarsen;
pub mod diagnose;
mod interp;
pub mod levels_io;
mod rap;
pub(crate) mod raw;
pub mod strength;

use clap::ValueEnum;

use crate::matrix::Csr;
use raw::RawCsr;
use strength::{Rule, StrengthOptions};

/// The C/F splitting algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Coarsening {
    /// Ruge-Stueben, first pass (PyAMG's `RS` with `second_pass=False`).
    Rs,
    /// Ruge-Stueben with PyAMG's second pass.
    Rs2,
    /// Parallel modified independent set (De Sterck, Yang, Heys 2006).
    Pmis,
    /// HMIS: RS first pass on each rank's part, then PMIS (hypre's default).
    Hmis,
    /// Cleary-Luby-Jones-Plassmann.
    Cljp,
}

/// The interpolation operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Interpolation {
    /// Direct interpolation from strong C neighbours.
    Direct,
    /// PyAMG's modified classical interpolation.
    Classical,
    /// hypre's extended+i (`interp_type 6`).
    #[value(name = "extended+i")]
    ExtendedI,
}

/// Options the setup refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    /// AMG needs a square operator.
    #[error("AMG needs a square matrix, this one is {rows} x {cols}")]
    NotSquare {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    /// The strength threshold is outside `[0, 1]`.
    #[error("theta must lie in [0, 1], got {0}")]
    Theta(f64),
    /// The truncation factor is outside `[0, 1)`.
    #[error("trunc_factor must lie in [0, 1), got {0}")]
    TruncFactor(f64),
    /// No level at all.
    #[error("max_levels must be at least 1")]
    MaxLevels,
    /// Strength by unknowns with no unknown per node.
    #[error("num_functions must be at least 1")]
    NumFunctions,
    /// Unknowns per node that do not tile the rows.
    #[error("{rows} rows are not a multiple of num_functions {num_functions} (unknowns per node)")]
    NumFunctionsRows {
        /// Rows of the matrix.
        rows: usize,
        /// Unknowns per node asked for.
        num_functions: usize,
    },
}

/// Everything the setup needs to know.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// How strong connections are found.
    pub strength: StrengthOptions,
    /// The C/F splitting.
    pub coarsening: Coarsening,
    /// The interpolation.
    pub interpolation: Interpolation,
    /// hypre's `P_max_elmts`: at most this many entries per row of P (0: no limit).
    pub p_max_elmts: usize,
    /// hypre's `trunc_factor`: drop entries of P below this fraction of the
    /// row's largest (0: off).
    pub trunc_factor: f64,
    /// Seed of the random weights of PMIS, HMIS and CLJP.
    pub seed: u64,
    /// Stop when a level has at most this many rows.
    pub max_coarse: usize,
    /// At most this many levels, the finest included.
    pub max_levels: usize,
}

impl Options {
    /// Checks the options alone (before any matrix is read).
    pub fn validate(&self) -> Result<(), BuildError> {
        if !(0.0..=1.0).contains(&self.strength.theta) {
            return Err(BuildError::Theta(self.strength.theta));
        }
        if !(0.0..1.0).contains(&self.trunc_factor) {
            return Err(BuildError::TruncFactor(self.trunc_factor));
        }
        if self.max_levels == 0 {
            return Err(BuildError::MaxLevels);
        }
        if self.strength.num_functions == 0 {
            return Err(BuildError::NumFunctions);
        }
        Ok(())
    }
}

/// Named settings that choose everything at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Preset {
    /// BoomerAMG's defaults: signed strength theta 0.25, max_row_sum 0.9,
    /// HMIS, extended+i with P_max_elmts 4, max_coarse 9, max_levels 25.
    Hypre,
    /// PyAMG's `ruge_stuben_solver` defaults: abs classical strength theta
    /// 0.25, RS without second pass, classical interpolation, max_coarse
    /// 10, max_levels 30.
    Pyamg,
    /// The EuroMPI'18 elasticity setting (RAPtor): signed strength theta
    /// 0.5, num_functions 3, HMIS, extended+i, max_coarse 50, max_levels 25.
    RaptorElasticity,
}

impl Preset {
    /// Its command-line name.
    pub fn name(self) -> String {
        crate::value_name(&self)
    }

    /// Its settings.
    pub fn options(self) -> Options {
        match self {
            Preset::Pyamg => Options {
                strength: StrengthOptions {
                    rule: Rule::Abs,
                    theta: 0.25,
                    max_row_sum: 1.0,
                    num_functions: 1,
                },
                coarsening: Coarsening::Rs,
                interpolation: Interpolation::Classical,
                p_max_elmts: 0,
                trunc_factor: 0.0,
                seed: 0,
                max_coarse: 10,
                max_levels: 30,
            },
            Preset::Hypre => Options {
                strength: StrengthOptions {
                    rule: Rule::Signed,
                    theta: 0.25,
                    max_row_sum: 0.9,
                    num_functions: 1,
                },
                coarsening: Coarsening::Hmis,
                interpolation: Interpolation::ExtendedI,
                p_max_elmts: 4,
                trunc_factor: 0.0,
                seed: 0,
                max_coarse: 9,
                max_levels: 25,
            },
            Preset::RaptorElasticity => Options {
                strength: StrengthOptions {
                    rule: Rule::Signed,
                    theta: 0.5,
                    max_row_sum: 1.0,
                    num_functions: 3,
                },
                coarsening: Coarsening::Hmis,
                interpolation: Interpolation::ExtendedI,
                p_max_elmts: 0,
                trunc_factor: 0.0,
                seed: 0,
                max_coarse: 50,
                max_levels: 25,
            },
        }
    }
}

/// One level: its operator, and (except on the coarsest) its interpolation
/// and the fine indices of its coarse points, in coarse order.
#[derive(Clone, Debug)]
pub struct Level {
    /// The operator `A_l`.
    pub a: Csr,
    /// The interpolation `P_l` to this level from the next (none on the
    /// coarsest).
    pub p: Option<Csr>,
    /// Fine indices of the coarse points, in coarse order.
    pub coarse_points: Vec<u32>,
}

/// Bytes the setup holds at its peak for a level 0 of `rows` rows and
/// `nnz` nonzeros (the matrix, strength, `P`, the Galerkin products and
/// the coarse levels): 40 per nonzero and 640 per row, 1.1 to 1.4 times
/// the peaks `scripts/bench.sh memory` measures (sparse stencils grow the
/// coarse operators most, so the rows carry much of it).
pub fn setup_bytes(rows: u64, nnz: u64) -> u64 {
    nnz.saturating_mul(40)
        .saturating_add(rows.saturating_mul(640))
}

/// A whole hierarchy, finest level first.
#[derive(Clone, Debug)]
pub struct Hierarchy {
    /// The levels.
    pub levels: Vec<Level>,
    /// Wall seconds of each setup step, summed over levels (zero for a
    /// hierarchy read from files).
    pub setup_times: SetupTimes,
}

/// Wall seconds of each setup step, summed over levels.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SetupTimes {
    /// Strength of connection.
    pub strength: f64,
    /// C/F splitting.
    pub coarsening: f64,
    /// Interpolation (and truncation).
    pub interpolation: f64,
    /// The Galerkin product.
    pub rap: f64,
}

impl SetupTimes {
    /// `(name, seconds)` in setup order.
    pub fn steps(&self) -> [(&'static str, f64); 4] {
        [
            ("strength", self.strength),
            ("coarsening", self.coarsening),
            ("interpolation", self.interpolation),
            ("rap", self.rap),
        ]
    }
}

impl Hierarchy {
    /// `sum_l nnz(A_l) / nnz(A_0)`.
    pub fn operator_complexity(&self) -> f64 {
        let total: usize = self.levels.iter().map(|l| l.a.nnz()).sum();
        total as f64 / self.levels[0].a.nnz().max(1) as f64
    }

    /// `sum_l rows(A_l) / rows(A_0)`.
    pub fn grid_complexity(&self) -> f64 {
        let total: usize = self.levels.iter().map(|l| l.a.rows()).sum();
        total as f64 / self.levels[0].a.rows().max(1) as f64
    }
}

/// Build the hierarchy of a square matrix. `progress(level, rows)` is called
/// as each level's setup starts.
pub fn build(
    a: &Csr,
    o: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Hierarchy, BuildError> {
    build_owned(a.clone(), o, progress)
}

/// [`build`] taking the matrix over: its arrays become level 0's without a
/// copy, so the fine matrix is held once.
pub fn build_owned(
    a: Csr,
    o: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Hierarchy, BuildError> {
    if a.rows() != a.cols() {
        return Err(BuildError::NotSquare {
            rows: a.rows(),
            cols: a.cols(),
        });
    }
    o.validate()?;
    let nf = o.strength.num_functions;
    if !a.rows().is_multiple_of(nf) {
        return Err(BuildError::NumFunctionsRows {
            rows: a.rows(),
            num_functions: nf,
        });
    }
    let mut levels = Vec::new();
    let mut times = SetupTimes::default();
    let mut clock = std::time::Instant::now();
    let mut lap = |t: &mut f64| {
        *t += clock.elapsed().as_secs_f64();
        clock = std::time::Instant::now();
    };
    let mut current = RawCsr::from_csr_owned(a);
    loop {
        progress(levels.len(), current.nrows);
        let last = |current: RawCsr| Level {
            a: current.into_csr(),
            p: None,
            coarse_points: Vec::new(),
        };
        if levels.len() + 1 >= o.max_levels || current.nrows <= o.max_coarse {
            levels.push(last(current));
            break;
        }
        lap(&mut 0.0);
        let c = strength::strength(&current, &o.strength);
        let s = strength::without_diagonal_sorted(&c);
        let st = s.transpose();
        lap(&mut times.strength);
        // A different seed per level, reproducible from the run's seed.
        let seed = o.seed.wrapping_add(levels.len() as u64);
        let splitting = match o.coarsening {
            Coarsening::Rs => coarsen::rs(&s, &st, false),
            Coarsening::Rs2 => coarsen::rs(&s, &st, true),
            Coarsening::Pmis => coarsen::pmis(&s, &st, seed),
            Coarsening::Hmis => coarsen::hmis(&s, &st, seed),
            Coarsening::Cljp => coarsen::cljp(&s, &st, seed),
        };
        drop((s, st));
        lap(&mut times.coarsening);
        let coarse_points: Vec<u32> = (0..splitting.len() as u32)
            .filter(|&i| splitting[i as usize])
            .collect();
        if coarse_points.is_empty() || coarse_points.len() == splitting.len() {
            // Coarsening stalled.
            levels.push(last(current));
            break;
        }
        let mut p = match o.interpolation {
            Interpolation::Direct => interp::direct(&current, &c, &splitting),
            Interpolation::Classical => interp::classical(&current, &c, &splitting),
            Interpolation::ExtendedI => {
                interp::extended_i(&current, &c, &splitting, o.strength.num_functions)
            }
        };
        if o.p_max_elmts > 0 || o.trunc_factor > 0.0 {
            p = interp::truncate(&p, o.trunc_factor, o.p_max_elmts);
        }
        // The strength matrix is done with: free it before the product,
        // the setup's memory peak.
        drop(c);
        lap(&mut times.interpolation);
        let next = rap::galerkin(&current, &p);
        lap(&mut times.rap);
        levels.push(Level {
            a: current.into_csr(),
            p: Some(p.to_csr()),
            coarse_points,
        });
        current = next;
    }
    Ok(Hierarchy {
        levels,
        setup_times: times,
    })
}
