//! Per-level charts of `amgcomm analyze`:
//! - `<op>.png|svg`: per level, the modeled total on a log axis (measured
//!   times beside it), and the terms' shares stacked to 100% on a linear
//!   axis below: the comparison of Figures 10 and 11 of the EuroMPI'18
//!   paper, without stacking segments on a log axis;
//! - `messages.png|svg`: per level, the most spmv messages one rank sends
//!   and receives, per locality, and the active ranks in their own panel.

use std::path::Path;

use plotters::coord::combinators::LogCoord;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::json::Report;
use super::{Drawn, ReportError};
use crate::comm::Op;

/// The cost terms' colours: [`COLORS`] without its red, which is
/// [`MEASURED`]'s.
pub(crate) const TERM_COLORS: [RGBColor; 6] = [
    COLORS[0], COLORS[1], COLORS[2], COLORS[4], COLORS[5], COLORS[6],
];

/// "beam_tet_2k: <what>, bluewaters 16 x 16": the matrix's base name keeps
/// the title on one line.
pub(crate) fn title(r: &Report, what: &str) -> String {
    let m = r.machine.machine;
    let name = super::base_name(&r.matrix.name);
    format!("{name}: {what}, {} {} x {}", m.name, m.nodes, m.ppn)
}

/// Axis labels for seconds: 10 ns, 1 us, 100 us, 1 ms.
pub(crate) fn axis_seconds(t: f64) -> String {
    let (v, unit) = if t < 1e-6 {
        (t * 1e9, "ns")
    } else if t < 1e-3 {
        (t * 1e6, "us")
    } else if t < 1.0 {
        (t * 1e3, "ms")
    } else {
        (t, "s")
    };
    format!("{} {unit}", (v * 1000.0).round() / 1000.0)
}

/// One level of an operation's chart: its terms' seconds (the model's
/// cost columns), their total, and the measured time if one was given.
pub(crate) struct LevelCost {
    /// Seconds per cost column of the model.
    pub terms: Vec<f64>,
    /// Their sum.
    pub total: f64,
    /// Measured seconds (`--measured`).
    pub measured: Option<f64>,
}

/// The rows of `op`'s chart, one per level that has the operation.
pub(crate) fn level_costs(r: &Report, op: Op) -> Vec<LevelCost> {
    let columns = r.model.columns();
    (r.levels.iter())
        .filter_map(|l| {
            l.op(op).map(|o| LevelCost {
                terms: columns.iter().map(|t| o.cost.seconds(t.column)).collect(),
                total: o.cost.total,
                measured: o.measured.map(|m| m.seconds),
            })
        })
        .collect()
}

/// Each term's share of a level's total, in percent (none for a level
/// that costs nothing): what the lower panel stacks to 100%.
pub(crate) fn shares(row: &LevelCost) -> Option<Vec<f64>> {
    (row.total > 0.0).then(|| row.terms.iter().map(|t| 100.0 * t / row.total).collect())
}

/// One operation's modeled time per level, in two panels whose geometry
/// is true: above, the total per level on a log axis (a labelled dot;
/// measured times as red diamonds); below, each term's share of it,
/// stacked to 100% on a linear axis. Segments are never stacked on a log
/// axis, where their heights would not show their shares.
pub fn breakdown(path: &Path, r: &Report, op: Op) -> Result<(), ReportError> {
    let rows = level_costs(r, op);
    super::save_chart(
        path,
        |tmp| {
            draw_breakdown(
                BitMapBackend::new(tmp, TALL).into_drawing_area(),
                r,
                op,
                &rows,
            )
        },
        |tmp| draw_breakdown(SVGBackend::new(tmp, TALL).into_drawing_area(), r, op, &rows),
    )
}

/// The breakdown charts: two panels.
pub(crate) const TALL: (u32, u32) = (900, 720);
pub(crate) const MEASURED: RGBColor = COLORS[3];

