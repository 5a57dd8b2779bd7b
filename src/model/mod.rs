//! Stage 6: what a level's communication costs (`../shared/MODEL.md`,
//! "Costs"; Bienz, Gropp and Olson, EuroMPI'18).
//!
//! A model is a set of terms, written `nodeaware+queue+contention` (the
//! default):
//! - one rate term, maximised over sending ranks:
//!   `postal` (eq. 1, network parameters for every message),
//!   `maxrate` (eq. 2 with network parameters for every message), or
//!   `nodeaware` (eq. 2 by locality: `alpha + s / R_b` on the node,
//!   `alpha + a s / min(R_N, a R_b)` on the network, `a` = ranks of the
//!   sender's node that send network messages; `R_N` caps rendezvous only);
//! - `queue` (eq. 3): `gamma n^2` per receiving rank (`queue-measured`:
//!   `gamma n^2 / 3`, `queue-lower`: `gamma n`), maximised over ranks;
//! - `contention` (eq. 5, 7): `delta h^3 B / routers`, `B` the network bytes,
//!   `h` their byte-weighted mean hops;
//! - `routed`: `delta * max_link_bytes`, the busiest directed link under
//!   dimension-order routing ([`routed`]), beside the cube estimate.
//!
//! The classic alternatives: rate terms `loggp` ([`loggp`]) and
//! `copytransfer` ([`copy_transfer`]), and terms `logpc` ([`logpc`]) and
//! `pack` ([`pack`]).

pub mod calibrate;
pub mod classic;
pub mod copy_transfer;
pub mod reproduce;
pub mod routed;

use rayon::prelude::*;
use serde::Serialize;

use crate::comm::{Message, Pattern, Summary};
use crate::machine::{Locality, Machine, PackTable, LOCALITIES};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateTerm {
    Postal,
    MaxRate,
    NodeAware,
    /// LogGP per sending rank ([`loggp`]).
    LogGP,
    /// Copy-transfer throughputs, the cheaper of buffer packing and
    /// chained transfers ([`copy_transfer`]).
    CopyTransfer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueBound {
    Upper,
    Measured,
    Lower,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    pub rate: Option<RateTerm>,
    pub queue: Option<QueueBound>,
    pub contention: bool,
    /// `delta * max_link_bytes` over dimension-order routes ([`routed`]).
    pub routed: bool,
    /// Gathering non-contiguous send buffers ([`pack`]).
    pub pack: bool,
    /// LoGPC's network contention ([`logpc`]).
    pub logpc: bool,
}

pub const TERMS: &str = "postal, maxrate, nodeaware, loggp, copytransfer, queue, queue-measured, \
     queue-lower, contention, logpc, routed, pack";

impl Default for Model {
    fn default() -> Model {
        Model {
            rate: Some(RateTerm::NodeAware),
            queue: Some(QueueBound::Upper),
            contention: true,
            routed: false,
            pack: false,
            logpc: false,
        }
    }
}

impl Model {
    /// `term+term+...`; at most one rate term and one queue term.
    pub fn parse(spec: &str) -> Result<Model, String> {
        let mut m = Model {
            rate: None,
            queue: None,
            contention: false,
            routed: false,
            pack: false,
            logpc: false,
        };
        for term in spec.split('+').map(str::trim) {
            let (rate, queue) = match term {
                "postal" => (Some(RateTerm::Postal), None),
                "maxrate" => (Some(RateTerm::MaxRate), None),
                "nodeaware" => (Some(RateTerm::NodeAware), None),
                "loggp" => (Some(RateTerm::LogGP), None),
                "copytransfer" => (Some(RateTerm::CopyTransfer), None),
                "queue" | "queue-upper" => (None, Some(QueueBound::Upper)),
                "queue-measured" => (None, Some(QueueBound::Measured)),
                "queue-lower" => (None, Some(QueueBound::Lower)),
                "contention" => {
                    m.contention = true;
                    continue;
                }
                "routed" => {
                    m.routed = true;
                    continue;
                }
                "pack" => {
                    m.pack = true;
                    continue;
                }
                "logpc" => {
                    m.logpc = true;
                    continue;
                }
                t => return Err(format!("unknown model term '{t}' (terms: {TERMS})")),
            };
            if rate.is_some() {
                if m.rate.is_some() {
                    return Err(format!(
                        "'{spec}' has two rate terms: choose one of postal, maxrate, nodeaware, loggp, copytransfer"
                    ));
                }
                m.rate = rate;
            }
            if queue.is_some() {
                if m.queue.is_some() {
                    return Err(format!("'{spec}' has two queue terms"));
                }
                m.queue = queue;
            }
        }
        Ok(m)
    }

    pub fn name(&self) -> String {
        let mut terms = Vec::new();
        terms.extend(self.rate.map(|r| match r {
            RateTerm::Postal => "postal",
            RateTerm::MaxRate => "maxrate",
            RateTerm::NodeAware => "nodeaware",
            RateTerm::LogGP => "loggp",
            RateTerm::CopyTransfer => "copytransfer",
        }));
        terms.extend(self.queue.map(|q| match q {
            QueueBound::Upper => "queue",
            QueueBound::Measured => "queue-measured",
            QueueBound::Lower => "queue-lower",
        }));
        if self.contention {
            terms.push("contention");
        }
        if self.logpc {
            terms.push("logpc");
        }
        if self.routed {
            terms.push("routed");
        }
        if self.pack {
            terms.push("pack");
        }
        terms.join("+")
    }
}

/// Modeled seconds of one operation on one level; absent terms are 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Cost {
    /// The rate term (postal, max-rate or node-aware max-rate).
    pub max_rate: f64,
    pub queue_search: f64,
    pub contention: f64,
    /// `delta * max_link_bytes` (model term `routed`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routed: Option<f64>,
    /// Bytes on the busiest directed link, behind `routed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_link_bytes: Option<u64>,
    /// Gathering send buffers (model term `pack`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack: Option<f64>,
    /// LoGPC's network contention (model term `logpc`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logpc: Option<f64>,
    /// Both copy-transfer strategies (rate term `copytransfer`; absent
    /// otherwise); `max_rate` is the cheaper one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_transfer: Option<copy_transfer::CopyTransfer>,
    pub total: f64,
}

