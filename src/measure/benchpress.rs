//! Machine presets from BenchPress microbenchmarks (Bienz et al.,
//! `bienz2/BenchPress`, `examples/time_ping_pong.cpp`,
//! `time_max_rate.cpp`): the CPU ping-pongs between every pair of ranks
//! of two nodes, and the max-rate test (`np` ranks of a node each
//! ping-pong with a partner on the other node at once).
//!
//! The output files become a small table of medians ([`Median`], the
//! project's own CSV, naming its source): per locality and size the
//! median over the rank pairs of that locality of the minimum over the
//! repeated runs (the minimum of repeats: single cells of BenchPress's
//! outputs spike 2-10x); per sender count the
//! max-rate time of the largest size. [`fit`] turns the table into the
//! machine's parameters with `amgcomm calibrate`'s own fits
//! ([`super::calibrate::fit_machine`]) and records each one's provenance.

use std::fmt::Write as _;

use super::calibrate::{self, Experiment, Sample, Setup};
use super::fit;
use crate::machine::{Copy, Gpus, Locality, Machine, Params, Rate, Source};

/// A BenchPress output that does not read, in user terms.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct BenchError(pub String);

/// Values per row: sizes `2^0 .. 2^17` floats (4 B to 512 KiB).
pub const SIZES: usize = 18;

/// The rows of the section under the line starting with `header`: each
/// following line starting with `prefix`, up to the first that does not,
/// as `(line number from 1, the rest of the line)`, each parsed by `row`
/// (an error names its line). None at all is the error `missing`.
fn section<T>(
    text: &str,
    header: &str,
    prefix: &str,
    missing: &str,
    mut row: impl FnMut(&str) -> Result<T, String>,
) -> Result<Vec<T>, BenchError> {
    let mut lines = (text.lines().enumerate())
        .map(|(n, l)| (n + 1, l.trim_end()))
        // Tioga's memcpy prints its GPU count under the header.
        .filter(|(_, l)| !l.starts_with("Num GPUs"));
    lines.find(|(_, l)| l.starts_with(header));
    let rows = lines
        .map_while(|(n, l)| Some((n, l.strip_prefix(prefix)?)))
        .map(|(n, rest)| row(rest).map_err(|why| BenchError(format!("line {n}: {why}"))))
        .collect::<Result<Vec<T>, _>>()?;
    if rows.is_empty() {
        return Err(BenchError(missing.into()));
    }
    Ok(rows)
}

/// Which buffers a BenchPress section times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffers {
    /// Pinned host buffers (`CPU a and CPU b`, `Timing ... CPU ...`).
    Host,
    /// Device buffers passed to a GPU-aware MPI (`GPU on rank a and GPU
    /// on rank b`, `Timing GPU ...`).
    Device,
}

/// Rank pairs of the CPU (or GPU) section of a ping-pong output: `(a, b,
/// one-way seconds per size)` from lines `CPU a and CPU b:` (`GPU on rank
/// a and GPU on rank b:`) followed by [`SIZES`] values, up to the next
/// section.
pub fn ping_pong(text: &str) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    ping_pong_of(text, Buffers::Host)
}

/// [`ping_pong`] of `buffers`' section.
pub fn ping_pong_of(
    text: &str,
    buffers: Buffers,
) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    let (header, prefix, and) = match buffers {
        Buffers::Host => ("Profiling Standard CPU Ping-Pongs:", "CPU ", " and CPU "),
        Buffers::Device => (
            "Profiling GPU Ping-Pongs",
            "GPU on rank ",
            " and GPU on rank ",
        ),
    };
    let form = format!("{prefix}a{and}b:");
    pair_rows(text, header, prefix, and, &form, "ping-pong")
}

/// Rows `{prefix}a{sep}b:` followed by [`SIZES`] times under `header`
/// (ping-pongs' rank pairs, memcpy's rank and GPU): `(a, b, seconds per
/// size)`; a row that is not one says it is not `form`.
fn pair_rows(
    text: &str,
    header: &str,
    prefix: &str,
    sep: &str,
    form: &str,
    what: &str,
) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    let missing = format!("no '{header}' rows (a BenchPress {what} output?)");
    section(text, header, prefix, &missing, |rest| {
        let (pair, values) = (rest.split_once(':')).ok_or_else(|| format!("not '{form} times'"))?;
        let (a, b) = pair
            .split_once(sep)
            .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
            .ok_or_else(|| format!("not '{form}'"))?;
        Ok((a, b, times(values, SIZES)?))
    })
}

