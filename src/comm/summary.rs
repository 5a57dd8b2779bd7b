//! report.json's per-operation figures of a pattern (docs/report.md, "The fields of report.json"):
//! messages and bytes, in total, the most one rank sends or receives, and
//! over the network; byte-hops and mean hops; the breakdown by locality x
//! protocol; the most nodes one rank talks to.

use rayon::prelude::*;
use serde::Serialize;

use super::{offsets, Message, Pattern};
use crate::machine::{Class, Machine, Places};

/// Per-operation figures of the report, plus the breakdown by
/// locality x protocol and the most nodes a rank talks to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Message counts.
    pub messages: MessageFigures,
    /// Byte counts.
    pub bytes: ByteFigures,
    /// `sum(bytes * hops)` over network messages.
    pub byte_hops: u64,
    /// Byte-weighted mean hops of network messages, `byte_hops / bytes.inter_node`.
    pub avg_hops: f64,
    /// Messages and bytes by locality, then protocol: `[locality][protocol]`.
    pub by_class: Vec<ClassFigures>,
    /// Largest number of distinct other nodes one rank sends to or receives from.
    pub max_nodes_talked_to: usize,
}

/// Message counts of one operation.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MessageFigures {
    /// All messages.
    pub total: u64,
    /// Most messages one rank sends.
    pub max_sent: u64,
    /// Most messages one rank receives.
    pub max_recv: u64,
    /// Messages between nodes.
    pub inter_node: u64,
    /// Most messages between nodes that one rank sends.
    pub max_inter_node_sent: u64,
    /// Most messages one rank sends within its socket, to its node's
    /// other socket, and over the network (each maximum over ranks on
    /// its own).
    pub max_sent_by_locality: ByLocality,
    /// Most messages one rank receives, the same way.
    pub max_recv_by_locality: ByLocality,
}

/// A figure per locality class, in the machine's class order; in JSON an
/// object keyed by class name (`{"socket": .., "node": .., "network": ..}`
/// on Blue Waters).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ByLocality(pub Vec<(String, u64)>);

impl ByLocality {
    /// Zero for each of `places`' classes.
    fn zero(places: &Places) -> ByLocality {
        ByLocality(
            places
                .locality_names()
                .iter()
                .map(|n| (n.clone(), 0))
                .collect(),
        )
    }

    /// The figures in class order.
    pub fn values(&self) -> Vec<u64> {
        self.0.iter().map(|(_, x)| *x).collect()
    }

    /// Raises each figure to `v`'s (class order).
    fn raise(&mut self, v: impl IntoIterator<Item = u64>) {
        for ((_, x), y) in self.0.iter_mut().zip(v) {
            *x = (*x).max(y);
        }
    }
}

impl Serialize for ByLocality {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, x) in &self.0 {
            map.serialize_entry(name, x)?;
        }
        map.end()
    }
}

/// Byte counts of one operation.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ByteFigures {
    /// All bytes.
    pub total: u64,
    /// Most bytes one rank sends.
    pub max_sent: u64,
    /// Most bytes one rank receives.
    pub max_recv: u64,
    /// Bytes between nodes.
    pub inter_node: u64,
}

/// Messages and bytes of one locality and protocol.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassFigures {
    /// Where they go: the locality class's name.
    pub locality: String,
    /// How they are sent.
    pub protocol: crate::machine::Protocol,
    /// Messages of this class.
    pub messages: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Most messages of this class one rank sends.
    pub max_sent: u64,
    /// Most bytes of this class one rank sends.
    pub max_bytes_sent: u64,
}

impl Summary {
    fn empty(places: &Places) -> Summary {
        let mut s = Summary {
            by_class: (0..places.classes())
                .map(|k| {
                    let c = Class::of_index(k);
                    ClassFigures {
                        locality: places.locality_name(c.locality).to_string(),
                        protocol: c.protocol,
                        messages: 0,
                        bytes: 0,
                        max_sent: 0,
                        max_bytes_sent: 0,
                    }
                })
                .collect(),
            ..Summary::default()
        };
        s.messages.max_sent_by_locality = ByLocality::zero(places);
        s.messages.max_recv_by_locality = ByLocality::zero(places);
        s
    }

