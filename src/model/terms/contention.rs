//! `contention`: the network's own measure. On `box3d`, EuroMPI'18 eqs.
//! 5 and 7, `delta h^3 B / routers`, `B` the bytes of all network
//! messages and `h` their byte-weighted mean hops (the paper's
//! `2 h^3 b ppn` with `b = B / P`). On `torus3d`, `dragonfly` and
//! `fattree`, `delta l` with `l` the bytes on the busiest directed link
//! under the network's routes (docs/machines.md, "Networks").

use super::{Charge, Slot, Term};
use crate::machine::network::Traffic;
use crate::model::Exchange;

/// The network contention term.
pub static TERM: Term = Term {
    name: "contention",
    aliases: &[],
    about: "box3d: delta h^3 B / routers, B the network bytes, h their mean hops (eqs. 5, 7); other networks: delta x bytes on the busiest link",
    slot: Slot::Extra,
    column: "contention",
    header: "contention",
    legend: "contention",
    details: &[],
    charge,
};

/// The network's own measure ([`crate::machine::Network::contention`]):
/// on Blue Waters' box, eqs. 5 and 7; elsewhere the busiest link.
fn charge(x: &Exchange) -> Charge {
    let s = x.summary;
    let max_link = || super::routed::link_loads(x.pattern, x.places).peak;
    let t = Traffic {
        bytes: s.bytes.inter_node,
        avg_hops: s.avg_hops,
        max_link_bytes: &max_link,
    };
    Charge::seconds(x.places.network().contention(x.machine.params.delta, &t))
}
