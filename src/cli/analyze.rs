//! `amgcomm analyze`: flags -> hierarchy -> [`crate::analysis::analyze`]
//! -> report folder.

use std::path::PathBuf;

use clap::Args;

use super::args::{check_generator, AmgArgs, InputArgs, MachineArgs, PartitionArgs};
use super::stages::Stages;
use super::{emit, warn, write_file, Error, Progress};
use crate::amg;
use crate::analysis::advice::Setup;
use crate::analysis::{self, Options};
use crate::comm::node_aware::Strategy;
use crate::memory;
use crate::model::{terms, Model};
use crate::output::Plan;
use crate::partition::Layout;
use crate::report::json::{Context, MatrixJson, MeasuredJson, Report};
use crate::report::{self, table};

#[derive(Args, Debug)]
pub(crate) struct AnalyzeArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    amg: AmgArgs,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    partition: PartitionArgs,
    /// Measured times to set beside the model: RAPtor's per-level
    /// benchmark output, or amgcomm's measured JSON (see the README).
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    measured: Option<PathBuf>,
    /// Communication of spmv and spgemm.
    #[arg(long, value_enum, default_value_t = Strategy::Standard, help_heading = "Model")]
    strategy: Strategy,
    #[arg(long, default_value = "nodeaware+queue+contention", value_parser = Model::parse,
          long_help = terms::help(), help = "Cost model: terms joined by '+'", help_heading = "Model")]
    model: Model,
    /// Folder for report.json, levels.csv and the charts (PNG and SVG),
    /// replaced whole; default reports/<matrix name>/.
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    out: Option<PathBuf>,
    /// Add "What would cut it": the alternatives (strategies, METIS
    /// partitions, placements, coarse partition) that lower the levels
    /// carrying 10% of the time, each a full analysis of this hierarchy
    /// (at paper scale about 5x the run, mostly METIS).
    #[arg(long, help_heading = "Output")]
    advice: bool,
    /// Print the wall time of each stage on stderr and add it to the JSON.
    #[arg(long, help_heading = "Output")]
    timings: bool,
    /// Also write the report JSON to this file (outside the --out folder).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    json: Option<PathBuf>,
    /// Write each level's process graph per operation as Graphviz DOT as
    /// the folder DIR (replaced whole).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    dot: Option<PathBuf>,
    /// Write every level's spmv, spgemm and ptap messages with the rank
    /// layout as the folder DIR (replaced whole), one level{l}_{op}.amgpat
    /// file each (format in the README), for `amgcomm replay`.
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    save_patterns: Option<PathBuf>,
}

pub(crate) fn run(args: &AnalyzeArgs) -> Result<(), Error> {
    #[cfg(feature = "mpi")]
    if super::launcher_rank().is_some() {
        return with_mpi::run(args);
    }
    serial(args)
}