/// The CPU section of a max-rate output: `(floats, seconds per sender
/// count 1, 2, ...)` from lines `Size S` and their values.
pub fn max_rate(text: &str) -> Result<Vec<(u64, Vec<f64>)>, BenchError> {
    sized_rows(text, "Timing Max-Rate CPU Ping-Pongs", "max-rate")
}

/// Rows `Size S` and their values under `header` (max-rate and
/// multiple-message outputs, their CPU or GPU section): `(floats,
/// seconds per column)`.
pub fn sized_rows(
    text: &str,
    header: &str,
    what: &str,
) -> Result<Vec<(u64, Vec<f64>)>, BenchError> {
    let missing = format!("no '{header}' rows (a BenchPress {what} output?)");
    section(text, header, "Size ", &missing, |rest| {
        let mut it = rest.splitn(2, ['\t', ' ']);
        let size = it
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .filter(|s| (1..=1 << 30).contains(s))
            .ok_or("not 'Size S' with S a count of floats")?;
        Ok((size, times(it.next().unwrap_or(""), 0)?))
    })
}

/// The copies of a memcpy output, `way` to the device or the host:
/// `(rank p, GPU g, seconds per size)` from lines `CPU p, GPU g:`.
pub fn memcpy(text: &str, way: Copy) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    let header = match way {
        Copy::ToDevice => "Memcpy Host To Device:",
        Copy::ToHost => "Memcpy Device To Host:",
    };
    pair_rows(text, header, "CPU ", ", GPU ", "CPU p, GPU g:", "memcpy")
}

/// Whitespace-separated times: `count` of them (any number from 1 when
/// 0), each a finite number of seconds from 0 to 1 hour.
fn times(s: &str, count: usize) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split_whitespace()
        .map(|x| {
            x.parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && (0.0..=3600.0).contains(t))
                .ok_or_else(|| format!("'{x}' is not a time in seconds"))
        })
        .collect::<Result<_, _>>()?;
    if (count > 0 && v.len() != count) || v.is_empty() {
        return Err(format!(
            "{} times, {} expected",
            v.len(),
            if count > 0 {
                count.to_string()
            } else {
                "at least 1".into()
            }
        ));
    }
    Ok(v)
}

/// What a median measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bench {
    /// Host buffers: `pingpong` (one-way time between two ranks of a
    /// locality) or `injection` (`active` ranks of a node at once,
    /// max-rate).
    Host(Experiment),
    /// The same with device buffers (`gpu-pingpong`, `gpu-injection`:
    /// `active` GPUs of a node at once).
    Device(Experiment),
    /// One `cudaMemcpy` of `bytes` (`memcpy-h2d`, `memcpy-d2h`).
    Memcpy(Copy),
    /// One GPU sends `active` messages of `bytes` each to GPUs of
    /// another node and receives as many (`gpu-mult`, mult_pong).
    Messages,
    /// The same, the `active` messages sharing `bytes` (`gpu-split`,
    /// mult_pong_split).
    Split,
}

impl Bench {
    /// Its name and locality in the table.
    pub fn names(self) -> (String, String) {
        let locality = |e: Experiment| match e {
            Experiment::PingPong(l) => l.default_name(),
            _ => "network".into(),
        };
        match self {
            Bench::Host(e) => (e.name().into(), locality(e)),
            Bench::Device(e) => (format!("gpu-{}", e.name()), locality(e)),
            Bench::Memcpy(Copy::ToDevice) => ("memcpy-h2d".into(), "node".into()),
            Bench::Memcpy(Copy::ToHost) => ("memcpy-d2h".into(), "node".into()),
            Bench::Messages => ("gpu-mult".into(), "network".into()),
            Bench::Split => ("gpu-split".into(), "network".into()),
        }
    }

    /// Every kind the table holds, for reading it back.
    fn all() -> Vec<Bench> {
        let mut v = Vec::new();
        for l in Locality::DEFAULT {
            v.push(Bench::Host(Experiment::PingPong(l)));
            v.push(Bench::Device(Experiment::PingPong(l)));
        }
        v.extend([
            Bench::Host(Experiment::Injection),
            Bench::Device(Experiment::Injection),
            Bench::Memcpy(Copy::ToDevice),
            Bench::Memcpy(Copy::ToHost),
            Bench::Messages,
            Bench::Split,
        ]);
        v
    }
}

