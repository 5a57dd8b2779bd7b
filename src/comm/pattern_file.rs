//! Patterns on disk: one file per level and operation
//! (`level{l}_{op}.amgpat`), with the rank layout it was extracted on, so
//! that another program (an MPI replay, a script) can read it back.
//!
//! # Format (version 1)
//!
//! ```text
//! amgcomm-pattern 1\n
//! {JSON header on one line}\n
//! node of each rank: ranks x u32, little-endian
//! messages of step 0, then of step 1, ...: 20 bytes each, little-endian:
//!     from u32, to u32, bytes u64, runs u32
//! ```
//!
//! The header: `{"level", "op", "strategy", "machine", "nodes", "ppn",
//! "sockets_per_node", "placement", "ranks", "steps": [{"name",
//! "messages"}]}`. `placement` is written as in machine files (`"smp"`,
//! `"round-robin"`, `{"random": {"seed": S}}`); the rank-to-node table
//! repeats it explicitly. A standard exchange has one step named after
//! its operation; a node-aware strategy's steps are `on-node`, `gather`,
//! ... Messages of a step are in (from, to) order. The file's size is
//! exactly what the header announces, which the reader checks before it
//! allocates anything.
//!
//! Writing and reading go at disk speed: 8192 ranks and millions of
//! messages take well under a second each (`scripts/bench.sh patterns`).

use std::io::{BufWriter, Read, Write};
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::node_aware::Strategy;
use super::{Message, Op, Pattern};
use crate::machine::{Machine, Placement};

/// The first line of every pattern file.
pub const MAGIC: &str = "amgcomm-pattern 1";
/// Bytes of one message record.
pub const RECORD: usize = 20;
/// The extension of pattern files.
pub const EXTENSION: &str = "amgpat";

/// Where the ranks of a saved pattern ran.
#[derive(Clone, Debug, PartialEq)]
pub struct RankLayout {
    /// The machine's name.
    pub machine: String,
    /// Nodes.
    pub nodes: usize,
    /// Ranks per node.
    pub ppn: usize,
    /// Sockets per node.
    pub sockets_per_node: usize,
    /// The placement rule.
    pub placement: Placement,
    /// `node_of_rank[r]`: the node of rank `r`.
    pub node_of_rank: Vec<u32>,
}

/// A pattern file's content.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedPattern {
    /// Level index.
    pub level: usize,
    /// The operation.
    pub op: Op,
    /// The exchange strategy.
    pub strategy: Strategy,
    /// Where the ranks ran.
    pub layout: RankLayout,
    /// The steps' names and messages (one step for a standard exchange).
    pub steps: Vec<(String, Pattern)>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    level: usize,
    op: String,
    strategy: Strategy,
    machine: String,
    nodes: usize,
    ppn: usize,
    sockets_per_node: usize,
    placement: Placement,
    ranks: usize,
    steps: Vec<StepHeader>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepHeader {
    name: String,
    messages: u64,
}

/// A pattern file that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum PatternError {
    /// The file cannot be opened, read or written.
    #[error("{path}: {}", crate::output::reason(.source))]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The folder cannot take the patterns
    /// ([`crate::output::check_folder`]).
    #[error("{path}: {problem}")]
    Folder {
        /// The folder.
        path: String,
        /// Why.
        problem: crate::output::OutputProblem,
    },
    /// The file is not a pattern file of this version, or is damaged.
    #[error("{path}: {problem}")]
    Format {
        /// The file.
        path: String,
        /// What is wrong.
        problem: String,
    },
}