    /// Adds one sender's messages: totals add, and the sender's own
    /// counts raise the per-rank maxima.
    /// `recv_by_locality` counts each receiver's messages per locality,
    /// from the same classification.
    fn add_sender(
        mut self,
        run: &[Message],
        places: &Places,
        recv_by_locality: &mut [u32],
    ) -> Summary {
        let (mut n, mut b, mut net) = (0u64, 0u64, 0u64);
        let mut class = vec![(0u64, 0u64); places.classes()];
        let classes = places.localities();
        let mut by_locality = vec![0u64; classes];
        for msg in run {
            n += 1;
            b += msg.bytes;
            let c = places.class(msg.from, msg.to, msg.bytes);
            if places.is_network(c.locality) {
                net += 1;
                self.bytes.inter_node += msg.bytes;
                self.byte_hops += msg.bytes * places.hops(msg.from, msg.to) as u64;
            }
            let k = &mut class[c.index()];
            k.0 += 1;
            k.1 += msg.bytes;
            by_locality[c.locality.index()] += 1;
            recv_by_locality[msg.to as usize * classes + c.locality.index()] += 1;
        }
        self.messages.max_sent_by_locality.raise(by_locality);
        self.messages.total += n;
        self.messages.inter_node += net;
        self.bytes.total += b;
        self.messages.max_sent = self.messages.max_sent.max(n);
        self.messages.max_inter_node_sent = self.messages.max_inter_node_sent.max(net);
        self.bytes.max_sent = self.bytes.max_sent.max(b);
        for (c, (k, kb)) in self.by_class.iter_mut().zip(class) {
            c.messages += k;
            c.bytes += kb;
            c.max_sent = c.max_sent.max(k);
            c.max_bytes_sent = c.max_bytes_sent.max(kb);
        }
        self
    }

    /// Totals add, per-rank maxima take the larger.
    fn merge(mut self, o: Summary) -> Summary {
        let (m, b) = (&mut self.messages, &mut self.bytes);
        m.total += o.messages.total;
        m.inter_node += o.messages.inter_node;
        m.max_sent = m.max_sent.max(o.messages.max_sent);
        m.max_recv = m.max_recv.max(o.messages.max_recv);
        m.max_inter_node_sent = m.max_inter_node_sent.max(o.messages.max_inter_node_sent);
        m.max_sent_by_locality
            .raise(o.messages.max_sent_by_locality.values());
        m.max_recv_by_locality
            .raise(o.messages.max_recv_by_locality.values());
        b.total += o.bytes.total;
        b.inter_node += o.bytes.inter_node;
        b.max_sent = b.max_sent.max(o.bytes.max_sent);
        b.max_recv = b.max_recv.max(o.bytes.max_recv);
        self.byte_hops += o.byte_hops;
        self.max_nodes_talked_to = self.max_nodes_talked_to.max(o.max_nodes_talked_to);
        for (c, d) in self.by_class.iter_mut().zip(&o.by_class) {
            c.messages += d.messages;
            c.bytes += d.bytes;
            c.max_sent = c.max_sent.max(d.max_sent);
            c.max_bytes_sent = c.max_bytes_sent.max(d.max_bytes_sent);
        }
        self
    }
}

/// A summary being summed: sender figures, and receive counts per rank.
pub(crate) struct Tally {
    sums: Summary,
    recv: Vec<u64>,
    recv_bytes: Vec<u64>,
    /// Messages each rank receives, per locality: the machine's classes
    /// per rank.
    recv_by_locality: Vec<u32>,
    /// Locality classes.
    classes: usize,
}

impl Tally {
    pub(crate) fn new(places: &Places) -> Tally {
        let ranks = places.ranks();
        Tally {
            sums: Summary::empty(places),
            recv: vec![0; ranks],
            recv_bytes: vec![0; ranks],
            recv_by_locality: vec![0; ranks * places.localities()],
            classes: places.localities(),
        }
    }

    /// Adds one sender's messages.
    pub(crate) fn add_sender(&mut self, run: &[Message], places: &Places) {
        if run.is_empty() {
            return;
        }
        self.sums =
            std::mem::take(&mut self.sums).add_sender(run, places, &mut self.recv_by_locality);
        for msg in run {
            self.recv[msg.to as usize] += 1;
            self.recv_bytes[msg.to as usize] += msg.bytes;
        }
    }

    pub(crate) fn merge(self, o: Tally) -> Tally {
        Tally {
            sums: self.sums.merge(o.sums),
            recv: add_counts(self.recv, o.recv),
            recv_bytes: add_counts(self.recv_bytes, o.recv_bytes),
            recv_by_locality: add_counts(self.recv_by_locality, o.recv_by_locality),
            classes: self.classes,
        }
    }

