//! `amgcomm analyze`: flags -> [`crate::analysis::Request`] -> run ->
//! report folder and table.

use std::path::PathBuf;

use clap::Args;

use super::amg_args::AmgArgs;
use super::args::{MachineArgs, PartitionArgs};
use super::cycle_args::CycleArgs;
use super::input_args::InputArgs;
use super::{emit, Error, Progress};
use crate::analysis::{default_ops, Options, Outputs, Request};
use crate::comm::node_aware::Strategy;
use crate::comm::{Op, Ops};
use crate::model::{terms, Model};
use crate::report::run::{terminal, write_run};

#[derive(Args, Debug)]
pub(crate) struct AnalyzeArgs {
    #[command(flatten)]
    pub(crate) input: InputArgs,
    #[command(flatten)]
    pub(crate) amg: AmgArgs,
    #[command(flatten)]
    pub(crate) machine: MachineArgs,
    #[command(flatten)]
    pub(crate) partition: PartitionArgs,
    #[command(flatten)]
    pub(crate) cycle: CycleArgs,
    /// Measured times to set beside the model: RAPtor's per-level
    /// benchmark output, amgcomm's measured JSON, a Caliper profile of hypre or PETSc's -log_view (docs/report.md)
    #[arg(long, value_name = "FILE", help_heading = "Input")]
    pub(crate) measured: Option<PathBuf>,
    /// Communication of spmv, spgemm and aa (device strategies also
    /// ptap) [default: standard; gpu-aware with --ranks-per-gpu].
    #[arg(long, value_enum, help_heading = "Model")]
    pub(crate) strategy: Option<Strategy>,
    /// Operations to charge, joined by ',' [default: spmv,spgemm,ptap,
    /// and aa under --preset raptor-matops-2018].
    #[arg(long, value_enum, value_delimiter = ',', help_heading = "Model")]
    pub(crate) ops: Option<Vec<Op>>,
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
    pub(crate) advice: bool,
    /// Print the wall time of each stage on stderr and add it to the JSON.
    #[arg(long, help_heading = "Output")]
    pub(crate) timings: bool,
    /// Also write the report JSON to this file (outside the --out folder).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    json: Option<PathBuf>,
    /// Write each level's process graph per operation as Graphviz DOT as
    /// the folder DIR (replaced whole).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    dot: Option<PathBuf>,
    /// Write every level's spmv, spgemm and ptap messages with the rank
    /// layout as the folder DIR (replaced whole), one level{l}_{op}.amgpat
    /// file each (format in docs/report.md), for `amgcomm replay`.
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    save_patterns: Option<PathBuf>,
}

impl AnalyzeArgs {
    /// The request these flags ask for: flag values checked, nothing read
    /// but the machine file.
    pub(crate) fn request(&self) -> Result<Request, Error> {
        let (m, strategy) = self.machine.place(self.machine.resolve()?, self.strategy)?;
        let mut r = Request::new(self.input.input()?, m);
        r.preset = self.amg.preset;
        r.amg = self.amg.options()?;
        self.partition.apply(&mut r);
        let ops = self.cycle.ops(
            (self.ops.as_deref()).map_or(default_ops(self.amg.preset), Ops::of),
            self.ops.is_some(),
        );
        r.options = Options {
            model: self.model.for_run(strategy, ops, &r.machine),
            strategy,
            ops,
            keep_patterns: self.dot.is_some() || self.save_patterns.is_some(),
            cycle: self.cycle.cycle(),
        };
        r.measured = self.measured.clone();
        r.inputs = self.machine.file();
        r.advice = self.advice;
        r.outputs = Outputs {
            folder: self.out.clone(),
            json: self.json.clone(),
            dot: self.dot.clone(),
            patterns: self.save_patterns.clone(),
        };
        Ok(r)
    }
}

/// The analysis in this process alone.
pub(crate) fn serial(args: &AnalyzeArgs) -> Result<(), Error> {
    let request = args.request()?;
    let checked = request.check()?;
    let progress = Progress::new();
    let run = request.run(checked, &|e| progress.event(e))?;
    finish(args, &request, &run, &progress)
}

/// Writes what the request asks and prints the table.
pub(crate) fn finish(
    args: &AnalyzeArgs,
    request: &Request,
    run: &crate::analysis::Run,
    progress: &Progress,
) -> Result<(), Error> {
    let written = write_run(run, request, args.timings, &|s| progress.say(s))?;
    progress.done();
    if let Some(line) = &written.timings {
        super::say(format_args!("{line}"));
    }
    emit(&terminal(&written, run, request))
}
