//! The solve beside the setup ([`crate::analysis::cycle`]): the terminal
//! table and `cycle.png|svg`.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::charts::{key, log_panel, notes, shares_panel, title, Key, MEASURED, TALL};
use super::json::Report;
use super::{seconds, Drawn, ReportError};
use crate::analysis::cycle::{CycleAnalysis, Phase, Seconds};

/// The cycle's solve as charted and tabled: `iterations` cycles, or one.
fn cycles(c: &CycleAnalysis) -> u64 {
    c.cycle.iterations.unwrap_or(1)
}

fn smoother(c: &CycleAnalysis) -> String {
    crate::value_name(&c.cycle.smoother)
}

/// The terminal section: per level the cycle's parts, the cycle, the
/// solve (`--iterations`), the setup and the break-even iterations; a
/// total row; then which phase dominates.
pub fn table(c: &CycleAnalysis) -> String {
    let measured = c.levels.iter().any(|l| l.measured_cycle.is_some());
    let solve_header = match c.cycle.iterations {
        Some(n) => format!("solve x{n}"),
        None => "solve".into(),
    };
    let mut s = format!(
        "cycle {} ({} smoother): communication per cycle, of the solve and of the setup\n{:>5} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}{}\n",
        c.name,
        smoother(c),
        "level",
        "visits",
        "smoothing",
        "residual",
        "restrict",
        "interp",
        "cycle",
        solve_header,
        "setup",
        "break-even",
        if measured { format!(" {:>10}", "meas cycle") } else { String::new() }
    );
    let row = |label: String, visits: String, x: &Seconds, even: Option<u64>, meas: Option<f64>| {
        let mut line = format!(
            "{label:>5} {visits:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            seconds(x.smoothing),
            seconds(x.residual),
            seconds(x.restrict),
            seconds(x.interp),
            seconds(x.cycle),
            x.solve.map_or("-".into(), seconds),
            seconds(x.setup),
            even.map_or("-".into(), |n| n.to_string()),
        );
        if measured {
            line += &format!(" {:>10}", meas.map_or("-".into(), seconds));
        }
        line + "\n"
    };
    for l in &c.levels {
        s += &row(
            l.level.to_string(),
            format!("{}", l.visits),
            &l.modeled,
            l.break_even,
            l.measured_cycle,
        );
    }
    s += &row(
        "total".into(),
        String::new(),
        &c.total,
        c.break_even,
        c.measured_cycle,
    );
    s += &verdict(c);
    s
}

/// One line: after how many cycles the solve's communication reaches the
/// setup's, and which dominates at `--iterations`.
pub fn verdict(c: &CycleAnalysis) -> String {
    let t = &c.total;
    let mut s = match c.break_even {
        Some(n) => format!(
            "the solve's communication reaches the setup's ({}) after {n} cycle{} of {}",
            seconds(t.setup),
            if n == 1 { "" } else { "s" },
            seconds(t.cycle)
        ),
        None => "a cycle exchanges nothing: the setup is all the communication".into(),
    };
    if let (Some(n), Some(p), Some(solve)) = (c.cycle.iterations, c.dominates, t.solve) {
        s += &format!(
            "; at {n} iterations the {} dominates ({} solve, {} setup)",
            match p {
                Phase::Setup => "setup",
                Phase::Solve => "solve",
            },
            seconds(solve),
            seconds(t.setup)
        );
    }
    s + "\n"
}

/// The parts of a level's setup and solve, in the lower panel's order.
const PARTS: [&str; 5] = ["setup", "smoothing", "residual", "restrict", "interp"];

fn parts(x: &Seconds, n: f64) -> [f64; 5] {
    [
        x.setup,
        n * x.smoothing,
        n * x.residual,
        n * x.restrict,
        n * x.interp,
    ]
}

const SETUP: RGBColor = RGBColor(31, 119, 180);
const SOLVE: RGBColor = RGBColor(255, 127, 14);

