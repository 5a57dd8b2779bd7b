//! Parallel CSR assembly.
//!
//! Two entry points: [`from_triplets`] (file order, duplicates summed, as
//! SciPy's `coo -> csr` does) and [`from_rows`] (each row computed
//! independently, as the stencil generators do). Both produce sorted column
//! indices and are deterministic whatever the thread count.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::{Csr, Symmetry};

/// Entries of one chunk of a file, 0-based, in file order.
#[derive(Clone, Debug, Default)]
pub struct Triplets {
    /// 0-based row of each entry.
    pub rows: Vec<u32>,
    /// 0-based column of each entry.
    pub cols: Vec<u32>,
    /// Value of each entry.
    pub vals: Vec<f64>,
}

impl Triplets {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds one entry.
    pub fn push(&mut self, row: u32, col: u32, val: f64) {
        self.rows.push(row);
        self.cols.push(col);
        self.vals.push(val);
    }
}

/// Assemble CSR from chunks of triplets. With `Symmetric` (`SkewSymmetric`)
/// every off-diagonal entry `(i, j, v)` also stands for `(j, i, v)`
/// (`(j, i, -v)`). Duplicates are summed in file order; explicit zeros are
/// kept, like SciPy.
pub fn from_triplets(nrows: usize, ncols: usize, chunks: &[Triplets], symmetry: Symmetry) -> Csr {
    let mirror = symmetry != Symmetry::General;
    let sign = if symmetry == Symmetry::SkewSymmetric {
        -1.0
    } else {
        1.0
    };
    let groups = group_chunks(chunks, rayon::current_num_threads().clamp(1, 8));

    // Per-group row counts; a group is a run of consecutive chunks so that
    // placing group g after groups 0..g keeps file order within each row.
    let counts: Vec<Vec<u32>> = groups
        .par_iter()
        .map(|g| {
            let mut count = vec![0u32; nrows];
            for t in &chunks[g.clone()] {
                for (&r, &c) in t.rows.iter().zip(&t.cols) {
                    count[r as usize] += 1;
                    if mirror && r != c {
                        count[c as usize] += 1;
                    }
                }
            }
            count
        })
        .collect();

    let mut indptr = vec![0usize; nrows + 1];
    let mut starts: Vec<Vec<usize>> = vec![vec![0usize; nrows]; groups.len()];
    let mut pos = 0usize;
    for r in 0..nrows {
        for (g, count) in counts.iter().enumerate() {
            starts[g][r] = pos;
            pos += count[r] as usize;
        }
        indptr[r + 1] = pos;
    }
    drop(counts);
    let nnz = pos;

    // Disjoint writes from several threads through atomic views: relaxed
    // stores compile to plain stores. Zeroed allocations come from the
    // kernel untouched, and there is no conversion pass afterwards.
    let mut indices = vec![0u32; nnz];
    let mut data = vec![0f64; nnz];
    {
        let idx = as_atomic_u32(&mut indices);
        let val = as_atomic_u64(&mut data);
        groups
            .par_iter()
            .zip(starts.par_iter_mut())
            .for_each(|(g, next)| {
                for t in &chunks[g.clone()] {
                    for ((&r, &c), &v) in t.rows.iter().zip(&t.cols).zip(&t.vals) {
                        let p = &mut next[r as usize];
                        idx[*p].store(c, Relaxed);
                        val[*p].store(v.to_bits(), Relaxed);
                        *p += 1;
                        if mirror && r != c {
                            let p = &mut next[c as usize];
                            idx[*p].store(r, Relaxed);
                            val[*p].store((sign * v).to_bits(), Relaxed);
                            *p += 1;
                        }
                    }
                }
            });
    }
    drop(starts);

    let has_duplicates = split_rows_mut(&indptr, &mut indices, &mut data)
        .into_par_iter()
        .map(|(rows, idx, val)| sort_rows(&indptr, rows, idx, val))
        .reduce(|| false, |a, b| a || b);
    if has_duplicates {
        sum_duplicates(&mut indptr, &mut indices, &mut data);
    }
    assemble(nrows, ncols, indptr, indices, data)
}

