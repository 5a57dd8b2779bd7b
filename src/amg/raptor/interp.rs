//! RAPtor 2018's extended interpolation (`extended_interpolation` in
//! `ruge_stuben/par_interpolation.cpp` at c00e9d6) over the ranks' row
//! blocks, with its operations in its order.
//!
//! For an F row `i` of rank `r` (C rows inject, isolated rows are empty):
//! 1. `w` starts at `a_ii`; the row's weak entries are added to it (not
//!    those to another unknown or to an isolated point), on-rank columns
//!    first; strong C neighbours start their entry at `a_ij`.
//! 2. The interpolatory set adds the strong C neighbours of the strong F
//!    neighbours `k`, with entries starting at 0.0, on-rank and off-rank
//!    each by increasing column. An off-rank `k`'s row is what its owner
//!    sends (`communicate`): its C columns, and the F columns `r` owns.
//! 3. For each strong F neighbour `k` (on-rank ones, then off-rank ones):
//!    `a_ik / sum(a_km)` over `m` in the set or `i`, of sign opposite to
//!    `a_ii`; it spreads `a_km` to the entries and `a_ki` to `w`.
//! 4. Each entry is divided by `-w`.
//!
//! RAPtor's quirks are kept, as they change the values:
//! - an off-rank `k`'s row is summed by kind (see [`Received`]: the F
//!   columns of `r`, the weak then the strong C columns of `r`, the weak
//!   then the strong C columns of other ranks), each kind in the order it
//!   was sent, its owner's columns first;
//! - an on-rank `k`'s off-rank columns count only if some row of `r`
//!   depends strongly on them;
//! - a row of an off-rank `k` stops marking strong entries after a strong
//!   isolated one (par_interpolation.cpp:64);
//! - a weak C column received for `k` stays only if it is in the set of
//!   columns the rank collects, where a weak one is entered two above its
//!   number (par_interpolation.cpp:382);
//! - a zero denominator (`|sum| < 1e-16`) adds to `w` the entry of `A`
//!   at the place the strong connection has in `S`
//!   (par_interpolation.cpp:733, 817).

use std::collections::HashMap;
use std::sync::Mutex;

use rayon::prelude::*;

use super::matmult::{for_row, owners, ZERO_TOL};
use crate::amg::raw::RawCsr;

/// RAPtor's states: C, F and isolated (no strong connection either way
/// when the splitting began).
pub(crate) const C: i8 = 1;
pub(crate) const F: i8 = 0;
pub(crate) const ISOLATED: i8 = -3;

/// The level as the interpolation reads it.
pub(crate) struct Level<'a> {
    pub a: &'a RawCsr,
    /// Strong connections, sorted, without the diagonal.
    pub s: &'a RawCsr,
    pub state: &'a [i8],
    /// The ranks' rows.
    pub blocks: &'a [usize],
    /// Each row's unknown, when there are several.
    pub vars: Option<&'a [u8]>,
}

impl Level<'_> {
    fn strong(&self, i: usize, j: u32) -> bool {
        self.s.row(i).0.binary_search(&j).is_ok()
    }

    fn same_var(&self, i: usize, j: u32) -> bool {
        self.vars.is_none_or(|v| v[i] == v[j as usize])
    }

    /// Row `i`'s strong connections on and off the rank of `lo..hi`, each
    /// increasing.
    fn strong_split(&self, i: usize, lo: usize, hi: usize) -> (&[u32], &[u32], &[u32]) {
        let s = self.s.row(i).0;
        let a = s.partition_point(|&j| (j as usize) < lo);
        let b = s.partition_point(|&j| (j as usize) < hi);
        (&s[..a], &s[a..b], &s[b..])
    }
}

/// An off-rank strong F neighbour's row as rank `r` holds it, split as
/// RAPtor splits it (each list in the order it came: the sender's own
/// columns first, then the others, each increasing).
#[derive(Default)]
struct Received {
    /// F columns of `r`, strong or weak (`D_recv_on`).
    d_on: Vec<(u32, f64)>,
    /// Weak and strong C columns of `r`.
    a_on: Vec<(u32, f64)>,
    s_on: Vec<(u32, f64)>,
    /// Weak and strong C columns of other ranks (weak ones only when
    /// collected: [`Rank::collected`]).
    a_off: Vec<(u32, f64)>,
    s_off: Vec<(u32, f64)>,
}

impl Received {
    /// Its C columns, kind by kind in the order RAPtor sums them: weak,
    /// then strong, of `r`; weak, then strong, of other ranks.
    fn c_entries(&self) -> impl Iterator<Item = &(u32, f64)> {
        (self.a_on.iter())
            .chain(&self.s_on)
            .chain(&self.a_off)
            .chain(&self.s_off)
    }
}

