//! `--save-levels DIR` writes `A0.mtx, P0.mtx, C0.txt, A1.mtx, ...` so a
//! hierarchy can be inspected elsewhere and analysed again; `--levels-from
//! DIR` reads that layout back, also from other solvers (hypre, PETSc,
//! PyAMG). `C{l}.txt` lists the fine indices (0-based) of level l's coarse
//! points, one a line, in coarse order.

use std::io::Write;
use std::path::Path;

use super::{Hierarchy, Level};
use crate::matrix::io::{self, ReadError, Values};
use crate::matrix::{csr, Csr, Symmetry};

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

/// Read a hierarchy written in the `--save-levels` layout. Levels run from
/// `A0.mtx` while `A{l}.mtx` exists; a level with a next one needs
/// `P{l}.mtx` (rows of `A{l}` x rows of `A{l+1}`). Without `C{l}.txt`,
/// coarse point k is the smallest fine row whose only entry is `P[i,k] = 1`.
pub fn load_levels(dir: &Path) -> Result<Hierarchy, LevelsError> {
    if !dir.is_dir() {
        return Err(LevelsError::NotADirectory(dir.display().to_string()));
    }
    let read = |name: String| -> Result<Option<Csr>, LevelsError> {
        let path = dir.join(&name);
        if !path.exists() {
            return Ok(None);
        }
        Ok(Some(io::read_with(&path, Values::Any)?.csr))
    };
    let mut a = read("A0.mtx".into())?.ok_or_else(|| file_error(dir, "no A0.mtx".into()))?;
    let mut levels = Vec::new();
    for l in 0.. {
        let name = |what: &str, l: usize| dir.join(format!("{what}{l}.mtx"));
        if a.rows() != a.cols() {
            return Err(file_error(
                &name("A", l),
                format!("A{l} is {} x {}, not square", a.rows(), a.cols()),
            ));
        }
        let next = read(format!("A{}.mtx", l + 1))?;
        let p = read(format!("P{l}.mtx"))?;
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
                    &name("P", l),
                    format!("missing, but A{}.mtx exists", l + 1),
                ))
            }
            (None, Some(_)) => {
                return Err(file_error(
                    &name("P", l),
                    format!("no A{}.mtx to interpolate from", l + 1),
                ))
            }
            (Some(n), Some(p)) => (n, p),
        };
        if p.rows() != a.rows() || p.cols() != next.rows() {
            return Err(file_error(
                &name("P", l),
                format!(
                    "is {} x {}, but A{l} has {} rows and A{} has {}",
                    p.rows(),
                    p.cols(),
                    a.rows(),
                    l + 1,
                    next.rows()
                ),
            ));
        }
        let coarse_points = coarse_points(dir, l, &p)?;
        levels.push(Level {
            a,
            p: Some(p),
            coarse_points,
        });
        a = next;
    }
    Ok(Hierarchy {
        levels,
        setup_times: Default::default(),
    })
}

fn coarse_points(dir: &Path, l: usize, p: &Csr) -> Result<Vec<u32>, LevelsError> {
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
            &dir.join(format!("P{l}.mtx")),
            format!(
                "coarse column {k} has no row whose only entry is 1; give its coarse points in {}",
                path.display()
            ),
        ));
    }
    Ok(points)
}
