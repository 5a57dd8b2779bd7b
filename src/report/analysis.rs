//! The per-level communication report of `amgcomm analyze`: JSON with the
//! fields of `../shared/MODEL.md` ("Report fields"; the cost fields come
//! with the model stage) and a terminal table.

use std::collections::BTreeMap;

use serde::Serialize;

use super::spy::group;
use crate::amg::Hierarchy;
use crate::comm::node_aware::{Step, Strategy};
use crate::comm::{LevelComm, Summary};
use crate::machine::Machine;
use crate::matrix::Info;
use crate::model::{self, Cost, Model};

#[derive(Serialize)]
pub struct Report {
    /// Wall seconds per stage (`analyze --timings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<BTreeMap<String, f64>>,
    pub model: String,
    /// Communication strategy (standard, node-aware-2, node-aware-3).
    pub strategy: String,
    pub matrix: MatrixJson,
    pub machine: MachineJson,
    pub partition: PartitionJson,
    pub hierarchy: HierarchyJson,
    pub levels: Vec<LevelJson>,
}

#[derive(Serialize)]
pub struct MatrixJson {
    pub name: String,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
}

#[derive(Serialize)]
pub struct MachineJson {
    #[serde(flatten)]
    pub machine: Machine,
    pub ranks: usize,
    pub routers: usize,
    pub router_box: [usize; 3],
}

#[derive(Serialize)]
pub struct PartitionJson {
    /// `contiguous` or the partition file.
    pub fine: String,
    /// `inherit` or `rebalance`.
    pub coarse: String,
}

/// The hierarchy's summary (as `amgcomm hierarchy --json` writes it) and
/// where it came from.
#[derive(Serialize)]
pub struct HierarchyJson {
    pub source: String,
    #[serde(flatten)]
    pub summary: super::hierarchy::HierarchyJson,
}

#[derive(Serialize)]
pub struct LevelJson {
    pub level: usize,
    pub rows: usize,
    pub nnz: usize,
    pub active_processes: usize,
    pub ops: BTreeMap<String, OpJson>,
}

/// One operation: MODEL.md's message and byte figures and its cost.
#[derive(Clone, Serialize)]
pub struct OpJson {
    #[serde(flatten)]
    pub summary: Summary,
    pub cost: Cost,
    /// The steps of a node-aware strategy, each with its figures and cost
    /// (the op's figures cover all of them; its cost is their sum).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepJson>,
}

#[derive(Clone, Serialize)]
pub struct StepJson {
    pub name: String,
    #[serde(flatten)]
    pub summary: Summary,
    pub cost: Cost,
}

/// The steps of a node-aware strategy on one level.
pub struct LevelSteps {
    pub level: usize,
    pub spmv: Vec<Step>,
    pub spgemm: Option<Vec<Step>>,
}

/// One operation made of steps: figures over all their messages, cost
/// summed term by term.
fn steps_json(op: crate::comm::Op, steps: &[Step], m: &Machine, model: &Model) -> OpJson {
    let mut cost = Cost::default();
    let mut all = Vec::new();
    let steps: Vec<StepJson> = steps
        .iter()
        .map(|s| {
            let summary = crate::comm::summarize(&s.pattern, m);
            let c = model::cost(&s.pattern, &summary, m, model);
            cost.max_rate += c.max_rate;
            cost.queue_search += c.queue_search;
            cost.contention += c.contention;
            // An optional term is in every step or in none.
            let add = |sum: Option<f64>, t: Option<f64>| t.map(|t| t + sum.unwrap_or(0.0));
            cost.routed = add(cost.routed, c.routed);
            cost.pack = add(cost.pack, c.pack);
            cost.logpc = add(cost.logpc, c.logpc);
            cost.copy_transfer = c.copy_transfer.map(|x| match cost.copy_transfer {
                None => x,
                Some(sum) => model::copy_transfer::CopyTransfer {
                    packing: sum.packing + x.packing,
                    chained: sum.chained + x.chained,
                    // Each step takes its cheaper strategy.
                    cheaper: if sum.cheaper == x.cheaper {
                        x.cheaper
                    } else {
                        "mixed"
                    },
                },
            });
            cost.max_link_bytes = c.max_link_bytes.max(cost.max_link_bytes);
            cost.total += c.total;
            all.extend_from_slice(&s.pattern.messages);
            StepJson {
                name: s.name.to_string(),
                summary,
                cost: c,
            }
        })
        .collect();
    let merged = crate::comm::Pattern { op, messages: all };
    OpJson {
        summary: crate::comm::summarize(&merged, m),
        cost,
        steps,
    }
}

