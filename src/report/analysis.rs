//! The per-level communication report of `amgcomm analyze`: JSON with the
//! fields of `../shared/MODEL.md` ("Report fields"; the cost fields come
//! with the model stage) and a terminal table.

use std::collections::BTreeMap;

use serde::Serialize;

use super::spy::group;
use crate::amg::Hierarchy;
use crate::comm::{LevelComm, Summary};
use crate::machine::Machine;
use crate::matrix::Info;

#[derive(Serialize)]
pub struct Report {
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
    pub ops: BTreeMap<String, Summary>,
}

pub fn report(
    matrix_name: &str,
    info: &Info,
    m: &Machine,
    partition: PartitionJson,
    h: &Hierarchy,
    hierarchy_source: &str,
    levels: &[LevelComm],
) -> Report {
    Report {
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
                    .map(|(p, s)| (p.op.name().to_string(), s.clone()))
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

/// Per level: size, active ranks, and for each operation the largest number
/// of messages a rank receives and the inter-node bytes.
pub fn table(levels: &[LevelComm]) -> String {
    let mut s = format!(
        "{:>5} {:>11} {:>13} {:>6} | {:>22} | {:>22} | {:>22}\n",
        "level",
        "rows",
        "nnz",
        "active",
        "spmv: max recv, net",
        "spgemm: max recv, net",
        "ptap: max recv, net"
    );
    for l in levels {
        let mut cells = Vec::new();
        for k in 0..3 {
            cells.push(match l.ops.get(k) {
                Some((_, s)) => format!(
                    "{:>8} {:>13}",
                    s.messages.max_recv,
                    bytes(s.bytes.inter_node)
                ),
                None => String::new(),
            });
        }
        s += &format!(
            "{:>5} {:>11} {:>13} {:>6} | {:>22} | {:>22} | {:>22}\n",
            l.level,
            group(l.rows),
            group(l.nnz),
            l.active_processes,
            cells[0],
            cells[1],
            cells[2]
        );
    }
    s
}