/// One median of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Median {
    /// What it measures.
    pub experiment: Bench,
    /// Bytes per message.
    pub bytes: u64,
    /// Ranks of a node sending at once (1 for ping-pongs).
    pub active: u64,
    /// Seconds.
    pub seconds: f64,
    /// Rank pairs (ping-pong) or runs (max-rate) behind the median.
    pub count: usize,
}

/// How the ranks of a two-node BenchPress run sat: `ppn` per node in SMP
/// order, the node's ranks split evenly over `sockets`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layout {
    /// Ranks per node.
    pub ppn: usize,
    /// Sockets per node.
    pub sockets: usize,
}

impl Layout {
    /// The locality of ranks `a` and `b` (the READMEs' rule).
    pub fn locality(&self, a: usize, b: usize) -> Locality {
        let per = (self.ppn / self.sockets).max(1);
        if a / self.ppn != b / self.ppn {
            Locality::NETWORK
        } else if (a % self.ppn) / per == (b % self.ppn) / per {
            Locality::SOCKET
        } else {
            Locality::NODE
        }
    }
}

/// The table's medians from repeated ping-pong runs (the same pairs in
/// each) and max-rate runs: per locality and size, the median over pairs
/// of each cell's minimum over runs; per sender count, the minimum over
/// runs at the largest size.
pub fn medians(
    ping_pongs: &[Vec<(usize, usize, Vec<f64>)>],
    max_rates: &[Vec<(u64, Vec<f64>)>],
    layout: Layout,
) -> Result<Vec<Median>, BenchError> {
    let mut out = Vec::new();
    if let Some(first) = ping_pongs.first() {
        for (k, run) in ping_pongs.iter().enumerate() {
            let same = run.len() == first.len()
                && run.iter().zip(first).all(|(x, y)| (x.0, x.1) == (y.0, y.1));
            if !same {
                return Err(BenchError(format!(
                    "ping-pong run {} has other rank pairs than run 1",
                    k + 1
                )));
            }
        }
        for l in Locality::DEFAULT {
            let pairs: Vec<usize> = (0..first.len())
                .filter(|&p| layout.locality(first[p].0, first[p].1) == l)
                .collect();
            if pairs.is_empty() {
                continue;
            }
            for size in 0..SIZES {
                let cells: Vec<f64> = pairs
                    .iter()
                    .map(|&p| {
                        ping_pongs
                            .iter()
                            .map(|r| r[p].2[size])
                            .fold(f64::INFINITY, f64::min)
                    })
                    .collect();
                out.push(Median {
                    experiment: Bench::Host(Experiment::PingPong(l)),
                    bytes: 4 << size,
                    active: 1,
                    seconds: fit::median(&cells),
                    count: pairs.len(),
                });
            }
        }
    }
    if let Some(first) = max_rates.first() {
        let Some((floats, row)) = first.iter().max_by_key(|r| r.0) else {
            return Err(BenchError("a max-rate run without rows".into()));
        };
        for np in 0..row.len() {
            let cells: Vec<f64> = max_rates
                .iter()
                .filter_map(|run| run.iter().find(|r| r.0 == *floats)?.1.get(np).copied())
                .collect();
            out.push(Median {
                experiment: Bench::Host(Experiment::Injection),
                bytes: 4 * floats,
                active: np as u64 + 1,
                seconds: cells.iter().copied().fold(f64::INFINITY, f64::min),
                count: cells.len(),
            });
        }
    }
    Ok(out)
}

/// The table's CSV header.
pub const TABLE_HEADER: &str = "experiment,locality,bytes,active,seconds,count";

/// The table as the project keeps it: `# source:` lines naming the
/// measured files and how the medians were taken, then the CSV.
pub fn write_table(source: &[String], medians: &[Median]) -> String {
    let mut s = String::new();
    for line in source {
        let _ = writeln!(s, "# source: {line}");
    }
    s += TABLE_HEADER;
    s.push('\n');
    for m in medians {
        let (experiment, locality) = m.experiment.names();
        let _ = writeln!(
            s,
            "{experiment},{locality},{},{},{:e},{}",
            m.bytes, m.active, m.seconds, m.count
        );
    }
    s
}