    /// The summary: receive maxima and mean hops.
    pub(crate) fn finish(self, max_nodes_talked_to: usize) -> Summary {
        let mut s = self.sums;
        s.messages.max_recv = self.recv.into_iter().max().unwrap_or(0);
        s.bytes.max_recv = self.recv_bytes.into_iter().max().unwrap_or(0);
        for r in self.recv_by_locality.chunks(self.classes.max(1)) {
            s.messages
                .max_recv_by_locality
                .raise(r.iter().map(|&x| x as u64));
        }
        s.max_nodes_talked_to = max_nodes_talked_to;
        s.avg_hops = if s.bytes.inter_node > 0 {
            s.byte_hops as f64 / s.bytes.inter_node as f64
        } else {
            0.0
        };
        s
    }
}

/// Element-wise sum, for parallel folds of per-rank counts.
fn add_counts<T: Copy + std::ops::AddAssign>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// Most distinct other nodes one rank sends to or receives from: the
/// nodes of each rank's network messages, both directions, bucketed by
/// rank (counting sort), then deduplicated per rank. Ranges of ranks are
/// done in parallel; a range's sends are one slice of the (sender-ordered)
/// pattern, its receives are picked from all messages.
fn max_nodes_talked_to(pat: &Pattern, places: &Places) -> usize {
    let ranks = places.ranks();
    let pieces = rayon::current_num_threads().min(ranks).max(1);
    let msgs = &pat.messages;
    let network = |m: &&Message| places.node_of(m.from) != places.node_of(m.to);
    (0..pieces)
        .into_par_iter()
        .map(|k| {
            let (lo, hi) = (k * ranks / pieces, (k + 1) * ranks / pieces);
            let sends = &msgs[msgs.partition_point(|m| (m.from as usize) < lo)
                ..msgs.partition_point(|m| (m.from as usize) < hi)];
            let recvs = || {
                msgs.iter()
                    .filter(network)
                    .filter(|m| (lo..hi).contains(&(m.to as usize)))
            };
            let mut start = vec![0usize; hi - lo + 1];
            for m in sends.iter().filter(network) {
                start[m.from as usize - lo + 1] += 1;
            }
            for m in recvs() {
                start[m.to as usize - lo + 1] += 1;
            }
            offsets(&mut start);
            let mut next = start.clone();
            let mut talks = vec![0u32; start[hi - lo]];
            for m in sends.iter().filter(network) {
                let s = m.from as usize - lo;
                talks[next[s]] = places.node_of(m.to);
                next[s] += 1;
            }
            for m in recvs() {
                let t = m.to as usize - lo;
                talks[next[t]] = places.node_of(m.from);
                next[t] += 1;
            }
            (0..hi - lo)
                .map(|r| {
                    let run = &mut talks[start[r]..start[r + 1]];
                    run.sort_unstable();
                    run.chunk_by(|a, b| a == b).count()
                })
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

/// the report's figures of one pattern: each sender's run of messages (the
/// pattern is ordered by sender) added to a tally, in one range of
/// messages per thread (a tally holds two per-rank arrays).
pub fn summarize(pat: &Pattern, m: &Machine) -> Summary {
    summarize_on(pat, &m.places())
}

/// [`summarize`] with the placement tables at hand.
pub fn summarize_on(pat: &Pattern, places: &Places) -> Summary {
    if !pat.is_by_sender() {
        // Patterns put together elsewhere (the steps of a strategy, one
        // after another).
        let mut sorted = pat.clone();
        sorted.messages.par_sort_by_key(|msg| msg.from);
        return summarize_on(&sorted, places);
    }
    let msgs = &pat.messages;
    let pieces = rayon::current_num_threads().clamp(1, msgs.len().max(1));
    let cuts = pat.sender_cuts(pieces);
    let tally = (0..pieces)
        .into_par_iter()
        .map(|k| {
            let mut tally = Tally::new(places);
            for run in msgs[cuts[k]..cuts[k + 1]].chunk_by(|a, b| a.from == b.from) {
                tally.add_sender(run, places);
            }
            tally
        })
        .reduce_with(Tally::merge)
        .unwrap_or_else(|| Tally::new(places));
    tally.finish(max_nodes_talked_to(pat, places))
}