/// Build CSR row by row in parallel: `row_len(i)` gives the number of entries
/// of row `i`, and `fill(i, cols, vals)` writes them with strictly
/// increasing columns.
pub fn from_rows<L, F>(nrows: usize, ncols: usize, row_len: L, fill: F) -> Csr
where
    L: Fn(usize) -> usize + Sync,
    F: Fn(usize, &mut [u32], &mut [f64]) + Sync,
{
    let lens: Vec<usize> = (0..nrows).into_par_iter().map(&row_len).collect();
    let mut indptr = Vec::with_capacity(nrows + 1);
    indptr.push(0usize);
    let mut pos = 0usize;
    for len in lens {
        pos += len;
        indptr.push(pos);
    }
    let mut indices = vec![0u32; pos];
    let mut data = vec![0f64; pos];
    split_rows_mut(&indptr, &mut indices, &mut data)
        .into_par_iter()
        .for_each(|(rows, idx, val)| {
            let base = indptr[rows.start];
            for i in rows {
                let (a, b) = (indptr[i] - base, indptr[i + 1] - base);
                fill(i, &mut idx[a..b], &mut val[a..b]);
            }
        });
    assemble(nrows, ncols, indptr, indices, data)
}

/// Exact symmetry test: `a[i, j] == a[j, i]` bit for bit on every entry.
pub fn is_symmetric(a: &Csr) -> bool {
    if a.rows() != a.cols() {
        return false;
    }
    let indptr = a.indptr();
    let indptr = indptr.raw_storage();
    let (indices, data) = (a.indices(), a.data());
    (0..a.rows()).into_par_iter().all(|i| {
        (indptr[i]..indptr[i + 1]).all(|k| {
            let j = indices[k] as usize;
            let row_j = &indices[indptr[j]..indptr[j + 1]];
            match row_j.binary_search(&(i as u32)) {
                Ok(t) => data[indptr[j] + t] == data[k],
                Err(_) => false,
            }
        })
    })
}

/// Blocks `(lo, hi)` of the items of a prefix-sum array (a CSR `indptr`,
/// or message offsets per rank) of about equal weight, one per thread,
/// covering every item.
pub(crate) fn balanced_blocks(ptr: &[usize]) -> Vec<(usize, usize)> {
    let n = ptr.len() - 1;
    let total = ptr[n];
    let pieces = rayon::current_num_threads().min(n.max(1));
    let bounds: Vec<usize> = (0..=pieces)
        .map(|k| match k {
            k if k == pieces => n,
            k => ptr.partition_point(|&p| p < k * total / pieces).min(n),
        })
        .collect();
    bounds.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Whether `a`'s sparsity pattern is symmetric (values aside). Every
/// entry above the diagonal must have its mirror below, and there must be
/// as many below as above: mirroring is one-to-one, so the counts then
/// match only if every entry below is a mirror too. Blocks of rows run in
/// parallel; a block finds the mirrors of its entries `(i, j)` in row `j`
/// with a cursor per row that only moves forward, as `i` grows. Linear in
/// nonzeros, where a binary search per entry took 3x as long.
pub fn is_pattern_symmetric(a: &Csr) -> bool {
    if a.rows() != a.cols() {
        return false;
    }
    let ptr = a.indptr();
    let ptr = ptr.raw_storage();
    let idx = a.indices();
    let counts: Option<Vec<(usize, usize)>> = balanced_blocks(ptr)
        .into_par_iter()
        .map(|(lo, hi)| {
            let mut cursor = vec![usize::MAX; a.rows()];
            let (mut below, mut above) = (0, 0);
            for i in lo..hi {
                for &j in &idx[ptr[i]..ptr[i + 1]] {
                    let j = j as usize;
                    if j < i {
                        below += 1;
                    } else if j > i {
                        above += 1;
                        let row_j = &idx[ptr[j]..ptr[j + 1]];
                        let c = &mut cursor[j];
                        if *c == usize::MAX {
                            *c = row_j.partition_point(|&k| (k as usize) < lo);
                        }
                        // Entries skipped have no mirror; the counts catch them.
                        while *c < row_j.len() && (row_j[*c] as usize) < i {
                            *c += 1;
                        }
                        if row_j.get(*c) != Some(&(i as u32)) {
                            return None;
                        }
                        *c += 1;
                    }
                }
            }
            Some((below, above))
        })
        .collect();
    counts.is_some_and(|c| {
        let (below, above) = c.iter().fold((0, 0), |s, x| (s.0 + x.0, s.1 + x.1));
        below == above
    })
}

/// The sparsity pattern of `a`'s transpose, `(indptr, indices)`, with
/// sorted rows: a counting sort by column whose blocks of rows are
/// scattered in parallel, each from its own offsets. `sprs`'s `to_csc`
/// is sequential and moves the values too: 0.5 s against this one's
/// 0.12 s on the six levels of elasticity n=40 (`examples/sym_bench.rs`).
pub fn transpose_pattern(a: &Csr) -> (Vec<usize>, Vec<u32>) {
    let ncols = a.cols();
    let ptr = a.indptr();
    let ptr = ptr.raw_storage();
    let cols = a.indices();
    let bounds = balanced_blocks(ptr);
    let counts: Vec<Vec<usize>> = bounds
        .par_iter()
        .map(|&(lo, hi)| {
            let mut count = vec![0usize; ncols];
            for &j in &cols[ptr[lo]..ptr[hi]] {
                count[j as usize] += 1;
            }
            count
        })
        .collect();
    // Block k's entries of column j follow those of blocks before it.
    let mut indptr = vec![0usize; ncols + 1];
    let mut starts = counts;
    let mut pos = 0;
    for j in 0..ncols {
        for s in starts.iter_mut() {
            let n = s[j];
            s[j] = pos;
            pos += n;
        }
        indptr[j + 1] = pos;
    }
    let mut indices = vec![0u32; pos];
    let idx = as_atomic_u32(&mut indices);
    bounds
        .par_iter()
        .zip(starts.par_iter_mut())
        .for_each(|(&(lo, hi), next)| {
            for i in lo..hi {
                for &j in &cols[ptr[i]..ptr[i + 1]] {
                    let p = &mut next[j as usize];
                    idx[*p].store(i as u32, Relaxed);
                    *p += 1;
                }
            }
        });
    (indptr, indices)
}

fn as_atomic_u32(v: &mut [u32]) -> &[AtomicU32] {
    // SAFETY: AtomicU32 has the size and alignment of u32 (std docs), and
    // the exclusive borrow guarantees no non-atomic access meanwhile.
    unsafe { &*(v as *mut [u32] as *const [AtomicU32]) }
}

fn as_atomic_u64(v: &mut [f64]) -> &[AtomicU64] {
    // SAFETY: AtomicU64 has the size of u64 (= f64) and its alignment is 8,
    // that of f64 on every 64-bit target; exclusive borrow as above.
    const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<f64>());
    unsafe { &*(v as *mut [f64] as *const [AtomicU64]) }
}

