//! Levels that come without a folder: handed over in memory (the Python
//! face's `levels=`), or the one file PETSc's `-pc_mg_dump_binary`
//! writes; checked as a folder's levels are.

use std::path::{Path, PathBuf};

use super::check::{check_a, check_p, coarse_points, file_error, LevelsError};
use crate::amg::{Hierarchy, Level};
use crate::matrix::io::{self, Values};
use crate::matrix::Csr;

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
                a: g.a.into(),
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
            a: g.a.into(),
            p: Some(p.into()),
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
            a: ops.next().expect("an operator a level").into(),
            p: Some(p.into()),
            coarse_points,
        })
        .collect();
    out.push(Level {
        a: ops.next().expect("the coarsest operator").into(),
        p: None,
        coarse_points: Vec::new(),
    });
    Ok(Hierarchy {
        levels: out,
        setup_times: Default::default(),
    })
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
        let got = super::super::load_levels_ranked(&file).unwrap().0;
        assert_eq!(got.levels.len(), n);
        for (g, w) in got.levels.iter().zip(&h.levels) {
            assert_eq!(*g.a, *w.a);
            assert_eq!(g.p.as_deref(), w.p.as_deref());
            // Classical P injects: the coarse points are the C points.
            assert_eq!(g.coarse_points, w.coarse_points);
        }
        // An even count of matrices is no dump.
        std::fs::write(&file, &dump[..dump.len() / 2]).unwrap();
        assert!(super::super::load_levels_ranked(&file).is_err());
    }
}
