//! `amgcomm scale`'s report: each node count's report folder (one per
//! strategy), `scale.json`, `extrap.jsonl` (Extra-P's input,
//! [`super::extrap`]) and `scale.csv` (per node count, level,
//! operation and strategy: modeled and measured seconds), the charts
//! `time_<op>` (seconds against nodes per level, log-log, one panel per
//! strategy, measured as circles beside the modeled lines) and
//! `crossover` (the crossover level against nodes), and the terminal
//! table that sets the strategies' winners, modeled and measured, side
//! by side per level.

use std::fmt::Write as _;
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::charts::{decades, COLORS};
use super::{seconds, Drawn, ReportError};
use crate::analysis::request::{Request, RequestError, Run};
use crate::analysis::Scaling;
use crate::comm::Op;

/// Writes the scaling folder `dir` whole: `study(each)` runs the study,
/// `each` writing every run's report into the folder being built; then
/// the scaling files. Returns the study.
pub fn write_folder(
    dir: &Path,
    study: impl FnOnce(
        &mut dyn FnMut(&Request, &Run) -> Result<(), RequestError>,
    ) -> Result<Scaling, RequestError>,
) -> Result<Scaling, RequestError> {
    let io = |e: std::io::Error| RequestError::Field(format!("{}: {e}", dir.display()));
    let mut out = None;
    crate::output::write_folder(
        dir,
        |tmp: &Path| -> Result<(), RequestError> {
            let mut each = |r: &Request, run: &Run| -> Result<(), RequestError> {
                let name = r
                    .folder()
                    .file_name()
                    .map(|n| n.to_owned())
                    .unwrap_or_default();
                let mut r = r.clone();
                r.outputs.folder = Some(tmp.join(name));
                super::run::write_run(run, &r, false, &|_| {}).map_err(report_error)?;
                Ok(())
            };
            let s = study(&mut each)?;
            let text = |name: &str, body: String| std::fs::write(tmp.join(name), body).map_err(io);
            text("scale.json", super::pretty_json(&s))?;
            text("scale.csv", csv(&s))?;
            text("extrap.jsonl", super::extrap::jsonl(&s))?;
            for ext in ["png", "svg"] {
                for &op in &s.ops {
                    chart(&tmp.join(format!("time_{}.{ext}", op.name())), &s, op)
                        .map_err(report_error)?;
                }
                crossover_chart(&tmp.join(format!("crossover.{ext}")), &s).map_err(report_error)?;
            }
            let names: Vec<(String, String)> = (s.ops.iter())
                .map(|op| (format!("time_{}", op.name()), format!("{}: seconds per level against nodes, one panel per strategy (measured as circles)", op.name())))
                .chain(std::iter::once(("crossover".to_string(), "the level from which the second strategy wins, against nodes".to_string())))
                .collect();
            let charts = (super::Folder { tmp, dir })
                .svgs(&names)
                .map_err(report_error)?;
            text("report.html", super::html::scale(&s, &charts))?;
            out = Some(s);
            Ok(())
        },
        io,
    )?;
    Ok(out.expect("the study ran"))
}

fn report_error(e: ReportError) -> RequestError {
    RequestError::Field(e.to_string())
}

/// `nodes,ranks,level,op,strategy,rows,active_processes,max_recv,modeled_s,measured_s`.
pub fn csv(s: &Scaling) -> String {
    let mut out = String::from(
        "nodes,ranks,level,op,strategy,rows,active_processes,max_recv,modeled_s,measured_s\n",
    );
    for p in &s.points {
        for (strategy, levels) in &p.strategies {
            for l in levels {
                for o in &l.ops {
                    let measured = o.measured.map(|m| format!("{m:e}")).unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "{},{},{},{},{},{},{},{},{:e},{measured}",
                        p.nodes,
                        p.ranks,
                        l.level,
                        o.op.name(),
                        strategy.name(),
                        l.rows,
                        l.active_processes,
                        o.max_recv,
                        o.modeled
                    );
                }
            }
        }
    }
    out
}

