//! The fit of a machine's [`RowWork`] (the local work of an exchange of
//! matrix rows: terms `rowcopy`, `rowpack`, `recvserial`) to measured
//! exchanges, from a table of the project's own format
//! (`tests/data/presets/bluewaters_row_work.csv`, written by
//! `scripts/fit_row_work.sh` from RAPtor's benchmark_matops logs): per
//! level and strategy, the modeled network seconds, the three features
//! the terms multiply (most local nonzeros of a rank; most elements a
//! rank packs plus unpacks, summed over steps; most messages a rank
//! receives, summed over steps) and the measured seconds.
//!
//! Method: non-negative least squares of `measured - network = c . f` on
//! relative residuals (each level's residual divided by its measured
//! time, so a fine level's 30 ms and a coarse level's 0.2 ms weigh
//! alike), solved exactly over every subset of the three parameters (the
//! unconstrained solution of each subset, kept when non-negative; the
//! best such). A parameter the data drives to zero is reported as not
//! separable from the network terms, not forced.

use super::samples::{Experiment, Sample};
use crate::machine::Fit;
use crate::machine::RowWork;

pub use crate::model::fit_table::{modeled, read_table, Row, TableError};

/// The fitted parameters and how well they fit.
#[derive(Clone, Debug, PartialEq)]
pub struct RowFit {
    /// The parameters (zero where the data gives none).
    pub work: RowWork,
    /// Which parameters the data determines (non-zero in the fit).
    pub fitted: [bool; 3],
    /// Modeled over measured per row, with the fitted parameters.
    pub ratios: Vec<f64>,
}

impl RowFit {
    /// The model's demonstrated error on its training data: the median
    /// of `|log(modeled / measured)|`, as a factor (`1.36` = within 36%
    /// either way on half the exchanges).
    pub fn demonstrated_error(&self) -> f64 {
        let v: Vec<f64> = self.ratios.iter().map(|r| r.ln().abs()).collect();
        crate::measure::fit::median(&v).exp()
    }
}

/// Fits [`RowWork`] to `rows` (method in the module's docs).
pub fn fit(rows: &[Row]) -> RowFit {
    let mut best: Option<(f64, [f64; 3])> = None;
    for subset in 0u8..8 {
        let cols: Vec<usize> = (0..3).filter(|k| subset & (1 << k) != 0).collect();
        let Some(c) = solve(rows, &cols) else {
            continue;
        };
        if c.iter().any(|&x| x < 0.0) {
            continue;
        }
        let mut full = [0.0; 3];
        for (k, &i) in cols.iter().enumerate() {
            full[i] = c[k];
        }
        let sse = rows.iter().map(|r| residual(r, &full).powi(2)).sum::<f64>();
        if best.is_none_or(|(b, _)| sse < b) {
            best = Some((sse, full));
        }
    }
    let c = best.map_or([0.0; 3], |b| b.1);
    let mut f = RowFit {
        work: RowWork {
            copy_per_nonzero: c[0],
            per_element: c[1],
            per_received: c[2],
            error: 1.0,
        },
        fitted: c.map(|x| x > 0.0),
        ratios: rows.iter().map(|r| modeled(r, &c) / r.measured).collect(),
    };
    f.work.error = f.demonstrated_error();
    f
}

fn residual(r: &Row, c: &[f64; 3]) -> f64 {
    (modeled(r, c) - r.measured) / r.measured
}

/// The unconstrained least-squares solution on `cols` (normal equations
/// of the relative residuals, Gaussian elimination with pivoting).
fn solve(rows: &[Row], cols: &[usize]) -> Option<Vec<f64>> {
    let n = cols.len();
    let mut a = vec![vec![0.0; n + 1]; n];
    for r in rows {
        let w = 1.0 / r.measured;
        let y = (r.measured - r.network) * w;
        for i in 0..n {
            let xi = r.features[cols[i]] * w;
            for j in 0..n {
                a[i][j] += xi * r.features[cols[j]] * w;
            }
            a[i][n] += xi * y;
        }
    }
    for i in 0..n {
        let p = (i..n).max_by(|&x, &y| a[x][i].abs().total_cmp(&a[y][i].abs()))?;
        a.swap(i, p);
        if a[i][i].abs() < 1e-300 {
            return None;
        }
        for k in i + 1..n {
            let f = a[k][i] / a[i][i];
            for j in i..=n {
                a[k][j] -= f * a[i][j];
            }
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| a[i][j] * x[j]).sum();
        x[i] = (a[i][n] - s) / a[i][i];
    }
    Some(x)
}

