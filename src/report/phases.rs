//! A profile's phases of each level beside the model
//! ([`crate::analysis::overlay_phases`]: Caliper's time per `MG level`,
//! PETSc's `MGSmooth`, `MGResid` and `MGInterp` events): the terminal
//! table and `measured_levels.png|svg`.

use std::fmt::Write as _;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::charts::COLORS;
use super::charts::{key, log_panel, log_panel_of, notes, title, Key, TALL};
use super::json::Report;
use super::{seconds, Drawn, ReportError};
use crate::analysis::PhaseOverlay;
use crate::measured::Phase;

/// The measured phases of the report, if its measured file had any.
pub fn of<'a>(r: &'a Report) -> &'a [PhaseOverlay] {
    r.measured.as_ref().map_or(&[], |m| m.levels.as_slice())
}

fn opt(x: Option<f64>, f: impl Fn(f64) -> String) -> String {
    x.map(f).unwrap_or_else(|| "-".into())
}

/// The terminal section: per level and phase, the measured and modeled
/// seconds and their ratio, and the messages per call counted beside the
/// model's; then the reader's notes.
pub fn table(r: &Report) -> String {
    let rows = of(r);
    let Some(m) = r.measured.as_ref().filter(|_| !rows.is_empty()) else {
        return String::new();
    };
    let mut s = format!(
        "measured ({}) beside the model, per level\n{:>5} {:<9} {:>6} {:>11} {:>11} {:>10} {:>12} {:>12} {:>10}\n",
        m.format,
        "level",
        "phase",
        "calls",
        "measured",
        "modeled",
        "model/meas",
        "msgs/call",
        "model msgs",
        "exch/call"
    );
    for p in rows {
        let _ = writeln!(
            s,
            "{:>5} {:<9} {:>6} {:>11} {:>11} {:>10} {:>12} {:>12} {:>10}",
            p.level,
            p.phase.name(),
            p.calls.map_or("-".into(), |c| c.to_string()),
            seconds(p.measured_seconds),
            opt(p.modeled_seconds, seconds),
            opt(p.modeled_over_measured, |x| format!("{x:.2}")),
            opt(p.measured_messages_per_call, |x| format!("{x:.1}")),
            opt(p.modeled_messages_per_call, |x| format!("{x:.1}")),
            opt(p.exchanges_per_call, |x| format!("{x:.2}")),
        );
    }
    for n in &m.notes {
        let _ = writeln!(s, "  {n}");
    }
    s
}

const PHASES: [Phase; 4] = [
    Phase::Solve,
    Phase::Smooth,
    Phase::Residual,
    Phase::Transfer,
];