#[allow(clippy::too_many_arguments)]
pub fn report(
    model: &Model,
    matrix_name: &str,
    info: &Info,
    m: &Machine,
    partition: PartitionJson,
    h: &Hierarchy,
    hierarchy_source: &str,
    levels: &[LevelComm],
    strategy: Strategy,
    node_aware: &[LevelSteps],
) -> Report {
    Report {
        timings: None,
        model: model.name(),
        strategy: strategy.name().to_string(),
        matrix: MatrixJson {
            name: matrix_name.to_string(),
            rows: info.rows,
            cols: info.cols,
            nnz: info.nnz,
        },
        machine: MachineJson {
            machine: m.clone(),
            ranks: m.ranks(),
            routers: m.routers(),
            router_box: m.router_box(),
        },
        partition,
        hierarchy: HierarchyJson {
            source: hierarchy_source.to_string(),
            summary: super::hierarchy::json(h),
        },
        levels: levels
            .iter()
            .map(|l| LevelJson {
                level: l.level,
                rows: l.rows,
                nnz: l.nnz,
                active_processes: l.active_processes,
                ops: l
                    .ops
                    .iter()
                    .map(|(p, summary)| {
                        let replaced =
                            node_aware
                                .iter()
                                .find(|e| e.level == l.level)
                                .and_then(|e| match p.op {
                                    crate::comm::Op::Spmv => Some(&e.spmv),
                                    crate::comm::Op::Spgemm => e.spgemm.as_ref(),
                                    crate::comm::Op::Ptap => None,
                                });
                        let op = match replaced {
                            Some(steps) => steps_json(p.op, steps, m, model),
                            None => OpJson {
                                summary: summary.clone(),
                                cost: model::cost(p, summary, m, model),
                                steps: Vec::new(),
                            },
                        };
                        (p.op.name().to_string(), op)
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// 1536 -> "1.5 KB" (decimal units, as network rates are quoted).
pub fn bytes(b: u64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1000.0 && u + 1 < units.len() {
        x /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", units[u])
    }
}

/// Seconds with a unit: "12.3 us", "4.56 ms".
pub fn seconds(t: f64) -> String {
    if t == 0.0 {
        "0".into()
    } else if t < 1e-3 {
        format!("{:.1} us", t * 1e6)
    } else if t < 1.0 {
        format!("{:.2} ms", t * 1e3)
    } else {
        format!("{t:.2} s")
    }
}

/// One table per operation: per level, size, active ranks, the most
/// messages a rank receives, inter-node bytes and the modeled terms.
pub fn table(r: &Report) -> String {
    let mut s = String::new();
    let how = if r.strategy == "standard" {
        r.model.clone()
    } else {
        format!("{}, {}", r.model, r.strategy)
    };
    let extra = extra_terms(r);
    let copy = has_copy_transfer(r);
    let mut extra_header: String = extra.iter().map(|t| format!(" {t:>10}")).collect();
    if copy {
        extra_header += &format!(" {:>10} {:>10} {:>8}", "packing", "chained", "cheaper");
    }
    for op in ["spmv", "spgemm", "ptap"] {
        s += &format!(
            "{op} ({})\n{:>5} {:>11} {:>13} {:>6} {:>8} {:>10} {:>10} {:>10} {:>10}{} {:>10}\n",
            how,
            "level",
            "rows",
            "nnz",
            "active",
            "max recv",
            "net bytes",
            rate_label(&r.model),
            "queue",
            "contention",
            extra_header,
            "total"
        );
        for l in &r.levels {
            let Some(o) = l.ops.get(op) else { continue };
            s += &format!(
                "{:>5} {:>11} {:>13} {:>6} {:>8} {:>10} {:>10} {:>10} {:>10}{} {:>10}\n",
                l.level,
                group(l.rows),
                group(l.nnz),
                l.active_processes,
                o.summary.messages.max_recv,
                bytes(o.summary.bytes.inter_node),
                seconds(o.cost.max_rate),
                seconds(o.cost.queue_search),
                seconds(o.cost.contention),
                extra
                    .iter()
                    .map(|t| format!(" {:>10}", seconds(o.cost.extra(t).unwrap_or(0.0))))
                    .chain(o.cost.copy_transfer.map(|c| format!(
                        " {:>10} {:>10} {:>8}",
                        seconds(c.packing),
                        seconds(c.chained),
                        c.cheaper
                    )))
                    .collect::<String>(),
                seconds(o.cost.total)
            );
        }
        s += "\n";
    }
    s
}

/// The rate term's name in tables and charts.
pub fn rate_label(model: &str) -> &'static str {
    let has = |term| model.split('+').any(|t| t == term);
    if has("loggp") {
        "LogGP"
    } else if has("copytransfer") {
        "copy-transfer"
    } else {
        "max-rate"
    }
}

/// Whether the report charges copy-transfer (both strategies reported).
pub fn has_copy_transfer(r: &Report) -> bool {
    r.levels
        .iter()
        .any(|l| l.ops.values().any(|o| o.cost.copy_transfer.is_some()))
}

/// The optional terms (`routed`, `pack`) the report's model has.
pub fn extra_terms(r: &Report) -> Vec<&'static str> {
    model::EXTRA_TERMS
        .into_iter()
        .filter(|t| {
            r.levels
                .iter()
                .any(|l| l.ops.values().any(|o| o.cost.extra(t).is_some()))
        })
        .collect()
}

/// `levels.csv`: one row per level and operation (a column per optional
/// term, and `copy_packing,copy_chained,copy_cheaper` for copy-transfer,
/// before `total` when the model has them).
pub fn csv(r: &Report) -> String {
    let extra = extra_terms(r);
    let copy = has_copy_transfer(r);
    let mut s = format!(
        "level,op,rows,nnz,active_processes,messages_total,messages_max_sent,messages_max_recv,messages_inter_node,\
         bytes_total,bytes_max_sent,bytes_max_recv,bytes_inter_node,byte_hops,avg_hops,max_rate,queue_search,contention,{}{}total\n",
        extra.iter().map(|t| format!("{t},")).collect::<String>(),
        if copy { "copy_packing,copy_chained,copy_cheaper," } else { "" }
    );
    for l in &r.levels {
        for (op, o) in &l.ops {
            let (m, b, c) = (&o.summary.messages, &o.summary.bytes, &o.cost);
            s += &format!(
                "{},{op},{},{},{},{},{},{},{},{},{},{},{},{},{},{:e},{:e},{:e},{}{:e}\n",
                l.level,
                l.rows,
                l.nnz,
                l.active_processes,
                m.total,
                m.max_sent,
                m.max_recv,
                m.inter_node,
                b.total,
                b.max_sent,
                b.max_recv,
                b.inter_node,
                o.summary.byte_hops,
                o.summary.avg_hops,
                c.max_rate,
                c.queue_search,
                c.contention,
                extra
                    .iter()
                    .map(|t| format!("{:e},", c.extra(t).unwrap_or(0.0)))
                    .chain(
                        c.copy_transfer
                            .map(|x| format!("{:e},{:e},{},", x.packing, x.chained, x.cheaper))
                    )
                    .collect::<String>(),
                c.total
            );
        }
    }
    s
}
