//! `amgcomm replay`: saved patterns replayed under `mpirun` (feature
//! `mpi`), one rank per saved rank; a failure anywhere is agreed on by
//! all ranks and printed by rank 0 alone.

use std::path::PathBuf;

use clap::Args;

use super::Error;
use crate::comm::Op;

/// `amgcomm replay`'s flags.
#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// A folder `amgcomm analyze --save-patterns DIR` wrote.
    #[arg(value_name = "PATTERNS_DIR")]
    patterns: PathBuf,
    /// Timed iterations of every level's operation.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    iterations: u64,
    /// Untimed iterations before them.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    warmup: u64,
    /// The measured JSON to write (what analyze --measured reads).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Operations to replay, joined by ','; ptap when its patterns were
    /// saved (analyze saves them).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Op::Spmv, Op::Spgemm])]
    ops: Vec<Op>,
}

/// `amgcomm replay`.
#[cfg(not(feature = "mpi"))]
pub(crate) fn replay(_: &ReplayArgs) -> Result<(), Error> {
    Err(Error::Usage(format!("replay {}", super::calibrate::NO_MPI)))
}

#[cfg(feature = "mpi")]
pub(crate) use with_mpi::replay;

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;

    use super::super::mpi::{agree, failed, open};
    use crate::measure::mpi::{self, Session};
    use crate::measure::replay::{self as rep, RankPart, Run};
    use crate::output::Plan;
    use crate::report::{measurements as text, pretty_json};

    /// `amgcomm replay`.
    pub(crate) fn replay(a: &ReplayArgs) -> Result<(), Error> {
        let s = open()?;
        let dir = &a.patterns;
        let headers = || -> Result<Vec<crate::comm::pattern_file::PatternIndex>, Error> {
            if s.rank == 0 {
                let mut plan = Plan::new();
                plan.input(dir);
                plan.file("--out", &a.out)?;
            }
            let files = rep::pattern_files(dir, &a.ops).map_err(replay_error)?;
            rep::check_ranks(dir, &files, s.size).map_err(|e| Error::Usage(e.to_string()))?;
            Ok(files)
        };
        let files = agree(&s, headers())?;
        let parts = files
            .iter()
            .map(|f| RankPart::read(f, s.rank as u32))
            .collect::<Result<Vec<_>, _>>()
            .map_err(replay_error);
        let parts = agree(&s, parts)?;
        let t = agree(&s, mpi::topology(&s, None).map_err(Error::Usage))?;
        let first = &files[0];
        if s.rank == 0 && t.real_nodes != first.layout.nodes {
            super::super::warn(format!(
                "the patterns were saved for {} nodes x {}, this run has {} real node(s): messages the model calls network travel {}",
                first.layout.nodes,
                first.layout.ppn,
                t.real_nodes,
                if t.real_nodes == 1 { "through shared memory" } else { "between other nodes than modeled" }
            ));
        }
        let replayed = mpi::replay::replay(
            &s,
            &files,
            &parts,
            a.iterations as usize,
            a.warmup as usize,
            |r| {
                super::super::say(format_args!(
                    "amgcomm: level {} {}: {} ({} messages)",
                    r.level,
                    r.op.name(),
                    text::time3(crate::measure::fit::median(&r.seconds)),
                    r.messages
                ))
            },
        )
        .map_err(|f| failed(&s, f))?;
        let written = || -> Result<(), Error> {
            if s.rank != 0 {
                return Ok(());
            }
            let strategy = files
                .iter()
                .find(|f| f.op != Op::Ptap)
                .unwrap_or(first)
                .strategy
                .name();
            let run = Run {
                machine: first.layout.machine.clone(),
                ranks: s.size,
                nodes: first.layout.nodes,
                ppn: first.layout.ppn,
                real_nodes: t.real_nodes,
                mpi_library: Session::library_version(),
                strategy,
                iterations: a.iterations,
                warmup: a.warmup,
            };
            let f = crate::measured::MeasuredFile::of_replay(&run, &replayed);
            super::super::write_file(&a.out, &pretty_json(&f))?;
            super::super::emit(&format!(
                "{}measured times in {}\n",
                text::replayed(&f),
                a.out.display()
            ))
        };
        agree(&s, written())
    }

    fn replay_error(e: rep::ReplayError) -> Error {
        Error::Replay(e)
    }
}
