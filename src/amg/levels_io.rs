//! `--save-levels DIR` writes `A0.mtx, P0.mtx, C0.txt, A1.mtx, ...` so a
//! hierarchy can be inspected elsewhere and analysed again; `--levels-from
//! DIR` reads that layout back, also from other solvers:
//!
//! - Matrix Market `A{l}.mtx` / `.mtx.gz` (PyAMG, scripts);
//! - PETSc binary `A{l}.petsc`, `P{l}.petsc` (one matrix a file);
//! - hypre IJ rank files `A{l}.00000, ...`, `P{l}.00000, ...`, as
//!   `hypre_ParCSRMatrixPrintIJ` writes them (`tools/hypre_dump_levels.c`):
//!   these carry every level's row blocks, the ranks' ownership.
//!
//! `C{l}.txt` lists the fine indices (0-based) of level l's coarse points,
//! one a line, in coarse order; without it, coarse point k is the smallest
//! fine row whose only entry is `P[i,k] = 1`.

use std::io::Write;
use std::path::Path;

use super::{Hierarchy, Level};
use crate::matrix::io::{self, ReadError, Values};
use crate::matrix::{csr, Csr, Ownership, Symmetry};

/// A levels folder that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum LevelsError {
    /// `--levels-from` is not a folder.
    #[error("--levels-from {0}: not a directory")]
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

fn file_error(file: &Path, problem: String) -> LevelsError {
    LevelsError::File {
        file: file.display().to_string(),
        problem,
    }
}

/// Whether a levels folder may hold a file of that name (`A{l}.mtx`,
/// `P{l}.mtx`, compressed or not, and `C{l}.txt`): the only files it may
/// hold before it is replaced.
pub fn is_levels_file(name: &str) -> bool {
    let level = |rest: &str, ext: &str| {
        rest.strip_suffix(ext)
            .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
    };
    match name.split_at_checked(1) {
        Some(("A" | "P", rest)) => level(rest, ".mtx") || level(rest, ".mtx.gz"),
        Some(("C", rest)) => level(rest, ".txt"),
        _ => false,
    }
}

/// Writes `A{l}.mtx`, `P{l}.mtx` and `C{l}.txt` of every level of `h` as
/// the folder `dir`, built beside it and swapped in whole (no level of an
/// earlier, deeper hierarchy survives); `source` names the input in the
/// files' comments. A folder holding other files is refused.
pub fn save_levels(h: &Hierarchy, dir: &Path, source: &str) -> Result<(), LevelsError> {
    crate::output::check_folder(dir, is_levels_file).map_err(|e| LevelsError::File {
        file: dir.display().to_string(),
        problem: e.to_string(),
    })?;
    let fail = |what: &Path, e: std::io::Error| LevelsError::Write {
        path: what.display().to_string(),
        source: e,
    };
    crate::output::write_folder(dir, |tmp| fill(h, tmp, dir, source), |e| fail(dir, e))
}

/// The files of [`save_levels`], written into `tmp`; errors name `dir`.
fn fill(h: &Hierarchy, tmp: &Path, dir: &Path, source: &str) -> Result<(), LevelsError> {
    let fail = |what: &Path, e: std::io::Error| LevelsError::Write {
        path: dir
            .join(what.file_name().unwrap_or_default())
            .display()
            .to_string(),
        source: e,
    };
    for (l, level) in h.levels.iter().enumerate() {
        let path = tmp.join(format!("A{l}.mtx"));
        let sym = if csr::is_symmetric(&level.a) {
            Symmetry::Symmetric
        } else {
            Symmetry::General
        };
        io::write(
            &path,
            &level.a,
            sym,
            &format!("A{l} of the AMG hierarchy of {source}"),
        )
        .map_err(|e| fail(&path, e))?;
        if let Some(p) = &level.p {
            let path = tmp.join(format!("P{l}.mtx"));
            io::write(
                &path,
                p,
                Symmetry::General,
                &format!("P{l} of the AMG hierarchy of {source}"),
            )
            .map_err(|e| fail(&path, e))?;
            let path = tmp.join(format!("C{l}.txt"));
            crate::output::write_atomically(&path, |tmp| {
                let mut out = std::io::BufWriter::new(std::fs::File::create(tmp)?);
                for c in &level.coarse_points {
                    writeln!(out, "{c}")?;
                }
                out.flush()
            })
            .map_err(|e| fail(&path, e))?;
        }
    }
    Ok(())
}

