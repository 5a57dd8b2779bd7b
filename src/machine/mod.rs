//! Stage 3: the virtual machine the ranks run on (`../shared/MODEL.md`,
//! "Virtual machine").
//!
//! `P = nodes * ppn` ranks. SMP placement (default): rank `r` on node
//! `r / ppn`, local index `r % ppn`; round-robin: node `r % nodes`, local
//! index `r / nodes`. Socket = local index `/ (ppn / sockets_per_node)`.
//! Node `k` hangs off router `k / nodes_per_router`; the routers of the
//! allocation form the most cube-like box `gx >= gy >= gz` (smallest
//! `gx - gz`, then smallest `gx`), router `g` at `(g % gx, (g / gx) % gy,
//! g / (gx gy))`, and `hops` is the Manhattan distance (a sub-box of the
//! torus: no wrap-around).

use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    Smp,
    RoundRobin,
    /// Rank r in slot `perm(r)` (node = slot / ppn, local index = slot % ppn)
    /// of a seeded pseudo-random permutation of the ranks.
    Random {
        seed: u64,
    },
}

/// A seeded pseudo-random permutation of `0..n` without tables: a 4-round
/// Feistel network on the smallest even number of bits covering `n`, with
/// cycle walking back into range. O(1) per call, and invertible.
#[derive(Clone, Copy, Debug)]
struct Shuffle {
    n: u64,
    half: u32,
    seed: u64,
}

impl Shuffle {
    fn new(n: usize, seed: u64) -> Shuffle {
        let bits = (usize::BITS - n.saturating_sub(1).leading_zeros()).max(2);
        Shuffle {
            n: n as u64,
            half: bits.div_ceil(2),
            seed,
        }
    }

    fn round(&self, x: u64, k: u64) -> u64 {
        // splitmix64 finaliser of (x, round, seed).
        let mut z = x ^ self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k << 56);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) & ((1 << self.half) - 1)
    }

    fn forward(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (x >> self.half, x & mask);
        for k in 0..4 {
            (l, r) = (r, l ^ self.round(r, k));
        }
        (l << self.half) | r
    }

    fn backward(&self, y: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (y >> self.half, y & mask);
        for k in (0..4).rev() {
            (l, r) = (r ^ self.round(l, k), l);
        }
        (l << self.half) | r
    }

    fn apply(&self, x: usize) -> usize {
        let mut y = self.forward(x as u64);
        while y >= self.n {
            y = self.forward(y);
        }
        y as usize
    }

    fn invert(&self, y: usize) -> usize {
        let mut x = self.backward(y as u64);
        while x >= self.n {
            x = self.backward(x);
        }
        x as usize
    }
}

/// Where two ranks are relative to each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Locality {
    #[default]
    Socket,
    Node,
    Network,
}

pub const LOCALITIES: [Locality; 3] = [Locality::Socket, Locality::Node, Locality::Network];

impl Locality {
    pub fn name(self) -> &'static str {
        match self {
            Locality::Socket => "socket",
            Locality::Node => "node",
            Locality::Network => "network",
        }
    }
}

/// Latency (s) and rate (bytes/s) of one locality and protocol class.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    pub alpha: f64,
    pub rate: f64,
}

/// The three protocols of one locality.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtocolRates {
    pub short: Rate,
    pub eager: Rate,
    pub rend: Rate,
}

impl ProtocolRates {
    pub fn of(&self, protocol: usize) -> Rate {
        [self.short, self.eager, self.rend][protocol]
    }
}

/// The parameters the cost models charge with (EuroMPI'18, Table 1 and
/// sec. 4-5): per locality and protocol `alpha` and `R_b`, the injection
/// bandwidth limit `R_N` (network rendezvous only), the queue-search
/// constant `gamma`, the contention constant `delta`, and the protocol
/// thresholds (short below `eager_threshold` bytes, rendezvous from
/// `rendezvous_threshold`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub eager_threshold: u64,
    pub rendezvous_threshold: u64,
    pub socket: ProtocolRates,
    pub node: ProtocolRates,
    pub network: ProtocolRates,
    pub r_n: f64,
    pub gamma: f64,
    pub delta: f64,
    /// The `pack` term (log3P's `l_mw`): gathering a message from `k > 1`
    /// runs of local data costs `k * pack_per_run + bytes / pack_rate`.
    #[serde(default = "default_pack_per_run")]
    pub pack_per_run: f64,
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
}

