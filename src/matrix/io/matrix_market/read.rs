//! Parallel Matrix Market reader.
//!
//! The file's content (memory-mapped or inflated by [`super::read`]) has
//! its header parsed sequentially, and its data lines are cut into byte
//! chunks at line boundaries that rayon parses in parallel. Errors carry a
//! byte offset; the line number is counted only when an error is reported.
//!
//! Format: <https://math.nist.gov/MatrixMarket/formats.html>. Accepted:
//! `matrix coordinate|array real|double|integer|pattern
//! general|symmetric|skew-symmetric`, `%` comment and blank lines.

use rayon::prelude::*;

use super::header::{parse_header, Format, Header};
pub(crate) use super::header::{scan_header, HeaderScan};
use super::tokens::{
    chunk_ranges, end_of_line, is_blank, parse_index, parse_value, skip_blanks, token_at,
};

use super::super::{ErrorKind, ReadError, Values};
use crate::matrix::csr::{self, Triplets};
use crate::matrix::{Field, Matrix, Symmetry};

/// Parse a whole Matrix Market file held in memory; `name` is used in errors.
pub fn parse(bytes: &[u8], name: &str) -> Result<Matrix, ReadError> {
    parse_with(bytes, name, Values::Finite)
}

/// [`parse`] with the value rule chosen.
pub fn parse_with(bytes: &[u8], name: &str, values: Values) -> Result<Matrix, ReadError> {
    Ok(parse_entries(bytes, name, values)?.assemble(name))
}

/// The checked entries of a file, not yet assembled.
struct Parsed {
    header: Header,
    chunks: Vec<Triplets>,
}

impl Parsed {
    fn assemble(self, name: &str) -> Matrix {
        let h = self.header;
        Matrix {
            name: name.to_string(),
            field: h.field,
            symmetry: h.symmetry,
            block_size: 1,
            csr: csr::from_triplets(h.rows, h.cols, &self.chunks, h.symmetry),
            ownership: None,
            numbering: crate::matrix::Numbering::FromOne,
        }
    }
}

fn parse_entries(bytes: &[u8], name: &str, values: Values) -> Result<Parsed, ReadError> {
    let fail = |line: Option<usize>, kind| ReadError {
        path: name.to_string(),
        line,
        kind,
    };
    if bytes.is_empty() {
        return Err(fail(None, ErrorKind::Empty));
    }
    let (header, body_start, header_lines) =
        parse_header(bytes).map_err(|(l, k)| fail(Some(l), k))?;
    header
        .fits_in_memory()
        .map_err(|e| fail(Some(header_lines), ErrorKind::Memory(e)))?;
    let body = &bytes[body_start..];
    let line_of =
        |offset: usize| header_lines + 1 + memchr::memchr_iter(b'\n', &body[..offset]).count();

    let ranges = chunk_ranges(body);
    let chunks = match header.format {
        Format::Coordinate => {
            let parsed: Vec<Result<Triplets, (usize, ErrorKind)>> = ranges
                .par_iter()
                .map(|r| {
                    parse_coordinate(&body[r.clone()], &header, values)
                        .map_err(|(off, msg)| (r.start + off, msg))
                })
                .collect();
            let mut chunks = Vec::with_capacity(parsed.len());
            for p in parsed {
                chunks.push(p.map_err(|(off, kind)| fail(Some(line_of(off)), kind))?);
            }
            let found: u64 = chunks.iter().map(|t| t.len() as u64).sum();
            check_count(
                &header,
                found,
                body,
                &ranges,
                &chunks.iter().map(Triplets::len).collect::<Vec<_>>(),
            )
            .map_err(|(line, kind)| fail(line.map(line_of), kind))?;
            chunks
        }
        Format::Array => {
            let parsed: Vec<Result<Vec<f64>, (usize, ErrorKind)>> = ranges
                .par_iter()
                .map(|r| {
                    parse_array(&body[r.clone()], header.field, values)
                        .map_err(|(off, msg)| (r.start + off, msg))
                })
                .collect();
            let mut values = Vec::new();
            let mut counts = Vec::with_capacity(parsed.len());
            for p in parsed {
                let v = p.map_err(|(off, kind)| fail(Some(line_of(off)), kind))?;
                counts.push(v.len());
                values.extend(v);
            }
            check_count(&header, values.len() as u64, body, &ranges, &counts)
                .map_err(|(line, kind)| fail(line.map(line_of), kind))?;
            vec![dense_to_triplets(&header, &values)]
        }
    };
    Ok(Parsed { header, chunks })
}

