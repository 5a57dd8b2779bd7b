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

use super::parcsr::{source, Comm};
use super::pmis::HypreRand;
use super::strength::LocalS;
use super::{C_PT, F_PT, SF_PT};

/// hypre's COMMON_C_PT: a C point the point being treated shares.
const COMMON_C_PT: i8 = 2;

/// One rank's state.
struct Rank {
    cf: Vec<i8>,
    cf_offd: Vec<i8>,
    measure: Vec<f64>,
    measure_offd: Vec<f64>,
    graph: Vec<u32>,
    graph_offd: Vec<u32>,
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
    let offd_counts: Vec<Vec<f64>> = s
        .par_iter()
        .zip(comms)
        .map(|(s, c)| {
            let mut n = vec![0.0f64; c.from.len()];
            for &k in &s.offd.indices {
                n[k as usize] += 1.0;
            }
            n
        })
        .collect();
    let mut ranks: Vec<Rank> = (s.par_iter().zip(comms).enumerate())
        .map(|(r, (sl, c))| {
            let n = sl.diag.rows();
            let m = c.from.len();
            let mut measure = vec![0.0f64; n];
            for &j in &sl.diag.indices {
                measure[j as usize] += 1.0;
            }
            for slot in &c.sends {
                measure[slot.row as usize] += offd_counts[slot.to as usize][slot.at as usize];
            }
            let mut g = HypreRand::new(2747 + r as i64);
            for x in measure.iter_mut() {
                *x += g.next_unit();
            }
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
                cf,
                cf_offd: vec![0; m],
                measure,
                measure_offd: vec![0.0; m],
                graph,
                graph_offd: (0..m as u32).collect(),
                out_d: vec![false; sl.diag.indices.len()],
                out_o: vec![false; sl.offd.indices.len()],
                ext_ptr,
                ext,
            }
        })
        .collect();
    drop(offd_counts);
    loop {
        // The neighbours' decrements of this rank's measures come back.
        let back: Vec<Vec<f64>> = (comms.par_iter())
            .map(|c| {
                (c.sends.iter())
                    .map(|sl| ranks[sl.to as usize].measure_offd[sl.at as usize])
                    .collect()
            })
            .collect();
        (ranks.par_iter_mut().zip(s).zip(comms).zip(back)).for_each(|(((k, sl), c), back)| {
            for (t, slot) in c.sends.iter().enumerate() {
                k.measure[slot.row as usize] += back[t];
            }
            // Points of no influence left, all their dependencies met:
            // F points; decided points leave the graph.
            let mut ig = 0;
            while ig < k.graph.len() {
                let i = k.graph[ig] as usize;
                if k.cf[i] != C_PT && k.measure[i] < 1.0 {
                    k.cf[i] = F_PT;
                    let (d, o) = (
                        sl.diag.indptr[i]..sl.diag.indptr[i + 1],
                        sl.offd.indptr[i]..sl.offd.indptr[i + 1],
                    );
                    if k.out_d[d].iter().any(|&x| !x) || k.out_o[o].iter().any(|&x| !x) {
                        k.cf[i] = 0;
                    }
                }
                if k.cf[i] != 0 {
                    k.measure[i] = 0.0;
                    k.graph.swap_remove(ig);
                } else {
                    ig += 1;
                }
            }
        });
        let got: Vec<Vec<f64>> = (comms.par_iter())
            .map(|c| {
                (c.from.iter())
                    .map(|&(o, slot)| {
                        let row = comms[o as usize].sends[slot as usize].row;
                        ranks[o as usize].measure[row as usize]
                    })
                    .collect()
            })
            .collect();
        for (k, g) in ranks.iter_mut().zip(got) {
            k.measure_offd = g;
        }
        if ranks.iter().all(|k| k.graph.is_empty()) {
            break;
        }
        // hypre_BoomerAMGIndepSet, then the neighbours' verdicts.
        ranks.par_iter_mut().zip(s).for_each(|(k, sl)| {
            for &i in &k.graph {
                if k.measure[i as usize] > 1.0 {
                    k.cf[i as usize] = 1;
                }
            }
            for &i in &k.graph_offd {
                if k.measure_offd[i as usize] > 1.0 {
                    k.cf_offd[i as usize] = 1;
                }
            }
            for &i in &k.graph {
                let i = i as usize;
                let mi = k.measure[i];
                if mi <= 1.0 {
                    continue;
                }
                for &j in sl.diag.row(i) {
                    let mj = k.measure[j as usize];
                    if mj > 1.0 {
                        if mi > mj {
                            k.cf[j as usize] = 0;
                        } else if mj > mi {
                            k.cf[i] = 0;
                        }
                    }
                }
                for &j in sl.offd.row(i) {
                    let mj = k.measure_offd[j as usize];
                    if mj > 1.0 {
                        if mi > mj {
                            k.cf_offd[j as usize] = 0;
                        } else if mj > mi {
                            k.cf[i] = 0;
                        }
                    }
                }
            }
        });
        let back: Vec<Vec<i8>> = (comms.par_iter())
            .map(|c| {
                (c.sends.iter())
                    .map(|sl| ranks[sl.to as usize].cf_offd[sl.at as usize])
                    .collect()
            })
            .collect();
        (ranks.par_iter_mut().zip(comms).zip(back)).for_each(|((k, c), back)| {
            for (t, slot) in c.sends.iter().enumerate() {
                if back[t] == 0 && k.cf[slot.row as usize] > 0 {
                    k.cf[slot.row as usize] = 0;
                }
            }
        });
        let got: Vec<Vec<i8>> = (comms.par_iter())
            .map(|c| {
                (c.from.iter())
                    .map(|&(o, slot)| {
                        let row = comms[o as usize].sends[slot as usize].row;
                        ranks[o as usize].cf[row as usize]
                    })
                    .collect()
            })
            .collect();
        (ranks.par_iter_mut().zip(s).zip(got)).for_each(|((k, sl), got)| {
            k.cf_offd = got;
            let Rank {
                cf_offd,
                graph_offd,
                ..
            } = &mut *k;
            let mut ig = 0;
            while ig < graph_offd.len() {
                if cf_offd[graph_offd[ig] as usize] < 0 {
                    graph_offd.swap_remove(ig);
                } else {
                    ig += 1;
                }
            }
            k.measure_offd.iter_mut().for_each(|x| *x = 0.0);
            let graph = std::mem::take(&mut k.graph);
            for &i in &graph {
                update(k, sl, i as usize);
            }
            k.graph = graph;
        });
    }
    ranks.into_iter().map(|k| k.cf).collect()
}