/// Read a hierarchy written in the `--save-levels` layout (or PETSc or
/// hypre files of that layout, without their ranks). Levels run from `A0`
/// while `A{l}` exists; a level with a next one needs `P{l}` (rows of
/// `A{l}` x rows of `A{l+1}`).
pub fn load_levels(dir: &Path) -> Result<Hierarchy, LevelsError> {
    Ok(load_levels_ranked(dir)?.0)
}

/// The file formats of a levels folder, told by `A0`'s name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// `A{l}.mtx` (or `.mtx.gz`).
    MatrixMarket,
    /// `A{l}.petsc`.
    Petsc,
    /// `A{l}.00000, ...`.
    Hypre,
}

impl Layout {
    fn of(dir: &Path) -> Option<Layout> {
        if dir.join("A0.mtx").exists() || dir.join("A0.mtx.gz").exists() {
            Some(Layout::MatrixMarket)
        } else if dir.join("A0.petsc").exists() {
            Some(Layout::Petsc)
        } else if io::hypre_ij::rank_file(&dir.join("A0"), 0).exists() {
            Some(Layout::Hypre)
        } else {
            None
        }
    }

    /// The path of matrix `what{l}`, whether it exists or not.
    fn path(self, dir: &Path, what: &str, l: usize) -> std::path::PathBuf {
        match self {
            Layout::MatrixMarket => {
                let plain = dir.join(format!("{what}{l}.mtx"));
                let gz = dir.join(format!("{what}{l}.mtx.gz"));
                if !plain.exists() && gz.exists() {
                    gz
                } else {
                    plain
                }
            }
            Layout::Petsc => dir.join(format!("{what}{l}.petsc")),
            Layout::Hypre => dir.join(format!("{what}{l}")),
        }
    }

    fn exists(self, path: &Path) -> bool {
        match self {
            Layout::Hypre => io::hypre_ij::rank_file(path, 0).exists(),
            _ => path.exists(),
        }
    }
}

/// A level's matrix, with its ranks' row and column blocks for hypre
/// files.
type Ranked = (Csr, Option<(Vec<usize>, Vec<usize>)>);

