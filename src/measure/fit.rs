//! The fits `amgcomm calibrate` makes of its measurements: the postal
//! line `alpha + s / R_b` per protocol range (least squares in relative
//! error, with R^2), the protocol thresholds from the breaks of the
//! curve, the injection limit `R_N` (EuroMPI'18 eq. 2), the queue-search
//! constant `gamma` (eq. 3) and the contention constant `delta` (eqs. 5-7).

use serde::{Deserialize, Serialize};

/// A line `t = alpha + per_byte * s` fitted to measured points.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// Intercept: the start-up time `alpha` (s).
    pub alpha: f64,
    /// Slope: seconds per byte, `1 / R_b`.
    pub per_byte: f64,
    /// `1 - SS_res / SS_tot` of the times in the range (1 when the times
    /// do not vary).
    pub r2: f64,
    /// Root mean square of the relative residuals `(t_fit - t) / t`.
    pub rel_err: f64,
    /// Points fitted.
    pub points: usize,
    /// Whether the slope is at least twice its standard error: whether
    /// the data show a per-byte cost at all (over a few small sizes the
    /// noise decides the slope).
    pub slope_significant: bool,
}

/// Weighted least squares of `t = a + b s` with weights `1 / t^2`: each
/// point counts by its relative error, so the microsecond latencies of
/// small messages weigh as much as the milliseconds of large ones. `None`
/// for fewer than two distinct sizes.
pub fn line(points: &[(f64, f64)]) -> Option<Line> {
    let (mut sw, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(s, t) in points {
        let w = 1.0 / (t * t).max(f64::MIN_POSITIVE);
        sw += w;
        sx += w * s;
        sy += w * t;
        sxx += w * s * s;
        sxy += w * s * t;
    }
    let det = sw * sxx - sx * sx;
    if points.len() < 2 || det.abs() <= f64::EPSILON * sw * sxx {
        return None;
    }
    let b = (sw * sxy - sx * sy) / det;
    let a = (sy - b * sx) / sw;
    Some(quality(points, a, b))
}

/// `t = a + b s` with `a` fixed: the weighted slope alone.
pub fn line_with_intercept(points: &[(f64, f64)], a: f64) -> Line {
    let (mut num, mut den) = (0.0, 0.0);
    for &(s, t) in points {
        let w = 1.0 / (t * t).max(f64::MIN_POSITIVE);
        num += w * s * (t - a);
        den += w * s * s;
    }
    let b = if den > 0.0 { num / den } else { 0.0 };
    quality(points, a, b)
}

/// The weighted intercept of `t = a + b s` for a given slope `b`: the
/// mean of `t - b s` with weights `1 / t^2`.
pub fn intercept_with_slope(points: &[(f64, f64)], b: f64) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for &(s, t) in points {
        let w = 1.0 / (t * t).max(f64::MIN_POSITIVE);
        num += w * (t - b * s);
        den += w;
    }
    num / den
}

fn quality(points: &[(f64, f64)], a: f64, b: f64) -> Line {
    let n = points.len() as f64;
    let mean = points.iter().map(|p| p.1).sum::<f64>() / n;
    let (mut res, mut tot, mut rel) = (0.0, 0.0, 0.0);
    // Weighted spread of the sizes, for the slope's standard error.
    let (mut sw, mut sx) = (0.0, 0.0);
    for &(s, t) in points {
        let e = a + b * s - t;
        res += e * e;
        tot += (t - mean) * (t - mean);
        rel += (e / t) * (e / t);
        let w = 1.0 / (t * t).max(f64::MIN_POSITIVE);
        sw += w;
        sx += w * s;
    }
    let xm = sx / sw.max(f64::MIN_POSITIVE);
    let sxx: f64 = points
        .iter()
        .map(|&(s, t)| (s - xm) * (s - xm) / (t * t).max(f64::MIN_POSITIVE))
        .sum();
    // The weighted residual variance is the relative one.
    let dof = (points.len() as f64 - 2.0).max(1.0);
    let se = (rel / dof / sxx.max(f64::MIN_POSITIVE)).sqrt();
    Line {
        alpha: a,
        per_byte: b,
        r2: if tot > 0.0 { 1.0 - res / tot } else { 1.0 },
        rel_err: (rel / n).sqrt(),
        points: points.len(),
        slope_significant: b > 2.0 * se,
    }
}

/// Weighted squared relative residuals of the best line through `points`.
fn cost(points: &[(f64, f64)]) -> f64 {
    line(points).map_or(f64::INFINITY, |l| l.rel_err * l.rel_err * l.points as f64)
}

