//! The level table of `amgcomm hierarchy` and its JSON
//! (`{"operator_complexity","grid_complexity","levels":[{"level","rows","nnz","p_nnz"}]}`).

use serde::Serialize;

use super::spy::group;
use crate::amg::Hierarchy;

#[derive(Serialize)]
pub struct LevelJson {
    pub level: usize,
    pub rows: usize,
    pub nnz: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_nnz: Option<usize>,
}

#[derive(Serialize)]
pub struct HierarchyJson {
    pub operator_complexity: f64,
    pub grid_complexity: f64,
    pub levels: Vec<LevelJson>,
}

pub fn json(h: &Hierarchy) -> HierarchyJson {
    HierarchyJson {
        operator_complexity: h.operator_complexity(),
        grid_complexity: h.grid_complexity(),
        levels: h
            .levels
            .iter()
            .enumerate()
            .map(|(level, l)| LevelJson {
                level,
                rows: l.a.rows(),
                nnz: l.a.nnz(),
                p_nnz: l.p.as_ref().map(|p| p.nnz()),
            })
            .collect(),
    }
}

pub fn table(h: &Hierarchy) -> String {
    let mut s = format!(
        "{:>5} {:>12} {:>14} {:>8} {:>12}\n",
        "level", "rows", "nnz", "nnz/row", "P nnz"
    );
    for (k, l) in h.levels.iter().enumerate() {
        let per_row = l.a.nnz() as f64 / l.a.rows().max(1) as f64;
        let p = l.p.as_ref().map(|p| group(p.nnz())).unwrap_or_default();
        s += &format!(
            "{k:>5} {:>12} {:>14} {per_row:>8.1} {p:>12}\n",
            group(l.a.rows()),
            group(l.a.nnz())
        );
    }
    s += &format!(
        "operator complexity {:.3}, grid complexity {:.3}\n",
        h.operator_complexity(),
        h.grid_complexity()
    );
    s
}
