//! hypre's IJ text files: what `HYPRE_IJMatrixPrint(A, "path/A")` and
//! `hypre_ParCSRMatrixPrintIJ(A, 0, 0, "path/A")` write, one file per rank,
//! `path/A.00000`, `path/A.00001`, ... (`%s.%05d`, hypre 2.26
//! `par_csr_matrix.c`):
//!
//! ```text
//! ilower iupper jlower jupper        the rank's rows and columns, 0-based, inclusive
//! I J value                          one entry a line, global indices
//! ```
//!
//! A rank without rows writes an empty range (`iupper < ilower`: hypre
//! spells it `0 -1 0 -1`, `1 0 1 0`, ...). A pattern-only matrix prints
//! `I J`. The row ranges, in rank order, tile the rows: they are the
//! matrix's [`Ownership`], the partition the solver ran with.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{ErrorKind, ReadError, Values};
use crate::matrix::csr::{self, Triplets};
use crate::matrix::{Csr, Field, Matrix, Ownership, Symmetry};

/// The rank files of `prefix` (`prefix.00000`, `prefix.00001`, ...), in
/// rank order; `None` when `prefix.00000` does not exist. A gap in the
/// numbering is an error naming the missing file.
pub fn rank_files(prefix: &Path) -> Result<Option<Vec<PathBuf>>, ReadError> {
    let first = rank_file(prefix, 0);
    if !first.is_file() {
        return Ok(None);
    }
    let dir = match prefix.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let stem = prefix
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let err = |kind| ReadError {
        path: prefix.display().to_string(),
        line: None,
        kind,
    };
    let entries =
        std::fs::read_dir(&dir).map_err(|e| err(ErrorKind::Open(crate::output::reason(&e))))?;
    let mut ranks: Vec<usize> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let digits = name.strip_prefix(&stem).and_then(|r| r.strip_prefix('.'));
        if let Some(d) = digits.filter(|d| d.len() >= 5 && d.bytes().all(|b| b.is_ascii_digit())) {
            if let Ok(r) = d.parse::<usize>() {
                ranks.push(r);
            }
        }
    }
    ranks.sort_unstable();
    if let Some(gap) = (0..ranks.len()).find(|&k| ranks[k] != k) {
        let missing = rank_file(prefix, gap);
        return Err(ReadError {
            path: missing.display().to_string(),
            line: None,
            kind: ErrorKind::Open(format!(
                "missing: the rank files of {} run to {} with this one absent",
                prefix.display(),
                rank_file(prefix, ranks[ranks.len() - 1]).display()
            )),
        });
    }
    Ok(Some(
        (0..ranks.len()).map(|r| rank_file(prefix, r)).collect(),
    ))
}

/// `prefix.%05d`.
pub fn rank_file(prefix: &Path, rank: usize) -> PathBuf {
    let mut name = prefix.as_os_str().to_os_string();
    name.push(format!(".{rank:05}"));
    PathBuf::from(name)
}

/// One rank file: its row and column ranges (`lo..hi`, empty when `hi <=
/// lo`) and its entries, rows local to the range.
struct RankBlock {
    rows: (u64, u64),
    cols: (u64, u64),
    entries: Triplets,
    /// Line of each entry's first appearance with its global column, for
    /// the error of a column beyond the matrix: (column, line).
    widest: Option<(u64, usize)>,
}

fn bad(path: &Path, line: usize, problem: String) -> ReadError {
    ReadError {
        path: path.display().to_string(),
        line: Some(line),
        kind: ErrorKind::Entry(problem),
    }
}

/// Bytes per entry of a hypre line at least ("0 0 1\n"), for the memory
/// estimate before any file is read.
const SHORTEST_LINE: u64 = 6;

