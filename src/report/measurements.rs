//! Plain-text reports of `amgcomm calibrate` (the fitted parameters
//! beside Blue Waters') and `amgcomm replay` (what was measured).

use std::fmt::Write as _;

use crate::machine::{Machine, Params, PROTOCOLS};
use crate::measured::MeasuredFile;

/// `x` seconds with three significant digits: "0.441 us", "8.40 ns".
pub fn time3(x: f64) -> String {
    let (v, unit) = if x.abs() < 1e-6 {
        (x * 1e9, "ns")
    } else if x.abs() < 1e-3 {
        (x * 1e6, "us")
    } else if x.abs() < 1.0 {
        (x * 1e3, "ms")
    } else {
        (x, "s")
    };
    format!("{} {unit}", sig3(v))
}

/// `x` bytes/s with three significant digits: "2.20 GB/s".
pub fn rate3(x: f64) -> String {
    let (v, unit) = if x >= 1e9 {
        (x / 1e9, "GB/s")
    } else if x >= 1e6 {
        (x / 1e6, "MB/s")
    } else {
        (x / 1e3, "KB/s")
    };
    format!("{} {unit}", sig3(v))
}

fn sig3(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (2 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

/// The fitted parameters beside Blue Waters' (Table 1), each with how it
/// was fitted; then what was not measured and the notes.
pub fn calibration(m: &Machine) -> String {
    let bw = Params::bluewaters();
    let p = &m.params;
    let mut s = String::new();
    if let Some(c) = &m.calibration {
        let _ = writeln!(
            s,
            "{}: {} node{} x {} ranks ({} real node{}), {} socket{} per node; {}; {}{}",
            m.name,
            m.nodes,
            if m.nodes == 1 { "" } else { "s" },
            m.ppn,
            c.real_nodes,
            if c.real_nodes == 1 { "" } else { "s" },
            m.sockets_per_node,
            if m.sockets_per_node == 1 { "" } else { "s" },
            c.mpi_library,
            c.date,
            if c.quick { " (--quick)" } else { "" }
        );
    }
    let _ = writeln!(
        s,
        "{:<22} {:>14} {:>14}  fit",
        "parameter", "fitted", "bluewaters"
    );
    let fit_of = |name: &str| {
        m.calibration
            .as_ref()
            .and_then(|c| c.fits.iter().find(|f| f.parameter == name))
    };
    let quality = |name: &str| -> String {
        match fit_of(name) {
            None => "not measured".into(),
            Some(f) if f.r2.is_none() && f.points == 0 => f.method.clone(),
            Some(f) => {
                let mut q = Vec::new();
                if let Some(r2) = f.r2 {
                    q.push(format!("R^2 {r2:.3}"));
                }
                if let Some(e) = f.rel_err {
                    q.push(format!("rel. error {:.1}%", 100.0 * e));
                }
                match f.bytes {
                    Some([lo, hi]) if f.alpha.is_some() => q.push(format!(
                        "{} sizes {}-{}",
                        f.points,
                        crate::report::bytes(lo),
                        crate::report::bytes(hi)
                    )),
                    _ if f.points > 0 => q.push(format!("{} points", f.points)),
                    _ => {}
                }
                q.join(", ")
            }
        }
    };
    let thresholds = |q: &Params| format!("{}, {} B", q.eager_threshold, q.rendezvous_threshold);
    let how = fit_of("thresholds").map_or("not measured".into(), |f| f.method.clone());
    let _ = writeln!(
        s,
        "{:<22} {:>14} {:>14}  {how}",
        "eager, rend thresholds",
        thresholds(p),
        thresholds(&bw)
    );
    for (class, rates) in &p.rates.0 {
        // Blue Waters has no value for a class of the file's own.
        let theirs = bw.rates.named(class).unwrap_or(rates);
        for (k, proto) in PROTOCOLS.iter().enumerate() {
            let name = format!("{class}.{}", proto.name());
            let (got, want) = (rates.of(k), theirs.of(k));
            let q = quality(&name);
            let _ = writeln!(
                s,
                "{:<22} {:>14} {:>14}  {q}",
                format!("{name} alpha"),
                time3(got.alpha),
                time3(want.alpha)
            );
            let _ = writeln!(
                s,
                "{:<22} {:>14} {:>14}",
                format!("{name} R_b"),
                rate3(got.rate),
                rate3(want.rate)
            );
        }
    }
    let _ = writeln!(
        s,
        "{:<22} {:>14} {:>14}  {}",
        "R_N",
        rate3(p.r_n),
        rate3(bw.r_n),
        quality("r_n")
    );
    let _ = writeln!(
        s,
        "{:<22} {:>14} {:>14}  {}",
        "gamma",
        time3(p.gamma),
        time3(bw.gamma),
        quality("gamma")
    );
    let _ = writeln!(
        s,
        "{:<22} {:>14} {:>14}  {}",
        "delta",
        format!("{:.3e} s", p.delta),
        format!("{:.3e} s", bw.delta),
        quality("delta")
    );
    if let Some(c) = &m.calibration {
        for n in &c.not_measured {
            let _ = writeln!(s, "not measured: {n}");
        }
        for n in &c.notes {
            let _ = writeln!(s, "note: {n}");
        }
    }
    s
}

/// A replay's measured times per level and operation.
pub fn replayed(f: &MeasuredFile) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ranks: {} nodes x {} of {} saved, {} real node(s); {} exchanges; {}; {} iterations after {} warm-up",
        f.ranks,
        f.nodes.unwrap_or(0),
        f.ppn.unwrap_or(0),
        f.machine.as_deref().unwrap_or("?"),
        f.real_nodes.unwrap_or(0),
        f.strategy.as_deref().unwrap_or("?"),
        f.mpi_library.as_deref().unwrap_or("?"),
        f.iterations.unwrap_or(0),
        f.warmup.unwrap_or(0),
    );
    let _ = writeln!(
        s,
        "{:>5} {:<7} {:>9} {:>8} {:>10} {:>12} {:>12}",
        "level", "op", "messages", "max sent", "bytes", "median", "min"
    );
    for l in &f.levels {
        for (name, op) in [("spmv", &l.spmv), ("spgemm", &l.spgemm), ("ptap", &l.ptap)] {
            let Some(o) = op else { continue };
            let _ = writeln!(
                s,
                "{:>5} {:<7} {:>9} {:>8} {:>10} {:>12} {:>12}",
                l.level,
                name,
                crate::report::group(o.messages.unwrap_or(0) as usize),
                o.max_msgs.unwrap_or(0),
                crate::report::bytes(o.bytes.unwrap_or(0)),
                time3(o.seconds),
                o.min_seconds.map_or("".into(), time3)
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_digits() {
        assert_eq!(time3(4.4e-7), "440 ns");
        assert_eq!(time3(1.7e-6), "1.70 us");
        assert_eq!(time3(8.4e-9), "8.40 ns");
        assert_eq!(time3(0.0123), "12.3 ms");
        assert_eq!(rate3(2.2e9), "2.20 GB/s");
        assert_eq!(rate3(4.8e8), "480 MB/s");
        // Blue Waters: every row, the fitted and Table 1 columns equal.
        let t = calibration(&Machine::bluewaters());
        let row = |words: &str| t.lines().any(|l| l.split_whitespace().eq(words.split(' ')));
        assert!(row("socket.short alpha 440 ns 440 ns not measured"), "{t}");
        assert!(row("network.eager R_b 750 MB/s 750 MB/s"), "{t}");
        assert!(row("gamma 8.40 ns 8.40 ns not measured"), "{t}");
    }
}
