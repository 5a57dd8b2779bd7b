//! `nodeaware` (the default rate term, docs/model.md): EuroMPI'18 eq. 2 by
//! locality. On the node `alpha + s / R_b` with the socket's or node's
//! parameters; on the network `alpha + a s / min(R_N, a R_b)`, `a` the
//! ranks of the sender's node that send network messages (`R_N` caps
//! rendezvous only). The slowest sending rank's sum.

use super::{Charge, Slot, Term};
use crate::machine::{Class, Locality, Machine, Params, Protocol};
use crate::model::senders::{injected, slowest_by_class, Active};
use crate::model::Exchange;

/// The node-aware max-rate term.
pub static TERM: Term = Term {
    name: "nodeaware",
    aliases: &[],
    about: "eq. 2 by locality: alpha + s / R_b on the node, alpha + a s / min(R_N, a R_b) \
            on the network",
    slot: Slot::Rate,
    column: "max_rate",
    header: "max-rate",
    legend: "max-rate",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    Charge::seconds(slowest_by_class(x, Active::NetworkSenders, class_time))
}

/// Seconds of `n` messages of `bytes` in all of one class, `a` active
/// senders on the sender's node: each is linear in the size, so the class
/// costs `n alpha + bytes / rate`.
fn class_time(p: &Params, class: Class, (n, bytes): (u64, u64), a: usize) -> f64 {
    if p.is_network(class.locality) {
        return injected(p, class, (n, bytes), a);
    }
    let r = p.rates(class.locality).of(class.protocol as usize);
    let (n, s) = (n as f64, bytes as f64);
    n * r.alpha + s / r.rate
}

/// Seconds of one message of `bytes` with `locality` from a node with `a`
/// active senders (the worked examples of `models reproduce`).
pub fn message_time(m: &Machine, locality: Locality, bytes: u64, a: usize) -> f64 {
    let class = Class {
        locality,
        protocol: Protocol::of(bytes, &m.params),
    };
    class_time(&m.params, class, (1, bytes), a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_util::close;

    #[test]
    fn single_messages_by_hand() {
        let m = Machine::bluewaters();
        // 16 KiB network rendezvous, 16 active ranks: 16 * 2.9e9 > R_N, so
        // 3.0e-6 + 16 * 16384 / 6.6e9.
        let t = message_time(&m, Locality::NETWORK, 16384, 16);
        assert!(close(t, 3.0e-6 + 16.0 * 16384.0 / 6.6e9), "{t}");
        // One active rank: 3.0e-6 + 16384 / 2.9e9 (R_N does not bind).
        let t = message_time(&m, Locality::NETWORK, 16384, 1);
        assert!(close(t, 3.0e-6 + 16384.0 / 2.9e9));
        // Two NICs: each injects R_N / 2 for the senders sharing it, so 2
        // of them already bind: 3.0e-6 + 2 * 16384 / 3.3e9.
        let mut two = Machine::bluewaters();
        two.params.nics = 2;
        let t = message_time(&two, Locality::NETWORK, 16384, 2);
        assert!(close(t, 3.0e-6 + 2.0 * 16384.0 / 3.3e9), "{t}");
        // 100-byte intra-socket short message: 4.4e-7 + 100 / 2.2e9.
        let t = message_time(&m, Locality::SOCKET, 100, 16);
        assert!(close(t, 4.4e-7 + 100.0 / 2.2e9), "{t}");
        // Eager on the node, other socket: 1.2e-6 + 4000 / 9.6e8.
        let t = message_time(&m, Locality::NODE, 4000, 4);
        assert!(close(t, 1.2e-6 + 4000.0 / 9.6e8), "{t}");
        // A fourth, innermost class declared in the parameters: the
        // network is now class 3 and keeps its eq. 2 treatment.
        let mut m = Machine::bluewaters();
        let numa = crate::machine::ProtocolRates {
            short: crate::machine::Rate {
                alpha: 1e-7,
                rate: 1e10,
            },
            ..*m.params.rates(Locality::SOCKET)
        };
        m.params.rates.0.insert(0, ("numa".into(), numa));
        let t = message_time(&m, Locality(0), 100, 16);
        assert!(close(t, 1e-7 + 100.0 / 1e10), "{t}");
        let t = message_time(&m, Locality(3), 16384, 16);
        assert!(close(t, 3.0e-6 + 16.0 * 16384.0 / 6.6e9), "{t}");
    }
}