/// Reads [`write_table`]'s text: the source lines and the medians.
pub fn read_table(text: &str) -> Result<(Vec<String>, Vec<Median>), BenchError> {
    let mut source = Vec::new();
    let mut out = Vec::new();
    let mut header = false;
    for (n, line) in text.lines().enumerate() {
        let bad = |why: String| BenchError(format!("line {}: {why}", n + 1));
        if let Some(s) = line.strip_prefix("# source: ") {
            source.push(s.to_string());
            continue;
        }
        if !header {
            if line != TABLE_HEADER {
                return Err(bad(format!("expected the header '{TABLE_HEADER}'")));
            }
            header = true;
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 6 {
            return Err(bad(format!("{} fields, 6 expected", f.len())));
        }
        let experiment = Bench::all()
            .into_iter()
            .find(|b| b.names() == (f[0].to_string(), f[1].to_string()))
            .ok_or_else(|| {
                bad(format!(
                    "'{},{}' is not a measurement of the table",
                    f[0], f[1]
                ))
            })?;
        let num = |i: usize| {
            f[i].parse::<u64>()
                .ok()
                .filter(|x| (1..=1 << 40).contains(x))
                .ok_or_else(|| bad(format!("'{}' is not a count", f[i])))
        };
        let seconds = f[4]
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && (0.0..=3600.0).contains(t))
            .ok_or_else(|| bad(format!("'{}' is not a time in seconds", f[4])))?;
        out.push(Median {
            experiment,
            bytes: num(2)?,
            active: num(3)?,
            seconds,
            count: num(5)? as usize,
        });
    }
    if out.is_empty() {
        return Err(BenchError(
            "no medians (an amgcomm BenchPress table?)".into(),
        ));
    }
    Ok((source, out))
}

/// `base` with the parameters fitted from `medians` by `amgcomm
/// calibrate`'s fits, and every fitted parameter's provenance naming
/// `source` (the measured files); what the medians cannot give keeps
/// `base`'s value and provenance. Device medians fit the GPUs' own
/// parameters the same way (`gpus.*`: messages between device buffers
/// per locality, `R_N` of device data) and the copies' `alpha + s / R`
/// (`gpus.h2d`, `gpus.d2h`); `gpus_per_node` names the GPUs when `base`
/// has none yet. `thresholds`, when the runs' MPI is not the
/// machine's, are the host protocol thresholds to fit within and why.
pub fn fit(
    medians: &[Median],
    base: &Machine,
    source: &str,
    gpus_per_node: Option<usize>,
    thresholds: Option<([u64; 2], &str)>,
) -> Result<Machine, calibrate::FitError> {
    let host = |b: Bench| match b {
        Bench::Host(e) => Some(e),
        _ => None,
    };
    let given = thresholds.map(|t| t.0);
    let (params, mut provenance, fitted) =
        fit_params(medians, host, base, &base.params, "", given)?;
    if let Some((_, why)) = thresholds {
        for p in &mut provenance {
            if p.parameter == "eager_threshold, rendezvous_threshold" {
                p.source = why.to_string();
            }
        }
    }
    provenance.insert(
        0,
        Source {
            parameter: "measurements".into(),
            source: format!("published: {source}"),
        },
    );
    let mut gpus = base.gpus.clone();
    let mut fitted_ones = fitted;
    let device = |b: Bench| match b {
        Bench::Device(e) => Some(e),
        _ => None,
    };
    let per_node = gpus_per_node.or(base.gpus.as_ref().map(|g| g.per_node));
    let copies = |m: &Median| matches!(m.experiment, Bench::Memcpy(_));
    if let (Some(per_node), true) = (
        per_node,
        (medians.iter()).any(|m| device(m.experiment).is_some() || copies(m)),
    ) {
        // Device data's queue, contention and pack constants: the host's
        // (no device test measures them).
        let start = gpus.as_ref().map_or(params.clone(), |g| g.params.clone());
        let mut start = Params {
            gamma: params.gamma,
            delta: params.delta,
            pack_per_run: params.pack_per_run,
            pack_rate: params.pack_rate,
            ..start
        };
        let dm = Machine {
            ppn: per_node,
            ..base.clone()
        };
        // Copies alone (no device ping-pong) keep the messages' parameters.
        if medians.iter().any(|m| device(m.experiment).is_some()) {
            let (dp, dprov, dfitted) = fit_params(medians, device, &dm, &start, "gpus.", None)?;
            provenance.extend(dprov);
            fitted_ones.extend(dfitted);
            start = dp;
        }
        let dp = start;
        let copy = |way: Copy| -> Option<(Rate, Source)> {
            let mut pts: Vec<(f64, f64)> = (medians.iter())
                .filter(|m| m.experiment == Bench::Memcpy(way))
                .map(|m| (m.bytes as f64, m.seconds))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let line = fit::line(&pts)?;
            let name = match way {
                Copy::ToDevice => "gpus.h2d",
                Copy::ToHost => "gpus.d2h",
            };
            let rate = Rate {
                alpha: line.alpha.max(0.0),
                rate: 1.0 / line.per_byte.max(f64::MIN_POSITIVE),
            };
            let src = Source {
                parameter: name.into(),
                source: format!(
                    "fitted to the measurements: least squares of alpha + s / R in relative error, HPEC 2021 sec. III ({} points, {}-{} B, R^2 {:.3}, rms relative residual {:.2})",
                    line.points, pts[0].0, pts[pts.len() - 1].0, line.r2, line.rel_err
                ),
            };
            Some((rate, src))
        };
        let old = gpus.as_ref();
        let keep = |w: Copy| {
            old.map(|g| match w {
                Copy::ToDevice => g.h2d,
                Copy::ToHost => g.d2h,
            })
        };
        let mut rate = |w: Copy| -> Option<Rate> {
            match copy(w) {
                Some((r, src)) => {
                    fitted_ones.push(src.parameter.clone());
                    provenance.push(src);
                    Some(r)
                }
                None => keep(w),
            }
        };
        let (h2d, d2h) = (rate(Copy::ToDevice), rate(Copy::ToHost));
        if let (Some(h2d), Some(d2h)) = (h2d, d2h) {
            gpus = Some(Gpus {
                per_node,
                params: dp,
                h2d,
                d2h,
                work: base.gpus.as_ref().map(|g| g.work).unwrap_or_default(),
                memory: base.gpus.as_ref().map(|g| g.memory).unwrap_or_default(),
            });
        }
    }
    // What was not fitted keeps the base's provenance (its notes are
    // the fit's, written again).
    for s in &base.provenance {
        let ours = [
            "measurements",
            "eager_threshold, rendezvous_threshold",
            "gpus.eager_threshold, gpus.rendezvous_threshold",
        ];
        let note = s.parameter == "note" || s.parameter.starts_with("note ");
        let fit_note = note && provenance.iter().any(|p| p.source == s.source);
        let ours = ours.contains(&s.parameter.as_str()) || fitted_ones.contains(&s.parameter);
        if !(ours || fit_note || note && is_fit_note(&s.source)) {
            provenance.push(s.clone());
        }
    }
    Ok(Machine {
        params,
        gpus,
        provenance,
        calibration: None,
        ..base.clone()
    })
}

