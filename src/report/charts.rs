//! Per-level charts of `amgcomm analyze`:
//! - `<op>.png|svg`: stacked bars of the model's terms per level on a
//!   logarithmic axis (the look of Figures 10 and 11 of the EuroMPI'18
//!   paper);
//! - `messages.png|svg`: per level, the most and the mean messages a rank
//!   receives, and the active ranks.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::json::Report;
use super::{Drawn, ReportError};
use crate::comm::Op;

const SIZE: (u32, u32) = (900, 560);
const TERM_COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
];

/// "beam_tet_2k: <what>, bluewaters 16 x 16": the matrix's base name keeps
/// the title on one line.
fn title(r: &Report, what: &str) -> String {
    let m = r.machine.machine;
    let name = super::base_name(&r.matrix.name);
    format!("{name}: {what}, {} {} x {}", m.name, m.nodes, m.ppn)
}

/// Axis labels for seconds: 10 ns, 1 us, 100 us, 1 ms.
fn axis_seconds(t: f64) -> String {
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

/// Stacked per-level breakdown of one operation's modeled time, a bar
/// segment per cost column of the model.
pub fn breakdown(path: &Path, r: &Report, op: Op) -> Result<(), ReportError> {
    let columns = r.model.columns();
    let rows: Vec<(usize, Vec<f64>)> = r
        .levels
        .iter()
        .filter_map(|l| {
            l.op(op).map(|o| {
                let terms = columns.iter().map(|t| o.cost.seconds(t.column)).collect();
                (l.level, terms)
            })
        })
        .collect();
    super::save_chart(
        path,
        |tmp| {
            draw_breakdown(
                BitMapBackend::new(tmp, SIZE).into_drawing_area(),
                r,
                op,
                &rows,
            )
        },
        |tmp| draw_breakdown(SVGBackend::new(tmp, SIZE).into_drawing_area(), r, op, &rows),
    )
}

fn draw_breakdown<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    r: &Report,
    op: Op,
    rows: &[(usize, Vec<f64>)],
) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let totals: Vec<f64> = rows.iter().map(|(_, t)| t.iter().sum()).collect();
    let positive = rows
        .iter()
        .flat_map(|(_, t)| t.iter().copied())
        .filter(|&x| x > 0.0);
    let smallest = positive.fold(f64::INFINITY, f64::min);
    let largest = totals.iter().copied().fold(0.0, f64::max);
    // Decades around the data, at most 4 below the largest bar (smaller
    // terms would be invisible anyway); bars start at the floor of the axis.
    let (lo, hi) = if largest > 0.0 {
        let lo = 10f64.powf(smallest.max(largest * 1e-4).log10().floor());
        (lo, 10f64.powf(largest.log10().ceil()).max(lo * 10.0))
    } else {
        (1e-7, 1e-3)
    };
    let levels = rows.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            title(r, &format!("modeled {} time, {}", op.name(), r.model)),
            ("sans-serif", 17),
        )
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(levels)
        .x_label_formatter(&level_label)
        .y_label_formatter(&|y| axis_seconds(*y))
        .x_desc("level")
        .y_desc("modeled time")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    let names: Vec<&str> = r.model.columns().iter().map(|t| t.legend).collect();
    for (term, name) in names.iter().enumerate() {
        let color = TERM_COLORS[term % TERM_COLORS.len()];
        chart
            .draw_series(rows.iter().enumerate().filter_map(|(k, (_, t))| {
                let below: f64 = t[..term].iter().sum();
                let top = below + t[term];
                (t[term] > 0.0).then(|| {
                    let bottom = if below > 0.0 { below } else { lo };
                    Rectangle::new(
                        [(k as f64 - 0.35, bottom), (k as f64 + 0.35, top)],
                        color.filled(),
                    )
                })
            }))?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    legend(&mut chart)?;
    root.present()?;
    Ok(())
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

/// The legend, top right, on a light box.
pub(crate) fn legend<'a, DB, CT>(chart: &mut ChartContext<'a, DB, CT>) -> Drawn
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 14))
        .draw()?;
    Ok(())
}

/// The coordinates of the per-level line charts: level x log scale.
pub(crate) type LevelAxes = Cartesian2d<
    plotters::coord::types::RangedCoordf64,
    plotters::coord::combinators::LogCoord<f64>,
>;

/// A labelled line with round markers.
pub(crate) fn draw_line<'a, DB>(
    chart: &mut ChartContext<'a, DB, LevelAxes>,
    points: Vec<(f64, f64)>,
    color: RGBColor,
    label: &str,
) -> Drawn
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
{
    chart
        .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
    chart.draw_series(
        points
            .into_iter()
            .map(|p| Circle::new(p, 4, color.filled())),
    )?;
    Ok(())
}

/// A line of the messages chart: legend, colour, value of a level.
type Series = (&'static str, RGBColor, fn(&Counts) -> f64);

/// One level of the messages chart.
struct Counts {
    max_recv: f64,
    mean: f64,
    active: f64,
}

/// Most and mean messages a rank receives in spmv, and active ranks.
pub fn messages(path: &Path, r: &Report) -> Result<(), ReportError> {
    let rows: Vec<Counts> = r
        .levels
        .iter()
        .filter_map(|l| {
            let o = l.op(Op::Spmv)?;
            let mean = o.summary.messages.total as f64 / l.active_processes.max(1) as f64;
            Some(Counts {
                max_recv: o.summary.messages.max_recv as f64,
                mean,
                active: l.active_processes as f64,
            })
        })
        .collect();
    super::save_chart(
        path,
        |tmp| draw_messages(BitMapBackend::new(tmp, SIZE).into_drawing_area(), r, &rows),
        |tmp| draw_messages(SVGBackend::new(tmp, SIZE).into_drawing_area(), r, &rows),
    )
}

fn draw_messages<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    r: &Report,
    rows: &[Counts],
) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let hi = rows
        .iter()
        .map(|x| x.max_recv.max(x.active))
        .fold(1.0, f64::max);
    let hi = 10f64.powf(hi.log10().ceil()).max(10.0);
    let levels = rows.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            title(r, "spmv messages per rank, active ranks"),
            ("sans-serif", 17),
        )
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, (1f64..hi).log_scale())?;
    chart
        .configure_mesh()
        .x_labels(levels)
        .x_label_formatter(&level_label)
        .y_label_formatter(&|y| format!("{}", y.round() as u64))
        .x_desc("level")
        .y_desc("count")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()?;
    let series: [Series; 3] = [
        ("max messages received by a rank", TERM_COLORS[0], |x| {
            x.max_recv
        }),
        ("mean messages per active rank", TERM_COLORS[1], |x| x.mean),
        ("active ranks", RGBColor(120, 120, 120), |x| x.active),
    ];
    for (name, color, value) in series {
        let points: Vec<(f64, f64)> = rows
            .iter()
            .enumerate()
            .map(|(k, x)| (k as f64, value(x).max(1.0)))
            .collect();
        draw_line(&mut chart, points, color, name)?;
    }
    legend(&mut chart)?;
    root.present()?;
    Ok(())
}
