//! `routed`: routed link loads. Every network message is routed over the
//! network ([`crate::machine::Network::loads`]: on Blue Waters' box in
//! dimension order, on a dragonfly minimally or adaptively, on a fat tree
//! shared by a subtree's cables) and its bytes are added to each directed
//! link it crosses. The busiest link bounds the time the network needs:
//! `delta * max_link_bytes`, beside EuroMPI'18's estimate
//! `delta * h^3 * B / routers` (eq. 7), which spreads the bytes evenly.
//! On networks other than `box3d` the contention term is this charge.

use serde::Serialize;

use super::{Charge, Detail, Figure, Slot, Term};
use crate::comm::Pattern;
use crate::machine::Places;
use crate::model::Exchange;

/// The routed-contention term.
pub static TERM: Term = Term {
    name: "routed",
    aliases: &[],
    about: "delta x bytes on the busiest directed link under the network's routes",
    slot: Slot::Extra,
    column: "routed",
    header: "routed",
    legend: "routed contention",
    details: &[Detail {
        json: "max_link_bytes",
        csv: None,
        header: None,
    }],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let loads = link_loads(x.pattern, x.places);
    Charge {
        seconds: x.machine.params.delta * loads.peak,
        details: vec![Figure::Peak(loads.max_link_bytes)],
    }
}

/// What the directed links of the network carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LinkLoads {
    /// Bytes on the busiest directed link, rounded to a byte.
    pub max_link_bytes: u64,
    /// The same, unrounded (a link's share of a spread message).
    #[serde(skip)]
    pub peak: f64,
    /// Directed links that carry any bytes.
    pub links_used: usize,
    /// Bytes summed over links (`byte_hops` of the pattern where every
    /// link is one cable and every message takes one route).
    pub link_bytes: f64,
}

/// Loads of the directed links under the network's routes.
pub fn link_loads(pat: &Pattern, places: &Places) -> LinkLoads {
    let traffic: Vec<(u32, u32, u64)> = pat
        .messages
        .iter()
        .filter(|m| places.node_of(m.from) != places.node_of(m.to))
        .map(|m| (places.node_of(m.from), places.node_of(m.to), m.bytes))
        .collect();
    let load = places.network().loads(&traffic);
    let peak = load.iter().copied().fold(0.0, f64::max);
    LinkLoads {
        max_link_bytes: peak.round() as u64,
        peak,
        links_used: load.iter().filter(|&&x| x > 0.0).count(),
        link_bytes: load.iter().sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{Message, Op};
    use crate::machine::network::{Box3d, Spec};
    use crate::machine::Machine;

    /// 8 nodes x 2 ranks, 2 nodes per router: router `k` holds ranks
    /// `4k .. 4k + 3`.
    fn machine() -> Machine {
        Machine {
            nodes: 8,
            ppn: 2,
            sockets_per_node: 1,
            network: Spec::box3d(2),
            ..Machine::bluewaters()
        }
    }

    fn pattern(sends: &[(u32, u32, u64)]) -> Pattern {
        Pattern {
            op: Op::Spmv,
            messages: sends
                .iter()
                .map(|&(from, to, bytes)| Message {
                    from,
                    to,
                    bytes,
                    runs: 1,
                })
                .collect(),
        }
    }

    #[test]
    fn figure_6_pattern_loads_the_middle_link_with_all_bytes() {
        // 4x1x1: every rank of Gemini 0 sends 100 B to one of Gemini 2,
        // every rank of Gemini 1 to one of Gemini 3. Links 0->1 and 2->3
        // carry 400 B each, the middle link 1->2 all 800 B.
        let m = Machine {
            nodes: 8,
            ..machine()
        };
        let mut places = m.places();
        places.network = std::sync::Arc::new(Box3d::with_dims(8, 2, [4, 1, 1]));
        let sends: Vec<_> = (0..4)
            .map(|i| (i, i + 8, 100))
            .chain((4..8).map(|i| (i, i + 8, 100)))
            .collect();
        let l = link_loads(&pattern(&sends), &places);
        assert_eq!(l.max_link_bytes, 800);
        assert_eq!(l.links_used, 3);
        assert_eq!(l.link_bytes, (400 + 800 + 400) as f64);
    }

    #[test]
    fn dimension_order_on_a_2x2x1_box() {
        // Routers (x, y): 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1).
        // 0 -> 3 (200 B): +x from 0, then +y from 1.
        // 1 -> 2 (100 B): -x from 1, then +y from 0.
        // 0 -> 1 (50 B): +x from 0, shared with the first.
        let m = machine();
        assert_eq!(
            m.network().describe(),
            "box3d, 2 nodes per router, routers [2, 2, 1]"
        );
        let places = m.places();
        let l = link_loads(&pattern(&[(0, 12, 200), (4, 8, 100), (1, 5, 50)]), &places);
        assert_eq!(l.max_link_bytes, 250);
        assert_eq!(l.links_used, 4);
        assert_eq!(l.link_bytes, (2 * 200 + 2 * 100 + 50) as f64);
        // Messages on one router, or between ranks of one node, load nothing.
        let local = link_loads(&pattern(&[(0, 3, 1000)]), &places);
        assert_eq!(local.max_link_bytes, 0);
    }
}
