//! The analysis spread over the processes of an MPI run (feature `mpi`):
//! `mpirun -n K amgcomm analyze` on hypre rank files, for a hierarchy too
//! large for one computer.
//!
//! Each of the `K` processes reads the rank files of about `1/K` of the
//! ranks of each level ([`crate::matrix::io::hypre_ij::read_part`]);
//! every process learns all ranks' row and column blocks, checks them as
//! a serial run does, and assembles its share of the rows. It fetches the
//! rows of `P` its rows reference from the processes that hold them, then
//! finds the messages its ranks receive in spmv and spgemm and send in
//! ptap ([`crate::comm::share`]). Rank 0 gathers the messages and the
//! level sizes, and [`super::analyze_extracted`] charges them.
//!
//! No process holds a whole matrix: a process holds its share of one
//! level's `A` and `P`, the next level's `A`, and the ghost rows of `P`;
//! rank 0 also holds every message of a level, which grow with the
//! ranks, not the rows. A failure on any process (a bad file) is agreed
//! by all ([`Session::agree`]), so all stop together.

use std::ops::Range;
use std::path::{Path, PathBuf};

use super::Extracted;
use crate::amg::diagnose::{self, Warning};
use crate::amg::levels_io::{self, Blocks, FolderFormat, LevelFiles};
use crate::amg::LevelSizes;
use crate::comm::share::{self, Ghosts, PRows, Share};
use crate::comm::{Message, Op, Pattern};
use crate::matrix::io::hypre_ij;
use crate::matrix::io::Values;
use crate::matrix::{Csr, Ownership};
use crate::measure::mpi::{Failure, Session};

/// What rank 0 gathers: every level's messages and sizes.
#[derive(Clone, Debug)]
pub struct Gathered {
    /// Every level's patterns, ready for [`super::analyze_extracted`].
    pub levels: Vec<Extracted>,
    /// Every level's sizes (rows, nonzeros of `A` and of `P`).
    pub sizes: Vec<LevelSizes>,
    /// Every level's row blocks, as the files give them.
    pub ownership: Vec<Ownership>,
    /// Level 0's rows with a diagonal that is not positive
    /// ([`diagnose::diagonal`]).
    pub diagonal: Option<Warning>,
}

/// Which ranks' files each process reads: process `k` reads ranks
/// `cuts[k]..cuts[k + 1]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shares {
    /// `processes + 1` nondecreasing rank offsets, from 0 to the ranks.
    pub cuts: Vec<usize>,
}

impl Shares {
    /// `ranks / processes` ranks each, in order.
    pub fn even(ranks: usize, processes: usize) -> Shares {
        Shares {
            cuts: (0..=processes).map(|k| k * ranks / processes).collect(),
        }
    }

    /// About equal bytes each (hypre's row blocks may be uneven): the
    /// cuts are where the running total of `bytes` (per rank) crosses
    /// each `k / processes` of the whole.
    pub fn balanced(bytes: &[u64], processes: usize) -> Shares {
        let total: u64 = bytes.iter().sum();
        let mut cuts = vec![0];
        let mut acc = 0u64;
        let mut r = 0;
        for k in 1..processes {
            let target = (total as u128 * k as u128 / processes as u128) as u64;
            while r < bytes.len() && acc + bytes[r] / 2 < target {
                acc += bytes[r];
                r += 1;
            }
            cuts.push(r);
        }
        cuts.push(bytes.len());
        Shares { cuts }
    }

    /// Process `k`'s ranks.
    pub fn of(&self, k: usize) -> Range<usize> {
        self.cuts[k]..self.cuts[k + 1]
    }

    /// The process that reads rank `r`'s files.
    pub fn process_of(&self, r: usize) -> usize {
        self.cuts.partition_point(|&c| c <= r) - 1
    }
}

/// Each level's shares, balanced by the bytes of its rank files (`A_l`
/// and `P_l` together: a process holds the same ranks' rows of both).
/// Each process measures an even share of the files; all learn all
/// sizes (collective).
fn level_shares(s: &Session, levels: &[LevelFiles], ranks: usize) -> Vec<Shares> {
    let even = Shares::even(ranks, s.size);
    let size = |f: PathBuf| std::fs::metadata(f).map_or(0, |m| m.len());
    levels
        .iter()
        .map(|l| {
            let mine: Vec<u64> = (even.of(s.rank))
                .map(|r| {
                    let p = l.p.as_ref().map_or(0, |p| size(hypre_ij::rank_file(p, r)));
                    size(hypre_ij::rank_file(&l.a, r)) + p
                })
                .collect();
            Shares::balanced(&s.all_gather_v(&mine), s.size)
        })
        .collect()
}

