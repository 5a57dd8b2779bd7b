//! `amgcomm calibrate`, the part without MPI: what to measure
//! ([`Schedule`]), the raw measurements ([`Sample`], written as CSV), and
//! how they become a machine file ([`fit_machine`]) with the paper's
//! parameters:
//!
//! - `alpha` and `R_b` per locality and protocol (EuroMPI'18 Table 1) from
//!   ping-pongs over message sizes, a least-squares line per protocol
//!   range; the ranges' thresholds from the breaks of the curves
//!   ([`fit::breaks`]) or from flags;
//! - `R_N` (eq. 2) from several ranks of a node sending off-node at once;
//! - `gamma` (eq. 3) from `n` messages whose receives were posted in
//!   reversed tag order, less the same in matching order, fitted to
//!   `gamma n^2`;
//! - `delta` (eqs. 5-7) from shift and pair patterns between at least 3
//!   nodes: the time beyond max-rate, fitted to `delta h^3 B / routers`.
//!
//! What is not measured keeps Blue Waters' value, and the machine file's
//! `calibration` block says so. The schedule ([`super::schedule`]) and
//! the samples ([`super::samples`]) have files of their own, re-exported
//! here; the ping-pong fits (thresholds, `alpha` and `R_b`) are in
//! `super::rates`.

use super::fit;
use super::rates;
pub use super::samples::{csv, Experiment, Sample, CSV_HEADER};
pub use super::schedule::{check_asked, contention_patterns, Schedule};
use crate::machine::network::Traffic;
use crate::machine::{Calibration, Fit, Locality, Machine, Params, Placement, Protocol, PROTOCOLS};

/// What the run was, besides its measurements.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    /// The machine's name.
    pub name: String,
    /// Nodes (virtual nodes when `--ppn` divides a real node).
    pub nodes: usize,
    /// Ranks per node.
    pub ppn: usize,
    /// Sockets per node.
    pub sockets_per_node: usize,
    /// The network, for the hops and the measure of the contention term.
    pub network: crate::machine::network::Spec,
    /// Where the ranks ran.
    pub placement: Placement,
    /// `[eager, rendezvous]` thresholds from flags, instead of the breaks.
    pub thresholds: Option<[u64; 2]>,
    /// Ranks of the run.
    pub ranks: usize,
    /// Nodes MPI reported.
    pub real_nodes: usize,
    /// The MPI library.
    pub mpi_library: String,
    /// The date, UTC.
    pub date: String,
    /// The host rank 0 ran on (MPI's processor name).
    pub host: String,
    /// `--quick`.
    pub quick: bool,
    /// The CSV file's name.
    pub measurements: String,
    /// Notes from the measuring side (how sockets were found, ...).
    pub notes: Vec<String>,
}

impl Setup {
    /// The machine of this run with `params`.
    pub fn machine(&self, params: Params) -> Machine {
        Machine {
            name: self.name.clone(),
            nodes: self.nodes,
            ppn: self.ppn,
            sockets_per_node: self.sockets_per_node,
            localities: None,
            network: self.network.clone(),
            placement: self.placement,
            allocation: crate::machine::Allocation::Contiguous,
            params,
            calibration: None,
            provenance: Vec::new(),
            gpus: None,
            ranks_per_gpu: None,
        }
    }
}

/// A fitted machine and what its reader should be warned of.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibrated {
    /// The machine file's content.
    pub machine: Machine,
    /// Warnings to print (also in `calibration.notes` or `not_measured`).
    pub warnings: Vec<String>,
}

/// Why measurements cannot become a machine.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FitError {
    /// No ping-pong curve was measured.
    #[error("no ping-pong was measured: at least two ranks are needed")]
    NoPingPong,
    /// The curves are too short for three protocol ranges.
    #[error("{0} message sizes are too few to find three protocol ranges; raise --max-bytes or give --eager-threshold and --rendezvous-threshold")]
    TooFewSizes(usize),
    /// The fitted machine fails its own validation.
    #[error("the fitted machine is implausible: {0}")]
    Invalid(String),
}

