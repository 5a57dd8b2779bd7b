//! The level table of `amgcomm hierarchy` (its JSON is
//! [`crate::amg::Sizes`]).

use super::group;
use crate::amg::Hierarchy;

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
    let sizes = h.sizes();
    s += &format!(
        "operator complexity {:.3}, grid complexity {:.3}\n",
        sizes.operator_complexity, sizes.grid_complexity
    );
    s
}
