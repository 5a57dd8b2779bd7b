//! Stage 1: sparse matrices in and out.
//!
//! - [`mtx_read`]: parallel Matrix Market reader (plain or gzip).
//! - [`mtx_write`]: Matrix Market writer with round-trip precision.
//! - [`csr`]: parallel CSR assembly from triplets or row by row.
//! - [`gen`]: built-in model problems (Poisson, 3D linear elasticity).
//! - [`permute`]: random symmetric permutations.
//! - [`source`]: `FILE` or `gen:KIND:N` inputs.

pub mod csr;
pub mod elasticity;
pub mod gen;
pub mod mtx_read;
pub mod mtx_write;
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
    Real,
    Integer,
    Pattern,
}

/// Matrix Market `symmetry` qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Symmetry {
    General,
    Symmetric,
    SkewSymmetric,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Real => "real",
            Field::Integer => "integer",
            Field::Pattern => "pattern",
        }
    }
}

impl Symmetry {
    pub fn as_str(self) -> &'static str {
        match self {
            Symmetry::General => "general",
            Symmetry::Symmetric => "symmetric",
            Symmetry::SkewSymmetric => "skew-symmetric",
        }
    }
}

/// A matrix with what is known of where it came from.
#[derive(Clone, Debug)]
pub struct Matrix {
    /// File path or generator spec, for reports and messages.
    pub name: String,
    pub field: Field,
    pub symmetry: Symmetry,
    /// Unknowns per mesh node, interleaved (3 for 3D elasticity, else 1).
    pub block_size: usize,
    pub csr: Csr,
}

/// The summary `amgcomm info` prints; `nnz` counts the expanded matrix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Info {
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
    pub field: Field,
    pub symmetry: Symmetry,
}

impl Matrix {
    pub fn info(&self) -> Info {
        Info {
            rows: self.csr.rows(),
            cols: self.csr.cols(),
            nnz: self.csr.nnz(),
            field: self.field,
            symmetry: self.symmetry,
        }
    }
}
