//! `amgcomm compare`: the figures of several variants side by side, as a
//! table, `compare.json` and `compare.png` (per level, the modeled spmv
//! and spgemm time of each variant; each variant's totals over the
//! hierarchy with its reduction factor against the first).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use super::charts::{decades, COLORS};
use super::html::{self, count, esc, figures, header, opt, secs, text, Cell, Chart};
use super::{bytes, group, seconds, Drawn, ReportError};
use crate::analysis::{OpAnalysis, VariantAnalysis};
use crate::comm::Op;
use crate::machine::Machine;
use crate::model::Model;

/// One operation of one level of one variant.
#[derive(Clone, Serialize)]
pub struct OpCompare {
    /// Most messages one rank receives (all steps).
    pub max_recv: u64,
    /// Most network messages one rank sends.
    pub max_network_sent: u64,
    /// Network messages in all.
    pub network_messages: u64,
    /// Bytes crossing the network.
    pub inter_node_bytes: u64,
    /// Modeled seconds, all steps.
    pub total: f64,
}

impl OpCompare {
    fn of(o: &OpAnalysis) -> OpCompare {
        let m = &o.summary.messages;
        OpCompare {
            max_recv: m.max_recv,
            max_network_sent: m.max_inter_node_sent,
            network_messages: m.inter_node,
            inter_node_bytes: o.summary.bytes.inter_node,
            total: o.cost.total,
        }
    }
}

/// One level of one variant.
#[derive(Clone, Serialize)]
pub struct LevelCompare {
    /// Level index.
    pub level: usize,
    /// Rows of `A_l`.
    pub rows: usize,
    /// `A_l x`.
    pub spmv: OpCompare,
    /// `A_l P_l`, on levels with a P.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spgemm: Option<OpCompare>,
}

/// One variant.
#[derive(Clone, Serialize)]
pub struct VariantReport {
    /// `key=value,...` as given.
    pub name: String,
    /// Per level.
    pub levels: Vec<LevelCompare>,
    /// Whole hierarchy: modeled spmv seconds.
    pub spmv_total: f64,
    /// Whole hierarchy: modeled spgemm seconds.
    pub spgemm_total: f64,
    /// Whole hierarchy: network messages of spmv.
    pub network_messages: u64,
}

/// `compare.json`.
#[derive(Serialize)]
pub struct CompareReport {
    /// The input matrix.
    pub matrix: String,
    /// The machine's name.
    pub machine: String,
    /// Its nodes.
    pub nodes: usize,
    /// Its ranks per node.
    pub ppn: usize,
    /// The cost terms.
    pub model: Model,
    /// One entry per variant, in the order given.
    pub variants: Vec<VariantReport>,
    /// Each variant's `profile_<k>.json` ([`super::caliper`]), k from 1.
    #[serde(skip)]
    pub profiles: Vec<String>,
}

impl CompareReport {
    /// The report of `variants` of `matrix` on `base`.
    pub fn new(
        matrix: &str,
        base: &Machine,
        model: &Model,
        variants: &[VariantAnalysis],
    ) -> CompareReport {
        let reports = variants
            .iter()
            .map(|v| {
                let levels: Vec<LevelCompare> = v
                    .analysis
                    .levels
                    .iter()
                    .map(|l| LevelCompare {
                        level: l.level,
                        rows: l.rows,
                        spmv: OpCompare::of(l.op(Op::Spmv).expect("every level has spmv")),
                        spgemm: l.op(Op::Spgemm).map(OpCompare::of),
                    })
                    .collect();
                VariantReport {
                    name: v.variant.name.clone(),
                    spmv_total: levels.iter().map(|l| l.spmv.total).sum(),
                    // From +0.0: a one-level hierarchy has no spgemm.
                    spgemm_total: levels
                        .iter()
                        .filter_map(|l| l.spgemm.as_ref())
                        .fold(0.0, |sum, g| sum + g.total),
                    network_messages: levels.iter().map(|l| l.spmv.network_messages).sum(),
                    levels,
                }
            })
            .collect();
        let profiles = (variants.iter())
            .map(|v| {
                let meta = super::caliper::run_metadata(&[
                    ("machine", base.name.clone().into()),
                    ("node_count", base.nodes.into()),
                    ("ppn", base.ppn.into()),
                    ("mpi.world.size", base.ranks().into()),
                    ("strategy", v.variant.strategy.name().into()),
                    ("variant", v.variant.name.clone().into()),
                    ("model", model.to_string().into()),
                    ("matrix", matrix.into()),
                ]);
                super::caliper::profile(&v.analysis.levels, meta)
            })
            .collect();
        CompareReport {
            profiles,
            matrix: matrix.to_string(),
            machine: base.name.clone(),
            nodes: base.nodes,
            ppn: base.ppn,
            model: model.clone(),
            variants: reports,
        }
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        super::pretty_json(self)
    }
}

