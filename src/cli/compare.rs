//! `amgcomm compare`: one hierarchy, several variants of partition, coarse
//! rule, placement and strategy ([`crate::analysis::Request::compare`]),
//! side by side.

use std::path::PathBuf;

use clap::Args;

use super::amg_args::AmgArgs;
use super::args::MachineArgs;
use super::input_args::MatrixArgs;
use super::{emit, Error, Progress};
use crate::analysis::{parse_variants, Input, Request};
use crate::model::{terms, Model};
use crate::partition::methods::Objective;
use crate::report::compare::{self, CompareReport};

#[derive(Args, Debug)]
pub(crate) struct CompareArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    /// Variants separated by ';', each a ','-separated list of key=value
    /// with keys partition (a method or a file), strategy, placement,
    /// coarse-partition (values as for analyze). Example:
    /// "partition=contiguous;partition=metis;strategy=node-aware-3"
    #[arg(long, help_heading = "Variants")]
    variants: String,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    amg: AmgArgs,
    #[arg(long, default_value = "nodeaware+queue+contention", value_parser = Model::parse,
          long_help = terms::help(), help = "Cost model: terms joined by '+'", help_heading = "Model")]
    model: Model,
    /// What METIS minimises.
    #[arg(long, value_enum, default_value_t = Objective::Cut, help_heading = "Partition")]
    metis_objective: Objective,
    /// Folder for compare.json and compare.png (and .svg), replaced whole.
    #[arg(
        long,
        value_name = "DIR",
        default_value = "reports/compare",
        help_heading = "Output"
    )]
    out: PathBuf,
}

pub(crate) fn run(args: &CompareArgs) -> Result<(), Error> {
    let (r, model) = request(args)?;
    let progress = Progress::new();
    let report = compare(&r, &model, &|e| progress.event(e))?;
    progress.done();
    emit(&format!(
        "{} on {} nodes x {} ppn ({}), {}\n\n{}report in {}\n",
        report.matrix,
        report.nodes,
        report.ppn,
        report.machine,
        report.model,
        compare::table(&report),
        args.out.display()
    ))
}

/// The flags' request (its variants, machine and output folder) and
/// model.
pub(crate) fn request(args: &CompareArgs) -> Result<(Request, Model), Error> {
    let variants = parse_variants(&args.variants)?;
    let input = Input::Matrix {
        spec: args.matrix.spec()?,
        permute: args.matrix.permute,
    };
    // Device strategies put the data on the GPUs (their copies charged).
    let device = variants.iter().map(|v| v.strategy).find(|s| s.is_device());
    let (m, strategy) = args.machine.place(args.machine.resolve()?, device)?;
    let mut r = Request::new(input, m);
    r.preset = args.amg.preset;
    r.amg = args.amg.options()?;
    let model = args.model.for_run(strategy, r.options.ops, &r.machine);
    r.options.model = model.clone();
    r.methods.objective = args.metis_objective;
    r.outputs.folder = Some(args.out.clone());
    r.variants = variants;
    r.inputs = args.machine.file();
    Ok((r, model))
}

/// The variants of `r` run, their folder written.
pub(crate) fn compare(
    r: &Request,
    model: &Model,
    progress: &dyn Fn(crate::analysis::request::Event),
) -> Result<CompareReport, Error> {
    let checked = r.check()?;
    let (loaded, runs) = r.compare(&checked, progress)?;
    let report = CompareReport::new(&loaded.name, &r.machine, model, &runs);
    progress(crate::analysis::request::Event::Step(
        "writing compare.json and compare.png".into(),
    ));
    compare::write_folder(&r.folder(), &report)?;
    Ok(report)
}
