//! The parameters the cost models charge with: EuroMPI'18's Table 1
//! (`alpha` and `R_b` per locality and protocol), `R_N`, `gamma`, `delta`
//! and the protocol thresholds, and the classic models' own (LogGP,
//! log3P's pack table, copy-transfer throughputs).

use serde::{Deserialize, Serialize};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};

use super::{Invalid, Locality};

/// Latency (s) and rate (bytes/s) of one locality and protocol class.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    /// Latency `alpha` per message (s).
    pub alpha: f64,
    /// Rate `R_b` (bytes/s).
    pub rate: f64,
}

/// The three protocols of one locality.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolRates {
    /// Short messages.
    pub short: Rate,
    /// Eager messages.
    pub eager: Rate,
    /// Rendezvous messages.
    pub rend: Rate,
}

impl ProtocolRates {
    /// The rates of protocol index `protocol` (0 short, 1 eager, 2 rend).
    pub fn of(&self, protocol: usize) -> Rate {
        [self.short, self.eager, self.rend][protocol]
    }
}

/// Table 1's rows: the rates of each locality class, by the class's name,
/// in the machine's class order (the network last). In a machine file
/// they are `params`' objects named after the classes (`socket`, `node`,
/// `network`, or those of the file's `localities`).
#[derive(Clone, Debug, PartialEq)]
pub struct Rates(pub Vec<(String, ProtocolRates)>);

impl Rates {
    /// The class names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(n, _)| n.as_str())
    }

    /// The rates of the class named `name`.
    pub fn named(&self, name: &str) -> Option<&ProtocolRates> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, r)| r)
    }

    /// Puts the classes in `names`' order when they are the same set
    /// (else leaves them for [`super::Machine::validate`] to name).
    pub fn order_as(&mut self, names: &[String]) {
        let same = self.0.len() == names.len() && names.iter().all(|n| self.named(n).is_some());
        if same {
            self.0
                .sort_by_key(|(n, _)| names.iter().position(|m| m == n));
        }
    }
}

