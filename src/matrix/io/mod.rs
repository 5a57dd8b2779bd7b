//! Matrix files in and out: one reader per format behind [`read`], which
//! recognises a file by its content (gzip-compressed or not), and one
//! writer per format behind [`write()`], chosen by the file name.
//!
//! Formats: Matrix Market ([`mtx_read`], [`mtx_write`];
//! <https://math.nist.gov/MatrixMarket/formats.html>). A new format adds
//! a reader module, a [`Format`] variant and its test in [`Format::of`].

pub mod mtx_read;
pub mod mtx_write;

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::{Csr, Matrix, Symmetry};

/// The formats amgcomm reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Matrix Market, coordinate or array.
    MatrixMarket,
}

impl Format {
    /// The format of a file's (inflated) content. Matrix Market is the
    /// fallback: its reader names what is wrong with anything else.
    pub fn of(_content: &[u8]) -> Format {
        Format::MatrixMarket
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
        "not a Matrix Market file: the first line must start with '%%MatrixMarket matrix', found '{0}'"
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
/// Values must be finite.
pub fn read(path: &Path) -> Result<Matrix, ReadError> {
    read_with(path, Values::Finite)
}

/// [`read`], with the value rule chosen.
pub fn read_with(path: &Path, values: Values) -> Result<Matrix, ReadError> {
    let name = path.display().to_string();
    let err = |kind| ReadError {
        path: name.clone(),
        line: None,
        kind,
    };
    let file = File::open(path).map_err(|e| err(ErrorKind::Open(io_reason(&e))))?;
    let meta = file
        .metadata()
        .map_err(|e| err(ErrorKind::Open(io_reason(&e))))?;
    if meta.is_dir() {
        return Err(err(ErrorKind::Open("is a directory".into())));
    }
    if meta.len() == 0 {
        return Err(err(ErrorKind::Empty));
    }
    // SAFETY: the map is read-only; a file truncated under us by another
    // process is the one case memory maps cannot guard against.
    let map =
        unsafe { memmap2::Mmap::map(&file) }.map_err(|e| err(ErrorKind::Open(io_reason(&e))))?;
    // The text (mapped or inflated) is released before assembly inside
    // the reader: the peak holds the entries and the CSR, not the file.
    if map.starts_with(&[0x1f, 0x8b]) {
        let bytes = gunzip(&map).map_err(err)?;
        drop(map);
        parse(&bytes, &name, values)
    } else {
        parse(&map, &name, values)
    }
}

/// The matrix in `bytes` (a whole file's content), in the format they hold.
fn parse(bytes: &[u8], name: &str, values: Values) -> Result<Matrix, ReadError> {
    match Format::of(bytes) {
        Format::MatrixMarket => mtx_read::parse_with(bytes, name, values),
    }
}

/// Write `a`: Matrix Market (`.mtx`, gzip-compressed for `.mtx.gz`), as
/// [`mtx_write::write`] does.
pub fn write(path: &Path, a: &Csr, symmetry: Symmetry, comment: &str) -> std::io::Result<()> {
    mtx_write::write(path, a, symmetry, comment)
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

fn gunzip(compressed: &[u8]) -> Result<Vec<u8>, ErrorKind> {
    // The gzip trailer holds the inflated size mod 2^32: a capacity hint.
    let hint = compressed
        .len()
        .checked_sub(4)
        .map(|t| u32::from_le_bytes(compressed[t..].try_into().unwrap()) as usize)
        .unwrap_or(0);
    let mut out = Vec::with_capacity(hint.min(compressed.len().saturating_mul(16)));
    flate2::read::MultiGzDecoder::new(compressed)
        .read_to_end(&mut out)
        .map_err(|e| ErrorKind::Gzip(e.to_string()))?;
    if out.is_empty() {
        return Err(ErrorKind::Empty);
    }
    Ok(out)
}