/// The optional terms, in report order.
pub const EXTRA_TERMS: [&str; 3] = ["logpc", "routed", "pack"];

impl Cost {
    /// An optional term's seconds, `None` when the model lacks it.
    pub fn extra(&self, term: &str) -> Option<f64> {
        match term {
            "routed" => self.routed,
            "pack" => self.pack,
            "logpc" => self.logpc,
            _ => None,
        }
    }
}

pub fn cost(pat: &Pattern, summary: &Summary, m: &Machine, model: &Model) -> Cost {
    let copy =
        (model.rate == Some(RateTerm::CopyTransfer)).then(|| copy_transfer::copy_transfer(pat, m));
    let max_rate = model.rate.map_or(0.0, |r| match r {
        RateTerm::LogGP => loggp(pat, m),
        RateTerm::CopyTransfer => copy.map_or(0.0, |c| c.time()),
        _ => max_rate(pat, m, r),
    });
    let queue_search = model
        .queue
        .map_or(0.0, |q| queue_time(summary.messages.max_recv, m, q));
    let contention = if model.contention {
        contention(summary, m)
    } else {
        0.0
    };
    let links = model
        .routed
        .then(|| routed::link_loads(pat, m, m.router_box()).max_link_bytes);
    let routed = links.map(|b| m.params.delta * b as f64);
    let packing = model.pack.then(|| pack(pat, m));
    let agarwal = model.logpc.then(|| logpc(pat, summary, m));
    Cost {
        max_rate,
        queue_search,
        contention,
        routed,
        max_link_bytes: links,
        pack: packing,
        logpc: agarwal,
        copy_transfer: copy,
        total: max_rate
            + queue_search
            + contention
            + routed.unwrap_or(0.0)
            + packing.unwrap_or(0.0)
            + agarwal.unwrap_or(0.0),
    }
}

/// Seconds of one message of `bytes` with `locality`, `a` active ranks on
/// the sender's node.
pub fn message_time(
    m: &Machine,
    term: RateTerm,
    locality: Locality,
    protocol: usize,
    bytes: u64,
    a: usize,
) -> f64 {
    let p = &m.params;
    let s = bytes as f64;
    match (term, locality) {
        (RateTerm::LogGP, local) => loggp_params(m, local, protocol).message(s),
        (RateTerm::CopyTransfer, local) => {
            // Contiguous and alone on its links.
            let rates = p.copy_rates();
            let network = match local {
                Locality::Network => copy_transfer::network_rate(&rates, 1.0),
                _ => p.rates(local).rend.rate,
            };
            let msg = crate::comm::Message {
                bytes,
                locality,
                runs: 1,
                ..Default::default()
            };
            let (q, q_chained) = copy_transfer::message_rates(&rates, &msg, network);
            s / q.max(q_chained)
        }
        _ => class_time(m, term, locality, protocol, (1, bytes), a),
    }
}