impl Serialize for Rates {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, r) in &self.0 {
            map.serialize_entry(name, r)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Rates {
    /// In the file's order; a field that is neither another parameter nor
    /// a class's `{short, eager, rend}` is named.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rates, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Rates;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("locality classes' rates")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Rates, A::Error> {
                use serde::de::Error;
                let mut out = Vec::new();
                while let Some((name, v)) = a.next_entry::<String, serde_json::Value>()? {
                    // A misspelt parameter reaches here among the classes.
                    if let Some(p) = crate::json_in::nearest(&name, FIELDS) {
                        return Err(A::Error::custom(format!(
                            "unknown field `{name}` in params (did you mean `{p}`?)"
                        )));
                    }
                    let r = ProtocolRates::deserialize(v).map_err(|e| {
                        A::Error::custom(format!(
                            "params.{name}: not a parameter, nor a locality class's rates ({e})"
                        ))
                    })?;
                    out.push((name, r));
                }
                Ok(Rates(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The parameters the cost models charge with (EuroMPI'18, Table 1 and
/// sec. 4-5): per locality and protocol `alpha` and `R_b`, the injection
/// bandwidth limit `R_N` (network rendezvous only), the queue-search
/// constant `gamma`, the contention constant `delta`, and the protocol
/// thresholds (short below `eager_threshold` bytes, rendezvous from
/// `rendezvous_threshold`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// Smallest eager message (bytes); smaller ones are short.
    pub eager_threshold: u64,
    /// Smallest rendezvous message (bytes).
    pub rendezvous_threshold: u64,
    /// `alpha` and `R_b` per locality class and protocol (Table 1).
    #[serde(flatten)]
    pub rates: Rates,
    /// Injection bandwidth limit `R_N` of a node (bytes/s, eq. 2;
    /// network rendezvous only): all its NICs together.
    pub r_n: f64,
    /// NICs per node, each injecting `R_N / nics` for its block of the
    /// node's ranks (local rank `l` of `ppn` uses NIC `l nics / ppn`, as
    /// Cray MPICH's `MPICH_OFI_NIC_POLICY=BLOCK`): eq. 2's `a` is then
    /// the active senders sharing a NIC. 1 (a node-wide limit, as
    /// EuroMPI'18) unless a file says.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub nics: usize,
    /// Queue-search cost per message searched `gamma` (s, eq. 3).
    pub gamma: f64,
    /// Contention cost per byte of link load `delta` (s, eqs. 5-7).
    pub delta: f64,
    /// The `pack` term (log3P's `l_mw`): gathering a message from `k > 1`
    /// runs of local data costs `k * pack_per_run + bytes / pack_rate`.
    #[serde(default = "default_pack_per_run")]
    pub pack_per_run: f64,
    /// The `pack` term's copy rate (bytes/s).
    #[serde(default = "default_pack_rate")]
    pub pack_rate: f64,
    /// log3P's `l_mw` measured over message size and runs; replaces the
    /// linear `pack` model when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pack_table: Option<PackTable>,
    /// LogGP for every message (term `loggp`); derived per locality and
    /// protocol class from `alpha` and `R_b` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loggp: Option<LogGP>,
    /// Copy-transfer throughputs (term `copytransfer`); derived by
    /// [`Params::copy_rates`] when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_transfer: Option<CopyRates>,
    /// The local work of an exchange of matrix rows (RAPtor's
    /// `CommPkg::communicate(A)`): terms `rowcopy`, `rowpack` and
    /// `recvserial`.
    #[serde(default = "RowWork::bluewaters")]
    pub row_work: RowWork,
}

/// [`Params`]' own fields (the rest of `params` are locality classes),
/// to name a misspelt one.
pub const FIELDS: [&str; 12] = [
    "eager_threshold",
    "rendezvous_threshold",
    "r_n",
    "nics",
    "gamma",
    "delta",
    "pack_per_run",
    "pack_rate",
    "pack_table",
    "loggp",
    "copy_transfer",
    "row_work",
];

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// What a rank does around the messages of an exchange of matrix rows, as
/// RAPtor's 2018 `CommPkg::communicate(A)` and `communication_helper` do
/// it (`raptor/core/comm_pkg.cpp`): it copies its whole local matrix into
/// (row pointer, global column, value) arrays, packs every row sent
/// element by element into a growing buffer of (value, index) pairs (one
/// for the row's length, one per nonzero), and receives one source at a
/// time in a fixed order with a blocking `MPI_Probe` and `MPI_Recv`,
/// unpacking each message into a new CSR matrix the same way.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RowWork {
    /// Seconds per nonzero of the rank's local matrix copied before any
    /// row is packed (term `rowcopy`).
    pub copy_per_nonzero: f64,
    /// Seconds per (value, index) element packed on the sender plus
    /// unpacked on the receiver (term `rowpack`; the two cannot be told
    /// apart on symmetric exchanges, so one figure covers both).
    pub per_element: f64,
    /// Seconds per message received one source at a time: probe, size,
    /// blocking receive of a message nothing was posted for (term
    /// `recvserial`).
    pub per_received: f64,
    /// The model's demonstrated error on the exchanges these parameters
    /// were fitted to, as a factor (the median `|log(modeled /
    /// measured)|`, exponentiated): the advice calls two strategies of
    /// `aa` a close call within it.
    #[serde(default = "no_error")]
    pub error: f64,
}

fn no_error() -> f64 {
    1.0
}

impl RowWork {
    /// Blue Waters' fit to RAPtor's benchmark_matops logs of June 2018
    /// (`aniso_128.out`, `aniso_512.out`: `A Communication` and `A TAP
    /// Communication` per level; `scripts/fit_row_work.sh`).
    pub fn bluewaters() -> RowWork {
        RowWork {
            copy_per_nonzero: BW_ROW_WORK[0],
            per_element: BW_ROW_WORK[1],
            per_received: BW_ROW_WORK[2],
            error: BW_ROW_WORK_ERROR,
        }
    }

    /// The parameters as a vector, in [`RowWork::NAMES`]' order.
    pub fn as_array(&self) -> [f64; 3] {
        [self.copy_per_nonzero, self.per_element, self.per_received]
    }

    /// The parameters' names in machine files.
    pub const NAMES: [&'static str; 3] = ["copy_per_nonzero", "per_element", "per_received"];

    fn validate(&self) -> Result<(), Invalid> {
        for (name, x) in Self::NAMES.iter().zip(self.as_array()) {
            time(&format!("params.row_work.{name}"), x)?;
        }
        if !(self.error.is_finite() && (1.0..=100.0).contains(&self.error)) {
            return Err("params.row_work.error must be a factor in [1, 100]".into());
        }
        Ok(())
    }
}

/// Blue Waters' [`RowWork`], as `amgcomm machine fit bluewaters` prints it.
pub const BW_ROW_WORK: [f64; 3] = [3.285395937653263e-8, 3.008922595480617e-8, 0.0];

/// The median factor by which Blue Waters' row-work model misses the
/// exchanges it was fitted to (`RowFit::demonstrated_error`).
pub const BW_ROW_WORK_ERROR: f64 = 1.3594201966158619;

/// LogGP parameters: latency `l`, send and receive overheads, the gap `g`
/// between consecutive sends of one rank, and the gap per byte `big_g`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogGP {
    /// Latency `L`.
    pub l: f64,
    /// Send overhead `o_s`.
    pub o_s: f64,
    /// Receive overhead `o_r`.
    pub o_r: f64,
    /// Gap `g` between consecutive sends of one rank.
    pub g: f64,
    /// Gap per byte `G`.
    pub big_g: f64,
}

impl LogGP {
    /// One message of `s` bytes: `o_s + L + (s - 1) G + o_r`.
    pub fn message(&self, s: f64) -> f64 {
        self.o_s + self.l + (s - 1.0).max(0.0) * self.big_g + self.o_r
    }

    /// From a postal `alpha + s / R_b` class when no LogGP parameters are
    /// given: `G = 1 / R_b`; the start-up `alpha` is split evenly into
    /// `o_s`, `L` and `o_r`, so a single message costs the same in both
    /// models (up to one byte's `G`); `g = o_s` (a rank injects once its
    /// overhead is paid).
    pub fn from_postal(alpha: f64, rate: f64) -> LogGP {
        let third = alpha / 3.0;
        LogGP {
            l: third,
            o_s: third,
            o_r: third,
            g: third,
            big_g: 1.0 / rate,
        }
    }
}

/// log3P's `l_mw` (Cameron, Ge and Sun 2007) on a grid: `seconds[i][j]`
/// gathers a message of `bytes[i]` bytes from `runs[j]` contiguous runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackTable {
    /// Message sizes, increasing.
    pub bytes: Vec<f64>,
    /// Run counts, increasing.
    pub runs: Vec<f64>,
    /// `seconds[i][j]`: the cost at `bytes[i]` and `runs[j]`.
    pub seconds: Vec<Vec<f64>>,
    /// Where the figures come from.
    #[serde(default)]
    pub source: String,
}

/// Copy-transfer throughputs in bytes/s (Stricker and Gross, ISCA 1995):
/// local copy from contiguous (`1C1`) and indexed (`wC1`) data, the
/// network interface sending from contiguous (`1S0`) or indexed (`wS0`)
/// data, deposit into contiguous memory (`0D1`), and the network for data
/// (`Nd`) at each congestion level (ranks sending across one link).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CopyRates {
    /// `1C1`: local copy from contiguous data.
    #[serde(rename = "1C1")]
    pub copy: f64,
    /// `wC1`: local copy from indexed data.
    #[serde(rename = "wC1")]
    pub copy_indexed: f64,
    /// `1S0`: the network interface sending contiguous data.
    #[serde(rename = "1S0")]
    pub send: f64,
    /// `wS0`: the network interface sending indexed data.
    #[serde(rename = "wS0")]
    pub send_indexed: f64,
    /// `0D1`: deposit into contiguous memory.
    #[serde(rename = "0D1")]
    pub deposit: f64,
    /// Congestion levels (ranks sending across one link), increasing.
    pub congestion: Vec<f64>,
    /// `Nd` at each congestion level.
    pub network_data: Vec<f64>,
}

/// Plausible times: a per-message or per-byte cost above a second
/// describes no network (and would overflow the models' sums).
const MOST_SECONDS: f64 = 1.0;
/// Plausible rates in bytes/s: from 1 KB/s to 1 PB/s.
const RATES: (f64, f64) = (1e3, 1e15);

/// `x` as written in a machine file: 1e308 in exponent form, not 309
/// digits.
fn number(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// `x` is a time in `[0, 1]` seconds.
fn time(name: &str, x: f64) -> Result<(), Invalid> {
    if x.is_finite() && (0.0..=MOST_SECONDS).contains(&x) {
        return Ok(());
    }
    Err(Invalid(format!(
        "{name} is {}; a time must lie in [0, {MOST_SECONDS}] seconds",
        number(x)
    )))
}

/// `x` is a rate in `[1e3, 1e15]` bytes/s.
fn rate(name: &str, x: f64) -> Result<(), Invalid> {
    if x.is_finite() && (RATES.0..=RATES.1).contains(&x) {
        return Ok(());
    }
    Err(Invalid(format!(
        "{name} is {}; a rate must lie in [{:e}, {:e}] bytes/s",
        number(x),
        RATES.0,
        RATES.1
    )))
}

/// `name` is a non-empty, strictly increasing list of positive numbers.
fn increasing(name: &str, v: &[f64]) -> Result<(), Invalid> {
    let positive = v.iter().all(|x| x.is_finite() && *x > 0.0);
    if v.is_empty() || !positive || v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Invalid(format!(
            "{name} must be a non-empty increasing list of positive numbers"
        )));
    }
    Ok(())
}

