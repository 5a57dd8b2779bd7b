//! Extraction from a share of the ranks. A process of a distributed run
//! (`amgcomm analyze` under `mpirun`, `analysis::distributed`)
//! holds the rows of ranks `lo..hi` of a level, not the whole matrices,
//! and finds the messages those ranks receive in spmv and spgemm and send
//! in ptap. Gathered from every share, they are the messages
//! [`super::spmv_spgemm`] and [`super::ptap`] find in the whole matrices
//! (the rules in [`super`]), for row blocks: each rank's rows contiguous,
//! in rank order, as hypre and PETSc own them.
//!
//! The rows of `P` a share references but does not hold ([`ghost_rows`])
//! come from the shares that hold them ([`Ghosts`]): spgemm needs their
//! lengths, ptap their columns.

use std::ops::Range;

use rayon::prelude::*;

use super::Message;
use crate::matrix::Csr;

/// The rank that owns global row `j` of row blocks `starts` (`ranks + 1`
/// offsets; empty blocks anywhere).
pub fn owner(starts: &[usize], j: usize) -> u32 {
    (starts.partition_point(|&s| s <= j) - 1) as u32
}

/// The rows of ranks `ranks` of one level's matrix.
#[derive(Clone, Debug)]
pub struct Share<'a> {
    /// The ranks held.
    pub ranks: Range<usize>,
    /// Every rank's first row, `ranks + 1` offsets of the global rows.
    pub starts: &'a [usize],
    /// Rows `starts[ranks.start]..starts[ranks.end]`, local from 0, with
    /// global columns.
    pub a: &'a Csr,
}

impl Share<'_> {
    /// The global rows held.
    pub fn rows(&self) -> Range<usize> {
        self.starts[self.ranks.start]..self.starts[self.ranks.end]
    }

    /// The columns of local row `i`.
    fn row(&self, i: usize) -> &[u32] {
        let ptr = self.a.indptr();
        let ptr = ptr.raw_storage();
        &self.a.indices()[ptr[i]..ptr[i + 1]]
    }

    /// Local rows of rank `r` (one of the share's).
    fn local_rows(&self, r: usize) -> Range<usize> {
        let first = self.starts[self.ranks.start];
        self.starts[r] - first..self.starts[r + 1] - first
    }
}

/// The global rows the share's rows have columns in but does not hold,
/// sorted: the rows of `P` to fetch for spgemm and ptap.
pub fn ghost_rows(s: &Share) -> Vec<u32> {
    let held = s.rows();
    let mut out: Vec<u32> = (0..s.a.rows())
        .into_par_iter()
        .fold(Vec::new, |mut v, i| {
            v.extend(s.row(i).iter().filter(|&&j| !held.contains(&(j as usize))));
            v
        })
        .flat_map_iter(|v| v)
        .collect();
    out.par_sort_unstable();
    out.dedup();
    out
}

/// Rows of `P` fetched from other shares: `cols[ptr[k]..ptr[k + 1]]` are
/// the columns of global row `rows[k]` (sorted rows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ghosts {
    /// Global row numbers, increasing.
    pub rows: Vec<u32>,
    /// Offsets into `cols`, `rows.len() + 1`.
    pub ptr: Vec<usize>,
    /// Columns, row after row.
    pub cols: Vec<u32>,
}

impl Ghosts {
    /// The rows `rows` of `p`, whose row `i` is global row `first + i`
    /// (what a share sends another that asked for them).
    pub fn of(p: &Csr, first: usize, rows: &[u32]) -> Ghosts {
        let ptr = p.indptr();
        let ptr = ptr.raw_storage();
        let mut g = Ghosts {
            rows: rows.to_vec(),
            ptr: vec![0],
            cols: Vec::new(),
        };
        for &j in rows {
            let i = j as usize - first;
            g.cols.extend_from_slice(&p.indices()[ptr[i]..ptr[i + 1]]);
            g.ptr.push(g.cols.len());
        }
        g
    }

    /// The columns of global row `j`, if fetched.
    fn row(&self, j: u32) -> Option<&[u32]> {
        let k = self.rows.binary_search(&j).ok()?;
        Some(&self.cols[self.ptr[k]..self.ptr[k + 1]])
    }
}

