//! `amgcomm analyze`: flags -> hierarchy -> [`crate::analysis::analyze`]
//! -> report folder.

use std::path::PathBuf;

use clap::Args;

use super::args::{AmgArgs, InputArgs, MachineArgs, PartitionArgs};
use super::stages::Stages;
use super::{emit, write_file, Error, Progress};
use crate::analysis::{self, Options};
use crate::comm::node_aware::Strategy;
use crate::model::{terms, Model};
use crate::partition::Layout;
use crate::report::json::{Context, MatrixJson, Report};
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
    /// Communication of spmv and spgemm.
    #[arg(long, value_enum, default_value_t = Strategy::Standard)]
    strategy: Strategy,
    #[arg(long, default_value = "nodeaware+queue+contention", value_parser = Model::parse,
          long_help = terms::help(), help = "Cost model: terms joined by '+'")]
    model: Model,
    /// Folder for report.json, levels.csv and the charts (PNG and SVG);
    /// default reports/<matrix name>/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the wall time of each stage on stderr and add it to the JSON.
    #[arg(long)]
    timings: bool,
    /// Also write the report JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write each level's process graph per operation as Graphviz DOT into DIR.
    #[arg(long, value_name = "DIR")]
    dot: Option<PathBuf>,
    /// Write every level's spmv and spgemm messages with the rank layout
    /// as the folder DIR, one level{l}_{op}.amgpat file each (format in the
    /// README).
    #[arg(long, value_name = "DIR")]
    save_patterns: Option<PathBuf>,
}

pub(crate) fn run(args: &AnalyzeArgs) -> Result<(), Error> {
    let mut stages = Stages::start();
    // Everything that can be checked before the long steps is checked first.
    let m = args.machine.resolve()?;
    let o = args.amg.options()?;
    let fine = args.partition.fine()?;
    let out = (args.out.clone()).unwrap_or_else(|| args.input.default_out());
    let folders = [
        ("--out", Some(&out)),
        ("--dot", args.dot.as_ref()),
        ("--save-patterns", args.save_patterns.as_ref()),
    ];
    for (flag, dir) in folders {
        let Some(dir) = dir else { continue };
        (crate::output::check_folder(dir))
            .map_err(|e| Error::Usage(format!("{flag} {}: {e}", dir.display())))?;
    }
    if let Some(dir) = &args.save_patterns {
        crate::comm::io::check_folder(dir)
            .map_err(|e| Error::Usage(format!("--save-patterns {e}")))?;
    }
    let progress = Progress::new();
    let input = args.input.load(&args.amg, &o, &progress, &mut stages)?;
    let h = &input.h;
    progress.say(format!(
        "partitioning {} rows ({})",
        input.info.rows,
        fine.name()
    ));
    let fine_part = fine.partition(&h.levels[0].a, &m, &args.partition.methods())?;
    let layout = Layout::new(h, fine_part, args.partition.coarse_partition);
    stages.lap("partition");
    progress.say(format!(
        "communication of {} levels on {} ranks",
        h.levels.len(),
        m.ranks()
    ));
    let keep_patterns = args.dot.is_some() || args.save_patterns.is_some();
    let options = Options {
        model: args.model.clone(),
        strategy: args.strategy,
        ptap: true,
        keep_patterns,
    };
    let a = analysis::analyze(h, &layout, &m, &options)?;
    stages.record("extraction", a.seconds.extraction);
    stages.record("model", a.seconds.model);
    if let Some(dir) = &args.save_patterns {
        progress.say(format!("writing patterns into {}", dir.display()));
        a.save_patterns(dir, &m, args.strategy)?;
        stages.lap("patterns");
    }
    if let Some(dir) = &args.dot {
        a.save_dot(dir, &m)?;
    }
    progress.say("writing the report".into());
    let info = &input.info;
    let matrix = MatrixJson {
        name: input.name.clone(),
        rows: info.rows,
        cols: info.cols,
        nnz: info.nnz,
    };
    let coarse = args.partition.coarse_partition;
    let (model, source) = (&args.model, input.source.clone());
    let context = Context {
        model,
        strategy: args.strategy,
        matrix,
        machine: &m,
        fine,
        coarse,
        hierarchy: h,
        source,
    };
    let mut r = Report::new(&a, context);
    report::write_files(&out, &r)?;
    stages.lap("charts and csv");
    progress.done();
    if args.timings {
        r.timings = Some(stages.report(input.built.then_some(h)));
    }
    // The JSON last, so that its timings cover everything before it.
    let text = r.to_json();
    write_file(&out.join("report.json"), &text)?;
    if let Some(path) = &args.json {
        write_file(path, &text)?;
    }
    emit(&format!(
        "{} ({}) on {} nodes x {} ppn = {} ranks ({}), routers {:?}\n\n{}hierarchy and input {:.2} s, communication extracted in {:.2} s; report in {}\n",
        input.name, input.source, m.nodes, m.ppn, m.ranks(), m.name, m.router_box(), table::table(&r),
        stages.seconds("input") + stages.seconds("hierarchy"), a.seconds.extraction, out.display()
    ))
}
