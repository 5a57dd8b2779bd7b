//! `queue-measured`: eq. 3 as the paper measured it, a third of the upper
//! bound: `gamma n^2 / 3` (messages found on average a third of the way
//! down the queue).

use super::{Charge, Slot, Term};
use crate::model::Exchange;

/// The queue-search term, measured variant.
pub static TERM: Term = Term {
    name: "queue-measured",
    aliases: &[],
    about: "gamma n^2 / 3 (eq. 3 as measured)",
    slot: Slot::Queue,
    column: "queue_search",
    header: "queue",
    legend: "queue search",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let n = x.summary.messages.max_recv as f64;
    Charge::seconds(x.machine.params.gamma * n * n / 3.0)
}
