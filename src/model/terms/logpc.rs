//! `logpc`: LoGPC's network contention (Moritz and Frank 2001, from
//! Agarwal's model of wormhole-routed k-ary n-cubes) on the router torus,
//! the alternative to `delta h^3 B / routers`. Time runs in units of one
//! byte on a network link (`tau = 1 / R_b`, network rendezvous) and a flit
//! is a byte; `n = 3`; `k_d` is the pattern's byte-weighted mean hops per
//! dimension; `B` the mean network message; `T` the mean LogGP time of a
//! network message ([`super::loggp_params`]). The closed loop
//! `m_c = 1 / (T + C_n(m_c))` gives the delay `C_n` of each message, and a
//! rank's messages wait one after another: the most network messages one
//! rank sends, times `C_n`. No contention below one hop per dimension,
//! where Agarwal's `(k_d - 1)` factor vanishes.

use super::{loggp_params, Charge, Slot, Term};
use crate::machine::Class;
use crate::model::{classic, Exchange};

/// LoGPC's contention term.
pub static TERM: Term = Term {
    name: "logpc",
    aliases: &[],
    about: "LoGPC's network contention on the router torus (Moritz and Frank 2001)",
    slot: Slot::Extra,
    column: "logpc",
    header: "logpc",
    legend: "LoGPC contention",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let (summary, m, places) = (x.summary, x.machine, x.places);
    let k_d = summary.avg_hops / 3.0;
    let count = summary.messages.inter_node;
    if count == 0 || k_d <= 1.0 {
        return Charge::seconds(0.0);
    }
    let tau = 1.0 / m.params.network().rend.rate;
    let b = summary.bytes.inter_node as f64 / count as f64;
    let t: f64 = x
        .pattern
        .messages
        .iter()
        .filter(|msg| places.node_of(msg.from) != places.node_of(msg.to))
        .map(|msg| {
            let class = Class {
                locality: places.network_locality(),
                protocol: places.protocol(msg.bytes),
            };
            loggp_params(m, class).message(msg.bytes as f64)
        })
        .sum::<f64>()
        / count as f64
        / tau;
    let (_, c_n) = classic::contended_rate(3.0, k_d, b, t);
    Charge::seconds(summary.messages.max_inter_node_sent as f64 * c_n * tau)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{Message, Op, Pattern};
    use crate::machine::Machine;

    #[test]
    fn logpc_by_hand() {
        // Rank 0 (router (0,0,0) of the 8x8x4 box) sends two 1000 B eager
        // messages to node 292, on router 146 = (2,2,2): 6 hops, k_d = 2.
        let m = Machine::bluewaters();
        let places = m.places();
        let messages = [4672, 4673]
            .map(|to| Message {
                from: 0,
                to,
                bytes: 1000,
                runs: 1,
            })
            .to_vec();
        let pat = Pattern {
            op: Op::Spmv,
            messages,
        };
        let summary = crate::comm::summarize(&pat, &m);
        assert_eq!(summary.avg_hops, 6.0);
        // In link-byte units (tau = 1 / 2.9e9): B = 1000, T the LogGP time
        // of one message, 7.0e-6 + 999 / 7.5e8 s. m (T + C(m)) = 1 with
        // C(m) = c m / (1 - a m), c = (n+1)(k_d-1) B^2 / 2, a = B k_d / 2,
        // is (c - a T) m^2 + (T + a) m - 1 = 0: its smaller positive root.
        let tau = 1.0 / 2.9e9;
        let t = (7.0e-6 + 999.0 / 7.5e8) / tau;
        let (c, a): (f64, f64) = (4.0 * 1.0 * 1.0e6 / 2.0, 1000.0 * 2.0 / 2.0);
        let (qa, qb) = (c - a * t, t + a);
        let rate = (-qb + (qb * qb + 4.0 * qa).sqrt()) / (2.0 * qa);
        let c_n = c * rate / (1.0 - a * rate);
        let want = 2.0 * c_n * tau;
        let x = Exchange {
            pattern: &pat,
            summary: &summary,
            machine: &m,
            places: &places,
            copies: None,
            local_nonzeros: None,
            device: false,
        };
        let got = charge(&x).seconds;
        assert!((got - want).abs() <= 1e-9 * want, "{got} {want}");
        // Neighbours (k_d <= 1) see no contention in Agarwal's model:
        // node 2 is one router away.
        let near = Pattern {
            op: Op::Spmv,
            messages: vec![Message {
                from: 0,
                to: 32,
                bytes: 1000,
                runs: 1,
            }],
        };
        let s = crate::comm::summarize(&near, &m);
        assert_eq!(s.avg_hops, 1.0);
        let x = Exchange {
            pattern: &near,
            summary: &s,
            ..x
        };
        assert_eq!(charge(&x).seconds, 0.0);
    }
}
