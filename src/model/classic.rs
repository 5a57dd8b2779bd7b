//! The classic point-to-point models beside EuroMPI'18's, as formulas over
//! their own parameters (any consistent time unit: seconds, cycles, us).
//!
//! - LogGP (Alexandrov, Ionescu, Schauser and Scheiman, SPAA 1995).
//! - LoPC / LoGPC (Frank, Agarwal and Vernon, PPoPP 1997; Moritz and
//!   Frank, IEEE TPDS 12(7), 2001), with Agarwal's contention model for
//!   wormhole-routed k-ary n-cubes (IEEE TPDS 2(4), 1991).
//! - log3P (Cameron, Ge and Sun, IEEE TC 56(3), 2007).
//! - Copy-transfer (Stricker and Gross, ISCA 1995).

use serde::Deserialize;

/// LogGP's parameters live with the machine's ([`crate::machine::Params`]).
pub use crate::machine::LogGP;

/// Agarwal's contention delay per message in an `n`-dimensional
/// wormhole-routed network: `C_n = (n+1)(k_d-1) (m B^2 / 2) / (1 - m B k_d / 2)`
/// for mean distance `k_d` per dimension, message size `B` (flits) and
/// per-node message rate `m`. Infinite when the channels saturate.
pub fn contention_delay(n: f64, k_d: f64, b: f64, m: f64) -> f64 {
    let load = 1.0 - m * b * k_d / 2.0;
    if load <= 0.0 {
        return f64::INFINITY;
    }
    (n + 1.0) * (k_d - 1.0) * (m * b * b / 2.0) / load
}

/// LoGPC's closed loop: the rate `m_c = 1 / (T + C_n(m_c))` of a node
/// that spends `T` per message without contention. `m (T + C_n(m))`
/// increases with `m`, so bisection on `(0, min(1/T, 2/(B k_d)))` finds
/// the unique root. Returns `(m_c, C_n(m_c))`.
pub fn contended_rate(n: f64, k_d: f64, b: f64, t: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0, (1.0 / t).min(2.0 / (b * k_d)));
    for _ in 0..200 {
        let m = 0.5 * (lo + hi);
        if m * (t + contention_delay(n, k_d, b, m)) < 1.0 {
            lo = m;
        } else {
            hi = m;
        }
    }
    (lo, contention_delay(n, k_d, b, lo))
}

/// LoGPC's upper bound `F` of the contention ratio (Moritz and Frank,
/// sec. 4): the root above `k_d / 2` of `(F - 2G)(2F - k_d) = (n+1)(k_d-1)`.
pub fn contention_ratio_bound(n: f64, k_d: f64, g: f64) -> f64 {
    // 2F^2 - (k_d + 4G) F + 2 G k_d - (n+1)(k_d-1) = 0.
    let b = k_d + 4.0 * g;
    let c = 2.0 * g * k_d - (n + 1.0) * (k_d - 1.0);
    (b + (b * b - 8.0 * c).sqrt()) / 4.0
}

/// Synchronous request-reply times (Moritz and Frank, Table 2):
/// LogP `2 (o_s + L + o_r)`; LoPC adds the handler contention
/// `C_r = o_s + o_r`; LoGPC adds the network contention `2 C_n`.
pub fn request_reply(l: f64, o_s: f64, o_r: f64, c_n: f64) -> [f64; 3] {
    let logp = 2.0 * (o_s + l + o_r);
    let lopc = logp + o_s + o_r;
    [logp, lopc, lopc + 2.0 * c_n]
}

/// log3P (Cameron, Ge and Sun): middleware overhead `o_mw`, the extra
/// middleware cost of non-contiguous data `l_mw`, network overhead `o_net`
/// and the memory copy `t_mem` of a send to self, each at one message size.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Log3PPoint {
    /// Message size.
    pub bytes: f64,
    /// Stride of the non-contiguous data.
    pub stride: f64,
    /// Middleware overhead.
    pub o_mw: f64,
    /// Middleware cost of non-contiguous data.
    pub l_mw: f64,
    /// Network overhead.
    pub o_net: f64,
    /// Memory copy of a send to self.
    pub t_mem: f64,
}

impl Log3PPoint {
    /// Remote transfer `T01 = o_mw + l_mw + o_net`.
    pub fn remote(&self) -> f64 {
        self.o_mw + self.l_mw + self.o_net
    }

    /// Send to self `T00 = o_mw + l_mw + t_mem`.
    pub fn to_self(&self) -> f64 {
        self.o_mw + self.l_mw + self.t_mem
    }
}

