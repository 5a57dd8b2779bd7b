//! `contention`: EuroMPI'18 eqs. 5 and 7, `delta h^3 B / routers`, `B`
//! the bytes of all network messages and `h` their byte-weighted mean
//! hops. Equal to the paper's `2 h^3 b ppn` with `b = B / P`.

use super::{Charge, Slot, Term};
use crate::model::Exchange;

/// The network contention term.
pub static TERM: Term = Term {
    name: "contention",
    aliases: &[],
    about: "delta h^3 B / routers, B the network bytes, h their mean hops (eqs. 5, 7)",
    slot: Slot::Extra,
    column: "contention",
    header: "contention",
    legend: "contention",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let (s, m) = (x.summary, x.machine);
    let h = s.avg_hops;
    Charge::seconds(m.params.delta * h * h * h * s.bytes.inter_node as f64 / m.routers() as f64)
}
