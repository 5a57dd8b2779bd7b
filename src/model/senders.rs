//! Per-sending-rank sums shared by the terms that charge the slowest
//! sender: the rate terms (EuroMPI'18 eqs. 1-2), LogGP and pack.

use rayon::prelude::*;

use super::Exchange;
use crate::comm::{Message, Pattern};
use crate::machine::{Class, Params};

/// The largest `time(messages of one rank)` over sending ranks.
pub(crate) fn slowest_sender(pat: &Pattern, time: impl Fn(&[Message]) -> f64 + Sync) -> f64 {
    per_sender(pat, time)
        .into_iter()
        .flatten()
        .fold(0.0, f64::max)
}

/// [`Pattern::per_sender`], sorting a copy of the messages first when they
/// do not come by sender.
pub(crate) fn per_sender<T: Send>(
    pat: &Pattern,
    f: impl Fn(&[Message]) -> T + Sync,
) -> Vec<Vec<T>> {
    pat.per_sender(&f).unwrap_or_else(|| {
        let mut sorted = pat.clone();
        sorted.messages.par_sort_by_key(|msg| msg.from);
        sorted.per_sender(&f).expect("sorted by sender")
    })
}

/// Which ranks of a node count as its active senders `a` of eq. 2.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Active {
    /// Ranks that send network messages (node-aware).
    NetworkSenders,
    /// Ranks that send anything (every message charged as a network one).
    AnySender,
}

/// The slowest sender's time when each of its classes costs
/// `class_time(params, class, (messages, bytes), a)`, `a` the active ranks
/// of its node: its messages and bytes are summed by class in one pass,
/// and the classes' times added in class order.
pub(crate) fn slowest_by_class(
    x: &Exchange,
    active: Active,
    class_time: impl Fn(&Params, Class, (u64, u64), usize) -> f64 + Sync,
) -> f64 {
    let places = x.places;
    let senders = per_sender(x.pattern, |run| {
        let mut class = vec![(0u64, 0u64); places.classes()];
        for msg in run {
            let c = &mut class[places.class(msg.from, msg.to, msg.bytes).index()];
            c.0 += 1;
            c.1 += msg.bytes;
        }
        (run[0].from, class)
    });
    // Eq. 2's `a` per NIC: the active senders of the node's block of
    // ranks that shares it (one block, the node, unless params.nics).
    let nics = x.machine.params.nics.max(1);
    let ppn = x.machine.ppn.max(1);
    let nic = |rank: u32| {
        places.node_of(rank) as usize * nics + x.machine.local_of(rank as usize) * nics / ppn
    };
    let mut a = vec![0usize; places.nodes() * nics];
    for (from, class) in senders.iter().flatten() {
        let network = &class[places.network_locality().index() * 3..][..3];
        if active == Active::AnySender || network.iter().any(|c| c.0 > 0) {
            a[nic(*from)] += 1;
        }
    }
    senders
        .par_iter()
        .flat_map_iter(|piece| piece.iter())
        .map(|(from, class)| {
            let a = a[nic(*from)];
            (class.iter().enumerate())
                .filter(|(_, c)| c.0 > 0)
                .map(|(k, &c)| class_time(&x.machine.params, Class::of_index(k), c, a))
                .sum::<f64>()
        })
        .reduce(|| 0.0, f64::max)
}

/// Eq. 2's injection-limited time of `n` messages of `bytes` in all in
/// one network class from a NIC with `a` active senders:
/// `n alpha + a s / min(R_N / nics, a R_b)`, `R_N` binding rendezvous
/// only.
pub(crate) fn injected(p: &Params, class: Class, (n, bytes): (u64, u64), a: usize) -> f64 {
    let r = p.network().of(class.protocol as usize);
    let r_n = if class.protocol as usize == 2 {
        p.r_n / p.nics.max(1) as f64
    } else {
        f64::INFINITY
    };
    let (n, s) = (n as f64, bytes as f64);
    let a = a.max(1) as f64;
    n * r.alpha + a * s / r_n.min(a * r.rate)
}
