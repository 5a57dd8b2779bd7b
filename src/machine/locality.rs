//! Where two ranks are relative to each other (MODEL.md: `socket`, `node`,
//! `network`), and [`Places`], the placement as lookup tables.

use serde::{Deserialize, Serialize};

use super::{Class, Machine, Protocol};

/// Where a message goes: within a socket, across the sockets of a node, or
/// over the network.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Locality {
    /// Same node and socket.
    #[default]
    Socket,
    /// Same node, other socket.
    Node,
    /// Different nodes.
    Network,
}

/// The localities, in order.
pub const LOCALITIES: [Locality; 3] = [Locality::Socket, Locality::Node, Locality::Network];

impl Locality {
    /// `socket`, `node` or `network`.
    pub fn name(self) -> &'static str {
        match self {
            Locality::Socket => "socket",
            Locality::Node => "node",
            Locality::Network => "network",
        }
    }
}

impl Machine {
    /// Where rank `b` is seen from rank `a`.
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

    /// Node, socket and router coordinates tabulated for every rank and
    /// node, with the protocol thresholds.
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
            router_box: b,
            thresholds: [
                self.params.eager_threshold,
                self.params.rendezvous_threshold,
            ],
        }
    }
}

/// [`Machine::places`]: the placement as lookup tables. Extraction and the
/// models ask for the locality, protocol and hops of millions of messages,
/// and the placement's integer divisions (and the random placement's
/// shuffle) were most of that cost.
#[derive(Clone, Debug)]
pub struct Places {
    /// Node of each rank.
    pub(crate) node: Vec<u32>,
    /// Global socket (`node * sockets_per_node + socket`) of each rank.
    pub(crate) socket: Vec<u32>,
    /// Router coordinates of each node.
    pub(crate) coords: Vec<[u32; 3]>,
    /// [`Machine::router_box`].
    pub(crate) router_box: [usize; 3],
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
        self.coords.len()
    }

    /// The node of `rank`.
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
            assert_eq!((p.ranks(), p.nodes()), (48, 12));
            for a in 0..m.ranks() {
                assert_eq!(p.node_of(a as u32) as usize, m.node_of(a));
                for c in 0..m.ranks() {
                    let (x, y) = (a as u32, c as u32);
                    assert_eq!(p.locality(x, y), m.locality(a, c), "{placement:?} {a} {c}");
                    assert_eq!(p.hops(x, y) as usize, m.hops(m.node_of(a), m.node_of(c), b));
                }
            }
            for bytes in [0, 499, 500, 7999, 8000, 1 << 20] {
                assert_eq!(p.protocol(bytes), Protocol::of(bytes, &m.params));
            }
        }
    }
}