/// Per variant: per level, the figures and modeled time of spmv and
/// spgemm, and the whole hierarchy's sums.
pub fn table(r: &CompareReport) -> String {
    let mut s = String::new();
    let op_header = |op: &str| format!("{op:<39}");
    for v in &r.variants {
        s += &format!(
            "{}\n{:>5} {:>10} | {} | {}\n",
            v.name,
            "",
            "",
            op_header("spmv"),
            op_header("spgemm")
        );
        s += &format!(
            "{:>5} {:>10} | {:>8} {:>8} {:>10} {:>10} | {:>8} {:>8} {:>10} {:>10}\n",
            "level",
            "rows",
            "max recv",
            "net sent",
            "net bytes",
            "total",
            "max recv",
            "net sent",
            "net bytes",
            "total"
        );
        let cells = |o: &OpCompare| {
            format!(
                "{:>8} {:>8} {:>10} {:>10}",
                o.max_recv,
                o.max_network_sent,
                bytes(o.inter_node_bytes),
                seconds(o.total)
            )
        };
        for l in &v.levels {
            let g = l.spgemm.as_ref().map(cells).unwrap_or_default();
            s += &format!(
                "{:>5} {:>10} | {} | {g}\n",
                l.level,
                group(l.rows),
                cells(&l.spmv)
            );
        }
        s += &format!(
            "whole hierarchy: spmv {} ({} network messages), spgemm {}\n\n",
            seconds(v.spmv_total),
            group(v.network_messages as usize),
            seconds(v.spgemm_total)
        );
    }
    s
}

/// Writes the folder `dir` whole: `compare.json`, each variant's
/// `profile_<k>.json` (k from 1, in the order given) and the chart as
/// `compare.png` and `compare.svg` ([`crate::output::write_folder`]); a
/// folder holding other than report files is refused.
pub fn write_folder(dir: &Path, r: &CompareReport) -> Result<(), ReportError> {
    super::report_folder(dir, |f| {
        f.text("compare.json", &r.to_json())?;
        for (k, p) in r.profiles.iter().enumerate() {
            f.text(&format!("profile_{}.json", k + 1), p)?;
        }
        for ext in ["png", "svg"] {
            chart(&f.path(&format!("compare.{ext}")), r)?;
        }
        let charts = f.svgs(&[(
            "compare".into(),
            "per level, each variant's modeled spmv and spgemm; below, each variant's total".into(),
        )])?;
        f.text("report.html", &html_page(r, &charts))
    })
}

/// `compare`'s HTML page: per variant its totals, then per level the spmv and
/// spgemm times of every variant, and the chart.
fn html_page(r: &CompareReport, charts: &[Chart]) -> String {
    let mut body = format!("<h1>{}: variants compared</h1>\n", esc(&r.matrix));
    body += &header(&[
        ("input", r.matrix.clone()),
        (
            "machine",
            format!(
                "{}: {} nodes x {} ranks per node",
                r.machine, r.nodes, r.ppn
            ),
        ),
        ("model", r.model.to_string()),
    ]);
    let rows: Vec<Vec<Cell>> = (r.variants.iter())
        .map(|v| {
            vec![
                text(v.name.clone()),
                secs(v.spmv_total),
                secs(v.spgemm_total),
                count(v.network_messages),
            ]
        })
        .collect();
    body += "<h2 id=\"totals\">Totals over the levels</h2>\n";
    body += &html::table(
        "totals",
        &[
            "variant".into(),
            "spmv".into(),
            "spgemm".into(),
            "spmv network messages".into(),
        ],
        &rows,
        None,
    );
    let depth = r.variants.iter().map(|v| v.levels.len()).max().unwrap_or(0);
    let mut headers = vec!["level".to_string()];
    for v in &r.variants {
        headers.push(format!("{} spmv", v.name));
        headers.push(format!("{} spgemm", v.name));
    }
    let rows: Vec<Vec<Cell>> = (0..depth)
        .map(|l| {
            let mut row = vec![count(l as u64)];
            for v in &r.variants {
                let lv = v.levels.get(l);
                row.push(opt(lv.map(|x| secs(x.spmv.total))));
                row.push(opt(lv
                    .and_then(|x| x.spgemm.as_ref())
                    .map(|g| secs(g.total))));
            }
            row
        })
        .collect();
    body += "<h2 id=\"levels\">Per level</h2>\n";
    body += &html::table("levels", &headers, &rows, None);
    body += &figures(charts);
    html::page(&format!("amgcomm compare: {}", r.matrix), &body)
}

/// `compare.png|svg`: above, per level, the modeled spmv and spgemm time
/// of each variant (log axes, a line each); below, each variant's total
/// over the hierarchy as a bar (linear axes), labelled with its value and
/// its reduction factor against the first variant. The legend lists the
/// variants in a strip of its own, so any number of them fits.
pub fn chart(path: &Path, r: &CompareReport) -> Result<(), ReportError> {
    let size = (
        1300,
        560 + 22 * r.variants.len().saturating_sub(8) as u32 + 200,
    );
    super::save_chart(
        path,
        |tmp| draw(BitMapBackend::new(tmp, size).into_drawing_area(), r),
        |tmp| draw(SVGBackend::new(tmp, size).into_drawing_area(), r),
    )
}