/// Per node count and operation: each level's time under the first two
/// strategies, modeled and measured, and whether the modeled winner is
/// the measured one; then the crossover levels.
pub fn table(s: &Scaling) -> String {
    let mut out = String::new();
    let names: Vec<String> = s.strategies.iter().map(|x| x.name()).collect();
    let short = |k: usize| if k == 0 { "std" } else { "alt" };
    for p in &s.points {
        let _ = writeln!(out, "{} nodes, {} ranks ({})", p.nodes, p.ranks, p.input);
        for &op in &s.ops {
            let _ = write!(out, "  {:<6} level    rows active", op.name());
            for k in 0..names.len().min(2) {
                let _ = write!(
                    out,
                    " {:>11} {:>11}",
                    format!("model {}", short(k)),
                    format!("meas {}", short(k))
                );
            }
            if names.len() >= 2 {
                out += "  winner model/meas";
            }
            out += "\n";
            for l in 0..p.levels() {
                let Some(lp) = p.strategies[0].1.get(l) else {
                    continue;
                };
                if !lp.ops.iter().any(|o| o.op == op) {
                    continue;
                }
                let _ = write!(
                    out,
                    "  {:<6} {:>5} {:>7} {:>6}",
                    "", l, lp.rows, lp.active_processes
                );
                for k in 0..names.len().min(2) {
                    let cell = |m| p.seconds(k, l, op, m).map_or("-".into(), seconds);
                    let _ = write!(out, " {:>11} {:>11}", cell(false), cell(true));
                }
                if names.len() >= 2 {
                    let winner = |m| {
                        let (a, b) = (p.seconds(0, l, op, m)?, p.seconds(1, l, op, m)?);
                        Some(if b < a { 1 } else { 0 })
                    };
                    let (wm, wx) = (winner(false), winner(true));
                    let say = |w: Option<usize>| w.map_or("-", short);
                    let agree = match (wm, wx) {
                        (Some(a), Some(b)) if a == b => "  yes",
                        (Some(_), Some(_)) => "  NO",
                        _ => "",
                    };
                    let _ = write!(out, "  {}/{}{agree}", say(wm), say(wx));
                }
                out += "\n";
            }
        }
    }
    if s.strategies.len() >= 2 {
        let _ = writeln!(
            out,
            "\nstd = {}, alt = {}; crossover = first level from which alt wins on every deeper level",
            names[0], names[1]
        );
        for &op in &s.ops {
            let cross = |m| {
                (s.points.iter())
                    .map(|p| {
                        let c = match p.crossover(op, m) {
                            _ if m && p.measured.is_none() => "-".into(),
                            Some(l) => format!("L{l}"),
                            None => "none".into(),
                        };
                        format!("{}: {c}", p.ranks)
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let _ = writeln!(out, "crossover {} modeled  {}", op.name(), cross(false));
            if s.points
                .iter()
                .any(|p| p.crossover(op, true).is_some() || p.measured.is_some())
            {
                let _ = writeln!(out, "crossover {} measured {}", op.name(), cross(true));
            }
        }
    }
    for w in &s.warnings {
        let _ = writeln!(out, "note: {w}");
    }
    out
}

/// `time_<op>`: seconds against nodes per level, one panel per strategy.
pub fn chart(path: &Path, s: &Scaling, op: Op) -> Result<(), ReportError> {
    const SIZE: (u32, u32) = (1200, 560);
    super::save_chart(
        path,
        |tmp| draw_time(BitMapBackend::new(tmp, SIZE).into_drawing_area(), s, op),
        |tmp| draw_time(SVGBackend::new(tmp, SIZE).into_drawing_area(), s, op),
    )
}

fn draw_time<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, s: &Scaling, op: Op) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let kind = if s.weak { "weak" } else { "strong" };
    let input = s.points.first().map_or("", |p| p.input.as_str());
    let root = root.titled(
        &format!("{} time per level against nodes ({kind} scaling, {input}): dots and lines modeled, circles measured", op.name()),
        ("sans-serif", 16),
    )?;
    let panels = root.split_evenly((1, s.strategies.len().max(1)));
    let nodes: Vec<f64> = s.points.iter().map(|p| p.nodes as f64).collect();
    let (x0, x1) = (
        nodes.first().copied().unwrap_or(1.0),
        nodes.last().copied().unwrap_or(1.0),
    );
    // Room on the right for the legend, clear of the last points.
    let (x0, x1) = (x0 / 1.5, (x1 * 5.0).max(x0 * 10.0));
    let all = (s.points.iter()).flat_map(|p| {
        (0..s.strategies.len()).flat_map(move |k| {
            (0..p.levels())
                .flat_map(move |l| [p.seconds(k, l, op, false), p.seconds(k, l, op, true)])
        })
    });
    let (lo, hi) = decades(all.flatten());
    let depth = s.points.iter().map(|p| p.levels()).max().unwrap_or(0);
    for (k, area) in panels.iter().enumerate() {
        let mut chart = ChartBuilder::on(area)
            .caption(s.strategies[k].name(), ("sans-serif", 15))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(
                (x0..x1).log_scale().with_key_points(nodes.clone()),
                (lo..hi).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("nodes (those of the sweep)")
            .y_desc("seconds")
            .y_label_formatter(&|v| seconds(*v))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .draw()?;
        for l in 0..depth {
            let color = level_color(l, depth);
            let line: Vec<(f64, f64)> = (s.points.iter())
                .filter_map(|p| Some((p.nodes as f64, p.seconds(k, l, op, false)?)))
                .collect();
            if line.is_empty() {
                continue;
            }
            // A dot at every modeled point: a sweep of one point has no line.
            let modeled = line
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 3, color.filled()));
            chart.draw_series(modeled)?;
            chart
                .draw_series(LineSeries::new(line, color.stroke_width(2)))?
                .label(format!("L{l}"))
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2))
                });
            let dots = (s.points.iter())
                .filter_map(|p| Some((p.nodes as f64, p.seconds(k, l, op, true)?)))
                .map(|(x, y)| Circle::new((x, y), 4, color.stroke_width(2)));
            chart.draw_series(dots)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .label_font(("sans-serif", 11))
            .draw()?;
    }
    Ok(())
}

