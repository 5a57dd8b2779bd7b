//! What a finished hierarchy says about its own quality: the warnings a
//! user should see before trusting its per-level numbers.
//!
//! Classical AMG assumes an M-matrix-like operator: positive diagonal,
//! mostly negative off-diagonals (Ruge and Stueben 1987, sec. 4). A zero or
//! negative diagonal makes strength and interpolation meaningless, and a
//! level that keeps almost all of its rows (or a setup that stops with
//! many rows left) makes the hierarchy's deeper levels unlike a real run's.

use std::fmt;

use super::{Hierarchy, Options};
use crate::matrix::{Csr, Numbering};

/// A level keeping more than this share of its parent's rows has
/// stalled.
pub const SLOW_COARSENING: f64 = 0.9;

/// A setup that stops with more than this many times `max_coarse` rows
/// stopped early (a stall a few rows above `max_coarse` is harmless).
pub const STOPPED_EARLY: usize = 10;

/// Something that makes a hierarchy suspect.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    /// Level 0 has a zero, negative or missing diagonal entry.
    Diagonal {
        /// First such row (0-based).
        row: usize,
        /// Its diagonal (0 when not stored).
        value: f64,
        /// How many rows have one.
        rows: usize,
        /// That row stores no entry at all.
        empty: bool,
        /// How the input numbers its rows (the message names the row so).
        numbering: Numbering,
    },
    /// A level keeps more than [`SLOW_COARSENING`] of its parent's rows.
    SlowCoarsening {
        /// The coarse level.
        level: usize,
        /// Its rows.
        rows: usize,
        /// Its parent's rows.
        parent: usize,
    },
    /// The setup stopped with more than [`STOPPED_EARLY`] times
    /// `max_coarse` rows and fewer levels than `max_levels`: its C/F
    /// splitting chose no coarse point, or all.
    Stopped {
        /// The last level.
        level: usize,
        /// Its rows.
        rows: usize,
        /// The option's `max_coarse`.
        max_coarse: usize,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Diagonal {
                row,
                value,
                rows,
                empty,
                numbering,
            } => {
                let (n, how) = (numbering.name(*row), numbering.says());
                match empty {
                    true => write!(f, "row {n} ({how}) is empty: it stores no entry")?,
                    false => write!(f, "row {n} ({how}) has diagonal {value}")?,
                }
                let (rows, have) = match rows {
                    1 => ("1 row".to_string(), "has"),
                    n => (format!("{n} rows"), "have"),
                };
                write!(
                    f,
                    " ({rows} {have} a zero, negative or missing one); \
                     classical AMG expects a positive diagonal, so this hierarchy is degenerate"
                )
            }
            Warning::SlowCoarsening { level, rows, parent } => write!(
                f,
                "level {level} keeps {rows} of level {}'s {parent} rows ({:.0}%): coarsening stalled",
                level - 1,
                100.0 * *rows as f64 / *parent as f64
            ),
            Warning::Stopped {
                level,
                rows,
                max_coarse,
            } => write!(
                f,
                "coarsening stopped at level {level} with {rows} rows (max_coarse is {max_coarse}): \
                 the splitting found no coarse points, or only coarse points; check theta and num_functions"
            ),
        }
    }
}

/// The warnings of `h`, whose level 0 the input numbers by `numbering`;
/// `o` when amgcomm built it (a saved hierarchy has no `max_coarse` to
/// compare with).
pub fn warnings(h: &Hierarchy, o: Option<&Options>, numbering: Numbering) -> Vec<Warning> {
    let rows: Vec<usize> = h.levels.iter().map(|l| l.a.rows()).collect();
    of_parts(diagonal_of(h.levels[0].a.diagonals(), numbering), &rows, o)
}

/// The warnings of a hierarchy known by parts (a distributed run):
/// level 0's [`diagonal`] warning, merged over its rows, and every
/// level's rows.
pub fn of_parts(diagonal: Option<Warning>, rows: &[usize], o: Option<&Options>) -> Vec<Warning> {
    let mut out: Vec<Warning> = diagonal.into_iter().collect();
    for (l, pair) in rows.windows(2).enumerate() {
        let (parent, rows) = (pair[0], pair[1]);
        if rows as f64 > SLOW_COARSENING * parent as f64 {
            out.push(Warning::SlowCoarsening {
                level: l + 1,
                rows,
                parent,
            });
        }
    }
    if let Some(o) = o {
        let level = rows.len() - 1;
        let early = o.max_coarse.max(1).saturating_mul(STOPPED_EARLY);
        if rows[level] > early && rows.len() < o.max_levels {
            out.push(Warning::Stopped {
                level,
                rows: rows[level],
                max_coarse: o.max_coarse,
            });
        }
    }
    out
}