fn parse_rank(path: &Path, values: Values) -> Result<RankBlock, ReadError> {
    let name = path.display().to_string();
    let open = |e: std::io::Error| ReadError {
        path: name.clone(),
        line: None,
        kind: ErrorKind::Open(crate::output::reason(&e)),
    };
    let file = std::fs::File::open(path).map_err(open)?;
    // SAFETY: read-only map of a file nobody should truncate meanwhile.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(open)?;
    let text = &map[..];
    let mut lines = text.split(|&b| b == b'\n').enumerate();
    let head = loop {
        match lines.next() {
            Some((_, l)) if l.iter().all(u8::is_ascii_whitespace) => continue,
            Some((k, l)) => break (k, l),
            None => {
                return Err(ReadError {
                    path: name.clone(),
                    line: None,
                    kind: ErrorKind::Empty,
                })
            }
        }
    };
    let words: Vec<&str> = std::str::from_utf8(head.1)
        .unwrap_or("")
        .split_ascii_whitespace()
        .collect();
    let ints: Option<Vec<i64>> = words.iter().map(|w| w.parse().ok()).collect();
    let Some([il, iu, jl, ju]) = ints.as_deref().and_then(|v| <[i64; 4]>::try_from(v).ok()) else {
        return Err(ReadError {
            path: name.clone(),
            line: Some(head.0 + 1),
            kind: ErrorKind::Header(
                "not a hypre IJ file: the first line must be 'ilower iupper jlower jupper'".into(),
            ),
        });
    };
    // An empty range is `lo lo-1` (hypre writes `0 -1` and `1 0`); rows
    // and columns are 32-bit, as the entries are.
    let range = |lo: i64, hi: i64| -> Result<(u64, u64), String> {
        if lo < 0 || hi < -1 {
            Err("a negative index".into())
        } else if hi == lo - 1 {
            Ok((0, 0))
        } else if hi < lo {
            Err(format!("upper index {hi} below lower index {lo}"))
        } else if hi >= u32::MAX as i64 {
            Err(format!("index {hi} beyond 32 bits"))
        } else {
            Ok((lo as u64, hi as u64 + 1))
        }
    };
    let (rows, cols) = match (range(il, iu), range(jl, ju)) {
        (Ok(rows), Ok(cols)) => (rows, cols),
        (Err(e), _) | (_, Err(e)) => {
            return Err(ReadError {
                path: name.clone(),
                line: Some(head.0 + 1),
                kind: ErrorKind::Header(format!("{e} in '{il} {iu} {jl} {ju}'")),
            })
        }
    };
    let mut entries = Triplets::default();
    let mut widest: Option<(u64, usize)> = None;
    for (k, raw) in lines {
        let line = k + 1;
        let mut w = raw.split(u8::is_ascii_whitespace).filter(|s| !s.is_empty());
        let Some(i) = w.next() else { continue };
        let int = |s: Option<&[u8]>, what: &str| -> Result<u64, ReadError> {
            let s = s.ok_or_else(|| bad(path, line, format!("no {what}")))?;
            std::str::from_utf8(s)
                .ok()
                .and_then(|t| t.parse::<u64>().ok())
                .ok_or_else(|| {
                    bad(
                        path,
                        line,
                        format!("{what} '{}' is not an index", String::from_utf8_lossy(s)),
                    )
                })
        };
        let i = int(Some(i), "row")?;
        let j = int(w.next(), "column")?;
        let v = match w.next() {
            None => 1.0,
            Some(s) => fast_float2::parse::<f64, _>(s).map_err(|_| {
                bad(
                    path,
                    line,
                    format!("value '{}' is not a number", String::from_utf8_lossy(s)),
                )
            })?,
        };
        if values == Values::Finite && !v.is_finite() {
            return Err(bad(path, line, format!("value {v} is not finite")));
        }
        if !(rows.0..rows.1).contains(&i) {
            return Err(bad(
                path,
                line,
                format!("row {i} is not among this rank's rows {}", span(rows)),
            ));
        }
        if j >= u32::MAX as u64 || i - rows.0 >= u32::MAX as u64 {
            return Err(bad(
                path,
                line,
                format!("index {} beyond 32 bits", i.max(j)),
            ));
        }
        if widest.is_none_or(|(c, _)| j > c) {
            widest = Some((j, line));
        }
        entries.push((i - rows.0) as u32, j as u32, v);
    }
    Ok(RankBlock {
        rows,
        cols,
        entries,
        widest,
    })
}

fn span((lo, hi): (u64, u64)) -> String {
    if hi <= lo {
        "(none)".into()
    } else if hi == lo + 1 {
        lo.to_string()
    } else {
        format!("{lo}-{}", hi - 1)
    }
}

