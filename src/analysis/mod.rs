//! Stage 7: a hierarchy through partition, comm and model. [`analyze`]
//! extracts every level's messages (the operations of [`Options::ops`]),
//! summarises them (the report's figures) and charges them with a model,
//! under a communication strategy; it returns plain data ([`Analysis`]),
//! which `report` renders. [`compare`] runs it for several variants of
//! partition, placement and strategy.
//!
//! May use `matrix`, `amg`, `machine`, `partition`, `comm`, `model`,
//! `measure`, `measured`, and the ground floor (`output`, `memory`,
//! `json_in`); its files never import each other round a circle
//! (`tests/layering.rs`).

pub mod advice;
mod charge;
mod compare;
pub mod cycle;
#[cfg(feature = "mpi")]
pub mod distributed;
mod exchange;
mod overlay;
pub mod request;
pub mod scale;
mod stages;

use std::path::Path;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

pub use charge::{analyze, analyze_extracted, Extracted};
pub use compare::{compare, parse_variants, CompareError, Variant, VariantAnalysis, VariantError};
pub use exchange::CopyFigures;
pub use overlay::{check_measured, overlay, overlay_phases, OverlayError, PhaseOverlay};
pub use request::{Held, HeldKind, Input, Outputs, Request, RequestError, Run};
pub use scale::{ScaleRequest, Scaling};
pub use stages::Stages;

use crate::comm::node_aware::Strategy;
use crate::comm::pattern_file::PatternError;
use crate::comm::{self, Op, Pattern, Summary};
use crate::machine::Machine;
use crate::measured::MeasuredOp;
use crate::model::{Cost, Model};

/// What to charge and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The cost terms.
    pub model: Model,
    /// How spmv and spgemm exchange their values (ptap is always
    /// standard).
    pub strategy: Strategy,
    /// The operations to extract and charge (spgemm, ptap, interp and
    /// restrict on every level but the last, spmv and aa on every level).
    pub ops: comm::Ops,
    /// Keep every operation's messages in the result
    /// ([`OpAnalysis::patterns`]), for saving or drawing them.
    pub keep_patterns: bool,
    /// The solve's cycle to set beside the setup ([`cycle::of`]); its
    /// operations must be among `ops` ([`cycle::Cycle::OPS`]).
    pub cycle: Option<cycle::Cycle>,
}

/// The operations `analyze` charges under `preset` unless told: spmv,
/// spgemm and ptap, and aa under raptor-matops-2018 (its benchmark times
/// `A_l A_l`'s exchange).
pub fn default_ops(preset: crate::amg::Preset) -> comm::Ops {
    comm::Ops::DEFAULT.with(Op::Aa, preset == crate::amg::Preset::RaptorMatops2018)
}

impl Default for Options {
    /// The default model, standard exchanges, ptap included, patterns not
    /// kept.
    fn default() -> Options {
        Options {
            model: Model::default(),
            strategy: Strategy::Standard,
            ops: comm::Ops::DEFAULT,
            keep_patterns: false,
            cycle: None,
        }
    }
}

/// A layout made for another machine.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    /// The layout's rank count is not the machine's.
    #[error("the row partition is for {layout} ranks, the machine has {machine}")]
    Ranks {
        /// Ranks of the layout.
        layout: usize,
        /// Ranks of the machine.
        machine: usize,
    },
    /// The layout has not one partition per level.
    #[error("the row partition has {layout} levels, the hierarchy {hierarchy}")]
    Levels {
        /// Levels of the layout.
        layout: usize,
        /// Levels of the hierarchy.
        hierarchy: usize,
    },
    /// A term charged an infinite or undefined time: the machine's
    /// parameters are out of any plausible range.
    #[error("level {level} {op}: the {term} cost is {seconds} s; check the machine's parameters")]
    NotFinite {
        /// The level.
        level: usize,
        /// The operation.
        op: &'static str,
        /// The term.
        term: &'static str,
        /// What it charged.
        seconds: f64,
    },
}

/// Bytes [`analyze`] and the setup before it hold at their peak for a
/// matrix of `rows` rows and `nnz` nonzeros on `ranks` ranks, from
/// measurements (`scripts/bench.sh memory`): the setup's
/// ([`crate::amg::setup_bytes`]), the patterns and summaries of a level (8
/// per nonzero), and the per-rank tables of every level (512 per rank,
/// about 400 measured).
pub fn memory_bytes(rows: u64, nnz: u64, ranks: usize) -> u64 {
    crate::amg::setup_bytes(rows, nnz)
        .saturating_add(nnz.saturating_mul(8))
        .saturating_add((ranks as u64).saturating_mul(512))
}

/// Every level's communication and its modeled cost.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    /// Level 0 (finest) first.
    pub levels: Vec<LevelAnalysis>,
    /// Wall seconds spent extracting and charging.
    #[serde(skip)]
    pub seconds: StageSeconds,
    /// The strategy spmv and spgemm were charged under.
    #[serde(skip)]
    pub strategy: Strategy,
}

impl Analysis {
    /// Each operation's cost summed over the levels that have it, term by
    /// term ([`Cost::sum`]), in [`comm::OPS`] order.
    pub fn totals(&self) -> Totals {
        Totals(
            (comm::OPS.iter())
                .filter_map(|&op| {
                    let costs = self.levels.iter().filter_map(|l| l.op(op)).map(|o| &o.cost);
                    Cost::sum(costs).map(|c| (op, c))
                })
                .collect(),
        )
    }

