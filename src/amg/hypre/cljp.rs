//! `hypre_BoomerAMGCoarsen` with `CF_init = 0` (par_coarsen.c): CLJP over
//! the ranks, which hypre's setup switches to for the levels after one
//! that kept three quarters of its rows (`coarsen_type = 0`,
//! par_amg_setup.c).
//!
//! The measures are `|S^T_i|` summed over the ranks plus `hypre_Rand()`
//! seeded `2747 + rank`. Each round: the points of no influence left
//! become F points, an independent set of the largest measures
//! (`hypre_BoomerAMGIndepSet`) becomes C points, and the dependencies they
//! satisfy are taken out of `S` (hypre negates them; here a mark per
//! entry), lowering their measures; a point's strong F neighbours that
//! share a C point with it lose its dependence too, across ranks through
//! `S_ext`. Every exchange is hypre's, in slot order.

use rayon::prelude::*;

use super::indepset::{measures, measures_offd, Points};
use super::parcsr::{backward, forward, source, Comm};
use super::strength::LocalS;
use super::{C_PT, F_PT, SF_PT};

/// hypre's COMMON_C_PT: a C point the point being treated shares.
const COMMON_C_PT: i8 = 2;

/// One rank's state.
struct Rank {
    p: Points,
    /// Dependencies taken out of `S` (hypre's negated entries).
    out_d: Vec<bool>,
    out_o: Vec<bool>,
    /// `S_ext`: each offd point's strong connections the rank knows,
    /// local (`>= 0`) or offd `k` (`-k - 1`).
    ext_ptr: Vec<usize>,
    ext: Vec<i64>,
}

/// CLJP over the ranks; `rows`: the ranks' row starts.
pub(crate) fn cljp(s: &[LocalS], comms: &[Comm], rows: &[usize]) -> Vec<Vec<i8>> {
    let mut ranks: Vec<Rank> = (s.par_iter().zip(comms).zip(measures(s, comms)).enumerate())
        .map(|(r, ((sl, c), mut measure))| {
            let n = sl.diag.rows();
            let m = c.from.len();
            let mut cf = vec![0i8; n];
            let mut graph = Vec::with_capacity(n);
            for i in 0..n {
                if sl.len(i) == 0 {
                    cf[i] = SF_PT;
                    measure[i] = 0.0;
                } else {
                    graph.push(i as u32);
                }
            }
            // S_ext: the owners' rows of S, columns this rank knows.
            let (first, last) = (rows[r], rows[r + 1]);
            let mut ext_ptr = vec![0usize];
            let mut ext = Vec::new();
            for k in 0..m {
                let (o, row) = source(comms, r, k);
                let so = &s[o];
                let globals = (so.diag.row(row).iter().map(|&j| rows[o] + j as usize)).chain(
                    so.offd.row(row).iter().map(|&j| {
                        let (q, qr) = source(comms, o, j as usize);
                        rows[q] + qr
                    }),
                );
                for g in globals {
                    if (first..last).contains(&g) {
                        ext.push((g - first) as i64);
                    } else if let Some(kc) = offd_index(comms, rows, r, g) {
                        ext.push(-(kc as i64) - 1);
                    }
                }
                ext_ptr.push(ext.len());
            }
            Rank {
                p: Points::new(cf, measure, graph, m),
                out_d: vec![false; sl.diag.indices.len()],
                out_o: vec![false; sl.offd.indices.len()],
                ext_ptr,
                ext,
            }
        })
        .collect();
    loop {
        // The neighbours' decrements of this rank's measures come back.
        let back = backward(comms, |to, at| ranks[to].p.measure_offd[at]);
        (ranks.par_iter_mut().zip(s).zip(comms).zip(back)).for_each(|(((k, sl), c), back)| {
            let Rank {
                p, out_d, out_o, ..
            } = k;
            for (t, slot) in c.sends.iter().enumerate() {
                p.measure[slot.row as usize] += back[t];
            }
            // Points of no influence left, all their dependencies met:
            // F points; decided points leave the graph.
            let mut ig = 0;
            while ig < p.graph.len() {
                let i = p.graph[ig] as usize;
                if p.cf[i] != C_PT && p.measure[i] < 1.0 {
                    p.cf[i] = F_PT;
                    let (d, o) = (
                        sl.diag.indptr[i]..sl.diag.indptr[i + 1],
                        sl.offd.indptr[i]..sl.offd.indptr[i + 1],
                    );
                    if out_d[d].iter().any(|&x| !x) || out_o[o].iter().any(|&x| !x) {
                        p.cf[i] = 0;
                    }
                }
                if p.cf[i] != 0 {
                    p.measure[i] = 0.0;
                    p.graph.swap_remove(ig);
                } else {
                    ig += 1;
                }
            }
        });
        let got = measures_offd(comms, |o| &ranks[o].p.measure);
        for (k, g) in ranks.iter_mut().zip(got) {
            k.p.measure_offd = g;
        }
        if ranks.iter().all(|k| k.p.graph.is_empty()) {
            break;
        }
        // hypre_BoomerAMGIndepSet, then the neighbours' verdicts.
        ranks
            .par_iter_mut()
            .zip(s)
            .for_each(|(k, sl)| k.p.indep_set(sl));
        let back = backward(comms, |to, at| ranks[to].p.cf_offd[at]);
        (ranks.par_iter_mut().zip(comms).zip(back)).for_each(|((k, c), back)| {
            for (t, slot) in c.sends.iter().enumerate() {
                if back[t] == 0 && k.p.cf[slot.row as usize] > 0 {
                    k.p.cf[slot.row as usize] = 0;
                }
            }
        });
        let got = forward(comms, |o, slot| {
            let row = comms[o].sends[slot].row as usize;
            ranks[o].p.cf[row]
        });
        (ranks.par_iter_mut().zip(s).zip(got)).for_each(|((k, sl), got)| {
            let p = &mut k.p;
            p.cf_offd = got;
            let (cf_offd, graph_offd) = (&p.cf_offd, &mut p.graph_offd);
            let mut ig = 0;
            while ig < graph_offd.len() {
                if cf_offd[graph_offd[ig] as usize] < 0 {
                    graph_offd.swap_remove(ig);
                } else {
                    ig += 1;
                }
            }
            p.measure_offd.iter_mut().for_each(|x| *x = 0.0);
            let graph = std::mem::take(&mut p.graph);
            for &i in &graph {
                update(k, sl, i as usize);
            }
            k.p.graph = graph;
        });
    }
    ranks.into_iter().map(|k| k.p.cf).collect()
}

