//! [`Places`]: the placement of every rank as lookup tables, with the
//! allocation's network. Extraction and the models ask for the locality,
//! protocol and hops of millions of messages, and the placement's integer
//! divisions (and the random placement's shuffle) were most of that cost.

use std::sync::Arc;

use super::{Class, Locality, Machine, Network, Protocol, PROTOCOLS};

impl Machine {
    /// Node and domains of every rank, the locality classes, and the
    /// network of the allocation, with the protocol thresholds.
    pub fn places(&self) -> Places {
        let ranks = self.ranks();
        let node: Vec<u32> = (0..ranks).map(|r| self.node_of(r) as u32).collect();
        let domains = self.domains();
        // The node's own domain is the node: the last domain need not be
        // looked up.
        let inner = &domains[..domains.len().saturating_sub(1)];
        let domain = (0..ranks)
            .flat_map(|r| inner.iter().map(move |d| self.domain_of(r, d) as u32))
            .collect();
        Places {
            node,
            domain,
            inner: inner.len(),
            names: self.localities().into(),
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
    /// Each rank's domains but the node, innermost first, numbered over
    /// the allocation: `inner` per rank.
    domain: Vec<u32>,
    /// Domains per rank in `domain`.
    inner: usize,
    /// The locality classes' names, innermost first, `network` last.
    names: Arc<[String]>,
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

    /// Where rank `b` is seen from rank `a`: the innermost domain that
    /// holds both, or the network.
    #[inline]
    pub fn locality(&self, a: u32, b: u32) -> Locality {
        if self.node[a as usize] != self.node[b as usize] {
            return self.network_locality();
        }
        let k = self.inner;
        let (x, y) = (
            &self.domain[a as usize * k..][..k],
            &self.domain[b as usize * k..][..k],
        );
        Locality(x.iter().zip(y).position(|(p, q)| p == q).unwrap_or(k) as u8)
    }

    /// The class between nodes (the last).
    #[inline]
    pub fn network_locality(&self) -> Locality {
        Locality(self.inner as u8 + 1)
    }

    /// Whether `l` is the class between nodes.
    #[inline]
    pub fn is_network(&self, l: Locality) -> bool {
        l == self.network_locality()
    }

    /// Number of locality classes.
    pub fn localities(&self) -> usize {
        self.names.len()
    }

    /// The name of class `l`.
    pub fn locality_name(&self, l: Locality) -> &str {
        &self.names[l.index()]
    }

    /// The classes' names, innermost first.
    pub fn locality_names(&self) -> &[String] {
        &self.names
    }

    /// Number of locality x protocol classes ([`Class::index`]).
    pub fn classes(&self) -> usize {
        self.names.len() * PROTOCOLS.len()
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
        assert_eq!(p.locality(16, 23), Locality::SOCKET);
        assert_eq!(p.locality(16, 24), Locality::NODE);
        assert_eq!(p.locality(15, 16), Locality::NETWORK);
        let rr = Machine {
            placement: Placement::RoundRobin,
            ..m
        };
        let p = rr.places();
        assert_eq!((rr.node_of(17), rr.socket_of(17)), (1, 0)); // local index 4
        assert_eq!(rr.socket_of(37), 1); // local index 9
        assert_eq!(p.locality(1, 5), Locality::SOCKET);
    }

    /// A fourth class declared as data: NUMA domains of 2 ranks inside
    /// sockets of 4, on 3 nodes of 8 ranks, placed round-robin. Every
    /// rank pair against the definition: the innermost shared domain.
    #[test]
    fn a_declared_numa_class_is_the_innermost_shared_domain() {
        let d = |name: &str, per_node| crate::machine::Domain {
            name: name.into(),
            per_node,
        };
        let mut m = Machine {
            placement: Placement::RoundRobin,
            localities: Some(vec![d("numa", 4), d("socket", 2), d("node", 1)]),
            ..machine(3, 8)
        };
        let numa = *m.params.rates(Locality::SOCKET);
        m.params.rates.0.insert(0, ("numa".into(), numa));
        m.validate().unwrap();
        assert_eq!(m.localities(), ["numa", "socket", "node", "network"]);
        let p = m.places();
        assert_eq!((p.localities(), p.classes()), (4, 12));
        for a in 0..24 {
            for b in 0..24 {
                let (la, lb) = (m.local_of(a), m.local_of(b));
                let want = if m.node_of(a) != m.node_of(b) {
                    3
                } else if la / 2 == lb / 2 {
                    0
                } else if la / 4 == lb / 4 {
                    1
                } else {
                    2
                };
                assert_eq!(p.locality(a as u32, b as u32), Locality(want), "{a} {b}");
            }
        }
        assert!(p.is_network(Locality(3)) && m.params.is_network(Locality(3)));
        assert_eq!(p.locality_name(Locality(0)), "numa");
        // Domains that do not nest, or a socket count unlike the
        // machine's, are refused naming the domain.
        m.localities = Some(vec![d("numa", 3), d("socket", 2), d("node", 1)]);
        let e = m.validate().unwrap_err().0;
        assert!(e.contains("localities[0] (numa)"), "{e}");
        m.localities = Some(vec![d("numa", 4), d("socket", 4), d("node", 1)]);
        assert!(m.validate().is_err());
        // Parameters for other classes than the machine's.
        m.localities = None;
        let e = m.validate().unwrap_err().0;
        assert!(e.contains("rates for numa, socket, node, network"), "{e}");
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
                        Locality::NETWORK
                    } else if m.socket_of(a) != m.socket_of(c) {
                        Locality::NODE
                    } else {
                        Locality::SOCKET
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
