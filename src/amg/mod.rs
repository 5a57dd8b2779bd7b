//! Stage 2: the classical AMG setup that produces the hierarchy
//! `A_0, P_0, A_1, P_1, ...` the analysis charges communication for.
//!
//! One module per step, as PyAMG's `classical/` folder:
//! [`strength`] -> `coarsen` (C/F splitting) -> `interp` -> `rap`
//! (Galerkin product), driven by [`build`]. The crate-private `raw` holds
//! the operator type that keeps SciPy's entry order (why: see there).
//!
//! May use `matrix`, and the ground floor (`output`, `memory`, `json_in`);
//! its files never import each other round a circle (`tests/layering.rs`).

mod coarsen;
pub mod diagnose;
pub mod glibc_rand;
mod hypre;
mod interp;
mod level;
pub mod levels_io;
mod rap;
mod raptor;
pub(crate) mod raw;
mod sizes;
pub mod strength;

pub use level::{Level, LevelMatrix};
pub use sizes::{LevelSizes, Sizes};

use clap::ValueEnum;
use rayon::prelude::*;

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
    /// hypre's HMIS: its Ruge-Stueben first pass inside each rank, then
    /// PMIS with hypre_Rand seeded 2747 + rank (with extended+i, hypre's
    /// whole setup on the ranks; other interpolations: one rank).
    Hmis,
    /// HMIS as RAPtor 2018 runs it on the ranks' row blocks: RS first
    /// pass within each rank, rank-boundary rows undecided again, then
    /// PMIS with RAPtor's weights (glibc rand, srand(2448422 + the rank's
    /// first row)); one block when the matrix carries no ownership.
    #[value(name = "hmis-raptor")]
    HmisRaptor,
    /// Cleary-Luby-Jones-Plassmann.
    Cljp,
    /// CLJP with RAPtor 2018's weights: `|S^T_i|` plus glibc rand with
    /// srand(2448422 + the rank's first row), drawn once on the finest
    /// level and used by local row on every level (form_rand_weights).
    #[value(name = "cljp-raptor")]
    CljpRaptor,
}

impl Coarsening {
    /// Whether the splitting depends on the ranks' row blocks (RAPtor's
    /// per-rank weights): the hierarchy is then built for each rank count.
    pub fn uses_ranks(self) -> bool {
        matches!(self, Coarsening::HmisRaptor | Coarsening::CljpRaptor)
    }
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
    /// Row blocks that do not tile the rows.
    #[error("the ranks' row blocks do not tile the {rows} rows (for {ranks} ranks)")]
    Blocks {
        /// Rows of the matrix.
        rows: usize,
        /// Ranks given.
        ranks: usize,
    },
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
    /// Whether these are BoomerAMG's own setup (HMIS with extended+i),
    /// which runs as hypre 2.26 runs it on the ranks.
    pub fn is_hypre(&self) -> bool {
        self.coarsening == Coarsening::Hmis && self.interpolation == Interpolation::ExtendedI
    }