/// The row-work terms `calibrate` measured: the machine's [`RowWork`],
/// each measured value's [`Fit`], and what was kept.
pub struct FromKernels {
    /// `base` with the measured values.
    pub row_work: RowWork,
    /// One for each measured value.
    pub fits: Vec<Fit>,
    /// Each value kept, with why.
    pub not_measured: Vec<String>,
}

/// `recvserial`'s `per_received` from `calibrate`'s queue test: its `n`
/// messages received one at a time (a blocking probe, then the receive,
/// as RAPtor's `communicate(A)` takes rows) less the same messages into
/// receives posted before they came, a message, the median over the
/// counts ([`super::fit::serial_receive`]). Kept at `out`'s value, said
/// so, when there is no such test or the extra time does not grow with
/// the count in three pairs of counts in four (noise, or no dearer), one
/// count's pairs set aside where the others grow in nearly all theirs.
fn serial_receives(samples: &[Sample], out: &mut FromKernels, host: &str, date: &str) {
    let points =
        super::samples::by_count(samples, Experiment::RecvSerial, Experiment::QueueMatching);
    let kept = out.row_work.per_received;
    match super::fit::serial_receive(&points) {
        Some(f) if f.per_message > 0.0 && f.growing >= super::fit::GROWING => {
            out.row_work.per_received = f.per_message;
            let lo = points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
            let hi = points.iter().map(|p| p.0).fold(0.0, f64::max);
            out.fits.push(Fit {
                parameter: "row_work.per_received".into(),
                method: format!(
                    "measured by amgcomm calibrate on {host}, {date}: {lo}-{hi} messages of 8 B received one at a time by a blocking probe and receive (RAPtor's communicate(A)), less the same into receives posted before they came: the median over {} counts of the extra time a message (it grew with the count in {:.0}% of pairs of counts{})",
                    f.points,
                    100.0 * f.growing,
                    set_aside(&f)
                ),
                value: Some(f.per_message),
                alpha: None,
                rate: None,
                r2: None,
                rel_err: None,
                points: f.points,
                bytes: None,
            });
        }
        Some(f) => out.not_measured.push(format!(
            "row_work.per_received: messages received one at a time by a blocking probe and receive cost no clear extra time over receives posted before they came (median {:.3e} s a message, growing with the count in {:.0}% of pairs of counts{}); Blue Waters' {kept:e} kept",
            f.per_message,
            100.0 * f.growing,
            set_aside(&f)
        )),
        None => out.not_measured.push(format!(
            "row_work.per_received: no serial receives timed; Blue Waters' {kept:e} kept"
        )),
    }
}

/// How a fit's share of growing pairs was counted: "" for every count's.
fn set_aside(f: &super::fit::SerialReceive) -> String {
    f.set_aside
        .map(|n| format!(", those of {n} messages set aside"))
        .unwrap_or_default()
}

