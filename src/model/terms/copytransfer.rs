//! `copytransfer`: copy-transfer (Stricker and Gross, ISCA 1995) as a rate
//! term: a message of `s` bytes takes `s / |Q|`, `|Q|` the
//! throughput of its transfer composed from basic ones ([`crate::model::classic`]):
//!
//! - buffer packing `xQ1 = xC1 . (1S0 || Nd || 0D1) . 1C1`: gather into a
//!   buffer, send it, copy it out;
//! - chained `xQ'1 = xS0 || Nd || 0D1`: send straight from the source.
//!
//! The receiver keeps its ghost values contiguous (`y = 1`). The source
//! `x` is the message's own access pattern: of its `w = s / 8` words, a
//! fraction `f = (k - 1) / (w - 1)` start one of its `k` runs, and a copy
//! from `x` runs at `1 / |xC1| = (1 - f) / |1C1| + f / |wC1|` (likewise
//! `xS0`), so one run is `1C1` and one word per run `wC1`. `Nd` is read
//! at the message's congestion, interpolated in `log c` and shared fairly
//! beyond the table: the most ranks that send across one link of its
//! dimension-order route ([`crate::machine::Places::route`]). A rank sends its messages
//! one after another (as in the max-rate term), so each sender is one
//! stream on a link, however many messages it routes there. On a node the transfer is
//! a copy through shared memory at the locality's rendezvous `R_b`, which
//! stands for `1S0`, `Nd` and `0D1`.
//!
//! Per level both strategies are charged, each the slowest sending rank's
//! sum, and the cheaper one is the term.

use serde::Serialize;

use super::{Charge, Detail, Figure, Slot, Term};
use crate::comm::{Message, Pattern};
use crate::machine::{CopyRates, Machine, Places};
use crate::model::{classic, Exchange};

/// The copy-transfer rate term.
pub static TERM: Term = Term {
    name: "copytransfer",
    aliases: &[],
    about: "copy-transfer throughputs, the cheaper of buffer packing and chained \
            transfers (Stricker and Gross 1995)",
    slot: Slot::Rate,
    column: "max_rate",
    header: "copy-transfer",
    legend: "copy-transfer",
    details: &[
        Detail {
            json: "copy_transfer.packing",
            csv: Some("copy_packing"),
            header: Some("packing"),
        },
        Detail {
            json: "copy_transfer.chained",
            csv: Some("copy_chained"),
            header: Some("chained"),
        },
        Detail {
            json: "copy_transfer.cheaper",
            csv: Some("copy_cheaper"),
            header: Some("cheaper"),
        },
    ],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let c = copy_transfer(x.pattern, x.machine, x.places);
    Charge {
        seconds: c.time(),
        details: vec![
            Figure::Seconds(c.packing),
            Figure::Seconds(c.chained),
            Figure::Choice(c.cheaper),
        ],
    }
}

/// Both strategies on one operation, and which is cheaper.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CopyTransfer {
    /// The slowest sender's time with buffer packing.
    pub packing: f64,
    /// The slowest sender's time with chained transfers.
    pub chained: f64,
    /// `packing` or `chained`.
    pub cheaper: &'static str,
}

impl CopyTransfer {
    /// The cheaper strategy's time.
    pub fn time(&self) -> f64 {
        self.packing.min(self.chained)
    }
}

/// `Nd` at congestion `c`: linear in `log c` between the table's levels,
/// the first level's rate below it, and `c_last / c` of the last one's above.
pub fn network_rate(r: &CopyRates, c: f64) -> f64 {
    let (levels, rates) = (&r.congestion, &r.network_data);
    let last = levels.len() - 1;
    if c >= levels[last] {
        return rates[last] * levels[last] / c;
    }
    let (k, w) = classic::log_bracket(levels, c);
    if w == 0.0 {
        return rates[k];
    }
    rates[k] + w * (rates[k + 1] - rates[k])
}

