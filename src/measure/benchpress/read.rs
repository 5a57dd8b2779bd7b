//! Reading BenchPress's outputs: the ping-pong, max-rate and memcpy
//! sections, as rows of times.

use crate::machine::Copy;

/// A BenchPress output that does not read, in user terms.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct BenchError(pub String);

/// Values per row: sizes `2^0 .. 2^17` floats (4 B to 512 KiB).
pub const SIZES: usize = 18;

/// The rows of the section under the line starting with `header`: each
/// following line starting with `prefix`, up to the first that does not,
/// as `(line number from 1, the rest of the line)`, each parsed by `row`
/// (an error names its line). None at all is the error `missing`.
pub(crate) fn section<T>(
    text: &str,
    header: &str,
    prefix: &str,
    missing: &str,
    mut row: impl FnMut(&str) -> Result<T, String>,
) -> Result<Vec<T>, BenchError> {
    let mut lines = (text.lines().enumerate())
        .map(|(n, l)| (n + 1, l.trim_end()))
        // Tioga's memcpy prints its GPU count under the header.
        .filter(|(_, l)| !l.starts_with("Num GPUs"));
    lines.find(|(_, l)| l.starts_with(header));
    let rows = lines
        .map_while(|(n, l)| Some((n, l.strip_prefix(prefix)?)))
        .map(|(n, rest)| row(rest).map_err(|why| BenchError(format!("line {n}: {why}"))))
        .collect::<Result<Vec<T>, _>>()?;
    if rows.is_empty() {
        return Err(BenchError(missing.into()));
    }
    Ok(rows)
}

/// Which buffers a BenchPress section times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffers {
    /// Pinned host buffers (`CPU a and CPU b`, `Timing ... CPU ...`).
    Host,
    /// Device buffers passed to a GPU-aware MPI (`GPU on rank a and GPU
    /// on rank b`, `Timing GPU ...`).
    Device,
}

/// Rank pairs of the CPU (or GPU) section of a ping-pong output: `(a, b,
/// one-way seconds per size)` from lines `CPU a and CPU b:` (`GPU on rank
/// a and GPU on rank b:`) followed by [`SIZES`] values, up to the next
/// section.
pub fn ping_pong(text: &str) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    ping_pong_of(text, Buffers::Host)
}

/// [`ping_pong`] of `buffers`' section.
pub fn ping_pong_of(
    text: &str,
    buffers: Buffers,
) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    let (header, prefix, and) = match buffers {
        Buffers::Host => ("Profiling Standard CPU Ping-Pongs:", "CPU ", " and CPU "),
        Buffers::Device => (
            "Profiling GPU Ping-Pongs",
            "GPU on rank ",
            " and GPU on rank ",
        ),
    };
    let form = format!("{prefix}a{and}b:");
    pair_rows(text, header, prefix, and, &form, "ping-pong")
}

/// Rows `{prefix}a{sep}b:` followed by [`SIZES`] times under `header`
/// (ping-pongs' rank pairs, memcpy's rank and GPU): `(a, b, seconds per
/// size)`; a row that is not one says it is not `form`.
pub(crate) fn pair_rows(
    text: &str,
    header: &str,
    prefix: &str,
    sep: &str,
    form: &str,
    what: &str,
) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    let missing = format!("no '{header}' rows (a BenchPress {what} output?)");
    section(text, header, prefix, &missing, |rest| {
        let (pair, values) = (rest.split_once(':')).ok_or_else(|| format!("not '{form} times'"))?;
        let (a, b) = pair
            .split_once(sep)
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
            .ok_or_else(|| format!("not '{form}'"))?;
        Ok((a, b, times(values, SIZES)?))
    })
}

/// The CPU section of a max-rate output: `(floats, seconds per sender
/// count 1, 2, ...)` from lines `Size S` and their values.
pub fn max_rate(text: &str) -> Result<Vec<(u64, Vec<f64>)>, BenchError> {
    sized_rows(text, "Timing Max-Rate CPU Ping-Pongs", "max-rate")
}

/// Rows `Size S` and their values under `header` (max-rate and
/// multiple-message outputs, their CPU or GPU section): `(floats,
/// seconds per column)`.
pub fn sized_rows(
    text: &str,
    header: &str,
    what: &str,
) -> Result<Vec<(u64, Vec<f64>)>, BenchError> {
    let missing = format!("no '{header}' rows (a BenchPress {what} output?)");
    section(text, header, "Size ", &missing, |rest| {
        let mut it = rest.splitn(2, ['\t', ' ']);
        let size = it
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|s| (1..=1 << 30).contains(s))
            .ok_or("not 'Size S' with S a count of floats")?;
        Ok((size, times(it.next().unwrap_or(""), 0)?))
    })
}

/// The copies of a memcpy output, `way` to the device or the host:
/// `(rank p, GPU g, seconds per size)` from lines `CPU p, GPU g:`.
pub fn memcpy(text: &str, way: Copy) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    let header = match way {
        Copy::ToDevice => "Memcpy Host To Device:",
        Copy::ToHost => "Memcpy Device To Host:",
    };
    pair_rows(text, header, "CPU ", ", GPU ", "CPU p, GPU g:", "memcpy")
}

/// Whitespace-separated times: `count` of them (any number from 1 when
/// 0), each a finite number of seconds from 0 to 1 hour.
pub(crate) fn times(s: &str, count: usize) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split_whitespace()
        .map(|x| {
            x.parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && (0.0..=3600.0).contains(t))
                .ok_or_else(|| format!("'{x}' is not a time in seconds"))
        })
        .collect::<Result<_, _>>()?;
    if (count > 0 && v.len() != count) || v.is_empty() {
        return Err(format!(
            "{} times, {} expected",
            v.len(),
            if count > 0 {
                count.to_string()
            } else {
                "at least 1".into()
            }
        ));
    }
    Ok(v)
}

/// `parse` of each of `files` in `dir`, each read once (at most 64
/// MiB); an error names its file.
pub(crate) fn parsed<T>(
    dir: &std::path::Path,
    files: &[&str],
    parse: impl Fn(&str) -> Result<T, BenchError>,
) -> Result<Vec<T>, BenchError> {
    (files.iter())
        .map(|name| {
            let path = dir.join(name);
            parse(&read_text(&path)?)
                .map_err(|e| BenchError(format!("{}: {}", path.display(), e.0)))
        })
        .collect()
}

/// A BenchPress output or a table: text of at most 64 MiB, or one line
/// naming the file.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, BenchError> {
    crate::memory::read_text(path, 64 << 20)
        .map_err(|e| BenchError(format!("{}: {}", path.display(), crate::output::reason(&e))))
}
