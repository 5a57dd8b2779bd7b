//! PETSc's binary matrix format, what `MatView` writes to a binary viewer
//! (`PetscViewerBinaryOpen(..., FILE_MODE_WRITE, ...)`) and `MatLoad`
//! reads, big-endian throughout:
//!
//! ```text
//! int  MAT_FILE_CLASSID (1211216)
//! int  M (rows), N (columns), nz (nonzeros)
//! int  row lengths, M of them
//! int  column indices, nz of them, row after row
//! f64  values, nz of them
//! ```
//!
//! `int` is PETSc's `PetscInt`: 32 bits, or 64 in a PETSc configured
//! `--with-64-bit-indices`; the class id's width tells which. [`parse`]
//! reads the first matrix, as `MatLoad` does; [`parse_all`] reads every
//! matrix a viewer wrote one after another (`-pc_mg_dump_binary`).

use std::io::Read;
use std::path::Path;

use super::{ErrorKind, ReadError, Values};
use crate::matrix::csr::{self, Triplets};
use crate::matrix::{Csr, Field, Matrix, Symmetry};

/// `MAT_FILE_CLASSID`.
pub const CLASSID: i64 = 1_211_216;

/// The width of `PetscInt` in `bytes`, by the class id: 4, 8, or `None`
/// for another file.
fn int_width(bytes: &[u8]) -> Option<usize> {
    if bytes.len() >= 4 && i32::from_be_bytes(bytes[..4].try_into().ok()?) as i64 == CLASSID {
        Some(4)
    } else if bytes.len() >= 8 && i64::from_be_bytes(bytes[..8].try_into().ok()?) == CLASSID {
        Some(8)
    } else {
        None
    }
}

/// Whether `bytes` begin as a PETSc binary matrix.
pub fn is_petsc(bytes: &[u8]) -> bool {
    int_width(bytes).is_some()
}

fn int_at(bytes: &[u8], w: usize, k: usize) -> i64 {
    let s = &bytes[k * w..(k + 1) * w];
    if w == 4 {
        i32::from_be_bytes(s.try_into().expect("4 bytes")) as i64
    } else {
        i64::from_be_bytes(s.try_into().expect("8 bytes"))
    }
}

/// The header `(width, M, N, nz)` and the bytes the matrix takes, or what
/// is wrong with it.
fn header(bytes: &[u8]) -> Result<(usize, usize, usize, usize, u64), String> {
    let w = int_width(bytes).ok_or("not a PETSc binary matrix")?;
    if bytes.len() < 4 * w {
        return Err("truncated header".into());
    }
    let (m, n, nz) = (
        int_at(bytes, w, 1),
        int_at(bytes, w, 2),
        int_at(bytes, w, 3),
    );
    if nz == -1 {
        return Err("a dense PETSc matrix (nz = -1); amgcomm reads sparse (AIJ) matrices".into());
    }
    let fits = |x: i64| (0..u32::MAX as i64).contains(&x);
    if !fits(m) || !fits(n) || nz < 0 {
        return Err(format!("header {m} x {n} with {nz} nonzeros is not a sparse matrix amgcomm reads (32-bit rows and columns)"));
    }
    let (m, n, nz) = (m as usize, n as usize, nz as usize);
    let need = (4 + m as u64 + nz as u64)
        .checked_mul(w as u64)
        .and_then(|x| x.checked_add((nz as u64).checked_mul(8)?))
        .ok_or("its sizes overflow")?;
    Ok((w, m, n, nz, need))
}

/// A stream's PETSc matrix: its header, then as many bytes as it
/// announces (checked against the memory first), nothing more.
pub(crate) fn slurp(mut r: impl Read) -> Result<Vec<u8>, ErrorKind> {
    let io = |e: std::io::Error| ErrorKind::Open(crate::output::reason(&e));
    let mut head = vec![0u8; 8];
    r.read_exact(&mut head[..4]).map_err(io)?;
    if int_width(&head[..4]).is_none() {
        r.read_exact(&mut head[4..]).map_err(io)?;
    } else {
        head.truncate(4);
    }
    let w =
        int_width(&head).ok_or_else(|| ErrorKind::Header("not a PETSc binary matrix".into()))?;
    let mut rest = vec![0u8; 3 * w];
    r.read_exact(&mut rest).map_err(io)?;
    head.extend_from_slice(&rest);
    let (_, _, _, _, need) = header(&head).map_err(ErrorKind::Header)?;
    crate::memory::check(need.saturating_mul(2), || "the PETSc matrix".into())
        .map_err(ErrorKind::Memory)?;
    let mut body = Vec::with_capacity(need as usize);
    body.extend_from_slice(&head);
    r.take(need - head.len() as u64)
        .read_to_end(&mut body)
        .map_err(io)?;
    Ok(body)
}

