//! Built-in model problems, generated in parallel row by row.
//!
//! - `poisson2d`: 5-point Laplacian on an `N x N` grid of unknowns
//!   (Dirichlet boundary eliminated; PyAMG's `gallery.poisson((N, N))`).
//! - `poisson3d`: 7-point Laplacian on `N^3` unknowns (`gallery.poisson((N,N,N))`).
//! - `poisson3d-27`: 27-point stencil, 26 on the diagonal, -1 off it.
//! - `elasticity3d`: Q1 linear elasticity on `N^3` elements ([`super::elasticity`]).
//! - `beam`: MFEM's beam-hex refined `R` times, the EuroMPI'18 problem
//!   ([`super::elasticity::assemble_beam`]).
//! - `aniso2d`: RAPtor's (and PyAMG's) rotated anisotropic Q1 diffusion
//!   stencil `diffusion_stencil_2d(epsilon, theta)` on an `N x N` grid,
//!   as RAPtor's `par_stencil_grid` assembles it (the benchmark_matops
//!   problem of June 2018: `N = 3200`, `epsilon = 0.001`, 45 degrees).
//!
//! Unknowns are numbered lexicographically, x fastest.

use std::fmt;

use super::mesh::HexMesh;
use super::{csr, elasticity, Csr, Field, Matrix, Symmetry};

/// The model problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Q1 linear elasticity on N^3 hexahedra, face x = 0 clamped.
    Elasticity3d,
    /// MFEM's beam-hex (8 x 1 x 1) refined N times: Q1 elasticity, Lame
    /// 50 where x < 4 and 1 beyond, face x = 0 clamped in place (the
    /// EuroMPI'18 problem; N = 5 gives 839,619 rows).
    Beam,
    /// 7-point Laplacian on N^3 unknowns.
    Poisson3d,
    /// 27-point stencil on N^3 unknowns.
    #[value(name = "poisson3d-27")]
    Poisson3d27,
    /// 5-point Laplacian on N^2 unknowns.
    Poisson2d,
    /// Rotated anisotropic diffusion, Q1 9-point stencil on N^2 unknowns
    /// (RAPtor's diffusion_stencil_2d on par_stencil_grid; --epsilon,
    /// --angle).
    Aniso2d,
}

impl Kind {
    /// Its name in `gen:KIND:N` and `generate KIND`.
    pub fn name(self) -> String {
        crate::value_name(&self)
    }

    /// The kind named `s`.
    pub fn parse(s: &str) -> Option<Kind> {
        <Kind as clap::ValueEnum>::from_str(s, false).ok()
    }

    /// Unknowns per node.
    pub fn block_size(self) -> usize {
        if matches!(self, Kind::Elasticity3d | Kind::Beam) {
            3
        } else {
            1
        }
    }

    /// The hexahedral mesh of a finite element kind of size `n`.
    pub fn mesh(self, n: usize) -> Option<HexMesh> {
        match self {
            Kind::Elasticity3d => Some(HexMesh::elasticity3d(n)),
            Kind::Beam => Some(HexMesh::beam(n as u32)),
            _ => None,
        }
    }

    /// At most this many nonzeros per row: the stencil's width (81 for
    /// Q1 elasticity: 27 nodes of 3 unknowns).
    pub fn row_width(self) -> u128 {
        match self {
            Kind::Poisson2d => 5,
            Kind::Aniso2d => 9,
            Kind::Poisson3d => 7,
            Kind::Poisson3d27 => 27,
            Kind::Elasticity3d | Kind::Beam => 81,
        }
    }