pub(crate) type RowBlock<'a> = (Range<usize>, &'a mut [u32], &'a mut [f64]);

/// Cut the rows into blocks of similar nonzero count, each with its own
/// mutable slices of `indices` and `data`.
pub(crate) fn split_rows_mut<'a>(
    indptr: &[usize],
    mut indices: &'a mut [u32],
    mut data: &'a mut [f64],
) -> Vec<RowBlock<'a>> {
    let nrows = indptr.len() - 1;
    let nnz = indptr[nrows];
    let nblocks = (rayon::current_num_threads() * 16).min(nrows.max(1));
    let target = nnz.div_ceil(nblocks).max(1);
    let mut blocks = Vec::with_capacity(nblocks + 1);
    let mut start = 0;
    while start < nrows {
        let goal = indptr[start] + target;
        let end = indptr
            .partition_point(|&p| p < goal)
            .clamp(start + 1, nrows);
        let len = indptr[end] - indptr[start];
        let (idx, rest_i) = std::mem::take(&mut indices).split_at_mut(len);
        let (val, rest_v) = std::mem::take(&mut data).split_at_mut(len);
        indices = rest_i;
        data = rest_v;
        blocks.push((start..end, idx, val));
        start = end;
    }
    blocks
}

/// Sort each row of a block by column (stable: duplicates keep file order).
/// Returns whether some row has duplicate columns.
fn sort_rows(indptr: &[usize], rows: Range<usize>, idx: &mut [u32], val: &mut [f64]) -> bool {
    let base = indptr[rows.start];
    let mut duplicates = false;
    let mut scratch: Vec<(u32, f64)> = Vec::new();
    for i in rows {
        let (a, b) = (indptr[i] - base, indptr[i + 1] - base);
        let cols = &mut idx[a..b];
        if cols.windows(2).all(|w| w[0] < w[1]) {
            continue;
        }
        scratch.clear();
        scratch.extend(cols.iter().copied().zip(val[a..b].iter().copied()));
        scratch.sort_by_key(|e| e.0);
        for (k, &(c, v)) in scratch.iter().enumerate() {
            cols[k] = c;
            val[a + k] = v;
        }
        duplicates |= cols.windows(2).any(|w| w[0] == w[1]);
    }
    duplicates
}

