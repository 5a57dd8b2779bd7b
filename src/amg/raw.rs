//! CSR whose rows may be unsorted, for the setup's internal operators.
//!
//! PyAMG's coarse operators come out of SciPy's `csr_matmat`, which stores a
//! row's columns in reverse order of first touch, and later floating-point
//! sums (interpolation weights, the next product) follow that stored order.
//! Rounding differences flip strength ties and exact cancellations, so the
//! level sizes only match PyAMG's when the order is kept: the setup works
//! on [`RawCsr`] and hands sorted [`Csr`] out.

use rayon::prelude::*;

use crate::matrix::Csr;

#[derive(Clone, Debug, PartialEq)]
pub struct RawCsr {
    pub nrows: usize,
    pub ncols: usize,
    pub indptr: Vec<usize>,
    pub indices: Vec<u32>,
    pub data: Vec<f64>,
}

impl RawCsr {
    pub fn from_csr(a: &Csr) -> RawCsr {
        RawCsr {
            nrows: a.rows(),
            ncols: a.cols(),
            indptr: a.indptr().raw_storage().to_vec(),
            indices: a.indices().to_vec(),
            data: a.data().to_vec(),
        }
    }

    /// Take over the arrays of a CSR matrix without copying them.
    pub fn from_csr_owned(a: Csr) -> RawCsr {
        let (nrows, ncols) = (a.rows(), a.cols());
        let (indptr, indices, data) = a.into_raw_storage();
        RawCsr {
            nrows,
            ncols,
            indptr,
            indices,
            data,
        }
    }

    /// The pipeline's CSR type, moving the arrays when the rows are already
    /// sorted (always so for the input level) and sorting a copy otherwise:
    /// one check of the rows decides both.
    pub fn into_csr(self) -> Csr {
        self.try_into_csr().unwrap_or_else(|raw| raw.to_csr())
    }

    /// The pipeline's CSR type when the rows are canonical (the arrays
    /// moved, checked once), the matrix back otherwise.
    pub fn try_into_csr(self) -> Result<Csr, RawCsr> {
        let (nrows, ncols) = (self.nrows, self.ncols);
        crate::matrix::csr::try_assemble(nrows, ncols, self.indptr, self.indices, self.data)
            .map_err(|(indptr, indices, data, _)| RawCsr {
                nrows,
                ncols,
                indptr,
                indices,
                data,
            })
    }

    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// `f(i, cols, vals)` on every row `i` in place, blocks of rows in
    /// parallel.
    pub fn each_row_mut(&mut self, f: impl Fn(usize, &mut [u32], &mut [f64]) + Sync) {
        let ptr = &self.indptr;
        let blocks = crate::matrix::csr::split_rows_mut(ptr, &mut self.indices, &mut self.data);
        blocks.into_par_iter().for_each(|(rows, idx, val)| {
            let base = ptr[rows.start];
            for i in rows {
                let (s, e) = (ptr[i] - base, ptr[i + 1] - base);
                f(i, &mut idx[s..e], &mut val[s..e]);
            }
        });
    }

    #[inline]
    pub fn row(&self, i: usize) -> (&[u32], &[f64]) {
        let r = self.indptr[i]..self.indptr[i + 1];
        (&self.indices[r.clone()], &self.data[r])
    }

    /// SciPy's `has_canonical_format`: every row strictly increasing.
    pub fn is_canonical(&self) -> bool {
        (0..self.nrows)
            .into_par_iter()
            .all(|i| self.row(i).0.windows(2).all(|w| w[0] < w[1]))
    }

    /// Sorted copy as the pipeline's CSR type.
    pub fn to_csr(&self) -> Csr {
        crate::matrix::csr::from_rows(
            self.nrows,
            self.ncols,
            |i| self.indptr[i + 1] - self.indptr[i],
            |i, cols, vals| {
                let (c, v) = self.row(i);
                cols.copy_from_slice(c);
                vals.copy_from_slice(v);
                sort_row(cols, vals);
            },
        )
    }