/// LogGP parameters: latency `l`, send and receive overheads, the gap `g`
/// between consecutive sends of one rank, and the gap per byte `big_g`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogGP {
    pub l: f64,
    pub o_s: f64,
    pub o_r: f64,
    pub g: f64,
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
    pub bytes: Vec<f64>,
    pub runs: Vec<f64>,
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
    #[serde(rename = "1C1")]
    pub copy: f64,
    #[serde(rename = "wC1")]
    pub copy_indexed: f64,
    #[serde(rename = "1S0")]
    pub send: f64,
    #[serde(rename = "wS0")]
    pub send_indexed: f64,
    #[serde(rename = "0D1")]
    pub deposit: f64,
    pub congestion: Vec<f64>,
    pub network_data: Vec<f64>,
}

/// `name` is a non-empty, strictly increasing list of positive numbers.
fn increasing(name: &str, v: &[f64]) -> Result<(), String> {
    let positive = v.iter().all(|x| x.is_finite() && *x > 0.0);
    if v.is_empty() || !positive || v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "{name} must be a non-empty increasing list of positive numbers"
        ));
    }
    Ok(())
}

impl PackTable {
    fn validate(&self) -> Result<(), String> {
        increasing("bytes", &self.bytes)?;
        increasing("runs", &self.runs)?;
        if self.seconds.len() != self.bytes.len()
            || self.seconds.iter().any(|row| row.len() != self.runs.len())
        {
            return Err(format!(
                "seconds must have {} rows (one per size) of {} values (one per runs)",
                self.bytes.len(),
                self.runs.len()
            ));
        }
        if !self
            .seconds
            .iter()
            .flatten()
            .all(|x| x.is_finite() && *x >= 0.0)
        {
            return Err("seconds must be finite and >= 0".into());
        }
        Ok(())
    }
}

