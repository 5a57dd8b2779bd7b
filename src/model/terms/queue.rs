//! `queue`: EuroMPI'18 eq. 3, the upper bound of the time spent searching
//! the receive queue: `gamma n^2` for the rank that receives the most
//! messages, `n` of them.

use super::{Charge, Slot, Term};
use crate::model::Exchange;

/// The queue-search term (upper bound).
pub static TERM: Term = Term {
    name: "queue",
    aliases: &["queue-upper"],
    about: "gamma n^2, n the most messages a rank receives (eq. 3)",
    slot: Slot::Queue,
    column: "queue_search",
    header: "queue",
    legend: "queue search",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let n = x.summary.messages.max_recv as f64;
    Charge::seconds(x.machine.params.gamma * n * n)
}