/// The analysis in this process alone.
fn serial(args: &AnalyzeArgs) -> Result<(), Error> {
    let mut stages = Stages::start();
    // Everything that can be checked before the input is read is checked
    // first: flags, outputs, and what the run would ask of memory.
    let m = args.machine.resolve()?;
    let o = args.amg.options()?;
    let fine = args.partition.fine()?;
    let source = args.input.source()?;
    plan_outputs(args)?;
    let ranks = m.ranks();
    let mesh = args
        .partition
        .mesh_request(source.as_ref(), args.input.permute(), ranks)?;
    // Files written per rank are the partition unless --partition says
    // otherwise: as many ranks as the machine has.
    let written_by = args.input.input_ranks()?;
    if let (Some(k), false) = (written_by, args.partition.explicit()) {
        if k != ranks {
            return Err(Error::Usage(format!(
                "the input was written by {k} ranks ({k} rank files), the machine has {} nodes x {} ppn = {ranks}; give --nodes and --ppn to match, or --partition to repartition",
                m.nodes, m.ppn
            )));
        }
    }
    let measured = match &args.measured {
        Some(path) => Some((path, read_measured(path, ranks)?)),
        None => None,
    };
    let need = |rows, nnz| analysis::memory_bytes(rows, nnz, ranks);
    memory::check(need(0, 0), || {
        format!("{} nodes x {} ppn = {ranks} ranks", m.nodes, m.ppn)
    })?;
    if let Some(source) = &source {
        check_generator(source, Some((&args.amg, &o)), need)?;
    }
    let progress = Progress::new();
    let input = (args.input).load(
        source.as_ref(),
        mesh,
        &args.amg,
        &o,
        need,
        &progress,
        &mut stages,
    )?;
    let h = &input.h;
    // The fine partition: MFEM's renumbered blocks; else the input's own
    // ranks (a hypre dump), unless --partition was given; else the flag.
    let given = input
        .ownership
        .as_ref()
        .filter(|_| !args.partition.explicit());
    let (fine, mut coarse) = match (&input.blocks, given) {
        (Some(blocks), _) => (blocks.clone(), args.partition.coarse_partition),
        (None, Some(own)) => {
            let fine = crate::partition::Fine::Blocks {
                name: "input ranks".into(),
                starts: own[0].starts.clone(),
            };
            (fine, args.partition.coarse_partition)
        }
        (None, None) => (fine, args.partition.coarse_partition),
    };
    let warnings = amg::diagnose::warnings(h, input.built.then_some(&o));
    for w in &warnings {
        progress.suspend(|| warn(w));
    }
    progress.say(format!(
        "partitioning {} rows ({})",
        input.info.rows,
        fine.name()
    ));
    let fine_part = fine.partition(&h.levels[0].a, &m, &args.partition.methods())?;
    let layout = match given.filter(|own| own.len() == h.levels.len()) {
        // Every level's rows as the files give them.
        Some(own) => {
            coarse = crate::partition::CoarseRule::Files;
            let files = Layout {
                levels: own
                    .iter()
                    .map(crate::partition::Partition::from_ownership)
                    .collect(),
            };
            if files != Layout::new(h, fine_part, coarse) {
                progress.suspend(|| warn("the input's coarse rows do not all stay with their C points' ranks; the files' ranks are used"));
            }
            files
        }
        None => Layout::new(h, fine_part, coarse),
    };
    stages.lap("partition");
    progress.say(format!(
        "communication of {} levels on {} ranks",
        h.levels.len(),
        m.ranks()
    ));
    let options = options(args);
    let a = analysis::analyze(h, &layout, &m, &options)?;
    let info = &input.info;
    let origin = Origin {
        matrix: MatrixJson {
            name: input.name.clone(),
            rows: info.rows,
            cols: info.cols,
            nnz: info.nnz,
        },
        source: input.source.clone(),
        hierarchy: h.sizes(),
        fine,
        coarse,
        warnings,
        built: input.built.then_some(h),
        advice: Some(h),
        input_seconds: stages.seconds("input") + stages.seconds("hierarchy"),
    };
    finish(args, &m, a, measured, origin, &mut stages, &progress)
}

/// Every output checked against the inputs and what it would replace,
/// before any input is read.
fn plan_outputs(args: &AnalyzeArgs) -> Result<(), Error> {
    let out = (args.out.clone()).unwrap_or_else(|| args.input.default_out());
    let mut plan = Plan::new();
    args.input.add_inputs(&mut plan);
    args.machine.add_input(&mut plan);
    args.partition.add_input(&mut plan);
    if let Some(path) = &args.measured {
        plan.input(path);
    }
    plan.folder("--out", &out, report::is_report_file)?;
    if let Some(path) = &args.json {
        plan.file("--json", path)?;
    }
    if let Some(dir) = &args.dot {
        plan.folder("--dot", dir, crate::comm::dot::is_dot_file)?;
    }
    if let Some(dir) = &args.save_patterns {
        plan.folder("--save-patterns", dir, crate::comm::io::is_pattern_file)?;
    }
    Ok(())
}

/// What analyze charges and keeps.
fn options(args: &AnalyzeArgs) -> Options {
    Options {
        model: args.model.clone(),
        strategy: args.strategy,
        ptap: true,
        keep_patterns: args.dot.is_some() || args.save_patterns.is_some(),
    }
}

/// Where an analysis came from, for its report.
struct Origin<'h> {
    matrix: MatrixJson,
    source: String,
    hierarchy: crate::amg::Sizes,
    fine: crate::partition::Fine,
    coarse: crate::partition::CoarseRule,
    warnings: Vec<amg::diagnose::Warning>,
    /// The hierarchy, when amgcomm built it (its setup timings).
    built: Option<&'h amg::Hierarchy>,
    /// The hierarchy, for --advice's alternatives.
    advice: Option<&'h amg::Hierarchy>,
    /// Seconds spent reading and building.
    input_seconds: f64,
}