/// Seconds of `n` messages of `bytes` in all, of one locality and
/// protocol, from a rank with `a` active ranks on its node, under the
/// postal, max-rate and node-aware terms: each is linear in the size, so
/// the class costs `n alpha + bytes / rate`.
fn class_time(
    m: &Machine,
    term: RateTerm,
    locality: Locality,
    protocol: usize,
    (n, bytes): (u64, u64),
    a: usize,
) -> f64 {
    let p = &m.params;
    let (n, s) = (n as f64, bytes as f64);
    let network = p.network.of(protocol);
    let r_n = if protocol == 2 { p.r_n } else { f64::INFINITY };
    let injected = |r: crate::machine::Rate| {
        let a = a.max(1) as f64;
        n * r.alpha + a * s / r_n.min(a * r.rate)
    };
    match (term, locality) {
        (RateTerm::NodeAware, Locality::Network) | (RateTerm::MaxRate, _) => injected(network),
        (RateTerm::NodeAware, local) => {
            let r = p.rates(local).of(protocol);
            n * r.alpha + s / r.rate
        }
        _ => n * network.alpha + s / network.rate,
    }
}

/// The machine file's LogGP parameters, or those of the message's
/// locality and protocol class by [`classic::LogGP::from_postal`].
pub fn loggp_params(m: &Machine, locality: Locality, protocol: usize) -> classic::LogGP {
    m.params.loggp.unwrap_or_else(|| {
        let r = m.params.rates(locality).of(protocol);
        classic::LogGP::from_postal(r.alpha, r.rate)
    })
}

/// LogGP (Alexandrov et al. 1995) per sending rank: its messages leave one
/// after another, each holding the sender `max(g, o_s + (s-1) G)`, and the
/// last one arrives `L + o_r` later; the slowest rank's time. Parameters
/// from [`loggp_params`]: derived ones make a lone message cost what the
/// node-aware postal term charges; several messages overlap their `L` and
/// `o_r`.
pub fn loggp(pat: &Pattern, m: &Machine) -> f64 {
    slowest_sender(pat, |run| {
        let (mut busy, mut tail) = (0.0f64, 0.0f64);
        for msg in run {
            let p = loggp_params(m, msg.locality, msg.protocol as usize);
            let s = msg.bytes as f64;
            busy += p.g.max(p.o_s + (s - 1.0).max(0.0) * p.big_g);
            // The largest L + o_r of the rank's classes: the last arrival.
            tail = tail.max(p.l + p.o_r);
        }
        busy + tail
    })
}

/// The largest `time(messages of one rank)` over sending ranks.
fn slowest_sender(pat: &Pattern, time: impl Fn(&[Message]) -> f64 + Sync) -> f64 {
    per_sender(pat, time)
        .into_iter()
        .flatten()
        .fold(0.0, f64::max)
}

/// [`Pattern::per_sender`], sorting a copy of the messages first when they
/// do not come by sender (a strategy's steps, one after another).
fn per_sender<T: Send>(pat: &Pattern, f: impl Fn(&[Message]) -> T + Sync) -> Vec<Vec<T>> {
    pat.per_sender(&f).unwrap_or_else(|| {
        let mut sorted = pat.clone();
        sorted.messages.par_sort_by_key(|msg| msg.from);
        sorted.per_sender(&f).expect("sorted by sender")
    })
}

/// log3P's middleware cost of non-contiguous data (`l_mw`) as a term: a
/// message gathered from `k > 1` runs of the sender's local data costs
/// the machine's `pack_table` at its size and runs ([`pack_at`]), or
/// without one `k * pack_per_run + bytes / pack_rate`; a contiguous one
/// nothing. The slowest rank's sum.
pub fn pack(pat: &Pattern, m: &Machine) -> f64 {
    let p = &m.params;
    slowest_sender(pat, |run| {
        run.iter()
            .filter(|msg| msg.runs > 1)
            .map(|msg| {
                let (s, k) = (msg.bytes as f64, msg.runs as f64);
                match &p.pack_table {
                    Some(t) => pack_at(t, s, k),
                    None => k * p.pack_per_run + s / p.pack_rate,
                }
            })
            .sum()
    })
}