/// The ranks' ranges, which must follow each other from 0 without gap or
/// overlap (empty ones anywhere): `ranks + 1` starts. `what`: "rows" or
/// "columns".
pub fn tile(files: &[PathBuf], ranges: &[(u64, u64)], what: &str) -> Result<Vec<usize>, ReadError> {
    let mut starts = vec![0usize];
    let mut pos = 0u64;
    let mut last: Option<usize> = None;
    for (r, &(lo, hi)) in ranges.iter().enumerate() {
        if hi > lo {
            if lo != pos {
                let problem = match last {
                    Some(q) if lo < pos => format!(
                        "its {what} {} overlap those of {} ({})",
                        span((lo, hi)),
                        files[q].display(),
                        span(ranges[q])
                    ),
                    _ => format!(
                        "its {what} {} leave {what} {} to no rank",
                        span((lo, hi)),
                        span((pos, lo))
                    ),
                };
                return Err(ReadError {
                    path: files[r].display().to_string(),
                    line: Some(1),
                    kind: ErrorKind::Header(problem),
                });
            }
            pos = hi;
            last = Some(r);
        }
        starts.push(pos as usize);
    }
    Ok(starts)
}

/// A matrix read from rank files, with the ranks' row and column blocks.
#[derive(Clone, Debug)]
pub struct RankMatrix {
    /// The matrix; its `ownership` is the row blocks.
    pub matrix: Matrix,
    /// Rank `r`'s columns are `col_starts[r]..col_starts[r + 1]` (the
    /// coarse rows it owns, for an interpolation `P`).
    pub col_starts: Vec<usize>,
    /// The rank files.
    pub files: Vec<PathBuf>,
}

/// The rank files of `prefix`, or an error naming `prefix.00000` when
/// there is none.
pub fn existing_rank_files(prefix: &Path) -> Result<Vec<PathBuf>, ReadError> {
    rank_files(prefix)?.ok_or_else(|| ReadError {
        path: prefix.display().to_string(),
        line: None,
        kind: ErrorKind::Open(format!(
            "no such file, nor {}",
            rank_file(prefix, 0).display()
        )),
    })
}

/// Reads the rank files of `prefix` ([`rank_files`]) in parallel.
pub fn read(prefix: &Path, values: Values) -> Result<RankMatrix, ReadError> {
    let files = existing_rank_files(prefix)?;
    let part = read_part(&files, 0..files.len(), values)?;
    let row_starts = tile(&files, &part.rows, "rows")?;
    let col_starts = tile(&files, &part.cols, "columns")?;
    let csr = part.assemble(&files, &row_starts, col_starts[files.len()])?;
    let matrix = Matrix {
        name: prefix.display().to_string(),
        field: Field::Real,
        symmetry: Symmetry::General,
        block_size: 1,
        csr,
        ownership: Some(Ownership { starts: row_starts }),
        numbering: crate::matrix::Numbering::FromZero,
    };
    Ok(RankMatrix {
        matrix,
        col_starts,
        files,
    })
}

/// The rank files of some ranks, parsed: what one process of a
/// distributed run reads (`amgcomm analyze` under `mpirun`), about `1/K`
/// of the rows. Their ranges, gathered from every process, are checked
/// with [`tile`]; then [`Part::assemble`] makes the rows one matrix.
pub struct Part {
    /// The first rank read.
    pub first: usize,
    /// Each rank's rows, `lo..hi` (`0..0` when empty).
    pub rows: Vec<(u64, u64)>,
    /// Each rank's columns, the same way.
    pub cols: Vec<(u64, u64)>,
    blocks: Vec<RankBlock>,
}