/// Whether a provenance note is one a fit writes (and writes again).
fn is_fit_note(source: &str) -> bool {
    let fitted = ["short:", "eager:", "rend:", "thresholds:"];
    fitted.iter().any(|f| source.contains(f))
}

/// `start` with the rates, thresholds and `R_N` fitted from the medians
/// `pick` maps to calibrate's experiments, on `m`'s node (`ppn` ranks
/// or GPUs); each fitted parameter's provenance named with `prefix`, and
/// the fit's notes.
fn fit_params(
    medians: &[Median],
    pick: impl Fn(Bench) -> Option<Experiment>,
    m: &Machine,
    start: &Params,
    prefix: &str,
    thresholds: Option<[u64; 2]>,
) -> Result<(Params, Vec<Source>, Vec<String>), calibrate::FitError> {
    let samples: Vec<Sample> = medians
        .iter()
        .filter_map(|md| {
            Some(Sample {
                experiment: pick(md.experiment)?,
                pattern: String::new(),
                bytes: md.bytes,
                messages: md.active,
                active: md.active,
                hops: 0.0,
                seconds: md.seconds,
                min_seconds: md.seconds,
                repetitions: md.count as u64,
            })
        })
        .collect();
    let setup = Setup {
        name: m.name.clone(),
        nodes: 2,
        ppn: m.ppn,
        sockets_per_node: m.sockets_per_node,
        network: m.network.clone(),
        placement: m.placement,
        thresholds,
        ranks: 2 * m.ppn,
        real_nodes: 2,
        mpi_library: String::new(),
        date: String::new(),
        host: String::new(),
        quick: false,
        measurements: String::new(),
        notes: Vec::new(),
    };
    let fitted = calibrate::fit_machine(&samples, &setup)?.machine;
    let cal = fitted.calibration.as_ref().expect("fit_machine calibrates");
    let mut params = start.clone();
    let mut provenance = Vec::new();
    for f in &cal.fits {
        let quality = match (f.r2, f.rel_err) {
            (Some(r2), Some(e)) => format!(", R^2 {r2:.3}, rms relative residual {e:.2}"),
            (Some(r2), None) => format!(", R^2 {r2:.3}"),
            _ => String::new(),
        };
        let bytes = f
            .bytes
            .map_or(String::new(), |[a, b]| format!(", {a}-{b} B"));
        let parameter = match f.parameter.as_str() {
            "thresholds" => format!("{prefix}eager_threshold, {prefix}rendezvous_threshold"),
            p => format!("{prefix}{p}"),
        };
        provenance.push(Source {
            parameter,
            source: format!(
                "fitted to the measurements: {} ({} points{bytes}{quality})",
                f.method, f.points
            ),
        });
    }
    let fitted_ones: Vec<String> = cal
        .fits
        .iter()
        .map(|f| format!("{prefix}{}", f.parameter))
        .collect();
    let p = &fitted.params;
    params.eager_threshold = p.eager_threshold;
    params.rendezvous_threshold = p.rendezvous_threshold;
    for l in Locality::DEFAULT {
        let name = l.default_name();
        if fitted_ones
            .iter()
            .any(|f| f.starts_with(&format!("{prefix}{name}.")))
        {
            *params.rates_mut(l) = *p.rates(l);
        }
    }
    if fitted_ones.iter().any(|f| *f == format!("{prefix}r_n")) {
        params.r_n = p.r_n;
    }
    for n in &cal.notes {
        provenance.push(Source {
            parameter: "note".into(),
            source: format!("{prefix}{n}"),
        });
    }
    Ok((params, provenance, fitted_ones))
}