impl CopyRates {
    fn validate(&self) -> Result<(), String> {
        let rates = [
            self.copy,
            self.copy_indexed,
            self.send,
            self.send_indexed,
            self.deposit,
        ];
        if !rates.iter().all(|x| x.is_finite() && *x > 0.0) {
            return Err("1C1, wC1, 1S0, wS0 and 0D1 must be positive".into());
        }
        increasing("congestion", &self.congestion)?;
        if self.network_data.len() != self.congestion.len()
            || !self.network_data.iter().all(|x| x.is_finite() && *x > 0.0)
        {
            return Err("network_data must give one positive rate per congestion level".into());
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
            socket: ProtocolRates {
                short: r(4.4e-7, 2.2e9),
                eager: r(5.3e-7, 3.2e9),
                rend: r(1.7e-6, 6.2e9),
            },
            node: ProtocolRates {
                short: r(8.3e-7, 4.8e8),
                eager: r(1.2e-6, 9.6e8),
                rend: r(2.5e-6, 6.2e9),
            },
            network: ProtocolRates {
                short: r(2.3e-6, 1.3e9),
                eager: r(7.0e-6, 7.5e8),
                rend: r(3.0e-6, 2.9e9),
            },
            r_n: 6.6e9,
            gamma: 8.4e-9,
            delta: 1.0e-10,
            pack_per_run: default_pack_per_run(),
            pack_rate: default_pack_rate(),
            pack_table: None,
            loggp: None,
            copy_transfer: None,
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
        let network = self.network.rend.rate;
        CopyRates {
            copy: self.socket.rend.rate,
            copy_indexed: indexed,
            send: network,
            send_indexed: indexed,
            deposit: network,
            congestion: vec![1.0],
            network_data: vec![network],
        }
    }

    pub fn rates(&self, locality: Locality) -> &ProtocolRates {
        match locality {
            Locality::Socket => &self.socket,
            Locality::Node => &self.node,
            Locality::Network => &self.network,
        }
    }

    fn validate(&self) -> Result<(), String> {
        if self.eager_threshold > self.rendezvous_threshold {
            return Err("eager_threshold must not exceed rendezvous_threshold".into());
        }
        for (name, p) in [
            ("socket", &self.socket),
            ("node", &self.node),
            ("network", &self.network),
        ] {
            for (proto, r) in [("short", p.short), ("eager", p.eager), ("rend", p.rend)] {
                if !(r.alpha >= 0.0 && r.alpha.is_finite() && r.rate > 0.0) {
                    return Err(format!(
                        "params.{name}.{proto}: alpha must be >= 0 and rate > 0"
                    ));
                }
            }
        }
        if !(self.r_n > 0.0 && self.gamma >= 0.0 && self.delta >= 0.0) {
            return Err("params: r_n must be > 0, gamma and delta >= 0".into());
        }
        if !(self.pack_per_run >= 0.0 && self.pack_rate > 0.0) {
            return Err("params: pack_per_run must be >= 0 and pack_rate > 0".into());
        }
        if let Some(t) = &self.pack_table {
            t.validate()
                .map_err(|e| format!("params.pack_table: {e}"))?;
        }
        if let Some(p) = &self.loggp {
            let all = [p.l, p.o_s, p.o_r, p.g, p.big_g];
            if !all.iter().all(|x| x.is_finite() && *x >= 0.0) {
                return Err(
                    "params.loggp: l, o_s, o_r, g and big_g must be finite and >= 0".into(),
                );
            }
        }
        if let Some(c) = &self.copy_transfer {
            c.validate()
                .map_err(|e| format!("params.copy_transfer: {e}"))?;
        }
        Ok(())
    }
}

/// A machine description, as in the JSON files `--machine FILE.json` reads
/// (`amgcomm machine show bluewaters --json` prints one to edit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    pub name: String,
    pub nodes: usize,
    pub ppn: usize,
    pub sockets_per_node: usize,
    pub nodes_per_router: usize,
    #[serde(default = "default_placement")]
    pub placement: Placement,
    /// Cost-model parameters; Blue Waters' when the file gives none.
    #[serde(default = "Params::bluewaters")]
    pub params: Params,
}

fn default_placement() -> Placement {
    Placement::Smp
}

impl Machine {
    /// Blue Waters XE: 16 ranks per node on 2 sockets, 2 nodes per Gemini
    /// router; 512 nodes by default, as in the EuroMPI'18 runs.
    pub fn bluewaters() -> Machine {
        Machine {
            name: "bluewaters".into(),
            nodes: 512,
            ppn: 16,
            sockets_per_node: 2,
            nodes_per_router: 2,
            placement: Placement::Smp,
            params: Params::bluewaters(),
        }
    }