/// Whether a file of that name is a pattern file (`level{l}_{op}.amgpat`
/// for spmv, spgemm or ptap, as [`file_name`] makes): the only files a patterns folder may hold
/// before it is replaced.
pub fn is_pattern_file(name: &str) -> bool {
    super::OPS.iter().any(|op| {
        let suffix = format!("_{}.{EXTENSION}", op.name());
        let level = name
            .strip_prefix("level")
            .and_then(|r| r.strip_suffix(&suffix));
        level.is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Whether `dir` may be replaced by a folder of pattern files: it does not
/// exist, or holds pattern files only, no folders (a user's other files are
/// never swept away).
pub fn check_folder(dir: &Path) -> Result<(), PatternError> {
    crate::output::check_folder(dir, is_pattern_file).map_err(|problem| PatternError::Folder {
        path: dir.display().to_string(),
        problem,
    })
}

/// The file name of level `level`'s `op`.
pub fn file_name(level: usize, op: Op) -> String {
    format!("level{level}_{}.{EXTENSION}", op.name())
}

/// Writes `steps` of `op` on `level`, extracted on `m` under `strategy`,
/// to `path` (atomically).
pub fn write(
    path: &Path,
    level: usize,
    op: Op,
    strategy: Strategy,
    m: &Machine,
    steps: &[(String, Pattern)],
) -> Result<(), PatternError> {
    let header = Header {
        level,
        op: op.name().to_string(),
        strategy,
        machine: m.name.clone(),
        nodes: m.nodes,
        ppn: m.ppn,
        sockets_per_node: m.sockets_per_node,
        placement: m.placement,
        ranks: m.ranks(),
        steps: steps
            .iter()
            .map(|(name, p)| StepHeader {
                name: name.clone(),
                messages: p.messages.len() as u64,
            })
            .collect(),
    };
    let places = m.places();
    crate::output::write_atomically(path, |tmp| {
        let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
        writeln!(out, "{MAGIC}")?;
        serde_json::to_writer(&mut out, &header)?;
        writeln!(out)?;
        for r in 0..m.ranks() {
            out.write_all(&places.node_of(r as u32).to_le_bytes())?;
        }
        let mut buf = Vec::new();
        for (_, p) in steps {
            // Encoded in parallel a million messages at a time.
            for chunk in p.messages.chunks(1 << 20) {
                buf.resize(chunk.len() * RECORD, 0);
                buf.par_chunks_mut(RECORD)
                    .zip(chunk)
                    .for_each(|(rec, msg)| encode(msg, rec));
                out.write_all(&buf)?;
            }
        }
        out.flush()
    })
    .map_err(|source| PatternError::Io {
        path: path.display().to_string(),
        source,
    })
}

fn encode(msg: &Message, rec: &mut [u8]) {
    rec[0..4].copy_from_slice(&msg.from.to_le_bytes());
    rec[4..8].copy_from_slice(&msg.to.to_le_bytes());
    rec[8..16].copy_from_slice(&msg.bytes.to_le_bytes());
    rec[16..20].copy_from_slice(&msg.runs.to_le_bytes());
}

fn decode(rec: &[u8]) -> Message {
    let u32_at = |k: usize| u32::from_le_bytes(rec[k..k + 4].try_into().expect("4 bytes"));
    Message {
        from: u32_at(0),
        to: u32_at(4),
        bytes: u64::from_le_bytes(rec[8..16].try_into().expect("8 bytes")),
        runs: u32_at(16),
    }
}

/// A pattern file's header and where its steps lie, read without its
/// messages ([`open`]): what a replaying rank needs before it reads its
/// own messages ([`PatternIndex::sent_by`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PatternIndex {
    /// The file.
    pub path: std::path::PathBuf,
    /// Level index.
    pub level: usize,
    /// The operation.
    pub op: Op,
    /// The exchange strategy.
    pub strategy: Strategy,
    /// Where the ranks ran.
    pub layout: RankLayout,
    /// The steps, in order.
    pub steps: Vec<StepIndex>,
}

/// One step of a pattern file.
#[derive(Clone, Debug, PartialEq)]
pub struct StepIndex {
    /// `spmv`, `on-node`, `gather`, ...
    pub name: String,
    /// Its messages.
    pub messages: u64,
    /// Byte offset of its first record.
    pub offset: u64,
}

impl PatternIndex {
    /// Ranks of the saved layout.
    pub fn ranks(&self) -> usize {
        self.layout.node_of_rank.len()
    }

    /// Messages over all steps.
    pub fn messages(&self) -> u64 {
        self.steps.iter().map(|s| s.messages).sum()
    }

    fn bad(&self, problem: String) -> PatternError {
        PatternError::Format {
            path: self.path.display().to_string(),
            problem,
        }
    }

    fn io(&self, source: std::io::Error) -> PatternError {
        PatternError::Io {
            path: self.path.display().to_string(),
            source,
        }
    }

    /// The messages `rank` sends in step `step`, read from the file alone:
    /// the step's records come by sender, so two binary searches of
    /// 4-byte reads find the rank's range, and only that range is read.
    /// Memory and reading are O(the rank's messages + log of the step's),
    /// whatever the file's size, as a replaying rank needs at scale.
    pub fn sent_by(&self, step: usize, rank: u32) -> Result<Vec<Message>, PatternError> {
        use std::os::unix::fs::FileExt;
        let s = &self.steps[step];
        let file = std::fs::File::open(&self.path).map_err(|e| self.io(e))?;
        let from_at = |i: u64| -> Result<u32, PatternError> {
            let mut b = [0u8; 4];
            file.read_exact_at(&mut b, s.offset + i * RECORD as u64)
                .map_err(|e| self.io(e))?;
            Ok(u32::from_le_bytes(b))
        };
        // The first record whose sender is at least `r`.
        let lower_bound = |r: u32| -> Result<u64, PatternError> {
            let (mut lo, mut hi) = (0u64, s.messages);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if from_at(mid)? < r {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            Ok(lo)
        };
        let first = lower_bound(rank)?;
        let end = lower_bound(rank.saturating_add(1))?;
        let count = end.saturating_sub(first) as usize;
        let mut bytes = vec![0u8; count * RECORD];
        file.read_exact_at(&mut bytes, s.offset + first * RECORD as u64)
            .map_err(|e| self.io(e))?;
        let msgs: Vec<Message> = bytes.chunks_exact(RECORD).map(decode).collect();
        let ranks = self.ranks() as u32;
        // A search over unsorted records finds someone else's messages.
        if let Some(m) = msgs.iter().find(|m| m.from != rank || m.to >= ranks) {
            return Err(self.bad(format!(
                "step {}: message {} -> {} where rank {rank}'s were expected: the records are not by sender or name a rank beyond the {ranks} ranks",
                s.name, m.from, m.to
            )));
        }
        Ok(msgs)
    }
}

/// Reads a pattern file's header and rank table, checks that its size is
/// what the header announces, and indexes its steps (no message is
/// read).
pub fn open(path: &Path) -> Result<PatternIndex, PatternError> {
    let name = path.display().to_string();
    let bad = |problem: String| PatternError::Format {
        path: name.clone(),
        problem,
    };
    let io = |source| PatternError::Io {
        path: name.clone(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    // The two text lines: at most 1 MiB, whatever the file is.
    let mut head = Vec::new();
    (&mut file)
        .take(1 << 20)
        .read_to_end(&mut head)
        .map_err(io)?;
    let line_end = |from: usize| {
        head[from..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|k| from + k)
    };
    let magic_end = line_end(0)
        .filter(|&e| &head[..e] == MAGIC.as_bytes())
        .ok_or_else(|| {
            bad(format!(
                "not an amgcomm pattern file (first line is not '{MAGIC}')"
            ))
        })?;
    let header_end = line_end(magic_end + 1)
        .ok_or_else(|| bad("the header line is missing or longer than 1 MiB".into()))?;
    let header = std::str::from_utf8(&head[magic_end + 1..header_end])
        .map_err(|_| bad("header: not UTF-8 text".into()))?;
    let h: Header =
        crate::json_in::from_str(header).map_err(|e| bad(format!("header: {}", e.message)))?;
    let op = super::OPS
        .into_iter()
        .find(|o| o.name() == h.op)
        .ok_or_else(|| bad(format!("header: unknown op '{}'", h.op)))?;
    if h.nodes == 0
        || h.ppn == 0
        || h.ranks != h.nodes.saturating_mul(h.ppn)
        || h.ranks > u32::MAX as usize
    {
        return Err(bad(format!(
            "header: {} ranks is not {} nodes x {} ppn",
            h.ranks, h.nodes, h.ppn
        )));
    }
    let messages = h
        .steps
        .iter()
        .try_fold(0u64, |n, s| n.checked_add(s.messages));
    let body = (h.ranks as u64)
        .checked_mul(4)
        .zip(messages.and_then(|m| m.checked_mul(RECORD as u64)))
        .and_then(|(a, b)| a.checked_add(b));
    let want = body.and_then(|b| b.checked_add(header_end as u64 + 1));
    if want != Some(size) {
        return Err(bad(format!(
            "the header announces {} ranks and {} messages, which is not the file's {size} bytes",
            h.ranks,
            messages.map_or("too many".to_string(), |m| m.to_string())
        )));
    }
    // The size matches the header: the rank table below is in the file.
    let table_at = header_end as u64 + 1;
    let mut table = vec![0u8; h.ranks * 4];
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut table, table_at).map_err(io)?;
    }
    let node_of_rank: Vec<u32> = table
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
        .collect();
    if let Some(r) = node_of_rank.iter().position(|&n| n as usize >= h.nodes) {
        return Err(bad(format!(
            "rank {r} is on node {}, but there are {} nodes",
            node_of_rank[r], h.nodes
        )));
    }
    let mut offset = table_at + table.len() as u64;
    let steps = h
        .steps
        .iter()
        .map(|s| {
            let step = StepIndex {
                name: s.name.clone(),
                messages: s.messages,
                offset,
            };
            offset += s.messages * RECORD as u64;
            step
        })
        .collect();
    Ok(PatternIndex {
        path: path.to_path_buf(),
        level: h.level,
        op,
        strategy: h.strategy,
        layout: RankLayout {
            machine: h.machine,
            nodes: h.nodes,
            ppn: h.ppn,
            sockets_per_node: h.sockets_per_node,
            placement: h.placement,
            node_of_rank,
        },
        steps,
    })
}

/// Reads a pattern file written by [`write()`], every message of it.
pub fn read(path: &Path) -> Result<SavedPattern, PatternError> {
    let index = open(path)?;
    let io = |e| index.io(e);
    let file = std::fs::File::open(path).map_err(io)?;
    let ranks = index.ranks() as u32;
    let mut steps = Vec::with_capacity(index.steps.len());
    for s in &index.steps {
        use std::os::unix::fs::FileExt;
        // The size was checked against the header: this is in the file.
        let mut records = vec![0u8; s.messages as usize * RECORD];
        file.read_exact_at(&mut records, s.offset).map_err(io)?;
        let msgs: Vec<Message> = records.par_chunks_exact(RECORD).map(decode).collect();
        if let Some(m) = msgs.iter().find(|m| m.from >= ranks || m.to >= ranks) {
            return Err(index.bad(format!(
                "step {}: message {} -> {} names a rank beyond the {} ranks",
                s.name, m.from, m.to, ranks
            )));
        }
        steps.push((
            s.name.clone(),
            Pattern {
                op: index.op,
                messages: msgs,
            },
        ));
    }
    Ok(SavedPattern {
        level: index.level,
        op: index.op,
        strategy: index.strategy,
        layout: index.layout,
        steps,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine() -> Machine {
        Machine {
            nodes: 4,
            ppn: 2,
            placement: Placement::Random { seed: 5 },
            ..Machine::bluewaters()
        }
    }

    fn steps() -> Vec<(String, Pattern)> {
        let msg = |from, to, bytes, runs| Message {
            from,
            to,
            bytes,
            runs,
        };
        vec![
            (
                "on-node".into(),
                Pattern {
                    op: Op::Spgemm,
                    messages: vec![msg(0, 1, 16, 1), msg(7, 6, 1 << 40, 3)],
                },
            ),
            (
                "inter-node".into(),
                Pattern {
                    op: Op::Spgemm,
                    messages: vec![msg(2, 5, 8000, u32::MAX)],
                },
            ),
        ]
    }

    #[test]
    fn round_trip_keeps_every_field() {
        let d = tempfile::tempdir().unwrap();
        let m = machine();
        let path = d.path().join(file_name(3, Op::Spgemm));
        assert!(path.ends_with("level3_spgemm.amgpat"));
        write(&path, 3, Op::Spgemm, Strategy::NodeAware3, &m, &steps()).unwrap();
        let size = std::fs::metadata(&path).unwrap().len();
        let s = read(&path).unwrap();
        assert_eq!(
            (s.level, s.op, s.strategy),
            (3, Op::Spgemm, Strategy::NodeAware3)
        );
        assert_eq!(s.steps, steps());
        assert_eq!(s.layout.placement, m.placement);
        assert_eq!(
            (s.layout.nodes, s.layout.ppn, s.layout.sockets_per_node),
            (4, 2, 2)
        );
        let nodes: Vec<u32> = (0..8).map(|r| m.node_of(r) as u32).collect();
        assert_eq!(s.layout.node_of_rank, nodes);
        // Body: 8 ranks x 4 bytes and 3 records of 20 bytes after the two
        // text lines.
        let bytes = std::fs::read(&path).unwrap();
        let second = (bytes.iter().enumerate())
            .filter(|(_, &b)| b == b'\n')
            .nth(1)
            .unwrap()
            .0;
        assert_eq!(size as usize, second + 1 + 8 * 4 + 3 * RECORD);
        assert!(bytes.starts_with(b"amgcomm-pattern 1\n{"));
    }

    #[test]
    fn damaged_files_are_refused_with_one_line() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("p.amgpat");
        write(&path, 0, Op::Spmv, Strategy::Standard, &machine(), &steps()).unwrap();
        let good = std::fs::read(&path).unwrap();
        let e = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            read(&path).unwrap_err().to_string()
        };
        assert!(e(&good[..good.len() - 1]).contains("is not the file's"));
        assert!(e(b"hello\n").contains("not an amgcomm pattern file"));
        assert!(e(&good[..10]).contains("not an amgcomm pattern file"));
        // A header that announces a billion messages in a small file costs
        // nothing: refused before any allocation.
        let text = String::from_utf8_lossy(&good).into_owned();
        let huge = text.replacen("\"messages\":2", "\"messages\":1000000000", 1);
        assert!(e(huge.as_bytes()).contains("1000000001 messages"));
        // A message to a rank beyond the machine.
        let mut bad = good.clone();
        let n = bad.len();
        bad[n - RECORD + 4..n - RECORD + 8].copy_from_slice(&99u32.to_le_bytes());
        assert!(e(&bad).contains("beyond the 8 ranks"));
        let missing = read(&d.path().join("none")).unwrap_err().to_string();
        assert!(missing.contains("none"));
        // A folder holds only pattern files before it may be replaced.
        let dir = d.path().join("patterns");
        std::fs::create_dir(&dir).unwrap();
        assert!(check_folder(&dir).is_ok());
        std::fs::write(dir.join(file_name(0, Op::Spmv)), b"").unwrap();
        assert!(check_folder(&dir).is_ok());
        std::fs::create_dir(dir.join("kept.amgpat")).unwrap();
        assert!(check_folder(&dir)
            .unwrap_err()
            .to_string()
            .contains("holds kept.amgpat"));
    }

    #[test]
    fn each_rank_reads_exactly_its_own_messages() {
        use rand::{Rng, SeedableRng};
        let d = tempfile::tempdir().unwrap();
        let m = Machine {
            nodes: 5,
            ppn: 3,
            ..Machine::bluewaters()
        };
        let ranks = m.ranks() as u32;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        // Two steps of random messages by (from, to), rank 4 sending none
        // in the first and rank 0 none in the second.
        let mut make = |skip: u32| {
            let mut msgs: Vec<Message> = (0..200)
                .map(|_| Message {
                    from: rng.gen_range(0..ranks),
                    to: rng.gen_range(0..ranks),
                    bytes: rng.gen_range(1..100_000),
                    runs: rng.gen_range(1..9),
                })
                .filter(|msg| msg.from != skip)
                .collect();
            msgs.sort_by_key(|msg| (msg.from, msg.to));
            Pattern {
                op: Op::Spmv,
                messages: msgs,
            }
        };
        let steps = vec![("a".to_string(), make(4)), ("b".to_string(), make(0))];
        let path = d.path().join(file_name(2, Op::Spmv));
        write(&path, 2, Op::Spmv, Strategy::NodeAware2, &m, &steps).unwrap();
        let index = open(&path).unwrap();
        assert_eq!(
            (index.ranks(), index.level, index.messages()),
            (
                15,
                2,
                (steps[0].1.messages.len() + steps[1].1.messages.len()) as u64
            )
        );
        for (k, (name, pat)) in steps.iter().enumerate() {
            assert_eq!(&index.steps[k].name, name);
            for r in 0..ranks {
                let want: Vec<Message> = pat
                    .messages
                    .iter()
                    .filter(|msg| msg.from == r)
                    .copied()
                    .collect();
                assert_eq!(index.sent_by(k, r).unwrap(), want, "step {name} rank {r}");
            }
            // A rank beyond the layout sends nothing.
            assert!(index.sent_by(k, ranks + 3).unwrap().is_empty());
        }
        assert!(index.sent_by(0, 4).unwrap().is_empty());
        assert!(index.sent_by(1, 0).unwrap().is_empty());
        // Records out of sender order: the search lands on another rank's
        // message, which is refused, not replayed.
        let mut unsorted = steps.clone();
        unsorted[0].1.messages.reverse();
        write(&path, 2, Op::Spmv, Strategy::NodeAware2, &m, &unsorted).unwrap();
        let index = open(&path).unwrap();
        let refused = (0..ranks).any(|r| {
            index
                .sent_by(0, r)
                .is_err_and(|e| e.to_string().contains("not by sender"))
        });
        assert!(refused);
    }
}