/// The machine file from the measurements: Blue Waters' parameters where
/// nothing was measured, every fit recorded with its quality.
pub fn fit_machine(samples: &[Sample], setup: &Setup) -> Result<Calibrated, FitError> {
    let mut params = Params::bluewaters();
    let mut fits = Vec::new();
    let mut not_measured = Vec::new();
    let mut notes = setup.notes.clone();
    let mut warnings = Vec::new();
    let curves: Vec<(Locality, Vec<(f64, f64)>)> = Locality::DEFAULT
        .iter()
        .map(|&l| (l, rates::curve(samples, l)))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    if curves.is_empty() {
        return Err(FitError::NoPingPong);
    }
    let [eager, rend] = rates::thresholds(
        &curves,
        setup.thresholds,
        &mut fits,
        &mut notes,
        &mut warnings,
    )
    .map_err(FitError::TooFewSizes)?;
    params.eager_threshold = eager;
    params.rendezvous_threshold = rend;
    for (l, c) in &curves {
        let [short, eager, rend] =
            rates::locality_rates(*l, c, [eager, rend], &mut fits, &mut notes);
        let r = params.rates_mut(*l);
        (r.short, r.eager, r.rend) = (short, eager, rend);
    }
    let has = |l: Locality| curves.iter().any(|(c, _)| *c == l);
    if !has(Locality::NODE) {
        if setup.sockets_per_node == 1 {
            // No message of this machine is of the node class.
            if has(Locality::SOCKET) {
                let socket = *params.rates(Locality::SOCKET);
                *params.rates_mut(Locality::NODE) = socket;
                for (k, p) in PROTOCOLS.iter().enumerate() {
                    let r = socket.of(k);
                    fits.push(Fit {
                        parameter: format!("node.{}", p.name()),
                        method: "the socket fit: one socket per node, no message is of this class"
                            .into(),
                        value: None,
                        alpha: Some(r.alpha),
                        rate: Some(r.rate),
                        r2: None,
                        rel_err: None,
                        points: 0,
                        bytes: None,
                    });
                }
            }
            notes.push(
                "one socket per node: the node (other socket) class is not used; it repeats the socket fit"
                    .into(),
            );
        } else {
            not_measured.push("node (other socket): no pair of ranks on different sockets".into());
        }
    }
    if !has(Locality::SOCKET) {
        not_measured.push("socket: no two ranks share a socket".into());
    }
    if !has(Locality::NETWORK) {
        not_measured.push("network: one node, no rank of another node to ping".into());
    }
    // R_N from the injection test, against the network rendezvous fit.
    let inj: Vec<(f64, f64, f64)> = samples
        .iter()
        .filter(|s| s.experiment == Experiment::Injection)
        .map(|s| (s.active as f64, s.bytes as f64, s.seconds))
        .collect();
    let net = params.network().rend;
    match fit::injection(&inj, net.alpha, net.rate) {
        Some((r_n, saturated)) => {
            params.r_n = r_n.clamp(rates::RATES.0, rates::RATES.1);
            if !saturated {
                notes.push(format!(
                    "r_n: the node rate still grew with the senders: R_N is at least {:.3e} B/s",
                    r_n
                ));
            }
            fits.push(Fit {
                parameter: "r_n".into(),
                method: "highest node rate a s / (t - alpha) over a senders".into(),
                value: Some(params.r_n),
                alpha: None,
                rate: None,
                r2: None,
                rel_err: None,
                points: inj.len(),
                bytes: None,
            });
        }
        None if inj.is_empty() => not_measured.push("r_n: fewer than 2 nodes".into()),
        None => not_measured.push("r_n: no usable injection time".into()),
    }
    // gamma: reversed less matching order, per message count.
    let pts = super::samples::by_count(
        samples,
        Experiment::QueueReversed,
        Experiment::QueueMatching,
    );
    match fit::gamma(&pts) {
        Some(g) if g.c > 0.0 => {
            params.gamma = g.c.min(1.0);
            fits.push(Fit {
                parameter: "gamma".into(),
                method: "least squares of (reversed - matching) = gamma n^2".into(),
                value: Some(params.gamma),
                alpha: None,
                rate: None,
                r2: Some(g.r2),
                rel_err: None,
                points: g.points,
                bytes: None,
            });
        }
        Some(g) => {
            let w = format!(
                "gamma: reversed receives were not slower than matching ones (fit {:.3e}); Blue Waters' {:e} kept",
                g.c,
                params.gamma
            );
            warnings.push(w.clone());
            not_measured.push(w);
        }
        None => not_measured.push("gamma: no queue test".into()),
    }
    // delta: the time beyond max-rate and one queue search, against the
    // network's contention measure (on a box, h^3 B / routers; elsewhere
    // the bytes on the busiest link).
    let m = setup.machine(params.clone());
    let net = m.network();
    let patterns = contention_patterns(setup.nodes);
    let cont: Vec<(f64, f64)> = samples
        .iter()
        .filter(|s| s.experiment == Experiment::Contention)
        .map(|s| {
            let r = params.network().of(Protocol::of(s.bytes, &params) as usize);
            let a = s.active as f64;
            let bytes = s.bytes as f64;
            let mut rate = a * r.rate;
            if Protocol::of(s.bytes, &params) == Protocol::Rend {
                rate = rate.min(params.r_n);
            }
            let max_rate = r.alpha + a * bytes / rate;
            let pairs = patterns.iter().find(|(name, _)| *name == s.pattern);
            let max_link = || {
                let per_pair = s.bytes * setup.ppn as u64;
                let traffic: Vec<(u32, u32, u64)> = pairs
                    .map_or(&[][..], |(_, p)| p)
                    .iter()
                    .map(|&(a, b)| (a as u32, b as u32, per_pair))
                    .collect();
                net.loads(&traffic).into_iter().fold(0.0, f64::max)
            };
            let t = Traffic {
                bytes: s.bytes * s.messages,
                avg_hops: s.hops,
                max_link_bytes: &max_link,
            };
            let x = net.contention(1.0, &t);
            (x, s.seconds - max_rate - params.gamma)
        })
        .collect();
    if setup.nodes < 3 {
        let w = format!(
            "delta: contention is fitted only with at least 3 nodes, this run has {}; Blue Waters' {:e} kept",
            setup.nodes, params.delta
        );
        warnings.push(w.clone());
        not_measured.push(w);
    } else {
        match fit::proportional(&cont) {
            Some(d) if d.c > 0.0 => {
                params.delta = d.c.min(1.0);
                fits.push(Fit {
                    parameter: "delta".into(),
                    method: format!(
                        "least squares of (t - max-rate - gamma) = delta x {}",
                        contention_measure(&setup.network)
                    ),
                    value: Some(params.delta),
                    alpha: None,
                    rate: None,
                    r2: Some(d.r2),
                    rel_err: None,
                    points: d.points,
                    bytes: None,
                });
            }
            other => {
                let w = format!(
                    "delta: no time beyond max-rate grew with {} ({}); Blue Waters' {:e} kept",
                    contention_measure(&setup.network),
                    other.map_or("every pattern has zero hops".into(), |d| format!(
                        "fit {:.3e}",
                        d.c
                    )),
                    params.delta
                );
                warnings.push(w.clone());
                not_measured.push(w);
            }
        }
    }
    if setup.real_nodes == 1 && setup.nodes > 1 {
        let w = format!(
            "all {} ranks share one node: the 'network' figures are shared memory between {} virtual nodes of {} ranks, not a network",
            setup.ranks, setup.nodes, setup.ppn
        );
        warnings.push(w.clone());
        notes.push(w);
    }
    // The work around the messages, where its kernels were timed.
    let rw = super::row_work::from_kernels(samples, params.row_work, &setup.host, &setup.date);
    params.row_work = rw.row_work;
    fits.extend(rw.fits);
    not_measured.extend(rw.not_measured);
    let calibration = Calibration {
        tool: format!("amgcomm {} calibrate", env!("CARGO_PKG_VERSION")),
        date: setup.date.clone(),
        mpi_library: setup.mpi_library.clone(),
        ranks: setup.ranks,
        real_nodes: setup.real_nodes,
        loopback: setup.real_nodes == 1,
        quick: setup.quick,
        fits,
        not_measured,
        notes,
        measurements: setup.measurements.clone(),
    };
    let machine = Machine {
        params,
        calibration: Some(calibration),
        ..m
    };
    machine
        .validate()
        .map_err(|e| FitError::Invalid(e.to_string()))?;
    Ok(Calibrated { machine, warnings })
}