/// The BenchPress runs a preset's parameters are fitted from: the files
/// of its folder of BenchPress outputs and how their ranks sat.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    /// The preset.
    pub preset: &'static str,
    /// The system measured, when not the preset's own.
    pub system: &'static str,
    /// Ranks of the ping-pong runs (two nodes).
    pub layout: Layout,
    /// Repeated ping-pong outputs.
    pub ping_pong: &'static [&'static str],
    /// Repeated max-rate outputs (none on Tioga).
    pub max_rate: &'static [&'static str],
    /// The GPU runs, if the system has GPUs.
    pub gpus: Option<GpuRuns>,
}

/// The runs that time device data (ping-pongs' GPU sections, max-rate's
/// GPU section, memcpy, and the multiple-message ping-pongs).
#[derive(Clone, Copy, Debug)]
pub struct GpuRuns {
    /// GPUs per node.
    pub per_node: usize,
    /// Memcpy outputs, repeated (only each rank's own GPU is read: `CPU
    /// p, GPU p mod per_node`).
    pub memcpy: &'static [&'static str],
    /// mult_pong outputs, repeated (their GPU section).
    pub mult: &'static [&'static str],
    /// mult_pong_split outputs, repeated.
    pub split: &'static [&'static str],
}

/// Each preset's runs (the folders' READMEs give the layouts; June 2021
/// runs preferred on Lassen, as its README asks).
pub static RUNS: &[Runs] = &[
    Runs {
        preset: "lassen",
        system: "Lassen",
        layout: Layout { ppn: 4, sockets: 2 },
        ping_pong: &["ping_pong.2598271.out", "ping_pong.2598272.out"],
        max_rate: &["maxrate.2598182.out"],
        gpus: Some(GpuRuns {
            per_node: 4,
            memcpy: &["memcpy.2598183.out"],
            mult: &["mult_pong.2598184.out"],
            split: &["mult_pong_split.2598185.out"],
        }),
    },
    Runs {
        preset: "summit",
        system: "Summit",
        layout: Layout { ppn: 6, sockets: 2 },
        ping_pong: &[
            "ping_pong.315486.out",
            "ping_pong.315490.out",
            "ping_pong.315491.out",
        ],
        max_rate: &[
            "maxrate.305181.out",
            "maxrate.305655.out",
            "maxrate.305656.out",
        ],
        gpus: Some(GpuRuns {
            per_node: 6,
            memcpy: &[
                "memcpy.305179.out",
                "memcpy.305657.out",
                "memcpy.305658.out",
            ],
            mult: &[],
            split: &[],
        }),
    },
    Runs {
        preset: "frontier",
        system: "Tioga (HPE Cray EX235a, MI250X, Slingshot: Frontier's node and network)",
        layout: Layout { ppn: 8, sockets: 1 },
        ping_pong: &["ping_pong.0.out", "ping_pong.2.out"],
        max_rate: &[],
        gpus: Some(GpuRuns {
            per_node: 8,
            memcpy: &["memcpy.out"],
            mult: &[],
            split: &[],
        }),
    },
];

