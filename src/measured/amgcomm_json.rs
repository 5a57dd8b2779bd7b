//! amgcomm's measured JSON ([`MeasuredFile`], schema version 1): its
//! schema, its reader ([`parse_json`], for `--measured`) and its writer
//! ([`MeasuredFile::of_replay`], for `amgcomm replay`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{check_seconds, fail, Measured, MeasuredError, MeasuredOp};
use crate::comm::Op;
use crate::measure::replay::{Replayed, Run};

/// amgcomm's measured JSON, version 1: what `amgcomm replay` writes and
/// `--measured` reads. Fields after `ranks` are optional; older files
/// without them read the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredFile {
    /// Always `amgcomm-measured`.
    pub format: String,
    /// Always 1.
    pub version: u32,
    /// The machine the replayed patterns were saved for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// Ranks of the run.
    pub ranks: usize,
    /// Nodes of the saved layout (virtual nodes on a loopback run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<usize>,
    /// Ranks per node of the saved layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ppn: Option<usize>,
    /// Nodes the run really had (ranks sharing memory, as MPI reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real_nodes: Option<usize>,
    /// `MPI_Get_library_version`'s first line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi_library: Option<String>,
    /// The exchange strategy the patterns were saved under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<String>,
    /// Timed iterations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// Untimed iterations before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<u64>,
    /// Per level, its measured operations.
    pub levels: Vec<MeasuredLevel>,
}

/// One level of a [`MeasuredFile`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredLevel {
    /// Level index, 0 the finest.
    pub level: usize,
    /// `A_l x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spmv: Option<MeasuredOp>,
    /// `A_l P_l`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spgemm: Option<MeasuredOp>,
    /// `P_l^T (A_l P_l)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptap: Option<MeasuredOp>,
    /// `A_l A_l` (rows of `A_l` along its halo).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aa: Option<MeasuredOp>,
    /// `P_l e_{l+1}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interp: Option<MeasuredOp>,
    /// `P_l^T r_l`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restrict: Option<MeasuredOp>,
}

impl MeasuredLevel {
    /// The slot of `op`.
    pub fn op_mut(&mut self, op: Op) -> &mut Option<MeasuredOp> {
        match op {
            Op::Spmv => &mut self.spmv,
            Op::Spgemm => &mut self.spgemm,
            Op::Ptap => &mut self.ptap,
            Op::Aa => &mut self.aa,
            Op::Interp => &mut self.interp,
            Op::Restrict => &mut self.restrict,
        }
    }
}

/// The `format` of [`MeasuredFile`].
pub const FORMAT: &str = "amgcomm-measured";

pub(super) fn parse_json(text: &str) -> Result<Measured, MeasuredError> {
    let f: MeasuredFile = crate::json_in::from_str(text).map_err(|e| {
        fail(
            e.line,
            format!("not amgcomm's measured JSON: {}", e.message),
        )
    })?;
    if f.format != FORMAT || f.version != 1 {
        return Err(fail(
            None,
            format!(
                "format '{}' version {}: expected {FORMAT} version 1",
                f.format, f.version
            ),
        ));
    }
    let mut levels: BTreeMap<usize, BTreeMap<Op, MeasuredOp>> = BTreeMap::new();
    for l in f.levels {
        let ops = levels.entry(l.level).or_default();
        for (op, m) in [
            (Op::Spmv, l.spmv),
            (Op::Spgemm, l.spgemm),
            (Op::Ptap, l.ptap),
            (Op::Aa, l.aa),
            (Op::Interp, l.interp),
            (Op::Restrict, l.restrict),
        ] {
            if let Some(m) = m {
                check_seconds(None, m.seconds)?;
                if let Some(min) = m.min_seconds {
                    check_seconds(None, min)?;
                }
                ops.insert(op, m);
            }
        }
    }
    Ok(Measured {
        format: "amgcomm",
        ranks: Some(f.ranks),
        machine: f.machine,
        strategy: f.strategy,
        levels,
        others: BTreeMap::new(),
        phases: Default::default(),
        notes: Vec::new(),
    })
}

impl MeasuredFile {
    /// The measured JSON of a replay: per level and operation, the median
    /// over iterations of the slowest rank (`seconds`) and the fastest
    /// iteration (`min_seconds`).
    pub fn of_replay(run: &Run, replayed: &[Replayed]) -> MeasuredFile {
        let mut levels: Vec<MeasuredLevel> = Vec::new();
        for r in replayed {
            if levels.last().is_none_or(|l| l.level != r.level) {
                levels.push(MeasuredLevel {
                    level: r.level,
                    spmv: None,
                    spgemm: None,
                    ptap: None,
                    aa: None,
                    interp: None,
                    restrict: None,
                });
            }
            let slot = levels.last_mut().expect("pushed").op_mut(r.op);
            *slot = Some(MeasuredOp {
                seconds: crate::measure::fit::median(&r.seconds),
                min_seconds: Some(r.seconds.iter().copied().fold(f64::INFINITY, f64::min)),
                max_msgs: Some(r.max_msgs),
                messages: Some(r.messages),
                bytes: Some(r.bytes),
                inter_node_bytes: None,
                active_processes: Some(r.active),
            });
        }
        MeasuredFile {
            format: FORMAT.into(),
            version: 1,
            machine: Some(run.machine.clone()),
            ranks: run.ranks,
            nodes: Some(run.nodes),
            ppn: Some(run.ppn),
            real_nodes: Some(run.real_nodes),
            mpi_library: Some(run.mpi_library.clone()),
            strategy: Some(run.strategy.clone()),
            iterations: Some(run.iterations),
            warmup: Some(run.warmup),
            levels,
        }
    }
}