/// The analysis's outputs: the measured overlay, patterns, DOT files,
/// advice, the report folder, --json and the table on stdout.
fn finish(
    args: &AnalyzeArgs,
    m: &crate::machine::Machine,
    mut a: analysis::Analysis,
    measured: Option<(&PathBuf, crate::measured::Measured)>,
    origin: Origin,
    stages: &mut Stages,
    progress: &Progress,
) -> Result<(), Error> {
    let measured = measured.map(|(path, file)| {
        let warnings = analysis::overlay(&mut a, &file);
        for w in &warnings {
            progress.suspend(|| warn(format!("--measured {}: {w}", path.display())));
        }
        MeasuredJson {
            file: path.display().to_string(),
            format: file.format,
            ranks: file.ranks,
            warnings,
        }
    });
    stages.record("extraction", a.seconds.extraction);
    stages.record("model", a.seconds.model);
    if let Some(dir) = &args.save_patterns {
        progress.say(format!("writing patterns into {}", dir.display()));
        a.save_patterns(dir, m)?;
        stages.lap("patterns");
    }
    if let Some(dir) = &args.dot {
        a.save_dot(dir, m)?;
    }
    progress.say("writing the report".into());
    let Origin {
        matrix,
        source,
        hierarchy,
        fine,
        coarse,
        warnings,
        built,
        advice: h,
        input_seconds,
    } = origin;
    let context = Context {
        model: &args.model,
        strategy: args.strategy,
        matrix,
        machine: m,
        fine: &fine,
        coarse,
        hierarchy,
        source: source.clone(),
    };
    let options = options(args);
    let (advice, failed) = match h.filter(|_| args.advice) {
        Some(h) => {
            progress.say("what would cut it: trying alternatives".into());
            let setup = Setup {
                machine: m,
                fine: &fine,
                methods: args.partition.methods(),
                coarse,
                options: &options,
            };
            let (advice, failed) = analysis::advice::advise(h, &setup, &a);
            (Some(advice), failed)
        }
        None => (None, Vec::new()),
    };
    for f in failed {
        progress.suspend(|| warn(format!("an alternative could not be evaluated: {f}")));
    }
    stages.lap("advice");
    let mut r = Report::new(&a, context);
    r.advice = advice;
    r.warnings = warnings;
    r.measured = measured;
    let out = (args.out.clone()).unwrap_or_else(|| args.input.default_out());
    // The JSON last, so that its timings cover the charts.
    report::write_folder(&out, &mut r, |r| {
        stages.lap("charts and csv");
        if args.timings {
            r.timings = Some(stages.report(built));
        }
    })?;
    progress.done();
    if let Some(path) = &args.json {
        write_file(path, &r.to_json())?;
    }
    emit(&format!(
        "{} ({}) on {} nodes x {} ppn = {} ranks ({}), {}\n\n{}{}\nhierarchy and input {:.2} s, communication extracted in {:.2} s; report in {}\n",
        r.matrix.name, source, m.nodes, m.ppn, m.ranks(), m.name, m.network().describe(), table::table(&r), if args.advice { table::advice(&r) } else { String::new() },
        input_seconds, a.seconds.extraction, out.display()
    ))
}

/// The measured file: read (a small file, size-capped) and parsed, exit 1
/// when it does not read; one that cannot be a run on `ranks` ranks is
/// how amgcomm was asked (exit 2).
fn read_measured(path: &std::path::Path, ranks: usize) -> Result<crate::measured::Measured, Error> {
    let name = path.display();
    let text = memory::read_text(path, 64 << 20).map_err(|e| Error::Measured {
        path: name.to_string(),
        problem: crate::output::reason(&e),
    })?;
    let file = crate::measured::parse(&text).map_err(|e| Error::Measured {
        path: name.to_string(),
        problem: e.to_string(),
    })?;
    analysis::check_measured(&file, ranks)
        .map_err(|e| Error::Usage(format!("--measured {name}: {e}")))?;
    Ok(file)
}