/// `rowcopy` and `rowpack` from `calibrate`'s timed kernels
/// ([`super::row_kernels`], every rank at once): each the slope of the
/// slowest rank's seconds over the nonzeros copied, or the elements
/// packed plus unpacked, by weighted least squares of `t = a + c n` over
/// the sizes (the intercept takes the timer's and the loop's constant
/// part); `per_received` from the queue test ([`serial_receives`]). The
/// error factor keeps `base`'s: no exchange of rows is timed. Without
/// row-work samples (an older CSV) nothing changes.
pub fn from_kernels(samples: &[Sample], base: RowWork, host: &str, date: &str) -> FromKernels {
    let mut out = FromKernels {
        row_work: base,
        fits: Vec::new(),
        not_measured: Vec::new(),
    };
    let of = |e: Experiment| -> Vec<(f64, f64)> {
        (samples.iter())
            .filter(|s| s.experiment == e)
            .map(|s| (s.messages as f64, s.seconds))
            .collect()
    };
    let (copy, pack) = (of(Experiment::RowCopy), of(Experiment::RowPack));
    if copy.is_empty() && pack.is_empty() {
        return out;
    }
    let ranks = samples
        .iter()
        .find(|s| s.experiment == Experiment::RowCopy)
        .map_or(0, |s| s.active);
    // Each term: its name, its points, what was timed, and its field.
    type Term = (
        &'static str,
        Vec<(f64, f64)>,
        &'static str,
        fn(&mut RowWork) -> &mut f64,
    );
    let what: [Term; 2] = [
        (
            "copy_per_nonzero",
            copy,
            "a rank's local matrix copied as RAPtor's communicate(A) copies it, per nonzero",
            |w| &mut w.copy_per_nonzero,
        ),
        (
            "per_element",
            pack,
            "rows packed into (value, index) pairs and unpacked as RAPtor's communication_helper does, per element packed or unpacked",
            |w| &mut w.per_element,
        ),
    ];
    for (name, points, how, field) in what {
        let parameter = format!("row_work.{name}");
        match super::fit::line(&points) {
            Some(l) if l.per_byte > 0.0 && l.slope_significant => {
                *field(&mut out.row_work) = l.per_byte;
                out.fits.push(Fit {
                    parameter,
                    method: format!(
                        "measured by amgcomm calibrate on {host}, {date}: {how}, the slowest of {ranks} ranks at it at once; weighted least squares of t = a + c n over {} sizes",
                        l.points
                    ),
                    value: Some(l.per_byte),
                    alpha: None,
                    rate: None,
                    r2: Some(l.r2),
                    rel_err: Some(l.rel_err),
                    points: l.points,
                    bytes: None,
                });
            }
            _ => out.not_measured.push(format!(
                "{parameter}: the timed kernel's seconds did not grow with its size; Blue Waters' {:e} kept",
                *field(&mut { base })
            )),
        }
    }
    serial_receives(samples, &mut out, host, date);
    out.not_measured.push(format!(
        "row_work.error: no exchange of rows is timed here; Blue Waters' factor {} kept",
        base.error
    ));
    out.not_measured.push(
        "gpus.work: no device copy or kernel is timed (calibrate uses host buffers; amgcomm has no CUDA or HIP): a GPU machine's device work stays its preset's"
            .into(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::samples::{Experiment, Sample};

    /// A queue test's sample between two ranks: `n` messages of 8 B in `t`
    /// seconds.
    fn at(e: Experiment, n: u64, t: f64) -> Sample {
        Sample {
            experiment: e,
            pattern: "ranks 0-1".into(),
            bytes: 8,
            messages: n,
            active: 1,
            hops: 0.0,
            seconds: t,
            min_seconds: t,
            repetitions: 1,
        }
    }

    /// `kernels`, then a queue test at `counts`: the posted receives 1 us
    /// and 40 ns a message, the serial ones `extra(n)` more.
    fn queue(kernels: &[Sample], counts: &[u64], extra: &dyn Fn(f64) -> f64) -> Vec<Sample> {
        let mut v = kernels.to_vec();
        for &n in counts {
            let posted = 1e-6 + 4e-8 * n as f64;
            v.push(at(Experiment::QueueMatching, n, posted));
            v.push(at(Experiment::RecvSerial, n, posted + extra(n as f64)));
        }
        v
    }

    #[test]
    fn calibrates_kernels_give_the_slopes_with_their_provenance() {
        let at = |e: Experiment, n: u64, t: f64| Sample {
            experiment: e,
            pattern: String::new(),
            bytes: 0,
            messages: n,
            active: 4,
            hops: 0.0,
            seconds: t,
            min_seconds: t,
            repetitions: 1,
        };
        // 2 ns a nonzero and 3 ns an element, each over a 5 us constant.
        let samples: Vec<Sample> = [1e5, 4e5, 1.6e6]
            .iter()
            .flat_map(|&n| {
                [
                    at(Experiment::RowCopy, n as u64, 5e-6 + 2e-9 * n),
                    at(Experiment::RowPack, n as u64, 5e-6 + 3e-9 * n),
                ]
            })
            .collect();
        let base = RowWork::bluewaters();
        let got = from_kernels(&samples, base, "node7", "2026-11-27T00:00:00Z");
        assert!((got.row_work.copy_per_nonzero / 2e-9 - 1.0).abs() < 1e-9);
        assert!((got.row_work.per_element / 3e-9 - 1.0).abs() < 1e-9);
        assert_eq!(got.row_work.per_received, base.per_received);
        assert_eq!(got.fits.len(), 2);
        assert!(got.fits[0]
            .method
            .starts_with("measured by amgcomm calibrate on node7, 2026-11-27T00:00:00Z"));
        assert_eq!(got.not_measured.len(), 3);
        assert!(got.not_measured[0].starts_with("row_work.per_received: no serial receives timed"));
        // No row-work samples: nothing changes, nothing is said.
        let none = from_kernels(&[], base, "node7", "");
        assert_eq!(none.row_work, base);
        assert!(none.fits.is_empty() && none.not_measured.is_empty());
    }

    /// The queue test's serial receives, 70 ns a message over the posted
    /// ones, give `per_received`, also where the largest counts cost more
    /// a message; receives that cost no more, or a fixed extra that does
    /// not grow with the count, keep Blue Waters' and say so.
    #[test]
    fn serial_receives_give_the_cost_of_a_receive() {
        let kernels = [
            at(Experiment::RowCopy, 1000, 1e-5),
            at(Experiment::RowCopy, 4000, 4e-5),
        ];
        let queue = |extra: &dyn Fn(f64) -> f64| queue(&kernels, &[16, 64, 256, 1024], extra);
        let base = RowWork::bluewaters();
        let got = from_kernels(&queue(&|n| 7e-8 * n), base, "node7", "2026-11-28");
        assert!((got.row_work.per_received / 7e-8 - 1.0).abs() < 1e-9);
        // The largest count 3 times dearer a message: the median holds.
        let tail = |n: f64| if n > 500.0 { 2.1e-7 * n } else { 7e-8 * n };
        let got_tail = from_kernels(&queue(&tail), base, "node7", "");
        assert!((got_tail.row_work.per_received / 7e-8 - 1.0).abs() < 1e-9);
        let f = got
            .fits
            .iter()
            .find(|f| f.parameter == "row_work.per_received");
        assert!(f
            .unwrap()
            .method
            .contains("16-1024 messages of 8 B received one at a time"));
        // No dearer: kept, with the fit's figure.
        let same = from_kernels(&queue(&|_| 0.0), base, "node7", "");
        assert_eq!(same.row_work.per_received, base.per_received);
        assert!(same
            .not_measured
            .iter()
            .any(|m| m.contains("no clear extra time")));
        // Noise that does not grow with the count: no line, kept.
        let noise = from_kernels(
            &queue(&|n| if n < 100.0 { 3e-6 } else { 1e-7 }),
            base,
            "node7",
            "",
        );
        assert_eq!(noise.row_work.per_received, base.per_received);
    }

    /// Of 6 counts, one count's dip (the serial receives no dearer at 512
    /// messages, as one calibration on 2 shared cores timed them) leaves
    /// the rest growing in 10 pairs of 10: that count is set aside, said
    /// so, and the median measured. Two such counts, or counts in no
    /// order, keep Blue Waters'.
    #[test]
    fn one_count_at_odds_with_the_rest_is_set_aside() {
        let kernels = [at(Experiment::RowCopy, 1000, 1e-5)];
        let queue =
            |extra: &dyn Fn(f64) -> f64| queue(&kernels, &[16, 32, 64, 128, 256, 512], extra);
        let base = RowWork::bluewaters();
        let dip = |n: f64| if n == 512.0 { -2e-6 } else { 7e-8 * n };
        // All 15 pairs: 512's five turn down, 10 of 15 (67%) grow.
        let got = from_kernels(&queue(&dip), base, "node7", "2026-12-02");
        assert!((got.row_work.per_received / 7e-8 - 1.0).abs() < 1e-9);
        let f = got
            .fits
            .iter()
            .find(|f| f.parameter == "row_work.per_received");
        let method = &f.unwrap().method;
        assert!(
            method.contains("100% of pairs of counts, those of 512 messages set aside"),
            "{method}"
        );
        // Two counts at odds: kept, the share over every pair said.
        let two = |n: f64| {
            if n == 512.0 || n == 64.0 {
                -2e-6
            } else {
                7e-8 * n
            }
        };
        let kept = from_kernels(&queue(&two), base, "node7", "");
        assert_eq!(kept.row_work.per_received, base.per_received);
        assert!(kept
            .not_measured
            .iter()
            .any(|m| m.contains("no clear extra time") && m.contains("% of pairs of counts)")));
        // Extra time in no order (a zigzag): kept.
        let zigzag = |n: f64| {
            if (n as u64).trailing_zeros().is_multiple_of(2) {
                3e-6
            } else {
                1e-6
            }
        };
        let noise = from_kernels(&queue(&zigzag), base, "node7", "");
        assert_eq!(noise.row_work.per_received, base.per_received);
    }

    #[test]
    fn recovers_known_parameters_and_leaves_an_absent_one_at_zero() {
        // Measured = network + 2e-8 x nonzeros + 5e-8 x elements exactly;
        // the received counts explain nothing.
        let rows: Vec<Row> = (0..12)
            .map(|i| {
                let f = [
                    1000.0 * (i as f64 + 1.0),
                    500.0 * ((i * 7) % 5) as f64 + 10.0,
                    (i % 3) as f64 + 1.0,
                ];
                let network = 1e-5;
                Row {
                    ranks: 128,
                    strategy: "standard".into(),
                    level: i,
                    network,
                    features: f,
                    measured: network + 2e-8 * f[0] + 5e-8 * f[1],
                }
            })
            .collect();
        let fit = fit(&rows);
        assert!((fit.work.copy_per_nonzero - 2e-8).abs() < 1e-15);
        assert!((fit.work.per_element - 5e-8).abs() < 1e-15);
        assert!(fit.work.per_received.abs() < 1e-12);
        assert!((fit.demonstrated_error() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn refuses_a_bad_table() {
        assert!(read_table("a,b\n1,2\n")
            .unwrap_err()
            .to_string()
            .contains("header"));
        let h = "ranks,strategy,level,network_s,local_nonzeros,elements,received,measured_s\n";
        let e = read_table(&format!("{h}128,standard,0,1e-5,10,10,1,0\n")).unwrap_err();
        assert!(e.to_string().contains("line 2"), "{e}");
        assert!(read_table(h).is_err());
        assert!(read_table(&format!("{h}128,standard,0,x,10,10,1,1\n")).is_err());
    }
}

#[cfg(test)]
mod refit {
    use super::*;

    /// The Blue Waters preset's row work is the fit to its table, and
    /// the fit meets the marks on the training logs.
    #[test]
    fn bluewaters_refits_from_its_table() {
        let text = include_str!("../../tests/data/presets/bluewaters_row_work.csv");
        let rows = read_table(text).unwrap();
        assert_eq!(rows.len(), 56);
        let f = fit(&rows);
        let want = RowWork::bluewaters().as_array();
        let got = f.work.as_array();
        eprintln!("fit {got:?} error {}", f.demonstrated_error());
        for k in 0..3 {
            assert!(
                (got[k] - want[k]).abs() <= 1e-12 * want[k].abs().max(1e-30),
                "{k}: {got:?}"
            );
        }
        assert!((f.work.error - RowWork::bluewaters().error).abs() < 1e-12);
        // recvserial: no cost beyond the network terms' on these logs.
        assert_eq!(f.fitted, [true, true, false]);
        // Within 2x of measured on at least 70% of the level-ops.
        let within = f.ratios.iter().filter(|r| (0.5..=2.0).contains(*r)).count();
        assert!(within * 10 >= 7 * rows.len(), "{within} of {}", rows.len());
    }
}

#[cfg(test)]
mod device_refit {
    use super::*;

    /// Lassen's device work is the fit to its table (CUDA-aware calls and
    /// host rounds as the second and third features); the table has no
    /// kernel (BenchPress's comm-only program launches none), so the
    /// preset's kernel is no fit.
    #[test]
    fn lassen_refits_from_its_table() {
        let text = include_str!("../../tests/data/presets/lassen_device_work.csv");
        let rows = read_table(text).unwrap();
        assert_eq!(rows.len(), 96);
        assert!(rows.iter().all(|r| r.features[0] == 0.0));
        let f = fit(&rows);
        assert_eq!(f.fitted, [false, true, true]);
        let m = crate::machine::presets::preset("lassen").unwrap();
        let w = m.gpus.unwrap().work;
        let got = f.work.as_array();
        eprintln!("fit {got:?} error {}", f.work.error);
        for (g, want) in got[1..].iter().zip([w.aware_call, w.round]) {
            assert!((g - want).abs() <= 1e-12 * want, "{got:?}");
        }
        assert!((f.work.error - w.error).abs() < 1e-12);
    }
}