/// The two breaks that split every curve into three protocol ranges
/// (short, eager, rendezvous), each fitted best by its own line: the
/// indices `(i, j)` into the common sizes, `0 < i < j < len`, with at
/// least `min_points` sizes in each range, minimising the summed squared
/// relative residuals over all curves (returned third). The curves share
/// the sizes (one schedule for every locality), so the thresholds are
/// common to all localities, as in the model's `Params`. `None` when the
/// curves are too short.
pub fn breaks(curves: &[&[(f64, f64)]], min_points: usize) -> Option<(usize, usize, f64)> {
    let len = curves.iter().map(|c| c.len()).min()?;
    let k = min_points.max(2);
    let mut best: Option<(f64, (usize, usize))> = None;
    for i in k..len.saturating_sub(2 * k) + 1 {
        for j in i + k..len.saturating_sub(k) + 1 {
            let c: f64 = curves
                .iter()
                .map(|p| cost(&p[..i]) + cost(&p[i..j]) + cost(&p[j..len]))
                .sum();
            if best.is_none_or(|(b, _)| c < b) {
                best = Some((c, (i, j)));
            }
        }
    }
    best.map(|(c, (i, j))| (i, j, c))
}

/// The best single break (two ranges), as [`breaks`]: its index and
/// residuals. Set beside [`breaks`]' residuals, it tells whether the data
/// show a second break at all.
pub fn one_break(curves: &[&[(f64, f64)]], min_points: usize) -> Option<(usize, f64)> {
    let len = curves.iter().map(|c| c.len()).min()?;
    let k = min_points.max(2);
    (k..len.saturating_sub(k) + 1)
        .map(|i| {
            let c: f64 = curves
                .iter()
                .map(|p| cost(&p[..i]) + cost(&p[i..len]))
                .sum();
            (i, c)
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// A single constant fitted through the origin, `y = c x` (least
/// squares), with its R^2 against `y`'s mean.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Proportional {
    /// The constant `c`.
    pub c: f64,
    /// `1 - SS_res / SS_tot`.
    pub r2: f64,
    /// Points fitted.
    pub points: usize,
}

/// `y = c x` by least squares; `None` when every `x` is zero.
pub fn proportional(points: &[(f64, f64)]) -> Option<Proportional> {
    let sxx: f64 = points.iter().map(|p| p.0 * p.0).sum();
    if points.is_empty() || sxx <= 0.0 {
        return None;
    }
    let c = points.iter().map(|p| p.0 * p.1).sum::<f64>() / sxx;
    let mean = points.iter().map(|p| p.1).sum::<f64>() / points.len() as f64;
    let res: f64 = points.iter().map(|p| (c * p.0 - p.1).powi(2)).sum();
    let tot: f64 = points.iter().map(|p| (p.1 - mean).powi(2)).sum();
    Some(Proportional {
        c,
        r2: if tot > 0.0 { 1.0 - res / tot } else { 1.0 },
        points: points.len(),
    })
}

/// The queue-search constant of eq. 3, `gamma n^2`: fitted through the
/// origin to the extra time of `n` messages whose receives were posted in
/// reversed tag order (each arriving message searches the posted queue to
/// its end) over the same messages posted in matching order (each finds
/// its receive first): `(n, reversed, matching)` seconds.
pub fn gamma(points: &[(f64, f64, f64)]) -> Option<Proportional> {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .map(|&(n, rev, fwd)| (n * n, rev - fwd))
        .collect();
    proportional(&xy)
}

/// The cost of a receive made one at a time (`recvserial`'s
/// `per_received`, RAPtor's blocking probe and receive), from `(n,
/// serial, posted)` seconds of `n` messages so received and of the same
/// messages into receives posted before they came.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SerialReceive {
    /// The median over the counts of the extra time a message,
    /// `(serial - posted) / n`: at large counts the sender outruns a
    /// serial receiver and the time grows faster, which a line through
    /// all the points would take for the cost of every message.
    pub per_message: f64,
    /// The share of pairs of counts whose extra time grows with the count
    /// (1 for a cost every message adds; about half, or less, for noise
    /// or a fixed extra), without [`SerialReceive::set_aside`]'s pairs.
    pub growing: f64,
    /// Counts used.
    pub points: usize,
    /// The count whose pairs are left out of `growing`, if any: where
    /// the extra time grows in under [`GROWING`] of all the pairs, of 5 or
    /// more counts the one most at odds with the others, set aside where
    /// the rest then grow in [`SET_ASIDE_GROWING`] of their pairs or more
    /// (one count's spike or dip on a shared machine turns a third of 6
    /// counts' pairs; noise seldom leaves the other 5 in order).
    pub set_aside: Option<f64>,
}

/// The share of pairs of counts the extra time must grow in for
/// `per_received` to be measured: a cost each message adds.
pub const GROWING: f64 = 0.75;

/// The share of pairs the counts but one must grow in for that one to be
/// set aside as an outlier ([`SerialReceive::set_aside`]): 9 of 5 counts'
/// 10 pairs, 14 of 6 counts' 15. The price, simulated: of 6 counts whose
/// extra times are noise alone about 0, 6.5% are measured (a small value,
/// noise's median), against 2.9% without setting any aside.
pub const SET_ASIDE_GROWING: f64 = 0.9;

/// Of `points`, the share of pairs of different counts (without the
/// point at `skip`) whose extra time `serial - posted` grows with the
/// count.
fn growing_share(points: &[(f64, f64, f64)], skip: Option<usize>) -> f64 {
    let extra = |p: &(f64, f64, f64)| p.1 - p.2;
    let (mut pairs, mut up) = (0usize, 0usize);
    for (i, a) in points.iter().enumerate() {
        for (j, b) in points.iter().enumerate().skip(i + 1) {
            if a.0 != b.0 && skip != Some(i) && skip != Some(j) {
                pairs += 1;
                up += usize::from((extra(b) - extra(a)) * (b.0 - a.0) > 0.0);
            }
        }
    }
    up as f64 / pairs.max(1) as f64
}

/// [`SerialReceive`] of `points`; `None` for fewer than two counts.
pub fn serial_receive(points: &[(f64, f64, f64)]) -> Option<SerialReceive> {
    if points.len() < 2 {
        return None;
    }
    let per: Vec<f64> = points.iter().map(|p| (p.1 - p.2) / p.0).collect();
    let mut growing = growing_share(points, None);
    let mut set_aside = None;
    if growing < GROWING && points.len() >= 5 {
        for k in 0..points.len() {
            let g = growing_share(points, Some(k));
            if g >= SET_ASIDE_GROWING && g > growing {
                (growing, set_aside) = (g, Some(points[k].0));
            }
        }
    }
    Some(SerialReceive {
        per_message: median(&per),
        growing,
        points: points.len(),
        set_aside,
    })
}

/// The injection limit `R_N` of eq. 2 from `a` ranks of one node each
/// sending `s` bytes to another node at once, `(a, s, seconds)`: the
/// model's time is `alpha + a s / min(R_N, a R_b)`, so each point's node
/// rate is `a s / (t - alpha)` (`a s / t` when noise puts `t` within
/// twice `alpha`), and `R_N` is the highest seen. Also returns whether it
/// saturated: whether the highest rate stays below 90% of what `a R_b`
/// would give at the most senders; if not, `R_N` is only a lower bound.
/// `None` without a usable point.
pub fn injection(points: &[(f64, f64, f64)], alpha: f64, rate: f64) -> Option<(f64, bool)> {
    let node_rate = |&(a, s, t): &(f64, f64, f64)| {
        let busy = if t > 2.0 * alpha { t - alpha } else { t };
        a * s / busy
    };
    let best = (points.iter())
        .filter(|p| p.2 > 0.0)
        .map(node_rate)
        .filter(|r| r.is_finite())
        .fold(f64::NAN, f64::max);
    let most = points.iter().map(|p| p.0).fold(f64::NAN, f64::max);
    if !best.is_finite() {
        return None;
    }
    Some((best, best < 0.9 * most * rate))
}

/// The median of `v` (the mean of the middle two for an even count);
/// NaN for none.
pub fn median(v: &[f64]) -> f64 {
    let mut s: Vec<f64> = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_through_exact_points_is_found() {
        // alpha 2 us, 1 GB/s.
        let pts: Vec<(f64, f64)> = [1.0, 100.0, 1e4, 1e6]
            .iter()
            .map(|&s| (s, 2e-6 + s / 1e9))
            .collect();
        let l = line(&pts).unwrap();
        assert!((l.alpha - 2e-6).abs() < 1e-18, "{l:?}");
        assert!((1.0 / l.per_byte - 1e9).abs() < 1e-3, "{l:?}");
        assert!((l.r2 - 1.0).abs() < 1e-12 && l.rel_err < 1e-12);
        assert_eq!(l.points, 4);
        assert!(l.slope_significant);
        assert!(line(&pts[..1]).is_none());
        assert!(line(&[(8.0, 1.0), (8.0, 2.0)]).is_none());
    }

    #[test]
    fn relative_weights_keep_the_latency_of_small_messages() {
        // 1 us + 1 ns per byte, the 1 MB message 5% slow. Unweighted least
        // squares (numpy's lstsq) puts alpha at 0.836 us, 16% low: the
        // large message decides. Weighted by 1/t^2 (numpy's normal
        // equations: 0.99769 us and 1.02574 ns per byte), alpha stays.
        let pts = [(0.0, 1e-6), (100.0, 1.1e-6), (1e4, 11e-6), (1e6, 1.05e-3)];
        let l = line(&pts).unwrap();
        assert!((l.alpha - 0.997692816e-6).abs() < 1e-15, "{l:?}");
        assert!((l.per_byte - 1.02573741e-9).abs() < 1e-17, "{l:?}");
    }

    #[test]
    fn noise_over_a_few_small_sizes_is_no_per_byte_cost() {
        // 1, 2 and 4 bytes at 171, 176 and 172 ns: the fitted slope is
        // positive, but no larger than its standard error.
        let l = line(&[(1.0, 171e-9), (2.0, 176e-9), (4.0, 172e-9)]).unwrap();
        assert!(l.per_byte > 0.0 && !l.slope_significant, "{l:?}");
        // 10 ns per byte over the same sizes, 1% noise: significant.
        let l = line(&[
            (1.0, 0.18e-6),
            (2.0, 0.19e-6),
            (4.0, 0.212e-6),
            (8.0, 0.25e-6),
        ])
        .unwrap();
        assert!(l.slope_significant, "{l:?}");
    }

    #[test]
    fn fixed_intercept_fits_the_slope() {
        let pts = [(1e3, 3e-6), (1e4, 12e-6)];
        let l = line_with_intercept(&pts, 2e-6);
        assert!((l.per_byte - 1e-9).abs() < 1e-21, "{l:?}");
    }

    #[test]
    fn breaks_are_where_the_protocols_change() {
        // Three regimes with a jump at 64 and at 4096 bytes.
        let sizes: Vec<f64> = (0..16).map(|k| 2f64.powi(k)).collect();
        let t = |s: f64| {
            if s < 64.0 {
                1e-6 + s / 1e9
            } else if s < 4096.0 {
                3e-6 + s / 2e9
            } else {
                8e-6 + s / 5e9
            }
        };
        let a: Vec<(f64, f64)> = sizes.iter().map(|&s| (s, t(s))).collect();
        let b: Vec<(f64, f64)> = sizes.iter().map(|&s| (s, 2.0 * t(s))).collect();
        let (i, j, three) = breaks(&[&a, &b], 3).unwrap();
        assert_eq!((sizes[i], sizes[j]), (64.0, 4096.0));
        assert!(three < 1e-20, "{three}");
        // One break leaves residuals: the second one is in the data.
        let (i, two) = one_break(&[&a, &b], 3).unwrap();
        assert!(two > 1e-4 && [64.0, 4096.0].contains(&sizes[i]), "{two}");
        // Too few sizes for three ranges of three.
        assert!(breaks(&[&a[..8]], 3).is_none());
    }

    #[test]
    fn gamma_is_the_quadratic_excess() {
        // 10 ns per posted receive searched: n^2/2 searches reversed.
        let pts: Vec<(f64, f64, f64)> = [64.0, 128.0, 256.0, 512.0]
            .iter()
            .map(|&n| (n, 1e-5 + 1e-7 * n + 5e-9 * n * n, 1e-5 + 1e-7 * n))
            .collect();
        let g = gamma(&pts).unwrap();
        assert!(
            (g.c - 5e-9).abs() < 1e-20 && (g.r2 - 1.0).abs() < 1e-12,
            "{g:?}"
        );
        assert!(proportional(&[(0.0, 1.0)]).is_none());
    }

    #[test]
    fn injection_takes_the_highest_node_rate() {
        // R_b 1 GB/s per rank, R_N 2.5 GB/s, alpha 1 us, 1 MB each.
        let (alpha, rb, rn, s): (f64, f64, f64, f64) = (1e-6, 1e9, 2.5e9, 1e6);
        let pts: Vec<(f64, f64, f64)> = [1.0, 2.0, 4.0, 8.0]
            .iter()
            .map(|&a: &f64| (a, s, alpha + a * s / rn.min(a * rb)))
            .collect();
        let (r, saturated) = injection(&pts, alpha, rb).unwrap();
        assert!((r - rn).abs() < 1.0 && saturated);
        // Never saturated: a lower bound.
        let (r, saturated) = injection(&pts[..2], alpha, rb).unwrap();
        assert!((r - 2e9).abs() < 1.0 && !saturated);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}
