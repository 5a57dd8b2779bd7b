//! What every reader of levels checks, and the one error they report: a
//! level's operator and interpolation fit the levels around them (and
//! for hypre rank files, their ranks' blocks), and its coarse points are
//! read from `C{l}.txt` or found from `P_l` (module docs of
//! `levels_io`).

use std::path::Path;

use crate::matrix::io::ReadError;
use crate::matrix::Csr;

/// A levels folder that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum LevelsError {
    /// `--levels-from` is not a folder.
    #[error("request.levels {0}: not a directory")]
    NotADirectory(String),
    /// A matrix file does not read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A file is missing, malformed or does not fit the others.
    #[error("{file}: {problem}")]
    File {
        /// The file.
        file: String,
        /// What is wrong.
        problem: String,
    },
    /// Writing failed.
    #[error("cannot write {path}: {}", crate::output::reason(.source))]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
}

pub(super) fn file_error(file: &Path, problem: String) -> LevelsError {
    LevelsError::File {
        file: file.display().to_string(),
        problem,
    }
}

/// The row and column blocks of a matrix's ranks, as its hypre rank files
/// give them (`ranks + 1` offsets each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocks {
    /// Row offsets.
    pub rows: Vec<usize>,
    /// Column offsets.
    pub cols: Vec<usize>,
}

/// `A_l` (`rows x cols`, shown as `file`) fits a hierarchy: square, and
/// for rank files owning the same columns as rows, on as many ranks as
/// `A0` (`ranks0`).
pub fn check_a(
    l: usize,
    (rows, cols): (usize, usize),
    blocks: Option<&Blocks>,
    ranks0: Option<usize>,
    file: &Path,
) -> Result<(), LevelsError> {
    if rows != cols {
        return Err(file_error(
            file,
            format!("A{l} is {rows} x {cols}, not square"),
        ));
    }
    if let Some(b) = blocks {
        if b.rows != b.cols {
            return Err(file_error(
                file,
                format!("A{l}'s ranks own other columns than rows ({}); hypre's square matrices own the same", differ(&b.rows, &b.cols)),
            ));
        }
        if let Some(first) = ranks0.filter(|&r| r != b.rows.len() - 1) {
            return Err(file_error(
                file,
                format!("{} rank files, A0 has {first}", b.rows.len() - 1),
            ));
        }
    }
    Ok(())
}

/// `P_l` (`shape`, shown as `file`) interpolates `A_{l+1}` (`next_rows`)
/// to `A_l` (`rows`), and for rank files its ranks own `A_l`'s rows and
/// `A_{l+1}`'s rows as columns: `blocks` = (`P_l`'s, `A_l`'s row
/// offsets, `A_{l+1}`'s row offsets).
pub fn check_p(
    l: usize,
    shape: (usize, usize),
    (rows, next_rows): (usize, usize),
    blocks: Option<(&Blocks, &[usize], &[usize])>,
    file: &Path,
) -> Result<(), LevelsError> {
    if shape != (rows, next_rows) {
        return Err(file_error(
            file,
            format!(
                "is {} x {}, but A{l} has {rows} rows and A{} has {next_rows}",
                shape.0,
                shape.1,
                l + 1,
            ),
        ));
    }
    if let Some((p, a_rows, next)) = blocks {
        if p.rows != a_rows {
            return Err(file_error(
                file,
                format!(
                    "its ranks' rows are not A{l}'s ({})",
                    differ(&p.rows, a_rows)
                ),
            ));
        }
        if p.cols != next {
            return Err(file_error(
                file,
                format!(
                    "its ranks' columns are not A{}'s rows ({})",
                    l + 1,
                    differ(&p.cols, next)
                ),
            ));
        }
    }
    Ok(())
}

/// The first rank whose blocks differ, as `rank r: a-b against c-d`.
fn differ(x: &[usize], y: &[usize]) -> String {
    let r = (0..x.len().min(y.len()) - 1)
        .find(|&r| x[r] != y[r] || x[r + 1] != y[r + 1])
        .unwrap_or(0);
    let show = |s: &[usize]| match s.get(r..r + 2) {
        Some([lo, hi]) if hi > lo => format!("{lo}-{}", hi - 1),
        Some(_) => "none".into(),
        None => "no rank".into(),
    };
    format!("rank {r}: {} against {}", show(x), show(y))
}

/// Level `l`'s coarse points: from `dir/C{l}.txt` when it exists, else
/// from `p` (module docs).
pub(super) fn coarse_points(
    dir: Option<&Path>,
    l: usize,
    p: &Csr,
    p_file: &Path,
) -> Result<Vec<u32>, LevelsError> {
    if let Some(path) = dir
        .map(|d| d.join(format!("C{l}.txt")))
        .filter(|p| p.exists())
    {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| file_error(&path, crate::output::reason(&e)))?;
        let mut points = Vec::with_capacity(p.cols());
        for (k, line) in text
            .lines()
            .enumerate()
            .filter(|(_, t)| !t.trim().is_empty())
        {
            let i: usize = line.trim().parse().map_err(|_| {
                file_error(
                    &path,
                    format!("line {}: '{}' is not a row index", k + 1, line.trim()),
                )
            })?;
            if i >= p.rows() {
                return Err(file_error(
                    &path,
                    format!(
                        "line {}: row {i} is out of range (level {l} has {} rows)",
                        k + 1,
                        p.rows()
                    ),
                ));
            }
            points.push(i as u32);
        }
        if points.len() != p.cols() {
            return Err(file_error(
                &path,
                format!(
                    "{} coarse points, but P{l} has {} columns",
                    points.len(),
                    p.cols()
                ),
            ));
        }
        return Ok(points);
    }
    // Injection rows first (classical AMG), else the row that weighs most
    // in the column (aggregation: a row of the aggregate).
    let mut points = vec![u32::MAX; p.cols()];
    let mut heaviest = vec![(0.0f64, u32::MAX); p.cols()];
    for i in (0..p.rows()).rev() {
        let row = p.outer_view(i).expect("row in range");
        if row.nnz() == 1 {
            let (k, &v) = row.iter().next().expect("one entry");
            if v == 1.0 {
                points[k] = i as u32;
            }
        }
        for (k, &v) in row.iter() {
            let h = &mut heaviest[k];
            if v.abs() >= h.0 {
                *h = (v.abs(), i as u32);
            }
        }
    }
    for (point, (_, i)) in points.iter_mut().zip(heaviest) {
        if *point == u32::MAX {
            *point = i;
        }
    }
    if let Some(k) = points.iter().position(|&i| i == u32::MAX) {
        return Err(file_error(
            p_file,
            format!("coarse column {k} is empty: no fine row interpolates from it"),
        ));
    }
    Ok(points)
}
