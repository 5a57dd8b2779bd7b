//! `report.json` of `amgcomm analyze`: the fields `docs/report.md`
//! defines ("The fields of report.json") and more: the analysis's levels with the run's
//! context (model, strategy, matrix, machine, partition, hierarchy,
//! timings).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::amg::diagnose::Warning;

use crate::analysis::advice::Advice;
use crate::analysis::{Analysis, LevelAnalysis, Request, Run, Totals};
use crate::comm::node_aware::Strategy;
use crate::machine::Machine;
use crate::model::Model;
use crate::partition::{CoarseRule, Fine};

/// The whole report.
#[derive(Serialize)]
pub struct Report<'a> {
    /// Wall seconds per stage (`analyze --timings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<BTreeMap<String, f64>>,
    /// The cost terms, as `term+term`.
    pub model: &'a Model,
    /// The exchange strategy of spmv and spgemm.
    pub strategy: Strategy,
    /// The input matrix.
    pub matrix: MatrixJson,
    /// The machine, with its derived counts.
    pub machine: MachineJson<'a>,
    /// How rows were partitioned.
    pub partition: PartitionJson,
    /// The hierarchy's summary and where it came from.
    pub hierarchy: HierarchyJson,
    /// Every level's figures and costs.
    pub levels: &'a [LevelAnalysis],
    /// Each operation's cost summed over the levels, term by term.
    pub totals: Totals,
    /// The solve beside the setup (`--cycle`), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<&'a crate::analysis::cycle::CycleAnalysis>,
    /// What would cut the time ([`crate::analysis::advice`]), when asked
    /// for (`--advice`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<Vec<Advice>>,
    /// The measured run set beside the model (`--measured`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<MeasuredJson>,
    /// What makes the hierarchy suspect ([`crate::amg::diagnose`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
}

/// Where the measured times come from, and what they lack.
pub type MeasuredJson = crate::analysis::request::MeasuredOverlay;

/// The input matrix.
#[derive(Serialize)]
pub struct MatrixJson {
    /// File path or generator spec.
    pub name: String,
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Nonzeros (expanded).
    pub nnz: usize,
}

/// The machine's fields, its ranks and switches, and its network with
/// the allocation's shape.
pub struct MachineJson<'a> {
    /// The machine as its file would hold it.
    pub machine: &'a Machine,
    /// `nodes * ppn`.
    pub ranks: usize,
}

impl Serialize for MachineJson<'_> {
    /// The machine file's fields, `ranks`, `routers` (the switches of the
    /// allocation), `nodes_per_router` (nodes per switch), and `network`:
    /// the machine's network object with its shape for this allocation
    /// (a box's `switches` and `router_box`, also at the top as before
    /// networks were data).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let m = self.machine;
        let Value::Object(mut map) = serde_json::to_value(m).map_err(S::Error::custom)? else {
            return Err(S::Error::custom("a machine serialises as an object"));
        };
        // Where the parameters come from is `machine show`'s.
        map.shift_remove("provenance");
        let net = m.network();
        let shape = net.shape();
        map.insert("ranks".into(), self.ranks.into());
        map.insert("routers".into(), net.switches().into());
        map.insert(
            "nodes_per_router".into(),
            m.network.nodes_per_switch().into(),
        );
        if let Some(b) = shape.get("router_box") {
            map.insert("router_box".into(), b.clone());
        }
        let mut network = m.network.to_json();
        network.extend(shape);
        map.insert("network".into(), network.into());
        map.serialize(s)
    }
}

/// How rows were partitioned.
#[derive(Serialize)]
pub struct PartitionJson {
    /// The method's name or the partition file.
    pub fine: String,
    /// `inherit` or `rebalance`.
    pub coarse: CoarseRule,
}

/// The hierarchy's summary (as `amgcomm hierarchy --json` writes it) and
/// where it came from.
#[derive(Serialize)]
pub struct HierarchyJson {
    /// `<preset> preset` or `levels from <dir>`.
    pub source: String,
    /// Complexities and level sizes.
    #[serde(flatten)]
    pub summary: crate::amg::Sizes,
}

/// What a report says besides the analysis itself.
pub struct Context<'a> {
    /// The cost terms.
    pub model: &'a Model,
    /// The exchange strategy.
    pub strategy: Strategy,
    /// The input matrix.
    pub matrix: MatrixJson,
    /// The machine.
    pub machine: &'a Machine,
    /// The fine partition.
    pub fine: &'a Fine,
    /// The coarse rule.
    pub coarse: CoarseRule,
    /// The hierarchy's sizes ([`crate::amg::Hierarchy::sizes`]).
    pub hierarchy: crate::amg::Sizes,
    /// Where the hierarchy came from.
    pub source: String,
}

impl<'a> Report<'a> {
    /// The report of `analysis` in `context`, without timings.
    pub fn new(analysis: &'a Analysis, c: Context<'a>) -> Report<'a> {
        let m = c.machine;
        Report {
            timings: None,
            warnings: Vec::new(),
            model: c.model,
            strategy: c.strategy,
            matrix: c.matrix,
            machine: MachineJson {
                machine: m,
                ranks: m.ranks(),
            },
            partition: PartitionJson {
                fine: c.fine.name(),
                coarse: c.coarse,
            },
            hierarchy: HierarchyJson {
                source: c.source,
                summary: c.hierarchy,
            },
            levels: &analysis.levels,
            totals: analysis.totals(),
            measured: None,
            advice: None,
            cycle: None,
        }
    }

    /// The report of a request's run: its analysis in the run's and
    /// the request's context, with the advice, warnings and measured
    /// times; without timings.
    pub fn of_run(run: &'a Run, request: &'a Request) -> Report<'a> {
        let context = Context {
            model: &request.options.model,
            strategy: request.options.strategy,
            matrix: MatrixJson {
                name: run.name.clone(),
                rows: run.info.rows,
                cols: run.info.cols,
                nnz: run.info.nnz,
            },
            machine: &request.machine,
            fine: &run.fine,
            coarse: run.coarse,
            hierarchy: run.sizes.clone(),
            source: run.source.clone(),
        };
        let mut r = Report::new(&run.analysis, context);
        r.advice = run.advice.clone();
        r.warnings = run.warnings.clone();
        r.measured = run.measured.clone();
        r.cycle = run.cycle.as_ref();
        r
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        super::pretty_json(self)
    }
}
