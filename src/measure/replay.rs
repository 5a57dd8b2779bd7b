//! `amgcomm replay`, the part without MPI: which saved patterns to
//! replay ([`pattern_files`]), what one rank sends and receives in each
//! ([`RankPart`]); the measured JSON the timings become is
//! [`crate::measured::MeasuredFile::of_replay`].
//!
//! A rank reads only its own messages: the records it sends, found by
//! binary search in each step ([`crate::comm::pattern_file::PatternIndex::sent_by`]);
//! what it receives it learns from the senders (an `MPI_Alltoallv` of
//! sizes before any timing), so no rank ever holds the whole pattern.

use std::path::Path;

use crate::comm::pattern_file::{self, PatternError, PatternIndex};
use crate::comm::{Message, Op, OPS};

/// Why saved patterns cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The folder cannot be listed.
    #[error("{dir}: {}", crate::output::reason(.source))]
    Folder {
        /// The folder.
        dir: String,
        /// Why.
        source: std::io::Error,
    },
    /// No pattern file of the operations asked for.
    #[error("{dir}: no {ops} pattern files (level{{l}}_{{op}}.amgpat, written by amgcomm analyze --save-patterns DIR)")]
    NoFiles {
        /// The folder.
        dir: String,
        /// The operations, joined by `, `.
        ops: String,
    },
    /// A file does not read.
    #[error(transparent)]
    Pattern(#[from] PatternError),
    /// Files of one folder saved for different layouts.
    #[error("{file}: saved for {this}, but {first} was saved for {other}; save a hierarchy's patterns into a folder of their own")]
    Mixed {
        /// The odd file.
        file: String,
        /// Its layout.
        this: String,
        /// The first file.
        first: String,
        /// The first file's layout.
        other: String,
    },
    /// The run's rank count is not the saved layout's.
    #[error("the patterns in {dir} were saved for {saved} ranks ({nodes} nodes x {ppn}), this run has {running}: start it with mpirun -n {saved}")]
    Ranks {
        /// The folder.
        dir: String,
        /// Ranks saved.
        saved: usize,
        /// Nodes saved.
        nodes: usize,
        /// Ranks per node saved.
        ppn: usize,
        /// Ranks running.
        running: usize,
    },
    /// A message too large for one MPI call (its count is a C int).
    #[error("{file}: a message of {bytes} bytes from rank {from} is beyond MPI's 2^31 - 1 count")]
    TooLarge {
        /// The file.
        file: String,
        /// Its sender.
        from: u32,
        /// Its size.
        bytes: u64,
    },
}

/// The pattern files of `ops` in `dir` (headers only), by level, then
/// operation; all saved for one layout.
pub fn pattern_files(dir: &Path, ops: &[Op]) -> Result<Vec<PatternIndex>, ReplayError> {
    let folder = |source| ReplayError::Folder {
        dir: dir.display().to_string(),
        source,
    };
    let mut found: Vec<(usize, usize, std::path::PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(folder)? {
        let entry = entry.map_err(folder)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !pattern_file::is_pattern_file(&name) {
            continue;
        }
        for (k, op) in OPS.iter().enumerate() {
            let suffix = format!("_{}.{}", op.name(), pattern_file::EXTENSION);
            let level = name
                .strip_prefix("level")
                .and_then(|r| r.strip_suffix(&suffix))
                .and_then(|l| l.parse::<usize>().ok());
            if let (Some(l), true) = (level, ops.contains(op)) {
                found.push((l, k, entry.path()));
            }
        }
    }
    if found.is_empty() {
        let names: Vec<&str> = ops.iter().map(|o| o.name()).collect();
        return Err(ReplayError::NoFiles {
            dir: dir.display().to_string(),
            ops: names.join(", "),
        });
    }
    found.sort();
    let files = found
        .into_iter()
        .map(|(_, _, path)| pattern_file::open(&path))
        .collect::<Result<Vec<_>, _>>()?;
    let layout = |p: &PatternIndex| {
        format!(
            "{} ranks ({} nodes x {}) of machine {}",
            p.ranks(),
            p.layout.nodes,
            p.layout.ppn,
            p.layout.machine
        )
    };
    let first = &files[0];
    for f in &files[1..] {
        let same = f.layout.node_of_rank == first.layout.node_of_rank
            && (f.layout.nodes, f.layout.ppn) == (first.layout.nodes, first.layout.ppn);
        let strategy = f.op == Op::Ptap || first.op == Op::Ptap || f.strategy == first.strategy;
        if !same || !strategy {
            let with = |p: &PatternIndex| format!("{}, {} exchanges", layout(p), p.strategy.name());
            return Err(ReplayError::Mixed {
                file: f.path.display().to_string(),
                this: with(f),
                first: first.path.display().to_string(),
                other: with(first),
            });
        }
    }
    Ok(files)
}

/// Whether the saved layout has `running` ranks.
pub fn check_ranks(dir: &Path, files: &[PatternIndex], running: usize) -> Result<(), ReplayError> {
    let f = &files[0];
    if f.ranks() != running {
        return Err(ReplayError::Ranks {
            dir: dir.display().to_string(),
            saved: f.ranks(),
            nodes: f.layout.nodes,
            ppn: f.layout.ppn,
            running,
        });
    }
    Ok(())
}

/// One rank's part of one pattern file: per step, the (receiver, bytes)
/// of each message it sends, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankPart {
    /// Per step, what the rank sends.
    pub sends: Vec<Vec<(u32, u64)>>,
}