    /// Number of rows for size `n`.
    pub fn rows(self, n: usize) -> u128 {
        let n = n as u128;
        match self {
            Kind::Poisson2d | Kind::Aniso2d => n * n,
            Kind::Poisson3d | Kind::Poisson3d27 => n * n * n,
            Kind::Elasticity3d => 3 * n * (n + 1) * (n + 1),
            Kind::Beam => {
                // 2^n, saturating: past 2^40 no computer holds it anyway.
                let m = if n > 40 { u128::MAX >> 84 } else { 1u128 << n };
                3 * (8 * m + 1) * (m + 1) * (m + 1)
            }
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Every kind's name, joined by ", ".
pub fn kind_names() -> String {
    crate::value_names::<Kind>()
}

/// A generator call: kind, size, material (elasticity3d) and anisotropy
/// (aniso2d).
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Which problem.
    pub kind: Kind,
    /// Its grid size.
    pub n: usize,
    /// Young's modulus E (elasticity).
    pub young: f64,
    /// Poisson's ratio nu (elasticity).
    pub poisson_ratio: f64,
    /// The anisotropy `epsilon` of aniso2d: `-div Q diag(1, epsilon) Q^T grad`.
    pub epsilon: f64,
    /// The rotation of aniso2d's anisotropy, in degrees.
    pub angle: f64,
}

/// aniso2d's default anisotropy: RAPtor's benchmark_matops (system 1).
pub const ANISO_EPSILON: f64 = 0.001;
/// aniso2d's default rotation in degrees (benchmark_matops: `M_PI/4`).
pub const ANISO_ANGLE: f64 = 45.0;

/// Parameters a generator refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProblemError {
    /// No grid.
    #[error("{0}: N must be at least 1")]
    ZeroSize(Kind),
    /// More rows than 32-bit indices hold.
    #[error("{kind} with N = {n} has {rows} rows, more than the {} supported", u32::MAX - 1)]
    TooLarge {
        /// Which problem.
        kind: Kind,
        /// Its size.
        n: usize,
        /// Its rows.
        rows: u128,
    },
    /// E <= 0.
    #[error("Young's modulus must be positive, got {0}")]
    Young(f64),
    /// nu outside (-1, 0.5).
    #[error("Poisson's ratio must lie in (-1, 0.5) for a positive definite operator, got {0}")]
    PoissonRatio(f64),
    /// An anisotropy that is not a positive finite number.
    #[error("epsilon must be a positive number, got {0}")]
    Epsilon(f64),
    /// An angle that is not finite.
    #[error("the angle must be a finite number of degrees, got {0}")]
    Angle(f64),
    /// Anisotropy for a problem that has none.
    #[error("{0} has no anisotropy; epsilon and angle apply to aniso2d")]
    Anisotropy(Kind),
    /// A material for a problem whose material is fixed.
    #[error("{0} has its own materials (Lame 50 and 1, as RAPtor's MFEM problem); E and nu apply to elasticity3d")]
    Material(Kind),
    /// More than this computer holds.
    #[error(transparent)]
    Memory(#[from] crate::memory::TooLarge),
}

impl Problem {
    /// `kind` of size `n`, default material (E = 1, nu = 0.3).
    pub fn new(kind: Kind, n: usize) -> Problem {
        Problem {
            kind,
            n,
            young: 1.0,
            poisson_ratio: 0.3,
            epsilon: ANISO_EPSILON,
            angle: ANISO_ANGLE,
        }
    }

    /// Whether epsilon and angle are aniso2d's defaults.
    fn default_anisotropy(&self) -> bool {
        self.epsilon == ANISO_EPSILON && self.angle == ANISO_ANGLE
    }

    /// `gen:KIND:N`, the spec that reproduces this matrix (material noted
    /// when not the default).
    pub fn spec(&self) -> String {
        let mut s = format!("gen:{}:{}", self.kind, self.n);
        if self.kind == Kind::Elasticity3d && (self.young != 1.0 || self.poisson_ratio != 0.3) {
            s += &format!(" (E={}, nu={})", self.young, self.poisson_ratio);
        }
        if self.kind == Kind::Aniso2d && !self.default_anisotropy() {
            s += &format!(":epsilon={}:angle={}", self.epsilon, self.angle);
        }
        s
    }

    /// Check the parameters; the message names the offending option.
    pub fn validate(&self) -> Result<(), ProblemError> {
        // The beam's N counts refinements: 0 is the 8-element base mesh.
        if self.n == 0 && self.kind != Kind::Beam {
            return Err(ProblemError::ZeroSize(self.kind));
        }
        if self.kind.rows(self.n) >= u32::MAX as u128 {
            return Err(ProblemError::TooLarge {
                kind: self.kind,
                n: self.n,
                rows: self.kind.rows(self.n),
            });
        }
        if self.kind == Kind::Beam && (self.young != 1.0 || self.poisson_ratio != 0.3) {
            return Err(ProblemError::Material(self.kind));
        }
        if self.kind == Kind::Aniso2d {
            if !(self.epsilon > 0.0 && self.epsilon.is_finite()) {
                return Err(ProblemError::Epsilon(self.epsilon));
            }
            if !self.angle.is_finite() {
                return Err(ProblemError::Angle(self.angle));
            }
        } else if !self.default_anisotropy() {
            return Err(ProblemError::Anisotropy(self.kind));
        }
        if self.kind == Kind::Elasticity3d {
            if !(self.young > 0.0 && self.young.is_finite()) {
                return Err(ProblemError::Young(self.young));
            }
            if !(self.poisson_ratio > -1.0 && self.poisson_ratio < 0.5) {
                return Err(ProblemError::PoissonRatio(self.poisson_ratio));
            }
        }
        Ok(())
    }

    /// Nonzeros at most (rows times the stencil's width).
    pub fn nnz_bound(&self) -> u64 {
        let nnz = self.kind.rows(self.n) * self.kind.row_width();
        nnz.min(u64::MAX as u128) as u64
    }

    /// Bytes [`Problem::generate`] holds at its peak: 14 per nonzero of
    /// the stencil's bound (`scripts/bench.sh memory` measures 12.4 to 13.4
    /// per nonzero).
    pub fn memory_bytes(&self) -> u64 {
        self.nnz_bound().saturating_mul(14)
    }

    /// The matrix, assembled in parallel; refused before any allocation
    /// when it would not fit in memory.
    pub fn generate(&self) -> Result<Matrix, ProblemError> {
        self.validate()?;
        crate::memory::check(self.memory_bytes(), || {
            format!(
                "a matrix of {} rows and up to {} nonzeros",
                self.kind.rows(self.n),
                self.nnz_bound()
            )
        })?;
        let n = self.n;
        let csr = match self.kind {
            Kind::Poisson2d => stencil(&[n, n, 1], 1, 4.0),
            Kind::Aniso2d => stencil_2d(n, &diffusion_stencil_2d(self.epsilon, self.angle)),
            Kind::Poisson3d => stencil(&[n, n, n], 1, 6.0),
            Kind::Poisson3d27 => stencil(&[n, n, n], 3, 26.0),
            Kind::Elasticity3d => elasticity::assemble(n, self.young, self.poisson_ratio),
            Kind::Beam => elasticity::assemble_beam(n as u32),
        };
        Ok(Matrix {
            name: self.spec(),
            field: Field::Real,
            symmetry: Symmetry::Symmetric,
            block_size: self.kind.block_size(),
            csr,
            ownership: None,
            numbering: crate::matrix::Numbering::FromZero,
        })
    }
}

/// RAPtor's `diffusion_stencil_2d(eps, theta)` (gallery/diffusion.hpp,
/// PyAMG's `diffusion_stencil_2d(type='FE')`): the Q1 stencil of `-div Q
/// diag(1, eps) Q^T grad u`, `Q` the rotation by `angle` degrees; entry
/// `3 (dy + 1) + (dx + 1)` couples a point to its neighbour at `(dx, dy)`.
/// Each value is RAPtor's expression in its order of operations, so the
/// matrix is RAPtor's bit for bit; `pi * (angle / 180)` is `M_PI/4.0`
/// exactly at 45 degrees.
pub fn diffusion_stencil_2d(eps: f64, angle: f64) -> [f64; 9] {
    let theta = std::f64::consts::PI * (angle / 180.0);
    let (c, s) = (theta.cos(), theta.sin());
    let (cs, cc, ss) = (c * s, c * c, s * s);
    let v1 = ((-eps - 1.0) * cc + (-eps - 1.0) * ss + (3.0 * eps - 3.0) * cs) / 6.0;
    let v2 = ((2.0 * eps - 4.0) * cc + (-4.0 * eps + 2.0) * ss) / 6.0;
    let v3 = ((-eps - 1.0) * cc + (-eps - 1.0) * ss + (-3.0 * eps + 3.0) * cs) / 6.0;
    let v4 = ((-4.0 * eps + 2.0) * cc + (2.0 * eps - 4.0) * ss) / 6.0;
    let v5 = ((8.0 * eps + 8.0) * cc + (8.0 * eps + 8.0) * ss) / 6.0;
    [v1, v2, v3, v4, v5, v4, v3, v2, v1]
}

/// A 9-point stencil on an `n x n` grid as RAPtor's `par_stencil_grid`
/// builds it: row `x + n y`, the neighbours inside the grid in
/// increasing column order, entries with `|value| <= 1e-16` (RAPtor's
/// `zero_tol`) left out. RAPtor reads a row's value for offset `d` from
/// the mirrored entry (`data[(N_s - d - 1) n_v + i]`): the same for the
/// point-symmetric stencils it is given, and taken so here.
fn stencil_2d(n: usize, st: &[f64; 9]) -> Csr {
    const ZERO_TOL: f64 = 1e-16;
    let neighbours = move |r: usize| {
        let (x, y) = ((r % n) as i64, (r / n) as i64);
        (0..9usize).filter_map(move |k| {
            let (dx, dy) = (k as i64 % 3 - 1, k as i64 / 3 - 1);
            let (qx, qy) = (x + dx, y + dy);
            let v = st[8 - k];
            let inside = qx >= 0 && qy >= 0 && qx < n as i64 && qy < n as i64;
            (inside && v.abs() > ZERO_TOL).then(|| ((qy as usize) * n + qx as usize, v))
        })
    };
    let rows = n * n;
    csr::from_rows(
        rows,
        rows,
        |r| neighbours(r).count(),
        |r, cols, vals| {
            for (k, (c, v)) in neighbours(r).enumerate() {
                cols[k] = c as u32;
                vals[k] = v;
            }
        },
    )
}

/// Laplacian-type stencil on a grid of `dims` unknowns (x fastest):
/// neighbours within max-norm 1 whose offset has at most `max_nonzero`
/// nonzero components get -1, the diagonal gets `diag`.
fn stencil(dims: &[usize; 3], max_nonzero: usize, diag: f64) -> Csr {
    let [nx, ny, nz] = *dims;
    let offsets: Vec<[i64; 3]> = (0..27)
        .map(|o| [o % 3 - 1, (o / 3) % 3 - 1, o / 9 - 1])
        .filter(|d: &[i64; 3]| d.iter().filter(|&&c| c != 0).count() <= max_nonzero)
        .collect();
    let neighbours = |r: usize| {
        let p = [r % nx, (r / nx) % ny, r / (nx * ny)].map(|c| c as i64);
        offsets.iter().filter_map(move |d| {
            let q = [p[0] + d[0], p[1] + d[1], p[2] + d[2]];
            let inside = q[0] >= 0
                && q[1] >= 0
                && q[2] >= 0
                && q[0] < nx as i64
                && q[1] < ny as i64
                && q[2] < nz as i64;
            inside.then(|| {
                (
                    (q[2] as usize * ny + q[1] as usize) * nx + q[0] as usize,
                    *d == [0, 0, 0],
                )
            })
        })
    };
    let rows = nx * ny * nz;
    csr::from_rows(
        rows,
        rows,
        |r| neighbours(r).count(),
        |r, cols, vals| {
            for (k, (c, is_diag)) in neighbours(r).enumerate() {
                cols[k] = c as u32;
                vals[k] = if is_diag { diag } else { -1.0 };
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::csr::is_symmetric;

    #[test]
    fn poisson_sizes_and_values() {
        let p = Problem::new(Kind::Poisson2d, 4).generate().unwrap().csr;
        assert_eq!((p.rows(), p.nnz()), (16, 16 + 2 * 2 * 4 * 3));
        assert_eq!(p.get(5, 5), Some(&4.0));
        assert_eq!(p.get(5, 1), Some(&-1.0));
        assert_eq!(p.get(3, 4), None); // no wrap-around between grid lines
        let p = Problem::new(Kind::Poisson3d, 5).generate().unwrap().csr;
        assert_eq!(p.nnz(), 125 + 2 * 3 * 25 * 4);
        let p = Problem::new(Kind::Poisson3d27, 4).generate().unwrap().csr;
        // Interior point: 27 entries; corner: 8. Row sums of interior rows are 0.
        let interior = 1 + 4 + 16;
        assert_eq!(p.outer_view(interior).unwrap().nnz(), 27);
        assert_eq!(p.outer_view(0).unwrap().nnz(), 8);
        assert_eq!(
            p.outer_view(interior).unwrap().data().iter().sum::<f64>(),
            0.0
        );
        // nnz = sum over points of the product of 1D neighbourhood sizes.
        let line: usize = (0..4)
            .map(|c| 1 + usize::from(c > 0) + usize::from(c < 3))
            .sum();
        assert_eq!(p.nnz(), line * line * line);
        assert!(is_symmetric(&p));
    }

    #[test]
    fn elasticity_structure() {
        let m = Problem::new(Kind::Elasticity3d, 4).generate().unwrap();
        let a = &m.csr;
        assert_eq!(a.rows(), 3 * 4 * 5 * 5);
        assert!(is_symmetric(a));
        // Interior node (2,2,2): 27 neighbours x 3 = 81 entries per row.
        let row = 3 * ((2 * 5 + 2) * 4 + 1);
        assert_eq!(a.outer_view(row).unwrap().nnz(), 81);
        for i in 0..a.rows() {
            assert!(*a.get(i, i).unwrap() > 0.0);
        }
    }

    #[test]
    fn elasticity_rows_away_from_the_clamp_annihilate_rigid_motions() {
        let n = 4;
        let a = Problem::new(Kind::Elasticity3d, n).generate().unwrap().csr;
        let np = n + 1;
        let xyz = |id: usize| {
            (
                (id % n + 1) as f64,
                ((id / n) % np) as f64,
                (id / (n * np)) as f64,
            )
        };
        // Translations e_k, and the rotation u = (-y, x, 0).
        let motions: Vec<Box<dyn Fn(usize) -> f64>> = vec![
            Box::new(|c| (c % 3 == 0) as u8 as f64),
            Box::new(|c| (c % 3 == 1) as u8 as f64),
            Box::new(|c| (c % 3 == 2) as u8 as f64),
            Box::new(move |c| {
                let (x, y, _) = xyz(c / 3);
                [-y, x, 0.0][c % 3]
            }),
        ];
        for (k, u) in motions.iter().enumerate() {
            for r in 0..a.rows() {
                let row = a.outer_view(r).unwrap();
                let diag = *a.get(r, r).unwrap();
                let s: f64 = row.iter().map(|(c, v)| v * u(c)).sum();
                if r / 3 % n != 0 {
                    // x >= 2: every neighbour is free, the Neumann property holds.
                    assert!(s.abs() < 1e-12 * diag, "motion {k} row {r}: {s}");
                } else if k < 3 && r % 3 == k {
                    // x = 1 rows lost the clamped columns: the sum is the
                    // (positive) coupling to the clamped face, not zero.
                    assert!(s > 1e-3 * diag, "row {r}: {s}");
                }
            }
        }
    }

    #[test]
    fn elasticity_paper_scale_counts_without_building() {
        // --n 65: 849,420 unknowns; nnz from the 1D neighbourhood sizes.
        let n = 65usize;
        assert_eq!(Kind::Elasticity3d.rows(n), 849_420);
        let span = |lo: usize| -> usize {
            (lo..=n)
                .map(|c| 1 + usize::from(c > lo) + usize::from(c < n))
                .sum()
        };
        let nnz = 9 * span(1) * span(0) * span(0);
        assert_eq!(nnz, 66_728_592);
        let small = Problem::new(Kind::Elasticity3d, 5).generate().unwrap().csr;
        let n = 5;
        let span5 = |lo: usize| -> usize {
            (lo..=n)
                .map(|c| 1 + usize::from(c > lo) + usize::from(c < n))
                .sum()
        };
        assert_eq!(small.nnz(), 9 * span5(1) * span5(0) * span5(0));
    }

    #[test]
    fn bad_parameters_are_named() {
        let e = |p: &Problem| p.generate().unwrap_err().to_string();
        assert_eq!(
            e(&Problem::new(Kind::Poisson3d, 0)),
            "poisson3d: N must be at least 1"
        );
        let mut p = Problem::new(Kind::Elasticity3d, 2);
        p.poisson_ratio = 0.5;
        assert!(e(&p).contains("Poisson's ratio"));
        p.poisson_ratio = 0.3;
        p.young = -1.0;
        assert!(e(&p).contains("Young's modulus"));
        assert!(e(&Problem::new(Kind::Poisson3d, 2000)).contains("more than"));
        assert_eq!(Kind::parse("poisson3d-27"), Some(Kind::Poisson3d27));
        assert_eq!(
            kind_names(),
            "elasticity3d, beam, poisson3d, poisson3d-27, poisson2d, aniso2d"
        );
    }
}
