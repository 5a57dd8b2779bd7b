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
//! fine row whose only entry is `P[i,k] = 1` (classical interpolation
//! injects), or else the fine row with the largest `|P[i,k]|`, the
//! smallest of equals (aggregation: a row of the aggregate). Coarse rows
//! inherit their point's rank.

use std::io::Write;
use std::path::{Path, PathBuf};

mod check;
mod given;

pub use check::{check_a, check_p, Blocks, LevelsError};
use check::{coarse_points, file_error};
pub use given::{from_given, load_pc_mg_dump, Given};

use super::{Hierarchy, Level};
use crate::matrix::io::{self, Values};
use crate::matrix::{csr, Csr, Ownership, Symmetry};

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
pub enum FolderFormat {
    /// `A{l}.mtx` (or `.mtx.gz`).
    MatrixMarket,
    /// `A{l}.petsc`.
    Petsc,
    /// `A{l}.00000, ...`.
    Hypre,
}

impl FolderFormat {
    /// The format of `dir`'s `A0`, if it has one.
    pub fn of(dir: &Path) -> Option<FolderFormat> {
        if dir.join("A0.mtx").exists() || dir.join("A0.mtx.gz").exists() {
            Some(FolderFormat::MatrixMarket)
        } else if dir.join("A0.petsc").exists() {
            Some(FolderFormat::Petsc)
        } else if io::hypre_ij::rank_file(&dir.join("A0"), 0).exists() {
            Some(FolderFormat::Hypre)
        } else {
            None
        }
    }

    /// The path of matrix `what{l}`, whether it exists or not (hypre: the
    /// prefix of its rank files).
    fn path(self, dir: &Path, what: &str, l: usize) -> PathBuf {
        match self {
            FolderFormat::MatrixMarket => {
                let plain = dir.join(format!("{what}{l}.mtx"));
                let gz = dir.join(format!("{what}{l}.mtx.gz"));
                if !plain.exists() && gz.exists() {
                    gz
                } else {
                    plain
                }
            }
            FolderFormat::Petsc => dir.join(format!("{what}{l}.petsc")),
            FolderFormat::Hypre => dir.join(format!("{what}{l}")),
        }
    }

    fn exists(self, path: &Path) -> bool {
        match self {
            FolderFormat::Hypre => io::hypre_ij::rank_file(path, 0).exists(),
            _ => path.exists(),
        }
    }

    /// The file errors name: hypre's first rank file, or the file.
    pub fn shown(self, path: &Path) -> PathBuf {
        match self {
            FolderFormat::Hypre => io::hypre_ij::rank_file(path, 0),
            _ => path.to_path_buf(),
        }
    }
}

/// One level's files: `A{l}` and, but on the coarsest level, `P{l}`
/// (for hypre, the prefixes of their rank files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelFiles {
    /// `A_l`.
    pub a: PathBuf,
    /// `P_l`.
    pub p: Option<PathBuf>,
}

/// The levels of `dir`: from `A0` while `A{l}` exists, each with `P{l}`
/// when `A{l+1}` exists; a `P` without the next `A`, or the reverse, is
/// an error naming the file.
pub fn level_files(dir: &Path) -> Result<(FolderFormat, Vec<LevelFiles>), LevelsError> {
    if !dir.is_dir() {
        return Err(LevelsError::NotADirectory(dir.display().to_string()));
    }
    let format = FolderFormat::of(dir).ok_or_else(|| {
        file_error(
            dir,
            "no A0.mtx, A0.mtx.gz, A0.petsc or A0.00000 (hypre rank files)".into(),
        )
    })?;
    let shown = |what: &str, l: usize| format.shown(&format.path(dir, what, l));
    let mut levels = Vec::new();
    for l in 0.. {
        let a = format.path(dir, "A", l);
        let p = format.path(dir, "P", l);
        let (next, has_p) = (
            format.exists(&format.path(dir, "A", l + 1)),
            format.exists(&p),
        );
        match (next, has_p) {
            (false, false) => {
                levels.push(LevelFiles { a, p: None });
                break;
            }
            (true, false) => {
                return Err(file_error(
                    &shown("P", l),
                    format!("missing, but {} exists", file_name(&shown("A", l + 1))),
                ))
            }
            (false, true) => {
                return Err(file_error(
                    &shown("P", l),
                    format!("no {} to interpolate from", file_name(&shown("A", l + 1))),
                ))
            }
            (true, true) => levels.push(LevelFiles { a, p: Some(p) }),
        }
    }
    Ok((format, levels))
}

/// A level's matrix, with its ranks' row and column blocks for hypre
/// files.
type Ranked = (Csr, Option<Blocks>);

/// [`load_levels`], and for hypre rank files every level's row blocks:
/// `ownership[l]` gives the rows of level `l` each rank owns, checked to
/// tile the rows and to agree between `A{l}`, `P{l}` (whose column blocks
/// are level `l+1`'s row blocks) and the next level.
pub fn load_levels_ranked(dir: &Path) -> Result<(Hierarchy, Option<Vec<Ownership>>), LevelsError> {
    if dir.is_file() {
        return Ok((load_pc_mg_dump(dir)?, None));
    }
    let (format, files) = level_files(dir)?;
    let read = |path: &Path| -> Result<Ranked, LevelsError> {
        if format == FolderFormat::Hypre {
            let m = io::hypre_ij::read(path, Values::Any)?;
            let rows = m.matrix.ownership.map(|o| o.starts).unwrap_or_default();
            let cols = m.col_starts;
            return Ok((m.matrix.csr, Some(Blocks { rows, cols })));
        }
        Ok((io::read_with(path, Values::Any)?.csr, None))
    };
    let (mut a, mut blocks) = read(&files[0].a)?;
    let mut levels = Vec::new();
    let mut ownership: Vec<Ownership> = Vec::new();
    for (l, f) in files.iter().enumerate() {
        let ranks0 = ownership.first().map(|o| o.starts.len() - 1);
        check_a(
            l,
            (a.rows(), a.cols()),
            blocks.as_ref(),
            ranks0,
            &format.shown(&f.a),
        )?;
        if let Some(b) = &blocks {
            ownership.push(Ownership {
                starts: b.rows.clone(),
            });
        }
        let Some(p_path) = &f.p else {
            levels.push(Level {
                a: a.into(),
                p: None,
                coarse_points: Vec::new(),
            });
            break;
        };
        let next = read(&files[l + 1].a)?;
        let (p, p_blocks) = read(p_path)?;
        let shown = format.shown(p_path);
        let ranked = match (&p_blocks, &blocks, &next.1) {
            (Some(p), Some(a), Some(n)) => Some((p, &a.rows[..], &n.rows[..])),
            _ => None,
        };
        check_p(
            l,
            (p.rows(), p.cols()),
            (a.rows(), next.0.rows()),
            ranked,
            &shown,
        )?;
        let coarse_points = coarse_points(Some(dir), l, &p, &shown)?;
        levels.push(Level {
            a: a.into(),
            p: Some(p.into()),
            coarse_points,
        });
        (a, blocks) = next;
    }
    let h = Hierarchy {
        levels,
        setup_times: Default::default(),
    };
    let ownership = (format == FolderFormat::Hypre).then_some(ownership);
    Ok((h, ownership))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
}
