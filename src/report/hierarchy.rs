//! The level table of `amgcomm hierarchy` (its JSON is
//! [`crate::amg::Sizes`]).

use super::group;
use crate::amg::{Hierarchy, SetupTimes};

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

/// `hierarchy --timings`: each level's wall seconds by setup step, their
/// sum, and a line of the steps summed over the levels.
pub fn setup_table(t: &SetupTimes) -> String {
    if t.levels.is_empty() {
        return "setup not timed: the levels were read, not built\n".into();
    }
    let steps = t.steps();
    let mut s = format!("{:>5}", "level");
    for (name, _) in steps {
        s += &format!(" {name:>13}");
    }
    s += &format!(" {:>9}\n", "total");
    let row = |label: &str, v: &[f64]| {
        let mut line = format!("{label:>5}");
        for x in v {
            line += &format!(" {x:>13.3}");
        }
        line + &format!(" {:>9.3}\n", v.iter().sum::<f64>())
    };
    for (k, v) in t.levels.iter().enumerate() {
        s += &row(&k.to_string(), v);
    }
    let all: Vec<f64> = steps.iter().map(|x| x.1).collect();
    s += &row("all", &all);
    s += "setup seconds (wall) by step";
    if t.gather > 0.0 {
        s += "; gather: amgcomm's own (level 0 split into the ranks' blocks, each level made whole where it is read whole)";
    }
    s + "\n"
}
