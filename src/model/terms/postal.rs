//! `postal`: EuroMPI'18 eq. 1, `alpha + s / R_b` per message with the
//! network's parameters for every message, whatever its locality; the
//! slowest sending rank's sum.

use super::{Charge, Slot, Term};
use crate::model::senders::{slowest_by_class, Active};
use crate::model::Exchange;

/// The postal rate term.
pub static TERM: Term = Term {
    name: "postal",
    aliases: &[],
    about: "alpha + s / R_b per message, network parameters for all (eq. 1)",
    slot: Slot::Rate,
    column: "max_rate",
    header: "postal",
    legend: "postal",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    Charge::seconds(slowest_by_class(
        x,
        Active::AnySender,
        |p, class, (n, bytes), _| {
            let network = p.network().of(class.protocol as usize);
            let (n, s) = (n as f64, bytes as f64);
            n * network.alpha + s / network.rate
        },
    ))
}
