//! Partition files: one owner rank a line, row by row, as METIS writes
//! them (`amgcomm partition` writes them, `--partition FILE` reads them);
//! lines that start with `%` or `#` are comments.

use std::io::Write;
use std::path::Path;

use super::{Partition, PartitionError};

impl Partition {
    /// Read a partition file for `n` rows and `ranks` ranks.
    pub fn read(path: &Path, n: usize, ranks: usize) -> Result<Partition, PartitionError> {
        let name = path.display().to_string();
        // One rank number a line, and some comments.
        let limit = (n as u64).saturating_mul(32).saturating_add(64 << 20);
        let text = crate::memory::read_text(path, limit).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => PartitionError::NotFound { path: name.clone() },
            _ => PartitionError::Io {
                path: name.clone(),
                source: e,
            },
        })?;
        let line = |k: usize, problem: String| PartitionError::Line {
            path: name.clone(),
            line: k + 1,
            problem,
        };
        let mut owner = Vec::with_capacity(n);
        for (k, text) in text.lines().enumerate() {
            let t = text.trim();
            if t.is_empty() || t.starts_with('%') || t.starts_with('#') {
                continue;
            }
            let r: u64 = t
                .parse()
                .map_err(|_| line(k, format!("'{t}' is not a rank number")))?;
            if r >= ranks as u64 {
                return Err(line(
                    k,
                    format!(
                        "owner {r} is out of range: the machine has {ranks} ranks (0..{})",
                        ranks - 1
                    ),
                ));
            }
            owner.push(r as u32);
        }
        if owner.len() != n {
            return Err(PartitionError::Count {
                path: name,
                found: owner.len(),
                rows: n,
            });
        }
        Ok(Partition { owner, ranks })
    }
}

/// Writes `p` as a partition file at `path`, whole or not at all, after
/// one comment line.
pub fn write(path: &Path, p: &Partition, comment: &str) -> std::io::Result<()> {
    crate::output::write_atomically(path, |tmp| {
        let mut out = std::io::BufWriter::new(std::fs::File::create(tmp)?);
        writeln!(out, "% {comment}")?;
        for o in &p.owner {
            writeln!(out, "{o}")?;
        }
        out.flush()
    })
}