impl RankPart {
    /// Reads `rank`'s messages of every step of `file` (its records
    /// only), each checked to fit one MPI call.
    pub fn read(file: &PatternIndex, rank: u32) -> Result<RankPart, ReplayError> {
        let mut sends = Vec::with_capacity(file.steps.len());
        for k in 0..file.steps.len() {
            let msgs: Vec<Message> = file.sent_by(k, rank)?;
            if let Some(m) = msgs.iter().find(|m| m.bytes > i32::MAX as u64) {
                return Err(ReplayError::TooLarge {
                    file: file.path.display().to_string(),
                    from: m.from,
                    bytes: m.bytes,
                });
            }
            sends.push(msgs.iter().map(|m| (m.to, m.bytes)).collect());
        }
        Ok(RankPart { sends })
    }

    /// Messages sent over all steps.
    pub fn messages(&self) -> u64 {
        self.sends.iter().map(|s| s.len() as u64).sum()
    }

    /// Bytes sent over all steps.
    pub fn bytes(&self) -> u64 {
        self.sends.iter().flatten().map(|m| m.1).sum()
    }
}

/// What was replayed of one level's operation: per timed iteration the
/// slowest rank's seconds, and the pattern's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    /// The level.
    pub level: usize,
    /// The operation.
    pub op: Op,
    /// Per timed iteration, the maximum over ranks (s).
    pub seconds: Vec<f64>,
    /// The most messages one rank sent (all steps).
    pub max_msgs: u64,
    /// Messages over all ranks and steps.
    pub messages: u64,
    /// Bytes over all ranks and steps.
    pub bytes: u64,
    /// Ranks that sent or received a message.
    pub active: usize,
}