    /// Transpose; row `j` of the result lists its entries by increasing
    /// original row, as SciPy's `A.T.tocsr()` does.
    pub fn transpose(&self) -> RawCsr {
        let mut count = zeros::<usize>(self.ncols + 1);
        for &j in &self.indices {
            count[j as usize + 1] += 1;
        }
        for j in 0..self.ncols {
            count[j + 1] += count[j];
        }
        let indptr = count.clone();
        let mut next = count;
        let mut indices = vec![0u32; self.nnz()];
        let mut data = vec![0f64; self.nnz()];
        for i in 0..self.nrows {
            let (c, v) = self.row(i);
            for (&j, &x) in c.iter().zip(v) {
                let p = &mut next[j as usize];
                indices[*p] = i as u32;
                data[*p] = x;
                *p += 1;
            }
        }
        RawCsr {
            nrows: self.ncols,
            ncols: self.nrows,
            indptr,
            indices,
            data,
        }
    }

    /// Build from rows computed independently in parallel: `row(i, cols,
    /// vals)` appends row `i`'s entries in the order they are to be stored.
    pub fn from_row_fn<F>(nrows: usize, ncols: usize, row: F) -> RawCsr
    where
        F: Fn(usize, &mut Vec<u32>, &mut Vec<f64>) + Sync,
    {
        RawCsr::from_row_fn_with(nrows, ncols, || (), |_, i, c, v| row(i, c, v))
    }
}

/// `a * b` exactly as SciPy's `csr_matmat`: row `i` accumulates
/// `a[i,j] * b[j,k]` in the stored order of `a`'s row and `b`'s rows, stores
/// columns in reverse order of first touch and drops exact zeros.
///
/// Two passes, as SciPy's `csr_matmat_maxnnz` then `csr_matmat`: a
/// symbolic one counts each row's structural entries, then rows are
/// computed in parallel straight into arrays of that size, each thread
/// with its own dense accumulator. Building rows in per-block buffers and
/// concatenating them held the product twice at the setup's peak, more
/// than PyAMG's whole setup needs. Rows that lost exact zeros leave gaps,
/// closed by one pass of moves at the end.
pub fn spgemm(a: &RawCsr, b: &RawCsr) -> RawCsr {
    assert_eq!(a.ncols, b.nrows, "spgemm: inner dimensions differ");
    let (nrows, ncols) = (a.nrows, b.ncols);
    let block = (nrows / (rayon::current_num_threads() * 16)).clamp(64, 1 << 14);
    let blocks = nrows.div_ceil(block);
    let rows_of = |k: usize| k * block..((k + 1) * block).min(nrows);
    // Structural entries per block (an upper bound of each block's nnz).
    let bound: Vec<usize> = (0..blocks)
        .into_par_iter()
        .map_init(
            || vec![u32::MAX; ncols],
            |mark, k| {
                let mut n = 0;
                for i in rows_of(k) {
                    for &j in a.row(i).0 {
                        for &c in b.row(j as usize).0 {
                            if mark[c as usize] != i as u32 {
                                mark[c as usize] = i as u32;
                                n += 1;
                            }
                        }
                    }
                }
                n
            },
        )
        .collect();
    let total: usize = bound.iter().sum();
    let (mut indices, mut data) = (vec![0u32; total], vec![0f64; total]);
    let pieces: Vec<_> = cut(&mut indices, bound.iter().copied())
        .into_iter()
        .zip(cut(&mut data, bound.iter().copied()))
        .enumerate()
        .collect();
    // Per block, each row's stored length.
    let lens: Vec<Vec<usize>> = pieces
        .into_par_iter()
        .map_init(
            || (vec![0f64; ncols], vec![u32::MAX; ncols]),
            |(sums, next), (k, (cols, vals))| {
                const END: u32 = u32::MAX - 1;
                let mut at = 0;
                rows_of(k)
                    .map(|i| {
                        let before = at;
                        let mut head = END;
                        let mut length = 0usize;
                        let (ac, av) = a.row(i);
                        for (&j, &x) in ac.iter().zip(av) {
                            let (bc, bv) = b.row(j as usize);
                            for (&c, &y) in bc.iter().zip(bv) {
                                let c = c as usize;
                                sums[c] += x * y;
                                if next[c] == u32::MAX {
                                    next[c] = head;
                                    head = c as u32;
                                    length += 1;
                                }
                            }
                        }
                        for _ in 0..length {
                            let h = head as usize;
                            if sums[h] != 0.0 {
                                cols[at] = head;
                                vals[at] = sums[h];
                                at += 1;
                            }
                            head = next[h];
                            next[h] = u32::MAX;
                            sums[h] = 0.0;
                        }
                        at - before
                    })
                    .collect()
            },
        )
        .collect();
    let mut indptr = Vec::with_capacity(nrows + 1);
    indptr.push(0);
    for l in lens.iter().flatten() {
        indptr.push(indptr.last().unwrap() + l);
    }
    // Close the gaps of dropped zeros: block k's entries move left to
    // where the blocks before it end.
    let (mut from, mut to) = (0, 0);
    for (k, b) in bound.iter().enumerate() {
        let used = indptr[rows_of(k).end] - indptr[rows_of(k).start];
        if from != to {
            indices.copy_within(from..from + used, to);
            data.copy_within(from..from + used, to);
        }
        from += b;
        to += used;
    }
    indices.truncate(to);
    data.truncate(to);
    indices.shrink_to_fit();
    data.shrink_to_fit();
    RawCsr {
        nrows,
        ncols,
        indptr,
        indices,
        data,
    }
}

