//! `hypre_BoomerAMGCoarsenPMISHost` (par_coarsen.c) over the ranks, as
//! hypre runs it: the measures `|S^T_i|` summed over the ranks plus
//! `hypre_Rand()` seeded `2747 + rank` (par_indepset.c,
//! utilities/random.c), and every exchange of `CF_marker` through the
//! communication package's slots in hypre's order, so that a rank's view
//! of its neighbours' points is the one hypre's ranks have.

use rayon::prelude::*;

use super::parcsr::Comm;
use super::strength::LocalS;
use super::{C_PT, F_PT, SF_PT, UNDECIDED, Z_PT};

/// hypre's `hypre_Rand`: Park and Miller's minimal standard generator
/// (16807 x mod 2^31 - 1 by Schrage's method), `hypre_RandI() / m`.
pub(crate) struct HypreRand {
    seed: i32,
}

impl HypreRand {
    const A: i32 = 16807;
    const M: i32 = 2_147_483_647;
    const Q: i32 = 127_773;
    const R: i32 = 2836;

    /// `hypre_SeedRand`: clamped to `[1, m - 1]`.
    pub fn new(seed: i64) -> HypreRand {
        let seed = seed.clamp(1, (Self::M - 1) as i64) as i32;
        HypreRand { seed }
    }

    pub fn next_int(&mut self) -> i32 {
        let high = self.seed / Self::Q;
        let low = self.seed % Self::Q;
        let test = Self::A * low - Self::R * high;
        self.seed = if test > 0 { test } else { test + Self::M };
        self.seed
    }

    pub fn next_unit(&mut self) -> f64 {
        self.next_int() as f64 / Self::M as f64
    }
}

/// One rank's state in PMIS.
struct Rank {
    cf: Vec<i8>,
    cf_offd: Vec<i8>,
    measure: Vec<f64>,
    measure_offd: Vec<f64>,
    graph: Vec<u32>,
    graph_offd: Vec<u32>,
    /// The values this rank's send slots carry (hypre's `int_buf_data`).
    buf: Vec<i8>,
}

/// PMIS over the ranks. `first`: each rank's first pass (`CF_init = 1`:
/// its F points, and its points coupled to other ranks, are undecided
/// again; its C points stay), or none (`CF_init = 0`).
pub(crate) fn pmis(s: &[LocalS], comms: &[Comm], first: Option<Vec<Vec<i8>>>) -> Vec<Vec<i8>> {
    let init = first.is_some();
    // Column counts of S_offd, sent to the owners.
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
    let mut firsts = first.unwrap_or_default();
    firsts.resize(s.len(), Vec::new());
    let mut ranks: Vec<Rank> = s
        .par_iter()
        .zip(comms)
        .zip(firsts)
        .enumerate()
        .map(|(r, ((s, c), first))| {
            let n = s.diag.rows();
            let mut measure = vec![0.0f64; n];
            for &j in &s.diag.indices {
                measure[j as usize] += 1.0;
            }
            for slot in &c.sends {
                measure[slot.row as usize] += offd_counts[slot.to as usize][slot.at as usize];
            }
            let mut g = HypreRand::new(2747 + r as i64);
            for m in measure.iter_mut() {
                *m += g.next_unit();
            }
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
            let m = c.from.len();
            Rank {
                cf,
                cf_offd: vec![UNDECIDED; m],
                measure,
                measure_offd: vec![0.0; m],
                graph,
                graph_offd: (0..m as u32).collect(),
                buf: vec![0; c.sends.len()],
            }
        })
        .collect();
    drop(offd_counts);
    // The complete measures go to the neighbours.
    let measures: Vec<Vec<f64>> = comms
        .par_iter()
        .map(|c| {
            c.from
                .iter()
                .map(|&(o, slot)| {
                    let row = comms[o as usize].sends[slot as usize].row;
                    ranks[o as usize].measure[row as usize]
                })
                .collect()
        })
        .collect();
    for (rank, m) in ranks.iter_mut().zip(measures) {
        rank.measure_offd = m;
    }
    let mut iter = 0;
    loop {
        if ranks.iter().all(|r| r.graph.is_empty()) {
            break;
        }
        if !init || iter > 0 {
            // The independent set: every point whose measure beats its
            // strong neighbours'.
            ranks.par_iter_mut().zip(s).for_each(|(k, s)| {
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
                    for &j in s.diag.row(i) {
                        let mj = k.measure[j as usize];
                        if mj > 1.0 {
                            if mi > mj {
                                k.cf[j as usize] = 0;
                            } else if mj > mi {
                                k.cf[i] = 0;
                            }
                        }
                    }
                    for &j in s.offd.row(i) {
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
            // The neighbours' verdicts on this rank's points come back
            // (hypre's exchange 12); a point some neighbour took out
            // leaves the set, in slot order: a slot filled before a later
            // neighbour took the point out still carries 1.
            let back: Vec<Vec<i8>> = comms
                .par_iter()
                .map(|c| {
                    (c.sends.iter())
                        .map(|sl| ranks[sl.to as usize].cf_offd[sl.at as usize])
                        .collect()
                })
                .collect();
            ranks
                .par_iter_mut()
                .zip(comms)
                .zip(back)
                .for_each(|((k, c), back)| {
                    for (t, sl) in c.sends.iter().enumerate() {
                        let row = sl.row as usize;
                        if back[t] == 0 && k.cf[row] > 0 {
                            k.cf[row] = 0;
                            k.buf[t] = 0;
                        } else {
                            k.buf[t] = k.cf[row];
                        }
                    }
                });
            forward(&mut ranks, comms, |k| &k.buf);
        }
        iter += 1;
        // C points, and F points next to them.
        ranks.par_iter_mut().zip(s).for_each(|(k, s)| {
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
            for (t, sl) in c.sends.iter().enumerate() {
                k.buf[t] = k.cf[sl.row as usize];
            }
        });
        forward(&mut ranks, comms, |k| &k.buf);
        // Decided points leave the graph, their measures to 0.
        ranks.par_iter_mut().for_each(|k| {
            let Rank {
                cf,
                cf_offd,
                measure,
                measure_offd,
                graph,
                graph_offd,
                ..
            } = k;
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
    ranks.into_iter().map(|k| k.cf).collect()
}

/// hypre's exchange 11: each rank's offd markers become what their
/// owners' slots carry.
fn forward(ranks: &mut [Rank], comms: &[Comm], buf: impl Fn(&Rank) -> &Vec<i8> + Sync) {
    let got: Vec<Vec<i8>> = comms
        .par_iter()
        .map(|c| {
            (c.from.iter())
                .map(|&(o, slot)| buf(&ranks[o as usize])[slot as usize])
                .collect()
        })
        .collect();
    for (k, g) in ranks.iter_mut().zip(got) {
        k.cf_offd = g;
    }
}
