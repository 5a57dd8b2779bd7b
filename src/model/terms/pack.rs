//! `pack`: log3P's middleware cost of non-contiguous data (`l_mw`,
//! Cameron, Ge and Sun 2007) as a term. Every spmv and spgemm message
//! records its real access pattern, the contiguous runs of the sender's
//! local rows it gathers; a message of `k > 1` runs costs the machine's
//! `pack_table` at its size and runs, or without one `k * pack_per_run +
//! bytes / pack_rate`. The slowest sending rank's sum.

use super::{Charge, Slot, Term};
use crate::comm::Pattern;
use crate::machine::{Machine, PackTable};
use crate::model::senders::slowest_sender;
use crate::model::{classic, Exchange};

/// The pack term.
pub static TERM: Term = Term {
    name: "pack",
    aliases: &[],
    about: "gathering non-contiguous send buffers, log3P's l_mw (machine's pack_table, \
            else pack_per_run and pack_rate)",
    slot: Slot::Extra,
    column: "pack",
    header: "pack",
    legend: "pack",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    Charge::seconds(pack(x.pattern, x.machine))
}

/// log3P's middleware cost of non-contiguous data (`l_mw`) as a term: a
/// message gathered from `k > 1` runs of the sender's local data costs
/// the machine's `pack_table` at its size and runs ([`pack_at`]), or
/// without one `k * pack_per_run + bytes / pack_rate`; a contiguous one
/// nothing. The slowest rank's sum.
fn pack(pat: &Pattern, m: &Machine) -> f64 {
    let p = &m.params;
    slowest_sender(pat, |run| {
        // From +0.0: a sender of contiguous messages only costs nothing
        // (f64's `sum` of nothing is -0.0).
        run.iter()
            .filter(|msg| msg.runs > 1)
            .map(|msg| {
                let (s, k) = (msg.bytes as f64, msg.runs as f64);
                match &p.pack_table {
                    Some(t) => pack_at(t, s, k),
                    None => k * p.pack_per_run + s / p.pack_rate,
                }
            })
            .fold(0.0, |sum, t| sum + t)
    })
}

/// A log3P table at `bytes` and `runs`: linear in `log s` and `log k`
/// between grid points (log3P interpolates its tables in `log s`), clamped
/// at the smallest size and at both ends of the runs, and growing in
/// proportion to `s` beyond the largest size (a gather is bandwidth-bound
/// there).
pub fn pack_at(t: &PackTable, bytes: f64, runs: f64) -> f64 {
    let last = t.bytes[t.bytes.len() - 1];
    let scale = (bytes / last).max(1.0);
    let (i, u) = classic::log_bracket(&t.bytes, bytes.min(last));
    let (j, v) = classic::log_bracket(&t.runs, runs);
    let i1 = (i + 1).min(t.bytes.len() - 1);
    let j1 = (j + 1).min(t.runs.len() - 1);
    let row = |i: usize| t.seconds[i][j] + v * (t.seconds[i][j1] - t.seconds[i][j]);
    scale * (row(i) + u * (row(i1) - row(i)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_util::{charge, close, msg};

    #[test]
    fn pack_by_hand() {
        let m = Machine::bluewaters();
        let mut a = msg(0, 1, 800);
        a.runs = 3;
        let mut b = msg(0, 2, 80);
        b.runs = 2;
        let c = msg(1, 0, 8000); // contiguous: free
                                 // Rank 0: 3 runs + 800 B, 2 runs + 80 B; 100 ns a run, 6.2 GB/s.
        let want = 5.0 * 1.0e-7 + 880.0 / 6.2e9;
        assert!(close(charge("pack", vec![a, b, c], &m).total, want));
    }

    #[test]
    fn pack_table_by_hand() {
        let mut m = Machine::bluewaters();
        let t = PackTable {
            bytes: vec![1024.0, 4096.0],
            runs: vec![2.0, 8.0],
            seconds: vec![vec![1e-6, 3e-6], vec![5e-6, 9e-6]],
            source: String::new(),
        };
        assert!(close(pack_at(&t, 1024.0, 2.0), 1e-6));
        assert!(close(pack_at(&t, 4096.0, 2.0), 5e-6));
        // Halfway in log s and in log k: the mean of the four corners.
        assert!(close(pack_at(&t, 2048.0, 4.0), 4.5e-6));
        // Clamped below the smallest size and beyond the most runs.
        assert!(close(pack_at(&t, 100.0, 100.0), 3e-6));
        // Twice the largest size costs twice as much.
        assert!(close(pack_at(&t, 8192.0, 8.0), 18e-6));
        m.params.pack_table = Some(t);
        let mut a = msg(0, 1, 2048);
        a.runs = 4;
        let mut b = msg(0, 2, 4096);
        b.runs = 2;
        let c = charge("pack", vec![a, b, msg(1, 0, 4096)], &m);
        assert!(close(c.total, 4.5e-6 + 5e-6));
    }
}
