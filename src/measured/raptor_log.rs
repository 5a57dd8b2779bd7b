//! RAPtor's per-level benchmark output, as printed for the EuroMPI'18
//! study (the reader of `--measured` for it): blocks `Level N`, then
//! `A*P:`, `A*x`, `P*e` and `P.T*r` (the elasticity runs; the grid
//! transfers in the format the authors' `plot_model.py` reads) or
//! benchmark_matops's `A Communication:`, `A TAP Communication:`, `A
//! Vector Communication`, `A Vector TAP Communication` and `P Vector
//! Communication` (`Pl->comm->communicate(x_{l+1})`: interp's exchange)
//! with its `TAP` twin (the `S` blocks and `P`'s matrix blocks are not
//! read), each followed by `Key: value` or `Key = value` lines.

use std::collections::BTreeMap;

use super::{check_seconds, fail, Levels, Measured, MeasuredError, MeasuredOp};
use crate::comm::node_aware::Strategy;
use crate::comm::Op;

/// An operation block being read: its fields so far.
struct Block {
    level: usize,
    op: Op,
    /// A `TAP` block: RAPtor's 3-step node-aware exchange.
    tap: bool,
    fields: MeasuredOp,
    seconds: Option<f64>,
}

impl Block {
    /// The block's measurement, once its `Comm Time` has been read.
    fn finish(self) -> Option<(bool, usize, Op, MeasuredOp)> {
        let seconds = self.seconds?;
        Some((
            self.tap,
            self.level,
            self.op,
            MeasuredOp {
                seconds,
                ..self.fields
            },
        ))
    }
}

/// What a block header names: an operation read (and whether through
/// `TAP`), or a block not read; `None` for any other line.
fn header(line: &str) -> Option<Option<(Op, bool)>> {
    Some(match line.trim_end_matches(':') {
        "A*x" => Some((Op::Spmv, false)),
        "A*P" => Some((Op::Spgemm, false)),
        "A Communication" => Some((Op::Aa, false)),
        "A TAP Communication" => Some((Op::Aa, true)),
        "A Vector Communication" => Some((Op::Spmv, false)),
        "A Vector TAP Communication" => Some((Op::Spmv, true)),
        "P*e" | "P Vector Communication" => Some((Op::Interp, false)),
        "P Vector TAP Communication" => Some((Op::Interp, true)),
        "P.T*r" => Some((Op::Restrict, false)),
        "S Communication"
        | "P Communication"
        | "S TAP Communication"
        | "P TAP Communication"
        | "S Vector Communication"
        | "S Vector TAP Communication"
        | "P.T*AP" => None,
        _ => return None,
    })
}

