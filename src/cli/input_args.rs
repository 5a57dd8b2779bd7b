//! The input flags: a matrix (`info`, `generate`, `partition`,
//! `hierarchy`, `compare`), or a matrix or levels folder (`analyze`).

use std::path::{Path, PathBuf};

use clap::Args;

use super::Error;
use crate::analysis::Input;
use crate::matrix::source::Source;
use crate::matrix::Matrix;
use crate::output::Plan;

/// aniso2d's parameters, given as flags.
#[derive(Args, Debug)]
#[command(next_help_heading = "Input")]
pub(crate) struct AnisoArgs {
    /// gen:aniso2d's anisotropy epsilon (default 0.001, RAPtor's
    /// benchmark_matops).
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: Option<f64>,
    /// gen:aniso2d's rotation of the anisotropy, in degrees (default 45).
    #[arg(long, value_name = "DEGREES", allow_negative_numbers = true)]
    angle: Option<f64>,
}

impl AnisoArgs {
    /// `spec` with the flags' parameters.
    pub(crate) fn spec(&self, spec: &str) -> Result<String, Error> {
        crate::matrix::source::with_anisotropy(spec, self.epsilon, self.angle).map_err(Error::Usage)
    }
}

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
    #[command(flatten)]
    aniso: AnisoArgs,
}

impl MatrixArgs {
    /// The input, parsed (a generator spec is checked) but not read.
    pub(crate) fn source(&self) -> Result<Source, Error> {
        Ok(Source::parse(&self.spec()?)?)
    }

    /// The input with the generator's flags.
    pub(crate) fn spec(&self) -> Result<String, Error> {
        self.aniso.spec(&self.input)
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
    #[command(flatten)]
    aniso: AnisoArgs,
}

impl InputArgs {
    /// The input the flags name.
    pub(crate) fn input(&self) -> Result<Input, Error> {
        Ok(match (&self.levels_from, &self.input) {
            (Some(dir), _) => Input::Levels(dir.clone()),
            (None, input) => Input::Matrix {
                spec: self.aniso.spec(input.as_deref().unwrap_or_default())?,
                permute: self.permute,
            },
        })
    }
}