/// The round's consequences for graph point `i`: a new C point satisfies
/// its dependencies; another point drops those on strong neighbours that
/// share a C point with it.
fn update(k: &mut Rank, sl: &LocalS, i: usize) {
    let Rank {
        p:
            Points {
                cf,
                cf_offd,
                measure,
                measure_offd,
                ..
            },
        out_d,
        out_o,
        ext_ptr,
        ext,
    } = k;
    let (d0, o0) = (sl.diag.indptr[i], sl.offd.indptr[i]);
    let (di, oi) = (sl.diag.row(i), sl.offd.row(i));
    if cf[i] > 0 {
        cf[i] = C_PT;
        for (t, &j) in di.iter().enumerate() {
            if !out_d[d0 + t] {
                out_d[d0 + t] = true;
                if cf[j as usize] == 0 {
                    measure[j as usize] -= 1.0;
                }
            }
        }
        for (t, &j) in oi.iter().enumerate() {
            if !out_o[o0 + t] {
                out_o[o0 + t] = true;
                if cf_offd[j as usize] == 0 {
                    measure_offd[j as usize] -= 1.0;
                }
            }
        }
    } else {
        for (t, &j) in di.iter().enumerate() {
            let j = j as usize;
            if cf[j] > 0 {
                out_d[d0 + t] = true;
                cf[j] = COMMON_C_PT;
            } else if cf[j] == SF_PT {
                out_d[d0 + t] = true;
            }
        }
        for (t, &j) in oi.iter().enumerate() {
            let j = j as usize;
            if cf_offd[j] > 0 {
                out_o[o0 + t] = true;
                cf_offd[j] = COMMON_C_PT;
            } else if cf_offd[j] == SF_PT {
                out_o[o0 + t] = true;
            }
        }
        for (t, &j) in di.iter().enumerate() {
            if out_d[d0 + t] {
                continue;
            }
            let j = j as usize;
            let shares = sl
                .diag
                .row(j)
                .iter()
                .any(|&x| cf[x as usize] == COMMON_C_PT)
                || sl
                    .offd
                    .row(j)
                    .iter()
                    .any(|&x| cf_offd[x as usize] == COMMON_C_PT);
            if shares {
                out_d[d0 + t] = true;
                measure[j] -= 1.0;
            }
        }
        for (t, &j) in oi.iter().enumerate() {
            if out_o[o0 + t] {
                continue;
            }
            let j = j as usize;
            let shares = ext[ext_ptr[j]..ext_ptr[j + 1]].iter().any(|&x| {
                if x >= 0 {
                    cf[x as usize] == COMMON_C_PT
                } else {
                    cf_offd[(-x - 1) as usize] == COMMON_C_PT
                }
            });
            if shares {
                out_o[o0 + t] = true;
                measure_offd[j] -= 1.0;
            }
        }
    }
    for &j in di {
        if cf[j as usize] == COMMON_C_PT {
            cf[j as usize] = C_PT;
        }
    }
    for &j in oi {
        if cf_offd[j as usize] == COMMON_C_PT {
            cf_offd[j as usize] = C_PT;
        }
    }
}

/// Where global point `g` is among rank `r`'s offd columns, if it is.
fn offd_index(comms: &[Comm], rows: &[usize], r: usize, g: usize) -> Option<usize> {
    let c = &comms[r];
    // The columns are increasing in global index.
    let at = |k: usize| {
        let (o, row) = source(comms, r, k);
        rows[o] + row
    };
    let (mut lo, mut hi) = (0usize, c.src.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        match at(mid).cmp(&g) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Some(mid),
        }
    }
    None
}