impl PackTable {
    fn validate(&self) -> Result<(), Invalid> {
        increasing("bytes", &self.bytes)?;
        increasing("runs", &self.runs)?;
        if self.seconds.len() != self.bytes.len()
            || self.seconds.iter().any(|row| row.len() != self.runs.len())
        {
            return Err(Invalid(format!(
                "seconds must have {} rows (one per size) of {} values (one per runs)",
                self.bytes.len(),
                self.runs.len()
            )));
        }
        for x in self.seconds.iter().flatten() {
            time("seconds", *x)?;
        }
        Ok(())
    }
}

impl CopyRates {
    fn validate(&self) -> Result<(), Invalid> {
        let rates = [
            ("1C1", self.copy),
            ("wC1", self.copy_indexed),
            ("1S0", self.send),
            ("wS0", self.send_indexed),
            ("0D1", self.deposit),
        ];
        for (name, x) in rates {
            rate(name, x)?;
        }
        increasing("congestion", &self.congestion)?;
        if self.network_data.len() != self.congestion.len() {
            return Err("network_data must give one rate per congestion level".into());
        }
        for x in &self.network_data {
            rate("network_data", *x)?;
        }
        Ok(())
    }
}

/// No log3P table exists for Blue Waters: a run is charged one DRAM
/// latency (about 100 ns on its Opteron 6276 nodes), an assumption to
/// replace with a measurement in a machine file.
fn default_pack_per_run() -> f64 {
    1.0e-7
}

