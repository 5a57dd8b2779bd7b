//! The lexing of a Matrix Market file's lines: lines, blanks, indices
//! and values, each error at its byte offset.

use super::super::{ErrorKind, Values};
use crate::matrix::Field;

pub(super) struct LineIter<'a> {
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Iterator for LineIter<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let rest = &self.bytes[self.pos..];
        let end = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        self.pos += (end + 1).min(rest.len());
        Some(&rest[..end])
    }
}

pub(super) fn trim(s: &[u8]) -> &[u8] {
    let start = s
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &s[start..end]
}

/// At most 60 characters, control characters shown as '?', so that a
/// message quoting the input stays on one line.
pub(super) fn shorten(s: &str) -> String {
    let s: String = s
        .trim()
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(60).collect::<String>())
    } else {
        s.to_string()
    }
}

/// Cut `body` into byte ranges that end at line boundaries, several per
/// thread so that rayon can balance uneven chunks.
pub(super) fn chunk_ranges(body: &[u8]) -> Vec<std::ops::Range<usize>> {
    const MIN_CHUNK: usize = 1 << 20;
    let want = (rayon::current_num_threads() * 8).max(1);
    let size = (body.len() / want).max(MIN_CHUNK);
    let mut ranges = Vec::with_capacity(want + 1);
    let mut start = 0;
    while start < body.len() {
        let mut end = (start + size).min(body.len());
        if end < body.len() {
            end = memchr::memchr(b'\n', &body[end..]).map_or(body.len(), |k| end + k + 1);
        }
        ranges.push(start..end);
        start = end;
    }
    if ranges.is_empty() {
        ranges.push(0..0);
    }
    ranges
}

#[inline]
pub(super) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// The token starting at `pos`, for messages.
pub(super) fn token_at(s: &[u8], pos: usize) -> String {
    let end = s[pos..]
        .iter()
        .position(|&b| b.is_ascii_whitespace())
        .map_or(s.len(), |k| pos + k);
    if end == pos {
        return "end of line".to_string();
    }
    format!("'{}'", shorten(&String::from_utf8_lossy(&s[pos..end])))
}

/// Parse an unsigned decimal integer at `*pos`; `None` if there is none or
/// it is not followed by whitespace. More than 19 digits saturate.
#[inline(always)]
pub(super) fn parse_index(s: &[u8], pos: &mut usize) -> Option<u64> {
    let start = *pos;
    let mut i = start;
    let mut v: u64 = 0;
    while let Some(d) = s.get(i).map(|b| b.wrapping_sub(b'0')).filter(|&d| d < 10) {
        v = v.wrapping_mul(10).wrapping_add(d as u64);
        i += 1;
    }
    if i == start || (i < s.len() && !s[i].is_ascii_whitespace()) {
        return None;
    }
    *pos = i;
    Some(if i - start > 19 { u64::MAX } else { v })
}

/// Parse a real (or integer) value at `*pos`, followed by whitespace or the
/// end of the chunk.
#[inline]
pub(super) fn parse_value(
    s: &[u8],
    pos: &mut usize,
    field: Field,
    values: Values,
) -> Result<f64, ErrorKind> {
    let start = *pos;
    let bad = || ErrorKind::Entry(format!("value {} is not a number", token_at(s, start)));
    let (v, n) = match field {
        Field::Integer => {
            let mut i = start;
            if i < s.len() && (s[i] == b'-' || s[i] == b'+') {
                i += 1;
            }
            let digits = i;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            if i == digits {
                return Err(ErrorKind::Entry(format!(
                    "value {} is not an integer",
                    token_at(s, start)
                )));
            }
            let text = std::str::from_utf8(&s[start..i]).map_err(|_| bad())?;
            let v: i64 = text.parse().map_err(|_| {
                ErrorKind::Entry(format!(
                    "integer value {} is out of range",
                    token_at(s, start)
                ))
            })?;
            (v as f64, i - start)
        }
        _ => fast_float2::parse_partial::<f64, _>(&s[start..]).map_err(|_| bad())?,
    };
    let end = start + n;
    if end < s.len() && !s[end].is_ascii_whitespace() {
        return Err(bad());
    }
    if !v.is_finite() && values == Values::Finite {
        return Err(ErrorKind::Entry(format!(
            "value {} is not a finite number",
            token_at(s, start)
        )));
    }
    *pos = end;
    Ok(v)
}

#[inline]
pub(super) fn skip_blanks(s: &[u8], pos: &mut usize) {
    while *pos < s.len() && is_blank(s[*pos]) {
        *pos += 1;
    }
}

/// Skip to the start of the next line if the rest of this one is blank.
#[inline]
pub(super) fn end_of_line(s: &[u8], pos: &mut usize) -> Result<(), ErrorKind> {
    skip_blanks(s, pos);
    if *pos < s.len() && s[*pos] != b'\n' {
        return Err(ErrorKind::Entry(format!(
            "unexpected extra field {}",
            token_at(s, *pos)
        )));
    }
    *pos += 1;
    Ok(())
}