/// One matrix of a level as this process holds it.
struct Held {
    /// Its rows of the process's ranks, local from 0, global columns.
    csr: Csr,
    /// All ranks' blocks.
    blocks: Blocks,
    /// Its shape.
    shape: (usize, usize),
    /// The file errors name.
    shown: PathBuf,
}

/// Every process's local result agreed on: a failure anywhere is the
/// failure of all (exit status 1: the files are bad data).
fn agreed<T, E: std::fmt::Display>(s: &Session, r: Result<T, E>) -> Result<T, Failure> {
    let (value, local) = match r {
        Ok(v) => (Some(v), None),
        Err(e) => (None, Some((e.to_string(), 1))),
    };
    s.agree(local)?;
    Ok(value.expect("agreed: no failure"))
}

/// Reads this process's share `mine` of the rank files of `prefix`
/// (collective).
fn read(s: &Session, prefix: &Path, ranks: usize, mine: Range<usize>) -> Result<Held, Failure> {
    let shown = hypre_ij::rank_file(prefix, 0);
    // Rank 0 alone lists the folder (thousands of processes listing a
    // folder of a million rank files would load a parallel file system's
    // metadata server for nothing); the others learn the count.
    let listed = match s.rank {
        0 => hypre_ij::existing_rank_files(prefix).map(|f| f.len()),
        _ => Ok(0),
    };
    let count = s.max_all(&[agreed(s, listed)? as u64])[0] as usize;
    let files: Vec<PathBuf> = (0..count).map(|r| hypre_ij::rank_file(prefix, r)).collect();
    if files.len() != ranks {
        let e = format!(
            "{}: {} rank files, A0 has {ranks}",
            shown.display(),
            files.len()
        );
        agreed::<(), _>(s, Err(e))?;
    }
    let part = agreed(s, hypre_ij::read_part(&files, mine, Values::Any))?;
    let ranges: Vec<u64> = (part.rows.iter().zip(&part.cols))
        .flat_map(|(r, c)| [r.0, r.1, c.0, c.1])
        .collect();
    let all = s.all_gather_v(&ranges);
    let rows: Vec<(u64, u64)> = all.chunks(4).map(|c| (c[0], c[1])).collect();
    let cols: Vec<(u64, u64)> = all.chunks(4).map(|c| (c[2], c[3])).collect();
    // Every process checks the same ranges the same way.
    let row_starts = agreed(s, hypre_ij::tile(&files, &rows, "rows"))?;
    let col_starts = agreed(s, hypre_ij::tile(&files, &cols, "columns"))?;
    let shape = (row_starts[ranks], col_starts[ranks]);
    let csr = agreed(s, part.assemble(&files, &row_starts, shape.1))?;
    Ok(Held {
        csr,
        blocks: Blocks {
            rows: row_starts,
            cols: col_starts,
        },
        shape,
        shown,
    })
}

/// Inputs a distributed run cannot read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The folder's levels do not list (exit 1).
    #[error(transparent)]
    Levels(#[from] levels_io::LevelsError),
    /// A folder of single files (exit 2).
    #[error("request.levels {0}: a run under mpirun reads hypre rank files (A0.00000, P0.00000, ...); run this folder without mpirun")]
    NotRankFiles(String),
}

/// The levels of a `--levels-from` folder of hypre rank files, or of one
/// matrix's rank files `prefix` alone (a one-level hierarchy).
pub fn inputs(levels_from: Option<&Path>, prefix: &Path) -> Result<Vec<LevelFiles>, InputError> {
    match levels_from {
        Some(dir) if dir.is_file() => Err(InputError::NotRankFiles(dir.display().to_string())),
        Some(dir) => {
            let (format, files) = levels_io::level_files(dir)?;
            if format != FolderFormat::Hypre {
                return Err(InputError::NotRankFiles(dir.display().to_string()));
            }
            Ok(files)
        }
        None => Ok(vec![LevelFiles {
            a: prefix.to_path_buf(),
            p: None,
        }]),
    }
}