/// `n` zeros, written now, for counts and marks (read before they are
/// written). `vec![0; n]` takes calloc's untouched pages: each is first
/// mapped to the kernel's zero page on the read, then copied on the write,
/// a second fault that flushes the TLB of every thread of the process.
pub(crate) fn zeros<T: Copy + Default>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    v.resize(n, T::default());
    v
}

/// `v` cut into consecutive pieces of the given lengths, to fill in
/// parallel.
pub(crate) fn cut<T>(mut v: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut pieces = Vec::with_capacity(lens.size_hint().0);
    for len in lens {
        let (piece, rest) = std::mem::take(&mut v).split_at_mut(len);
        pieces.push(piece);
        v = rest;
    }
    pieces
}

impl RawCsr {
    /// [`RawCsr::from_row_fn`] with per-task scratch state made by `init`.
    /// Rows are built in blocks into per-task buffers that are reused, then
    /// copied out at their exact size.
    pub fn from_row_fn_with<S, I, F>(nrows: usize, ncols: usize, init: I, row: F) -> RawCsr
    where
        I: Fn() -> S + Sync,
        F: Fn(&mut S, usize, &mut Vec<u32>, &mut Vec<f64>) + Sync,
    {
        let block = (nrows / (rayon::current_num_threads() * 16)).clamp(64, 1 << 14);
        let parts: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = (0..nrows.div_ceil(block))
            .into_par_iter()
            .map_init(
                || (init(), Vec::new(), Vec::new()),
                |(state, cols, vals), b| {
                    let rows = b * block..((b + 1) * block).min(nrows);
                    let mut lens = Vec::with_capacity(rows.len());
                    cols.clear();
                    vals.clear();
                    for i in rows {
                        let before = cols.len();
                        row(state, i, cols, vals);
                        lens.push(cols.len() - before);
                    }
                    (lens, cols.clone(), vals.clone())
                },
            )
            .collect();
        concat_parts(nrows, ncols, parts)
    }
}

/// Test helpers shared by the setup's unit tests.
#[cfg(test)]
pub(crate) mod test_util {
    use super::RawCsr;