/// The contention term's measure on `network`, in words (README
/// "Networks").
fn contention_measure(network: &crate::machine::network::Spec) -> String {
    if network.kind == crate::machine::network::REGISTRY[0] {
        "h^3 B / routers".into()
    } else {
        format!("the bytes on the busiest link of the {}", network.kind.name)
    }
}

/// Days since 1970-01-01 as a civil date (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Now, UTC, as `2026-11-23T18:08:56Z`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let t = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples of a machine whose every parameter is known: ping-pongs
    /// exactly on `params`' lines, injection at `R_N`, queues at
    /// `gamma n^2`, contention at `delta h^3 B / routers`.
    fn synthetic(params: &Params, setup: &Setup, schedule: &Schedule) -> Vec<Sample> {
        let mut out = Vec::new();
        let sample = |experiment, pattern: &str, bytes, messages, active, hops, seconds| Sample {
            experiment,
            pattern: pattern.into(),
            bytes,
            messages,
            active,
            hops,
            seconds,
            min_seconds: seconds,
            repetitions: 10,
        };
        for l in Locality::DEFAULT {
            for &s in &schedule.sizes {
                let r = params.rates(l).of(Protocol::of(s, params) as usize);
                let t = r.alpha + s as f64 / r.rate;
                out.push(sample(
                    Experiment::PingPong(l),
                    "ranks 0-1",
                    s,
                    1,
                    1,
                    0.0,
                    t,
                ));
            }
        }
        let r = params.network().rend;
        let s = schedule.injection_bytes;
        for a in [1u64, 2, 4, 8] {
            let t = r.alpha + (a * s) as f64 / params.r_n.min(a as f64 * r.rate);
            out.push(sample(
                Experiment::Injection,
                "node 0 -> node 1",
                s,
                a,
                a,
                1.0,
                t,
            ));
        }
        for &n in &schedule.queue_counts {
            let n = n as u64;
            let base = 1e-5 + 2e-7 * n as f64;
            let rev = base + params.gamma * (n * n) as f64;
            out.push(sample(
                Experiment::QueueMatching,
                "ranks 0-1",
                8,
                n,
                1,
                0.0,
                base,
            ));
            out.push(sample(
                Experiment::QueueReversed,
                "ranks 0-1",
                8,
                n,
                1,
                0.0,
                rev,
            ));
        }
        let routers = 2.0; // 4 nodes, 2 per router
        for (k, hops) in [(1u64, 1.0), (2, 0.5), (3, 1.5)] {
            let bytes = 1u64 << 20;
            let a = setup.ppn as u64;
            let messages = a * 4;
            let mr = r.alpha + (a * bytes) as f64 / params.r_n.min(a as f64 * r.rate);
            let c = params.delta * hops * hops * hops * (bytes * messages) as f64 / routers;
            let t = mr + params.gamma + c;
            out.push(sample(
                Experiment::Contention,
                &format!("shift {k}"),
                bytes,
                messages,
                a,
                hops,
                t,
            ));
        }
        out
    }

    fn setup(nodes: usize) -> Setup {
        Setup {
            name: "test".into(),
            nodes,
            ppn: 8,
            sockets_per_node: 2,
            network: crate::machine::network::Spec::box3d(2),
            placement: Placement::Smp,
            thresholds: None,
            ranks: nodes * 8,
            real_nodes: nodes,
            mpi_library: "test MPI".into(),
            date: "2026-11-23T00:00:00Z".into(),
            host: "test-host".into(),
            quick: false,
            measurements: "m.csv".into(),
            notes: vec![],
        }
    }

    #[test]
    fn a_known_machine_is_recovered_from_its_own_times() {
        // Blue Waters' Table 1 with thresholds at sizes of the schedule
        // (the breaks can only fall on measured sizes) and other R_N,
        // gamma, delta.
        let mut truth = Params::bluewaters();
        truth.eager_threshold = 512;
        truth.rendezvous_threshold = 8192;
        truth.r_n = 4e9;
        truth.gamma = 3e-9;
        truth.delta = 2e-10;
        let schedule = Schedule::full(4 << 20);
        let s = setup(4);
        let c = fit_machine(&synthetic(&truth, &s, &schedule), &s).unwrap();
        let p = &c.machine.params;
        assert_eq!((p.eager_threshold, p.rendezvous_threshold), (512, 8192));
        for l in Locality::DEFAULT {
            for k in 0..3 {
                let (got, want) = (p.rates(l).of(k), truth.rates(l).of(k));
                assert!(
                    (got.alpha / want.alpha - 1.0).abs() < 1e-6,
                    "{l:?} {k}: {got:?} {want:?}"
                );
                assert!(
                    (got.rate / want.rate - 1.0).abs() < 1e-6,
                    "{l:?} {k}: {got:?} {want:?}"
                );
            }
        }
        assert!((p.r_n / truth.r_n - 1.0).abs() < 1e-9, "{}", p.r_n);
        assert!((p.gamma / truth.gamma - 1.0).abs() < 1e-6, "{}", p.gamma);
        assert!((p.delta / truth.delta - 1.0).abs() < 1e-6, "{}", p.delta);
        let cal = c.machine.calibration.as_ref().unwrap();
        assert!(cal.not_measured.is_empty(), "{:?}", cal.not_measured);
        assert!(cal.fits.iter().all(|f| f
            .r2
            .is_none_or(|r| r > 0.999 || f.parameter.ends_with("short"))));
        // The file reads back as a machine.
        let text = serde_json::to_string(&c.machine).unwrap();
        let back: Machine = serde_json::from_str(&text).unwrap();
        assert_eq!(back, c.machine);
    }

    #[test]
    fn what_is_not_measured_keeps_blue_waters_and_says_so() {
        let truth = Params::bluewaters();
        let schedule = Schedule::quick(1 << 20);
        let mut s = setup(2);
        s.real_nodes = 1;
        s.sockets_per_node = 1;
        s.thresholds = Some([500, 8000]);
        // Only the socket curve and the queue test: one socket, no
        // injection, no contention.
        let samples: Vec<Sample> = synthetic(&truth, &s, &schedule)
            .into_iter()
            .filter(|x| {
                matches!(
                    x.experiment,
                    Experiment::PingPong(Locality::SOCKET)
                        | Experiment::PingPong(Locality::NETWORK)
                        | Experiment::QueueMatching
                        | Experiment::QueueReversed
                )
            })
            .collect();
        let c = fit_machine(&samples, &s).unwrap();
        let p = &c.machine.params;
        assert_eq!(
            p.rates(Locality::NODE),
            p.rates(Locality::SOCKET),
            "one socket: node repeats socket"
        );
        assert_eq!(p.r_n, Params::bluewaters().r_n);
        assert_eq!(p.delta, Params::bluewaters().delta);
        let cal = c.machine.calibration.unwrap();
        assert!(cal.loopback);
        let all = cal.not_measured.join("; ");
        assert!(all.contains("r_n: fewer than 2 nodes"), "{all}");
        assert!(all.contains("at least 3 nodes, this run has 2"), "{all}");
        assert!(c
            .warnings
            .iter()
            .any(|w| w.contains("shared memory between 2 virtual nodes")));
        assert!(c.warnings.iter().any(|w| w.starts_with("delta:")));
    }

    #[test]
    fn no_pingpong_is_an_error() {
        assert_eq!(fit_machine(&[], &setup(1)), Err(FitError::NoPingPong));
    }

    #[test]
    fn dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(20_780), (2026, 11, 23));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert!(utc_now().ends_with('Z'));
    }
}