/// Merge equal columns of sorted rows in place, summing in stored order.
fn sum_duplicates(indptr: &mut [usize], indices: &mut Vec<u32>, data: &mut Vec<f64>) {
    let mut w = 0usize;
    let mut row_start = 0usize;
    for i in 0..indptr.len() - 1 {
        let row_end = indptr[i + 1];
        let first = w;
        for k in row_start..row_end {
            if w > first && indices[w - 1] == indices[k] {
                data[w - 1] += data[k];
            } else {
                indices[w] = indices[k];
                data[w] = data[k];
                w += 1;
            }
        }
        row_start = row_end;
        indptr[i + 1] = w;
    }
    indices.truncate(w);
    data.truncate(w);
}

/// The pipeline's CSR type from arrays a caller built sorted.
pub(crate) fn assemble(
    nrows: usize,
    ncols: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<f64>,
) -> Csr {
    // Every caller has checked bounds and sorted rows; a failure here is a
    // bug. The check is sprs's own (`CsMat::try_new`), row blocks side by
    // side: serial, it was a level's slowest step after the setup.
    try_assemble(nrows, ncols, indptr, indices, data)
        .unwrap_or_else(|(.., e)| panic!("internal error: invalid CSR structure: {e}"))
}

/// A CSR's arrays (`indptr`, `indices`, `data`) handed back, with what is
/// wrong with them.
pub(crate) type Refused = (Vec<usize>, Vec<u32>, Vec<f64>, &'static str);

/// [`assemble`], or the arrays back with what is wrong with them.
pub(crate) fn try_assemble(
    nrows: usize,
    ncols: usize,
    indptr: Vec<usize>,
    indices: Vec<u32>,
    data: Vec<f64>,
) -> Result<Csr, Refused> {
    if let Err(e) = check_structure(nrows, ncols, &indptr, &indices, data.len()) {
        return Err((indptr, indices, data, e));
    }
    // SAFETY: check_structure holds everything try_new checks: indptr's
    // length, start, order and end, every row's columns strictly
    // increasing and below ncols, data as long as indices.
    Ok(unsafe {
        Csr::new_unchecked(
            sprs::CompressedStorage::CSR,
            (nrows, ncols),
            indptr,
            indices,
            data,
        )
    })
}

/// `sprs`'s structure check of a CSR matrix, in parallel.
fn check_structure(
    nrows: usize,
    ncols: usize,
    indptr: &[usize],
    indices: &[u32],
    ndata: usize,
) -> Result<(), &'static str> {
    if indptr.len() != nrows + 1 || indptr[0] != 0 {
        return Err("indptr's length or start");
    }
    if indptr[nrows] != indices.len() || ndata != indices.len() {
        return Err("indptr, indices and data disagree on the nonzeros");
    }
    if u32::try_from(ncols).is_err() {
        return Err("more columns than 32-bit indices hold");
    }
    let rows_ok = |i: usize| {
        let (a, b) = (indptr[i], indptr[i + 1]);
        a <= b
            && b <= indices.len()
            && indices[a..b].windows(2).all(|w| w[0] < w[1])
            && indices[a..b].last().is_none_or(|&j| (j as usize) < ncols)
    };
    if (0..nrows).into_par_iter().with_min_len(4096).all(rows_ok) {
        Ok(())
    } else {
        Err("a row's columns unsorted, repeated or out of range")
    }
}