/// Parses `files[ranks]` in parallel, first checking that their entries
/// can fit in memory.
pub fn read_part(
    files: &[PathBuf],
    ranks: std::ops::Range<usize>,
    values: Values,
) -> Result<Part, ReadError> {
    let mine = &files[ranks.clone()];
    // Entries at most: the files' bytes over the shortest line.
    let bytes: u64 = mine
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum();
    let entries = bytes / SHORTEST_LINE;
    let shown = mine.first().unwrap_or(&files[0]);
    crate::memory::check(entries.saturating_mul(32), || {
        format!(
            "{} and {} more rank files, {bytes} bytes",
            shown.display(),
            mine.len().saturating_sub(1)
        )
    })
    .map_err(|e| ReadError {
        path: shown.display().to_string(),
        line: None,
        kind: ErrorKind::Memory(e),
    })?;
    let blocks = mine
        .par_iter()
        .map(|f| parse_rank(f, values))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Part {
        first: ranks.start,
        rows: blocks.iter().map(|b| b.rows).collect(),
        cols: blocks.iter().map(|b| b.cols).collect(),
        blocks,
    })
}

impl Part {
    /// The part's rows as one matrix: of all ranks' tiling `row_starts`
    /// ([`tile`]), the rows of the part's ranks, local from 0, with
    /// global column indices below `ncols` (an entry beyond is an error
    /// naming its file and line). Duplicates sum in file order.
    pub fn assemble(
        self,
        files: &[PathBuf],
        row_starts: &[usize],
        ncols: usize,
    ) -> Result<Csr, ReadError> {
        let (first, count) = (self.first, self.blocks.len());
        for (b, f) in self.blocks.iter().zip(&files[first..]) {
            if let Some((c, line)) = b.widest.filter(|&(c, _)| c >= ncols as u64) {
                return Err(bad(
                    f,
                    line,
                    format!("column {c} is beyond the {ncols} columns the rank files give"),
                ));
            }
        }
        let lo = row_starts[first];
        let rows = row_starts[first + count] - lo;
        // The rows and columns the headers announce, before they are
        // allocated (rank files of empty rows are few bytes).
        let need = (rows as u64 + 1).saturating_mul(16) + (ncols as u64).saturating_mul(8);
        crate::memory::check(need, || {
            format!("{rows} rows and {ncols} columns, as the rank files' first lines announce")
        })
        .map_err(|e| ReadError {
            path: files[first].display().to_string(),
            line: Some(1),
            kind: ErrorKind::Memory(e),
        })?;
        // Rows local to the part again, in rank order.
        let chunks: Vec<Triplets> = (self.blocks.into_par_iter())
            .map(|mut b| {
                let shift = (b.rows.0 as usize).max(lo) - lo;
                for r in b.entries.rows.iter_mut() {
                    *r += shift as u32;
                }
                b.entries
            })
            .collect();
        Ok(csr::from_triplets(rows, ncols, &chunks, Symmetry::General))
    }
}

