//! `profile.json`: the modeled levels as a Caliper profile in its
//! json-split format, the one Hatchet's `GraphFrame.from_caliper` and
//! Thicket's `Thicket.from_caliper` read (Caliper's `json-split`
//! formatter; Hatchet's `readers/caliper_reader.py`):
//!
//! - `nodes`: the region tree, each `{"label", "column": "path",
//!   "parent"}` (a root has no parent): `amgcomm` -> `MG level L` (hypre's
//!   `HYPRE_ANNOTATE_MGLEVEL` names; level 0 the finest) -> one node per
//!   operation charged (`spmv`, `spgemm`, `ptap`, `aa`, `interp`,
//!   `restrict`);
//! - `columns` and `column_metadata` (`is_value`): `Node order` (the
//!   node's index: Caliper's `min#min#aggregate.slot` under the alias
//!   Hatchet orders nodes by), `path` (the node's index), `sum#time.duration` and `inclusive#sum#time.duration` (the
//!   modeled seconds of one exchange, exclusive and inclusive: Hatchet's
//!   `time` and `time (inc)`), `messages` and `bytes` (over all ranks),
//!   then each cost term's seconds under its `report.json` key;
//! - `data`: one row per node;
//! - every other top-level key is the run's metadata (Thicket's metadata
//!   table): machine, `node_count` (the format's own `nodes` key holds
//!   the tree), ppn, `mpi.world.size`, strategy, model, preset, matrix,
//!   `amgcomm.version`.

use serde_json::{json, Map, Value};

use super::json::Report;
use crate::analysis::LevelAnalysis;

/// The keys of a profile's columns before the cost terms.
pub const COLUMNS: [&str; 6] = [
    "Node order",
    "path",
    "sum#time.duration",
    "inclusive#sum#time.duration",
    "messages",
    "bytes",
];

/// What `MG level L` means, in every profile's metadata.
pub const LEVELS: &str =
    "MG level 0 is the finest (hypre's numbering); each operation's time is one exchange, modeled";

/// The metadata of an analysis's report: the run's context.
pub fn metadata(r: &Report) -> Map<String, Value> {
    let m = r.machine.machine;
    run_metadata(&[
        ("machine", json!(m.name)),
        ("node_count", json!(m.nodes)),
        ("ppn", json!(m.ppn)),
        ("mpi.world.size", json!(r.machine.ranks)),
        ("strategy", json!(r.strategy.name())),
        ("model", json!(r.model.to_string())),
        ("preset", json!(r.hierarchy.source)),
        ("matrix", json!(r.matrix.name)),
    ])
}

/// `pairs` with the version and the levels' numbering added.
pub fn run_metadata(pairs: &[(&str, Value)]) -> Map<String, Value> {
    let mut meta: Map<String, Value> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    meta.insert("amgcomm.version".into(), env!("CARGO_PKG_VERSION").into());
    meta.insert("amgcomm.levels".into(), LEVELS.into());
    meta
}