/// [`load_levels`], and for hypre rank files every level's row blocks:
/// `ownership[l]` gives the rows of level `l` each rank owns, checked to
/// tile the rows and to agree between `A{l}`, `P{l}` (whose column blocks
/// are level `l+1`'s row blocks) and the next level.
pub fn load_levels_ranked(dir: &Path) -> Result<(Hierarchy, Option<Vec<Ownership>>), LevelsError> {
    if !dir.is_dir() {
        return Err(LevelsError::NotADirectory(dir.display().to_string()));
    }
    let layout = Layout::of(dir).ok_or_else(|| {
        file_error(
            dir,
            "no A0.mtx, A0.mtx.gz, A0.petsc or A0.00000 (hypre rank files)".into(),
        )
    })?;
    let read = |what: &str, l: usize| -> Result<Option<Ranked>, LevelsError> {
        let path = layout.path(dir, what, l);
        if !layout.exists(&path) {
            return Ok(None);
        }
        if layout == Layout::Hypre {
            let m = io::hypre_ij::read(&path, Values::Any)?;
            let rows = m.matrix.ownership.map(|o| o.starts).unwrap_or_default();
            return Ok(Some((m.matrix.csr, Some((rows, m.col_starts)))));
        }
        Ok(Some((io::read_with(&path, Values::Any)?.csr, None)))
    };
    let shown = |what: &str, l: usize| match layout {
        Layout::Hypre => io::hypre_ij::rank_file(&layout.path(dir, what, l), 0),
        _ => layout.path(dir, what, l),
    };
    let (mut a, mut blocks) = read("A", 0)?.expect("A0 exists");
    let mut levels = Vec::new();
    let mut ownership: Vec<Ownership> = Vec::new();
    for l in 0.. {
        if a.rows() != a.cols() {
            return Err(file_error(
                &shown("A", l),
                format!("A{l} is {} x {}, not square", a.rows(), a.cols()),
            ));
        }
        if let Some((rows, cols)) = &blocks {
            if rows != cols {
                return Err(file_error(
                    &shown("A", l),
                    format!("A{l}'s ranks own other columns than rows ({}); hypre's square matrices own the same", differ(rows, cols)),
                ));
            }
            if let Some(first) = ownership.first() {
                if first.starts.len() != rows.len() {
                    return Err(file_error(
                        &shown("A", l),
                        format!(
                            "{} rank files, A0 has {}",
                            rows.len() - 1,
                            first.starts.len() - 1
                        ),
                    ));
                }
            }
            ownership.push(Ownership {
                starts: rows.clone(),
            });
        }
        let next = read("A", l + 1)?;
        let p = read("P", l)?;
        let (next, p) = match (next, p) {
            (None, None) => {
                levels.push(Level {
                    a,
                    p: None,
                    coarse_points: Vec::new(),
                });
                break;
            }
            (Some(_), None) => {
                return Err(file_error(
                    &shown("P", l),
                    format!("missing, but {} exists", file_name(&shown("A", l + 1))),
                ))
            }
            (None, Some(_)) => {
                return Err(file_error(
                    &shown("P", l),
                    format!("no {} to interpolate from", file_name(&shown("A", l + 1))),
                ))
            }
            (Some(n), Some(p)) => (n, p),
        };
        let (p, p_blocks) = p;
        if p.rows() != a.rows() || p.cols() != next.0.rows() {
            return Err(file_error(
                &shown("P", l),
                format!(
                    "is {} x {}, but A{l} has {} rows and A{} has {}",
                    p.rows(),
                    p.cols(),
                    a.rows(),
                    l + 1,
                    next.0.rows()
                ),
            ));
        }
        if let (Some((rows, _)), Some((prows, pcols)), Some((nrows, _))) =
            (&blocks, &p_blocks, &next.1)
        {
            if prows != rows {
                return Err(file_error(
                    &shown("P", l),
                    format!("its ranks' rows are not A{l}'s ({})", differ(prows, rows)),
                ));
            }
            if pcols != nrows {
                return Err(file_error(
                    &shown("P", l),
                    format!(
                        "its ranks' columns are not A{}'s rows ({})",
                        l + 1,
                        differ(pcols, nrows)
                    ),
                ));
            }
        }
        let coarse_points = coarse_points(dir, l, &p, &shown("P", l))?;
        levels.push(Level {
            a,
            p: Some(p),
            coarse_points,
        });
        (a, blocks) = next;
    }
    let h = Hierarchy {
        levels,
        setup_times: Default::default(),
    };
    let ownership = (layout == Layout::Hypre).then_some(ownership);
    Ok((h, ownership))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
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

fn coarse_points(dir: &Path, l: usize, p: &Csr, p_file: &Path) -> Result<Vec<u32>, LevelsError> {
    let path = dir.join(format!("C{l}.txt"));
    if path.exists() {
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
    let mut points = vec![u32::MAX; p.cols()];
    for i in (0..p.rows()).rev() {
        let row = p.outer_view(i).expect("row in range");
        if row.nnz() == 1 {
            let (k, &v) = row.iter().next().expect("one entry");
            if v == 1.0 {
                points[k] = i as u32;
            }
        }
    }
    if let Some(k) = points.iter().position(|&i| i == u32::MAX) {
        return Err(file_error(
            p_file,
            format!(
                "coarse column {k} has no row whose only entry is 1; give its coarse points in {}",
                path.display()
            ),
        ));
    }
    Ok(points)
}