/// How many times faster than the first variant (above 1) or slower.
pub fn factor(first: f64, this: f64) -> String {
    if this <= 0.0 || first <= 0.0 {
        "-".into()
    } else if this <= first {
        format!("{:.2}x faster", first / this)
    } else {
        format!("{:.2}x slower", this / first)
    }
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, r: &CompareReport) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let name = r.matrix.rsplit('/').next().unwrap_or(&r.matrix);
    let title = format!(
        "{name}: variants on {} {} x {}, {}",
        r.machine, r.nodes, r.ppn, r.model
    );
    let root = root.titled(&title, ("sans-serif", 18))?;
    let (w, h) = root.dim_in_pixel();
    let (plots, strip) = root.split_horizontally(w - 330);
    let (lines, bars) = plots.split_vertically(h * 55 / 100);
    let (spmv_lines, spgemm_lines) = lines.split_horizontally((w - 330) / 2);
    let (spmv_bars, spgemm_bars) = bars.split_horizontally((w - 330) / 2);
    let levels = r.variants.iter().map(|v| v.levels.len()).max().unwrap_or(1);
    type Pick = fn(&LevelCompare) -> Option<f64>;
    let per_level: [(&DrawingArea<DB, Shift>, &str, Pick); 2] = [
        (&spmv_lines, "spmv time per level", |l| Some(l.spmv.total)),
        (&spgemm_lines, "spgemm time per level", |l| {
            l.spgemm.as_ref().map(|g| g.total)
        }),
    ];
    for (area, caption, pick) in per_level {
        let (lo, hi) = decades((r.variants.iter()).flat_map(|v| v.levels.iter().filter_map(pick)));
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(levels)
            .x_label_formatter(&super::charts::level_label)
            .y_label_formatter(&|y| seconds(*y))
            .x_desc("level")
            .y_desc("modeled time (log scale)")
            .label_style(("sans-serif", 13))
            .draw()?;
        for (k, v) in r.variants.iter().enumerate() {
            let color = COLORS[k % COLORS.len()];
            let points: Vec<(f64, f64)> = (v.levels.iter())
                .filter_map(|l| pick(l).filter(|&x| x > 0.0).map(|x| (l.level as f64, x)))
                .collect();
            chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
        }
    }
    type Total = fn(&VariantReport) -> f64;
    let totals: [(&DrawingArea<DB, Shift>, &str, Total); 2] = [
        (&spmv_bars, "spmv, all levels", |v| v.spmv_total),
        (&spgemm_bars, "spgemm, all levels", |v| v.spgemm_total),
    ];
    let n = r.variants.len().max(1);
    for (area, caption, total) in totals {
        let first = r.variants.first().map(total).unwrap_or(0.0);
        let most = r.variants.iter().map(total).fold(0.0, f64::max).max(1e-12);
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(20)
            .build_cartesian_2d(0f64..most * 1.6, -0.5f64..n as f64 - 0.5)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_labels(4)
            .x_label_formatter(&|x| seconds(*x))
            .x_desc("modeled time, sum over levels")
            .label_style(("sans-serif", 13))
            .draw()?;
        for (k, v) in r.variants.iter().enumerate() {
            // The first variant on top.
            let y = (n - 1 - k) as f64;
            let color = COLORS[k % COLORS.len()];
            let t = total(v);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(0.0, y - 0.35), (t, y + 0.35)],
                color.filled(),
            )))?;
            let label = if k == 0 {
                seconds(t)
            } else {
                format!("{} ({})", seconds(t), factor(first, t))
            };
            chart.draw_series(std::iter::once(Text::new(
                label,
                (t + most * 0.02, y + 0.15),
                ("sans-serif", 12).into_font(),
            )))?;
        }
    }
    // The variants, one a line, in the strip: as many as there are.
    strip.draw(&Text::new(
        "variants",
        (10, 40),
        ("sans-serif", 15).into_font(),
    ))?;
    for (k, v) in r.variants.iter().enumerate() {
        let y = 66 + 22 * k as i32;
        let color = COLORS[k % COLORS.len()];
        strip.draw(&Rectangle::new([(10, y - 6), (24, y + 6)], color.filled()))?;
        let mut label = v.name.clone();
        if label.chars().count() > 40 {
            label = format!("{}...", label.chars().take(37).collect::<String>());
        }
        strip.draw(&Text::new(
            label,
            (30, y - 8),
            ("sans-serif", 13).into_font(),
        ))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::factor;

    #[test]
    fn factors_against_the_first_variant() {
        assert_eq!(factor(4.18e-3, 3.326e-4), "12.57x faster");
        assert_eq!(factor(4.18e-3, 4.18e-3), "1.00x faster");
        assert_eq!(factor(4.0, 8.0), "2.00x slower");
        assert_eq!(factor(4.0, 0.0), "-");
    }
}