/// The round's consequences for graph point `i`: a new C point satisfies
/// its dependencies; another point drops those on strong neighbours that
/// share a C point with it.
fn update(k: &mut Rank, sl: &LocalS, i: usize) {
    let (d0, o0) = (sl.diag.indptr[i], sl.offd.indptr[i]);
    let (di, oi) = (sl.diag.row(i), sl.offd.row(i));
    if k.cf[i] > 0 {
        k.cf[i] = C_PT;
        for (t, &j) in di.iter().enumerate() {
            if !k.out_d[d0 + t] {
                k.out_d[d0 + t] = true;
                if k.cf[j as usize] == 0 {
                    k.measure[j as usize] -= 1.0;
                }
            }
        }
        for (t, &j) in oi.iter().enumerate() {
            if !k.out_o[o0 + t] {
                k.out_o[o0 + t] = true;
                if k.cf_offd[j as usize] == 0 {
                    k.measure_offd[j as usize] -= 1.0;
                }
            }
        }
    } else {
        for (t, &j) in di.iter().enumerate() {
            let j = j as usize;
            if k.cf[j] > 0 {
                k.out_d[d0 + t] = true;
                k.cf[j] = COMMON_C_PT;
            } else if k.cf[j] == SF_PT {
                k.out_d[d0 + t] = true;
            }
        }
        for (t, &j) in oi.iter().enumerate() {
            let j = j as usize;
            if k.cf_offd[j] > 0 {
                k.out_o[o0 + t] = true;
                k.cf_offd[j] = COMMON_C_PT;
            } else if k.cf_offd[j] == SF_PT {
                k.out_o[o0 + t] = true;
            }
        }
        for (t, &j) in di.iter().enumerate() {
            if k.out_d[d0 + t] {
                continue;
            }
            let j = j as usize;
            let shares = sl
                .diag
                .row(j)
                .iter()
                .any(|&x| k.cf[x as usize] == COMMON_C_PT)
                || sl
                    .offd
                    .row(j)
                    .iter()
                    .any(|&x| k.cf_offd[x as usize] == COMMON_C_PT);
            if shares {
                k.out_d[d0 + t] = true;
                k.measure[j] -= 1.0;
            }
        }
        for (t, &j) in oi.iter().enumerate() {
            if k.out_o[o0 + t] {
                continue;
            }
            let j = j as usize;
            let shares = k.ext[k.ext_ptr[j]..k.ext_ptr[j + 1]].iter().any(|&x| {
                if x >= 0 {
                    k.cf[x as usize] == COMMON_C_PT
                } else {
                    k.cf_offd[(-x - 1) as usize] == COMMON_C_PT
                }
            });
            if shares {
                k.out_o[o0 + t] = true;
                k.measure_offd[j] -= 1.0;
            }
        }
    }
    for &j in di {
        if k.cf[j as usize] == COMMON_C_PT {
            k.cf[j as usize] = C_PT;
        }
    }
    for &j in oi {
        if k.cf_offd[j as usize] == COMMON_C_PT {
            k.cf_offd[j as usize] = C_PT;
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