impl Runs {
    /// The runs of `preset`.
    pub fn of(preset: &str) -> Option<&'static Runs> {
        RUNS.iter().find(|r| r.preset == preset)
    }

    /// What the medians are, for the table's `# source:` lines.
    pub fn source(&self) -> Vec<String> {
        let mut s = vec![format!(
            "BenchPress (github.com/bienz2/BenchPress) CPU ping-pongs on {}, {} (2 nodes, {} ranks per node, {} socket(s)): per locality and size, the median over rank pairs of the minimum over the runs",
            self.system,
            self.ping_pong.join(", "),
            self.layout.ppn,
            self.layout.sockets
        )];
        if !self.max_rate.is_empty() {
            s.push(format!(
                "max-rate, {}: per sender count at 512 KiB, the minimum over the runs",
                self.max_rate.join(", ")
            ));
        }
        if let Some(g) = &self.gpus {
            s.push(format!(
                "GPU ping-pongs (device buffers, CUDA-aware MPI) of the same files, medians as the CPU's{}",
                match self.max_rate.is_empty() {
                    true => String::new(),
                    false => "; GPU max-rate of the same max-rate files, per GPU count at 512 KiB".into(),
                }
            ));
            s.push(format!(
                "memcpy, {}: host-to-device and device-to-host per size, each rank with its own GPU (CPU p, GPU p), the median over ranks of the minimum over the runs",
                g.memcpy.join(", ")
            ));
            if !g.mult.is_empty() {
                s.push(format!(
                    "GPU multiple messages, {} and split, {}: per message count and size, the minimum over the runs",
                    g.mult.join(", "),
                    g.split.join(", ")
                ));
            }
        }
        s
    }

    /// The medians of the files in `dir`.
    pub fn read(&self, dir: &std::path::Path) -> Result<Vec<Median>, BenchError> {
        // Each file is read once; its CPU and GPU sections parsed from it.
        let gpus = self.gpus.is_some();
        let (pp, gpp): (Vec<_>, Vec<_>) = parsed(dir, self.ping_pong, |t| {
            Ok((
                ping_pong(t)?,
                gpus.then(|| ping_pong_of(t, Buffers::Device)).transpose()?,
            ))
        })?
        .into_iter()
        .unzip();
        let gpu_max_rate = |t: &str| sized_rows(t, "Timing GPU Max-Rate Ping Pongs", "max-rate");
        let (mr, gmr): (Vec<_>, Vec<_>) = parsed(dir, self.max_rate, |t| {
            Ok((max_rate(t)?, gpus.then(|| gpu_max_rate(t)).transpose()?))
        })?
        .into_iter()
        .unzip();
        let mut out = medians(&pp, &mr, self.layout)?;
        let Some(g) = &self.gpus else {
            return Ok(out);
        };
        let (gpp, gmr): (Vec<_>, Vec<_>) = (
            gpp.into_iter().flatten().collect(),
            gmr.into_iter().flatten().collect(),
        );
        let device = medians(&gpp, &gmr, self.layout)?;
        out.extend(device.into_iter().map(|m| Median {
            experiment: match m.experiment {
                Bench::Host(e) => Bench::Device(e),
                b => b,
            },
            ..m
        }));
        let (h2d, d2h): (Vec<_>, Vec<_>) = parsed(dir, g.memcpy, |t| {
            Ok((memcpy(t, Copy::ToDevice)?, memcpy(t, Copy::ToHost)?))
        })?
        .into_iter()
        .unzip();
        out.extend(copy_medians(&h2d, Copy::ToDevice, g.per_node)?);
        out.extend(copy_medians(&d2h, Copy::ToHost, g.per_node)?);
        let gpu_rows = |t: &str| sized_rows(t, "Timing GPU Multiple Messages", "mult_pong");
        for (files, bench) in [(g.mult, Bench::Messages), (g.split, Bench::Split)] {
            out.extend(message_minima(&parsed(dir, files, gpu_rows)?, bench));
        }
        Ok(out)
    }
}

/// `parse` of each of `files` in `dir`, each read once (at most 64
/// MiB); an error names its file.
pub(super) fn parsed<T>(
    dir: &std::path::Path,
    files: &[&str],
    parse: impl Fn(&str) -> Result<T, BenchError>,
) -> Result<Vec<T>, BenchError> {
    (files.iter())
        .map(|name| {
            let path = dir.join(name);
            parse(&read_text(&path)?)
                .map_err(|e| BenchError(format!("{}: {}", path.display(), e.0)))
        })
        .collect()
}