/// `mpirun -n K amgcomm analyze` (feature `mpi`): the rank files read,
/// and the messages found, by `K` processes together
/// ([`analysis::distributed`]); rank 0 charges them and writes the
/// report. One process (`mpirun -n 1`) is a serial run.
#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;
    use crate::analysis::distributed;
    use crate::cli::mpi::{agree, open, said};

    pub(super) fn run(args: &AnalyzeArgs) -> Result<(), Error> {
        let s = open()?;
        if s.size == 1 {
            return serial(args);
        }
        let mut stages = Stages::start();
        let asked = || {
            let m = args.machine.resolve()?;
            let levels = inputs(args, s.size)?;
            let ranks = m.ranks();
            // Rank 0 lists the rank files; the rest learn a failure.
            let written_by = match s.rank {
                0 => args.input.input_ranks()?,
                _ => None,
            };
            match written_by {
                Some(k) if k != ranks => {
                    return Err(Error::Usage(format!(
                        "the input was written by {k} ranks ({k} rank files), the machine has {} nodes x {} ppn = {ranks}; give --nodes and --ppn to match",
                        m.nodes, m.ppn
                    )))
                }
                _ => {}
            }
            // Rank 0 alone writes, and reads --measured.
            let mut measured = None;
            if s.rank == 0 {
                plan_outputs(args)?;
                if let Some(path) = &args.measured {
                    measured = Some((path, read_measured(path, ranks)?));
                }
            }
            Ok((m, levels, measured))
        };
        let (m, levels, measured) = agree(&s, asked())?;
        let ranks = m.ranks();
        let progress = if s.rank == 0 {
            Progress::new()
        } else {
            Progress::hidden()
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
            let a = analysis::analyze_extracted(g.levels, &m, &options(args))?;
            let rows: Vec<usize> = g.sizes.iter().map(|l| l.rows).collect();
            let warnings = amg::diagnose::of_parts(g.diagonal, &rows, None);
            for w in &warnings {
                progress.suspend(|| warn(w));
            }
            let first = &g.sizes[0];
            let (name, source) = match args.input.levels_from() {
                Some(dir) => (
                    dir.display().to_string(),
                    format!(
                        "levels from {}, read by {} processes",
                        dir.display(),
                        s.size
                    ),
                ),
                None => (
                    args.input.input().unwrap_or_default().to_string(),
                    format!("the matrix alone, read by {} processes", s.size),
                ),
            };
            let origin = Origin {
                matrix: MatrixJson {
                    name,
                    rows: first.rows,
                    cols: first.rows,
                    nnz: first.nnz,
                },
                source,
                hierarchy: crate::amg::Sizes::of(g.sizes),
                fine: crate::partition::Fine::Blocks {
                    name: "input ranks".into(),
                    starts: g.ownership[0].starts.clone(),
                },
                coarse: crate::partition::CoarseRule::Files,
                warnings,
                built: None,
                advice: None,
                input_seconds: stages.seconds("input and extraction"),
            };
            finish(args, &m, a, measured, origin, &mut stages, &progress)
        };
        agree(&s, written())
    }

    /// The levels to read, or why this run cannot be spread over
    /// processes.
    fn inputs(
        args: &AnalyzeArgs,
        size: usize,
    ) -> Result<Vec<crate::amg::levels_io::LevelFiles>, Error> {
        let refuse = |why: &str| {
            Err(Error::Usage(format!(
                "under mpirun ({size} processes), {why}; run it without mpirun"
            )))
        };
        if args.partition.explicit() {
            return refuse("the rank files are the partition: --partition needs the whole matrix");
        }
        if args.strategy != Strategy::Standard {
            return refuse("--strategy node-aware needs the whole matrices");
        }
        if args.advice {
            return refuse("--advice repartitions the whole matrix");
        }
        if args.input.permute().is_some() {
            return refuse("--permute needs the whole matrix");
        }
        let dir = args.input.levels_from();
        let input = args.input.input().unwrap_or_default();
        if dir.is_none() {
            let first = crate::matrix::io::hypre_ij::rank_file(std::path::Path::new(input), 0);
            if !first.is_file() {
                return refuse(&format!(
                    "analyze reads hypre rank files (INPUT path/A for path/A.00000, ..., or --levels-from DIR), and {input} is not one"
                ));
            }
            if args.amg.max_levels() != Some(1) {
                return refuse("a hierarchy is built from the whole matrix: give --levels-from DIR with the levels hypre wrote (tools/hypre_dump_levels.c), or --max-levels 1 for the matrix alone");
            }
        }
        distributed::inputs(dir, std::path::Path::new(input)).map_err(|e| match e {
            distributed::InputError::Levels(e) => e.into(),
            e => Error::Usage(e.to_string()),
        })
    }
}
