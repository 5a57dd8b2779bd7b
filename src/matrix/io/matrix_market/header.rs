//! A Matrix Market file's header: its banner, comments and size line,
//! read before any entry, and what the size line asks of memory.

use super::super::ErrorKind;
use super::tokens::{shorten, trim, LineIter};
use crate::matrix::{Field, Symmetry};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    Coordinate,
    Array,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Header {
    pub(super) format: Format,
    pub(super) field: Field,
    pub(super) symmetry: Symmetry,
    pub(super) rows: usize,
    pub(super) cols: usize,
    /// Entries the size line announces (coordinate) or implies (array).
    pub(super) entries: u64,
}

impl Header {
    /// Bytes the parse and assembly of this file hold at their peak, from
    /// the size line: 16 per entry read (row, column, value), 12 per
    /// stored nonzero (mirrored entries twice), and per row the row
    /// pointer and the per-thread counts and starts of
    /// [`csr::from_triplets`].
    pub(super) fn memory_bytes(&self) -> u64 {
        let groups = rayon::current_num_threads().clamp(1, 8) as u64;
        let stored = match self.symmetry {
            Symmetry::General => self.entries,
            _ => self.entries.saturating_mul(2),
        };
        let per_row = 8 + 12 * groups;
        (self.entries.saturating_mul(16))
            .saturating_add(stored.saturating_mul(12))
            .saturating_add((self.rows as u64).saturating_mul(per_row))
    }

    /// Refuses a size line that announces more than this computer holds.
    pub(super) fn fits_in_memory(&self) -> Result<(), crate::memory::TooLarge> {
        crate::memory::check(self.memory_bytes(), || {
            format!(
                "a {} x {} matrix with {} entries",
                self.rows, self.cols, self.entries
            )
        })
    }
}

/// What the start of a stream says before all of it is read.
pub(crate) enum HeaderScan {
    /// The size line has not arrived yet.
    Incomplete,
    /// The header is wrong or asks for too much: stop reading, the parse
    /// of what was read reports why.
    Refused,
    /// The header is complete and fits; the size line announces `entries`.
    Body {
        /// Entries announced.
        entries: u64,
    },
}

/// Scans a stream's first bytes for the banner, comments and size line,
/// so that a reader can stop early on a wrong or oversized header. `from`
/// is where the previous call stopped (0 at first): each byte is scanned
/// once however the stream arrives.
pub(crate) fn scan_header(prefix: &[u8], from: &mut usize) -> HeaderScan {
    // Complete lines only: a size line cut in the middle is not final.
    while let Some(k) = memchr::memchr(b'\n', &prefix[*from..]) {
        let first = *from == 0;
        let line = trim(&prefix[*from..*from + k]);
        *from += k + 1;
        let pos = *from;
        if first {
            continue;
        }
        if line.is_empty() || line[0] == b'%' {
            continue;
        }
        return match parse_header(&prefix[..pos]) {
            Ok((h, _, _)) if h.fits_in_memory().is_ok() => HeaderScan::Body { entries: h.entries },
            _ => HeaderScan::Refused,
        };
    }
    // A first line that is not a banner is refused without more reading.
    let start = trim(&prefix[..prefix.len().min(14)]);
    if !start.is_empty() && !b"%%matrixmarket".starts_with(&start.to_ascii_lowercase()[..]) {
        return HeaderScan::Refused;
    }
    HeaderScan::Incomplete
}

