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

use super::{Hierarchy, Level};
use crate::matrix::io::{self, ReadError, Values};
use crate::matrix::{csr, Csr, Ownership, Symmetry};

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
                a,
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
    let ownership = (format == FolderFormat::Hypre).then_some(ownership);
    Ok((h, ownership))
}

/// One level handed over in memory: its operator, its interpolation
/// (none on the coarsest) and, when known, the fine indices of its
/// coarse points in coarse order (PyAMG's `splitting`).
#[derive(Debug)]
pub struct Given {
    /// The operator `A_l`.
    pub a: Csr,
    /// The interpolation `P_l`.
    pub p: Option<Csr>,
    /// The coarse points; `None`: found from `P_l` as for a folder
    /// without `C{l}.txt`.
    pub coarse_points: Option<Vec<u32>>,
}

/// The hierarchy of levels handed over in memory (`name` in messages:
/// `name A{l}`, `name P{l}`), checked as a folder's: square operators,
/// each `P_l` of `A_l`'s rows and `A_{l+1}`'s, coarse points in range and
/// one per column; the levels end at the first without `P`.
pub fn from_given(given: Vec<Given>, name: &str) -> Result<Hierarchy, LevelsError> {
    let shown = |what: &str, l: usize| PathBuf::from(format!("{name} {what}{l}"));
    if given.is_empty() {
        return Err(file_error(Path::new(name), "no levels".into()));
    }
    let next_rows: Vec<usize> = (given.iter().skip(1)).map(|g| g.a.rows()).collect();
    let mut levels = Vec::with_capacity(given.len());
    for (l, g) in given.into_iter().enumerate() {
        check_a(l, (g.a.rows(), g.a.cols()), None, None, &shown("A", l))?;
        let (Some(p), Some(&next)) = (g.p, next_rows.get(l)) else {
            levels.push(Level {
                a: g.a,
                p: None,
                coarse_points: Vec::new(),
            });
            break;
        };
        let file = shown("P", l);
        check_p(l, (p.rows(), p.cols()), (g.a.rows(), next), None, &file)?;
        let coarse_points = match g.coarse_points {
            Some(c) if c.len() != p.cols() || c.iter().any(|&i| i as usize >= p.rows()) => {
                return Err(file_error(
                    &file,
                    format!(
                        "{} coarse points (splitting) for {} columns, each a row below {}",
                        c.len(),
                        p.cols(),
                        p.rows()
                    ),
                ))
            }
            Some(c) => c,
            None => coarse_points(None, l, &p, &file)?,
        };
        levels.push(Level {
            a: g.a,
            p: Some(p),
            coarse_points,
        });
    }
    Ok(Hierarchy {
        levels,
        setup_times: Default::default(),
    })
}

