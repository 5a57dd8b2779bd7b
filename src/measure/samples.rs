//! `amgcomm calibrate`'s raw measurements: one [`Sample`] per exchange
//! timed, written as CSV.

use std::fmt::Write as _;

use crate::machine::Locality;

/// Which test a measurement belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Experiment {
    /// A ping-pong between two ranks of this locality: one-way time.
    PingPong(Locality),
    /// `active` ranks of one node each send one message to another node.
    Injection,
    /// `count` messages received with the receives posted in reversed tag
    /// order.
    QueueReversed,
    /// The same with receives in matching order.
    QueueMatching,
    /// The same received one at a time as RAPtor's `communicate(A)`
    /// receives rows: a blocking probe, then the receive, in tag order.
    RecvSerial,
    /// Every rank of the sending nodes sends one message to another node:
    /// a shift or a pair of nodes (the `pattern`).
    Contention,
    /// Every rank copies its local matrix as RAPtor's `communicate(A)`
    /// does (`messages`: the nonzeros copied; `active`: the ranks at it).
    RowCopy,
    /// Every rank packs its rows into (value, index) pairs and unpacks
    /// them (`messages`: the elements packed plus unpacked).
    RowPack,
}

impl Experiment {
    /// Its name in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Experiment::PingPong(_) => "pingpong",
            Experiment::Injection => "injection",
            Experiment::QueueReversed => "queue-reversed",
            Experiment::QueueMatching => "queue-matching",
            Experiment::RecvSerial => "recv-serial",
            Experiment::Contention => "contention",
            Experiment::RowCopy => "row-copy",
            Experiment::RowPack => "row-pack",
        }
    }
}

/// One measurement: seconds of one exchange as the median and the
/// minimum over batches (each batch the mean over its repetitions, of
/// the slowest rank).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sample {
    /// The test.
    pub experiment: Experiment,
    /// The ranks or nodes involved, in words (`ranks 0-1`, `shift 1`).
    pub pattern: String,
    /// Bytes of each message.
    pub bytes: u64,
    /// Messages in the exchange.
    pub messages: u64,
    /// Ranks of one node sending network messages at once (`a` of eq. 2).
    pub active: u64,
    /// Byte-weighted mean router hops of the network messages.
    pub hops: f64,
    /// Median over batches (s).
    pub seconds: f64,
    /// Minimum over batches (s).
    pub min_seconds: f64,
    /// Exchanges timed per batch.
    pub repetitions: u64,
}

/// The queue test's `(n, seconds of experiment, seconds of base)` for
/// each message count `n` both timed: an order of receives set beside
/// another on the same messages.
pub fn by_count(
    samples: &[Sample],
    experiment: Experiment,
    base: Experiment,
) -> Vec<(f64, f64, f64)> {
    let of = |e: Experiment| samples.iter().filter(move |s| s.experiment == e);
    of(experiment)
        .filter_map(|s| {
            let b = of(base).find(|b| b.messages == s.messages)?;
            Some((s.messages as f64, s.seconds, b.seconds))
        })
        .collect()
}

/// The CSV header of [`csv`].
pub const CSV_HEADER: &str =
    "experiment,locality,pattern,bytes,messages,active,hops,seconds,min_seconds,repetitions";

/// The raw measurements as CSV, one row per [`Sample`].
pub fn csv(samples: &[Sample]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for s in samples {
        let locality = match s.experiment {
            Experiment::PingPong(l) => &l.default_name(),
            Experiment::QueueReversed
            | Experiment::QueueMatching
            | Experiment::RecvSerial
            | Experiment::RowCopy
            | Experiment::RowPack => "",
            Experiment::Injection | Experiment::Contention => "network",
        };
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{:e},{:e},{}",
            s.experiment.name(),
            locality,
            s.pattern,
            s.bytes,
            s.messages,
            s.active,
            s.hops,
            s.seconds,
            s.min_seconds,
            s.repetitions
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csv_has_a_row_per_sample() {
        let s = Sample {
            experiment: Experiment::PingPong(Locality::NODE),
            pattern: "ranks 0-8".into(),
            bytes: 64,
            messages: 1,
            active: 1,
            hops: 0.0,
            seconds: 1.5e-6,
            min_seconds: 1.25e-6,
            repetitions: 100,
        };
        assert_eq!(
            csv(&[s]),
            format!("{CSV_HEADER}\npingpong,node,ranks 0-8,64,1,1,0,1.5e-6,1.25e-6,100\n")
        );
    }
}