/// Parse coordinate lines `I J [V]` of one chunk into 0-based triplets.
/// Errors are (offset in chunk, what).
fn parse_coordinate(s: &[u8], h: &Header, values: Values) -> Result<Triplets, (usize, ErrorKind)> {
    // One entry a line: counting lines first (memchr, ~10 GB/s) spares the
    // reallocations of growing vectors.
    let lines = memchr::memchr_iter(b'\n', s).count() + 1;
    let mut out = Triplets {
        rows: Vec::with_capacity(lines),
        cols: Vec::with_capacity(lines),
        vals: Vec::with_capacity(lines),
    };
    let mut pos = 0;
    while pos < s.len() {
        let line = pos;
        skip_blanks(s, &mut pos);
        if pos >= s.len() {
            break;
        }
        if s[pos] == b'\n' || s[pos] == b'%' {
            pos = memchr::memchr(b'\n', &s[pos..]).map_or(s.len(), |k| pos + k + 1);
            continue;
        }
        let fail = |kind: ErrorKind| (line, kind);
        let row = index(s, &mut pos, "row", h.rows).map_err(fail)?;
        skip_blanks(s, &mut pos);
        let col = index(s, &mut pos, "column", h.cols).map_err(fail)?;
        let val = if h.field == Field::Pattern {
            1.0
        } else {
            skip_blanks(s, &mut pos);
            if pos >= s.len() || s[pos] == b'\n' {
                return Err(fail(ErrorKind::Entry(
                    "missing value: expected 'ROW COL VALUE'".into(),
                )));
            }
            parse_value(s, &mut pos, h.field, values).map_err(fail)?
        };
        if h.symmetry == Symmetry::SkewSymmetric && row == col {
            return Err(fail(ErrorKind::Entry(format!(
                "diagonal entry ({}, {}) in a skew-symmetric file, whose diagonal is zero and not stored",
                row + 1,
                col + 1
            ))));
        }
        end_of_line(s, &mut pos).map_err(fail)?;
        out.push(row, col, val);
    }
    Ok(out)
}

/// Parse a 1-based index bounded by `n`, returned 0-based.
#[inline(always)]
fn index(s: &[u8], pos: &mut usize, what: &str, n: usize) -> Result<u32, ErrorKind> {
    let start = *pos;
    let problem = match parse_index(s, pos) {
        Some(v) if v >= 1 && v <= n as u64 => return Ok((v - 1) as u32),
        Some(_) => format!(
            "{what} index {} is out of range 1..={n} (indices are 1-based)",
            String::from_utf8_lossy(&s[start..*pos])
        ),
        None if start >= s.len() || s[start] == b'\n' => {
            format!("missing {what} index: expected 'ROW COL VALUE'")
        }
        None => format!(
            "{what} index {} is not a positive integer",
            token_at(s, start)
        ),
    };
    Err(ErrorKind::Entry(problem))
}

/// Parse the values of an array chunk (any number per line).
fn parse_array(s: &[u8], field: Field, values: Values) -> Result<Vec<f64>, (usize, ErrorKind)> {
    let mut out = Vec::with_capacity(s.len() / 24);
    let mut pos = 0;
    let mut line = 0;
    while pos < s.len() {
        let b = s[pos];
        if b == b'\n' {
            pos += 1;
            line = pos;
        } else if is_blank(b) {
            pos += 1;
        } else if b == b'%' {
            pos = memchr::memchr(b'\n', &s[pos..]).map_or(s.len(), |k| pos + k);
        } else {
            out.push(parse_value(s, &mut pos, field, values).map_err(|m| (line, m))?);
        }
    }
    Ok(out)
}

/// Compare the entries found with the header; on excess, point at the line
/// of the first entry beyond the announced count.
fn check_count(
    h: &Header,
    found: u64,
    body: &[u8],
    ranges: &[std::ops::Range<usize>],
    counts: &[usize],
) -> Result<(), (Option<usize>, ErrorKind)> {
    let kind = ErrorKind::Count {
        announced: h.entries,
        found,
    };
    if found < h.entries {
        return Err((None, kind));
    }
    if found == h.entries {
        return Ok(());
    }
    let mut before = 0u64;
    for (r, &c) in ranges.iter().zip(counts) {
        if before + c as u64 > h.entries {
            let skip = (h.entries - before) as usize;
            let offset = nth_entry_offset(&body[r.clone()], skip, h.format).map(|o| r.start + o);
            return Err((offset, kind));
        }
        before += c as u64;
    }
    Err((None, kind))
}