    /// Writes the patterns of every level and operation (kept by
    /// [`Options::keep_patterns`]) as the folder `dir`, one file per level
    /// and operation in [`comm::pattern_file`]'s format with `m`'s rank layout: spmv
    /// and spgemm under the analysis's strategy, ptap (always a standard
    /// exchange) when it was extracted. The folder is built beside `dir`
    /// and swapped in whole; one that holds anything but pattern files is
    /// refused ([`comm::pattern_file::check_folder`]).
    pub fn save_patterns(&self, dir: &Path, m: &Machine) -> Result<(), PatternError> {
        comm::pattern_file::check_folder(dir)?;
        let io = |source| PatternError::Io {
            path: dir.display().to_string(),
            source,
        };
        let fill = |tmp: &Path| {
            for l in &self.levels {
                for o in &l.ops {
                    let strategy = match o.op {
                        Op::Ptap => Strategy::Standard,
                        _ => self.strategy,
                    };
                    let path = tmp.join(comm::pattern_file::file_name(l.level, o.op));
                    comm::pattern_file::write(&path, l.level, o.op, strategy, m, &o.patterns)?;
                }
            }
            Ok(())
        };
        crate::output::write_folder(dir, fill, io)
    }

    /// Writes each kept pattern's process graph as Graphviz DOT as the
    /// folder `dir` (built beside it and swapped in whole; one holding
    /// anything but `.dot` files is refused): `level{l}_{op}.dot`, or
    /// `level{l}_{op}_{step}.dot` for the steps of a node-aware strategy.
    pub fn save_dot(&self, dir: &Path, m: &Machine) -> Result<(), PatternError> {
        crate::output::check_folder(dir, comm::dot::is_dot_file).map_err(|problem| {
            PatternError::Folder {
                path: dir.display().to_string(),
                problem,
            }
        })?;
        // Errors name the file in `dir`, not in the temporary folder.
        let io = |name: &str| {
            let path = dir.join(name).display().to_string();
            move |source| PatternError::Io {
                path: path.clone(),
                source,
            }
        };
        let fill = |tmp: &Path| {
            for l in &self.levels {
                for o in &l.ops {
                    for (step, pat) in &o.patterns {
                        let name = if step == o.op.name() {
                            format!("level{}_{}.dot", l.level, step)
                        } else {
                            format!("level{}_{}_{step}.dot", l.level, o.op.name())
                        };
                        comm::dot::write(&tmp.join(&name), pat, m).map_err(io(&name))?;
                    }
                }
            }
            Ok(())
        };
        crate::output::write_folder(dir, fill, io(""))
    }
}

/// Per operation, its cost over the whole hierarchy; in JSON an object
/// keyed by operation (`report.json`'s `totals`).
#[derive(Clone, Debug, PartialEq)]
pub struct Totals(pub Vec<(Op, Cost)>);

impl Totals {
    /// The total of `op`, if a level has it.
    pub fn op(&self, op: Op) -> Option<&Cost> {
        self.0.iter().find(|(o, _)| *o == op).map(|(_, c)| c)
    }
}

impl Serialize for Totals {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (op, cost) in &self.0 {
            map.serialize_entry(op.name(), cost)?;
        }
        map.end()
    }
}

/// Wall seconds of [`analyze`]'s two parts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageSeconds {
    /// Building patterns and their summaries.
    pub extraction: f64,
    /// Charging them.
    pub model: f64,
}

/// One level: its size, and its operations (report.json's `levels[]`).
#[derive(Clone, Debug, Serialize)]
pub struct LevelAnalysis {
    /// Level index, 0 the finest.
    pub level: usize,
    /// Rows of `A_l`.
    pub rows: usize,
    /// Nonzeros of `A_l`.
    pub nnz: usize,
    /// Ranks owning at least one row.
    pub active_processes: usize,
    /// spmv, then (levels with a P) spgemm and ptap; in JSON an object
    /// keyed by operation.
    #[serde(serialize_with = "ops_by_name")]
    pub ops: Vec<OpAnalysis>,
}

impl LevelAnalysis {
    /// The operation `op`, if the level has it.
    pub fn op(&self, op: Op) -> Option<&OpAnalysis> {
        self.ops.iter().find(|o| o.op == op)
    }
}

/// One operation: the report's figures and its cost.
#[derive(Clone, Debug, Serialize)]
pub struct OpAnalysis {
    /// Which operation.
    #[serde(skip)]
    pub op: Op,
    /// Figures over all its messages (all steps).
    #[serde(flatten)]
    pub summary: Summary,
    /// Its cost (a strategy's: the steps' costs added term by term).
    pub cost: Cost,
    /// The steps of a node-aware strategy, each with its figures and cost.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepAnalysis>,
    /// Its messages, one pattern per step, when [`Options::keep_patterns`].
    #[serde(skip)]
    pub patterns: Vec<(String, Pattern)>,
    /// What a measured run took ([`overlay`]), if one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<MeasuredOp>,
    /// Modeled total over measured seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modeled_over_measured: Option<f64>,
}

/// One step of a node-aware strategy.
#[derive(Clone, Debug, Serialize)]
pub struct StepAnalysis {
    /// `on-node`, `gather`, `inter-node`, ...
    pub name: String,
    /// Its figures.
    #[serde(flatten)]
    pub summary: Summary,
    /// Its cost.
    pub cost: Cost,
    /// A copy step's figures (its summary then counts no messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<CopyFigures>,
}

fn ops_by_name<S: Serializer>(ops: &[OpAnalysis], s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(ops.len()))?;
    for o in ops {
        map.serialize_entry(o.op.name(), o)?;
    }
    map.end()
}
