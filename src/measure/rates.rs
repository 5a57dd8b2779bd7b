//! The ping-pong fits of `amgcomm calibrate`: the protocol thresholds
//! (from flags, or the breaks common to every curve) and each locality's
//! `alpha` and `R_b` per protocol range (EuroMPI'18 Table 1), a
//! least-squares line per range.

use super::fit::{self, Line};
use super::samples::{Experiment, Sample};
use crate::machine::{Fit, Locality, Protocol, Rate, PROTOCOLS};

/// Rates are kept in the plausible range `Params::validate` checks.
pub(super) const RATES: (f64, f64) = (1e3, 1e15);

/// The ping-pong curve of `locality`: `(bytes, seconds)` by size.
pub(super) fn curve(samples: &[Sample], locality: Locality) -> Vec<(f64, f64)> {
    let mut c: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.experiment == Experiment::PingPong(locality))
        .map(|s| (s.bytes as f64, s.seconds))
        .collect();
    c.sort_by(|a, b| a.0.total_cmp(&b.0));
    c
}

/// A protocol range's points and their line.
type Range = (Vec<(f64, f64)>, Line);

/// One protocol range of one curve fitted to a line: an intercept at or
/// below zero is fixed at the curve's smallest time (the start-up no
/// message beats). Returns the line and what was changed.
fn postal(points: &[(f64, f64)], floor: f64) -> (Line, Option<String>) {
    let mut l = fit::line(points).unwrap_or_else(|| fit::line_with_intercept(points, points[0].1));
    let mut note = None;
    if l.alpha <= 0.0 {
        l = fit::line_with_intercept(points, floor);
        note = Some(format!(
            "intercept fixed at the smallest time measured, {floor:.3e} s"
        ));
    }
    (l, note)
}

