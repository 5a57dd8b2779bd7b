//! Plain-text reports of `amgcomm machine show` and `amgcomm models
//! reproduce`.

use crate::machine::Machine;
use crate::measure::reproduce::Case;

/// A machine with every parameter the models charge with.
pub fn machine(m: &Machine) -> String {
    let p = &m.params;
    let mut s = format!(
        "{}: {} nodes x {} ppn ({} ranks), {} sockets per node, {} placement, {} allocation\nnetwork: {}\n",
        m.name,
        m.nodes,
        m.ppn,
        m.ranks(),
        m.sockets_per_node,
        m.placement,
        m.allocation,
        m.network().describe()
    );
    s += &format!(
        "protocols: short < {} B <= eager < {} B <= rend\n{:<8} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n",
        p.eager_threshold, p.rendezvous_threshold, "", "short alpha", "short R_b", "eager alpha", "eager R_b", "rend alpha", "rend R_b"
    );
    s += &rate_rows(&p.rates);
    s += &format!(
        "R_N = {:.1e} B/s (network rendezvous), gamma = {:.1e} s, delta = {:.1e} s\n",
        p.r_n, p.gamma, p.delta
    );
    s += &match &p.pack_table {
        Some(t) => format!(
            "pack: log3P table, {} sizes x {} runs ({})\n",
            t.bytes.len(),
            t.runs.len(),
            t.source
        ),
        None => format!(
            "pack: {:.1e} s per run, {:.1e} B/s\n",
            p.pack_per_run, p.pack_rate
        ),
    };
    s += &match &p.loggp {
        Some(g) => format!(
            "loggp: L = {:.1e} s, o_s = {:.1e} s, o_r = {:.1e} s, g = {:.1e} s, G = {:.1e} s/B\n",
            g.l, g.o_s, g.o_r, g.g, g.big_g
        ),
        None => {
            "loggp: per class from alpha and R_b (G = 1/R_b, o_s = L = o_r = g = alpha/3)\n".into()
        }
    };
    let c = p.copy_rates();
    s += &format!(
        "copy-transfer{} (B/s): 1C1 {:.2e}, wC1 {:.2e}, 1S0 {:.2e}, wS0 {:.2e}, 0D1 {:.2e}, Nd {}\n",
        if p.copy_transfer.is_some() { "" } else { " (derived)" },
        c.copy,
        c.copy_indexed,
        c.send,
        c.send_indexed,
        c.deposit,
        c.congestion
            .iter()
            .zip(&c.network_data)
            .map(|(k, r)| format!("{r:.2e} at congestion {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let w = &p.row_work;
    s += &format!(
        "row work: {:.1e} s a nonzero copied, {:.1e} s an element packed or unpacked, {:.1e} s a serial receive (error factor {:.2}); {}\n",
        w.copy_per_nonzero,
        w.per_element,
        w.per_received,
        w.error,
        m.row_work_source()
    );
    if let Some(g) = &m.gpus {
        s += &format!(
            "\ngpus: {} per node, {} memory; copies h2d {:.1e} s + s / {:.1e} B/s, d2h {:.1e} s + s / {:.1e} B/s\n",
            g.per_node,
            match g.memory {
                crate::machine::Memory::Discrete => "own",
                crate::machine::Memory::Shared => "the CPUs' (shared)",
            },
            g.h2d.alpha,
            g.h2d.rate,
            g.d2h.alpha,
            g.d2h.rate
        );
        let d = &g.params;
        s += &format!(
            "device messages: short < {} B <= eager < {} B <= rend, R_N = {:.1e} B/s; kernel {:.1e} s, GPU-aware call {:.1e} s, host round {:.1e} s\n",
            d.eager_threshold, d.rendezvous_threshold, d.r_n, g.work.kernel, g.work.aware_call, g.work.round
        );
        s += &rate_rows(&d.rates);
    }
    let prov = m.provenance_or_default();
    if !prov.is_empty() {
        s += "\nprovenance:\n";
        for p in prov {
            s += &format!("  {}: {}\n", p.parameter, p.source);
        }
    }
    s
}

/// Table 1's rows: `alpha` and `R_b` per protocol, a line per class.
fn rate_rows(rates: &crate::machine::Rates) -> String {
    (rates.0.iter())
        .map(|(name, r)| {
            format!(
                "{name:<8} {:>12.1e} {:>12.1e} {:>12.1e} {:>12.1e} {:>12.1e} {:>12.1e}\n",
                r.short.alpha, r.short.rate, r.eager.alpha, r.eager.rate, r.rend.alpha, r.rend.rate
            )
        })
        .collect()
}

/// `amgcomm machine list`: one line per preset.
pub fn listing(list: &[crate::machine::presets::Listing]) -> String {
    let mut s = String::from(
        "preset      node                                     network (nodes it holds)                                       sources: fitted/published/derived/assumed lines; dates\n",
    );
    for l in list {
        let net = match l.slots {
            Some(n) => format!("{} ({n})", l.network),
            None => l.network.clone(),
        };
        s += &format!(
            "{:<11} {:<40} {:<62} {}/{}/{}/{}; {}\n",
            l.name, l.node, net, l.kinds[0], l.kinds[1], l.kinds[2], l.kinds[3], l.dates
        );
    }
    s
}

/// Each reproduced case: the paper's value, amgcomm's, their relative
/// difference and a note.
pub fn reproduced(cases: &[Case]) -> String {
    let width = cases.iter().map(|c| c.case.len()).max().unwrap_or(4);
    let mut s = format!(
        "{:<width$} {:>12} {:>12} {:>9}  note\n",
        "case", "paper", "amgcomm", "rel diff"
    );
    let num = |v: f64| {
        if v.abs() < 0.01 {
            format!("{v:.4e}")
        } else {
            format!("{v:.4}")
        }
    };
    for c in cases {
        s += &format!(
            "{:<width$} {:>12} {:>12} {:>8.3}%  {}\n",
            c.case,
            num(c.paper),
            num(c.amgcomm),
            100.0 * c.rel_diff,
            c.note
        );
    }
    s
}