/// Split `chunks` into at most `n` runs of consecutive chunks with similar
/// entry counts.
fn group_chunks(chunks: &[Triplets], n: usize) -> Vec<Range<usize>> {
    let total: usize = chunks.iter().map(Triplets::len).sum();
    let target = total.div_ceil(n.max(1)).max(1);
    let mut groups = Vec::new();
    let (mut start, mut acc) = (0, 0);
    for (k, t) in chunks.iter().enumerate() {
        acc += t.len();
        if acc >= target {
            groups.push(start..k + 1);
            start = k + 1;
            acc = 0;
        }
    }
    if start < chunks.len() || groups.is_empty() {
        groups.push(start..chunks.len());
    }
    groups
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The parallel check refuses what `CsMat::try_new` refuses, and
    /// takes what it takes.
    #[test]
    fn check_structure_agrees_with_sprs() {
        let cases: Vec<(usize, usize, Vec<usize>, Vec<u32>)> = vec![
            (2, 3, vec![0, 2, 3], vec![0, 2, 1]),
            (2, 3, vec![0, 2, 3], vec![2, 0, 1]),
            (2, 3, vec![0, 2, 3], vec![0, 0, 1]),
            (2, 3, vec![0, 2, 3], vec![0, 3, 1]),
            (2, 3, vec![0, 2, 2], vec![0, 1, 1]),
            (2, 3, vec![0, 3, 2], vec![0, 1, 2]),
            (2, 3, vec![1, 2, 3], vec![0, 1, 2]),
            (2, 3, vec![0, 2], vec![0, 1]),
            (0, 0, vec![0], vec![]),
            (3, 1, vec![0, 0, 1, 1], vec![0]),
        ];
        for (nrows, ncols, indptr, indices) in cases {
            let data = vec![1.0; indices.len()];
            let ours = check_structure(nrows, ncols, &indptr, &indices, data.len()).is_ok();
            let theirs =
                Csr::try_new((nrows, ncols), indptr.clone(), indices.clone(), data).is_ok();
            assert_eq!(ours, theirs, "{nrows}x{ncols} {indptr:?} {indices:?}");
        }
        assert!(check_structure(1, 2, &[0, 1], &[0], 2).is_err());
    }

    fn dense(a: &Csr) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; a.cols()]; a.rows()];
        for (v, (i, j)) in a.iter() {
            d[i as usize][j as usize] = *v;
        }
        d
    }

    fn chunk(entries: &[(u32, u32, f64)]) -> Triplets {
        let mut t = Triplets::default();
        for &(r, c, v) in entries {
            t.push(r, c, v);
        }
        t
    }

    fn pattern(n: usize, m: usize, entries: &[(u32, u32)]) -> Csr {
        let t: Vec<_> = entries.iter().map(|&(r, c)| (r, c, 1.0)).collect();
        from_triplets(n, m, &[chunk(&t)], Symmetry::General)
    }

    #[test]
    fn pattern_transpose_and_symmetry_against_brute_force() {
        let mut seed = 12345u64;
        let mut next = |k: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % k as u64) as u32
        };
        // Five threads: several blocks of rows, each with its own cursors.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(5)
            .build()
            .unwrap();
        for case in 0..20 {
            let n = 20 + next(200) as usize;
            let mut entries: Vec<(u32, u32)> = (0..n * 4).map(|_| (next(n), next(n))).collect();
            let want_symmetric = case % 4 != 0;
            if want_symmetric {
                let mirrors: Vec<_> = entries.iter().map(|&(r, c)| (c, r)).collect();
                entries.extend(mirrors);
            }
            let a = pattern(n, n, &entries);
            let mut broken = entries.clone();
            // One entry off the diagonal without its mirror: above (the
            // cursor's check) or below (the counts' check).
            let (r, c) = *entries.iter().find(|e| e.0 != e.1).unwrap();
            let (lo, hi) = (r.min(c), r.max(c));
            broken.retain(|&e| e != (hi, lo) || case % 2 == 0);
            broken.retain(|&e| e != (lo, hi) || case % 2 == 1);
            let b = pattern(n, n, &broken);
            pool.install(|| {
                for x in [&a, &b] {
                    let set: BTreeSet<(u32, u32)> = entries_of(x);
                    let brute = set.iter().all(|&(r, c)| set.contains(&(c, r)));
                    assert_eq!(is_pattern_symmetric(x), brute, "case {case}");
                    let t = x.to_csc();
                    let (ptr, idx) = transpose_pattern(x);
                    assert_eq!(ptr, t.indptr().raw_storage(), "case {case}");
                    assert_eq!(idx, t.indices(), "case {case}");
                }
                assert_eq!(is_pattern_symmetric(&a), want_symmetric, "case {case}");
                assert!(!is_pattern_symmetric(&b), "case {case}");
            });
        }
        // As many entries below as above, not mirrors: the cursor's check.
        assert!(!is_pattern_symmetric(&pattern(3, 3, &[(0, 1), (2, 0)])));
        let moved = [(0, 1), (1, 0), (0, 2), (2, 1), (2, 2)];
        assert!(!is_pattern_symmetric(&pattern(3, 3, &moved)));
        assert!(is_pattern_symmetric(&pattern(
            3,
            3,
            &[(0, 2), (1, 1), (2, 0)]
        )));
        // Not square.
        assert!(!is_pattern_symmetric(&pattern(2, 3, &[(0, 0), (1, 1)])));
        let (ptr, idx) = transpose_pattern(&pattern(2, 3, &[(0, 2), (1, 0), (1, 2)]));
        assert_eq!((ptr, idx), (vec![0, 1, 1, 3], vec![1, 0, 1]));
    }

    fn entries_of(a: &Csr) -> BTreeSet<(u32, u32)> {
        a.iter().map(|(_, (i, j))| (i, j)).collect()
    }

    #[test]
    fn duplicates_are_summed_across_chunks_and_zeros_kept() {
        let chunks = vec![
            chunk(&[(1, 2, 1.0), (0, 0, 2.0)]),
            chunk(&[(1, 2, 0.5), (1, 0, 0.0)]),
            chunk(&[(1, 2, 0.25)]),
        ];
        let a = from_triplets(2, 3, &chunks, Symmetry::General);
        assert_eq!(a.nnz(), 3);
        assert_eq!(a.indptr().raw_storage(), &[0, 1, 3]);
        assert_eq!(a.indices(), &[0, 0, 2]);
        assert_eq!(a.data(), &[2.0, 0.0, 1.75]);
    }

    #[test]
    fn symmetric_and_skew_expansion() {
        let chunks = vec![chunk(&[(0, 0, 4.0), (2, 0, -1.0)]), chunk(&[(2, 1, 3.0)])];
        let s = from_triplets(3, 3, &chunks, Symmetry::Symmetric);
        assert_eq!(
            dense(&s),
            vec![
                vec![4.0, 0.0, -1.0],
                vec![0.0, 0.0, 3.0],
                vec![-1.0, 3.0, 0.0]
            ]
        );
        assert!(is_symmetric(&s));
        let chunks = vec![chunk(&[(2, 0, -1.0), (2, 1, 3.0)])];
        let k = from_triplets(3, 3, &chunks, Symmetry::SkewSymmetric);
        assert_eq!(
            dense(&k),
            vec![
                vec![0.0, 0.0, 1.0],
                vec![0.0, 0.0, -3.0],
                vec![-1.0, 3.0, 0.0]
            ]
        );
        assert!(!is_symmetric(&k));
    }

    #[test]
    fn result_does_not_depend_on_chunking() {
        // A pseudo-random general matrix with many duplicates, cut two ways.
        let mut all = Vec::new();
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (x >> 33) as u32 % 97;
            let c = (x >> 13) as u32 % 89;
            let v = ((x >> 40) % 1000) as f64 / 7.0;
            all.push((r, c, v));
        }
        let one = from_triplets(97, 89, &[chunk(&all)], Symmetry::General);
        let many: Vec<Triplets> = all.chunks(37).map(chunk).collect();
        let split = from_triplets(97, 89, &many, Symmetry::General);
        assert_eq!(one, split);
        // Brute force: dense accumulation in file order.
        let mut d = vec![vec![0.0; 89]; 97];
        for &(r, c, v) in &all {
            d[r as usize][c as usize] += v;
        }
        for (v, (i, j)) in one.iter() {
            assert_eq!(*v, d[i as usize][j as usize]);
        }
    }

    #[test]
    fn from_rows_builds_tridiagonal() {
        let n = 1000;
        let a = from_rows(
            n,
            n,
            |i| if i == 0 || i == n - 1 { 2 } else { 3 },
            |i, c, v| {
                for (k, j) in (i.saturating_sub(1)..(i + 2).min(n)).enumerate() {
                    c[k] = j as u32;
                    v[k] = if i == j { 2.0 } else { -1.0 };
                }
            },
        );
        assert_eq!(a.nnz(), 3 * n - 2);
        assert!(is_symmetric(&a));
        assert_eq!(a.get(500, 501), Some(&-1.0));
    }

    #[test]
    fn empty_matrix() {
        let a = from_triplets(0, 0, &[], Symmetry::General);
        assert_eq!((a.rows(), a.nnz()), (0, 0));
        let b = from_triplets(3, 3, &[Triplets::default()], Symmetry::Symmetric);
        assert_eq!((b.rows(), b.nnz()), (3, 0));
    }
}