/// A share's rows of `P` (rows as [`Share::a`]'s) and the ghost rows it
/// fetched.
#[derive(Clone, Copy, Debug)]
pub struct PRows<'a> {
    /// The share's own rows of `P`, local from 0, global columns.
    pub own: &'a Csr,
    /// The global row of `own`'s row 0.
    pub first: usize,
    /// The others it needs.
    pub ghosts: &'a Ghosts,
}

impl PRows<'_> {
    /// The columns of global row `j` of `P`. Panics if the row is neither
    /// held nor fetched: [`ghost_rows`] lists every row the share needs.
    fn row(&self, j: u32) -> &[u32] {
        let j = j as usize;
        if (self.first..self.first + self.own.rows()).contains(&j) {
            let ptr = self.own.indptr();
            let ptr = ptr.raw_storage();
            let i = j - self.first;
            &self.own.indices()[ptr[i]..ptr[i + 1]]
        } else {
            self.ghosts
                .row(j as u32)
                .expect("every row referenced was fetched")
        }
    }
}

/// The spmv messages the share's ranks receive, and with `p` the spgemm
/// ones: rank `r` receives from `q` the rows `i` of `q` that are columns
/// of `r`'s rows, 8 bytes each (spmv), `4 + 12 nnz(P[i,:])` each
/// (spgemm); a message gathers as many runs as the rows make runs of
/// consecutive rows. Ordered by receiver, then sender.
pub fn spmv_spgemm_received(s: &Share, p: Option<&PRows>) -> (Vec<Message>, Option<Vec<Message>>) {
    let per_rank: Vec<Vec<(Message, u64)>> = s
        .ranks
        .clone()
        .into_par_iter()
        .map(|r| {
            let mut cols: Vec<u32> = Vec::new();
            for i in s.local_rows(r) {
                cols.extend(
                    s.row(i)
                        .iter()
                        .filter(|&&j| owner(s.starts, j as usize) != r as u32),
                );
            }
            cols.sort_unstable();
            cols.dedup();
            let mut out: Vec<(Message, u64)> = Vec::new();
            let mut k = 0;
            while k < cols.len() {
                let q = owner(s.starts, cols[k] as usize);
                let end = s.starts[q as usize + 1];
                let run_end = k + cols[k..].partition_point(|&j| (j as usize) < end);
                let rows = &cols[k..run_end];
                let runs = 1 + rows.windows(2).filter(|w| w[1] != w[0] + 1).count();
                let spgemm: u64 = p.map_or(0, |p| {
                    rows.iter().map(|&j| 4 + 12 * p.row(j).len() as u64).sum()
                });
                let msg = Message {
                    from: q,
                    to: r as u32,
                    bytes: 8 * rows.len() as u64,
                    runs: runs as u32,
                };
                out.push((msg, spgemm));
                k = run_end;
            }
            out
        })
        .collect();
    let spmv = per_rank.iter().flatten().map(|(m, _)| *m).collect();
    let spgemm = p.map(|_| {
        per_rank
            .iter()
            .flatten()
            .map(|&(m, bytes)| Message { bytes, ..m })
            .collect()
    });
    (spmv, spgemm)
}

