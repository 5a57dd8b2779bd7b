//! Matrix Market writer.
//!
//! Values are written with the shortest representation that reads back to
//! the same `f64` (ryu), so a written matrix reads back bit for bit. Rows
//! are formatted in parallel and streamed in order, through
//! [`crate::output::write_atomically`].

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use rayon::prelude::*;

use super::super::{Csr, Symmetry};

/// Write `a` as `matrix coordinate real general|symmetric`; with
/// `Symmetric` only the lower triangle is stored (the caller vouches that
/// `a` is symmetric, see [`crate::matrix::csr::is_symmetric`]). A path ending in
/// `.gz` is gzip-compressed. `comment` lines are written after the banner.
pub fn write(path: &Path, a: &Csr, symmetry: Symmetry, comment: &str) -> io::Result<()> {
    assert!(
        symmetry != Symmetry::SkewSymmetric,
        "skew-symmetric output is not supported"
    );
    crate::output::write_atomically(path, |tmp| write_to(tmp, path, a, symmetry, comment))
}

fn write_to(
    tmp: &Path,
    target: &Path,
    a: &Csr,
    symmetry: Symmetry,
    comment: &str,
) -> io::Result<()> {
    let file = BufWriter::with_capacity(1 << 20, File::create(tmp)?);
    if target.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        write_body(&mut gz, a, symmetry, comment)?;
        gz.finish()?.flush()
    } else {
        let mut file = file;
        write_body(&mut file, a, symmetry, comment)?;
        file.flush()
    }
}

fn write_body<W: Write>(out: &mut W, a: &Csr, symmetry: Symmetry, comment: &str) -> io::Result<()> {
    let lower = symmetry == Symmetry::Symmetric;
    let indptr = a.indptr();
    let indptr = indptr.raw_storage();
    let (indices, data) = (a.indices(), a.data());
    let stored: usize = if lower {
        (0..a.rows())
            .into_par_iter()
            .map(|i| indices[indptr[i]..indptr[i + 1]].partition_point(|&j| j as usize <= i))
            .sum()
    } else {
        a.nnz()
    };
    writeln!(
        out,
        "%%MatrixMarket matrix coordinate real {}",
        symmetry.as_str()
    )?;
    for line in comment.lines() {
        writeln!(out, "% {line}")?;
    }
    writeln!(out, "{} {} {}", a.rows(), a.cols(), stored)?;

    // Blocks of about 64k entries, formatted a batch at a time in parallel.
    let block_rows = (65_536 * a.rows())
        .checked_div(a.nnz())
        .unwrap_or(a.rows())
        .max(1);
    let blocks: Vec<(usize, usize)> = (0..a.rows())
        .step_by(block_rows)
        .map(|s| (s, (s + block_rows).min(a.rows())))
        .collect();
    for batch in blocks.chunks(rayon::current_num_threads() * 4) {
        let texts: Vec<Vec<u8>> = batch
            .par_iter()
            .map(|&(start, end)| {
                let mut buf = Vec::with_capacity((indptr[end] - indptr[start]) * 36);
                let (mut row_buf, mut col_buf) = (itoa::Buffer::new(), itoa::Buffer::new());
                let mut floats = ryu::Buffer::new();
                for i in start..end {
                    let row = row_buf.format(i + 1).as_bytes();
                    for k in indptr[i]..indptr[i + 1] {
                        let j = indices[k] as usize;
                        if lower && j > i {
                            break;
                        }
                        buf.extend_from_slice(row);
                        buf.push(b' ');
                        buf.extend_from_slice(col_buf.format(j + 1).as_bytes());
                        buf.push(b' ');
                        buf.extend_from_slice(floats.format(data[k]).as_bytes());
                        buf.push(b'\n');
                    }
                }
                buf
            })
            .collect();
        for t in texts {
            out.write_all(&t)?;
        }
    }
    Ok(())
}