/// Per size, the median over ranks of each rank's copy to or from its
/// own GPU (`CPU p, GPU p mod per_node`), each the minimum over runs.
fn copy_medians(
    runs: &[Vec<(usize, usize, Vec<f64>)>],
    way: Copy,
    per_node: usize,
) -> Result<Vec<Median>, BenchError> {
    let Some(first) = runs.first() else {
        return Ok(Vec::new());
    };
    let own: Vec<usize> = (0..first.len())
        .filter(|&k| first[k].1 == first[k].0 % per_node.max(1))
        .collect();
    if own.is_empty() {
        return Err(BenchError("no memcpy row of a rank and its own GPU".into()));
    }
    let mut out = Vec::new();
    for size in 0..SIZES {
        let cells: Vec<f64> = own
            .iter()
            .map(|&k| {
                (runs.iter())
                    .filter_map(|r| r.get(k).filter(|x| (x.0, x.1) == (first[k].0, first[k].1)))
                    .map(|r| r.2[size])
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        out.push(Median {
            experiment: Bench::Memcpy(way),
            bytes: 4 << size,
            active: 1,
            seconds: fit::median(&cells),
            count: own.len(),
        });
    }
    Ok(out)
}

/// Per message count and size of multiple-message runs, the minimum over
/// the runs (`bytes` the size of the row: each message's, or all
/// messages' for the split runs).
fn message_minima(runs: &[Vec<(u64, Vec<f64>)>], bench: Bench) -> Vec<Median> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (floats, row) in first {
        for n in 0..row.len() {
            let cells: Vec<f64> = (runs.iter())
                .filter_map(|r| r.iter().find(|x| x.0 == *floats)?.1.get(n).copied())
                .collect();
            out.push(Median {
                experiment: bench,
                bytes: 4 * floats,
                active: n as u64 + 1,
                seconds: cells.iter().copied().fold(f64::INFINITY, f64::min),
                count: cells.len(),
            });
        }
    }
    out
}

/// A BenchPress output or a table: text of at most 64 MiB, or one line
/// naming the file.
fn read_text(path: &std::path::Path) -> Result<String, BenchError> {
    crate::memory::read_text(path, 64 << 20)
        .map_err(|e| BenchError(format!("{}: {}", path.display(), crate::output::reason(&e))))
}

/// Why `preset` has no runs to fit it from (naming the presets that
/// have some), or nothing.
pub fn fittable(preset: &str) -> Result<(), BenchError> {
    if Runs::of(preset).is_some() || super::locality_aware::Runs::of(preset).is_some() {
        return Ok(());
    }
    let known: Vec<&str> = (RUNS.iter().map(|r| r.preset))
        .chain(super::locality_aware::RUNS.iter().map(|r| r.preset))
        .collect();
    Err(BenchError(format!(
        "{preset}: no measured runs to fit it from (presets: {})",
        known.join(", ")
    )))
}

/// Preset `name` with its measured parameters fitted again `from` a
/// folder of its runs (BenchPress's, [`RUNS`], or MPI Advance's,
/// [`super::locality_aware::RUNS`]) or a table of medians
/// ([`write_table`]'s); also the table's source lines and medians.
pub fn refit(
    name: &str,
    from: &std::path::Path,
) -> Result<(Machine, Vec<String>, Vec<Median>), BenchError> {
    fittable(name)?;
    let base = crate::machine::presets::preset(name).expect("every run names a preset");
    // From a folder, its runs' medians; from a table, its own.
    let dir = from.is_dir();
    let (source, per_node, thresholds, medians) =
        match (Runs::of(name), super::locality_aware::Runs::of(name)) {
            (Some(runs), _) => (
                runs.source(),
                runs.gpus.map(|g| g.per_node),
                None,
                dir.then(|| runs.read(from)).transpose()?,
            ),
            (None, Some(runs)) => (
                runs.source(),
                Some(runs.gpus_per_node),
                runs.thresholds,
                dir.then(|| runs.read(from)).transpose()?,
            ),
            (None, None) => unreachable!("fittable"),
        };
    let (source, medians) = match medians {
        Some(medians) => (source, medians),
        None => read_table(&read_text(from)?)
            .map_err(|e| BenchError(format!("{}: {}", from.display(), e.0)))?,
    };
    let m = fit(&medians, &base, &source.join("; "), per_node, thresholds)
        .map_err(|e| BenchError(format!("{}: {e}", from.display())))?;
    Ok((m, source, medians))
}
