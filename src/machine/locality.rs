//! Where two ranks are relative to each other (MODEL.md: `socket`, `node`,
//! `network`), and [`Places`], the placement as lookup tables.

use serde::{Deserialize, Serialize};

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