/// The `[eager, rendezvous]` thresholds: `given` by flags, or the breaks
/// common to every curve (four sizes at least per range); each recorded
/// in `fits`, a doubtful second break warned of. `Err`: the shortest
/// curve's length, too short for three ranges.
pub(super) fn thresholds(
    curves: &[(Locality, Vec<(f64, f64)>)],
    given: Option<[u64; 2]>,
    fits: &mut Vec<Fit>,
    notes: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> Result<[u64; 2], usize> {
    match given {
        Some(t) => {
            fits.push(Fit {
                parameter: "thresholds".into(),
                method: "from --eager-threshold and --rendezvous-threshold".into(),
                value: None,
                alpha: None,
                rate: None,
                r2: None,
                rel_err: None,
                points: 0,
                bytes: Some(t),
            });
            Ok(t)
        }
        None => {
            let refs: Vec<&[(f64, f64)]> = curves.iter().map(|(_, c)| c.as_slice()).collect();
            let len = refs.iter().map(|c| c.len()).min().unwrap_or(0);
            // Four sizes at least per range: over three, noise can pass
            // for a protocol.
            let (i, j, three) = fit::breaks(&refs, 4).ok_or(len)?;
            let t = [refs[0][i].0 as u64, refs[0][j].0 as u64];
            // Whether the data show both breaks: the second must lower the
            // residuals of one break by a quarter at least.
            if let Some((k, two)) = fit::one_break(&refs, 4) {
                if three > 0.75 * two {
                    let w = format!(
                        "thresholds: the curves show one clear break, at {} B; the other ({} B) lowers the residuals by only {:.0}%: give --eager-threshold and --rendezvous-threshold if your MPI documents them",
                        refs[0][k].0,
                        if k == i { t[1] } else { t[0] },
                        100.0 * (1.0 - three / two.max(f64::MIN_POSITIVE))
                    );
                    warnings.push(w.clone());
                    notes.push(w);
                }
            }
            fits.push(Fit {
                parameter: "thresholds".into(),
                method: "breaks of the ping-pong curves: smallest eager and rendezvous sizes"
                    .into(),
                value: None,
                alpha: None,
                rate: None,
                r2: None,
                rel_err: None,
                points: len,
                bytes: Some(t),
            });
            Ok(t)
        }
    }
}

/// `locality`'s rates per protocol range (short, eager, rendezvous) from
/// its ping-pong curve `c`, cut at `thresholds`: a range whose slope is
/// noise borrows the per-byte time of its nearest range that shows one,
/// a range without sizes its nearest measured neighbour's line; each fit
/// recorded in `fits`, each borrowing in `notes`.
pub(super) fn locality_rates(
    locality: Locality,
    c: &[(f64, f64)],
    thresholds: [u64; 2],
    fits: &mut Vec<Fit>,
    notes: &mut Vec<String>,
) -> [Rate; 3] {
    let floor = c.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    // Per protocol: its points and line.
    let mut ranges: Vec<Option<Range>> = vec![None, None, None];
    for p in PROTOCOLS {
        let pts: Vec<(f64, f64)> = c
            .iter()
            .copied()
            .filter(|&(s, _)| Protocol::by_thresholds(s as u64, thresholds) == p)
            .collect();
        if pts.is_empty() {
            continue;
        }
        let (line, note) = postal(&pts, floor);
        if let Some(n) = note {
            notes.push(format!("{}.{}: {n}", locality.default_name(), p.name()));
        }
        ranges[p as usize] = Some((pts, line));
    }
    // A slope within twice its standard error is noise: the range
    // takes the per-byte time of the nearest range that shows one
    // (the larger on a tie), its alpha refitted with it.
    let shown = |k: usize| {
        ranges[k]
            .as_ref()
            .is_some_and(|(_, l)| l.slope_significant && l.per_byte > 0.0)
    };
    let mut measured: [Option<Rate>; 3] = [None; 3];
    for k in 0..3 {
        let Some((pts, line)) = &ranges[k] else {
            continue;
        };
        let name = format!("{}.{}", locality.default_name(), PROTOCOLS[k].name());
        let (mut alpha, mut per_byte) = (line.alpha, line.per_byte);
        if !shown(k) {
            let donor = [k + 1, k.wrapping_sub(1), k + 2, k.wrapping_sub(2)]
                .into_iter()
                .find(|&q| q < 3 && shown(q));
            per_byte = match donor {
                Some(q) => {
                    let b = ranges[q].as_ref().expect("shown").1.per_byte;
                    notes.push(format!(
                        "{name}: no per-byte cost visible over {}-{} B; the {} range's R_b is used",
                        pts[0].0,
                        pts[pts.len() - 1].0,
                        PROTOCOLS[q].name()
                    ));
                    b
                }
                None => {
                    notes.push(format!(
                        "{name}: no per-byte cost visible; R_b set so the largest message adds 1% to alpha"
                    ));
                    0.01 * line.alpha.max(floor) / pts[pts.len() - 1].0.max(1.0)
                }
            };
            alpha = fit::intercept_with_slope(pts, per_byte);
            if alpha <= 0.0 {
                alpha = floor;
            }
        }
        let rate = Rate {
            alpha: alpha.clamp(1e-9, 1.0),
            rate: (1.0 / per_byte).clamp(RATES.0, RATES.1),
        };
        fits.push(Fit {
            parameter: name,
            method: "least squares of alpha + s / R_b in relative error".into(),
            value: None,
            alpha: Some(rate.alpha),
            rate: Some(rate.rate),
            r2: Some(line.r2),
            rel_err: Some(line.rel_err),
            points: line.points,
            bytes: Some([pts[0].0 as u64, pts[pts.len() - 1].0 as u64]),
        });
        measured[k] = Some(rate);
    }
    // A range without sizes (thresholds beyond --max-bytes) takes its
    // nearest measured neighbour's line.
    for k in 0..3 {
        if measured[k].is_none() {
            let near = (0..3)
                .filter(|&q| measured[q].is_some())
                .min_by_key(|&q| q.abs_diff(k));
            if let Some(q) = near {
                measured[k] = measured[q];
                notes.push(format!(
                    "{}.{}: no size measured in its range; the {} line is used",
                    locality.default_name(),
                    PROTOCOLS[k].name(),
                    PROTOCOLS[q].name()
                ));
            }
        }
    }
    measured.map(|r| r.expect("at least one range has sizes"))
}