/// Every level's messages, found by all processes together from the
/// rank files of `levels` (written by `ranks` ranks), gathered on rank 0
/// (`None` elsewhere). `ptap` also extracts `P^T (A P)`. Collective.
pub fn extract(
    s: &Session,
    levels: &[LevelFiles],
    ranks: usize,
    ptap: bool,
) -> Result<Option<Gathered>, Failure> {
    let shares = level_shares(s, levels, ranks);
    let mut a = read(s, &levels[0].a, ranks, shares[0].of(s.rank))?;
    let mut out = Gathered {
        levels: Vec::new(),
        sizes: Vec::new(),
        ownership: Vec::new(),
        diagonal: None,
    };
    for (l, files) in levels.iter().enumerate() {
        agreed(
            s,
            levels_io::check_a(l, a.shape, Some(&a.blocks), Some(ranks), &a.shown),
        )?;
        let (p, next) = match &files.p {
            Some(p_prefix) => {
                let next = read(s, &levels[l + 1].a, ranks, shares[l + 1].of(s.rank))?;
                let p = read(s, p_prefix, ranks, shares[l].of(s.rank))?;
                let blocks = Some((&p.blocks, &a.blocks.rows[..], &next.blocks.rows[..]));
                let sizes = (a.shape.0, next.shape.0);
                agreed(s, levels_io::check_p(l, p.shape, sizes, blocks, &p.shown))?;
                (Some(p), Some(next))
            }
            None => (None, None),
        };
        let starts = &a.blocks.rows;
        let sh = Share {
            ranks: shares[l].of(s.rank),
            starts,
            a: &a.csr,
        };
        if l == 0 {
            out.diagonal = diagonal(s, &sh);
        }
        // The rows of P this share references and others hold.
        let ghosts = p.as_ref().map(|p| fetch(s, &sh, p, &shares[l]));
        let prows = p.as_ref().zip(ghosts.as_ref()).map(|(p, g)| PRows {
            own: &p.csr,
            first: sh.rows().start,
            ghosts: g,
        });
        let (spmv, spgemm) = share::spmv_spgemm_received(&sh, prows.as_ref());
        let ptap_msgs = match (&prows, &next) {
            (Some(pr), Some(next)) if ptap => Some(share::ptap_sent(&sh, pr, &next.blocks.rows)),
            _ => None,
        };
        let counts = [
            a.csr.nnz() as u64,
            p.as_ref().map_or(0, |p| p.csr.nnz() as u64),
        ];
        let [nnz, p_nnz] = <[u64; 2]>::try_from(s.sum_all(&counts)).expect("two sums");
        let (nnz, p_nnz) = (nnz as usize, p.as_ref().map(|_| p_nnz as usize));
        let spmv = gather(s, Op::Spmv, &spmv);
        let spgemm = spgemm.map(|m| gather(s, Op::Spgemm, &m));
        let ptap_pat = ptap_msgs.map(|m| gather(s, Op::Ptap, &m));
        if let Some(spmv) = spmv {
            let active = starts.windows(2).filter(|w| w[1] > w[0]).count();
            out.levels.push(Extracted {
                rows: a.shape.0,
                nnz,
                active_processes: active,
                spmv,
                spgemm: spgemm.flatten(),
                ptap: ptap_pat.flatten(),
            });
            out.sizes.push(LevelSizes {
                level: l,
                rows: a.shape.0,
                nnz,
                p_nnz,
            });
            out.ownership.push(Ownership {
                starts: starts.clone(),
            });
        }
        match next {
            Some(n) => a = n,
            None => break,
        }
    }
    Ok((s.rank == 0).then_some(out))
}