pub(super) fn parse_raptor(text: &str) -> Result<Measured, MeasuredError> {
    let mut levels: Levels = BTreeMap::new();
    let mut tap: Levels = BTreeMap::new();
    let mut level: Option<usize> = None;
    let mut block: Option<Block> = None;
    let mut store = |b: Block| {
        if let Some((through_tap, l, op, m)) = b.finish() {
            let into = if through_tap { &mut tap } else { &mut levels };
            into.entry(l).or_default().insert(op, m);
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
        if let Some(read) = header(line) {
            let Some(l) = level else {
                return Err(fail(Some(n), format!("'{line}' before any 'Level N' line")));
            };
            if let Some(b) = block.take() {
                store(b);
            }
            block = read.map(|(op, tap)| Block {
                level: l,
                op,
                tap,
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
            "Total Bytes" => b.fields.inter_node_bytes = Some(count()?),
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
            "no measured level: expected RAPtor's 'Level N', 'A*P:' and 'A*x' blocks (or benchmark_matops's 'A Communication:' and 'A Vector Communication') with 'Comm Time', or amgcomm's measured JSON",
        ));
    }
    let others = if tap.is_empty() {
        BTreeMap::new()
    } else {
        BTreeMap::from([(Strategy::NodeAware3.name(), tap)])
    };
    Ok(Measured {
        format: "raptor",
        ranks: None,
        machine: None,
        strategy: None,
        levels,
        others,
        phases: Default::default(),
        notes: Vec::new(),
    })
}

/// One `A*P:`, `A*x`, `P*e` or `P.T*r` block as RAPtor prints it: what
/// [`write()`] writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Printed {
    /// Its `Level N`.
    pub level: usize,
    /// `Spgemm` for `A*P:`, `Spmv` for `A*x`, `Interp` for `P*e`,
    /// `Restrict` for `P.T*r`.
    pub op: Op,
    /// `Max Num Msgs`.
    pub max_msgs: u64,
    /// `Total Bytes` (between nodes).
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
            Op::Interp => "P*e\n",
            Op::Restrict => "P.T*r\n",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A benchmark_matops log as RAPtor prints it, written here: per
    /// level the A, S and P blocks, standard and TAP, then the vectors.
    fn matops(levels: usize) -> String {
        let mut s = String::from("Begin Torque Prologue\nJob name: aniso_128\n\n");
        for l in 0..levels {
            s += &format!("Level {l}\n");
            for (k, block) in [
                "A Communication:",
                "S Communication:",
                "P Communication:",
                "A TAP Communication:",
                "S TAP Communication:",
                "P TAP Communication:",
                "A Vector Communication",
                "S Vector Communication",
                "P Vector Communication",
                "A Vector TAP Communication",
                "S Vector TAP Communication",
                "P Vector TAP Communication",
            ]
            .iter()
            .enumerate()
            {
                s += &format!("{block}\n");
                if block.contains("TAP") {
                    s += "Max Num L Msgs: 2\nMax Num G Msgs: 1\n";
                } else {
                    s += &format!("Max Num Msgs: {}\n", l + 2);
                }
                s += &format!(
                    "Total Bytes = {}\nNum Rend: 1\nByte Hops = 9\n",
                    1000 * (k + 1)
                );
                s += &format!("Num Active Processes: 128\nComm Time: {}e-05\n", k + 1);
            }
        }
        s
    }

    #[test]
    fn reads_benchmark_matops_blocks_and_their_tap_twins() {
        let m = parse_raptor(&matops(2)).unwrap();
        assert_eq!(m.depth(), 2);
        let aa = m.get(1, Op::Aa).unwrap();
        assert_eq!(
            (aa.seconds, aa.max_msgs, aa.inter_node_bytes),
            (1e-5, Some(3), Some(1000))
        );
        let x = m.get(0, Op::Spmv).unwrap();
        assert_eq!((x.seconds, x.inter_node_bytes), (7e-5, Some(7000)));
        // P's vector block is interp's exchange; the S blocks and P's
        // matrix blocks are not read; the TAP blocks are node-aware-3's.
        let e = m.get(1, Op::Interp).unwrap();
        assert_eq!(
            (e.seconds, e.max_msgs, e.inter_node_bytes),
            (9e-5, Some(3), Some(9000))
        );
        assert_eq!(m.levels[&0].len(), 3);
        let tap = m.under("node-aware-3").unwrap();
        assert_eq!(tap[&0][&Op::Aa].seconds, 4e-5);
        assert_eq!(tap[&0][&Op::Spmv].seconds, 1e-4);
        assert_eq!(tap[&0][&Op::Interp].seconds, 1.2e-4);
        assert_eq!(tap[&0].len(), 3);
        assert_eq!(tap[&0][&Op::Aa].max_msgs, None);
        assert!(m.under("node-aware-2").is_none());
        assert_eq!(m.under("standard"), Some(&m.levels));
    }

    #[test]
    fn a_cut_matops_log_keeps_its_complete_blocks() {
        let text = matops(2);
        // Cut inside level 1's A TAP block, before its Comm Time.
        let cut = &text[..text.rfind("A TAP Communication:").unwrap() + 40];
        let m = parse_raptor(cut).unwrap();
        assert!(m.get(1, Op::Aa).is_some());
        assert!(m.under("node-aware-3").unwrap().get(&1).is_none());
        assert!(m.get(1, Op::Spmv).is_none());
        // A block before any level, and a word for a number.
        let e = parse_raptor("A Communication:\nComm Time: 1\n").unwrap_err();
        assert!(e.to_string().contains("before any 'Level N'"), "{e}");
        let e = parse_raptor(&text.replacen("Comm Time: 1e-05", "Comm Time: soon", 1)).unwrap_err();
        assert!(e.to_string().contains("not a number"), "{e}");
    }

    #[test]
    fn the_elasticity_logs_read_as_before() {
        let blocks = [Printed {
            level: 0,
            op: Op::Spmv,
            max_msgs: 19,
            total_bytes: 840_144,
            active_processes: 128,
            comm_time: "1.193471e-04".into(),
        }];
        let m = parse_raptor(&write(&blocks, "")).unwrap();
        assert_eq!(m.get(0, Op::Spmv).unwrap().max_msgs, Some(19));
        assert!(m.others.is_empty() && m.get(0, Op::Aa).is_none());
    }

    #[test]
    fn the_grid_transfer_blocks_read_as_interp_and_restrict() {
        let block = |op, max_msgs, comm_time: &str| Printed {
            level: 2,
            op,
            max_msgs,
            total_bytes: 1000 * max_msgs,
            active_processes: 128,
            comm_time: comm_time.into(),
        };
        let blocks = [
            block(Op::Spmv, 9, "2.0e-04"),
            block(Op::Interp, 7, "3.5e-05"),
            block(Op::Restrict, 8, "4.5e-05"),
        ];
        let text = write(&blocks, "");
        assert!(text.contains("\nP*e\n") && text.contains("\nP.T*r\n"));
        let m = parse_raptor(&text).unwrap();
        let e = m.get(2, Op::Interp).unwrap();
        assert_eq!(
            (e.seconds, e.max_msgs, e.inter_node_bytes),
            (3.5e-5, Some(7), Some(7000))
        );
        let r = m.get(2, Op::Restrict).unwrap();
        assert_eq!((r.seconds, r.max_msgs), (4.5e-5, Some(8)));
        // A block ends at its Comm Time (RAPtor prints one): later lines
        // before the next header are not read.
        let twice = text.replacen("Comm Time: 3.5e-05", "Comm Time: 3.5e-05\nComm Time: 9", 1);
        assert_eq!(
            parse_raptor(&twice)
                .unwrap()
                .get(2, Op::Interp)
                .unwrap()
                .seconds,
            3.5e-5
        );
    }
}