    /// A matrix from its rows, each a list of (column, value) in stored order.
    pub fn from_lists(ncols: usize, rows: &[&[(u32, f64)]]) -> RawCsr {
        RawCsr::from_row_fn(rows.len(), ncols, |i, c, v| {
            for &(j, x) in rows[i] {
                c.push(j);
                v.push(x);
            }
        })
    }

    /// 2D 5-point grid strength graph (symmetric), n x n points.
    pub fn grid(n: usize) -> RawCsr {
        RawCsr::from_row_fn(n * n, n * n, |i, c, v| {
            let (x, y) = (i % n, i / n);
            for (dx, dy) in [(0i64, -1i64), (-1, 0), (1, 0), (0, 1)] {
                let (a, b) = (x as i64 + dx, y as i64 + dy);
                if a >= 0 && b >= 0 && a < n as i64 && b < n as i64 {
                    c.push((b as usize * n + a as usize) as u32);
                    v.push(-1.0);
                }
            }
        })
    }

    /// 1D Laplacian `tridiag(-1, 2, -1)` on n points; without the diagonal
    /// it is the strength graph of the same problem.
    pub fn laplace_1d(n: usize, diagonal: bool) -> RawCsr {
        RawCsr::from_row_fn(n, n, |i, c, v| {
            if i > 0 {
                c.push(i as u32 - 1);
                v.push(-1.0);
            }
            if diagonal {
                c.push(i as u32);
                v.push(2.0);
            }
            if i + 1 < n {
                c.push(i as u32 + 1);
                v.push(-1.0);
            }
        })
    }
}

fn concat_parts(
    nrows: usize,
    ncols: usize,
    parts: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)>,
) -> RawCsr {
    let nnz = parts.iter().map(|p| p.1.len()).sum();
    let mut indptr = Vec::with_capacity(nrows + 1);
    indptr.push(0);
    for (lens, _, _) in &parts {
        for l in lens {
            indptr.push(indptr.last().unwrap() + l);
        }
    }
    // The copy is a fifth of a product's time: it runs in parallel, each
    // part into its own slice (Amdahl had capped RAP's speedup on two
    // threads near 1.5x).
    let (mut indices, mut data) = (vec![0u32; nnz], vec![0f64; nnz]);
    let lens: Vec<usize> = parts.iter().map(|p| p.1.len()).collect();
    let slices = cut(&mut indices, lens.iter().copied())
        .into_iter()
        .zip(cut(&mut data, lens.iter().copied()));
    parts
        .into_par_iter()
        .zip(slices.collect::<Vec<_>>())
        .for_each(|((_, cols, vals), (i, d))| {
            i.copy_from_slice(&cols);
            d.copy_from_slice(&vals);
        });
    RawCsr {
        nrows,
        ncols,
        indptr,
        indices,
        data,
    }
}

/// Sorts one row by column, values along (equal columns keep their
/// order): an insertion sort in place for the shortest rows, else the
/// columns packed with their places into keys, sorted, and the values
/// moved after them: in stack buffers for the rows of up to
/// [`STACK_ROW`] entries, most of a coarse level's, and by radix in
/// reused scratch for the longer ones (elasticity's coarse rows, 175 to
/// 520 entries). Insertion was the slower on the 20 to 60 entries of a
/// coarse Laplacian's row in the product's order, a comparison sort on
/// the long rows (docs/performance.md).
pub(crate) fn sort_row(cols: &mut [u32], vals: &mut [f64]) {
    let n = cols.len();
    if n <= INSERTION_ROW {
        for k in 1..n {
            let (j, x) = (cols[k], vals[k]);
            let mut t = k;
            while t > 0 && cols[t - 1] > j {
                cols[t] = cols[t - 1];
                vals[t] = vals[t - 1];
                t -= 1;
            }
            cols[t] = j;
            vals[t] = x;
        }
        return;
    }
    if n <= STACK_ROW {
        let mut keys = [0u64; STACK_ROW];
        let mut old = [0f64; STACK_ROW];
        sort_by_keys(cols, vals, &mut keys[..n], &mut old[..n], 0, |k| {
            k.sort_unstable()
        });
        return;
    }
    thread_local! {
        static KEYS: std::cell::RefCell<(Vec<u64>, Vec<u64>, Vec<f64>)> = const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
    }
    KEYS.with(|s| {
        let (keys, tmp, old) = &mut *s.borrow_mut();
        keys.resize(n, 0);
        tmp.resize(n, 0);
        old.resize(n, 0.0);
        let lo = cols.iter().copied().min().unwrap_or(0);
        let hi = cols.iter().copied().max().unwrap_or(0);
        let bits = 32 - (hi - lo).leading_zeros();
        sort_by_keys(cols, vals, keys, old, lo, |k| radix_sort(k, tmp, bits));
    });
}

