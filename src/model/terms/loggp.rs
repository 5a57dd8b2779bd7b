//! `loggp`: LogGP (Alexandrov, Ionescu, Schauser and Scheiman, SPAA 1995)
//! per sending rank. Its messages leave one after another, each holding
//! the sender `max(g, o_s + (s-1) G)`, and the last arrives `L + o_r`
//! later; the slowest rank's time. Parameters from [`loggp_params`]:
//! derived ones make a lone message cost what the node-aware postal term
//! charges; several messages overlap their `L` and `o_r`.

use super::{Charge, Slot, Term};
use crate::machine::{Class, LogGP, Machine};
use crate::model::senders::slowest_sender;
use crate::model::Exchange;

/// The LogGP rate term.
pub static TERM: Term = Term {
    name: "loggp",
    aliases: &[],
    about: "LogGP per sending rank: max(g, o_s + (s-1) G) per message, then L + o_r \
            (machine file's params.loggp, else from alpha and R_b)",
    slot: Slot::Rate,
    column: "max_rate",
    header: "LogGP",
    legend: "LogGP",
    details: &[],
    charge,
};

/// The machine file's LogGP parameters, or those of the message's class
/// by [`LogGP::from_postal`].
pub fn loggp_params(m: &Machine, class: Class) -> LogGP {
    m.params.loggp.unwrap_or_else(|| {
        let r = m.params.rates(class.locality).of(class.protocol as usize);
        LogGP::from_postal(r.alpha, r.rate)
    })
}

fn charge(x: &Exchange) -> Charge {
    let (m, places) = (x.machine, x.places);
    Charge::seconds(slowest_sender(x.pattern, |run| {
        let (mut busy, mut tail) = (0.0f64, 0.0f64);
        for msg in run {
            let p = loggp_params(m, places.class(msg.from, msg.to, msg.bytes));
            let s = msg.bytes as f64;
            busy += p.g.max(p.o_s + (s - 1.0).max(0.0) * p.big_g);
            // The largest L + o_r of the rank's classes: the last arrival.
            tail = tail.max(p.l + p.o_r);
        }
        busy + tail
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_util::{charge, close, msg};

    #[test]
    fn loggp_from_the_machine_file() {
        let mut m = Machine::bluewaters();
        m.params.loggp = Some(LogGP {
            l: 1e-6,
            o_s: 2e-6,
            o_r: 3e-6,
            g: 5e-6,
            big_g: 1e-9,
        });
        // Two 100 B messages from rank 0, on a socket and on the network
        // alike: busy 2 max(g, o_s + 99 G) = 1e-5, then L + o_r.
        let c = charge("loggp", vec![msg(0, 1, 100), msg(0, 16, 100)], &m);
        assert!(close(c.total, 1e-5 + 4e-6));
        let p = loggp_params(&m, m.places().class(0, 8, 100));
        assert!(close(p.message(100.0), 2e-6 + 1e-6 + 99e-9 + 3e-6));
    }

    #[test]
    fn loggp_by_hand() {
        let m = Machine::bluewaters();
        // Rank 0 sends two 100 B network messages (short: alpha 2.3e-6,
        // R_b 1.3e9, so o_s = L = o_r = g = alpha / 3): busy
        // 2 (alpha/3 + 99 / 1.3e9), then L + o_r = 2 alpha / 3.
        let c = charge("loggp", vec![msg(0, 16, 100), msg(0, 32, 100)], &m);
        let want = 4.0 * 2.3e-6 / 3.0 + 2.0 * 99.0 / 1.3e9;
        assert!(close(c.total, want), "{} {want}", c.total);
        // A lone message costs its postal time less one byte's G.
        let c = charge("loggp", vec![msg(0, 16, 100)], &m);
        assert!(close(c.total, 2.3e-6 + 99.0 / 1.3e9));
    }
}