/// An entry of a sent row: column, value, strong, F.
type Sent = (u32, f64, bool, bool);

/// The row sent for `k` (its owner's `lo..hi`): `(column, value, strong,
/// F)` of its C columns, then of its off-rank columns that are not
/// isolated.
fn sent_row(l: &Level, k: usize, lo: usize, hi: usize) -> Vec<Sent> {
    let mut on = Vec::new();
    let mut off = Vec::new();
    let mut first = true;
    let mut stuck = false;
    for_row(l.a, k, lo, hi, |c, v| {
        let cu = c as usize;
        if (lo..hi).contains(&cu) {
            // The first stored entry is taken for the diagonal.
            if std::mem::take(&mut first) {
                return;
            }
            if l.state[cu] == C {
                on.push((c, v, l.strong(k, c), false));
            }
        } else if l.state[cu] == ISOLATED {
            // The pointer into S stays on a strong isolated column.
            stuck |= l.strong(k, c);
        } else {
            let st = !stuck && l.strong(k, c);
            off.push((c, v, st, l.state[cu] == F));
        }
    });
    on.extend(off);
    on
}

/// What rank `r` collects for its rows.
struct Rank {
    lo: usize,
    hi: usize,
    /// Off-rank C columns some row of the rank depends on strongly
    /// (`off_proc_A_to_P >= 0`), increasing.
    strong_c: Vec<u32>,
    /// The received rows of its off-rank strong F neighbours.
    received: HashMap<u32, Received>,
    /// Flat places of each row's entries in its on- and off-rank blocks
    /// of `A` and `S` (for the zero-denominator quirk).
    a_on: Vec<usize>,
    a_off: Vec<usize>,
    s_on: Vec<usize>,
    s_off: Vec<usize>,
}

impl Rank {
    fn new(l: &Level, r: usize, owner: &[u32]) -> Rank {
        let (lo, hi) = (l.blocks[r], l.blocks[r + 1]);
        let mut strong_c = Vec::new();
        let mut strong_f = Vec::new();
        let (mut a_on, mut a_off, mut s_on, mut s_off) = (vec![0], vec![0], vec![0], vec![0]);
        for i in lo..hi {
            let (below, mid, above) = l.strong_split(i, lo, hi);
            for &j in below.iter().chain(above) {
                match l.state[j as usize] {
                    C => strong_c.push(j),
                    F => strong_f.push(j),
                    _ => {}
                }
            }
            let (cols, _) = l.a.row(i);
            let on = cols
                .iter()
                .filter(|&&j| (lo..hi).contains(&(j as usize)))
                .count();
            a_on.push(a_on[i - lo] + on);
            a_off.push(a_off[i - lo] + cols.len() - on);
            // S's row: the diagonal (any row with entries), then the
            // strong columns.
            let diag = usize::from(!cols.is_empty());
            s_on.push(s_on[i - lo] + diag + mid.len());
            s_off.push(s_off[i - lo] + below.len() + above.len());
        }
        for v in [&mut strong_c, &mut strong_f] {
            v.sort_unstable();
            v.dedup();
        }
        // The rows sent for the strong F columns, and the columns the rank
        // collects from them (a weak one entered two above its number).
        let sent: Vec<(u32, Vec<Sent>)> = strong_f
            .iter()
            .map(|&k| {
                let q = owner[k as usize] as usize;
                (k, sent_row(l, k as usize, l.blocks[q], l.blocks[q + 1]))
            })
            .collect();
        let mut collected = strong_c.clone();
        for (_, row) in &sent {
            for &(c, _, st, f) in row {
                let cu = c as usize;
                if !(lo..hi).contains(&cu) && !f {
                    collected.push(if st { c } else { c + 2 });
                }
            }
        }
        collected.sort_unstable();
        collected.dedup();
        let received = sent
            .into_iter()
            .map(|(k, row)| {
                let mut got = Received::default();
                for (c, v, st, f) in row {
                    if (lo..hi).contains(&(c as usize)) {
                        match (f, st) {
                            (true, _) => got.d_on.push((c, v)),
                            (false, true) => got.s_on.push((c, v)),
                            (false, false) => got.a_on.push((c, v)),
                        }
                    } else if !f && collected.binary_search(&c).is_ok() {
                        if st {
                            got.s_off.push((c, v));
                        } else {
                            got.a_off.push((c, v));
                        }
                    }
                }
                (k, got)
            })
            .collect();
        Rank {
            lo,
            hi,
            strong_c,
            received,
            a_on,
            a_off,
            s_on,
            s_off,
        }
    }

    fn is_strong_c(&self, j: u32) -> bool {
        self.strong_c.binary_search(&j).is_ok()
    }

