//! `hypre_BoomerAMGCoarsenPMISHost` (par_coarsen.c) over the ranks, as
//! hypre runs it: the measures `|S^T_i|` summed over the ranks plus
//! `hypre_Rand()` seeded `2747 + rank` (par_indepset.c,
//! utilities/random.c), and every exchange of `CF_marker` through the
//! communication package's slots in hypre's order, so that a rank's view
//! of its neighbours' points is the one hypre's ranks have.

use rayon::prelude::*;

use super::indepset::{indep_set, measures, measures_offd};
use super::parcsr::Comm;
use super::strength::LocalS;
use super::{C_PT, F_PT, SF_PT, UNDECIDED, Z_PT};

/// What a rank holds of its own points in PMIS: their markers, measures
/// and those still in the graph; the values its send slots carry
/// (hypre's `int_buf_data`), and the slots whose point may still change
/// (all at first, then those of undecided points: a decided point's
/// marker, and so its slots and the neighbours' copies, stay as they
/// are).
struct Own {
    cf: Vec<i8>,
    measure: Vec<f64>,
    graph: Vec<u32>,
    buf: Vec<i8>,
    live: Vec<u32>,
}

/// What a rank holds of its offd points: its own copies of their markers
/// (its verdicts on them too) and measures, and those still in the graph.
/// Kept apart from [`Own`], so an exchange writes one side of every rank
/// while it reads the other side of its neighbours.
struct View {
    cf_offd: Vec<i8>,
    measure_offd: Vec<f64>,
    graph_offd: Vec<u32>,
}

/// PMIS over the ranks. `first`: each rank's first pass (`CF_init = 1`:
/// its F points, and its points coupled to other ranks, are undecided
/// again; its C points stay), or none (`CF_init = 0`).
pub(crate) fn pmis(s: &[LocalS], comms: &[Comm], first: Option<Vec<Vec<i8>>>) -> Vec<Vec<i8>> {
    let init = first.is_some();
    let mut firsts = first.unwrap_or_default();
    firsts.resize(s.len(), Vec::new());
    let mut own: Vec<Own> = (s.par_iter().zip(comms).zip(firsts).zip(measures(s, comms)))
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
            Own {
                cf,
                measure,
                graph,
                buf: vec![0; c.sends.len()],
                live: (0..c.sends.len() as u32).collect(),
            }
        })
        .collect();
    // The complete measures go to the neighbours; every offd point starts
    // undecided and in the graph.
    let mut views: Vec<View> = measures_offd(comms, |o| &own[o].measure)
        .into_par_iter()
        .map(|measure_offd| View {
            cf_offd: vec![0; measure_offd.len()],
            graph_offd: (0..measure_offd.len() as u32).collect(),
            measure_offd,
        })
        .collect();
    let mut iter = 0;
    loop {
        if own.iter().all(|k| k.graph.is_empty()) {
            break;
        }
        if !init || iter > 0 {
            (own.par_iter_mut().zip(&mut views).zip(s)).for_each(|((k, v), s)| {
                indep_set(
                    &mut k.cf,
                    &mut v.cf_offd,
                    &k.measure,
                    &v.measure_offd,
                    &k.graph,
                    &v.graph_offd,
                    s,
                )
            });
            // The neighbours' verdicts on this rank's points come back
            // (hypre's exchange 12); a point some neighbour took out
            // leaves the set, in slot order: a slot filled before a later
            // neighbour took the point out still carries 1.
            (own.par_iter_mut().zip(comms)).for_each(|(k, c)| {
                let Own { cf, buf, live, .. } = k;
                for &t in live.iter() {
                    let sl = c.sends[t as usize];
                    let back = views[sl.to as usize].cf_offd[sl.at as usize];
                    let row = sl.row as usize;
                    if back == 0 && cf[row] > 0 {
                        cf[row] = 0;
                        buf[t as usize] = 0;
                    } else {
                        buf[t as usize] = cf[row];
                    }
                }
            });
            send_buf(&own, &mut views, comms);
        }
        iter += 1;
        // C points, and F points next to them.
        (own.par_iter_mut().zip(&views).zip(s)).for_each(|((k, v), s)| {
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
                    if s.offd.row(i).iter().any(|&j| v.cf_offd[j as usize] > 0) {
                        k.cf[i] = F_PT;
                    }
                }
            }
        });
        own.par_iter_mut().zip(comms).for_each(|(k, c)| {
            for &t in &k.live {
                k.buf[t as usize] = k.cf[c.sends[t as usize].row as usize];
            }
        });
        send_buf(&own, &mut views, comms);
        // Decided points leave the graph, their measures to 0.
        (own.par_iter_mut().zip(&mut views).zip(comms)).for_each(|((k, v), c)| {
            let Own {
                cf,
                measure,
                graph,
                live,
                ..
            } = k;
            live.retain(|&t| cf[c.sends[t as usize].row as usize] == 0);
            leave_graph(graph, cf, measure);
            leave_graph(&mut v.graph_offd, &v.cf_offd, &mut v.measure_offd);
        });
    }
    own.into_iter().map(|k| k.cf).collect()
}

/// The decided points (marker not 0) leave `graph`, their measures set
/// to 0: a rank's own points and its offd points alike.
fn leave_graph(graph: &mut Vec<u32>, cf: &[i8], measure: &mut [f64]) {
    graph.retain(|&i| {
        let keep = cf[i as usize] == 0;
        if !keep {
            measure[i as usize] = 0.0;
        }
        keep
    });
}

/// hypre's exchange 11: each rank's offd markers become what their
/// owners' slots carry; those of decided points already are.
fn send_buf(own: &[Own], views: &mut [View], comms: &[Comm]) {
    (views.par_iter_mut().zip(comms)).for_each(|(v, c)| {
        for &j in &v.graph_offd {
            let (o, slot) = c.from[j as usize];
            v.cf_offd[j as usize] = own[o as usize].buf[slot as usize];
        }
    });
}
