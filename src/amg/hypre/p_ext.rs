//! The rows of `P` as the product reads them (par_rap.c): every fine
//! row with global coarse columns, padded to whole [`LANES`] with sinks
//! ([`GlobalP`]), and hypre's `P_ext` on a rank, each offd point's row
//! split into the rank's coarse columns first ([`PExt`]).

use super::parcsr::{Entry, FlatRows, Head, ParCsr};

/// Every fine row of `P` with global coarse columns, in stored order
/// (diag block, then offd block), each tagged with how many of its
/// entries are its owner's columns: hypre's `P_ext` rows are these, split.
pub(super) struct GlobalP {
    rows: FlatRows,
    /// The first column of the sinks that pad each row to whole
    /// [`LANES`] ([`sink_at`]).
    pub sink: u32,
}

/// `RAP_int` reads rows of `P` [`LANES`] entries at a time, each row
/// padded with sinks (columns from [`GlobalP::sink`], value 0, whose marks
/// are always set): a row of truncated `P` has 1 to 4 entries, and a loop
/// that ends after any of them mispredicts its end.
pub(super) const LANES: usize = 4;

/// The sink at place `k` of a padded row: one column per place, so that
/// the sinks' adds (`vals[sink] += 0.0`) are [`LANES`] chains through
/// memory, not one that every padded row waits on.
#[inline(always)]
fn sink_at(sink: u32, k: usize) -> Entry {
    Entry {
        col: sink + (k % LANES) as u32,
        val: 0.0,
    }
}

fn lanes(len: usize) -> usize {
    len.next_multiple_of(LANES)
}

impl GlobalP {
    pub(super) fn of(p: &ParCsr) -> GlobalP {
        let sink = p.global_cols() as u32;
        let rows = FlatRows::build(
            &p.rows,
            |r| {
                let l = &p.ranks[r];
                (0..l.rows())
                    .map(|i| lanes(l.diag.row(i).0.len() + l.offd.row(i).0.len()))
                    .sum()
            },
            |r, e, heads| {
                let l = &p.ranks[r];
                let first = p.cols[r] as u32;
                let mut t = 0;
                for (i, h) in heads.iter_mut().enumerate() {
                    let start = t;
                    let (dc, dv) = l.diag.row(i);
                    for (&j, &x) in dc.iter().zip(dv) {
                        e[t] = Entry {
                            col: first + j,
                            val: x,
                        };
                        t += 1;
                    }
                    let (oc, ov) = l.offd.row(i);
                    for (&k, &x) in oc.iter().zip(ov) {
                        e[t] = Entry {
                            col: l.col_map[k as usize],
                            val: x,
                        };
                        t += 1;
                    }
                    *h = Head {
                        start,
                        len: (t - start) as u32,
                        tag: dc.len() as u32,
                    };
                    while t - start < lanes(h.len as usize) {
                        e[t] = sink_at(sink, t - start);
                        t += 1;
                    }
                }
            },
        );
        GlobalP { rows, sink }
    }

    #[inline(always)]
    pub(super) fn head(&self, g: usize) -> Head {
        self.rows.heads[g]
    }

    /// Row `g`'s head, its entries asked into the cache.
    #[inline(always)]
    pub(super) fn fetch(&self, g: usize) -> Head {
        self.rows.fetch(g)
    }

    #[inline(always)]
    pub(super) fn entries(&self, h: Head) -> &[Entry] {
        &self.rows.entries[h.start..h.start + h.len as usize]
    }

    /// The row with its sinks: whole [`LANES`].
    #[inline(always)]
    pub(super) fn padded(&self, h: Head) -> &[Entry] {
        &self.rows.entries[h.start..h.start + lanes(h.len as usize)]
    }

    /// Row `g` split as hypre's `P_ext` on another rank, the one of
    /// coarse columns `lo..hi`: those columns first, then the others, each
    /// in stored order. hypre's diag part is the owner's offd entries in
    /// `lo..hi`: the owner's own columns are never there.
    #[inline(always)]
    pub(super) fn split_row(&self, h: Head, lo: u32, hi: u32, mut f: impl FnMut(u32, f64)) {
        let (e, nd) = (self.entries(h), h.tag);
        let inside = |j: u32| j.wrapping_sub(lo) < hi - lo;
        let (de, oe) = e.split_at(nd as usize);
        if !oe.iter().any(|x| inside(x.col)) {
            for x in e {
                f(x.col, x.val);
            }
            return;
        }
        for x in oe {
            if inside(x.col) {
                f(x.col, x.val);
            }
        }
        for x in de {
            f(x.col, x.val);
        }
        for x in oe {
            if !inside(x.col) {
                f(x.col, x.val);
            }
        }
    }
}

/// hypre's `P_ext` on one rank: the row of `P` of each of its offd fine
/// points, split as [`GlobalP::split_row`] splits it for the rank, made
/// when a thread's task of that rank first reads it in `RAP_int`, kept
/// while the thread's tasks are that rank's. Each row made is read many
/// times (15 on average on level 0 of the paper-scale case, 8,192 ranks),
/// and splitting it at each read took a quarter of `RAP_int`'s time.
pub(super) struct PExt {
    entries: Vec<Entry>,
    /// Per offd point of the rank: where its row is in `entries`.
    at: Vec<(usize, u32)>,
    /// Per offd point: the rank's turn that made its row (`turn` when
    /// this one).
    made: Vec<u32>,
    turn: u32,
    /// The rank (`usize::MAX`: none yet).
    rank: usize,
}

impl PExt {
    pub(super) fn new() -> PExt {
        PExt {
            entries: Vec::new(),
            at: Vec::new(),
            made: Vec::new(),
            turn: 0,
            rank: usize::MAX,
        }
    }

    /// A task of rank `rank`, which has `offd` offd points: the rows made
    /// are kept if the last task was the same rank's.
    pub(super) fn start(&mut self, rank: usize, offd: usize) {
        if rank == self.rank {
            return;
        }
        self.rank = rank;
        self.entries.clear();
        if self.made.len() < offd {
            self.made.resize(offd, 0);
            self.at.resize(offd, (0, 0));
        }
        self.turn = self.turn.wrapping_add(1);
        if self.turn == 0 {
            self.made.fill(0);
            self.turn = 1;
        }
    }

    /// The split row of offd point `k` (global fine row `g`), for the
    /// sender of coarse columns `lo..hi`, padded to whole [`LANES`].
    #[inline(always)]
    pub(super) fn row(&mut self, gp: &GlobalP, k: usize, g: usize, lo: u32, hi: u32) -> &[Entry] {
        if self.made[k] != self.turn {
            let start = self.entries.len();
            let e = &mut self.entries;
            gp.split_row(gp.head(g), lo, hi, |col, val| e.push(Entry { col, val }));
            let padded = start + lanes(e.len() - start);
            while e.len() < padded {
                e.push(sink_at(gp.sink, e.len() - start));
            }
            self.at[k] = (start, (self.entries.len() - start) as u32);
            self.made[k] = self.turn;
        }
        let (start, len) = self.at[k];
        &self.entries[start..start + len as usize]
    }
}