/// `measured_levels.png|svg`: per level, each phase's measured seconds
/// (filled dots) beside its modeled seconds (open rings, joined by a
/// line), log axis, a colour per phase; below, when the profile counts
/// messages, the messages per call counted beside modeled.
pub fn chart(path: &Path, r: &Report) -> Result<(), ReportError> {
    super::save_chart(
        path,
        |tmp| draw(BitMapBackend::new(tmp, TALL).into_drawing_area(), r),
        |tmp| draw(SVGBackend::new(tmp, TALL).into_drawing_area(), r),
    )
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, r: &Report) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let rows = of(r);
    let format = r.measured.as_ref().map_or("", |m| m.format);
    let root = root.titled(
        &title(r, &format!("measured ({format}) beside modeled, per level")),
        ("sans-serif", 17),
    )?;
    let levels = r.levels.len().max(1);
    // Counted messages, when the profile counts them, in a panel below.
    let counted = rows
        .iter()
        .any(|p| p.measured_messages_per_call.is_some_and(|m| m > 0.0));
    let (_, h) = root.dim_in_pixel();
    let (root, below) = if counted {
        let (a, b) = root.split_vertically(h * 58 / 100);
        (a, Some(b))
    } else {
        (root.clone(), None)
    };
    let values = (rows.iter())
        .flat_map(|p| [Some(p.measured_seconds), p.modeled_seconds])
        .flatten()
        .filter(|&v| v > 0.0);
    let (lo, hi) = super::charts::decades(values.flat_map(|v| [v / 2.0, v * 1.8]));
    let mut chart = log_panel(&root, levels, (lo, hi), "seconds over the run (log scale)")?;
    let mut keys: Vec<(String, RGBColor, Key)> = Vec::new();
    for (k, phase) in PHASES.into_iter().enumerate() {
        let of_phase: Vec<&PhaseOverlay> = rows.iter().filter(|p| p.phase == phase).collect();
        if of_phase.is_empty() {
            continue;
        }
        let color = COLORS[k];
        // Offsets keep a level's phases apart.
        let x = |p: &PhaseOverlay| p.level as f64 - 0.27 + 0.18 * k as f64;
        let measured: Vec<(f64, f64)> = (of_phase.iter())
            .filter(|p| p.measured_seconds > 0.0)
            .map(|p| (x(p), p.measured_seconds))
            .collect();
        let modeled: Vec<(f64, f64)> = (of_phase.iter())
            .filter_map(|p| p.modeled_seconds.filter(|&s| s > 0.0).map(|s| (x(p), s)))
            .collect();
        chart.draw_series(LineSeries::new(
            modeled.iter().copied(),
            color.stroke_width(2),
        ))?;
        chart.draw_series((modeled.iter()).map(|&p| Circle::new(p, 6, color.stroke_width(2))))?;
        chart.draw_series(measured.iter().map(|&p| Circle::new(p, 5, color.filled())))?;
        for &(px, y) in &measured {
            chart.draw_series(std::iter::once(Text::new(
                seconds(y),
                (px + 0.05, y),
                ("sans-serif", 11).into_font().color(&color),
            )))?;
        }
        keys.push((format!("{} measured", phase.name()), color, Key::Dot));
        if !modeled.is_empty() {
            keys.push((format!("{} modeled", phase.name()), color, Key::Ring));
        }
    }
    let refs: Vec<(&str, RGBColor, Key)> =
        keys.iter().map(|(n, c, k)| (n.as_str(), *c, *k)).collect();
    key(&root, &refs)?;
    let sum = |f: &dyn Fn(&PhaseOverlay) -> Option<f64>| -> Option<f64> {
        rows.iter().map(f).sum::<Option<f64>>()
    };
    let mut lines = vec![format!(
        "measured: {}",
        seconds(rows.iter().map(|p| p.measured_seconds).sum())
    )];
    if let Some(m) = sum(&|p| p.modeled_seconds) {
        lines.push(format!("modeled: {}", seconds(m)));
    }
    notes(&root, refs.len(), &lines)?;
    if let Some(below) = below {
        messages_panel(&below, rows, levels)?;
    }
    root.present()?;
    Ok(())
}

/// Per level and phase, the messages a call sent over all ranks: counted
/// (dots) beside modeled (rings), log axis.
fn messages_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[PhaseOverlay],
    levels: usize,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let values = (rows.iter())
        .flat_map(|p| [p.measured_messages_per_call, p.modeled_messages_per_call])
        .flatten()
        .filter(|&v| v > 0.0);
    let (lo, hi) = super::charts::decades(values.flat_map(|v| [v / 2.0, v * 1.8]));
    let mut chart = log_panel_of(
        area,
        levels,
        (lo, hi),
        "messages per call (log scale)",
        &|y| format!("{y}"),
    )?;
    for (k, phase) in PHASES.into_iter().enumerate() {
        let color = COLORS[k];
        let x = |p: &PhaseOverlay| p.level as f64 - 0.27 + 0.18 * k as f64;
        for p in rows.iter().filter(|p| p.phase == phase) {
            if let Some(m) = p.modeled_messages_per_call.filter(|&m| m > 0.0) {
                chart.draw_series(std::iter::once(Circle::new(
                    (x(p), m),
                    6,
                    color.stroke_width(2),
                )))?;
            }
            if let Some(m) = p.measured_messages_per_call.filter(|&m| m > 0.0) {
                chart.draw_series(std::iter::once(Circle::new((x(p), m), 4, color.filled())))?;
                chart.draw_series(std::iter::once(Text::new(
                    format!("{m:.1}"),
                    (x(p) + 0.05, m),
                    ("sans-serif", 11).into_font().color(&color),
                )))?;
            }
        }
    }
    Ok(())
}
