//! Measured communication times, to set beside the model (`analyze
//! --measured FILE`). Four formats, told apart by content: a Caliper
//! json-split profile of hypre ([`caliper`]: its `nodes`, `columns` and
//! `data`), PETSc's `-log_view` text ([`petsc_log`]: its "PETSc
//! Performance Summary"), both timing phases of each level
//! ([`Measured::phases`]), and these two, timing single operations:
//!
//! - RAPtor's per-level benchmark output, as printed for the EuroMPI'18
//!   study: blocks `Level N`, then `A*P:` and `A*x`, each followed by
//!   `Key: value` or `Key = value` lines (`Max Num Msgs`, `Total Bytes`:
//!   the bytes between nodes only, `Num Active Processes`, `Comm Time`,
//!   ...). A batch system's prologue
//!   before the first `Level` and an epilogue after the last complete
//!   block are skipped; a block cut short (a killed run) ends the file.
//!   `A*x` is spmv, `A*P` spgemm, `P*e` interp, `P.T*r` restrict.
//!   RAPtor's `benchmark_matops` output (June 2018) is read the same way:
//!   `A Vector Communication` is spmv, `A Communication:` aa, `P Vector
//!   Communication` interp, and their `TAP` blocks the same operations
//!   under `node-aware-3` ([`Measured::others`]); its `S` blocks and `P`'s
//!   matrix blocks are not read.
//! - amgcomm's measured JSON ([`MeasuredFile`], schema version 1, written
//!   by `amgcomm replay`): run metadata and, per level and operation,
//!   `seconds` (the maximum over ranks of one exchange, the median over
//!   iterations) and optionally `min_seconds`, `max_msgs`, `messages`,
//!   `bytes`, `inter_node_bytes` and `active_processes`:
//!
//! ```json
//! {"format": "amgcomm-measured", "version": 1, "machine": "bluewaters",
//!  "ranks": 128, "nodes": 8, "ppn": 16, "iterations": 100, "warmup": 10,
//!  "levels": [{"level": 0, "spmv": {"seconds": 1.19e-4, "max_msgs": 19, "bytes": 840144},
//!              "spgemm": {"seconds": 1.46}}]}
//! ```
//!
//! May use `matrix`, `amg`, `machine`, `partition`, `comm`, `model`,
//! `measure`, and the ground floor (`output`, `memory`, `json_in`); its
//! files never import each other round a circle (`tests/layering.rs`).

use std::collections::BTreeMap;

mod amgcomm_json;
pub mod caliper;
pub mod petsc_log;
pub mod raptor_log;

use amgcomm_json::parse_json;
pub use amgcomm_json::{MeasuredFile, MeasuredLevel, FORMAT};
use raptor_log::parse_raptor;

use serde::{Deserialize, Serialize};

use crate::comm::Op;

/// What was measured of one operation on one level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredOp {
    /// Seconds of one exchange: the slowest rank's (RAPtor's `Comm Time`;
    /// a replay's median over iterations of the maximum over ranks).
    pub seconds: f64,
    /// A replay's fastest iteration (maximum over ranks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_seconds: Option<f64>,
    /// The most messages one rank sent (`Max Num Msgs`; a replay counts
    /// every step of a node-aware exchange).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_msgs: Option<u64>,
    /// Messages over all ranks (and steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    /// Bytes over all messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Bytes over the messages between nodes: RAPtor's `Total Bytes`,
    /// which sums only its off-node classes (`size_short + size_eager +
    /// size_rend` in util/linalg/par_spmv.cpp and par_matmult.cpp; the
    /// `Node` and `Socket` classes are on-node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inter_node_bytes: Option<u64>,
    /// Ranks taking part (`Num Active Processes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_processes: Option<usize>,
}

/// A measured run: where it came from and, per level, its operations.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// `raptor` or `amgcomm`.
    pub format: &'static str,
    /// Ranks of the run, when the file states them.
    pub ranks: Option<usize>,
    /// The machine, when the file names it.
    pub machine: Option<String>,
    /// The exchange strategy replayed, when the file states it.
    pub strategy: Option<String>,
    /// Per level (0 the finest), its operations.
    pub levels: Levels,
    /// The same run's measurements under other exchange strategies, by
    /// strategy name (benchmark_matops's `TAP` blocks: `node-aware-3`).
    pub others: BTreeMap<String, Levels>,
    /// What a profile timed of whole phases of a level's solve (Caliper,
    /// PETSc), where it does not time single operations.
    pub phases: LevelPhases,
    /// How the reader read the file, one sentence each, for the report.
    pub notes: Vec<String>,
}

/// A part of a level's solve that a profile times as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// All of the level's communication in the solve (Caliper: MPI
    /// point-to-point below `MG level L`).
    Solve,
    /// The smoother's sweeps (PETSc's `MGSmooth Level k`).
    Smooth,
    /// The residual `b - A x` (PETSc's `MGResid Level k`).
    Residual,
    /// Interpolation and restriction (PETSc's `MGInterp Level k`).
    Transfer,
}

