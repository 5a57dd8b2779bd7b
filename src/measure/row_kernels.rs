//! RAPtor 2018's local work around an exchange of matrix rows, as
//! kernels `amgcomm calibrate` times where it runs (the terms `rowcopy`
//! and `rowpack` of [`crate::machine::RowWork`]), written as
//! `raptor/core/comm_pkg.cpp` at c00e9d6 does the work:
//!
//! - `CommPkg::communicate(A)` copies the rank's whole local matrix into
//!   (row pointer, global column, value) arrays, the on-rank block's
//!   entries then the off-rank block's of each row, each column through
//!   its block's column map ([`copy`]);
//! - `communication_helper` packs every row sent into a growing buffer of
//!   (value, index) pairs, one for the row's length and one per nonzero
//!   ([`pack`]), and the receiver unpacks each message into a new CSR
//!   matrix pair by pair ([`unpack`]).

use std::hint::black_box;
use std::time::Instant;

/// A rank's rows as RAPtor holds them: an on-rank and an off-rank CSR
/// block over local column indices, and each block's column map.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalRows {
    /// The on-rank block: row pointer, local columns, values.
    pub on_ptr: Vec<i32>,
    #[allow(missing_docs)]
    pub on_cols: Vec<i32>,
    #[allow(missing_docs)]
    pub on_vals: Vec<f64>,
    /// The off-rank block: row pointer, local columns, values.
    pub off_ptr: Vec<i32>,
    #[allow(missing_docs)]
    pub off_cols: Vec<i32>,
    #[allow(missing_docs)]
    pub off_vals: Vec<f64>,
    /// Global column of each on-rank local column.
    pub on_map: Vec<i32>,
    /// Global column of each off-rank local column.
    pub off_map: Vec<i32>,
}

impl LocalRows {
    /// `rows` rows of a 3D 27-point stencil's share of a rank (rank `r`
    /// of first row `rows r`): 20 entries in the rank's columns and 7 in
    /// other ranks', as a rank's slab of a 3D problem has.
    pub fn stencil(rows: usize, r: usize) -> LocalRows {
        let first = (rows * r) as i32;
        let (mut on_ptr, mut on_cols, mut on_vals) = (vec![0], Vec::new(), Vec::new());
        let (mut off_ptr, mut off_cols, mut off_vals) = (vec![0], Vec::new(), Vec::new());
        let off_cols_n = rows.max(1);
        for i in 0..rows {
            for d in 0..20usize {
                on_cols.push(((i + d * 37) % rows) as i32);
                on_vals.push(if d == 0 { 26.0 } else { -1.0 });
            }
            for d in 0..7usize {
                off_cols.push(((i * 7 + d * 131) % off_cols_n) as i32);
                off_vals.push(-1.0);
            }
            on_ptr.push(on_cols.len() as i32);
            off_ptr.push(off_cols.len() as i32);
        }
        LocalRows {
            on_ptr,
            on_cols,
            on_vals,
            off_ptr,
            off_cols,
            off_vals,
            on_map: (0..rows as i32).map(|j| first + j).collect(),
            off_map: (0..off_cols_n as i32)
                .map(|j| first + rows as i32 + j)
                .collect(),
        }
    }

    /// Rows held.
    pub fn rows(&self) -> usize {
        self.on_ptr.len() - 1
    }

    /// Nonzeros of both blocks.
    pub fn nnz(&self) -> usize {
        self.on_cols.len() + self.off_cols.len()
    }
}

/// Rows with global columns: (row pointer, column, value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Copied {
    /// Row pointer.
    pub ptr: Vec<i32>,
    /// Global columns.
    pub cols: Vec<i32>,
    /// Values.
    pub vals: Vec<f64>,
}

/// `CommPkg::communicate(A)`'s copy of the local matrix into `out`.
pub fn copy(m: &LocalRows, out: &mut Copied) {
    let nnz = m.nnz();
    out.ptr.clear();
    out.ptr.resize(m.rows() + 1, 0);
    out.cols.clear();
    out.cols.resize(nnz, 0);
    out.vals.clear();
    out.vals.resize(nnz, 0.0);
    let mut ctr = 0;
    for i in 0..m.rows() {
        for j in m.on_ptr[i] as usize..m.on_ptr[i + 1] as usize {
            out.cols[ctr] = m.on_map[m.on_cols[j] as usize];
            out.vals[ctr] = m.on_vals[j];
            ctr += 1;
        }
        for j in m.off_ptr[i] as usize..m.off_ptr[i + 1] as usize {
            out.cols[ctr] = m.off_map[m.off_cols[j] as usize];
            out.vals[ctr] = m.off_vals[j];
            ctr += 1;
        }
        out.ptr[i + 1] = ctr as i32;
    }
}

/// One `MPI_DOUBLE_INT` pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pair {
    /// The value (0 in a row's length pair).
    pub val: f64,
    /// The column, or a row's length.
    pub index: i32,
}

