//! Matrix files in and out: one reader per format behind [`read`], which
//! recognises a file by its content (gzip-compressed or not), and one
//! writer per format behind [`write()`], chosen by the file name.
//!
//! Formats: Matrix Market ([`matrix_market`];
//! <https://math.nist.gov/MatrixMarket/formats.html>), PETSc's binary
//! `MatView` ([`petsc`]), and hypre's IJ rank files ([`hypre_ij`]: a path
//! `path/A` that is no file but whose `path/A.00000` is, read with its
//! ranks' row blocks). A new format adds a reader module, a [`Format`]
//! variant and its test in [`Format::of`].
//!
//! May use the rest of `matrix` and the ground floor (`output`, `memory`);
//! each format's module uses only this one and its own files
//! (`tests/layering.rs`).

pub mod hypre_ij;
pub mod matrix_market;
pub mod petsc;

use std::fmt;
use std::fs::File;
use std::io::{BufRead, Read};
use std::path::Path;

use super::{Csr, Matrix, Symmetry};

/// The formats amgcomm reads from one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Matrix Market, coordinate or array.
    MatrixMarket,
    /// PETSc's binary matrix (`MatView` with a binary viewer).
    Petsc,
}

impl Format {
    /// The format of a file's (inflated) content: PETSc binary by its
    /// class id; else Matrix Market, the fallback whose reader names what
    /// is wrong with anything else.
    pub fn of(content: &[u8]) -> Format {
        if petsc::is_petsc(content) {
            Format::Petsc
        } else {
            Format::MatrixMarket
        }
    }
}

/// Which values a file may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Values {
    /// Inputs: `inf` and `nan` are refused.
    Finite,
    /// Saved hierarchies: PyAMG's classical interpolation can divide by
    /// zero, and `--save-levels` writes those weights as `inf`/`NaN`.
    Any,
}

/// A read failure: which file, which line (when one is to blame), what.
#[derive(Debug, PartialEq)]
pub struct ReadError {
    /// The file, as given.
    pub path: String,
    /// 1-based line to blame, if any.
    pub line: Option<usize>,
    /// What is wrong.
    pub kind: ErrorKind,
}

/// What is wrong with a file.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    /// It cannot be opened or read.
    #[error("cannot read file: {0}")]
    Open(String),
    /// It has no content.
    #[error("empty file, expected a Matrix Market header")]
    Empty,
    /// Its gzip stream is broken.
    #[error("truncated or corrupt gzip data ({0})")]
    Gzip(String),
    /// Its first line is not a Matrix Market banner.
    #[error(
        "not a Matrix Market file: the first line must start with '%%MatrixMarket matrix', found {0}"
    )]
    Banner(String),
    /// A valid header amgcomm does not handle (complex, hermitian).
    #[error("{0}")]
    Unsupported(String),
    /// A malformed header.
    #[error("{0}")]
    Header(String),
    /// A malformed size line.
    #[error("{0}")]
    SizeLine(String),
    /// A malformed entry.
    #[error("{0}")]
    Entry(String),
    /// The size line announces more than this computer holds.
    #[error("{0}")]
    Memory(crate::memory::TooLarge),
    /// A stream holds far more text than its announced entries need: a
    /// hostile or broken file, refused before it fills the memory.
    #[error("{0}")]
    TooMuchText(String),
    /// Not as many entries as the size line announces.
    #[error("{}", count_message(*.announced, *.found))]
    Count {
        /// Entries the size line announces.
        announced: u64,
        /// Entries found (up to the first excess one).
        found: u64,
    },
}

fn count_message(announced: u64, found: u64) -> String {
    if found < announced {
        format!("the size line announces {announced} entries but the file ends after {found}")
    } else {
        format!("more entries than the {announced} the size line announces")
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if let Some(line) = self.line {
            write!(f, ": line {line}")?;
        }
        write!(f, ": {}", self.kind)
    }
}

impl std::error::Error for ReadError {}

/// Read a matrix file, plain or gzip-compressed (detected by content).
/// Values must be finite. `-` is standard input; pipes and devices
/// (`/dev/stdin`, `<(zcat m.mtx.gz)`) are read as streams.
pub fn read(path: &Path) -> Result<Matrix, ReadError> {
    read_with(path, Values::Finite)
}

/// [`read`], with the value rule chosen.
pub fn read_with(path: &Path, values: Values) -> Result<Matrix, ReadError> {
    if path == Path::new("-") {
        let name = "stdin";
        let bytes = read_stream(std::io::stdin().lock()).map_err(|kind| ReadError {
            path: name.into(),
            line: None,
            kind,
        })?;
        return parse(&bytes, name, values);
    }
    let name = path.display().to_string();
    let err = |kind| ReadError {
        path: name.clone(),
        line: None,
        kind,
    };
    // hypre's IJ files: `path` is the prefix of `path.00000`, ...
    if !path.exists() && hypre_ij::rank_files(path)?.is_some() {
        return Ok(hypre_ij::read(path, values)?.matrix);
    }
    let file = File::open(path).map_err(|e| err(ErrorKind::Open(crate::output::reason(&e))))?;
    let meta = file
        .metadata()
        .map_err(|e| err(ErrorKind::Open(crate::output::reason(&e))))?;
    if meta.is_dir() {
        return Err(err(ErrorKind::Open("is a directory".into())));
    }
    if !meta.is_file() {
        let bytes = read_stream(file).map_err(err)?;
        return parse(&bytes, &name, values);
    }
    if meta.len() == 0 {
        return Err(err(ErrorKind::Empty));
    }
    // SAFETY: the map is read-only; a file truncated under us by another
    // process is the one case memory maps cannot guard against.
    let map = unsafe { memmap2::Mmap::map(&file) }
        .map_err(|e| err(ErrorKind::Open(crate::output::reason(&e))))?;
    // The text (mapped or inflated) is released before assembly inside
    // the reader: the peak holds the entries and the CSR, not the file.
    if map.starts_with(&GZIP) {
        let bytes = slurp(flate2::read::MultiGzDecoder::new(&map[..]), true).map_err(err)?;
        drop(map);
        parse(&bytes, &name, values)
    } else {
        parse(&map, &name, values)
    }
}