    /// Whether the hierarchy depends on the ranks' rows: hypre's setup,
    /// and RAPtor's per-rank weights.
    pub fn uses_ranks(&self) -> bool {
        self.is_hypre() || self.coarsening.uses_ranks()
    }

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
    /// BoomerAMG's defaults, built as hypre 2.26 builds them on the ranks
    /// (same rows and nonzeros per level): signed strength theta 0.25,
    /// max_row_sum 0.9, HMIS, extended+i with P_max_elmts 4, max_coarse 9,
    /// max_levels 25.
    Hypre,
    /// PyAMG's `ruge_stuben_solver` defaults: abs classical strength theta
    /// 0.25, RS without second pass, classical interpolation, max_coarse
    /// 10, max_levels 30.
    Pyamg,
    /// An approximation of the EuroMPI'18 elasticity setting with hypre's
    /// rules: signed strength theta 0.5, num_functions 3, HMIS,
    /// extended+i, max_coarse 50, max_levels 25 (raptor-2018 is RAPtor's
    /// own code of the study).
    RaptorElasticity,
    /// RAPtor as the EuroMPI'18 study ran it (examples/benchmark_matops.cpp
    /// and raptor/multilevel/par_multilevel.hpp at commit c00e9d6,
    /// 2018-06-07): ParRugeStubenSolver with strength threshold 0.5
    /// (benchmark, mfem_system 2), RAPtor's classical strength (strict,
    /// min-based, no row-sum test; par_strength.cpp) on num_variables 3
    /// (mfem_linear_elasticity.cpp), HMIS (split_hmis: RS inside each rank,
    /// then PMIS with weights srand(2448422 + first_local_row); rand() /
    /// RAND_MAX), extended interpolation without truncation
    /// (par_interpolation.cpp), max_coarse 50, max_levels 25. With
    /// hmis-raptor the interpolation and the Galerkin product are RAPtor's
    /// own on the ranks, operation for operation: the levels RAPtor builds
    /// with its sends in rank order.
    #[value(name = "raptor-2018")]
    Raptor2018,
    /// RAPtor's benchmark_matops as it ran on Blue Waters in June 2018
    /// (examples/benchmark_matops.cpp, system 1):
    /// ParRugeStubenSolver(strong_threshold, CLJP, ModClassical,
    /// Classical, SOR) with strong_threshold 0.25 (commit c00e9d6 of
    /// June 7; eb5fb54 on blue_waters_updates sets 0.0 for system 1, but
    /// the June 11 logs have 15 levels and the per-level message counts
    /// of 0.25, 10 levels with 0.0: README), RAPtor's classical strength
    /// (par_strength.cpp), CLJP with RAPtor's weights (cljp-raptor),
    /// modified classical interpolation (ModClassical), max_coarse 50,
    /// max_levels 25 (par_multilevel.hpp). Adds the `aa` operation.
    #[value(name = "raptor-matops-2018")]
    RaptorMatops2018,
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
            Preset::Raptor2018 => Options {
                strength: StrengthOptions {
                    rule: Rule::Raptor,
                    theta: 0.5,
                    max_row_sum: 1.0,
                    num_functions: 3,
                },
                coarsening: Coarsening::HmisRaptor,
                interpolation: Interpolation::ExtendedI,
                p_max_elmts: 0,
                trunc_factor: 0.0,
                seed: 0,
                max_coarse: 50,
                max_levels: 25,
            },
            Preset::RaptorMatops2018 => Options {
                strength: StrengthOptions {
                    rule: Rule::Raptor,
                    theta: 0.25,
                    max_row_sum: 1.0,
                    num_functions: 1,
                },
                coarsening: Coarsening::CljpRaptor,
                interpolation: Interpolation::Classical,
                p_max_elmts: 0,
                trunc_factor: 0.0,
                seed: 0,
                max_coarse: 50,
                max_levels: 25,
            },
        }
    }
}

/// Wall time of the setup's steps: each lap adds the seconds since the
/// last one to a step's total.
struct Stopwatch(std::time::Instant);

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch(std::time::Instant::now())
    }

    /// Seconds since the last split (or the start); the next starts now.
    fn split(&mut self) -> f64 {
        let t = self.0.elapsed().as_secs_f64();
        self.0 = std::time::Instant::now();
        t
    }
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

/// Wall seconds of each setup step, summed over levels, and per level
/// (`amgcomm hierarchy --timings`: the JSON's `setup_seconds`, each level
/// an object of the steps by name).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SetupTimes {
    /// Strength of connection.
    pub strength: f64,
    /// C/F splitting.
    pub coarsening: f64,
    /// Interpolation (and truncation).
    pub interpolation: f64,
    /// The Galerkin product.
    pub rap: f64,
    /// Level 0's blocks made, and each level's `A` and `P` gathered whole
    /// from the ranks' blocks where a reader needs them whole
    /// ([`Hierarchy::make_whole`]; `amgcomm hierarchy` does not unless it
    /// saves the levels): the hypre preset on ranks, amgcomm's own work,
    /// no part of hypre's setup; 0 for the others.
    pub gather: f64,
    /// Per level, the same steps in [`SetupTimes::steps`]' order: the work
    /// done on that level (its strength, splitting, interpolation and
    /// product, and its gathering).
    #[serde(serialize_with = "steps_by_name")]
    pub levels: Vec<[f64; 5]>,
}

/// The steps' names, in [`SetupTimes::steps`]' order.
const STEP_NAMES: [&str; 5] = ["strength", "coarsening", "interpolation", "rap", "gather"];

/// Each level's steps as an object by name, in setup order.
fn steps_by_name<S: serde::Serializer>(levels: &[[f64; 5]], s: S) -> Result<S::Ok, S::Error> {
    struct Level<'a>(&'a [f64; 5]);
    impl serde::Serialize for Level<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(STEP_NAMES.iter().zip(self.0))
        }
    }
    s.collect_seq(levels.iter().map(Level))
}

/// A setup step, in [`SetupTimes::steps`]' order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    Strength,
    Coarsening,
    Interpolation,
    Rap,
    Gather,
}

