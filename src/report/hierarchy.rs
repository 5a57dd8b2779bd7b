//! The level table of `amgcomm hierarchy` and its JSON
//! (`{"operator_complexity","grid_complexity","levels":[{"level","rows","nnz","p_nnz"}]}`).

use serde::Serialize;

use super::group;
use crate::amg::Hierarchy;

/// One level's sizes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelJson {
    /// Level index.
    pub level: usize,
    /// Rows of `A_l`.
    pub rows: usize,
    /// Nonzeros of `A_l`.
    pub nnz: usize,
    /// Nonzeros of `P_l` (not on the coarsest level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_nnz: Option<usize>,
}

/// The hierarchy's sizes and complexities.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HierarchyJson {
    /// `sum nnz(A_l) / nnz(A_0)`.
    pub operator_complexity: f64,
    /// `sum rows(A_l) / rows(A_0)`.
    pub grid_complexity: f64,
    /// Every level.
    pub levels: Vec<LevelJson>,
}

/// The summary of `h`.
pub fn json(h: &Hierarchy) -> HierarchyJson {
    let sizes: Vec<LevelJson> = (h.levels.iter().enumerate())
        .map(|(level, l)| LevelJson {
            level,
            rows: l.a.rows(),
            nnz: l.a.nnz(),
            p_nnz: l.p.as_ref().map(|p| p.nnz()),
        })
        .collect();
    of_sizes(sizes)
}

/// The summary of levels of these sizes (a distributed run knows the
/// sizes, not the matrices): the complexities as
/// [`Hierarchy::operator_complexity`] and [`Hierarchy::grid_complexity`].
pub fn of_sizes(levels: Vec<LevelJson>) -> HierarchyJson {
    let ratio = |f: fn(&LevelJson) -> usize| {
        let total: usize = levels.iter().map(f).sum();
        total as f64 / levels.first().map_or(0, f).max(1) as f64
    };
    HierarchyJson {
        operator_complexity: ratio(|l| l.nnz),
        grid_complexity: ratio(|l| l.rows),
        levels,
    }
}

/// Per level: rows, nonzeros, nonzeros per row and of P; then the
/// complexities.
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