/// Byte offset of entry `n` (0-based) of a chunk that is known to parse.
fn nth_entry_offset(s: &[u8], n: usize, format: Format) -> Option<usize> {
    let mut seen = 0;
    let mut pos = 0;
    let mut line = 0;
    while pos < s.len() {
        let b = s[pos];
        if b == b'\n' {
            pos += 1;
            line = pos;
        } else if is_blank(b) {
            pos += 1;
        } else if b == b'%' {
            pos = memchr::memchr(b'\n', &s[pos..]).map_or(s.len(), |k| pos + k);
        } else {
            if seen == n {
                return Some(line);
            }
            seen += 1;
            pos = match format {
                Format::Coordinate => memchr::memchr(b'\n', &s[pos..]).map_or(s.len(), |k| pos + k),
                Format::Array => s[pos..]
                    .iter()
                    .position(|c| c.is_ascii_whitespace())
                    .map_or(s.len(), |k| pos + k),
            };
        }
    }
    None
}

/// Column-major dense values to triplets; zeros are not stored.
fn dense_to_triplets(h: &Header, values: &[f64]) -> Triplets {
    let mut t = Triplets::default();
    let mut k = 0;
    for j in 0..h.cols {
        let first_row = match h.symmetry {
            Symmetry::General => 0,
            Symmetry::Symmetric => j,
            Symmetry::SkewSymmetric => j + 1,
        };
        for i in first_row..h.rows {
            let v = values[k];
            k += 1;
            if v != 0.0 {
                t.push(i as u32, j as u32, v);
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense(m: &Matrix) -> Vec<Vec<f64>> {
        let a = &m.csr;
        let mut d = vec![vec![0.0; a.cols()]; a.rows()];
        for (v, (i, j)) in a.iter() {
            d[i as usize][j as usize] = *v;
        }
        d
    }

    fn ok(text: &str) -> Matrix {
        parse(text.as_bytes(), "t.mtx").unwrap_or_else(|e| panic!("{e}"))
    }

    fn err(text: &str) -> String {
        parse(text.as_bytes(), "t.mtx")
            .map(|_| ())
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn coordinate_real_general_with_comments_and_duplicates() {
        let m = ok("%%MatrixMarket matrix coordinate real general\n% a comment\n\n%another\n2 3 4\n1 1 1.5\n2 3 -2e-3\n  1 1 0.25 \r\n2 1 7\n");
        assert_eq!(
            dense(&m),
            vec![vec![1.75, 0.0, 0.0], vec![7.0, 0.0, -0.002]]
        );
        assert_eq!(m.info().nnz, 3);
        assert_eq!((m.field, m.symmetry), (Field::Real, Symmetry::General));
        // No newline after the last entry.
        let m = ok("%%MatrixMarket matrix coordinate real general\n1 2 1\n1 2 -3.5");
        assert_eq!(dense(&m), vec![vec![0.0, -3.5]]);
    }

    #[test]
    fn coordinate_integer_and_pattern_symmetric() {
        let m = ok(
            "%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 4\n3 1 -2\n3 2 +5\n",
        );
        assert_eq!(
            dense(&m),
            vec![
                vec![4.0, 0.0, -2.0],
                vec![0.0, 0.0, 5.0],
                vec![-2.0, 5.0, 0.0]
            ]
        );
        assert_eq!(m.info().nnz, 5);
        let p = ok("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n");
        assert_eq!(
            dense(&p),
            vec![
                vec![0.0, 1.0, 0.0],
                vec![1.0, 0.0, 0.0],
                vec![0.0, 0.0, 1.0]
            ]
        );
        assert_eq!(p.field, Field::Pattern);
    }

    #[test]
    fn coordinate_skew_symmetric() {
        let m =
            ok("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3.0\n3 2 -1\n");
        assert_eq!(
            dense(&m),
            vec![
                vec![0.0, -3.0, 0.0],
                vec![3.0, 0.0, 1.0],
                vec![0.0, -1.0, 0.0]
            ]
        );
        assert!(
            err("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n")
                .contains("line 3: diagonal entry")
        );
    }

    #[test]
    fn array_general_symmetric_skew() {
        // Column-major: columns (1, 0) and (0, 2.5).
        let g = ok("%%MatrixMarket matrix array real general\n% c\n2 2\n1\n0\n0\n2.5\n");
        assert_eq!(dense(&g), vec![vec![1.0, 0.0], vec![0.0, 2.5]]);
        assert_eq!(g.info().nnz, 2);
        let s = ok("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n");
        assert_eq!(
            dense(&s),
            vec![
                vec![1.0, 2.0, 3.0],
                vec![2.0, 4.0, 5.0],
                vec![3.0, 5.0, 6.0]
            ]
        );
        let k = ok("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1 2\n3\n");
        assert_eq!(
            dense(&k),
            vec![
                vec![0.0, -1.0, -2.0],
                vec![1.0, 0.0, -3.0],
                vec![2.0, 3.0, 0.0]
            ]
        );
        assert!(
            err("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n")
                .contains("ends after 3")
        );
    }

    #[test]
    fn banner_is_case_insensitive_and_double_is_real() {
        let m = ok("%%MatrixMarket MATRIX Coordinate DOUBLE General\n1 1 1\n1 1 2\n");
        assert_eq!(dense(&m), vec![vec![2.0]]);
    }

    #[test]
    fn error_messages_name_line_and_problem() {
        let h = "%%MatrixMarket matrix coordinate real general\n";
        assert_eq!(err("hello\n"), "t.mtx: line 1: not a Matrix Market file: the first line must start with '%%MatrixMarket matrix', found 'hello'");
        assert_eq!(err(&format!("{h}% c\n3 x 2\n")), "t.mtx: line 3: size line '3 x 2' does not parse: expected ROWS COLS ENTRIES as non-negative integers");
        assert_eq!(
            err(&format!("{h}3 3 2\n1 1 1\n4 1 1\n")),
            "t.mtx: line 4: row index 4 is out of range 1..=3 (indices are 1-based)"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1 0 1\n")),
            "t.mtx: line 3: column index 0 is out of range 1..=3 (indices are 1-based)"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n123456789012345678901234 1 1\n")),
            "t.mtx: line 3: row index 123456789012345678901234 is out of range 1..=3 (indices are 1-based)"
        );
        assert_eq!(
            err(&format!("{h}3 3 2\n1 1 1\n")),
            "t.mtx: the size line announces 2 entries but the file ends after 1"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1 1 1\n2 2 1\n")),
            "t.mtx: line 4: more entries than the 1 the size line announces"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1 1 abc\n")),
            "t.mtx: line 3: value 'abc' is not a number"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1 1 1.0x\n")),
            "t.mtx: line 3: value '1.0x' is not a number"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1 1 nan\n")),
            "t.mtx: line 3: value 'nan' is not a finite number"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1 1\n")),
            "t.mtx: line 3: missing value: expected 'ROW COL VALUE'"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1 1 1 1\n")),
            "t.mtx: line 3: unexpected extra field '1'"
        );
        assert_eq!(
            err(&format!("{h}3 3 1\n1.5 1 1\n")),
            "t.mtx: line 3: row index '1.5' is not a positive integer"
        );
        assert_eq!(err(h), "t.mtx: line 1: the file ends before the size line");
        assert!(
            err("%%MatrixMarket matrix coordinate complex general\n1 1 0\n")
                .contains("complex matrices are not supported")
        );
        assert!(
            err("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n")
                .contains("hermitian matrices are not supported")
        );
        assert!(
            err("%%MatrixMarket matrix coordinate real symmetric\n2 3 0\n")
                .contains("must be square")
        );
        assert_eq!(
            err(""),
            "t.mtx: empty file, expected a Matrix Market header"
        );
    }

    #[test]
    fn many_chunks_give_the_same_matrix_and_right_error_line() {
        // Large enough for several 1 MiB chunks.
        let n = 200_000;
        let mut text = format!("%%MatrixMarket matrix coordinate real general\n{n} {n} {n}\n");
        for i in 1..=n {
            text.push_str(&format!("{i} {} {}.5\n", (i * 7919) % n + 1, i));
        }
        let m = ok(&text);
        assert_eq!(m.csr.nnz(), n);
        assert!(text.len() > 4 << 20);
        assert_eq!(
            *m.csr.get(149_999, (150_000 * 7919) % n).unwrap(),
            150_000.5
        );
        let mut lines: Vec<&str> = text.lines().collect();
        let broken = lines[150_001].replacen(' ', "x ", 1);
        lines[150_001] = &broken;
        assert_eq!(
            err(&lines.join("\n")),
            "t.mtx: line 150002: row index '150000x' is not a positive integer"
        );
    }
}