/// The json-split profile of `levels` with the top-level `metadata`, as
/// pretty JSON with a final newline.
pub fn profile(levels: &[LevelAnalysis], metadata: Map<String, Value>) -> String {
    // The cost terms' keys, in the model's order, as report.json names them.
    let mut terms: Vec<&'static str> = Vec::new();
    for o in levels.iter().flat_map(|l| &l.ops) {
        for c in &o.cost.terms {
            if !terms.contains(&c.term.column) {
                terms.push(c.term.column);
            }
        }
    }
    // Figures after `Node order` and `path`.
    let width = COLUMNS.len() - 1 + terms.len();
    let mut nodes = vec![json!({"label": "amgcomm", "column": "path"})];
    // Rows: [node, exclusive, inclusive, messages, bytes, terms...].
    let mut data: Vec<Vec<Value>> = vec![Vec::new()];
    let mut root = vec![0.0; width - 1];
    for l in levels {
        let at = nodes.len();
        nodes
            .push(json!({"label": format!("MG level {}", l.level), "column": "path", "parent": 0}));
        data.push(Vec::new());
        let mut level = vec![0.0; width - 1];
        for o in &l.ops {
            let mut row = vec![0.0; width - 1];
            row[0] = o.cost.total;
            row[1] = o.cost.total;
            row[2] = o.summary.messages.total as f64;
            row[3] = o.summary.bytes.total as f64;
            for (column, seconds) in o.cost.by_column() {
                let k = terms.iter().position(|t| *t == column).unwrap_or(0);
                row[4 + k] = seconds;
            }
            for (sum, x) in level.iter_mut().zip(&row).skip(1) {
                *sum += x;
            }
            nodes.push(json!({"label": o.op.name(), "column": "path", "parent": at}));
            data.push(values(nodes.len() - 1, &row));
        }
        // A level's own time is nothing but its operations'.
        level[0] = 0.0;
        for (sum, x) in root.iter_mut().zip(&level).skip(1) {
            *sum += x;
        }
        data[at] = values(at, &level);
    }
    root[0] = 0.0;
    data[0] = values(0, &root);
    let columns: Vec<&str> = COLUMNS.iter().copied().chain(terms).collect();
    let column_metadata: Vec<Value> = (columns.iter())
        .map(|&c| match c {
            "Node order" => json!({"is_value": true, "attribute.alias": "Node order"}),
            "path" => json!({"is_value": false}),
            "messages" | "bytes" => json!({"is_value": true}),
            _ => json!({"is_value": true, "attribute.unit": "sec"}),
        })
        .collect();
    let mut out = metadata;
    out.insert("data".into(), json!(data));
    out.insert("columns".into(), json!(columns));
    out.insert("column_metadata".into(), json!(column_metadata));
    out.insert("nodes".into(), json!(nodes));
    super::pretty_json(&out)
}

/// A data row: the node's order and index, then its figures (counts as
/// integers).
fn values(node: usize, row: &[f64]) -> Vec<Value> {
    let mut v = vec![json!(node), json!(node)];
    for (k, &x) in row.iter().enumerate() {
        // Messages and bytes are counts.
        v.push(if k == 2 || k == 3 {
            json!(x as u64)
        } else {
            json!(x)
        });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_hold_their_operations_and_the_root_holds_all() {
        use crate::analysis::{analyze, Options};
        use crate::machine::Machine;
        use crate::matrix::gen::{Kind, Problem};
        use crate::partition::{CoarseRule, Layout, Partition};
        let m = Problem::new(Kind::Poisson3d, 8).generate().unwrap().csr;
        let h =
            crate::amg::build(&m, &crate::amg::Preset::Hypre.options(), &mut |_, _| {}).unwrap();
        let machine = Machine {
            nodes: 4,
            ppn: 2,
            ..Machine::bluewaters()
        };
        let layout = Layout::new(
            &h,
            Partition::contiguous(m.rows(), machine.ranks()),
            CoarseRule::Inherit,
        );
        let a = analyze(&h, &layout, &machine, &Options::default()).unwrap();
        let text = profile(&a.levels, run_metadata(&[("machine", json!("x"))]));
        let p: Value = serde_json::from_str(&text).unwrap();
        let nodes = p["nodes"].as_array().unwrap();
        let data = p["data"].as_array().unwrap();
        assert_eq!(nodes.len(), data.len());
        assert_eq!(p["machine"], "x");
        let total: f64 = a
            .levels
            .iter()
            .flat_map(|l| &l.ops)
            .map(|o| o.cost.total)
            .sum();
        let root_inclusive = data[0][3].as_f64().unwrap();
        assert!(
            (root_inclusive - total).abs() <= 1e-12 * total,
            "{root_inclusive} vs {total}"
        );
        assert_eq!(data[0][2].as_f64(), Some(0.0));
        assert_eq!(nodes[1]["label"], "MG level 0");
        assert_eq!(nodes[2]["label"], "spmv");
        assert_eq!(nodes[2]["parent"], 1);
        let spmv = &a.levels[0].ops[0];
        assert_eq!(data[2][2].as_f64(), Some(spmv.cost.total));
        assert_eq!(data[2][4].as_u64(), Some(spmv.summary.messages.total));
    }
}