impl Phase {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Solve => "solve",
            Phase::Smooth => "smooth",
            Phase::Residual => "residual",
            Phase::Transfer => "transfer",
        }
    }
}

/// What a profile measured of one phase of one level, over the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PhaseMeasured {
    /// The profile's own name for it.
    pub event: String,
    /// Times it was entered, when the profile counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
    /// Seconds over the run (the slowest rank's).
    pub seconds: f64,
    /// Messages over all ranks and calls, when counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<f64>,
    /// Bytes per message, on average, when counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub avg_bytes: Option<f64>,
}

/// Per level (0 the finest), what was measured of its phases.
pub type LevelPhases = BTreeMap<usize, BTreeMap<Phase, PhaseMeasured>>;

/// Per level (0 the finest), the measured operations.
pub type Levels = BTreeMap<usize, BTreeMap<Op, MeasuredOp>>;

impl Measured {
    /// The measurement of `op` on `level`, if the file has one.
    pub fn get(&self, level: usize, op: Op) -> Option<&MeasuredOp> {
        self.levels.get(&level)?.get(&op)
    }

    /// The levels measured under `strategy` (its name): the file's own
    /// when it is the one the file states (standard when it states none),
    /// else one of [`Measured::others`].
    pub fn under(&self, strategy: &str) -> Option<&Levels> {
        if self.strategy.as_deref().unwrap_or("standard") == strategy {
            Some(&self.levels)
        } else {
            self.others.get(strategy)
        }
    }

    /// A profile's measurement: phases of levels, no single operations.
    pub fn of_phases(
        format: &'static str,
        ranks: Option<usize>,
        phases: LevelPhases,
        notes: Vec<String>,
    ) -> Measured {
        Measured {
            format,
            ranks,
            machine: None,
            strategy: None,
            levels: Levels::new(),
            others: BTreeMap::new(),
            phases,
            notes,
        }
    }

    /// Levels the file covers: one past its deepest.
    pub fn depth(&self) -> usize {
        let ops = self.levels.keys().next_back().map_or(0, |l| l + 1);
        let phases = self.phases.keys().next_back().map_or(0, |l| l + 1);
        ops.max(phases)
    }

    /// The most ranks any operation of the file had taking part.
    pub fn max_active(&self) -> Option<usize> {
        (self.levels.values())
            .flat_map(|ops| ops.values())
            .filter_map(|m| m.active_processes)
            .max()
    }
}

/// Why a measured file does not read: one sentence, with the line when
/// one is to blame.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}{problem}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
pub struct MeasuredError {
    /// 1-based line, if one is to blame.
    pub line: Option<usize>,
    /// What is wrong.
    pub problem: String,
}

pub(crate) fn fail(line: Option<usize>, problem: impl Into<String>) -> MeasuredError {
    MeasuredError {
        line,
        problem: problem.into(),
    }
}

/// Reads a measured file's text in either format.
pub fn parse(text: &str) -> Result<Measured, MeasuredError> {
    if text.trim_start().starts_with('{') {
        // A Caliper profile by its sections; else amgcomm's schema, whose
        // reader names what is wrong.
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(v) if caliper::is_profile(&v) => caliper::parse_profile(&v),
            Ok(_) => parse_json(text),
            // Not JSON at all (cut short, a number beyond f64, nested past
            // serde_json's recursion limit of 128): no reader would read it.
            Err(e) => {
                let m = e.to_string();
                let m = m.rsplit_once(" at line ").map_or(m.as_str(), |(m, _)| m);
                Err(fail(Some(e.line()), format!("not valid JSON: {m}")))
            }
        }
    } else if petsc_log::is_log(text) {
        petsc_log::parse_log(text)
    } else {
        parse_raptor(text)
    }
}

pub(crate) fn check_seconds(line: Option<usize>, s: f64) -> Result<(), MeasuredError> {
    if s.is_finite() && s >= 0.0 {
        Ok(())
    } else {
        Err(fail(line, format!("a time of {s} s is not a measurement")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_json_schema() {
        let text = r#"{"format": "amgcomm-measured", "version": 1, "machine": "bluewaters",
            "ranks": 128, "iterations": 100, "warmup": 10,
            "levels": [{"level": 0, "spmv": {"seconds": 1.5e-4, "max_msgs": 19, "bytes": 840144},
                        "spgemm": {"seconds": 1.4}},
                       {"level": 1, "spmv": {"seconds": 2e-4}}]}"#;
        let m = parse(text).unwrap();
        assert_eq!((m.format, m.ranks, m.depth()), ("amgcomm", Some(128), 2));
        assert_eq!(m.get(0, Op::Spmv).unwrap().max_msgs, Some(19));
        assert_eq!(m.get(1, Op::Spmv).unwrap().seconds, 2e-4);
        let e = parse(&text.replace("\"version\": 1", "\"version\": 2")).unwrap_err();
        assert!(
            e.to_string()
                .contains("expected amgcomm-measured version 1"),
            "{e}"
        );
        let e = parse(&text.replace("max_msgs", "max_messages")).unwrap_err();
        assert!(
            e.to_string().contains("unknown field `max_messages`"),
            "{e}"
        );
    }
}