const GZIP: [u8; 2] = [0x1f, 0x8b];

/// A stream's content, inflated if it is gzip-compressed.
fn read_stream(r: impl Read) -> Result<Vec<u8>, ErrorKind> {
    let mut r = std::io::BufReader::with_capacity(1 << 16, r);
    let start = r
        .fill_buf()
        .map_err(|e| ErrorKind::Open(crate::output::reason(&e)))?;
    if start.starts_with(&GZIP) {
        slurp(flate2::read::MultiGzDecoder::new(r), true)
    } else if petsc::is_petsc(start) {
        petsc::slurp(r)
    } else {
        slurp(r, false)
    }
}

/// At most this much text before the size line: comments, not a matrix.
const HEADER_LIMIT: usize = 64 << 20;
/// At most this much text per announced entry (a coordinate line with
/// full-precision values is under 60 bytes), plus [`HEADER_LIMIT`].
const BYTES_PER_ENTRY: u64 = 128;

/// Reads `r` to its end, but stops as soon as the text is known to be
/// wrong: a first line that is not a banner, no size line within
/// [`HEADER_LIMIT`], a size line beyond the memory available (the parse of
/// what was read then reports it), or more text than the entries the size
/// line announces can fill. A hostile stream costs at most a few hundred
/// megabytes before it is refused.
fn slurp(mut r: impl Read, gzip: bool) -> Result<Vec<u8>, ErrorKind> {
    use matrix_market::read::HeaderScan;
    let mut text = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    let mut limit: Option<u64> = None;
    let mut scanned = 0;
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if gzip => return Err(ErrorKind::Gzip(e.to_string())),
            Err(e) => return Err(ErrorKind::Open(crate::output::reason(&e))),
        };
        text.extend_from_slice(&chunk[..n]);
        match limit {
            None => match matrix_market::read::scan_header(&text, &mut scanned) {
                HeaderScan::Incomplete if text.len() > HEADER_LIMIT => {
                    return Err(ErrorKind::SizeLine(format!(
                        "no size line in the first {} MB (only comments), not a matrix",
                        HEADER_LIMIT >> 20
                    )))
                }
                HeaderScan::Incomplete => {}
                HeaderScan::Refused => break,
                HeaderScan::Body { entries } => {
                    let most = entries
                        .saturating_mul(BYTES_PER_ENTRY)
                        .saturating_add(HEADER_LIMIT as u64);
                    limit = Some(most);
                    text.reserve((entries.saturating_mul(40)).min(most) as usize);
                }
            },
            Some(most) if text.len() as u64 > most => {
                return Err(ErrorKind::TooMuchText(format!(
                    "more than {} MB of text for the entries the size line announces, not a matrix file",
                    most >> 20
                )))
            }
            Some(_) => {}
        }
    }
    if text.is_empty() {
        return Err(ErrorKind::Empty);
    }
    Ok(text)
}

/// The matrix in `bytes` (a whole file's content), in the format they hold.
fn parse(bytes: &[u8], name: &str, values: Values) -> Result<Matrix, ReadError> {
    match Format::of(bytes) {
        Format::MatrixMarket => matrix_market::read::parse_with(bytes, name, values),
        Format::Petsc => petsc::parse(bytes, name, values),
    }
}

/// Write `a`: PETSc binary for a name ending in `.petsc` ([`petsc::write`]),
/// else Matrix Market (`.mtx`, gzip-compressed for `.mtx.gz`), as
/// [`matrix_market::write::write`] does.
pub fn write(path: &Path, a: &Csr, symmetry: Symmetry, comment: &str) -> std::io::Result<()> {
    if path.extension().is_some_and(|e| e == "petsc") {
        return petsc::write(path, a);
    }
    matrix_market::write::write(path, a, symmetry, comment)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless stream of comment lines after a banner.
    struct Comments {
        banner: bool,
    }

    impl Read for Comments {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let line: &[u8] = if self.banner {
                b"%comment line\n"
            } else {
                self.banner = true;
                b"%%MatrixMarket matrix coordinate real general\n"
            };
            let n = line.len().min(buf.len());
            buf[..n].copy_from_slice(&line[..n]);
            Ok(n)
        }
    }

    #[test]
    fn an_endless_stream_is_refused_after_a_bounded_read() {
        let e = slurp(Comments { banner: false }, false).unwrap_err();
        assert!(
            e.to_string().contains("no size line in the first 64 MB"),
            "{e}"
        );
        // Not a banner: refused after the first chunk, the parse says why.
        let text = slurp(&b"\x7fELF binary"[..], false).unwrap();
        let e = parse(&text, "x", Values::Finite).unwrap_err();
        assert!(e.to_string().contains("found binary data"), "{e}");
    }
}
