//! Machine presets from BenchPress microbenchmarks (Bienz et al.,
//! `bienz2/BenchPress`, `examples/time_ping_pong.cpp`,
//! `time_max_rate.cpp`): the CPU ping-pongs between every pair of ranks
//! of two nodes, and the max-rate test (`np` ranks of a node each
//! ping-pong with a partner on the other node at once).
//!
//! The output files become a small table of medians ([`Median`], the
//! project's own CSV, naming its source): per locality and size the
//! median over the rank pairs of that locality of the minimum over the
//! repeated runs (the READMEs of `../shared/reference/` ask for the
//! minimum of repeats: single cells spike 2-10x); per sender count the
//! max-rate time of the largest size. [`fit`] turns the table into the
//! machine's parameters with `amgcomm calibrate`'s own fits
//! ([`super::calibrate::fit_machine`]) and records each one's provenance.

use std::fmt::Write as _;

use super::calibrate::{self, Experiment, Sample, Setup};
use super::fit;
use crate::machine::{Locality, Machine, Source};

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
    let mut lines = text.lines().enumerate().map(|(n, l)| (n + 1, l.trim_end()));
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

/// Rank pairs of the CPU section of a ping-pong output: `(a, b, one-way
/// seconds per size)` from lines `CPU a and CPU b:` followed by
/// [`SIZES`] values, up to the next section.
pub fn ping_pong(text: &str) -> Result<Vec<(usize, usize, Vec<f64>)>, BenchError> {
    let missing = "no 'Profiling Standard CPU Ping-Pongs:' rows (a BenchPress ping-pong output?)";
    section(
        text,
        "Profiling Standard CPU Ping-Pongs",
        "CPU ",
        missing,
        |rest| {
            let (pair, values) = rest.split_once(':').ok_or("not 'CPU a and CPU b: times'")?;
            let (a, b) = pair
                .split_once(" and CPU ")
                .and_then(|(a, b)| Some((a.trim().parse().ok()?, b.trim().parse().ok()?)))
                .ok_or("not 'CPU a and CPU b:'")?;
            Ok((a, b, times(values, SIZES)?))
        },
    )
}

/// The CPU section of a max-rate output: `(floats, seconds per sender
/// count 1, 2, ...)` from lines `Size S` and their values.
pub fn max_rate(text: &str) -> Result<Vec<(u64, Vec<f64>)>, BenchError> {
    let missing = "no 'Timing Max-Rate CPU Ping-Pongs' rows (a BenchPress max-rate output?)";
    section(
        text,
        "Timing Max-Rate CPU Ping-Pongs",
        "Size ",
        missing,
        |rest| {
            let mut it = rest.splitn(2, ['\t', ' ']);
            let size = it
                .next()
                .and_then(|s| s.parse::<u64>().ok())
                .filter(|s| (1..=1 << 30).contains(s))
                .ok_or("not 'Size S' with S a count of floats")?;
            Ok((size, times(it.next().unwrap_or(""), 0)?))
        },
    )
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

/// One median of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Median {
    /// `pingpong` (one-way time between two ranks of `locality`) or
    /// `injection` (`active` ranks of a node at once, max-rate).
    pub experiment: Experiment,
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
                    experiment: Experiment::PingPong(l),
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
                experiment: Experiment::Injection,
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
        let locality = match m.experiment {
            Experiment::PingPong(l) => l.default_name(),
            _ => "network".into(),
        };
        let _ = writeln!(
            s,
            "{},{locality},{},{},{:e},{}",
            m.experiment.name(),
            m.bytes,
            m.active,
            m.seconds,
            m.count
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
        let experiment = match (f[0], f[1]) {
            ("pingpong", "socket") => Experiment::PingPong(Locality::SOCKET),
            ("pingpong", "node") => Experiment::PingPong(Locality::NODE),
            ("pingpong", "network") => Experiment::PingPong(Locality::NETWORK),
            ("injection", "network") => Experiment::Injection,
            (e, l) => return Err(bad(format!("'{e},{l}' is not a measurement of the table"))),
        };
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
/// `base`'s value and provenance.
pub fn fit(
    medians: &[Median],
    base: &Machine,
    source: &str,
) -> Result<Machine, calibrate::FitError> {
    let samples: Vec<Sample> = medians
        .iter()
        .map(|m| Sample {
            experiment: m.experiment,
            pattern: String::new(),
            bytes: m.bytes,
            messages: m.active,
            active: m.active,
            hops: 0.0,
            seconds: m.seconds,
            min_seconds: m.seconds,
            repetitions: m.count as u64,
        })
        .collect();
    let setup = Setup {
        name: base.name.clone(),
        nodes: 2,
        ppn: base.ppn,
        sockets_per_node: base.sockets_per_node,
        network: base.network.clone(),
        placement: base.placement,
        thresholds: None,
        ranks: 2 * base.ppn,
        real_nodes: 2,
        mpi_library: String::new(),
        date: String::new(),
        quick: false,
        measurements: source.into(),
        notes: Vec::new(),
    };
    let fitted = calibrate::fit_machine(&samples, &setup)?.machine;
    let cal = fitted.calibration.as_ref().expect("fit_machine calibrates");
    let mut params = base.params.clone();
    let mut provenance = vec![Source {
        parameter: "measurements".into(),
        source: format!("published: {source}"),
    }];
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
            "thresholds" => "eager_threshold, rendezvous_threshold".into(),
            p => p.to_string(),
        };
        provenance.push(Source {
            parameter,
            source: format!(
                "fitted to the measurements: {} ({} points{bytes}{quality})",
                f.method, f.points
            ),
        });
    }
    let fitted_ones: Vec<&str> = cal.fits.iter().map(|f| f.parameter.as_str()).collect();
    let p = &fitted.params;
    params.eager_threshold = p.eager_threshold;
    params.rendezvous_threshold = p.rendezvous_threshold;
    for l in Locality::DEFAULT {
        let name = l.default_name();
        if fitted_ones
            .iter()
            .any(|f| f.starts_with(&format!("{name}.")))
        {
            *params.rates_mut(l) = *p.rates(l);
        }
    }
    if fitted_ones.contains(&"r_n") {
        params.r_n = p.r_n;
    }
    // What was not fitted keeps the base's provenance (its notes are
    // the fit's, written again below).
    for s in &base.provenance {
        let ours = [
            "note",
            "measurements",
            "eager_threshold, rendezvous_threshold",
        ];
        if !ours.contains(&s.parameter.as_str()) && !fitted_ones.contains(&s.parameter.as_str()) {
            provenance.push(s.clone());
        }
    }
    for n in &cal.notes {
        provenance.push(Source {
            parameter: "note".into(),
            source: n.clone(),
        });
    }
    Ok(Machine {
        params,
        provenance,
        calibration: None,
        ..base.clone()
    })
}