/// The matrix in `bytes`.
pub fn parse(bytes: &[u8], name: &str, values: Values) -> Result<Matrix, ReadError> {
    let fail = |problem: String| ReadError {
        path: name.to_string(),
        line: None,
        kind: ErrorKind::Header(problem),
    };
    let (w, m, n, nz, need) = header(bytes).map_err(fail)?;
    if (bytes.len() as u64) < need {
        return Err(fail(format!(
            "truncated: a {m} x {n} matrix with {nz} nonzeros takes {need} bytes, the file has {}",
            bytes.len()
        )));
    }
    let lens = 4;
    let cols = lens + m;
    let vals_at = (cols + nz) * w;
    let mut sum = 0usize;
    for i in 0..m {
        let l = int_at(bytes, w, lens + i);
        if l < 0 || l as usize > n {
            return Err(fail(format!(
                "row {i} (global index, counted from 0) has length {l}"
            )));
        }
        sum += l as usize;
    }
    if sum != nz {
        return Err(fail(format!(
            "the row lengths sum to {sum}, the header says {nz} nonzeros"
        )));
    }
    let mut t = Triplets::default();
    let mut k = 0usize;
    for i in 0..m {
        let l = int_at(bytes, w, lens + i) as usize;
        for _ in 0..l {
            let j = int_at(bytes, w, cols + k);
            if !(0..n as i64).contains(&j) {
                return Err(fail(format!(
                    "row {i} (global index, counted from 0): column {j} out of range 0..{n}"
                )));
            }
            let v = f64::from_be_bytes(
                bytes[vals_at + 8 * k..vals_at + 8 * k + 8]
                    .try_into()
                    .expect("8 bytes"),
            );
            if values == Values::Finite && !v.is_finite() {
                return Err(fail(format!(
                    "row {i}, column {j} (global indices, counted from 0): value {v} is not finite"
                )));
            }
            t.push(i as u32, j as u32, v);
            k += 1;
        }
    }
    let csr: Csr = csr::from_triplets(m, n, &[t], Symmetry::General);
    Ok(Matrix {
        name: name.to_string(),
        field: Field::Real,
        symmetry: Symmetry::General,
        block_size: 1,
        csr,
        ownership: None,
        numbering: crate::matrix::Numbering::FromZero,
    })
}

/// Every matrix in `bytes`, one after another, as one binary viewer
/// writes them; anything else in the file is an error naming its offset.
pub fn parse_all(bytes: &[u8], name: &str, values: Values) -> Result<Vec<Matrix>, ReadError> {
    let mut out = Vec::new();
    let mut at = 0usize;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if !is_petsc(rest) {
            return Err(ReadError {
                path: name.to_string(),
                line: None,
                kind: ErrorKind::Header(format!(
                    "after {} matrices, the {} bytes at offset {at} are not a PETSc matrix",
                    out.len(),
                    rest.len()
                )),
            });
        }
        let need = header(rest).map_or(rest.len() as u64, |h| h.4);
        let end = (need as usize).min(rest.len());
        let label = format!("{name} (matrix {} at offset {at})", out.len() + 1);
        out.push(parse(&rest[..end], &label, values)?);
        at += end;
    }
    Ok(out)
}