/// The copy runs at Table 1's on-socket rendezvous rate, a local copy.
fn default_pack_rate() -> f64 {
    6.2e9
}

impl Params {
    /// Blue Waters, Table 1 of Bienz, Gropp and Olson (EuroMPI'18).
    pub fn bluewaters() -> Params {
        let r = |alpha, rate| Rate { alpha, rate };
        Params {
            eager_threshold: 500,
            rendezvous_threshold: 8000,
            rates: Rates(vec![
                (
                    "socket".into(),
                    ProtocolRates {
                        short: r(4.4e-7, 2.2e9),
                        eager: r(5.3e-7, 3.2e9),
                        rend: r(1.7e-6, 6.2e9),
                    },
                ),
                (
                    "node".into(),
                    ProtocolRates {
                        short: r(8.3e-7, 4.8e8),
                        eager: r(1.2e-6, 9.6e8),
                        rend: r(2.5e-6, 6.2e9),
                    },
                ),
                (
                    "network".into(),
                    ProtocolRates {
                        short: r(2.3e-6, 1.3e9),
                        eager: r(7.0e-6, 7.5e8),
                        rend: r(3.0e-6, 2.9e9),
                    },
                ),
            ]),
            r_n: 6.6e9,
            nics: 1,
            gamma: 8.4e-9,
            delta: 1.0e-10,
            pack_per_run: default_pack_per_run(),
            pack_rate: default_pack_rate(),
            pack_table: None,
            loggp: None,
            copy_transfer: None,
            row_work: RowWork::bluewaters(),
        }
    }

