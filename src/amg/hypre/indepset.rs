//! What PMIS and CLJP share (par_indepset.c): the measures
//! `|S^T_i|` summed over the ranks plus `hypre_Rand()` seeded
//! `2747 + rank` (`hypre_BoomerAMGIndepSetInit`), and the independent set
//! of the largest measures (`hypre_BoomerAMGIndepSet`).

use rayon::prelude::*;

use super::parcsr::{forward, Comm};
use super::strength::LocalS;
use crate::amg::raw::zeros;

/// hypre's `hypre_Rand` (utilities/random.c): Park and Miller's minimal
/// standard generator (16807 x mod 2^31 - 1 by Schrage's method),
/// `hypre_RandI() / m`.
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

/// Every rank's measures: `|S^T_i|`, the columns of `S_offd` counted by
/// the ranks that hold them and sent to the owners, plus `hypre_Rand()`
/// seeded `2747 + rank`.
pub(crate) fn measures(s: &[LocalS], comms: &[Comm]) -> Vec<Vec<f64>> {
    let offd_counts: Vec<Vec<f64>> = (s.par_iter().zip(comms))
        .map(|(s, c)| {
            let mut n = zeros::<f64>(c.from.len());
            for &k in &s.offd.indices {
                n[k as usize] += 1.0;
            }
            n
        })
        .collect();
    (s.par_iter().zip(comms).enumerate())
        .map(|(r, (s, c))| {
            let mut measure = zeros::<f64>(s.diag.rows());
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
            measure
        })
        .collect()
}

/// One rank's points in an independent-set coarsening: markers and
/// measures of its rows and of its offd columns, and those still in the
/// graph.
pub(crate) struct Points {
    pub cf: Vec<i8>,
    pub cf_offd: Vec<i8>,
    pub measure: Vec<f64>,
    pub measure_offd: Vec<f64>,
    pub graph: Vec<u32>,
    pub graph_offd: Vec<u32>,
}

impl Points {
    /// A rank's points before the first round: `cf` and `graph` as the
    /// coarsening sets them, every offd column undecided and in the graph.
    pub fn new(cf: Vec<i8>, measure: Vec<f64>, graph: Vec<u32>, offd: usize) -> Points {
        Points {
            cf,
            cf_offd: vec![0; offd],
            measure,
            measure_offd: vec![0.0; offd],
            graph,
            graph_offd: (0..offd as u32).collect(),
        }
    }

    /// [`indep_set`] on these points.
    pub fn indep_set(&mut self, s: &LocalS) {
        indep_set(
            &mut self.cf,
            &mut self.cf_offd,
            &self.measure,
            &self.measure_offd,
            &self.graph,
            &self.graph_offd,
            s,
        );
    }
}

/// `hypre_BoomerAMGIndepSet` on a rank: every graph point whose measure
/// beats its strong neighbours' (offd ones included) is marked 1, the
/// others 0; a neighbour's verdict on this rank's points comes back after.
pub(crate) fn indep_set(
    cf: &mut [i8],
    cf_offd: &mut [i8],
    measure: &[f64],
    measure_offd: &[f64],
    graph: &[u32],
    graph_offd: &[u32],
    s: &LocalS,
) {
    for &i in graph {
        if measure[i as usize] > 1.0 {
            cf[i as usize] = 1;
        }
    }
    for &i in graph_offd {
        if measure_offd[i as usize] > 1.0 {
            cf_offd[i as usize] = 1;
        }
    }
    for &i in graph {
        let i = i as usize;
        let mi = measure[i];
        if mi <= 1.0 {
            continue;
        }
        // A neighbour in the graph with a smaller measure leaves the set;
        // one with a larger measure takes this point out (after its
        // neighbours: no marker is read meanwhile). Without branches: the
        // measures are random, so a branch on them is mispredicted half
        // the time.
        let mut out = false;
        let mut meet = |mj: f64, theirs: &mut i8| {
            let big = mj > 1.0;
            *theirs &= -i8::from(!(big & (mi > mj)));
            out |= big & (mj > mi);
        };
        for &j in s.diag.row(i) {
            meet(measure[j as usize], &mut cf[j as usize]);
        }
        for &j in s.offd.row(i) {
            meet(measure_offd[j as usize], &mut cf_offd[j as usize]);
        }
        if out {
            cf[i] = 0;
        }
    }
}

/// Each rank's offd measures, from their owners' rows.
pub(crate) fn measures_offd<'a>(
    comms: &[Comm],
    measure: impl Fn(usize) -> &'a [f64] + Sync,
) -> Vec<Vec<f64>> {
    forward(comms, |o, slot| {
        let row = comms[o].sends[slot].row as usize;
        measure(o)[row]
    })
}