    /// `bluewaters`, or a JSON file with the fields of [`Machine`].
    pub fn named_or_file(spec: &str) -> Result<Machine, String> {
        if spec == "bluewaters" {
            return Ok(Machine::bluewaters());
        }
        let path = Path::new(spec);
        let text = std::fs::read_to_string(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                format!("--machine {spec}: no such file (built in: bluewaters)")
            } else {
                format!("--machine {spec}: {e}")
            }
        })?;
        let m: Machine = serde_json::from_str(&text).map_err(|e| format!("{spec}: {e}"))?;
        m.validate().map_err(|e| format!("{spec}: {e}"))?;
        Ok(m)
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.nodes == 0 {
            return Err("nodes must be at least 1".into());
        }
        if self.ppn == 0 {
            return Err("ppn must be at least 1".into());
        }
        if self.sockets_per_node == 0 || !self.ppn.is_multiple_of(self.sockets_per_node) {
            return Err(format!(
                "ppn {} is not divisible by the {} sockets per node",
                self.ppn, self.sockets_per_node
            ));
        }
        if self.nodes_per_router == 0 {
            return Err("nodes_per_router must be at least 1".into());
        }
        self.params.validate()?;
        if self
            .nodes
            .checked_mul(self.ppn)
            .is_none_or(|p| p > u32::MAX as usize)
        {
            return Err(format!(
                "{} nodes x {} ppn is too many ranks",
                self.nodes, self.ppn
            ));
        }
        Ok(())
    }

    pub fn ranks(&self) -> usize {
        self.nodes * self.ppn
    }

    #[inline]
    pub fn node_of(&self, rank: usize) -> usize {
        match self.placement {
            Placement::Smp => rank / self.ppn,
            Placement::RoundRobin => rank % self.nodes,
            Placement::Random { seed } => Shuffle::new(self.ranks(), seed).apply(rank) / self.ppn,
        }
    }

    /// Index of `rank` among the ranks of its node.
    #[inline]
    pub fn local_of(&self, rank: usize) -> usize {
        match self.placement {
            Placement::Smp => rank % self.ppn,
            Placement::RoundRobin => rank / self.nodes,
            Placement::Random { seed } => Shuffle::new(self.ranks(), seed).apply(rank) % self.ppn,
        }
    }

    /// The rank at local index `local` of node `node` (inverse of
    /// [`Machine::node_of`] and [`Machine::local_of`]).
    pub fn rank_at(&self, node: usize, local: usize) -> usize {
        match self.placement {
            Placement::Smp => node * self.ppn + local,
            Placement::RoundRobin => local * self.nodes + node,
            Placement::Random { seed } => {
                Shuffle::new(self.ranks(), seed).invert(node * self.ppn + local)
            }
        }
    }

    #[inline]
    pub fn socket_of(&self, rank: usize) -> usize {
        self.local_of(rank) / (self.ppn / self.sockets_per_node).max(1)
    }

    #[inline]
    pub fn locality(&self, a: usize, b: usize) -> Locality {
        if self.node_of(a) != self.node_of(b) {
            Locality::Network
        } else if self.socket_of(a) != self.socket_of(b) {
            Locality::Node
        } else {
            Locality::Socket
        }
    }

    /// `ceil(nodes / nodes_per_router)`.
    pub fn routers(&self) -> usize {
        self.nodes.div_ceil(self.nodes_per_router)
    }

    /// The most cube-like `[gx, gy, gz]`, `gx >= gy >= gz`, with
    /// `gx gy gz = routers`.
    pub fn router_box(&self) -> [usize; 3] {
        let r = self.routers();
        let mut best = [r, 1, 1];
        let mut gz = 1;
        while gz * gz * gz <= r {
            if r.is_multiple_of(gz) {
                let mut gy = gz;
                while gy * gy * gz <= r {
                    if (r / gz).is_multiple_of(gy) {
                        let gx = r / (gz * gy);
                        let better = (gx - gz, gx) < (best[0] - best[2], best[0]);
                        if gx >= gy && better {
                            best = [gx, gy, gz];
                        }
                    }
                    gy += 1;
                }
            }
            gz += 1;
        }
        best
    }

    pub fn router_coords(&self, router: usize, b: [usize; 3]) -> [usize; 3] {
        [
            router % b[0],
            (router / b[0]) % b[1],
            router / (b[0] * b[1]),
        ]
    }

    /// Router hops between two nodes; `b` is [`Machine::router_box`].
    #[inline]
    pub fn hops(&self, node_a: usize, node_b: usize, b: [usize; 3]) -> usize {
        let x = self.router_coords(node_a / self.nodes_per_router, b);
        let y = self.router_coords(node_b / self.nodes_per_router, b);
        (0..3).map(|d| x[d].abs_diff(y[d])).sum()
    }

    /// Node, socket and router coordinates tabulated for every rank and
    /// node.
    pub fn places(&self) -> Places {
        let b = self.router_box();
        let ranks = self.ranks();
        let node: Vec<u32> = (0..ranks).map(|r| self.node_of(r) as u32).collect();
        let socket = (0..ranks)
            .map(|r| node[r] * self.sockets_per_node as u32 + self.socket_of(r) as u32)
            .collect();
        let coords = (0..self.nodes)
            .map(|n| {
                self.router_coords(n / self.nodes_per_router, b)
                    .map(|c| c as u32)
            })
            .collect();
        Places {
            node,
            socket,
            coords,
        }
    }
}