/// Writes `a` as a PETSc binary matrix (32-bit `PetscInt`, or 64-bit when
/// its nonzeros need it), atomically.
pub fn write(path: &Path, a: &Csr) -> std::io::Result<()> {
    use std::io::Write;
    let wide = a.nnz() > i32::MAX as usize;
    crate::output::write_atomically(path, |tmp| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
        let int = |out: &mut std::io::BufWriter<std::fs::File>, x: i64| {
            if wide {
                out.write_all(&x.to_be_bytes())
            } else {
                out.write_all(&(x as i32).to_be_bytes())
            }
        };
        for x in [CLASSID, a.rows() as i64, a.cols() as i64, a.nnz() as i64] {
            int(&mut out, x)?;
        }
        for i in 0..a.rows() {
            int(&mut out, a.outer_view(i).expect("row").nnz() as i64)?;
        }
        for &j in a.indices() {
            int(&mut out, j as i64)?;
        }
        for v in a.data() {
            out.write_all(&v.to_be_bytes())?;
        }
        out.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PETSc file written by hand: 2 x 3, rows [0: (0, 1.5), (2, -2)],
    /// [1: (1, 4)], with `w`-byte ints.
    fn by_hand(w: usize) -> Vec<u8> {
        let mut b = Vec::new();
        let int = |b: &mut Vec<u8>, x: i64| {
            if w == 4 {
                b.extend((x as i32).to_be_bytes())
            } else {
                b.extend(x.to_be_bytes())
            }
        };
        for x in [1_211_216, 2, 3, 3, 2, 1, 0, 2, 1] {
            int(&mut b, x);
        }
        for v in [1.5f64, -2.0, 4.0] {
            b.extend(v.to_be_bytes());
        }
        b
    }

    #[test]
    fn reads_both_index_widths() {
        for w in [4, 8] {
            let m = parse(&by_hand(w), "m.petsc", Values::Finite).unwrap();
            let a = &m.csr;
            assert_eq!((a.rows(), a.cols(), a.nnz()), (2, 3, 3));
            assert_eq!(a.get(0, 2), Some(&-2.0));
            assert_eq!(a.get(1, 1), Some(&4.0));
            assert_eq!(slurp(&by_hand(w)[..]).unwrap(), by_hand(w));
        }
    }

    #[test]
    fn damaged_files_say_what_is_wrong() {
        // 4 header ints, 2 row lengths, 3 columns (4 bytes each), 3
        // values (8 each): 60 bytes.
        let good = by_hand(4);
        let e = |b: &[u8]| parse(b, "m.petsc", Values::Finite).unwrap_err().to_string();
        assert!(e(&good[..good.len() - 1])
            .contains("truncated: a 2 x 3 matrix with 3 nonzeros takes 60 bytes"));
        let mut bad = good.clone();
        bad[4 * 7 + 3] = 9; // row 0's second column index: 9
        assert!(
            e(&bad).contains("row 0 (global index, counted from 0): column 9 out of range 0..3"),
            "{}",
            e(&bad)
        );
        let mut bad = good.clone();
        bad[4 * 4 + 3] = 1; // row 0 of length 1: sum 2, not 3
        assert!(e(&bad).contains("the row lengths sum to 2"), "{}", e(&bad));
        let mut dense = good.clone();
        dense[12..16].copy_from_slice(&(-1i32).to_be_bytes());
        assert!(e(&dense).contains("dense PETSc matrix"));
        assert!(!is_petsc(b"%%MatrixMarket"));
    }

    #[test]
    fn matrices_one_after_another() {
        let mut two = by_hand(4);
        two.extend(by_hand(8));
        let all = parse_all(&two, "dump", Values::Finite).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].csr, all[1].csr);
        assert_eq!(all[1].csr.get(0, 0), Some(&1.5));
        two.extend([0u8; 3]);
        let e = parse_all(&two, "dump", Values::Finite)
            .unwrap_err()
            .to_string();
        assert!(
            // 60 bytes with 4-byte ints, 96 with 8.
            e.contains("after 2 matrices, the 3 bytes at offset 156 are not"),
            "{e}"
        );
        let mut cut = by_hand(4);
        cut.extend(&by_hand(4)[..20]);
        let e = parse_all(&cut, "dump", Values::Finite)
            .unwrap_err()
            .to_string();
        assert!(e.contains("dump (matrix 2 at offset 60): truncated"), "{e}");
    }

    #[test]
    fn written_files_read_back_bit_for_bit() {
        let d = tempfile::tempdir().unwrap();
        let a = crate::matrix::gen::Problem::new(crate::matrix::gen::Kind::Elasticity3d, 3)
            .generate()
            .unwrap()
            .csr;
        let path = d.path().join("a.petsc");
        write(&path, &a).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len(), 16 + 4 * a.rows() + 12 * a.nnz());
        assert_eq!(parse(&bytes, "a", Values::Finite).unwrap().csr, a);
        // Through the dispatcher, by content.
        assert_eq!(super::super::read(&path).unwrap().csr, a);
    }
}
