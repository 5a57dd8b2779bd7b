//! Routed link loads: every network message is routed over the router box
//! in dimension order (x, then y, then z; no wrap-around, as
//! [`Machine::hops`]) and its bytes are added to each directed link it
//! crosses. The busiest link bounds the time the network needs:
//! `delta * max_link_bytes`, beside EuroMPI'18's estimate
//! `delta * h^3 * B / routers` (eq. 7), which spreads the bytes evenly.

use serde::Serialize;

use crate::comm::Pattern;
use crate::machine::{Locality, Machine};

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LinkLoads {
    /// Bytes on the busiest directed link.
    pub max_link_bytes: u64,
    /// Directed links that carry any bytes.
    pub links_used: usize,
    /// Bytes summed over links (`byte_hops` of the pattern).
    pub link_bytes: u64,
}

/// Loads of the directed links of router box `b` (normally
/// [`Machine::router_box`]).
pub fn link_loads(pat: &Pattern, m: &Machine, b: [usize; 3]) -> LinkLoads {
    let mut load = vec![0u64; links(b)];
    for msg in &pat.messages {
        if msg.locality == Locality::Network {
            route(m, b, msg.from, msg.to, |link| load[link] += msg.bytes);
        }
    }
    LinkLoads {
        max_link_bytes: load.iter().copied().max().unwrap_or(0),
        links_used: load.iter().filter(|&&x| x > 0).count(),
        link_bytes: load.iter().sum(),
    }
}

/// Directed links of router box `b`.
pub fn links(b: [usize; 3]) -> usize {
    b[0] * b[1] * b[2] * 6
}

/// Calls `visit` with each directed link (index below [`links`]) the
/// dimension-order route from rank `from` to rank `to` crosses.
pub fn route(m: &Machine, b: [usize; 3], from: u32, to: u32, mut visit: impl FnMut(usize)) {
    // Link (router, dimension, direction) at (r * 3 + d) * 2 + up.
    let index = |c: [usize; 3]| c[0] + b[0] * (c[1] + b[1] * c[2]);
    let router = |rank: u32| m.node_of(rank as usize) / m.nodes_per_router;
    let mut c = m.router_coords(router(from), b);
    let to = m.router_coords(router(to), b);
    for d in 0..3 {
        while c[d] != to[d] {
            let up = to[d] > c[d];
            visit((index(c) * 3 + d) * 2 + up as usize);
            if up {
                c[d] += 1;
            } else {
                c[d] -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{Message, Op, Protocol};

    /// 8 nodes x 2 ranks, 2 nodes per router: router `k` holds ranks
    /// `4k .. 4k + 3`.
    fn machine() -> Machine {
        Machine {
            nodes: 8,
            ppn: 2,
            sockets_per_node: 1,
            nodes_per_router: 2,
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
                    locality: Locality::Network,
                    protocol: Protocol::Short,
                    hops: 0,
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
        let m = machine();
        let sends: Vec<_> = (0..4)
            .map(|i| (i, i + 8, 100))
            .chain((4..8).map(|i| (i, i + 8, 100)))
            .collect();
        let l = link_loads(&pattern(&sends), &m, [4, 1, 1]);
        assert_eq!(l.max_link_bytes, 800);
        assert_eq!(l.links_used, 3);
        assert_eq!(l.link_bytes, 400 + 800 + 400);
    }

    #[test]
    fn dimension_order_on_a_2x2x1_box() {
        // Routers (x, y): 0 (0,0), 1 (1,0), 2 (0,1), 3 (1,1).
        // 0 -> 3 (200 B): +x from 0, then +y from 1.
        // 1 -> 2 (100 B): -x from 1, then +y from 0.
        // 0 -> 1 (50 B): +x from 0, shared with the first.
        let m = machine();
        let l = link_loads(
            &pattern(&[(0, 12, 200), (4, 8, 100), (1, 5, 50)]),
            &m,
            [2, 2, 1],
        );
        assert_eq!(l.max_link_bytes, 250);
        assert_eq!(l.links_used, 4);
        assert_eq!(l.link_bytes, 2 * 200 + 2 * 100 + 50);
        // Messages on one router, or between ranks of one node, load nothing.
        let local = link_loads(&pattern(&[(0, 3, 1000)]), &m, [2, 2, 1]);
        assert_eq!(local.max_link_bytes, 0);
    }
}