/// [`Machine::places`]: the placement as lookup tables. Extraction asks
/// for the locality and hops of millions of messages, and the placement's
/// integer divisions (and the random placement's shuffle) were most of
/// that cost.
#[derive(Clone, Debug)]
pub struct Places {
    /// Node of each rank.
    pub node: Vec<u32>,
    /// Global socket (`node * sockets_per_node + socket`) of each rank.
    pub socket: Vec<u32>,
    /// Router coordinates of each node.
    pub coords: Vec<[u32; 3]>,
}

impl Places {
    #[inline]
    pub fn node_of(&self, rank: u32) -> u32 {
        self.node[rank as usize]
    }

    /// [`Machine::locality`].
    #[inline]
    pub fn locality(&self, a: u32, b: u32) -> Locality {
        if self.node[a as usize] != self.node[b as usize] {
            Locality::Network
        } else if self.socket[a as usize] != self.socket[b as usize] {
            Locality::Node
        } else {
            Locality::Socket
        }
    }

    /// [`Machine::hops`] between the nodes of two ranks.
    #[inline]
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        let x = self.coords[self.node[a as usize] as usize];
        let y = self.coords[self.node[b as usize] as usize];
        (0..3).map(|d| x[d].abs_diff(y[d])).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(nodes: usize, ppn: usize) -> Machine {
        Machine {
            nodes,
            ppn,
            ..Machine::bluewaters()
        }
    }

    #[test]
    fn router_boxes() {
        assert_eq!(machine(512, 16).router_box(), [8, 8, 4]); // 256 routers (MODEL.md)
        assert_eq!(machine(8, 16).router_box(), [2, 2, 1]);
        assert_eq!(machine(4096, 16).router_box(), [16, 16, 8]);
        assert_eq!(machine(64, 16).router_box(), [4, 4, 2]);
        assert_eq!(machine(3, 16).router_box(), [2, 1, 1]); // ceil(3 / 2) routers
        assert_eq!(machine(14, 16).router_box(), [7, 1, 1]); // prime
        assert_eq!(machine(24, 16).router_box(), [3, 2, 2]);
    }

    #[test]
    fn hops_on_a_2x2x1_box() {
        // 8 nodes, 4 routers at (0,0,0), (1,0,0), (0,1,0), (1,1,0).
        let m = machine(8, 16);
        let b = m.router_box();
        assert_eq!(m.hops(0, 1, b), 0); // same router
        assert_eq!(m.hops(0, 2, b), 1);
        assert_eq!(m.hops(0, 4, b), 1);
        assert_eq!(m.hops(0, 6, b), 2);
        assert_eq!(m.hops(3, 5, b), 2);
        assert_eq!(m.hops(7, 0, b), 2);
    }

    #[test]
    fn hops_on_an_8x8x4_box() {
        let m = machine(512, 16);
        let b = m.router_box();
        // Node 511 is on router 255 at (7, 7, 3): 7 + 7 + 3 hops from router 0.
        assert_eq!(m.router_coords(255, b), [7, 7, 3]);
        assert_eq!(m.hops(0, 511, b), 17);
        // Router 9 = (1, 1, 0), router 64 = (0, 0, 1), router 73 = (1, 1, 1).
        assert_eq!(m.hops(18, 128, b), 3);
        assert_eq!(m.hops(146, 129, b), 2);
        assert_eq!(m.hops(146, 147, b), 0);
    }

