//! Queue search at the receiver, EuroMPI'18 eq. 3: the rank that receives
//! the most messages, `n` of them, searches its queue
//! - `queue`: `gamma n^2`, the upper bound (every message at the end);
//! - `queue-measured`: `gamma n^2 / 3`, as the paper measured it (a
//!   message found on average a third of the way down);
//! - `queue-lower`: `gamma n`, the lower bound (each found at once).

use super::{Charge, Slot, Term};
use crate::model::Exchange;

/// The upper bound.
pub static UPPER: Term = queue_term(
    "queue",
    &["queue-upper"],
    "gamma n^2, n the most messages a rank receives (eq. 3)",
    |x| {
        let (gamma, n) = gamma_n(x);
        Charge::seconds(gamma * n * n)
    },
);

/// As measured.
pub static MEASURED: Term = queue_term(
    "queue-measured",
    &[],
    "gamma n^2 / 3 (eq. 3 as measured)",
    |x| {
        let (gamma, n) = gamma_n(x);
        Charge::seconds(gamma * n * n / 3.0)
    },
);

/// The lower bound.
pub static LOWER: Term = queue_term("queue-lower", &[], "gamma n (eq. 3's lower bound)", |x| {
    let (gamma, n) = gamma_n(x);
    Charge::seconds(gamma * n)
});

/// The machine's `gamma` and the most messages a rank receives.
fn gamma_n(x: &Exchange) -> (f64, f64) {
    (x.machine.params.gamma, x.summary.messages.max_recv as f64)
}

/// A queue term: its own name and charge, the queue slot and column.
const fn queue_term(
    name: &'static str,
    aliases: &'static [&'static str],
    about: &'static str,
    charge: fn(&Exchange) -> Charge,
) -> Term {
    Term {
        name,
        aliases,
        about,
        slot: Slot::Queue,
        column: "queue_search",
        header: "queue",
        legend: "queue search",
        details: &[],
        charge,
    }
}
