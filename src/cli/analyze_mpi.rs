//! `mpirun -n K amgcomm analyze` (feature `mpi`): the rank files read,
//! and the messages found, by `K` processes together
//! ([`crate::analysis::distributed`]); rank 0 charges them and writes the
//! report. One process (`mpirun -n 1`) is a serial run.

use super::analyze::{finish, serial, AnalyzeArgs};
use super::mpi::{agree, open, said};
use super::{Error, Progress};
use crate::analysis::request::{overlay_measured, read_measured};
use crate::analysis::{distributed, Input, Request, Run, Stages};
use crate::comm::node_aware::Strategy;
use crate::comm::Op;

pub(crate) fn run(args: &AnalyzeArgs) -> Result<(), Error> {
    let s = open()?;
    if s.size == 1 {
        return serial(args);
    }
    let mut stages = Stages::start();
    let asked = || {
        let request = args.request()?;
        let levels = inputs(&request, s.size)?;
        let ranks = request.machine.ranks();
        // Rank 0 lists the rank files; the rest learn a failure. Under
        // mpirun the files are the partition: no other is offered.
        if s.rank == 0 {
            request.check_input_ranks(request.input_ranks()?, false)?;
        }
        // Rank 0 alone writes, and reads the measured file.
        let mut measured = None;
        if s.rank == 0 {
            request.plan()?;
            if let Some(path) = &request.measured {
                measured = Some(read_measured(path, ranks)?);
            }
        }
        Ok((request, levels, measured))
    };
    let (request, levels, measured) = agree(&s, asked())?;
    let ranks = request.machine.ranks();
    let progress = match s.rank {
        0 => Progress::new(),
        _ => Progress::hidden(),
    };
    progress.say(format!(
        "{} processes reading {} level(s) written by {ranks} ranks",
        s.size,
        levels.len()
    ));
    let gathered =
        distributed::extract(&s, &levels, ranks, true).map_err(|f| said(&s, f, false))?;
    stages.lap("input and extraction");
    let written = || -> Result<(), Error> {
        let Some(g) = gathered else {
            return Ok(());
        };
        let events = |e| progress.event(e);
        let mut analysis =
            crate::analysis::analyze_extracted(g.levels, &request.machine, &request.options)
                .map_err(crate::analysis::RequestError::from)?;
        stages.record("extraction", analysis.seconds.extraction);
        stages.record("model", analysis.seconds.model);
        let rows: Vec<usize> = g.sizes.iter().map(|l| l.rows).collect();
        let warnings = crate::amg::diagnose::of_parts(g.diagonal, &rows, None);
        for w in &warnings {
            events(crate::analysis::request::Event::Warning(w.to_string()));
        }
        let measured = measured.map(|file| {
            let path = request.measured.as_deref().expect("read");
            let cycle = request.options.cycle.unwrap_or_default();
            overlay_measured(&mut analysis, file, path, &cycle, &events)
        });
        let first = &g.sizes[0];
        let (name, source) = match &request.input {
            Input::Levels(dir) => (
                dir.display().to_string(),
                format!(
                    "levels from {}, read by {} processes",
                    dir.display(),
                    s.size
                ),
            ),
            Input::Matrix { spec, .. } => (
                spec.clone(),
                format!("the matrix alone, read by {} processes", s.size),
            ),
            Input::Memory(h) => (h.name.clone(), String::new()),
        };
        let run = Run {
            name,
            info: crate::matrix::Info {
                rows: first.rows,
                cols: first.rows,
                nnz: first.nnz,
                field: crate::matrix::Field::Real,
                symmetry: crate::matrix::Symmetry::General,
            },
            source,
            sizes: crate::amg::Sizes::of(g.sizes),
            built: None,
            fine: crate::partition::Fine::Blocks {
                name: "input ranks".into(),
                starts: g.ownership[0].starts.clone(),
            },
            coarse: crate::partition::CoarseRule::Files,
            layout: None,
            analysis,
            cycle: None,
            warnings,
            measured,
            advice: None,
            input_seconds: stages.seconds("input and extraction"),
            stages: stages.clone(),
        };
        finish(args, &request, &run, &progress)
    };
    agree(&s, written())
}

/// The levels to read, or why this run cannot be spread over processes.
fn inputs(r: &Request, size: usize) -> Result<Vec<crate::amg::levels_io::LevelFiles>, Error> {
    let refuse = |why: &str| {
        Err(Error::Usage(format!(
            "under mpirun ({size} processes), {why}; run it without mpirun"
        )))
    };
    if r.partition.is_some() {
        return refuse("the rank files are the partition: --partition needs the whole matrix");
    }
    if r.options.strategy != Strategy::Standard {
        return refuse("--strategy node-aware needs the whole matrices");
    }
    if r.advice {
        return refuse("--advice repartitions the whole matrix");
    }
    if r.options.ops.has(Op::Interp) || r.options.ops.has(Op::Restrict) {
        return refuse("--cycle and the interp and restrict operations need the whole matrices");
    }
    let (dir, input) = match &r.input {
        Input::Levels(dir) => (Some(dir.as_path()), ""),
        Input::Matrix {
            permute: Some(_), ..
        } => return refuse("--permute needs the whole matrix"),
        Input::Matrix { spec, .. } => (None, spec.as_str()),
        Input::Memory(_) => return refuse("a matrix in memory is one process's"),
    };
    if dir.is_none() {
        let first = crate::matrix::io::hypre_ij::rank_file(std::path::Path::new(input), 0);
        if !first.is_file() {
            return refuse(&format!(
                "analyze reads hypre rank files (INPUT path/A for path/A.00000, ..., or --levels-from DIR), and {input} is not one"
            ));
        }
        if r.amg.max_levels != 1 {
            return refuse("a hierarchy is built from the whole matrix: give --levels-from DIR with the levels hypre wrote (tools/hypre_dump_levels.c), or --max-levels 1 for the matrix alone");
        }
    }
    distributed::inputs(dir, std::path::Path::new(input)).map_err(|e| match e {
        distributed::InputError::Levels(e) => Error::Request(e.into()),
        e => Error::Usage(e.to_string()),
    })
}