impl SetupTimes {
    /// `(name, seconds)` in setup order.
    pub fn steps(&self) -> [(&'static str, f64); 5] {
        let t = [
            self.strength,
            self.coarsening,
            self.interpolation,
            self.rap,
            self.gather,
        ];
        std::array::from_fn(|k| (STEP_NAMES[k], t[k]))
    }

    /// `seconds` of `step` on `level`, to its total and to the level's.
    pub(crate) fn add(&mut self, level: usize, step: Step, seconds: f64) {
        let total = match step {
            Step::Strength => &mut self.strength,
            Step::Coarsening => &mut self.coarsening,
            Step::Interpolation => &mut self.interpolation,
            Step::Rap => &mut self.rap,
            Step::Gather => &mut self.gather,
        };
        *total += seconds;
        if self.levels.len() <= level {
            self.levels.resize(level + 1, [0.0; 5]);
        }
        self.levels[level][step as usize] += seconds;
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
    let rows = a.rows();
    build_ranked(a, &[0, rows], o, progress)
}

/// [`build_ranked`] on a matrix whose row `i` rank `owner[i]` owns (of
/// `ranks`), in any pattern (a partition file, METIS): as an application
/// hands its solver the rows, numbered rank by rank, each rank's in their
/// order. The setup runs on that numbering; level 0 comes back in the
/// input's (its operator, the rows of its `P`, its coarse points), the
/// coarse levels are the solver's, each rank's rows a block.
pub fn build_owned_by(
    a: Csr,
    owner: &[u32],
    ranks: usize,
    o: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Hierarchy, BuildError> {
    if owner.len() != a.rows() || owner.iter().any(|&r| r as usize >= ranks) {
        return Err(BuildError::Blocks {
            rows: a.rows(),
            ranks,
        });
    }
    let mut starts = vec![0usize; ranks + 1];
    for &r in owner {
        starts[r as usize + 1] += 1;
    }
    for r in 0..ranks {
        starts[r + 1] += starts[r];
    }
    if owner.windows(2).all(|w| w[0] <= w[1]) {
        return build_ranked(a, &starts, o, progress);
    }
    let mut next = starts.clone();
    let new_of_old: Vec<u32> = owner
        .iter()
        .map(|&r| {
            next[r as usize] += 1;
            (next[r as usize] - 1) as u32
        })
        .collect();
    let permuted = crate::matrix::permute::permute_symmetric(&a, 1, &new_of_old);
    drop(a);
    let mut h = build_ranked(permuted, &starts, o, progress)?;
    let mut old_of_new = vec![0u32; new_of_old.len()];
    for (old, &new) in new_of_old.iter().enumerate() {
        old_of_new[new as usize] = old as u32;
    }
    let fine = &mut h.levels[0];
    fine.a = crate::matrix::permute::permute_symmetric(&fine.a, 1, &old_of_new).into();
    if let Some(p) = &fine.p {
        fine.p = Some(crate::matrix::permute::permute_rows(p, &new_of_old).into());
    }
    for c in fine.coarse_points.iter_mut() {
        *c = old_of_new[*c as usize];
    }
    Ok(h)
}

/// [`build_owned`] on a matrix whose rows the ranks own in blocks (rank
/// `r` owns rows `blocks[r]..blocks[r+1]`), as a solver sees it after its
/// own partition ([`crate::matrix::Matrix::ownership`]). The coarse rows
/// stay with the rank of their C point. hypre's setup (HMIS with
/// extended+i) and RAPtor's splittings (per-rank random weights) depend
/// on the blocks; every other setup gives the same hierarchy as without
/// them.
pub fn build_ranked(
    a: Csr,
    blocks: &[usize],
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
    if blocks.first() != Some(&0)
        || blocks.last() != Some(&a.rows())
        || blocks.windows(2).any(|w| w[0] > w[1])
    {
        return Err(BuildError::Blocks {
            rows: a.rows(),
            ranks: blocks.len().saturating_sub(1),
        });
    }
    if o.is_hypre() {
        // BoomerAMG's own setup on the ranks, in its entry order.
        return hypre::build(RawCsr::from_csr_owned(a), blocks, o, progress);
    }
    // RAPtor draws each rank's weights once, from its first row, and uses
    // them by local index on every level (form_rand_weights).
    let raptor_random: Vec<Vec<f64>> = if o.coarsening.uses_ranks() {
        blocks
            .par_windows(2)
            .map(|w| {
                let mut g = glibc_rand::GlibcRand::new(2_448_422u32.wrapping_add(w[0] as u32));
                (w[0]..w[1]).map(|_| g.next_unit()).collect()
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut blocks = blocks.to_vec();
    // Each row's unknown on the coarse levels: its C point's.
    let mut functions: Option<Vec<u8>> = None;
    let mut levels = Vec::new();
    let mut times = SetupTimes::default();
    let mut clock = Stopwatch::start();
    let mut current = RawCsr::from_csr_owned(a);
    loop {
        progress(levels.len(), current.nrows);
        if levels.len() + 1 >= o.max_levels || current.nrows <= o.max_coarse {
            levels.push(Level::coarsest(current));
            break;
        }
        clock.split();
        let fns = match &functions {
            Some(f) => strength::Functions::Listed(f),
            None => strength::Functions::finest(nf),
        };
        let c = strength::strength_on(&current, &o.strength, fns);
        let s = strength::without_diagonal_sorted(&c);
        let st = s.transpose();
        times.add(levels.len(), Step::Strength, clock.split());
        // A different seed per level, reproducible from the run's seed.
        let seed = o.seed.wrapping_add(levels.len() as u64);
        // RAPtor's states (C, F, isolated), for its own interpolation.
        let mut states: Option<Vec<i8>> = None;
        let splitting = match o.coarsening {
            Coarsening::Rs => coarsen::rs(&s, &st, false),
            Coarsening::Rs2 => coarsen::rs(&s, &st, true),
            Coarsening::Pmis => coarsen::pmis(&s, &st, seed),
            Coarsening::Hmis => hypre::hmis_splitting(&s),
            Coarsening::Cljp => coarsen::cljp(&s, &st, seed),
            Coarsening::HmisRaptor | Coarsening::CljpRaptor => {
                let mut random = vec![0.0; current.nrows];
                for (b, w) in blocks.windows(2).enumerate() {
                    random[w[0]..w[1]].copy_from_slice(&raptor_random[b][..w[1] - w[0]]);
                }
                if o.coarsening == Coarsening::HmisRaptor {
                    let st8 = raptor::hmis::hmis_states(&s, &st, &blocks, &random);
                    let split = st8.iter().map(|&x| x == raptor::interp::C).collect();
                    states = Some(st8);
                    split
                } else {
                    coarsen::cljp_raptor(&s, &st, &random)
                }
            }
        };
        drop(st);
        times.add(levels.len(), Step::Coarsening, clock.split());
        let coarse_points: Vec<u32> = (0..splitting.len() as u32)
            .filter(|&i| splitting[i as usize])
            .collect();
        if coarse_points.is_empty() || coarse_points.len() == splitting.len() {
            // Coarsening stalled.
            levels.push(Level::coarsest(current));
            break;
        }
        let mut p = match (o.interpolation, &states) {
            (Interpolation::ExtendedI, Some(state)) => {
                // RAPtor's extended interpolation on its ranks.
                let (coarse_of, _) = interp::coarse_index(&splitting);
                let vars = (nf > 1).then(|| fns.to_vec(current.nrows));
                let l = raptor::interp::Level {
                    a: &current,
                    s: &s,
                    state,
                    blocks: &blocks,
                    vars: vars.as_deref(),
                };
                raptor::interp::extended(&l, &coarse_of, coarse_points.len())
            }
            (Interpolation::Direct, _) => interp::direct(&current, &c, &splitting),
            (Interpolation::Classical, _) => interp::classical(&current, &c, &splitting),
            (Interpolation::ExtendedI, _) => interp::extended_i(&current, &c, &splitting, fns),
        };
        drop(s);
        if o.p_max_elmts > 0 || o.trunc_factor > 0.0 {
            p = hypre::truncate(&p, o.trunc_factor, o.p_max_elmts);
        }
        // The strength matrix is done with: free it before the product,
        // the setup's memory peak.
        drop(c);
        times.add(levels.len(), Step::Interpolation, clock.split());
        // A rank's coarse rows: its C points, in order.
        let mut coarse_blocks = vec![0usize; blocks.len()];
        for (b, w) in blocks.windows(2).enumerate() {
            coarse_blocks[b + 1] =
                coarse_blocks[b] + splitting[w[0]..w[1]].iter().filter(|&&c| c).count();
        }
        let next = if o.coarsening.uses_ranks() {
            raptor::matmult::galerkin(&current, &p, &blocks, &coarse_blocks)
        } else {
            rap::galerkin(&current, &p)
        };
        times.add(levels.len(), Step::Rap, clock.split());
        if nf > 1 {
            let all = fns.to_vec(current.nrows);
            functions = Some(coarse_points.iter().map(|&i| all[i as usize]).collect());
        }
        blocks = coarse_blocks;
        levels.push(Level {
            a: current.into_csr().into(),
            p: Some(p.to_csr().into()),
            coarse_points,
        });
        current = next;
    }
    // A row for every level, the coarsest's (set up in no step) too.
    times.levels.resize(levels.len(), [0.0; 5]);
    Ok(Hierarchy {
        levels,
        setup_times: times,
    })
}