/// The first row whose diagonal is not positive, and how many there are,
/// among the rows of `a`, which are global rows `first..` (0 for a whole
/// matrix) numbered by the input as `numbering` says.
pub fn diagonal(a: &Csr, first: usize, numbering: Numbering) -> Option<Warning> {
    diagonal_of(diagonals(a, first), numbering)
}

/// Each row of `a` (global rows `first..`) as `(row, its diagonal or 0,
/// whether it stores no entry)`.
pub(crate) fn diagonals(a: &Csr, first: usize) -> impl Iterator<Item = (usize, f64, bool)> + '_ {
    (a.outer_iterator().enumerate()).map(move |(i, row)| {
        let g = first + i;
        (g, row.get(g).copied().unwrap_or(0.0), row.nnz() == 0)
    })
}

/// The [`diagonal`] warning of `rows`, as [`diagonals`] gives them.
fn diagonal_of(
    rows: impl Iterator<Item = (usize, f64, bool)>,
    numbering: Numbering,
) -> Option<Warning> {
    let mut found = None;
    let mut count = 0;
    for (row, d, empty) in rows {
        if d <= 0.0 || d.is_nan() {
            count += 1;
            found.get_or_insert((row, d, empty));
        }
    }
    found.map(|(row, value, empty)| Warning::Diagonal {
        row,
        value,
        rows: count,
        empty,
        numbering,
    })
}

/// The [`diagonal`] warnings of consecutive blocks of rows, in row
/// order, as one: the first row, all rows counted.
pub fn merge_diagonal(parts: impl IntoIterator<Item = Option<Warning>>) -> Option<Warning> {
    parts.into_iter().flatten().reduce(|a, b| match (a, b) {
        (
            Warning::Diagonal {
                row,
                value,
                rows,
                empty,
                numbering,
            },
            Warning::Diagonal { rows: more, .. },
        ) => Warning::Diagonal {
            row,
            value,
            rows: rows + more,
            empty,
            numbering,
        },
        (a, _) => a,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::{build, Preset};
    use crate::matrix::gen::{Kind, Problem};

    #[test]
    fn a_laplacian_has_no_warning_and_its_negative_has_one() {
        let a = Problem::new(Kind::Poisson2d, 20).generate().unwrap().csr;
        let o = Preset::Hypre.options();
        let h = build(&a, &o, &mut |_, _| {}).unwrap();
        assert_eq!(warnings(&h, Some(&o), Numbering::FromZero), vec![]);
        let neg = a.map(|v| -v);
        let h = build(&neg, &o, &mut |_, _| {}).unwrap();
        let w = warnings(&h, Some(&o), Numbering::FromOne);
        assert_eq!(
            w[0],
            Warning::Diagonal {
                row: 0,
                value: -4.0,
                rows: 400,
                empty: false,
                numbering: Numbering::FromOne,
            }
        );
        // Named as the file numbers it: the first row is row 1.
        assert!(w[0]
            .to_string()
            .starts_with("row 1 (counted from 1, as in the file) has diagonal -4 (400 rows"));
    }

    #[test]
    fn a_stalled_setup_is_named() {
        // Unknown-based strength with 4 functions on a 5-point Laplacian of
        // width 22: x-neighbours (offset 1) and y-neighbours (offset 22)
        // differ in function, so nothing is strong and nothing coarsens.
        let a = Problem::new(Kind::Poisson2d, 22).generate().unwrap().csr;
        let mut o = Preset::Hypre.options();
        o.strength.num_functions = 4;
        let h = build(&a, &o, &mut |_, _| {}).unwrap();
        assert_eq!(h.levels.len(), 1);
        let w = warnings(&h, Some(&o), Numbering::FromZero);
        assert_eq!(
            w,
            vec![Warning::Stopped {
                level: 0,
                rows: 484,
                max_coarse: o.max_coarse
            }]
        );
    }
}
