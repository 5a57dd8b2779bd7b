//! [`Places`]: the placement of every rank as lookup tables, with the
//! allocation's network. Extraction and the models ask for the locality,
//! protocol and hops of millions of messages, and the placement's integer
//! divisions (and the random placement's shuffle) were most of that cost.

use std::sync::Arc;

use super::{Class, Locality, Machine, Network, Protocol};

impl Machine {
    /// Node and socket of every rank and the network of the allocation,
    /// with the protocol thresholds.
    pub fn places(&self) -> Places {
        let ranks = self.ranks();
        let node: Vec<u32> = (0..ranks).map(|r| self.node_of(r) as u32).collect();
        let socket = (0..ranks)
            .map(|r| node[r] * self.sockets_per_node as u32 + self.socket_of(r) as u32)
            .collect();
        Places {
            node,
            socket,
            nodes: self.nodes,
            network: Arc::from(self.network()),
            thresholds: [
                self.params.eager_threshold,
                self.params.rendezvous_threshold,
            ],
        }
    }
}

/// [`Machine::places`]: where every rank is, and the network between
/// its nodes.
#[derive(Clone, Debug)]
pub struct Places {
    /// Node of each rank.
    pub(crate) node: Vec<u32>,
    /// Global socket (`node * sockets_per_node + socket`) of each rank.
    pub(crate) socket: Vec<u32>,
    /// Nodes of the allocation.
    nodes: usize,
    /// The allocation's network.
    pub(crate) network: Arc<dyn Network>,
    /// `[eager_threshold, rendezvous_threshold]`.
    thresholds: [u64; 2],
}

impl Places {
    /// Number of ranks.
    pub fn ranks(&self) -> usize {
        self.node.len()
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.nodes
    }

    /// The node of `rank`.
    #[inline]
    pub fn node_of(&self, rank: u32) -> u32 {
        self.node[rank as usize]
    }

    /// The allocation's network.
    pub fn network(&self) -> &dyn Network {
        &*self.network
    }

    /// Where rank `b` is seen from rank `a`.
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

    /// Switch-to-switch hops between the nodes of two ranks.
    #[inline]
    pub fn hops(&self, a: u32, b: u32) -> u32 {
        (self.network).hops(self.node_of(a) as usize, self.node_of(b) as usize)
    }

    /// Directed links of the network ([`Network::links`]).
    pub fn links(&self) -> usize {
        self.network.links()
    }

    /// Calls `visit` with each directed link the route from rank `from`
    /// to rank `to` crosses, in order; ranks on one switch cross none.
    pub fn route(&self, from: u32, to: u32, mut visit: impl FnMut(usize)) {
        let (a, b) = (self.node_of(from), self.node_of(to));
        self.network.route(a as usize, b as usize, &mut visit);
    }

    /// [`Protocol::of`] with this machine's thresholds.
    #[inline]
    pub fn protocol(&self, bytes: u64) -> Protocol {
        Protocol::by_thresholds(bytes, self.thresholds)
    }

    /// The class of a message of `bytes` from `from` to `to`.
    #[inline]
    pub fn class(&self, from: u32, to: u32, bytes: u64) -> Class {
        Class {
            locality: self.locality(from, to),
            protocol: self.protocol(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::test_machine as machine;
    use crate::machine::Placement;

    #[test]
    fn placement_and_locality() {
        let m = machine(4, 16);
        let p = m.places();
        assert_eq!((m.node_of(17), m.socket_of(17)), (1, 0));
        assert_eq!(m.socket_of(24), 1);
        assert_eq!(p.locality(16, 23), Locality::Socket);
        assert_eq!(p.locality(16, 24), Locality::Node);
        assert_eq!(p.locality(15, 16), Locality::Network);
        let rr = Machine {
            placement: Placement::RoundRobin,
            ..m
        };
        let p = rr.places();
        assert_eq!((rr.node_of(17), rr.socket_of(17)), (1, 0)); // local index 4
        assert_eq!(rr.socket_of(37), 1); // local index 9
        assert_eq!(p.locality(1, 5), Locality::Socket);
    }

    /// The tables against the placement's own arithmetic, rank pair by
    /// rank pair.
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
            let (p, net) = (m.places(), m.network());
            assert_eq!((p.ranks(), p.nodes()), (48, 12));
            for a in 0..m.ranks() {
                assert_eq!(p.node_of(a as u32) as usize, m.node_of(a));
                for c in 0..m.ranks() {
                    let (x, y) = (a as u32, c as u32);
                    let want = if m.node_of(a) != m.node_of(c) {
                        Locality::Network
                    } else if m.socket_of(a) != m.socket_of(c) {
                        Locality::Node
                    } else {
                        Locality::Socket
                    };
                    assert_eq!(p.locality(x, y), want, "{placement:?} {a} {c}");
                    assert_eq!(p.hops(x, y), net.hops(m.node_of(a), m.node_of(c)));
                }
            }
            for bytes in [0, 499, 500, 7999, 8000, 1 << 20] {
                assert_eq!(p.protocol(bytes), Protocol::of(bytes, &m.params));
            }
        }
    }
}