/// Rows of at most this many entries are sorted by insertion.
const INSERTION_ROW: usize = 16;
/// Rows of at most this many entries are sorted in stack buffers; the
/// longer ones by radix (a pass's 256 counts cost more than a short row).
const STACK_ROW: usize = 128;

/// [`sort_row`] by keys `(column - lo, place)` in `keys` (the values
/// copied to `old`; both as long as the row), which `sort` orders by
/// column, equal columns by place.
#[inline(always)]
fn sort_by_keys(
    cols: &mut [u32],
    vals: &mut [f64],
    keys: &mut [u64],
    old: &mut [f64],
    lo: u32,
    sort: impl FnOnce(&mut [u64]),
) {
    for ((key, &j), k) in keys.iter_mut().zip(cols.iter()).zip(0u64..) {
        *key = ((j - lo) as u64) << 32 | k;
    }
    old.copy_from_slice(vals);
    sort(keys);
    for ((c, x), &key) in cols.iter_mut().zip(vals.iter_mut()).zip(keys.iter()) {
        *c = (key >> 32) as u32 + lo;
        *x = old[key as u32 as usize];
    }
}

/// Keys sorted by their high half's low `bits` bits, least significant
/// byte first (each pass stable, so the places' order holds among equal
/// columns); `tmp` as long as `keys`.
fn radix_sort(keys: &mut [u64], tmp: &mut [u64], bits: u32) {
    let (mut src, mut dst) = (&mut *keys, tmp);
    let mut shift = 32;
    while shift < 32 + bits {
        let mut count = [0usize; 256];
        for &key in src.iter() {
            count[(key >> shift) as usize & 255] += 1;
        }
        let mut at = 0;
        for c in count.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        for &key in src.iter() {
            let d = (key >> shift) as usize & 255;
            dst[count[d]] = key;
            count[d] += 1;
        }
        std::mem::swap(&mut src, &mut dst);
        shift += 8;
    }
    // An odd number of passes leaves them in the scratch.
    if bits.div_ceil(8) % 2 == 1 {
        dst.copy_from_slice(src);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length through all three of `sort_row`'s ways (insertion,
    /// stack keys, radix in scratch), with repeated columns: the order a
    /// stable sort of the places by column gives, each value with its
    /// column.
    #[test]
    fn sort_row_is_a_stable_sort_by_column() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for n in (0..=40).chain([63, 64, 65, 127, 128, 129, 300]) {
            for span in [3u64, 1 << 12, 1 << 20] {
                let cols: Vec<u32> = (0..n).map(|_| (next() % span) as u32).collect();
                let vals: Vec<f64> = (0..n).map(|k| k as f64 + 0.5).collect();
                let mut places: Vec<usize> = (0..n).collect();
                places.sort_by_key(|&k| cols[k]);
                let (mut c, mut v) = (cols.clone(), vals.clone());
                sort_row(&mut c, &mut v);
                assert_eq!(c, places.iter().map(|&k| cols[k]).collect::<Vec<_>>());
                assert_eq!(v, places.iter().map(|&k| vals[k]).collect::<Vec<_>>());
            }
        }
    }

    fn dense(a: &RawCsr) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; a.ncols]; a.nrows];
        for i in 0..a.nrows {
            let (c, v) = a.row(i);
            for (&j, &x) in c.iter().zip(v) {
                d[i][j as usize] += x;
            }
        }
        d
    }

    #[test]
    fn spgemm_matches_dense_product_and_scipy_order() {
        let a = test_util::from_lists(3, &[&[(2, 1.0), (0, 2.0)], &[(1, 1.0), (2, -1.0)]]);
        let b_rows: [&[(u32, f64)]; 3] =
            [&[(0, 1.0), (1, 1.0)], &[(2, 3.0)], &[(1, 1.0), (2, 3.0)]];
        let b = test_util::from_lists(3, &b_rows);
        let c = spgemm(&a, &b);
        // Row 0: touches 1, 2 (from b row 2), then 0 (b row 0): stored 0, 2, 1.
        assert_eq!(c.row(0).0, &[0, 2, 1]);
        assert_eq!(dense(&c)[0], vec![2.0, 3.0, 3.0]);
        // Row 1: b row 1 gives 3 at col 2, b row 2 gives -1, -3: col 2
        // cancels to zero and is dropped.
        assert_eq!(c.row(1).0, &[1]);
        assert_eq!(dense(&c)[1], vec![0.0, -1.0, 0.0]);
    }

    #[test]
    fn spgemm_drops_exact_zeros_across_blocks() {
        // Rows 3k cancel exactly (1 - 1), the others give 2 or 3: the
        // gaps left in every block are closed.
        let n: usize = 1000;
        let rows: Vec<Vec<(u32, f64)>> = (0..n)
            .map(|i| match i % 3 {
                0 => vec![(0, 1.0), (1, -1.0)],
                1 => vec![(0, 1.0), (1, 1.0)],
                _ => vec![(1, 3.0)],
            })
            .collect();
        let lists: Vec<&[(u32, f64)]> = rows.iter().map(|r| r.as_slice()).collect();
        let a = test_util::from_lists(2, &lists);
        let b = test_util::from_lists(1, &[&[(0, 1.0)], &[(0, 1.0)]]);
        let c = spgemm(&a, &b);
        assert_eq!(c.nnz(), n - n.div_ceil(3));
        assert_eq!(c.indices.capacity(), c.nnz());
        for i in 0..n {
            let want: &[f64] = match i % 3 {
                0 => &[],
                1 => &[2.0],
                _ => &[3.0],
            };
            assert_eq!(c.row(i).1, want, "row {i}");
        }
    }

    #[test]
    fn spgemm_agrees_with_brute_force_on_random_matrices() {
        let mut x = 7u64;
        let mut rnd = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize
        };
        let mut rows_a: Vec<Vec<(u32, f64)>> = Vec::new();
        for _ in 0..300 {
            let mut r: Vec<(u32, f64)> = (0..rnd() % 6)
                .map(|_| ((rnd() % 200) as u32, (rnd() % 7) as f64 - 3.0))
                .collect();
            r.sort_by_key(|e| e.0);
            r.dedup_by_key(|e| e.0);
            rows_a.push(r);
        }
        let refs: Vec<&[(u32, f64)]> = rows_a.iter().map(|r| r.as_slice()).collect();
        let a = test_util::from_lists(200, &refs);
        let at = a.transpose();
        let c = spgemm(&at, &a);
        let (da, dc) = (dense(&a), dense(&c));
        for i in 0..200 {
            for k in 0..200 {
                let s: f64 = (0..300).map(|j| da[j][i] * da[j][k]).sum();
                assert_eq!(dc[i][k], s);
            }
        }
        assert!(c.data.iter().all(|&v| v != 0.0));
        assert_eq!(c.to_csr().transpose_view().to_csr(), c.to_csr());
    }
}