/// The ptap messages the share's ranks send (the rule in [`super`]):
/// `coarse` are the row blocks of the next level, the owners of `P`'s
/// columns. Ordered by sender, then receiver; packed (one run each).
pub fn ptap_sent(s: &Share, p: &PRows, coarse: &[usize]) -> Vec<Message> {
    let per_rank: Vec<Vec<Message>> = s
        .ranks
        .clone()
        .into_par_iter()
        .map(|r| {
            // (k, i): external coarse column k of P[i,:], i of rank r.
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            for i in s.local_rows(r) {
                let g = (p.first + i) as u32;
                for &k in p.row(g) {
                    if owner(coarse, k as usize) as usize != r {
                        pairs.push((k, i as u32));
                    }
                }
            }
            pairs.sort_unstable();
            let mut union: Vec<u32> = Vec::new();
            let mut out: Vec<Message> = Vec::new();
            let mut g = 0;
            while g < pairs.len() {
                let k = pairs[g].0;
                let end = g + pairs[g..].partition_point(|e| e.0 == k);
                // The partial row's entries: the union of the patterns of
                // (A P)[i,:] over its contributing rows i.
                union.clear();
                for &(_, i) in &pairs[g..end] {
                    for &j in s.row(i as usize) {
                        union.extend_from_slice(p.row(j));
                    }
                }
                union.sort_unstable();
                union.dedup();
                g = end;
                let q = owner(coarse, k as usize);
                let bytes = 4 + 12 * union.len() as u64;
                match out.iter_mut().find(|m| m.to == q) {
                    Some(m) => m.bytes += bytes,
                    None => out.push(Message {
                        from: r as u32,
                        to: q,
                        bytes,
                        runs: 1,
                    }),
                }
            }
            out.sort_unstable_by_key(|m| m.to);
            out
        })
        .collect();
    per_rank.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::{build, Preset};
    use crate::comm::{self, Pattern};
    use crate::machine::test_machine;
    use crate::matrix::gen::{Kind, Problem};
    use crate::matrix::Ownership;
    use crate::partition::Partition;

    /// The rows `range` of `a`, local from 0.
    fn rows_of(a: &Csr, range: Range<usize>) -> Csr {
        let ptr = a.indptr();
        let ptr = ptr.raw_storage();
        crate::matrix::csr::from_rows(
            range.len(),
            a.cols(),
            |i| ptr[range.start + i + 1] - ptr[range.start + i],
            |i, c, v| {
                let g = range.start + i;
                c.copy_from_slice(&a.indices()[ptr[g]..ptr[g + 1]]);
                v.copy_from_slice(&a.data()[ptr[g]..ptr[g + 1]]);
            },
        )
    }

    fn sorted(mut v: Vec<Message>) -> Vec<Message> {
        v.sort_unstable_by_key(|m| (m.from, m.to));
        v
    }

    /// Every level of a hierarchy on uneven blocks (some empty), cut into
    /// shares three ways: the shares' messages together are the whole
    /// matrices' (comm::spmv_spgemm, comm::ptap), to the byte and run.
    #[test]
    fn shares_together_find_the_whole_matrices_messages() {
        let a = Problem::new(Kind::Poisson3d, 9).generate().unwrap().csr;
        let h = build(&a, &Preset::Hypre.options(), &mut |_, _| {}).unwrap();
        let m = test_machine(3, 4);
        let ranks = m.ranks();
        // Blocks proportional to r + 1, rank 5 empty, on every level.
        let blocks = |n: usize| -> Vec<usize> {
            let w: Vec<usize> = (0..ranks).map(|r| if r == 5 { 0 } else { r + 1 }).collect();
            let total: usize = w.iter().sum();
            let mut starts = vec![0];
            let mut acc = 0;
            for x in w {
                acc += x;
                starts.push(n * acc / total);
            }
            starts
        };
        let starts: Vec<Vec<usize>> = h.levels.iter().map(|l| blocks(l.a.rows())).collect();
        for (l, level) in h.levels.iter().enumerate() {
            let part = Partition::from_ownership(&Ownership {
                starts: starts[l].clone(),
            });
            let (spmv, spgemm) = comm::spmv_spgemm(&level.a, level.p.as_deref(), &part, &m);
            let ptap = level.p.as_ref().map(|p| {
                let coarse = Partition::from_ownership(&Ownership {
                    starts: starts[l + 1].clone(),
                });
                comm::ptap(&level.a, p, &part, &coarse, &m)
            });
            for cuts in [
                vec![0, ranks],
                vec![0, 5, 6, ranks],
                vec![0, 1, 2, 7, 11, ranks],
            ] {
                let (mut got_spmv, mut got_spgemm, mut got_ptap) = (vec![], vec![], vec![]);
                for w in cuts.windows(2) {
                    let st = &starts[l];
                    let rows = st[w[0]]..st[w[1]];
                    let local = rows_of(&level.a, rows.clone());
                    let s = Share {
                        ranks: w[0]..w[1],
                        starts: st,
                        a: &local,
                    };
                    let need = ghost_rows(&s);
                    assert!(need.iter().all(|&j| !rows.contains(&(j as usize))));
                    let p_local = level.p.as_ref().map(|p| rows_of(p, rows.clone()));
                    let ghosts = level.p.as_ref().map(|p| Ghosts::of(p, 0, &need));
                    let prows = p_local.as_ref().zip(ghosts.as_ref()).map(|(own, g)| PRows {
                        own,
                        first: rows.start,
                        ghosts: g,
                    });
                    let (sp, sg) = spmv_spgemm_received(&s, prows.as_ref());
                    got_spmv.extend(sp);
                    got_spgemm.extend(sg.unwrap_or_default());
                    if let Some(pr) = &prows {
                        got_ptap.extend(ptap_sent(&s, pr, &starts[l + 1]));
                    }
                }
                assert_eq!(sorted(got_spmv), spmv.messages, "level {l} spmv {cuts:?}");
                let want = spgemm
                    .as_ref()
                    .map_or(vec![], |p: &Pattern| p.messages.clone());
                assert_eq!(sorted(got_spgemm), want, "level {l} spgemm {cuts:?}");
                let want = ptap.as_ref().map_or(vec![], |p| p.messages.clone());
                assert_eq!(sorted(got_ptap), want, "level {l} ptap {cuts:?}");
            }
        }
    }

    /// A matrix whose pattern is not symmetric (the serial extraction
    /// then sends along the transpose), with itself as a square "P".
    #[test]
    fn shares_of_a_nonsymmetric_matrix() {
        let a = Problem::new(Kind::Poisson2d, 13).generate().unwrap().csr;
        let ptr = a.indptr();
        let ptr = ptr.raw_storage();
        let keep = |i: usize, j: u32| (j as usize) <= i || !(i + j as usize).is_multiple_of(3);
        let a = crate::matrix::csr::from_rows(
            a.rows(),
            a.cols(),
            |i| {
                (ptr[i]..ptr[i + 1])
                    .filter(|&k| keep(i, a.indices()[k]))
                    .count()
            },
            |i, c, v| {
                let kept = (ptr[i]..ptr[i + 1]).filter(|&k| keep(i, a.indices()[k]));
                for (n, k) in kept.enumerate() {
                    c[n] = a.indices()[k];
                    v[n] = a.data()[k];
                }
            },
        );
        assert!(!crate::matrix::csr::is_pattern_symmetric(&a));
        let m = test_machine(2, 4);
        let starts = vec![0, 20, 20, 61, 80, 100, 130, 150, 169];
        let part = Partition::from_ownership(&Ownership {
            starts: starts.clone(),
        });
        let (spmv, spgemm) = comm::spmv_spgemm(&a, Some(&a), &part, &m);
        let ptap = comm::ptap(&a, &a, &part, &part, &m);
        let (mut got, mut got_g, mut got_p) = (vec![], vec![], vec![]);
        for w in [0, 3, 4, 8].windows(2) {
            let rows = starts[w[0]]..starts[w[1]];
            let local = rows_of(&a, rows.clone());
            let s = Share {
                ranks: w[0]..w[1],
                starts: &starts,
                a: &local,
            };
            let g = Ghosts::of(&a, 0, &ghost_rows(&s));
            let pr = PRows {
                own: &local,
                first: rows.start,
                ghosts: &g,
            };
            let (sp, sg) = spmv_spgemm_received(&s, Some(&pr));
            got.extend(sp);
            got_g.extend(sg.unwrap());
            got_p.extend(ptap_sent(&s, &pr, &starts));
        }
        assert!(!spmv.messages.is_empty());
        assert_eq!(sorted(got), spmv.messages);
        assert_eq!(sorted(got_g), spgemm.unwrap().messages);
        assert_eq!(sorted(got_p), ptap.messages);
    }

    #[test]
    fn owners_of_blocks_with_empty_ranks() {
        let starts = [0, 2, 2, 5, 5, 6];
        let owners: Vec<u32> = (0..6).map(|j| owner(&starts, j)).collect();
        assert_eq!(owners, [0, 0, 2, 2, 2, 4]);
    }
}