/// Level `l` of `depth`: viridis, finest dark to coarsest light (its last
/// tenth, too pale on white, left out), a colour of its own per level.
pub(crate) fn level_color(l: usize, depth: usize) -> RGBColor {
    use plotters::style::colors::colormaps::{ColorMap, ViridisRGB};
    let h = l as f64 / depth.saturating_sub(1).max(1) as f64;
    ViridisRGB.get_color(0.9 * h)
}

/// `crossover`: per operation, the crossover level against nodes,
/// modeled (solid) and measured (dashed with circles).
pub fn crossover_chart(path: &Path, s: &Scaling) -> Result<(), ReportError> {
    const SIZE: (u32, u32) = (900, 520);
    super::save_chart(
        path,
        |tmp| draw_crossover(BitMapBackend::new(tmp, SIZE).into_drawing_area(), s),
        |tmp| draw_crossover(SVGBackend::new(tmp, SIZE).into_drawing_area(), s),
    )
}

fn draw_crossover<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, s: &Scaling) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let names: Vec<String> = s.strategies.iter().map(|x| x.name()).collect();
    let title = match names.len() {
        0 | 1 => "crossover: one strategy asked for, nothing to cross".to_string(),
        _ => format!(
            "first level from which {} beats {} (lower: it wins on more levels)",
            names[1], names[0]
        ),
    };
    let root = root.titled(&title, ("sans-serif", 16))?;
    let nodes: Vec<f64> = s.points.iter().map(|p| p.nodes as f64).collect();
    let (x0, x1) = (
        nodes.first().copied().unwrap_or(1.0),
        nodes.last().copied().unwrap_or(1.0),
    );
    let depth = s.points.iter().map(|p| p.levels()).max().unwrap_or(1) as i32;
    // A row of its own above the levels for "no crossover".
    let none = depth;
    let mut chart = ChartBuilder::on(&root)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (x0 / 1.5..(x1 * 1.5).max(x0 * 3.0))
                .log_scale()
                .with_key_points(nodes.clone()),
            -1i32..depth + 1,
        )?;
    chart
        .configure_mesh()
        .x_desc("nodes (those of the sweep)")
        .y_desc("crossover level")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_labels(depth as usize + 3)
        .y_label_formatter(&|v| match *v {
            v if v == none => "none".into(),
            v if v < 0 || v > none => String::new(),
            v => format!("L{v}"),
        })
        .draw()?;
    for (k, &op) in s.ops.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        for measured in [false, true] {
            let points: Vec<(f64, Option<i32>)> = (s.points.iter())
                .filter(|p| !measured || p.measured.is_some())
                .map(|p| (p.nodes as f64, p.crossover(op, measured).map(|l| l as i32)))
                .collect();
            if points.is_empty() {
                continue;
            }
            // No crossover (the second strategy wins on no level) is a
            // cross in the "none" row, and breaks the line.
            chart.draw_series(
                (points.iter())
                    .filter(|p| p.1.is_none())
                    .map(|p| Cross::new((p.0, none), 6, color.stroke_width(2))),
            )?;
            let segments: Vec<Vec<(f64, i32)>> = points
                .split(|p| p.1.is_none())
                .filter(|run| !run.is_empty())
                .map(|run| run.iter().map(|&(x, l)| (x, l.unwrap_or(none))).collect())
                .collect();
            let label = format!(
                "{} {}",
                op.name(),
                if measured { "measured" } else { "modeled" }
            );
            let width = if measured { 1 } else { 3 };
            // An operation with no crossover anywhere keeps its legend.
            let runs: Vec<Vec<(f64, i32)>> = if segments.is_empty() {
                vec![Vec::new()]
            } else {
                segments.clone()
            };
            for (n, run) in runs.iter().enumerate() {
                let series = chart.draw_series(LineSeries::new(
                    run.iter().copied(),
                    color.stroke_width(width),
                ))?;
                if n == 0 {
                    series.label(label.clone()).legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 16, y)], color.stroke_width(width))
                    });
                }
            }
            // Each point marked, so that a run of one still shows.
            let pts = segments.iter().flatten().copied();
            if measured {
                chart.draw_series(pts.map(|p| Circle::new(p, 5, color.stroke_width(2))))?;
            } else {
                chart.draw_series(pts.map(|p| Circle::new(p, 3, color.filled())))?;
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerLeft)
        .draw()?;
    Ok(())
}
