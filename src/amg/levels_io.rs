//! `--save-levels DIR`: `A0.mtx, P0.mtx, C0.txt, A1.mtx, ...` so a hierarchy
//! can be inspected elsewhere and analysed again. `C{l}.txt` lists the fine
//! indices (0-based) of level l's coarse points, one a line, in coarse order.

use std::io::Write;
use std::path::Path;

use super::Hierarchy;
use crate::matrix::{csr, mtx_write, Symmetry};

pub fn save_levels(h: &Hierarchy, dir: &Path, source: &str) -> Result<(), String> {
    let fail = |what: &Path, e: std::io::Error| format!("cannot write {}: {e}", what.display());
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    for (l, level) in h.levels.iter().enumerate() {
        let path = dir.join(format!("A{l}.mtx"));
        let sym = if csr::is_symmetric(&level.a) {
            Symmetry::Symmetric
        } else {
            Symmetry::General
        };
        mtx_write::write(
            &path,
            &level.a,
            sym,
            &format!("A{l} of the AMG hierarchy of {source}"),
        )
        .map_err(|e| fail(&path, e))?;
        if let Some(p) = &level.p {
            let path = dir.join(format!("P{l}.mtx"));
            mtx_write::write(
                &path,
                p,
                Symmetry::General,
                &format!("P{l} of the AMG hierarchy of {source}"),
            )
            .map_err(|e| fail(&path, e))?;
            let path = dir.join(format!("C{l}.txt"));
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
