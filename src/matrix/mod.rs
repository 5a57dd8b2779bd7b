//! Stage 1: sparse matrices in and out.
//!
//! - [`io`]: matrix files, one reader per format behind one dispatcher
//!   (Matrix Market today, plain or gzip), and writers.
//! - [`csr`]: parallel CSR assembly from triplets or row by row.
//! - [`gen`]: built-in model problems (Poisson, 3D linear elasticity,
//!   MFEM's beam), and [`mesh`], the hexahedral meshes behind them.
//! - [`permute`]: random symmetric permutations.
//! - [`source`]: `FILE` or `gen:KIND:N` inputs.

pub mod csr;
pub mod elasticity;
pub mod gen;
pub mod io;
pub mod mesh;
pub mod permute;
pub mod source;

use serde::Serialize;

/// The one sparse type of the pipeline: CSR, `f64` values, `u32` column
/// indices (half the memory traffic of `usize`), `usize` row pointers so
/// that more than 4 billion nonzeros still fit.
pub type Csr = sprs::CsMatI<f64, u32, usize>;

/// Matrix Market `field` of the data a matrix was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    /// Real values (`real` or `double`).
    Real,
    /// Integer values.
    Integer,
    /// No values: every entry 1.0.
    Pattern,
}

/// Matrix Market `symmetry` qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Symmetry {
    /// Every entry stored.
    General,
    /// `a_ji = a_ij`, the lower triangle stored.
    Symmetric,
    /// `a_ji = -a_ij`, the strict lower triangle stored.
    SkewSymmetric,
}

impl Field {
    /// Its Matrix Market name.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Real => "real",
            Field::Integer => "integer",
            Field::Pattern => "pattern",
        }
    }
}

impl Symmetry {
    /// Its Matrix Market name.
    pub fn as_str(self) -> &'static str {
        match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
        }
    }
}

/// How an input numbers its rows, so that a message names a row as the
/// user finds it in the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Numbering {
    /// From 1: a Matrix Market file.
    FromOne,
    /// From 0: hypre's and PETSc's global row indices, a generator's rows.
    #[default]
    FromZero,
    /// From 0, of the rows renumbered by amgcomm (`--permute`, MFEM's
    /// partition): not the input's own.
    Renumbered,
}

impl Numbering {
    /// The input's name of the 0-based row `row`.
    pub fn name(self, row: usize) -> usize {
        match self {
            Numbering::FromOne => row + 1,
            Numbering::FromZero | Numbering::Renumbered => row,
        }
    }

    /// What the number means, for a message.
    pub fn says(self) -> &'static str {
        match self {
            Numbering::FromOne => "counted from 1, as in the file",
            Numbering::FromZero => "global index, counted from 0",
            Numbering::Renumbered => "counted from 0, after amgcomm's renumbering",
        }
    }
}

/// A matrix with what is known of where it came from.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// File path or generator spec, for reports and messages.
    pub name: String,
    /// The field of the file it was read from.
    pub field: Field,
    /// The symmetry of the file it was read from.
    pub symmetry: Symmetry,
    /// Unknowns per mesh node, interleaved (3 for 3D elasticity, else 1).
    pub block_size: usize,
    /// The matrix itself.
    pub csr: Csr,
    /// The row blocks of the ranks that wrote it, when its source says
    /// (per-rank files of a parallel code); `None` for Matrix Market files
    /// and generators.
    pub ownership: Option<Ownership>,
    /// How the input numbers its rows, for messages.
    pub numbering: Numbering,
}

/// Contiguous row blocks of ranks, as a parallel source numbers them:
/// rank `r` owns rows `starts[r]..starts[r + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ownership {
    /// `ranks + 1` nondecreasing row offsets, from 0 to the row count.
    pub starts: Vec<usize>,
}

/// The summary `amgcomm info` prints; `nnz` counts the expanded matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Info {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Stored nonzeros of the expanded matrix.
    pub nnz: usize,
    /// The file's field.
    pub field: Field,
    /// The file's symmetry.
    pub symmetry: Symmetry,
}

impl Matrix {
    /// Its size, nonzeros, field and symmetry.
    pub fn info(&self) -> Info {
        Info {
            field: self.field,
            symmetry: self.symmetry,
            ..Info::of(&self.csr)
        }
    }
}

impl Info {
    /// The size of `a`, as a real general matrix (no file to say more).
    pub fn of(a: &Csr) -> Info {
        Info {
            rows: a.rows(),
            cols: a.cols(),
            nnz: a.nnz(),
            field: Field::Real,
            symmetry: Symmetry::General,
        }
    }
}