/// A log3P table at `bytes` and `runs`: linear in `log s` and `log k`
/// between grid points (log3P interpolates its tables in `log s`), clamped
/// at the smallest size and at both ends of the runs, and growing in
/// proportion to `s` beyond the largest size (a gather is bandwidth-bound
/// there).
pub fn pack_at(t: &PackTable, bytes: f64, runs: f64) -> f64 {
    let last = t.bytes[t.bytes.len() - 1];
    let scale = (bytes / last).max(1.0);
    let (i, u) = classic::log_bracket(&t.bytes, bytes.min(last));
    let (j, v) = classic::log_bracket(&t.runs, runs);
    let i1 = (i + 1).min(t.bytes.len() - 1);
    let j1 = (j + 1).min(t.runs.len() - 1);
    let row = |i: usize| t.seconds[i][j] + v * (t.seconds[i][j1] - t.seconds[i][j]);
    scale * (row(i) + u * (row(i1) - row(i)))
}

/// Largest total send time of a rank (eq. 1 or 2).
pub fn max_rate(pat: &Pattern, m: &Machine, term: RateTerm) -> f64 {
    // Each sender's messages and bytes by locality x protocol: its time
    // is a sum over these classes (`class_time`), with one pass over the
    // messages.
    let senders = per_sender(pat, |run| {
        let mut class = [(0u64, 0u64); 9];
        for msg in run {
            let c = &mut class[msg.locality as usize * 3 + msg.protocol as usize];
            c.0 += 1;
            c.1 += msg.bytes;
        }
        (run[0].from, class)
    });
    // Active ranks per node: those sending network messages (node-aware),
    // or any message when every message is charged as a network one.
    let places = m.places();
    let mut active = vec![0usize; m.nodes];
    for (from, class) in senders.iter().flatten() {
        let network = &class[Locality::Network as usize * 3..][..3];
        if term != RateTerm::NodeAware || network.iter().any(|c| c.0 > 0) {
            active[places.node_of(*from) as usize] += 1;
        }
    }
    senders
        .par_iter()
        .flat_map_iter(|piece| piece.iter())
        .map(|(from, class)| {
            let a = active[places.node_of(*from) as usize];
            (class.iter().enumerate())
                .filter(|(_, c)| c.0 > 0)
                .map(|(k, &c)| class_time(m, term, LOCALITIES[k / 3], k % 3, c, a))
                .sum::<f64>()
        })
        .reduce(|| 0.0, f64::max)
}

/// Largest queue-search time of a receiving rank (eq. 3).
pub fn queue_search(pat: &Pattern, m: &Machine, bound: QueueBound) -> f64 {
    let summary = crate::comm::summarize(pat, m);
    queue_time(summary.messages.max_recv, m, bound)
}

/// Eq. 3 for the rank that receives the most messages, `n` of them.
pub fn queue_time(n: u64, m: &Machine, bound: QueueBound) -> f64 {
    let n = n as f64;
    let gamma = m.params.gamma;
    match bound {
        QueueBound::Upper => gamma * n * n,
        QueueBound::Measured => gamma * n * n / 3.0,
        QueueBound::Lower => gamma * n,
    }
}

/// LoGPC's network contention (Moritz and Frank 2001, from Agarwal's
/// model of wormhole-routed k-ary n-cubes) on the router torus, the
/// alternative to `delta h^3 B / routers`. Time runs in units of one byte
/// on a network link (`tau = 1 / R_b`, network rendezvous) and a flit is a
/// byte; `n = 3`; `k_d` is the pattern's byte-weighted mean hops per
/// dimension; `B` the mean network message; `T` the mean LogGP time of a
/// network message ([`loggp_params`]). The
/// closed loop `m_c = 1 / (T + C_n(m_c))` gives the delay `C_n` of each
/// message, and a rank's messages wait one after another: the most
/// network messages one rank sends, times `C_n`. No contention below one
/// hop per dimension, where Agarwal's `(k_d - 1)` factor vanishes.
pub fn logpc(pat: &Pattern, summary: &Summary, m: &Machine) -> f64 {
    let k_d = summary.avg_hops / 3.0;
    let count = summary.messages.inter_node;
    if count == 0 || k_d <= 1.0 {
        return 0.0;
    }
    let tau = 1.0 / m.params.network.rend.rate;
    let b = summary.bytes.inter_node as f64 / count as f64;
    let t: f64 = pat
        .messages
        .iter()
        .filter(|msg| msg.locality == Locality::Network)
        .map(|msg| {
            loggp_params(m, Locality::Network, msg.protocol as usize).message(msg.bytes as f64)
        })
        .sum::<f64>()
        / count as f64
        / tau;
    let (_, c_n) = classic::contended_rate(3.0, k_d, b, t);
    let mut sent = vec![0u32; m.ranks()];
    for msg in &pat.messages {
        if msg.locality == Locality::Network {
            sent[msg.from as usize] += 1;
        }
    }
    sent.into_iter().max().unwrap_or(0) as f64 * c_n * tau
}