    /// The value at flat place `at` of the rank's on-rank (`on`) or
    /// off-rank block of `A`.
    fn a_at(&self, l: &Level, on: bool, at: usize) -> f64 {
        let starts = if on { &self.a_on } else { &self.a_off };
        let row = starts.partition_point(|&s| s <= at).saturating_sub(1);
        if row + 1 >= starts.len() {
            return 0.0;
        }
        let mut k = at - starts[row];
        let mut found = 0.0;
        let (lo, hi) = (self.lo, self.hi);
        for_row(l.a, self.lo + row, lo, hi, |c, v| {
            if (lo..hi).contains(&(c as usize)) == on {
                if k == 0 {
                    found = v;
                }
                k = k.wrapping_sub(1);
            }
        });
        found
    }
}

/// Per task: marks over the level's columns.
struct Marks {
    /// Place plus one of a column's entry in the row (0: none).
    pos: Vec<u32>,
    /// In the interpolatory set.
    coarse: Vec<bool>,
    /// `a_ik`, then `a_ik / sum`, of strong F neighbours.
    strong: Vec<f64>,
    touched: Vec<u32>,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            pos: vec![0; n],
            coarse: vec![false; n],
            strong: vec![0.0; n],
            touched: Vec::new(),
        }
    }
}

/// RAPtor's extended interpolation of level `l`: rows of `P` over the
/// coarse columns `coarse_of` (a C point's coarse number). Rank by rank,
/// each with what it received, so that only the ranks at work hold it.
pub(crate) fn extended(l: &Level, coarse_of: &[u32], nc: usize) -> RawCsr {
    let n = l.a.nrows;
    let owner = owners(l.blocks);
    // One scratch a thread, made once (marks over the level's columns).
    let pool: Vec<Mutex<Option<Marks>>> = (0..rayon::current_num_threads().max(1))
        .map(|_| Mutex::new(None))
        .collect();
    let parts: Vec<(Vec<usize>, Vec<u32>, Vec<f64>)> = (0..l.blocks.len() - 1)
        .into_par_iter()
        .map(|r| {
            let t = rayon::current_thread_index().unwrap_or(0) % pool.len();
            let mut slot = pool[t].lock().unwrap_or_else(|e| e.into_inner());
            let m = slot.get_or_insert_with(|| Marks::new(n));
            let rank = Rank::new(l, r, &owner);
            let (mut lens, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
            for i in rank.lo..rank.hi {
                let start = cols.len();
                match l.state[i] {
                    C => {
                        cols.push(coarse_of[i]);
                        vals.push(1.0);
                    }
                    F => {
                        row(l, &rank, m, i, &mut cols, &mut vals);
                        for c in &mut cols[start..] {
                            *c = coarse_of[*c as usize];
                        }
                    }
                    _ => {}
                }
                lens.push(cols.len() - start);
            }
            (lens, cols, vals)
        })
        .collect();
    let mut indptr = Vec::with_capacity(n + 1);
    indptr.push(0);
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    for (lens, cols, vals) in parts {
        for len in lens {
            indptr.push(indptr.last().unwrap() + len);
        }
        indices.extend_from_slice(&cols);
        data.extend_from_slice(&vals);
    }
    RawCsr {
        nrows: n,
        ncols: nc,
        indptr,
        indices,
        data,
    }
}

/// F row `i` of rank `rank` into `cols` (fine columns), `vals`.
fn row(l: &Level, rank: &Rank, m: &mut Marks, i: usize, cols: &mut Vec<u32>, vals: &mut Vec<f64>) {
    let (lo, hi) = (rank.lo, rank.hi);
    let on_rank = |j: u32| (lo..hi).contains(&(j as usize));
    let state = |j: u32| l.state[j as usize];
    // The row's entries: on-rank ones, then off-rank ones.
    let mut on: Vec<(u32, f64)> = Vec::new();
    let mut off: Vec<(u32, f64)> = Vec::new();
    let mut w = 0.0;
    let mut first = true;
    // 1. The row itself.
    for_row(l.a, i, lo, hi, |c, v| {
        if on_rank(c) && std::mem::take(&mut first) {
            w = v;
            return;
        }
        if l.strong(i, c) {
            match state(c) {
                C => {
                    let list = if on_rank(c) { &mut on } else { &mut off };
                    list.push((c, v));
                    m.pos[c as usize] = list.len() as u32;
                    m.coarse[c as usize] = true;
                    m.touched.push(c);
                }
                F => {
                    m.strong[c as usize] = v;
                    m.touched.push(c);
                }
                _ => {}
            }
        } else if l.same_var(i, c) && state(c) != ISOLATED {
            w += v;
        }
    });
    let sign = if w < 0.0 { -1.0 } else { 1.0 };
    m.coarse[i] = true;
    m.touched.push(i as u32);
    let (below, mid, above) = l.strong_split(i, lo, hi);
    let strong_f_on: Vec<u32> = mid.iter().copied().filter(|&k| state(k) == F).collect();
    let strong_f_off: Vec<u32> = (below.iter().chain(above))
        .copied()
        .filter(|&k| state(k) == F)
        .collect();
    // 2. The interpolatory set.
    let mut extra: Vec<u32> = Vec::new();
    for &k in &strong_f_on {
        let (kb, km, ka) = l.strong_split(k as usize, lo, hi);
        for &j in km.iter().chain(kb).chain(ka) {
            if state(j) == C && !m.coarse[j as usize] {
                m.coarse[j as usize] = true;
                extra.push(j);
            }
        }
    }
    for &k in &strong_f_off {
        let got = &rank.received[&k];
        for &(j, _) in got.s_on.iter().chain(&got.s_off) {
            if !m.coarse[j as usize] {
                m.coarse[j as usize] = true;
                extra.push(j);
            }
        }
    }
    extra.sort_unstable();
    for &j in &extra {
        let list = if on_rank(j) { &mut on } else { &mut off };
        if m.pos[j as usize] == 0 {
            list.push((j, 0.0));
            m.pos[j as usize] = list.len() as u32;
        }
    }
    m.touched.extend_from_slice(&extra);
    let in_set = |m: &Marks, j: u32| m.coarse[j as usize];
    let opposite = |v: f64| v * sign < 0.0;
    // 3. Denominators: on-rank strong F neighbours in S's order.
    let s_row_on = rank.s_on[i - lo];
    for &k in &strong_f_on {
        let mut sum = 0.0;
        let mut first = true;
        for_row(l.a, k as usize, lo, hi, |c, v| {
            if on_rank(c) {
                if std::mem::take(&mut first) {
                    return;
                }
                if in_set(m, c) && opposite(v) {
                    sum += v;
                }
            } else if rank.is_strong_c(c) && opposite(v) && in_set(m, c) {
                sum += v;
            }
        });
        let ku = k as usize;
        if sum.abs() < ZERO_TOL {
            // A's entry at the place of k in S's row (PI:733).
            let place = 1 + mid.binary_search(&k).unwrap_or(0);
            w += rank.a_at(l, true, s_row_on + place);
            m.strong[ku] = 0.0;
        } else {
            m.strong[ku] /= sum;
        }
    }
    let s_row_off = rank.s_off[i - lo];
    let off_strong: Vec<u32> = below.iter().chain(above).copied().collect();
    for &k in &strong_f_off {
        let got = &rank.received[&k];
        let mut sum = 0.0;
        for &(j, v) in &got.d_on {
            if j as usize == i && opposite(v) {
                sum += v;
            }
        }
        for &(j, v) in got.c_entries() {
            if opposite(v) && in_set(m, j) {
                sum += v;
            }
        }
        let ku = k as usize;
        if sum.abs() < ZERO_TOL {
            let place = off_strong.binary_search(&k).unwrap_or(0);
            w += rank.a_at(l, false, s_row_off + place);
            m.strong[ku] = 0.0;
        } else {
            m.strong[ku] /= sum;
        }
    }
    // 4. Spreading.
    let entry = |m: &Marks, on: &mut Vec<(u32, f64)>, off: &mut Vec<(u32, f64)>, j: u32, x: f64| {
        let p = m.pos[j as usize];
        if p > 0 {
            let list = if on_rank(j) { on } else { off };
            list[p as usize - 1].1 += x;
        }
    };
    for &k in &strong_f_on {
        let rk = m.strong[k as usize];
        let mut first = true;
        for_row(l.a, k as usize, lo, hi, |c, v| {
            if on_rank(c) {
                if std::mem::take(&mut first) {
                    return;
                }
                if opposite(v) && c as usize == i {
                    w += rk * v;
                } else if opposite(v) {
                    entry(m, &mut on, &mut off, c, rk * v);
                }
            } else if rank.is_strong_c(c) && opposite(v) {
                entry(m, &mut on, &mut off, c, rk * v);
            }
        });
    }
    for &k in &strong_f_off {
        let got = &rank.received[&k];
        let rk = m.strong[k as usize];
        for &(j, v) in &got.d_on {
            if j as usize == i && opposite(v) {
                w += rk * v;
            }
        }
        for &(j, v) in got.c_entries() {
            if opposite(v) {
                entry(m, &mut on, &mut off, j, rk * v);
            }
        }
    }
    // 5. Scaling.
    for (j, v) in on.into_iter().chain(off) {
        cols.push(j);
        vals.push(v / -w);
    }
    for &j in &m.touched {
        let ju = j as usize;
        m.pos[ju] = 0;
        m.coarse[ju] = false;
        m.strong[ju] = 0.0;
    }
    m.touched.clear();
}