/// Writes `a` as hypre IJ rank files `prefix.%05d`, rank `r` the rows
/// `row_starts[r]..row_starts[r+1]` and columns
/// `col_starts[r]..col_starts[r+1]`, values in the shortest form that
/// reads back to the same double (hypre itself prints `%.14e`). Each file
/// is written atomically.
pub fn write(
    prefix: &Path,
    a: &Csr,
    row_starts: &[usize],
    col_starts: &[usize],
) -> std::io::Result<()> {
    use std::io::Write;
    for r in 0..row_starts.len() - 1 {
        let path = rank_file(prefix, r);
        crate::output::write_atomically(&path, |tmp| {
            let mut out = std::io::BufWriter::new(std::fs::File::create(tmp)?);
            let (lo, hi) = (row_starts[r] as i64, row_starts[r + 1] as i64);
            let (cl, ch) = (col_starts[r] as i64, col_starts[r + 1] as i64);
            writeln!(out, "{lo} {} {cl} {}", hi - 1, ch - 1)?;
            let mut buf = ryu::Buffer::new();
            for i in row_starts[r]..row_starts[r + 1] {
                let row = a.outer_view(i).expect("row in range");
                for (j, v) in row.iter() {
                    writeln!(out, "{i} {j} {}", buf.format(*v))?;
                }
            }
            out.flush()
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_files(dir: &Path, files: &[&str]) -> PathBuf {
        let prefix = dir.join("A");
        for (r, text) in files.iter().enumerate() {
            std::fs::write(rank_file(&prefix, r), text).unwrap();
        }
        prefix
    }

    #[test]
    fn rank_files_with_empty_ranks_in_both_spellings() {
        let d = tempfile::tempdir().unwrap();
        // 4 rows over 4 ranks: rank 1 has none ("0 -1 0 -1"), rank 3 none
        // ("1 0 1 0"), rank 0 rows 0-1, rank 2 rows 2-3.
        let prefix = write_files(
            d.path(),
            &[
                "0 1 0 1\n0 0 2.0\n0 3 -1\n1 1 2.0\n",
                "0 -1 0 -1\n",
                "2 3 2 3\n2 2 2.0\n3 0 -1\n3 3 2.5e0\n",
                "1 0 1 0\n",
            ],
        );
        let m = read(&prefix, Values::Finite).unwrap();
        assert_eq!(m.matrix.ownership.as_ref().unwrap().starts, [0, 2, 2, 4, 4]);
        assert_eq!(m.col_starts, [0, 2, 2, 4, 4]);
        let a = &m.matrix.csr;
        assert_eq!((a.rows(), a.cols(), a.nnz()), (4, 4, 6));
        assert_eq!(a.get(0, 3), Some(&-1.0));
        assert_eq!(a.get(3, 0), Some(&-1.0));
        assert_eq!(a.get(3, 3), Some(&2.5));
    }

    #[test]
    fn what_is_wrong_is_named_with_its_file() {
        let d = tempfile::tempdir().unwrap();
        let e = |files: &[&str]| {
            let sub = tempfile::tempdir_in(d.path()).unwrap();
            let prefix = write_files(sub.path(), files);
            read(&prefix, Values::Finite).unwrap_err().to_string()
        };
        let msg = e(&["0 2 0 2\n0 0 1\n", "2 3 2 3\n3 3 1\n"]);
        assert!(
            msg.contains("A.00001: line 1: its rows 2-3 overlap those of"),
            "{msg}"
        );
        assert!(msg.contains("A.00000 (0-2)"), "{msg}");
        let msg = e(&["0 1 0 1\n", "3 4 3 4\n"]);
        assert!(
            msg.contains("A.00001: line 1: its rows 3-4 leave rows 2 to no rank"),
            "{msg}"
        );
        let msg = e(&["0 1 0 1\n5 0 1\n"]);
        assert!(
            msg.contains("A.00000: line 2: row 5 is not among this rank's rows 0-1"),
            "{msg}"
        );
        let msg = e(&["0 1 0 1\n0 9 1\n"]);
        assert!(
            msg.contains("A.00000: line 2: column 9 is beyond the 2 columns"),
            "{msg}"
        );
        let msg = e(&["hello\n"]);
        assert!(msg.contains("not a hypre IJ file"), "{msg}");
        let msg = e(&["0 1 0 1\n0 0 x\n"]);
        assert!(msg.contains("line 2: value 'x' is not a number"), "{msg}");
        // A missing rank file in the middle.
        let sub = tempfile::tempdir_in(d.path()).unwrap();
        let prefix = sub.path().join("A");
        std::fs::write(rank_file(&prefix, 0), "0 0 0 0\n").unwrap();
        std::fs::write(rank_file(&prefix, 2), "1 1 1 1\n").unwrap();
        let msg = read(&prefix, Values::Finite).unwrap_err().to_string();
        assert!(msg.contains("A.00001: cannot read file: missing"), "{msg}");
        // No files at all.
        assert!(rank_files(&d.path().join("none")).unwrap().is_none());
    }

    #[test]
    fn written_files_read_back() {
        let d = tempfile::tempdir().unwrap();
        let a = crate::matrix::gen::Problem::new(crate::matrix::gen::Kind::Poisson2d, 7)
            .generate()
            .unwrap()
            .csr;
        let starts = [0, 10, 10, 30, 49];
        let prefix = d.path().join("L");
        write(&prefix, &a, &starts, &starts).unwrap();
        let m = read(&prefix, Values::Finite).unwrap();
        assert_eq!(m.matrix.csr, a);
        assert_eq!(m.matrix.ownership.unwrap().starts, starts);
        let first = std::fs::read_to_string(rank_file(&prefix, 1)).unwrap();
        assert_eq!(first, "10 9 10 9\n");
    }
}