fn draw_breakdown<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    r: &Report,
    op: Op,
    rows: &[LevelCost],
) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let root = root.titled(
        &title(r, &format!("{} time per level, {}", op.name(), r.model)),
        ("sans-serif", 17),
    )?;
    let (_, h) = root.dim_in_pixel();
    let (top, bottom) = root.split_vertically(h * 55 / 100);
    let levels = rows.len().max(1);
    // Upper panel: totals (and measured times) on decades around them.
    let values = (rows.iter())
        .flat_map(|x| [Some(x.total), x.measured])
        .flatten()
        .filter(|&v| v > 0.0);
    let (smallest, largest) =
        values.fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    let (lo, hi) = if largest > 0.0 {
        // Room below the smallest dot and above the largest's label.
        let lo = 10f64.powf((smallest / 2.0).log10().floor());
        (
            lo,
            10f64.powf((largest * 1.8).log10().ceil()).max(lo * 10.0),
        )
    } else {
        (1e-7, 1e-3)
    };
    let mut chart = log_panel(&top, levels, (lo, hi), "total time (log scale)")?;
    let dots: Vec<(f64, f64)> = (rows.iter().enumerate())
        .filter(|(_, x)| x.total > 0.0)
        .map(|(k, x)| (k as f64, x.total))
        .collect();
    let ink = RGBColor(40, 40, 40);
    chart.draw_series(dots.iter().map(|&p| Circle::new(p, 5, ink.filled())))?;
    // Each total labelled with its value, beside the dot.
    chart.draw_series(dots.iter().map(|&(x, y)| {
        Text::new(
            super::seconds(y),
            (x + 0.08, y),
            ("sans-serif", 13).into_font().color(&ink),
        )
    }))?;
    let measured: Vec<(f64, f64)> = (rows.iter().enumerate())
        .filter_map(|(k, x)| x.measured.filter(|&m| m > 0.0).map(|m| (k as f64, m)))
        .collect();
    chart.draw_series(measured.iter().map(|&p| {
        EmptyElement::at(p)
            + Polygon::new(vec![(0, -7), (7, 0), (0, 7), (-7, 0)], MEASURED.filled())
    }))?;
    let mut keys = vec![("modeled total", ink, Key::Dot)];
    if !measured.is_empty() {
        keys.push(("measured", MEASURED, Key::Diamond));
    }
    key(&top, &keys)?;
    // The hierarchy's totals under the legend: the modeled sum, and the
    // measured one when every level was measured.
    let mut sums = vec![format!(
        "all levels: {}",
        super::seconds(rows.iter().map(|x| x.total).sum())
    )];
    let all_measured: Option<f64> = rows.iter().map(|x| x.measured).sum();
    if let Some(m) = all_measured.filter(|_| !rows.is_empty()) {
        sums.push(format!("measured: {}", super::seconds(m)));
    }
    notes(&top, keys.len(), &sums)?;
    // Lower panel: shares stacked to 100% on a linear axis.
    let names: Vec<&str> = r.model.columns().iter().map(|t| t.legend).collect();
    let shares: Vec<Option<Vec<f64>>> = rows.iter().map(shares).collect();
    shares_panel(&bottom, &shares, "share of the modeled time", &names)?;
    root.present()?;
    Ok(())
}

/// A legend entry's mark.
#[derive(Clone, Copy)]
pub(crate) enum Key {
    Dot,
    /// An open circle (a modeled value beside measured dots).
    Ring,
    Diamond,
    Box,
}

/// A legend in the right margin of `area`, outside the plot, one entry a
/// line: however many entries, nothing is covered.
pub(crate) fn key<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    keys: &[(&str, RGBColor, Key)],
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let (w, _) = area.dim_in_pixel();
    let x = w as i32 - 185;
    for (k, (name, color, mark)) in keys.iter().enumerate() {
        let y = 24 + 22 * k as i32;
        match mark {
            Key::Dot => area.draw(&Circle::new((x + 7, y), 5, color.filled()))?,
            Key::Ring => area.draw(&Circle::new((x + 7, y), 6, color.stroke_width(2)))?,
            Key::Diamond => area.draw(&Polygon::new(
                vec![(x + 7, y - 7), (x + 14, y), (x + 7, y + 7), (x, y)],
                color.filled(),
            ))?,
            Key::Box => area.draw(&Rectangle::new(
                [(x, y - 6), (x + 14, y + 6)],
                color.filled(),
            ))?,
        }
        area.draw(&Text::new(
            name.to_string(),
            (x + 22, y - 8),
            ("sans-serif", 14).into_font(),
        ))?;
    }
    Ok(())
}

/// The upper panel of a per-level chart: levels on x, seconds from `lo`
/// to `hi` on a log axis described by `y_desc`; the right margin is left
/// for [`key`] and [`notes`].
pub(crate) fn log_panel<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    levels: usize,
    range: (f64, f64),
    y_desc: &str,
) -> Result<LevelChart<'a, DB, LogCoord<f64>>, Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    log_panel_of(area, levels, range, y_desc, &|y| axis_seconds(*y))
}

