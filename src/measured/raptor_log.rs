//! RAPtor's per-level benchmark output, as printed for the EuroMPI'18
//! study (the reader of `--measured` for it): blocks `Level N`, then
//! `A*P:` and `A*x`, each followed by `Key: value` or `Key = value`
//! lines.

use std::collections::BTreeMap;

use super::{check_seconds, fail, Measured, MeasuredError, MeasuredOp};
use crate::comm::Op;

/// An operation block being read: its fields so far.
struct Block {
    level: usize,
    op: Op,
    fields: MeasuredOp,
    seconds: Option<f64>,
}

impl Block {
    /// The block's measurement, once its `Comm Time` has been read.
    fn finish(self) -> Option<(usize, Op, MeasuredOp)> {
        let seconds = self.seconds?;
        Some((
            self.level,
            self.op,
            MeasuredOp {
                seconds,
                ..self.fields
            },
        ))
    }
}

pub(super) fn parse_raptor(text: &str) -> Result<Measured, MeasuredError> {
    let mut levels: BTreeMap<usize, BTreeMap<Op, MeasuredOp>> = BTreeMap::new();
    let mut level: Option<usize> = None;
    let mut block: Option<Block> = None;
    let mut store = |b: Block| {
        if let Some((l, op, m)) = b.finish() {
            levels.entry(l).or_default().insert(op, m);
        }
    };
    for (k, raw) in text.lines().enumerate() {
        let n = k + 1;
        let line = raw.trim();
        if let Some(rest) = line.strip_prefix("Level ") {
            let l = rest
                .trim()
                .parse()
                .map_err(|_| fail(Some(n), format!("'{line}': expected Level N")))?;
            if let Some(b) = block.take() {
                store(b);
            }
            level = Some(l);
            continue;
        }
        let op = match line {
            "A*x" | "A*x:" => Some(Op::Spmv),
            "A*P" | "A*P:" => Some(Op::Spgemm),
            _ => None,
        };
        if let Some(op) = op {
            let Some(l) = level else {
                return Err(fail(Some(n), format!("'{line}' before any 'Level N' line")));
            };
            if let Some(b) = block.take() {
                store(b);
            }
            block = Some(Block {
                level: l,
                op,
                fields: MeasuredOp::default(),
                seconds: None,
            });
            continue;
        }
        // Before the first block: a prologue, a title. After a complete
        // block: an epilogue. Neither is read.
        let Some(b) = block.as_mut() else { continue };
        if b.seconds.is_some() {
            continue;
        }
        let Some((key, value)) = line.split_once([':', '=']) else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        let number = || {
            value.parse::<f64>().map_err(|_| {
                fail(
                    Some(n),
                    format!("'{key}' has value '{value}', not a number"),
                )
            })
        };
        let count = || {
            value
                .parse::<u64>()
                .map_err(|_| fail(Some(n), format!("'{key}' has value '{value}', not a count")))
        };
        match key {
            "Max Num Msgs" => b.fields.max_msgs = Some(count()?),
            "Total Bytes" => b.fields.bytes = Some(count()?),
            "Num Active Processes" => b.fields.active_processes = Some(count()? as usize),
            "Comm Time" => {
                let s = number()?;
                check_seconds(Some(n), s)?;
                b.seconds = Some(s);
            }
            _ => {}
        }
    }
    // A last block cut short (the run was killed there) is not measured;
    // the levels before it stand.
    if let Some(b) = block.take() {
        store(b);
    }
    if levels.is_empty() {
        return Err(fail(
            None,
            "no measured level: expected RAPtor's 'Level N', 'A*P:' and 'A*x' blocks with 'Comm Time', or amgcomm's measured JSON",
        ));
    }
    Ok(Measured {
        format: "raptor",
        ranks: None,
        machine: None,
        strategy: None,
        levels,
    })
}

/// One `A*P:` or `A*x` block as RAPtor prints it: what [`write`] writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Printed {
    /// Its `Level N`.
    pub level: usize,
    /// `Spgemm` for `A*P:`, `Spmv` for `A*x`.
    pub op: Op,
    /// `Max Num Msgs`.
    pub max_msgs: u64,
    /// `Total Bytes`.
    pub total_bytes: u64,
    /// `Num Active Processes`.
    pub active_processes: u64,
    /// `Comm Time`, as the text RAPtor printed (`1.193471e-04`).
    pub comm_time: String,
}

/// Text in RAPtor's format for `blocks` (in order): a batch system's
/// prologue, the benchmark's title, each level's `Level N` line and its
/// blocks, each with the counts RAPtor prints besides (by protocol and
/// locality, byte-hops; zeros here, amgcomm does not read them), then
/// `tail` (a killed run's last `Level N` and the batch system's
/// epilogue). For tests and fixtures of the reader: the project commits
/// no log RAPtor printed.
pub fn write(blocks: &[Printed], tail: &str) -> String {
    use std::fmt::Write as _;
    let mut s = String::from(
        "----------------------------------------\nBegin Torque Prologue\n\
         Job name:\t\tlin_elas_128\nEnd Torque Prologue:  0.100 elapsed\n\
         ----------------------------------------\n\n\nLinear Elasticity\n",
    );
    let mut level = None;
    for b in blocks {
        if level != Some(b.level) {
            let _ = writeln!(s, "Level {}", b.level);
            level = Some(b.level);
        }
        s += match b.op {
            Op::Spgemm => "A*P:\n",
            _ => "A*x\n",
        };
        let _ = writeln!(s, "Max Num Msgs: {}", b.max_msgs);
        let _ = writeln!(s, "Total Bytes = {}", b.total_bytes);
        for place in ["", " Node", " Socket"] {
            for what in ["Num", "Size"] {
                for proto in ["Short", "Eager", "Rend"] {
                    let _ = writeln!(s, "{what} {proto}{place}: 0");
                }
            }
        }
        s += "Byte Hops = 0\nWorst Byte Hops = 0\n";
        let _ = writeln!(s, "Num Active Processes: {}", b.active_processes);
        let _ = writeln!(s, "Comm Time: {}", b.comm_time);
    }
    s + tail
}
