//! `amgcomm compare`: the figures of several variants side by side, as a
//! table, `compare.json` and `compare.png` (per level: modeled SpMV time and
//! the most messages a rank receives, one line per variant).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use super::analysis::{bytes, seconds};
use super::spy::group;
use crate::comm::node_aware::Combined;

#[derive(Clone, Serialize)]
pub struct OpCompare {
    #[serde(flatten)]
    pub figures: Combined,
    /// Modeled seconds, all steps.
    pub total: f64,
}

#[derive(Clone, Serialize)]
pub struct LevelCompare {
    pub level: usize,
    pub rows: usize,
    pub spmv: OpCompare,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spgemm: Option<OpCompare>,
}

#[derive(Clone, Serialize)]
pub struct VariantReport {
    pub name: String,
    pub levels: Vec<LevelCompare>,
    /// Whole hierarchy: modeled spmv and spgemm seconds, network messages.
    pub spmv_total: f64,
    pub spgemm_total: f64,
    pub network_messages: u64,
}

#[derive(Serialize)]
pub struct CompareReport {
    pub matrix: String,
    pub machine: String,
    pub nodes: usize,
    pub ppn: usize,
    pub model: String,
    pub variants: Vec<VariantReport>,
}

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
                o.figures.max_recv,
                o.figures.max_network_sent,
                bytes(o.figures.inter_node_bytes),
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

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

pub fn chart(path: &Path, r: &CompareReport) -> Result<(), String> {
    super::save_chart(
        path,
        |tmp| draw(BitMapBackend::new(tmp, (1200, 560)).into_drawing_area(), r),
        |tmp| draw(SVGBackend::new(tmp, (1200, 560)).into_drawing_area(), r),
    )
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, r: &CompareReport) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let name = r.matrix.rsplit('/').next().unwrap_or(&r.matrix);
    let title = format!(
        "{name}: variants on {} {} x {}, {}",
        r.machine, r.nodes, r.ppn, r.model
    );
    let root = root.titled(&title, ("sans-serif", 18)).map_err(err)?;
    let (left, right) = root.split_horizontally(600);
    let levels = r.variants.iter().map(|v| v.levels.len()).max().unwrap_or(1);
    type Pick = fn(&LevelCompare) -> f64;
    let panels: [(&DrawingArea<DB, Shift>, &str, &str, Pick); 2] = [
        (&left, "modeled spmv time", "seconds", |l| l.spmv.total),
        (
            &right,
            "most messages a rank receives (spmv)",
            "messages",
            |l| l.spmv.figures.max_recv as f64,
        ),
    ];
    for (area, caption, unit, pick) in panels {
        let values = r
            .variants
            .iter()
            .flat_map(|v| v.levels.iter().map(pick))
            .filter(|&x| x > 0.0);
        let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(x), b.max(x)));
        let (lo, hi) = if hi > 0.0 {
            (
                10f64.powf(lo.log10().floor()),
                10f64.powf(hi.log10().ceil()),
            )
        } else {
            (0.1, 1.0)
        };
        let hi = hi.max(lo * 10.0);
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 15))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, (lo..hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels(levels)
            .x_label_formatter(&super::charts::level_label)
            .y_label_formatter(&|y| {
                if unit == "seconds" {
                    seconds(*y)
                } else {
                    format!("{}", y.round() as u64)
                }
            })
            .x_desc("level")
            .y_desc(unit)
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(err)?;
        for (k, v) in r.variants.iter().enumerate() {
            let color = COLORS[k % COLORS.len()];
            let points: Vec<(f64, f64)> = v
                .levels
                .iter()
                .map(|l| (l.level as f64, pick(l).max(lo)))
                .collect();
            super::charts::draw_line(&mut chart, points, color, &v.name)?;
        }
        super::charts::legend(&mut chart)?;
    }
    root.present().map_err(err)?;
    Ok(())
}