/// [`log_panel`] with `y_label` for its values (counts, rates, ...).
pub(crate) fn log_panel_of<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    levels: usize,
    (lo, hi): (f64, f64),
    y_desc: &str,
    y_label: &dyn Fn(&f64) -> String,
) -> Result<LevelChart<'a, DB, LogCoord<f64>>, Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let mut chart = ChartBuilder::on(area)
        .margin(14)
        .margin_right(190)
        .x_label_area_size(30)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(levels)
        .x_label_formatter(&level_label)
        .y_label_formatter(y_label)
        .y_desc(y_desc)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    Ok(chart)
}

/// A chart with levels on x and `Y` on y.
pub(crate) type LevelChart<'a, DB, Y> = ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>;

/// Lines of text under a legend of `keys` entries in `area`'s right
/// margin (a chart's sums).
pub(crate) fn notes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    keys: usize,
    lines: &[String],
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let (w, _) = area.dim_in_pixel();
    for (k, text) in lines.iter().enumerate() {
        let y = 24 + 22 * keys as i32 + 8 + 20 * k as i32;
        area.draw(&Text::new(
            text.clone(),
            (w as i32 - 185, y),
            ("sans-serif", 14).into_font(),
        ))?;
    }
    Ok(())
}

/// The lower panel of a per-level chart: per level (one entry of
/// `shares`, none for a level that costs nothing), its parts' shares in
/// percent stacked to 100% on a linear axis, part `i` coloured
/// `TERM_COLORS[i]` and named `names[i]` in the key.
pub(crate) fn shares_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    shares: &[Option<Vec<f64>>],
    y_desc: &str,
    names: &[&str],
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let levels = shares.len().max(1);
    let mut chart = ChartBuilder::on(area)
        .margin(14)
        .margin_right(190)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, 0f64..100f64)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(levels)
        .x_label_formatter(&level_label)
        .y_labels(6)
        .y_label_formatter(&|y| format!("{y:.0}%"))
        .x_desc("level")
        .y_desc(y_desc)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    let color = |i: usize| TERM_COLORS[i % TERM_COLORS.len()];
    for (k, level) in shares.iter().enumerate() {
        let Some(level) = level else { continue };
        let mut below = 0.0;
        for (i, share) in level.iter().enumerate() {
            if *share > 0.0 {
                chart.draw_series(std::iter::once(Rectangle::new(
                    [(k as f64 - 0.35, below), (k as f64 + 0.35, below + share)],
                    color(i).filled(),
                )))?;
            }
            below += share;
        }
    }
    let keys: Vec<(&str, RGBColor, Key)> = (names.iter().enumerate())
        .map(|(i, n)| (*n, color(i), Key::Box))
        .collect();
    key(area, &keys)
}

/// Integer levels on the x axis, nothing between them.
pub(crate) fn level_label(x: &f64) -> String {
    let k = x.round();
    if (x - k).abs() < 1e-6 && k >= 0.0 {
        format!("{}", k as usize)
    } else {
        String::new()
    }
}

/// One level of the messages chart: spmv's most messages a rank sends
/// and receives, per locality, and the ranks taking part.
struct Counts {
    /// Per locality class, in the machine's order.
    sent: Vec<u64>,
    recv: Vec<u64>,
    active: usize,
}

/// spmv's messages per rank per level, split by locality (most sent and
/// most received by one rank, each on its own), and the active ranks in
/// a panel of their own.
pub fn messages(path: &Path, r: &Report) -> Result<(), ReportError> {
    let names = r.machine.machine.localities();
    let rows: Vec<Counts> = (r.levels.iter())
        .filter_map(|l| {
            let m = &l.op(Op::Spmv)?.summary.messages;
            Some(Counts {
                sent: m.max_sent_by_locality.values(),
                recv: m.max_recv_by_locality.values(),
                active: l.active_processes,
            })
        })
        .collect();
    super::save_chart(
        path,
        |tmp| {
            draw_messages(
                BitMapBackend::new(tmp, TALL).into_drawing_area(),
                r,
                &names,
                &rows,
            )
        },
        |tmp| {
            draw_messages(
                SVGBackend::new(tmp, TALL).into_drawing_area(),
                r,
                &names,
                &rows,
            )
        },
    )
}