/// `cycle.png|svg`: per level, above, the setup and the solve
/// (`--iterations` cycles, else one) as labelled dots on a log axis, with
/// measured times as diamonds where every part was measured; below, the
/// parts' shares of the level's setup plus solve, stacked to 100% on a
/// linear axis.
pub fn chart(path: &Path, r: &Report, c: &CycleAnalysis) -> Result<(), ReportError> {
    super::save_chart(
        path,
        |tmp| draw(BitMapBackend::new(tmp, TALL).into_drawing_area(), r, c),
        |tmp| draw(SVGBackend::new(tmp, TALL).into_drawing_area(), r, c),
    )
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, r: &Report, c: &CycleAnalysis) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let n = cycles(c);
    let root = root.titled(
        &title(r, &format!("setup and {n} x {} per level", c.name)),
        ("sans-serif", 17),
    )?;
    let (_, h) = root.dim_in_pixel();
    let (top, bottom) = root.split_vertically(h * 55 / 100);
    let levels = c.levels.len().max(1);
    let nf = n as f64;
    // (x offset, colour, value, measured) per level and phase.
    let dots: Vec<(f64, RGBColor, f64, Option<f64>)> = (c.levels.iter().enumerate())
        .flat_map(|(k, l)| {
            let k = k as f64;
            [
                (k - 0.15, SETUP, l.modeled.setup, l.measured_setup),
                (
                    k + 0.15,
                    SOLVE,
                    nf * l.modeled.cycle,
                    l.measured_cycle.map(|m| nf * m),
                ),
            ]
        })
        .filter(|d| d.2 > 0.0)
        .collect();
    let (lo, hi) = super::charts::decades(
        (dots.iter())
            .flat_map(|d| [Some(d.2 / 2.0), Some(d.2 * 1.8), d.3])
            .flatten(),
    );
    let mut chart = log_panel(&top, levels, (lo, hi), "communication (log scale)")?;
    for &(x, color, y, _) in &dots {
        chart.draw_series(std::iter::once(Circle::new((x, y), 5, color.filled())))?;
        chart.draw_series(std::iter::once(Text::new(
            seconds(y),
            (x + 0.09, y),
            ("sans-serif", 11).into_font().color(&color),
        )))?;
    }
    let measured: Vec<(f64, f64)> = (dots.iter())
        .filter_map(|d| d.3.filter(|&m| m > 0.0).map(|m| (d.0, m)))
        .collect();
    chart.draw_series(measured.iter().map(|&p| {
        EmptyElement::at(p)
            + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], MEASURED.filled())
    }))?;
    let solve_key = format!("solve ({n} cycle{})", if n == 1 { "" } else { "s" });
    let mut keys = vec![
        ("setup (spgemm+ptap)", SETUP, Key::Dot),
        (solve_key.as_str(), SOLVE, Key::Dot),
    ];
    if !measured.is_empty() {
        keys.push(("measured", MEASURED, Key::Diamond));
    }
    key(&top, &keys)?;
    let t = &c.total;
    let mut sums = vec![
        format!("setup: {}", seconds(t.setup)),
        format!("solve: {}", seconds(nf * t.cycle)),
    ];
    if let Some(b) = c.break_even {
        sums.push(format!(
            "even after {b} cycle{}",
            if b == 1 { "" } else { "s" }
        ));
    }
    notes(&top, keys.len(), &sums)?;
    // Lower panel: each part's share of the level's setup plus solve.
    let shares: Vec<Option<Vec<f64>>> = (c.levels.iter())
        .map(|l| {
            let p = parts(&l.modeled, nf);
            let sum: f64 = p.iter().sum();
            (sum > 0.0).then(|| p.iter().map(|v| 100.0 * v / sum).collect())
        })
        .collect();
    shares_panel(&bottom, &shares, "share of setup + solve", &PARTS)?;
    root.present()?;
    Ok(())
}