/// Network contention (eqs. 5, 7): `delta h^3 B / routers`.
pub fn contention(summary: &Summary, m: &Machine) -> f64 {
    let h = summary.avg_hops;
    m.params.delta * h * h * h * summary.bytes.inter_node as f64 / m.routers() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{Message, Op, Protocol};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-30)
    }

    #[test]
    fn logpc_by_hand() {
        // Rank 0 (router (0,0,0) of the 8x8x4 box) sends two 1000 B eager
        // messages to node 292, on router 146 = (2,2,2): 6 hops, k_d = 2.
        let m = Machine::bluewaters();
        let messages = [4672, 4673]
            .map(|to| Message {
                from: 0,
                to,
                bytes: 1000,
                locality: Locality::Network,
                protocol: Protocol::Eager,
                hops: 6,
                runs: 1,
            })
            .to_vec();
        let pat = Pattern {
            op: Op::Spmv,
            messages,
        };
        let summary = crate::comm::summarize(&pat, &m);
        assert_eq!(summary.avg_hops, 6.0);
        // In link-byte units (tau = 1 / 2.9e9): B = 1000, T the LogGP time
        // of one message, 7.0e-6 + 999 / 7.5e8 s. m (T + C(m)) = 1 with
        // C(m) = c m / (1 - a m), c = (n+1)(k_d-1) B^2 / 2, a = B k_d / 2,
        // is (c - a T) m^2 + (T + a) m - 1 = 0: its smaller positive root.
        let tau = 1.0 / 2.9e9;
        let t = (7.0e-6 + 999.0 / 7.5e8) / tau;
        let (c, a): (f64, f64) = (4.0 * 1.0 * 1.0e6 / 2.0, 1000.0 * 2.0 / 2.0);
        let (qa, qb) = (c - a * t, t + a);
        let rate = (-qb + (qb * qb + 4.0 * qa).sqrt()) / (2.0 * qa);
        let c_n = c * rate / (1.0 - a * rate);
        let want = 2.0 * c_n * tau;
        let got = logpc(&pat, &summary, &m);
        assert!((got - want).abs() <= 1e-9 * want, "{got} {want}");
        // Neighbours (k_d <= 1) see no contention in Agarwal's model.
        let mut near = pat.clone();
        for msg in &mut near.messages {
            msg.hops = 3;
        }
        let s = crate::comm::summarize(&near, &m);
        assert_eq!(logpc(&near, &s, &m), 0.0);
    }

    #[test]
    fn pack_by_hand() {
        let m = Machine::bluewaters();
        let mut a = msg(0, 1, 800, Locality::Socket, 0);
        a.runs = 3;
        let mut b = msg(0, 2, 80, Locality::Socket, 0);
        b.runs = 2;
        let c = msg(1, 0, 8000, Locality::Socket, 0); // contiguous: free
        let pat = Pattern {
            op: Op::Spmv,
            messages: vec![a, b, c],
        };
        // Rank 0: 3 runs + 800 B, 2 runs + 80 B; 100 ns a run, 6.2 GB/s.
        let want = 5.0 * 1.0e-7 + 880.0 / 6.2e9;
        assert!(close(pack(&pat, &m), want));
    }

    #[test]
    fn pack_table_by_hand() {
        let mut m = Machine::bluewaters();
        let t = PackTable {
            bytes: vec![1024.0, 4096.0],
            runs: vec![2.0, 8.0],
            seconds: vec![vec![1e-6, 3e-6], vec![5e-6, 9e-6]],
            source: String::new(),
        };
        assert!(close(pack_at(&t, 1024.0, 2.0), 1e-6));
        assert!(close(pack_at(&t, 4096.0, 2.0), 5e-6));
        // Halfway in log s and in log k: the mean of the four corners.
        assert!(close(pack_at(&t, 2048.0, 4.0), 4.5e-6));
        // Clamped below the smallest size and beyond the most runs.
        assert!(close(pack_at(&t, 100.0, 100.0), 3e-6));
        // Twice the largest size costs twice as much.
        assert!(close(pack_at(&t, 8192.0, 8.0), 18e-6));
        m.params.pack_table = Some(t);
        let mut a = msg(0, 1, 2048, Locality::Socket, 0);
        a.runs = 4;
        let mut b = msg(0, 2, 4096, Locality::Socket, 0);
        b.runs = 2;
        let pat = Pattern {
            op: Op::Spmv,
            messages: vec![a, b, msg(1, 0, 4096, Locality::Socket, 0)],
        };
        assert!(close(pack(&pat, &m), 4.5e-6 + 5e-6));
    }

    #[test]
    fn loggp_from_the_machine_file() {
        let mut m = Machine::bluewaters();
        m.params.loggp = Some(classic::LogGP {
            l: 1e-6,
            o_s: 2e-6,
            o_r: 3e-6,
            g: 5e-6,
            big_g: 1e-9,
        });
        // Two 100 B messages from rank 0, on a socket and on the network
        // alike: busy 2 max(g, o_s + 99 G) = 1e-5, then L + o_r.
        let pat = Pattern {
            op: Op::Spmv,
            messages: vec![
                msg(0, 1, 100, Locality::Socket, 0),
                msg(0, 16, 100, Locality::Network, 1),
            ],
        };
        assert!(close(loggp(&pat, &m), 1e-5 + 4e-6));
        let t = message_time(&m, RateTerm::LogGP, Locality::Node, 0, 100, 1);
        assert!(close(t, 2e-6 + 1e-6 + 99e-9 + 3e-6));
    }

    #[test]
    fn loggp_by_hand() {
        let m = Machine::bluewaters();
        // Rank 0 sends two 100 B network messages (short: alpha 2.3e-6,
        // R_b 1.3e9, so o_s = L = o_r = g = alpha / 3): busy
        // 2 (alpha/3 + 99 / 1.3e9), then L + o_r = 2 alpha / 3.
        let msg = |to| Message {
            from: 0,
            to,
            bytes: 100,
            locality: Locality::Network,
            protocol: Protocol::Short,
            hops: 1,
            runs: 1,
        };
        let pat = Pattern {
            op: Op::Spmv,
            messages: vec![msg(16), msg(32)],
        };
        let want = 4.0 * 2.3e-6 / 3.0 + 2.0 * 99.0 / 1.3e9;
        assert!(close(loggp(&pat, &m), want), "{} {want}", loggp(&pat, &m));
        // A lone message costs its postal time less one byte's G.
        let one = Pattern {
            op: Op::Spmv,
            messages: vec![msg(16)],
        };
        assert!(close(loggp(&one, &m), 2.3e-6 + 99.0 / 1.3e9));
        let model = Model::parse("loggp+queue").unwrap();
        assert_eq!(model.name(), "loggp+queue");
        assert!(Model::parse("loggp+postal").is_err());
    }

    #[test]
    fn single_messages_by_hand() {
        let m = Machine::bluewaters();
        // 16 KiB network rendezvous, 16 active ranks: 16 * 2.9e9 > R_N, so
        // 3.0e-6 + 16 * 16384 / 6.6e9.
        let t = message_time(&m, RateTerm::NodeAware, Locality::Network, 2, 16384, 16);
        assert!(close(t, 3.0e-6 + 16.0 * 16384.0 / 6.6e9), "{t}");
        // One active rank: 3.0e-6 + 16384 / 2.9e9 (R_N does not bind).
        let t = message_time(&m, RateTerm::NodeAware, Locality::Network, 2, 16384, 1);
        assert!(close(t, 3.0e-6 + 16384.0 / 2.9e9));
        // 100-byte intra-socket short message: 4.4e-7 + 100 / 2.2e9.
        let t = message_time(&m, RateTerm::NodeAware, Locality::Socket, 0, 100, 16);
        assert!(close(t, 4.4e-7 + 100.0 / 2.2e9), "{t}");
        // Postal charges it as a network short message.
        let t = message_time(&m, RateTerm::Postal, Locality::Socket, 0, 100, 16);
        assert!(close(t, 2.3e-6 + 100.0 / 1.3e9));
        // Eager network, 4 active: R_N does not apply: 7e-6 + 4 * 4000 / (4 * 7.5e8).
        let t = message_time(&m, RateTerm::MaxRate, Locality::Node, 1, 4000, 4);
        assert!(close(t, 7.0e-6 + 4000.0 / 7.5e8));
    }

    fn msg(from: u32, to: u32, bytes: u64, locality: Locality, hops: u32) -> Message {
        let protocol = Protocol::of(bytes, &Machine::bluewaters().params);
        Message {
            from,
            to,
            bytes,
            locality,
            protocol,
            hops,
            runs: 1,
        }
    }

    #[test]
    fn queue_of_1000_messages() {
        let m = Machine {
            nodes: 64,
            ..Machine::bluewaters()
        };
        let pat = Pattern {
            op: Op::Spmv,
            messages: (1..=1000)
                .map(|r| msg(r, 0, 8, Locality::Network, 1))
                .collect(),
        };
        assert!(close(
            queue_search(&pat, &m, QueueBound::Upper),
            8.4e-9 * 1e6
        ));
        assert!(close(
            queue_search(&pat, &m, QueueBound::Measured),
            8.4e-9 * 1e6 / 3.0
        ));
        assert!(close(
            queue_search(&pat, &m, QueueBound::Lower),
            8.4e-9 * 1e3
        ));
    }

    #[test]
    fn tiny_pattern_by_hand() {
        // 2 nodes x 4 ranks (2 sockets), one router (2 nodes per router).
        let m = Machine {
            nodes: 2,
            ppn: 4,
            ..Machine::bluewaters()
        };
        let pat = Pattern {
            op: Op::Spmv,
            messages: vec![
                msg(0, 1, 100, Locality::Socket, 0),
                msg(0, 4, 1000, Locality::Network, 0),
                msg(1, 4, 10000, Locality::Network, 0),
                msg(2, 0, 100, Locality::Node, 0),
                msg(5, 0, 600, Locality::Network, 0),
            ],
        };
        let s = crate::comm::summarize(&pat, &m);
        let c = cost(&pat, &s, &m, &Model::default());
        // Node 0 has 2 network senders (0, 1), node 1 one (5).
        let r0: f64 = (4.4e-7 + 100.0 / 2.2e9) + (7.0e-6 + 2.0 * 1000.0 / (2.0 * 7.5e8));
        let r1 = 3.0e-6 + 2.0 * 10000.0 / (2.0f64 * 2.9e9).min(6.6e9);
        let r2 = 8.3e-7 + 100.0 / 4.8e8;
        let r5 = 7.0e-6 + 600.0 / 7.5e8;
        assert!(close(c.max_rate, r0.max(r1).max(r2).max(r5)), "{c:?}");
        // Rank 0 receives 2, rank 4 receives 2: gamma * 4.
        assert!(close(c.queue_search, 8.4e-9 * 4.0));
        // All on one router: h = 0, no contention.
        assert_eq!(c.contention, 0.0);
        assert!(close(c.total, c.max_rate + c.queue_search));
    }

    #[test]
    fn contention_is_delta_h_cubed_b_over_routers() {
        let m = Machine {
            nodes: 8,
            ppn: 1,
            ..Machine::bluewaters()
        }; // 4 routers
        let pat = Pattern {
            op: Op::Spmv,
            messages: vec![
                msg(0, 2, 1000, Locality::Network, 1),
                msg(0, 6, 3000, Locality::Network, 2),
            ],
        };
        let s = crate::comm::summarize(&pat, &m);
        // h = (1000 + 6000) / 4000 = 1.75, B = 4000.
        let h: f64 = 1.75;
        assert!(close(contention(&s, &m), 1e-10 * h.powi(3) * 4000.0 / 4.0));
    }

    #[test]
    fn model_specs() {
        assert_eq!(
            Model::parse("nodeaware+queue+contention").unwrap(),
            Model::default()
        );
        assert_eq!(Model::parse("postal").unwrap().name(), "postal");
        assert_eq!(
            Model::parse("maxrate+queue-lower").unwrap().name(),
            "maxrate+queue-lower"
        );
        assert!(Model::parse("postal+maxrate")
            .unwrap_err()
            .contains("two rate terms"));
        assert!(Model::parse("logp")
            .unwrap_err()
            .contains("unknown model term 'logp'"));
    }
}