/// The rows of `P` that `sh`'s rows reference and other processes hold,
/// asked of them and sent by them (collective).
fn fetch(s: &Session, sh: &Share, p: &Held, shares: &Shares) -> Ghosts {
    let need = share::ghost_rows(sh);
    // Asked of the process holding each row's rank, in row order.
    let mut asks: Vec<Vec<u32>> = vec![Vec::new(); s.size];
    for &j in &need {
        let r = share::owner(sh.starts, j as usize) as usize;
        asks[shares.process_of(r)].push(j);
    }
    let asked = s.all_to_all_v(&asks);
    let first = sh.rows().start;
    let answers: Vec<Ghosts> = asked
        .iter()
        .map(|rows| Ghosts::of(&p.csr, first, rows))
        .collect();
    let lens: Vec<Vec<u32>> = (answers.iter())
        .map(|g| g.ptr.windows(2).map(|w| (w[1] - w[0]) as u32).collect())
        .collect();
    let cols: Vec<Vec<u32>> = answers.into_iter().map(|g| g.cols).collect();
    let lens = s.all_to_all_v(&lens);
    let cols = s.all_to_all_v(&cols);
    // Processes hold increasing rows, so the answers in process order
    // come in row order.
    let mut g = Ghosts {
        rows: asks.concat(),
        ptr: vec![0],
        cols: cols.concat(),
    };
    for len in lens.iter().flatten() {
        g.ptr
            .push(g.ptr.last().expect("starts at 0") + *len as usize);
    }
    debug_assert_eq!(g.rows, need);
    g
}

/// Level 0's [`diagnose::diagonal`] warning over every process's rows,
/// on rank 0 (collective).
fn diagonal(s: &Session, sh: &Share) -> Option<Warning> {
    // hypre numbers its global rows from 0.
    let numbering = crate::matrix::Numbering::FromZero;
    let flat: Vec<u64> = match diagnose::diagonal(sh.a, sh.rows().start, numbering) {
        Some(Warning::Diagonal {
            row,
            value,
            rows,
            empty,
            ..
        }) => vec![row as u64, value.to_bits(), rows as u64, empty as u64],
        _ => Vec::new(),
    };
    let all = s.gather_v(&flat)?;
    diagnose::merge_diagonal(all.chunks(4).map(|c| {
        Some(Warning::Diagonal {
            row: c[0] as usize,
            value: f64::from_bits(c[1]),
            rows: c[2] as usize,
            empty: c[3] == 1,
            numbering,
        })
    }))
}

/// Every process's messages on rank 0, as one pattern in (from, to)
/// order (collective; `None` elsewhere).
fn gather(s: &Session, op: Op, msgs: &[Message]) -> Option<Pattern> {
    let flat: Vec<u64> = (msgs.iter())
        .flat_map(|m| [(m.from as u64) << 32 | m.to as u64, m.bytes, m.runs as u64])
        .collect();
    let all = s.gather_v(&flat)?;
    let mut messages: Vec<Message> = (all.chunks(3))
        .map(|c| Message {
            from: (c[0] >> 32) as u32,
            to: c[0] as u32,
            bytes: c[1],
            runs: c[2] as u32,
        })
        .collect();
    messages.sort_unstable_by_key(|m| (m.from, m.to));
    Some(Pattern { op, messages })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rank_has_one_process() {
        let check = |sh: &Shares, ranks: usize, size: usize| {
            assert_eq!(sh.cuts.len(), size + 1);
            let mut seen = 0;
            for k in 0..size {
                for r in sh.of(k) {
                    assert_eq!(r, seen);
                    assert_eq!(sh.process_of(r), k, "{sh:?}");
                    seen += 1;
                }
            }
            assert_eq!(seen, ranks);
        };
        for ranks in [1, 2, 5, 16, 17] {
            for size in 1..=ranks + 3 {
                check(&Shares::even(ranks, size), ranks, size);
                let bytes: Vec<u64> = (0..ranks as u64).map(|r| 100 * (r + 1)).collect();
                check(&Shares::balanced(&bytes, size), ranks, size);
            }
        }
    }

    #[test]
    fn shares_balance_bytes() {
        // Rank r holds r + 1 bytes, 136 in all: halves of 66 and 70
        // bytes, thirds of 45, 46 and 45.
        let bytes: Vec<u64> = (1..=16).collect();
        assert_eq!(Shares::balanced(&bytes, 2).cuts, [0, 11, 16]);
        assert_eq!(Shares::balanced(&bytes, 3).cuts, [0, 9, 13, 16]);
        assert_eq!(Shares::balanced(&[5, 0, 0, 5], 2).cuts, [0, 1, 4]);
    }
}