    /// The machine file's copy-transfer rates, or, when it has none, from
    /// Table 1 and the `pack` parameters (no copy-transfer measurements
    /// exist for Blue Waters): `1C1` = on-socket rendezvous `R_b` (a local
    /// copy); `wC1` = one 8-byte word per run at the `pack` model,
    /// `8 / (pack_per_run + 8 / pack_rate)`; `wS0` = `wC1` (Gemini's
    /// processor-driven transfers gather word by word); `1S0`, `0D1` and
    /// `Nd` at congestion 1 = network rendezvous `R_b`.
    pub fn copy_rates(&self) -> CopyRates {
        if let Some(c) = &self.copy_transfer {
            return c.clone();
        }
        let indexed = 8.0 / (self.pack_per_run + 8.0 / self.pack_rate);
        let network = self.network().rend.rate;
        CopyRates {
            copy: self.rates(Locality(0)).rend.rate,
            copy_indexed: indexed,
            send: network,
            send_indexed: indexed,
            deposit: network,
            congestion: vec![1.0],
            network_data: vec![network],
        }
    }

    /// The rates of `locality` (the machine's class order).
    pub fn rates(&self, locality: Locality) -> &ProtocolRates {
        &self.rates.0[locality.index()].1
    }

    /// Whether `l` is the class between nodes (the last).
    pub fn is_network(&self, l: Locality) -> bool {
        l.index() + 1 == self.rates.0.len()
    }

    /// The rates of `locality`, to change.
    pub fn rates_mut(&mut self, locality: Locality) -> &mut ProtocolRates {
        &mut self.rates.0[locality.index()].1
    }

    /// The rates between nodes: the last class's.
    pub fn network(&self) -> &ProtocolRates {
        &self.rates.0[self.rates.0.len() - 1].1
    }

    /// Checks every parameter: finite, positive where a rate, consistent
    /// tables.
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.eager_threshold > self.rendezvous_threshold {
            return Err("eager_threshold must not exceed rendezvous_threshold".into());
        }
        if self
            .rates
            .0
            .last()
            .is_none_or(|(n, _)| n != super::locality::NETWORK)
        {
            return Err("params must give the rates of every locality class, network last".into());
        }
        for (name, p) in &self.rates.0 {
            for (proto, r) in [("short", p.short), ("eager", p.eager), ("rend", p.rend)] {
                time(&format!("params.{name}.{proto}.alpha"), r.alpha)?;
                rate(&format!("params.{name}.{proto}.rate"), r.rate)?;
            }
        }
        rate("params.r_n", self.r_n)?;
        if !(1..=64).contains(&self.nics) {
            return Err(Invalid(format!(
                "params.nics is {}; a node has from 1 to 64 NICs",
                self.nics
            )));
        }
        time("params.gamma", self.gamma)?;
        time("params.delta", self.delta)?;
        time("params.pack_per_run", self.pack_per_run)?;
        rate("params.pack_rate", self.pack_rate)?;
        if let Some(t) = &self.pack_table {
            t.validate()
                .map_err(|e| Invalid(format!("params.pack_table: {e}")))?;
        }
        if let Some(p) = &self.loggp {
            let all = [
                ("l", p.l),
                ("o_s", p.o_s),
                ("o_r", p.o_r),
                ("g", p.g),
                ("big_g", p.big_g),
            ];
            for (name, x) in all {
                time(&format!("params.loggp.{name}"), x)?;
            }
        }
        if let Some(c) = &self.copy_transfer {
            c.validate()
                .map_err(|e| Invalid(format!("params.copy_transfer: {e}")))?;
        }
        self.row_work.validate()?;
        Ok(())
    }
}
