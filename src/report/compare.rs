//! `amgcomm compare`: the figures of several variants side by side, as a
//! table, `compare.json` and `compare.png` (per level: modeled SpMV time and
//! the most messages a rank receives, one line per variant).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

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
}

impl CompareReport {
    /// The report of `variants` of `matrix` on `base`.
    pub fn new(
        matrix: &str,
        base: &Machine,
        model: &Model,
        variants: &[VariantAnalysis],
    ) -> CompareReport {
        let variants = variants
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
        CompareReport {
            matrix: matrix.to_string(),
            machine: base.name.clone(),
            nodes: base.nodes,
            ppn: base.ppn,
            model: model.clone(),
            variants,
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

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Writes the folder `dir` whole: `compare.json` and the chart as
/// `compare.png` and `compare.svg` ([`crate::output::write_folder`]); a
/// folder holding other than report files is refused.
pub fn write_folder(dir: &Path, r: &CompareReport) -> Result<(), ReportError> {
    let fail = |path: &Path| {
        let path = path.display().to_string();
        move |e: std::io::Error| ReportError::Write {
            path: path.clone(),
            reason: crate::output::reason(&e),
        }
    };
    crate::output::check_folder(dir, super::is_report_file).map_err(|e| ReportError::Write {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let fill = |tmp: &Path| {
        std::fs::write(tmp.join("compare.json"), r.to_json())
            .map_err(fail(&dir.join("compare.json")))?;
        for ext in ["png", "svg"] {
            chart(&tmp.join(format!("compare.{ext}")), r)?;
        }
        Ok(())
    };
    crate::output::write_folder(dir, fill, fail(dir))
}

/// `compare.png|svg`: per level, the modeled spmv time and the most
/// messages a rank receives, a line per variant.
pub fn chart(path: &Path, r: &CompareReport) -> Result<(), ReportError> {
    super::save_chart(
        path,
        |tmp| draw(BitMapBackend::new(tmp, (1200, 560)).into_drawing_area(), r),
        |tmp| draw(SVGBackend::new(tmp, (1200, 560)).into_drawing_area(), r),
    )
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
    let (left, right) = root.split_horizontally(600);
    let levels = r.variants.iter().map(|v| v.levels.len()).max().unwrap_or(1);
    type Pick = fn(&LevelCompare) -> f64;
    let panels: [(&DrawingArea<DB, Shift>, &str, &str, Pick); 2] = [
        (&left, "modeled spmv time", "seconds", |l| l.spmv.total),
        (
            &right,
            "most messages a rank receives (spmv)",
            "messages",
            |l| l.spmv.max_recv as f64,
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
            .build_cartesian_2d(-0.5f64..levels as f64 - 0.5, (lo..hi).log_scale())?;
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
            .draw()?;
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
    root.present()?;
    Ok(())
}
