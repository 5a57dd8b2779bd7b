//! Where two ranks are relative to each other: the machine's locality
//! classes, as data. A node is cut into nested domains, innermost first
//! (docs/model.md: a `socket`, then the whole `node`); two ranks of one node
//! are of the innermost class whose domain holds both, and ranks of two
//! nodes are of the last class, `network`. A machine file may list its
//! own domains (a NUMA domain inside a socket, a GPU's share of a node):
//! every term, summary, report and chart then carries the classes it
//! names, with the parameters its `params` give them.

use serde::{Deserialize, Serialize};

use super::{Invalid, Machine};

/// A locality class: an index into the machine's classes
/// ([`Machine::localities`]), innermost first; the last is the network.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Locality(pub u8);

impl Locality {
    /// `socket` of a machine with the default classes (no `localities`
    /// in its file): same node and socket.
    pub const SOCKET: Locality = Locality(0);
    /// `node` of the default classes: same node, other socket.
    pub const NODE: Locality = Locality(1);
    /// `network` of the default classes: different nodes.
    pub const NETWORK: Locality = Locality(2);

    /// The default classes (a machine file without `localities`), in
    /// order; `amgcomm calibrate` measures these.
    pub const DEFAULT: [Locality; 3] = [Locality::SOCKET, Locality::NODE, Locality::NETWORK];

    /// Its index in the machine's classes.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Its name among the default classes: `socket`, `node`, `network`
    /// (`class k` beyond them).
    pub fn default_name(self) -> String {
        match ["socket", "node", NETWORK].get(self.index()) {
            Some(n) => n.to_string(),
            None => format!("class {}", self.0),
        }
    }
}

/// The name of the class that crosses nodes, always the last.
pub const NETWORK: &str = "network";

/// One of a node's nested domains: ranks sharing one of the node's
/// `per_node` domains of this kind (and none inside it) are of class
/// `name`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Domain {
    /// The class's name in parameters and reports.
    pub name: String,
    /// Domains of this kind per node; the last domain is the node (1).
    pub per_node: usize,
}

impl Machine {
    /// The node's domains, innermost first: the file's `localities`, or
    /// `socket` (`sockets_per_node` per node) and `node`.
    pub fn domains(&self) -> Vec<Domain> {
        self.localities.clone().unwrap_or_else(|| {
            vec![
                Domain {
                    name: "socket".into(),
                    per_node: self.sockets_per_node,
                },
                Domain {
                    name: "node".into(),
                    per_node: 1,
                },
            ]
        })
    }

    /// Every locality class's name, innermost first, `network` last.
    pub fn localities(&self) -> Vec<String> {
        let mut names: Vec<String> = self.domains().into_iter().map(|d| d.name).collect();
        names.push(NETWORK.into());
        names
    }

    /// The class of messages between nodes.
    pub fn network_locality(&self) -> Locality {
        Locality(self.domains().len() as u8)
    }

    /// The domain of kind `d` that `rank` is in, numbered over the
    /// allocation (`node * per_node + k`).
    pub fn domain_of(&self, rank: usize, d: &Domain) -> usize {
        let per = d.per_node.max(1);
        self.node_of(rank) * per + self.local_of(rank) / (self.ppn / per).max(1)
    }

    /// Checks the domains: nested (each count a multiple of the next),
    /// the last the node itself, each dividing `ppn`, names distinct and
    /// not `network`, a `socket` domain as many as `sockets_per_node`.
    pub(crate) fn check_domains(&self) -> Result<(), Invalid> {
        let d = self.domains();
        let at = |k: usize| format!("localities[{k}] ({})", d[k].name);
        if d.is_empty() || d.len() > 16 {
            return Err("localities must list from 1 to 16 domains, the node last".into());
        }
        for (k, x) in d.iter().enumerate() {
            if x.name.is_empty() || x.name == NETWORK || d[..k].iter().any(|y| y.name == x.name) {
                return Err(Invalid(format!(
                    "{}: a name must be non-empty, distinct, and not \"{NETWORK}\" (the class between nodes)",
                    at(k)
                )));
            }
            if x.per_node == 0 || !self.ppn.is_multiple_of(x.per_node) {
                return Err(Invalid(format!(
                    "{}: ppn {} is not divisible by its {} per node",
                    at(k),
                    self.ppn,
                    x.per_node
                )));
            }
            if let Some(next) = d.get(k + 1) {
                if !x.per_node.is_multiple_of(next.per_node) {
                    return Err(Invalid(format!(
                        "{}: {} per node does not nest in the {} of {}",
                        at(k),
                        x.per_node,
                        next.per_node,
                        next.name
                    )));
                }
            }
            if x.name == "socket" && x.per_node != self.sockets_per_node {
                return Err(Invalid(format!(
                    "{}: {} per node, but sockets_per_node is {}",
                    at(k),
                    x.per_node,
                    self.sockets_per_node
                )));
            }
        }
        if d[d.len() - 1].per_node != 1 {
            return Err(Invalid(format!(
                "{}: the last domain is the node, 1 per node",
                at(d.len() - 1)
            )));
        }
        Ok(())
    }
}