/// Returns the header, the offset of the first data line and the number of
/// lines before it.
pub(super) fn parse_header(bytes: &[u8]) -> Result<(Header, usize, usize), (usize, ErrorKind)> {
    let mut lines = LineIter { bytes, pos: 0 };
    let banner = lines.next().unwrap_or_default();
    let banner_text = String::from_utf8_lossy(banner).trim().to_string();
    let words: Vec<String> = banner_text
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    if words.first().map(String::as_str) != Some("%%matrixmarket") {
        // Binary content (an executable, an image) is named, not echoed.
        let text = std::str::from_utf8(banner).ok();
        let binary =
            text.is_none_or(|t| t.chars().any(|c| c.is_control() && c != '\t' && c != '\r'));
        let found = if binary {
            "binary data".to_string()
        } else {
            format!("'{}'", shorten(&banner_text))
        };
        return Err((1, ErrorKind::Banner(found)));
    }
    let word = |k: usize| words.get(k).map(String::as_str).unwrap_or("");
    if word(1) != "matrix" {
        let what = if word(1).is_empty() {
            "nothing"
        } else {
            word(1)
        };
        return Err((
            1,
            ErrorKind::Unsupported(format!(
                "only 'matrix' objects are supported, the banner says {what}"
            )),
        ));
    }
    let format = match word(2) {
        "coordinate" => Format::Coordinate,
        "array" => Format::Array,
        w => {
            return Err((
                1,
                ErrorKind::Header(format!(
                    "unknown format '{w}' in the banner (expected coordinate or array)"
                )),
            ))
        }
    };
    let field = match word(3) {
        "real" | "double" => Field::Real,
        "integer" => Field::Integer,
        "pattern" => Field::Pattern,
        "complex" => {
            return Err((1, ErrorKind::Unsupported(
                "complex matrices are not supported (amgcomm reads real, integer and pattern matrices)".into(),
            )))
        }
        w => {
            return Err((1, ErrorKind::Header(format!(
                "unknown field '{w}' in the banner (expected real, integer or pattern)"
            ))))
        }
    };
    let symmetry = match word(4) {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        "hermitian" => {
            return Err((1, ErrorKind::Unsupported(
                "hermitian matrices are not supported (amgcomm reads general, symmetric and skew-symmetric real matrices)".into(),
            )))
        }
        w => {
            return Err((1, ErrorKind::Header(format!(
                "unknown symmetry '{w}' in the banner (expected general, symmetric or skew-symmetric)"
            ))))
        }
    };
    if field == Field::Pattern && format == Format::Array {
        return Err((
            1,
            ErrorKind::Header("an array file cannot have field 'pattern'".into()),
        ));
    }
    if field == Field::Pattern && symmetry == Symmetry::SkewSymmetric {
        return Err((
            1,
            ErrorKind::Header("a pattern matrix cannot be skew-symmetric".into()),
        ));
    }

    // Comment and blank lines, then the size line.
    let mut line_no = 1;
    let size_line = loop {
        line_no += 1;
        match lines.next() {
            None => {
                return Err((
                    line_no - 1,
                    ErrorKind::SizeLine("the file ends before the size line".into()),
                ))
            }
            Some(l) => {
                let t = trim(l);
                if !t.is_empty() && t[0] != b'%' {
                    break t;
                }
            }
        }
    };
    let expected = if format == Format::Coordinate {
        "ROWS COLS ENTRIES"
    } else {
        "ROWS COLS"
    };
    let text = String::from_utf8_lossy(size_line);
    let numbers: Option<Vec<u64>> = text
        .split_whitespace()
        .map(|w| w.parse::<u64>().ok())
        .collect();
    let numbers = match numbers {
        Some(n) if n.len() == expected.split(' ').count() => n,
        _ => {
            return Err((
                line_no,
                ErrorKind::SizeLine(format!(
                    "size line '{}' does not parse: expected {expected} as non-negative integers",
                    shorten(&text)
                )),
            ))
        }
    };
    let (rows, cols) = (numbers[0], numbers[1]);
    let limit = u32::MAX as u64;
    if rows > limit || cols > limit {
        return Err((
            line_no,
            ErrorKind::SizeLine(format!(
                "{rows} x {cols} is too large: at most {limit} rows and columns are supported"
            )),
        ));
    }
    if symmetry != Symmetry::General && rows != cols {
        return Err((
            line_no,
            ErrorKind::SizeLine(format!(
                "a {} matrix must be square, the size line says {rows} x {cols}",
                symmetry.as_str()
            )),
        ));
    }
    let entries = match (format, symmetry) {
        (Format::Coordinate, _) => numbers[2],
        (Format::Array, Symmetry::General) => rows * cols,
        (Format::Array, Symmetry::Symmetric) => rows * (rows + 1) / 2,
        (Format::Array, Symmetry::SkewSymmetric) => rows * rows.saturating_sub(1) / 2,
    };
    let header = Header {
        format,
        field,
        symmetry,
        rows: rows as usize,
        cols: cols as usize,
        entries,
    };
    Ok((header, lines.pos, line_no))
}
