//! Stage 1: sparse matrices in and out.
//!
//! - [`io`]: matrix files, one reader per format behind one dispatcher
//!   (Matrix Market today, plain or gzip), and writers.
//! - [`csr`]: parallel CSR assembly from triplets or row by row.
//! - [`gen`]: built-in model problems (Poisson, 3D linear elasticity,
//!   MFEM's beam), and [`mesh`], the hexahedral meshes behind them.
//! - [`permute`]: random symmetric permutations.
//! - [`source`]: `FILE` or `gen:KIND:N` inputs.
//!
//! May use no other stage, and the ground floor (`output`, `memory`,
//! `json_in`); its files never import each other round a circle
//! (`tests/layering.rs`).

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
    /// A matrix handed over in memory as `name` (rows from 0, real,
    /// general: nothing says more).
    pub fn held(name: &str, csr: Csr) -> Matrix {
        Matrix {
            name: name.into(),
            field: Field::Real,
            symmetry: Symmetry::General,
            block_size: 1,
            csr,
            ownership: None,
            numbering: Numbering::FromZero,
        }
    }

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

/// A CSR matrix from its parts as SciPy holds them (`indptr`, `indices`,
/// `data`, `shape`), checked as a Matrix Market file is read: row
/// pointers that start at 0, never fall and end at the nonzeros, column
/// indices in range, finite values (named by row and column, from 0).
/// Rows whose columns are unsorted or repeated are sorted and their
/// duplicates summed, as a file's repeated entries are.
pub fn csr_from_parts(
    name: &str,
    (rows, cols): (usize, usize),
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<f64>,
) -> Result<Csr, String> {
    let bad = |why: String| format!("{name}: {why}");
    if indptr.len() != rows + 1 || indptr[0] != 0 || indptr[rows] != indices.len() {
        return Err(bad(format!(
            "indptr must hold {} row pointers from 0 to the {} nonzeros",
            rows + 1,
            indices.len()
        )));
    }
    if data.len() != indices.len() || cols > u32::MAX as usize {
        return Err(bad(format!(
            "{} values for {} column indices",
            data.len(),
            indices.len()
        )));
    }
    let mut canonical = true;
    for i in 0..rows {
        let (lo, hi) = (indptr[i], indptr[i + 1]);
        if hi < lo {
            return Err(bad(format!("indptr falls at row {i}")));
        }
        for k in lo..hi {
            let j = indices[k] as usize;
            if j >= cols {
                return Err(bad(format!(
                    "row {i}: column {j} is out of range ({cols} columns)"
                )));
            }
            if !data[k].is_finite() {
                return Err(bad(format!(
                    "row {i}, column {j} (from 0): value {} is not a finite number",
                    data[k]
                )));
            }
            canonical &= k == lo || indices[k - 1] < indices[k];
        }
    }
    if canonical {
        return Csr::try_new((rows, cols), indptr, indices, data)
            .map_err(|e| bad(format!("not a CSR matrix: {}", e.3)));
    }
    let mut tri = sprs::TriMatI::<f64, u32>::with_capacity((rows, cols), indices.len());
    for i in 0..rows {
        for k in indptr[i]..indptr[i + 1] {
            tri.add_triplet(i, indices[k] as usize, data[k]);
        }
    }
    Ok(tri.to_csr())
}
