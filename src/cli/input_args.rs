//! The input flags: a matrix (`info`, `generate`, `partition`,
//! `hierarchy`, `compare`), or a matrix or levels folder (`analyze`).

use std::path::{Path, PathBuf};

use clap::Args;

use super::Error;
use crate::analysis::Input;
use crate::matrix::source::Source;
use crate::matrix::Matrix;
use crate::output::Plan;

/// A matrix input: a file or `gen:KIND:N`, optionally permuted.
#[derive(Args, Debug)]
#[command(next_help_heading = "Input")]
pub(crate) struct MatrixArgs {
    /// Matrix Market file (.mtx, .mtx.gz), PETSc binary file, hypre IJ
    /// prefix (path/A for path/A.00000, ...), - for standard input, or
    /// gen:KIND:N.
    pub(crate) input: String,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    pub(crate) permute: Option<u64>,
}

impl MatrixArgs {
    /// The input, parsed (a generator spec is checked) but not read.
    pub(crate) fn source(&self) -> Result<Source, Error> {
        Ok(Source::parse(&self.input)?)
    }

    /// The input file, for the outputs' check.
    pub(crate) fn add_input(&self, plan: &mut Plan) {
        plan.input(Path::new(&self.input));
    }

    /// Read or generate the matrix.
    pub(crate) fn load(&self, source: &Source) -> Result<Matrix, Error> {
        Ok(source.load(self.permute)?)
    }
}

/// The hierarchy to analyse: a matrix to build it from, or a levels folder.
#[derive(Args, Debug)]
#[command(next_help_heading = "Input")]
pub(crate) struct InputArgs {
    /// Matrix Market file (.mtx, .mtx.gz), PETSc binary file, hypre IJ
    /// prefix (path/A for path/A.00000, ...), - for standard input, or
    /// gen:KIND:N (or use --levels-from).
    #[arg(
        required_unless_present = "levels_from",
        conflicts_with = "levels_from"
    )]
    input: Option<String>,
    /// Read the hierarchy from DIR instead of building one: A0.mtx, P0.mtx,
    /// [C0.txt], A1.mtx, ... (PyAMG, --save-levels), A0.petsc, P0.petsc,
    /// ... (PETSc), hypre rank files A0.00000, P0.00000, ...
    /// (tools/hypre_dump_levels.c; their ranks are every level's
    /// partition), or the one file PETSc's -pc_mg_dump_binary writes. The
    /// AMG flags and --permute do not apply to it.
    #[arg(long, value_name = "DIR", conflicts_with_all = [
        "preset", "theta", "strength", "max_row_sum", "num_functions", "coarsening",
        "interpolation", "p_max_elmts", "trunc_factor", "seed", "max_coarse",
        "max_levels", "permute"])]
    levels_from: Option<PathBuf>,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
}

impl InputArgs {
    /// The input the flags name.
    pub(crate) fn input(&self) -> Input {
        match (&self.levels_from, &self.input) {
            (Some(dir), _) => Input::Levels(dir.clone()),
            (None, input) => Input::Matrix {
                spec: input.clone().unwrap_or_default(),
                permute: self.permute,
            },
        }
    }
}
