//! `hypre_BoomerAMGCoarsenPMISHost` (par_coarsen.c) over the ranks, as
//! hypre runs it: the measures `|S^T_i|` summed over the ranks plus
//! `hypre_Rand()` seeded `2747 + rank` (par_indepset.c,
//! utilities/random.c), and every exchange of `CF_marker` through the
//! communication package's slots in hypre's order, so that a rank's view
//! of its neighbours' points is the one hypre's ranks have.

use rayon::prelude::*;

use super::indepset::{measures, measures_offd, Points};
use super::parcsr::Comm;
use super::strength::LocalS;
use super::{C_PT, F_PT, SF_PT, UNDECIDED, Z_PT};

/// One rank's state in PMIS.
struct Rank {
    p: Points,
    /// The values this rank's send slots carry (hypre's `int_buf_data`).
    buf: Vec<i8>,
    /// The send slots whose point may still change: all at first, then
    /// those of undecided points (a decided point's marker, and so its
    /// slots and the neighbours' copies, stay as they are).
    live: Vec<u32>,
}

/// PMIS over the ranks. `first`: each rank's first pass (`CF_init = 1`:
/// its F points, and its points coupled to other ranks, are undecided
/// again; its C points stay), or none (`CF_init = 0`).
pub(crate) fn pmis(s: &[LocalS], comms: &[Comm], first: Option<Vec<Vec<i8>>>) -> Vec<Vec<i8>> {
    let init = first.is_some();
    let mut firsts = first.unwrap_or_default();
    firsts.resize(s.len(), Vec::new());
    let mut ranks: Vec<Rank> = (s.par_iter().zip(comms).zip(firsts).zip(measures(s, comms)))
        .map(|(((s, c), first), mut measure)| {
            let n = s.diag.rows();
            let mut cf = if init { first } else { vec![UNDECIDED; n] };
            let mut graph = Vec::with_capacity(n);
            for i in 0..n {
                if init {
                    if cf[i] == SF_PT {
                        measure[i] = 0.0;
                        continue;
                    }
                    if s.offd.len(i) > 0 || cf[i] == F_PT {
                        cf[i] = UNDECIDED;
                    }
                    if cf[i] == Z_PT {
                        if measure[i] >= 1.0 || s.diag.len(i) > 0 {
                            cf[i] = UNDECIDED;
                            graph.push(i as u32);
                        } else {
                            cf[i] = F_PT;
                        }
                    } else {
                        graph.push(i as u32);
                    }
                } else {
                    cf[i] = UNDECIDED;
                    if s.len(i) == 0 {
                        cf[i] = SF_PT;
                        measure[i] = 0.0;
                    } else {
                        graph.push(i as u32);
                    }
                }
            }
            Rank {
                p: Points::new(cf, measure, graph, c.from.len()),
                buf: vec![0; c.sends.len()],
                live: (0..c.sends.len() as u32).collect(),
            }
        })
        .collect();
    // The complete measures go to the neighbours.
    let got = measures_offd(&ranks, comms, |k| &k.p);
    for (k, m) in ranks.iter_mut().zip(got) {
        k.p.measure_offd = m;
    }
    let mut iter = 0;
    loop {
        if ranks.iter().all(|r| r.p.graph.is_empty()) {
            break;
        }
        if !init || iter > 0 {
            ranks
                .par_iter_mut()
                .zip(s)
                .for_each(|(k, s)| k.p.indep_set(s));
            // The neighbours' verdicts on this rank's points come back
            // (hypre's exchange 12); a point some neighbour took out
            // leaves the set, in slot order: a slot filled before a later
            // neighbour took the point out still carries 1.
            let back: Vec<Vec<i8>> = (ranks.par_iter().zip(comms))
                .map(|(k, c)| {
                    (k.live.iter())
                        .map(|&t| {
                            let sl = c.sends[t as usize];
                            ranks[sl.to as usize].p.cf_offd[sl.at as usize]
                        })
                        .collect()
                })
                .collect();
            (ranks.par_iter_mut().zip(comms).zip(back)).for_each(|((k, c), back)| {
                for (&t, b) in k.live.iter().zip(back) {
                    let t = t as usize;
                    let row = c.sends[t].row as usize;
                    if b == 0 && k.p.cf[row] > 0 {
                        k.p.cf[row] = 0;
                        k.buf[t] = 0;
                    } else {
                        k.buf[t] = k.p.cf[row];
                    }
                }
            });
            send_buf(&mut ranks, comms);
        }
        iter += 1;
        // C points, and F points next to them.
        ranks.par_iter_mut().zip(s).for_each(|(k, s)| {
            let k = &mut k.p;
            for &i in &k.graph {
                let i = i as usize;
                if k.measure[i] < 1.0 {
                    k.cf[i] = F_PT;
                }
                if k.cf[i] > 0 {
                    k.cf[i] = C_PT;
                } else {
                    if s.diag.row(i).iter().any(|&j| k.cf[j as usize] > 0) {
                        k.cf[i] = F_PT;
                    }
                    if s.offd.row(i).iter().any(|&j| k.cf_offd[j as usize] > 0) {
                        k.cf[i] = F_PT;
                    }
                }
            }
        });
        ranks.par_iter_mut().zip(comms).for_each(|(k, c)| {
            for &t in &k.live {
                k.buf[t as usize] = k.p.cf[c.sends[t as usize].row as usize];
            }
        });
        send_buf(&mut ranks, comms);
        // Decided points leave the graph, their measures to 0.
        ranks.par_iter_mut().zip(comms).for_each(|(k, c)| {
            let cf = &k.p.cf;
            k.live
                .retain(|&t| cf[c.sends[t as usize].row as usize] == 0);
            let Points {
                cf,
                cf_offd,
                measure,
                measure_offd,
                graph,
                graph_offd,
            } = &mut k.p;
            graph.retain(|&i| {
                let keep = cf[i as usize] == 0;
                if !keep {
                    measure[i as usize] = 0.0;
                }
                keep
            });
            graph_offd.retain(|&i| {
                let keep = cf_offd[i as usize] == 0;
                if !keep {
                    measure_offd[i as usize] = 0.0;
                }
                keep
            });
        });
    }
    ranks.into_iter().map(|k| k.p.cf).collect()
}

/// hypre's exchange 11: each rank's offd markers become what their
/// owners' slots carry; those of decided points already are.
fn send_buf(ranks: &mut [Rank], comms: &[Comm]) {
    let got: Vec<Vec<i8>> = (ranks.par_iter().zip(comms))
        .map(|(k, c)| {
            (k.p.graph_offd.iter())
                .map(|&j| {
                    let (o, slot) = c.from[j as usize];
                    ranks[o as usize].buf[slot as usize]
                })
                .collect()
        })
        .collect();
    ranks.par_iter_mut().zip(got).for_each(|(k, g)| {
        for (&j, x) in k.p.graph_offd.iter().zip(g) {
            k.p.cf_offd[j as usize] = x;
        }
    });
}