    #[test]
    fn placement_and_locality() {
        let m = machine(4, 16);
        assert_eq!((m.node_of(17), m.socket_of(17)), (1, 0));
        assert_eq!(m.socket_of(24), 1);
        assert_eq!(m.locality(16, 23), Locality::Socket);
        assert_eq!(m.locality(16, 24), Locality::Node);
        assert_eq!(m.locality(15, 16), Locality::Network);
        let rr = Machine {
            placement: Placement::RoundRobin,
            ..m
        };
        assert_eq!((rr.node_of(17), rr.socket_of(17)), (1, 0)); // local index 4
        assert_eq!(rr.socket_of(37), 1); // local index 9
        assert_eq!(rr.locality(1, 5), Locality::Socket);
    }

    #[test]
    fn random_placement_is_a_seeded_bijection() {
        for ranks in [1usize, 2, 3, 16, 100, 257, 8192] {
            let s = Shuffle::new(ranks, 7);
            let mut seen = vec![false; ranks];
            for r in 0..ranks {
                let y = s.apply(r);
                assert!(!seen[y], "{ranks}: {r}");
                seen[y] = true;
                assert_eq!(s.invert(y), r);
            }
        }
        let m = Machine {
            nodes: 8,
            ppn: 4,
            placement: Placement::Random { seed: 3 },
            ..Machine::bluewaters()
        };
        let mut per_node = [0; 8];
        for r in 0..32 {
            per_node[m.node_of(r)] += 1;
            assert_eq!(m.rank_at(m.node_of(r), m.local_of(r)), r);
        }
        assert_eq!(per_node, [4; 8]);
        // Not the identity, and another seed gives another placement.
        assert!((0..32).any(|r| m.node_of(r) != r / 4));
        let other = Machine {
            placement: Placement::Random { seed: 4 },
            ..m.clone()
        };
        assert!((0..32).any(|r| m.node_of(r) != other.node_of(r)));
    }

    #[test]
    fn machine_files_load_and_are_checked() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("m.json");
        std::fs::write(&f, r#"{"name": "mini", "nodes": 6, "ppn": 8, "sockets_per_node": 4, "nodes_per_router": 1, "placement": "round-robin"}"#).unwrap();
        let m = Machine::named_or_file(f.to_str().unwrap()).unwrap();
        assert_eq!((m.ranks(), m.routers(), m.router_box()), (48, 6, [3, 2, 1]));
        assert_eq!((m.node_of(7), m.socket_of(7)), (1, 0));
        assert_eq!(m.socket_of(47), 3);
        std::fs::write(
            &f,
            r#"{"name": "x", "nodes": 2, "ppn": 6, "sockets_per_node": 4, "nodes_per_router": 2}"#,
        )
        .unwrap();
        assert!(Machine::named_or_file(f.to_str().unwrap())
            .unwrap_err()
            .contains("not divisible"));
        std::fs::write(
            &f,
            r#"{"name": "x", "nodes": 2, "ppn": 4, "sockets": 2, "nodes_per_router": 2}"#,
        )
        .unwrap();
        assert!(Machine::named_or_file(f.to_str().unwrap())
            .unwrap_err()
            .contains("sockets"));
    }

    #[test]
    fn validation_names_the_problem() {
        assert!(machine(0, 16).validate().unwrap_err().contains("nodes"));
        assert!(machine(4, 15)
            .validate()
            .unwrap_err()
            .contains("not divisible"));
        assert!(Machine::named_or_file("no-such.json")
            .unwrap_err()
            .contains("built in: bluewaters"));
    }

    #[test]
    fn places_agree_with_the_machine() {
        for placement in [
            Placement::Smp,
            Placement::RoundRobin,
            Placement::Random { seed: 3 },
        ] {
            let m = Machine {
                placement,
                ..machine(12, 4)
            };
            let (p, b) = (m.places(), m.router_box());
            for a in 0..m.ranks() {
                assert_eq!(p.node_of(a as u32) as usize, m.node_of(a));
                for c in 0..m.ranks() {
                    let (x, y) = (a as u32, c as u32);
                    assert_eq!(p.locality(x, y), m.locality(a, c), "{placement:?} {a} {c}");
                    assert_eq!(p.hops(x, y) as usize, m.hops(m.node_of(a), m.node_of(c), b));
                }
            }
        }
    }
}