/// `communication_helper`'s packing of rows `send` of `c` into `buf` (a
/// growing buffer, as RAPtor's `push_back`s): the row's length, then its
/// (value, column) pairs.
pub fn pack(c: &Copied, send: &[u32], buf: &mut Vec<Pair>) {
    buf.clear();
    for &row in send {
        let (s, e) = (
            c.ptr[row as usize] as usize,
            c.ptr[row as usize + 1] as usize,
        );
        buf.push(Pair {
            val: 0.0,
            index: (e - s) as i32,
        });
        for k in s..e {
            buf.push(Pair {
                val: c.vals[k],
                index: c.cols[k],
            });
        }
    }
}

/// The receiver's unpacking of a message into a new CSR matrix.
pub fn unpack(buf: &[Pair], out: &mut Copied) {
    out.ptr.clear();
    out.cols.clear();
    out.vals.clear();
    out.ptr.push(0);
    let mut ctr = 0;
    while ctr < buf.len() {
        let size = buf[ctr].index as usize;
        ctr += 1;
        for p in &buf[ctr..ctr + size] {
            out.cols.push(p.index);
            out.vals.push(p.val);
        }
        ctr += size;
        out.ptr.push(out.cols.len() as i32);
    }
}

/// The kernels' work on `rows` stencil rows, timed: nonzeros copied and
/// seconds a copy; elements packed plus elements unpacked (each pair
/// counts twice, as the `rowpack` term counts them) and seconds a pack
/// and unpack; each the mean over as many runs as fill about `seconds`
/// (at least one).
pub struct Timed {
    /// Nonzeros copied.
    pub nnz: usize,
    /// Seconds of one copy.
    pub copy_seconds: f64,
    /// Elements packed plus elements unpacked.
    pub elements: usize,
    /// Seconds of one pack and unpack.
    pub pack_seconds: f64,
}

/// Times [`copy`] and [`pack`] plus [`unpack`] (every row sent) on
/// `rows` stencil rows of rank `r`.
pub fn time(rows: usize, r: usize, seconds: f64) -> Timed {
    let m = LocalRows::stencil(rows, r);
    let send: Vec<u32> = (0..rows as u32).collect();
    let (mut c, mut got, mut buf) = (Copied::default(), Copied::default(), Vec::new());
    // A first run of each to size the buffers (RAPtor's are new each
    // time, but the allocator hands back the same pages).
    copy(&m, &mut c);
    pack(&c, &send, &mut buf);
    unpack(&buf, &mut got);
    let mean = |f: &mut dyn FnMut()| {
        let (mut runs, start) = (0u32, Instant::now());
        while runs == 0 || start.elapsed().as_secs_f64() < seconds {
            f();
            runs += 1;
        }
        start.elapsed().as_secs_f64() / f64::from(runs)
    };
    let copy_seconds = mean(&mut || {
        copy(black_box(&m), &mut c);
        black_box(&c);
    });
    let pack_seconds = mean(&mut || {
        pack(black_box(&c), &send, &mut buf);
        unpack(black_box(&buf), &mut got);
        black_box(&got);
    });
    Timed {
        nnz: m.nnz(),
        copy_seconds,
        // Each pair is packed once and unpacked once: the term counts
        // both (a rank's elements packed plus unpacked).
        elements: 2 * buf.len(),
        pack_seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_copied_packed_and_unpacked_come_back_whole() {
        let m = LocalRows::stencil(50, 3);
        let mut c = Copied::default();
        copy(&m, &mut c);
        assert_eq!(c.ptr.len(), 51);
        assert_eq!(c.cols.len(), 50 * 27);
        // Row 1: its on-rank entries through the map (first row 150),
        // then its off-rank ones (columns after the rank's).
        assert_eq!(c.cols[27], 150 + 1);
        assert_eq!(c.vals[27], 26.0);
        assert!(c.cols[27 + 20..54].iter().all(|&j| j >= 200));
        // Rows 4 and 7 sent: 2 length pairs and 54 entries; back whole.
        let mut buf = Vec::new();
        pack(&c, &[4, 7], &mut buf);
        assert_eq!(buf.len(), 2 + 54);
        assert_eq!(buf[0].index, 27);
        let mut got = Copied::default();
        unpack(&buf, &mut got);
        assert_eq!(got.ptr, vec![0, 27, 54]);
        assert_eq!(got.cols[..27], c.cols[4 * 27..5 * 27]);
        assert_eq!(got.vals[27..], c.vals[7 * 27..8 * 27]);
    }

    #[test]
    fn the_timed_work_grows_with_the_rows() {
        let small = time(1 << 10, 0, 0.0);
        assert_eq!((small.nnz, small.elements), (27 << 10, 2 * (28 << 10)));
        assert!(small.copy_seconds > 0.0 && small.pack_seconds > 0.0);
    }
}
