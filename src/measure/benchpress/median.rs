//! The medians of BenchPress's runs ([`Median`]) and the project's own
//! table of them (CSV naming its source).

use std::fmt::Write as _;

use super::super::calibrate::Experiment;
use super::super::fit;
use super::read::{BenchError, SIZES};
use crate::machine::{Copy, Locality};

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

/// Per size, the median over ranks of each rank's copy to or from its
/// own GPU (`CPU p, GPU p mod per_node`), each the minimum over runs.
pub(crate) fn copy_medians(
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
pub(crate) fn message_minima(runs: &[Vec<(u64, Vec<f64>)>], bench: Bench) -> Vec<Median> {
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