/// The BenchPress runs a preset's parameters are fitted from: the files
/// of its folder in `../shared/reference/` and how their ranks sat.
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
    },
    Runs {
        preset: "frontier",
        system: "Tioga (HPE Cray EX235a, MI250X, Slingshot: Frontier's node and network)",
        layout: Layout { ppn: 8, sockets: 1 },
        ping_pong: &["ping_pong.0.out", "ping_pong.2.out"],
        max_rate: &[],
    },
];

impl Runs {
    /// The runs of `preset`.
    pub fn of(preset: &str) -> Option<&'static Runs> {
        RUNS.iter().find(|r| r.preset == preset)
    }

    /// The runs of `preset`, or why there are none (naming the presets
    /// that have some).
    pub fn named(preset: &str) -> Result<&'static Runs, BenchError> {
        Runs::of(preset).ok_or_else(|| {
            let known: Vec<&str> = RUNS.iter().map(|r| r.preset).collect();
            BenchError(format!(
                "{preset}: no BenchPress runs to fit it from (presets: {})",
                known.join(", ")
            ))
        })
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
        s
    }

    /// The medians of the files in `dir`.
    pub fn read(&self, dir: &std::path::Path) -> Result<Vec<Median>, BenchError> {
        let read = |name: &str| read_text(&dir.join(name));
        let with = |name: &str, e: BenchError| {
            BenchError(format!("{}: {}", dir.join(name).display(), e.0))
        };
        let pp = (self.ping_pong.iter())
            .map(|f| ping_pong(&read(f)?).map_err(|e| with(f, e)))
            .collect::<Result<Vec<_>, _>>()?;
        let mr = (self.max_rate.iter())
            .map(|f| max_rate(&read(f)?).map_err(|e| with(f, e)))
            .collect::<Result<Vec<_>, _>>()?;
        medians(&pp, &mr, self.layout)
    }
}

/// A BenchPress output or a table: text of at most 64 MiB, or one line
/// naming the file.
fn read_text(path: &std::path::Path) -> Result<String, BenchError> {
    crate::memory::read_text(path, 64 << 20)
        .map_err(|e| BenchError(format!("{}: {}", path.display(), crate::output::reason(&e))))
}

/// Preset `name` with its measured parameters fitted again `from` a
/// folder of its BenchPress runs ([`RUNS`]) or a table of medians
/// ([`write_table`]'s); also the table's source lines and medians.
pub fn refit(
    name: &str,
    from: &std::path::Path,
) -> Result<(Machine, Vec<String>, Vec<Median>), BenchError> {
    let runs = Runs::named(name)?;
    let base = crate::machine::presets::preset(name).expect("every run names a preset");
    let (source, medians) = if from.is_dir() {
        (runs.source(), runs.read(from)?)
    } else {
        read_table(&read_text(from)?)
            .map_err(|e| BenchError(format!("{}: {}", from.display(), e.0)))?
    };
    let m = fit(&medians, &base, &source.join("; "))
        .map_err(|e| BenchError(format!("{}: {e}", from.display())))?;
    Ok((m, source, medians))
}