fn draw_messages<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    r: &Report,
    names: &[String],
    rows: &[Counts],
) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let root = root.titled(&title(r, "spmv messages per rank"), ("sans-serif", 17))?;
    let (_, h) = root.dim_in_pixel();
    let (top, bottom) = root.split_vertically(h * 60 / 100);
    let levels = rows.len().max(1);
    let x_range = -0.5f64..levels as f64 - 0.5;
    let most = (rows.iter())
        .flat_map(|x| x.sent.iter().chain(&x.recv))
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let hi = 10f64.powf((most as f64 * 1.5).log10().ceil()).max(10.0);
    let mut chart = ChartBuilder::on(&top)
        .margin(14)
        .margin_right(190)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range.clone(), (0.8f64..hi).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(levels)
        .x_label_formatter(&level_label)
        .y_label_formatter(&|y| format!("{}", y.round() as u64))
        .y_desc("most messages of one rank (log scale)")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    let mut keys = Vec::new();
    let mut labels = Vec::new();
    for (k, name) in names.iter().enumerate() {
        let color = TERM_COLORS[k % TERM_COLORS.len()];
        // A rank with no such message has no point (log axis); the line
        // joins the levels that have one. Sent and received are dodged
        // apart: symmetric patterns send as many as they receive.
        let recv: Vec<(f64, f64)> = (rows.iter().enumerate())
            .filter(|(_, x)| x.recv[k] > 0)
            .map(|(l, x)| (l as f64 - 0.07, x.recv[k] as f64))
            .collect();
        let sent: Vec<(f64, f64)> = (rows.iter().enumerate())
            .filter(|(_, x)| x.sent[k] > 0)
            .map(|(l, x)| (l as f64 + 0.07, x.sent[k] as f64))
            .collect();
        chart.draw_series(LineSeries::new(recv.clone(), color.stroke_width(2)))?;
        chart.draw_series(recv.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
        chart.draw_series(DashedLineSeries::new(
            sent.clone(),
            6,
            4,
            color.stroke_width(1),
        ))?;
        chart.draw_series(
            sent.iter()
                .map(|&p| Circle::new(p, 4, color.stroke_width(1))),
        )?;
        labels.push(format!("{name}: received"));
        labels.push(format!("{name}: sent"));
        keys.push((k, true));
        keys.push((k, false));
    }
    let (w, _) = top.dim_in_pixel();
    let x = w as i32 - 185;
    for (i, ((k, received), label)) in keys.iter().zip(&labels).enumerate() {
        let y = 24 + 20 * i as i32;
        let color = TERM_COLORS[*k % TERM_COLORS.len()];
        if *received {
            top.draw(&PathElement::new(
                vec![(x, y), (x + 18, y)],
                color.stroke_width(2),
            ))?;
            top.draw(&Circle::new((x + 9, y), 4, color.filled()))?;
        } else {
            top.draw(&PathElement::new(
                vec![(x, y), (x + 5, y)],
                color.stroke_width(1),
            ))?;
            top.draw(&PathElement::new(
                vec![(x + 13, y), (x + 18, y)],
                color.stroke_width(1),
            ))?;
            top.draw(&Circle::new((x + 9, y), 4, color.stroke_width(1)))?;
        }
        top.draw(&Text::new(
            label.clone(),
            (x + 24, y - 8),
            ("sans-serif", 13).into_font(),
        ))?;
    }
    // Active ranks: a panel of their own, linear, up to all ranks.
    let ranks = r.machine.ranks.max(1) as f64;
    let mut chart = ChartBuilder::on(&bottom)
        .margin(14)
        .margin_right(190)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x_range, 0f64..ranks * 1.1)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(levels)
        .x_label_formatter(&level_label)
        .y_labels(5)
        .y_label_formatter(&|y| format!("{}", y.round() as u64))
        .x_desc("level")
        .y_desc("active ranks")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    let grey = RGBColor(150, 150, 150);
    chart.draw_series(rows.iter().enumerate().map(|(l, x)| {
        Rectangle::new(
            [(l as f64 - 0.3, 0.0), (l as f64 + 0.3, x.active as f64)],
            grey.filled(),
        )
    }))?;
    chart.draw_series(rows.iter().enumerate().map(|(l, x)| {
        Text::new(
            x.active.to_string(),
            (l as f64 - 0.1, x.active as f64 + ranks * 0.07),
            ("sans-serif", 13).into_font(),
        )
    }))?;
    let (w, _) = bottom.dim_in_pixel();
    bottom.draw(&Text::new(
        format!("of {} ranks", r.machine.ranks),
        (w as i32 - 185, 24),
        ("sans-serif", 14).into_font(),
    ))?;
    root.present()?;
    Ok(())
}

/// A log axis of whole decades around the positive `values` (at least
/// one decade; 1 us to 1 ms when there is none).
pub(crate) fn decades(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|&x| x > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
    let (lo, hi) = if hi > 0.0 {
        (
            10f64.powf(lo.log10().floor()),
            10f64.powf(hi.log10().ceil()),
        )
    } else {
        (1e-6, 1e-3)
    };
    (lo, hi.max(lo * 10.0))
}

/// Matplotlib's tab10: ten distinguishable colours, one per variant
/// (they repeat only beyond ten).
pub(crate) const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