/// Throughputs `(xQ1, xQ'1)` of one message (bytes/s), between nodes
/// when `between_nodes`; `network` is `Nd` for a network message and the
/// locality's rendezvous `R_b` on a node.
fn message_rates(r: &CopyRates, msg: &Message, between_nodes: bool, network: f64) -> (f64, f64) {
    let words = msg.bytes as f64 / 8.0;
    let f = if words > 1.0 {
        ((msg.runs.max(1) as f64 - 1.0) / (words - 1.0)).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mix = |contiguous: f64, indexed: f64| 1.0 / ((1.0 - f) / contiguous + f / indexed);
    let (send, deposit, send_x) = if between_nodes {
        (r.send, r.deposit, mix(r.send, r.send_indexed))
    } else {
        (network, network, mix(network, r.copy_indexed))
    };
    let copy_x = mix(r.copy, r.copy_indexed);
    (
        classic::buffer_packing(copy_x, send, network, deposit, r.copy),
        classic::chained(send_x, network, deposit),
    )
}

/// Both strategies' slowest sender on `pat`.
pub fn copy_transfer(pat: &Pattern, m: &Machine, places: &Places) -> CopyTransfer {
    let rates = m.params.copy_rates();
    let mut order: Vec<&Message> = pat.messages.iter().collect();
    if !pat.is_by_sender() {
        order.sort_by_key(|msg| msg.from);
    }
    let network = |msg: &Message| places.node_of(msg.from) != places.node_of(msg.to);
    // Senders per link, each counted once (`last` is the latest sender).
    let mut sharing = vec![0u32; places.links()];
    let mut last = vec![u32::MAX; places.links()];
    for msg in order {
        if network(msg) {
            places.route(msg.from, msg.to, |l| {
                if last[l] != msg.from {
                    last[l] = msg.from;
                    sharing[l] += 1;
                }
            });
        }
    }
    let mut packing = vec![0.0f64; m.ranks()];
    let mut chained = vec![0.0f64; m.ranks()];
    for msg in &pat.messages {
        let locality = places.locality(msg.from, msg.to);
        let between_nodes = places.is_network(locality);
        let network = if between_nodes {
            let mut c = 1u32;
            places.route(msg.from, msg.to, |l| c = c.max(sharing[l]));
            network_rate(&rates, c as f64)
        } else {
            m.params.rates(locality).rend.rate
        };
        let (q, q_chained) = message_rates(&rates, msg, between_nodes, network);
        let s = msg.bytes as f64;
        packing[msg.from as usize] += s / q;
        chained[msg.from as usize] += s / q_chained;
    }
    let packing = packing.into_iter().fold(0.0, f64::max);
    let chained = chained.into_iter().fold(0.0, f64::max);
    CopyTransfer {
        packing,
        chained,
        cheaper: if packing <= chained {
            "packing"
        } else {
            "chained"
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::Op;
    use crate::model::test_util::close;

    /// The T3D's rates (MB/s, Stricker and Gross) on 8 nodes x 2 ranks,
    /// 2 nodes per router: router `k` holds ranks `4k .. 4k + 3`.
    fn t3d() -> Machine {
        let mut m = Machine {
            nodes: 8,
            ppn: 2,
            sockets_per_node: 1,
            network: crate::machine::network::Spec::box3d(2),
            ..Machine::bluewaters()
        };
        m.params.copy_transfer = Some(CopyRates {
            copy: 93e6,
            copy_indexed: 32.9e6,
            send: 126e6,
            send_indexed: 32e6,
            deposit: 142e6,
            congestion: vec![1.0, 2.0, 4.0],
            network_data: vec![142e6, 69e6, 35e6],
        });
        m
    }

    fn msg(from: u32, to: u32, bytes: u64, runs: u32) -> Message {
        Message {
            from,
            to,
            bytes,
            runs,
        }
    }

    #[test]
    fn network_rate_by_congestion() {
        let r = t3d().params.copy_rates();
        assert_eq!(network_rate(&r, 1.0), 142e6);
        assert_eq!(network_rate(&r, 2.0), 69e6);
        // Halfway in log c between 2 and 4.
        assert!(close(network_rate(&r, 8f64.sqrt()), 52e6));
        // Beyond the table, 8 messages share what 4 had.
        assert!(close(network_rate(&r, 8.0), 17.5e6));
    }

    #[test]
    fn two_messages_on_one_link_reproduce_the_papers_rates() {
        let m = t3d();
        // Routers 0 -> 1 of the 2x2x1 box: ranks 0 and 1 each send 8 KiB
        // across the one link 0->1, so congestion 2 and Nd = 69.
        let pat = Pattern {
            op: Op::Spmv,
            messages: vec![msg(0, 4, 8192, 1), msg(1, 5, 8192, 1024)],
        };
        assert!(m.network().describe().ends_with("routers [2, 2, 1]"));
        let c = copy_transfer(&pat, &m, &m.places());
        // Rank 0, contiguous: 1Q1 = 1/(1/93 + 1/min(126, 69, 142) + 1/93),
        // 1Q'1 = min(126, 69, 142). Rank 1, one word per run (x = w):
        // wQ1 = 1/(1/32.9 + 1/69 + 1/93), wQ'1 = min(32, 69, 142).
        let q11: f64 = 1.0 / (1.0 / 93.0 + 1.0 / 69.0 + 1.0 / 93.0) * 1e6;
        let qw1 = 1.0 / (1.0 / 32.9 + 1.0 / 69.0 + 1.0 / 93.0) * 1e6;
        assert!(close(c.packing, 8192.0 / q11.min(qw1)), "{c:?}");
        assert!(close(c.chained, 8192.0 / 32e6), "{c:?}");
        assert_eq!(c.cheaper, "chained");
        assert!(close(c.time(), 8192.0 / 32e6));
        // One sender is one stream: rank 0's two messages over the link
        // leave it uncongested (Nd = 142, 1S0 = 126 binds chained).
        let one = Pattern {
            op: Op::Spmv,
            messages: vec![msg(0, 5, 8192, 1), msg(0, 4, 8192, 1)],
        };
        let c = copy_transfer(&one, &m, &m.places());
        let q = 1.0 / (1.0 / 93.0 + 1.0 / 126.0 + 1.0 / 93.0) * 1e6;
        assert!(close(c.packing, 2.0 * 8192.0 / q), "{c:?}");
        assert!(close(c.chained, 2.0 * 8192.0 / 126e6), "{c:?}");
    }

    #[test]
    fn derived_blue_waters_rates_on_a_node() {
        let m = Machine::bluewaters();
        // 800 B in 3 runs on a socket: w = 100 words, f = 2 / 99.
        let one = msg(0, 1, 800, 3);
        let r = m.params.copy_rates();
        let indexed = 8.0 / (1e-7 + 8.0 / 6.2e9);
        assert!(close(r.copy_indexed, indexed));
        let f = 2.0 / 99.0;
        let x = 1.0 / ((1.0 - f) / 6.2e9 + f / indexed);
        let (q, q_chained) = message_rates(&r, &one, false, 6.2e9);
        assert!(close(q, 1.0 / (1.0 / x + 2.0 / 6.2e9)));
        assert!(close(q_chained, x));
    }
}
