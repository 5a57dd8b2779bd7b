//! `maxrate`: EuroMPI'18 eq. 2 with the network's parameters for every
//! message: `alpha + a s / min(R_N, a R_b)`, `a` the ranks of the
//! sender's node that send; the slowest sending rank's sum.

use super::{Charge, Slot, Term};
use crate::model::senders::{injected, slowest_by_class, Active};
use crate::model::Exchange;

/// The max-rate term.
pub static TERM: Term = Term {
    name: "maxrate",
    aliases: &[],
    about: "alpha + a s / min(R_N, a R_b), network parameters for all (eq. 2)",
    slot: Slot::Rate,
    column: "max_rate",
    header: "max-rate",
    legend: "max-rate",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    Charge::seconds(slowest_by_class(x, Active::AnySender, injected))
}