/// The file PETSc's `-pc_mg_dump_binary` writes (`binaryoutput`, or
/// `$PETSC_VIEWER_BINARY_FILENAME`) at the end of `PCSetUp_MG` (also under
/// GAMG): with PETSc's levels numbered from the coarsest, `0..n`, the
/// restriction of each level `1..n` (the interpolation, fine x coarse,
/// unless a restriction of its own was set: coarse x fine, transposed
/// here), then every level's operator, coarsest first: `2 n - 1` PETSc
/// binary matrices. amgcomm's level `l` is PETSc's `n - 1 - l`. Coarse
/// points as for a folder without `C{l}.txt` (module docs).
pub fn load_pc_mg_dump(file: &Path) -> Result<Hierarchy, LevelsError> {
    let size = std::fs::metadata(file).map_or(0, |m| m.len());
    // The file, and its matrices as triplets and CSR at once at most.
    crate::memory::check(size.saturating_mul(4), || file.display().to_string())
        .map_err(|e| file_error(file, e.to_string()))?;
    let bytes = std::fs::read(file).map_err(|e| file_error(file, crate::output::reason(&e)))?;
    if !io::petsc::is_petsc(&bytes) {
        return Err(file_error(
            file,
            "request.levels takes a folder, or the PETSc binary file -pc_mg_dump_binary writes; this file is neither".into(),
        ));
    }
    let name = file.display().to_string();
    let all = io::petsc::parse_all(&bytes, &name, Values::Any)?;
    drop(bytes);
    let m = all.len();
    if m % 2 == 0 {
        return Err(file_error(
            file,
            format!("{m} matrices; -pc_mg_dump_binary writes 2 n - 1 for n levels (n - 1 restrictions, then n operators)"),
        ));
    }
    let n = m.div_ceil(2);
    let mut all: Vec<Option<Csr>> = all.into_iter().map(|x| Some(x.csr)).collect();
    // amgcomm's level l: operator n - 1 + (n - 1 - l), restriction n - 2 - l.
    let mut take = |k: usize| all[k].take().expect("each matrix once");
    let ops: Vec<Csr> = (0..n).map(|l| take(2 * n - 2 - l)).collect();
    let mut levels = Vec::with_capacity(n);
    for (l, a) in ops.iter().enumerate() {
        let shown = PathBuf::from(format!("{name} (level {l})"));
        check_a(l, (a.rows(), a.cols()), None, None, &shown)?;
        if l + 1 == n {
            break;
        }
        let r = take(n - 2 - l);
        let (fine, coarse) = (a.rows(), ops[l + 1].rows());
        let p = if (r.rows(), r.cols()) == (coarse, fine) && coarse != fine {
            r.transpose_view().to_csr()
        } else {
            r
        };
        check_p(l, (p.rows(), p.cols()), (fine, coarse), None, &shown)?;
        let coarse_points = coarse_points(None, l, &p, &shown)?;
        levels.push((p, coarse_points));
    }
    let mut ops = ops.into_iter();
    let mut out: Vec<Level> = levels
        .into_iter()
        .map(|(p, coarse_points)| Level {
            a: ops.next().expect("an operator a level"),
            p: Some(p),
            coarse_points,
        })
        .collect();
    out.push(Level {
        a: ops.next().expect("the coarsest operator"),
        p: None,
        coarse_points: Vec::new(),
    });
    Ok(Hierarchy {
        levels: out,
        setup_times: Default::default(),
    })
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

/// Level `l`'s coarse points: from `dir/C{l}.txt` when it exists, else
/// from `p` (module docs).
fn coarse_points(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::{build, Preset};
    use crate::matrix::gen::{Kind, Problem};

    /// A `-pc_mg_dump_binary` file made by hand from a hierarchy:
    /// restrictions of PETSc's levels 1..n (level 1's a true restriction,
    /// coarse x fine; the others interpolations), then the operators,
    /// coarsest first. It reads back as the hierarchy.
    #[test]
    fn a_pc_mg_dump_reads_back_in_amgcomm_order() {
        let a = Problem::new(Kind::Poisson3d, 10).generate().unwrap().csr;
        let h = build(&a, &Preset::Hypre.options(), &mut |_, _| {}).unwrap();
        let n = h.levels.len();
        assert!(n >= 3);
        let d = tempfile::tempdir().unwrap();
        let mut dump = Vec::new();
        let mut add = |m: &Csr| {
            let f = d.path().join("m");
            io::petsc::write(&f, m).unwrap();
            dump.extend(std::fs::read(&f).unwrap());
        };
        // PETSc level i is amgcomm's n - 1 - i: i = 1 is the coarsest P.
        for i in 1..n {
            let p = h.levels[n - 1 - i].p.as_ref().unwrap();
            if i == 1 {
                add(&p.transpose_view().to_csr());
            } else {
                add(p);
            }
        }
        for i in 0..n {
            add(&h.levels[n - 1 - i].a);
        }
        let file = d.path().join("binaryoutput");
        std::fs::write(&file, &dump).unwrap();
        let got = load_levels_ranked(&file).unwrap().0;
        assert_eq!(got.levels.len(), n);
        for (g, w) in got.levels.iter().zip(&h.levels) {
            assert_eq!(g.a, w.a);
            assert_eq!(g.p, w.p);
            // Classical P injects: the coarse points are the C points.
            assert_eq!(g.coarse_points, w.coarse_points);
        }
        // An even count of matrices is no dump.
        std::fs::write(&file, &dump[..dump.len() / 2]).unwrap();
        assert!(load_levels_ranked(&file).is_err());
    }
}