/// Where `x` falls on the increasing `grid`, for interpolation linear in
/// `log x`: the index `k` of the grid point below and the weight of point
/// `k + 1`; clamped to the first or last point (weight 0) outside.
pub fn log_bracket(grid: &[f64], x: f64) -> (usize, f64) {
    let k = grid.partition_point(|&g| g <= x);
    if k == 0 {
        (0, 0.0)
    } else if k == grid.len() {
        (k - 1, 0.0)
    } else {
        let (a, b) = (grid[k - 1], grid[k]);
        (k - 1, (x.ln() - a.ln()) / (b.ln() - a.ln()))
    }
}

/// A log3P table over message sizes, interpolated linearly in `log s`
/// (clamped at the ends).
pub fn log3p_at(table: &[Log3PPoint], bytes: f64) -> Log3PPoint {
    let mut t: Vec<Log3PPoint> = table.to_vec();
    t.sort_by(|a, b| a.bytes.total_cmp(&b.bytes));
    let sizes: Vec<f64> = t.iter().map(|p| p.bytes).collect();
    let (k, w) = log_bracket(&sizes, bytes);
    if w == 0.0 {
        return t[k];
    }
    let (a, b) = (t[k], t[k + 1]);
    let mix = |x: f64, y: f64| x + w * (y - x);
    Log3PPoint {
        bytes,
        stride: mix(a.stride, b.stride),
        o_mw: mix(a.o_mw, b.o_mw),
        l_mw: mix(a.l_mw, b.l_mw),
        o_net: mix(a.o_net, b.o_net),
        t_mem: mix(a.t_mem, b.t_mem),
    }
}

/// Copy-transfer: a sequence of basic transfers at throughputs `|X|`,
/// `|Y|`, ... runs at `1/|Z| = 1/|X| + 1/|Y| + ...`.
pub fn sequential(rates: &[f64]) -> f64 {
    1.0 / rates.iter().map(|r| 1.0 / r).sum::<f64>()
}

/// Transfers that overlap (pipelined) run at the slowest one's rate.
pub fn parallel(rates: &[f64]) -> f64 {
    rates.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Buffer packing `xQy = xC1 . (1S0 || N || 0D1) . 1Cy`: gather into a
/// contiguous buffer, send it, scatter it.
pub fn buffer_packing(x_c_1: f64, s_1: f64, network: f64, d_1: f64, c_1_y: f64) -> f64 {
    sequential(&[x_c_1, parallel(&[s_1, network, d_1]), c_1_y])
}

/// Chained transfer `xQ'y = xS0 || N || 0Dy`: the network interface sends
/// straight from the strided source and deposits into the strided target.
pub fn chained(s_x: f64, network: f64, d_y: f64) -> f64 {
    parallel(&[s_x, network, d_y])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loggp_from_postal_keeps_a_message_s_cost() {
        let p = LogGP::from_postal(3.0e-6, 2.9e9);
        let s = 16384.0;
        assert!((p.message(s) - (3.0e-6 + (s - 1.0) / 2.9e9)).abs() < 1e-18);
    }

    #[test]
    fn contended_rate_is_a_fixed_point() {
        let (m, c) = contended_rate(3.0, 4.0, 8.0, 100.0);
        assert!((m * (100.0 + c) - 1.0).abs() < 1e-12);
        assert!((c - contention_delay(3.0, 4.0, 8.0, m)).abs() < 1e-12);
        // No distance, no contention.
        assert_eq!(contention_delay(3.0, 1.0, 8.0, 0.01), 0.0);
    }

    #[test]
    fn log3p_interpolates_in_log_size() {
        let p = |bytes, o_mw| Log3PPoint {
            bytes,
            stride: 1.0,
            o_mw,
            l_mw: 0.0,
            o_net: 0.0,
            t_mem: 0.0,
        };
        let t = [p(1024.0, 10.0), p(4096.0, 30.0)];
        // 2048 is halfway in log2 between 1024 and 4096.
        assert!((log3p_at(&t, 2048.0).o_mw - 20.0).abs() < 1e-12);
        assert_eq!(log3p_at(&t, 10.0).o_mw, 10.0);
        assert_eq!(log3p_at(&t, 1e9).o_mw, 30.0);
    }

    #[test]
    fn copy_transfer_compositions() {
        assert!((sequential(&[2.0, 2.0]) - 1.0).abs() < 1e-15);
        assert_eq!(parallel(&[3.0, 1.0, 2.0]), 1.0);
    }
}