/// The run, besides its timings.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The saved machine's name.
    pub machine: String,
    /// Ranks.
    pub ranks: usize,
    /// Nodes and ranks per node of the saved layout.
    pub nodes: usize,
    /// Ranks per node of the saved layout.
    pub ppn: usize,
    /// Nodes MPI reported.
    pub real_nodes: usize,
    /// The MPI library.
    pub mpi_library: String,
    /// The spmv and spgemm strategy of the saved patterns.
    pub strategy: String,
    /// Timed iterations.
    pub iterations: u64,
    /// Warm-up iterations.
    pub warmup: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::node_aware::Strategy;
    use crate::comm::Pattern;
    use crate::machine::Machine;

    fn save(dir: &Path, level: usize, op: Op, m: &Machine, strategy: Strategy) {
        let msgs = vec![
            Message {
                from: 0,
                to: 1,
                bytes: 16,
                runs: 1,
            },
            Message {
                from: 1,
                to: 0,
                bytes: 24,
                runs: 1,
            },
            Message {
                from: 1,
                to: 2,
                bytes: 8,
                runs: 1,
            },
        ];
        let steps = vec![(op.name().to_string(), Pattern { op, messages: msgs })];
        pattern_file::write(
            &dir.join(pattern_file::file_name(level, op)),
            level,
            op,
            strategy,
            m,
            &steps,
        )
        .unwrap();
    }

    fn machine(nodes: usize) -> Machine {
        Machine {
            nodes,
            ppn: 2,
            ..Machine::bluewaters()
        }
    }

    #[test]
    fn files_come_by_level_and_operation_and_one_layout() {
        let d = tempfile::tempdir().unwrap();
        let m = machine(2);
        for l in [0, 1, 10] {
            for op in OPS {
                save(d.path(), l, op, &m, Strategy::Standard);
            }
        }
        std::fs::write(d.path().join("notes.txt"), "mine").unwrap();
        let files = pattern_files(d.path(), &[Op::Spmv, Op::Spgemm]).unwrap();
        let order: Vec<(usize, Op)> = files.iter().map(|f| (f.level, f.op)).collect();
        assert_eq!(
            order,
            [
                (0, Op::Spmv),
                (0, Op::Spgemm),
                (1, Op::Spmv),
                (1, Op::Spgemm),
                (10, Op::Spmv),
                (10, Op::Spgemm)
            ]
        );
        assert_eq!(pattern_files(d.path(), &OPS).unwrap().len(), 3 * OPS.len());
        assert!(check_ranks(d.path(), &files, 4).is_ok());
        let e = check_ranks(d.path(), &files, 3).unwrap_err().to_string();
        assert!(
            e.contains("saved for 4 ranks (2 nodes x 2), this run has 3"),
            "{e}"
        );
        // Another layout in the same folder.
        save(d.path(), 2, Op::Spmv, &machine(3), Strategy::Standard);
        let e = pattern_files(d.path(), &[Op::Spmv])
            .unwrap_err()
            .to_string();
        assert!(e.contains("level2_spmv.amgpat: saved for 6 ranks"), "{e}");
        // No file of the operation asked for.
        let empty = tempfile::tempdir().unwrap();
        let e = pattern_files(empty.path(), &[Op::Ptap])
            .unwrap_err()
            .to_string();
        assert!(e.contains("no ptap pattern files"), "{e}");
    }

    #[test]
    fn a_rank_part_is_its_sends() {
        let d = tempfile::tempdir().unwrap();
        save(d.path(), 0, Op::Spmv, &machine(2), Strategy::Standard);
        let f = pattern_file::open(&d.path().join("level0_spmv.amgpat")).unwrap();
        let p = RankPart::read(&f, 1).unwrap();
        assert_eq!(p.sends, vec![vec![(0, 24), (2, 8)]]);
        assert_eq!((p.messages(), p.bytes()), (2, 32));
        assert_eq!(RankPart::read(&f, 3).unwrap().messages(), 0);
    }

    #[test]
    fn the_measured_file_has_medians_and_minima() {
        let run = Run {
            machine: "loop".into(),
            ranks: 8,
            nodes: 2,
            ppn: 4,
            real_nodes: 1,
            mpi_library: "Open MPI".into(),
            strategy: "standard".into(),
            iterations: 4,
            warmup: 1,
        };
        let r = |level, op, seconds: &[f64]| Replayed {
            level,
            op,
            seconds: seconds.to_vec(),
            max_msgs: 3,
            messages: 10,
            bytes: 800,
            active: 8,
        };
        let f = crate::measured::MeasuredFile::of_replay(
            &run,
            &[
                r(0, Op::Spmv, &[4.0, 1.0, 3.0, 2.0]),
                r(0, Op::Spgemm, &[5.0, 5.0, 6.0, 9.0]),
                r(1, Op::Spmv, &[1.0, 1.0, 1.0, 1.0]),
            ],
        );
        assert_eq!(f.levels.len(), 2);
        let s = f.levels[0].spmv.unwrap();
        assert_eq!((s.seconds, s.min_seconds), (2.5, Some(1.0)));
        assert_eq!(f.levels[0].spgemm.unwrap().seconds, 5.5);
        assert!(f.levels[1].spgemm.is_none());
        // Written and read back through --measured's reader.
        let text = serde_json::to_string_pretty(&f).unwrap();
        let m = crate::measured::parse(&text).unwrap();
        assert_eq!(
            (m.ranks, m.strategy.as_deref()),
            (Some(8), Some("standard"))
        );
        assert_eq!(m.get(0, Op::Spmv).unwrap().max_msgs, Some(3));
        assert_eq!(m.get(1, Op::Spmv).unwrap().seconds, 1.0);
    }
}
