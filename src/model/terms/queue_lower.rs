//! `queue-lower`: the lower bound of eq. 3, each message found at once:
//! `gamma n`.

use super::{Charge, Slot, Term};
use crate::model::Exchange;

/// The queue-search term, lower bound.
pub static TERM: Term = Term {
    name: "queue-lower",
    aliases: &[],
    about: "gamma n (eq. 3's lower bound)",
    slot: Slot::Queue,
    column: "queue_search",
    header: "queue",
    legend: "queue search",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let n = x.summary.messages.max_recv as f64;
    Charge::seconds(x.machine.params.gamma * n)
}
