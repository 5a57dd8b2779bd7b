//! `amgcomm compare`: one hierarchy, several variants of partition, coarse
//! rule, placement and strategy ([`crate::analysis::compare`]), side by
//! side.

use std::path::PathBuf;

use clap::Args;

use super::args::{build, check_generator, check_loaded, AmgArgs, MachineArgs, MatrixArgs};
use super::{emit, warn, Error, Progress};
use crate::amg;
use crate::analysis::{self, parse_variants};
use crate::model::{terms, Model};
use crate::output::Plan;
use crate::partition::methods::{MethodOptions, Objective};
use crate::partition::Fine;
use crate::report;
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
    let variants = parse_variants(&args.variants)?;
    let base = args.machine.resolve()?;
    let o = args.amg.options()?;
    let source = args.matrix.source()?;
    let out = &args.out;
    let mut plan = Plan::new();
    args.matrix.add_input(&mut plan);
    args.machine.add_input(&mut plan);
    for v in &variants {
        if let Fine::File(path) = &v.partition {
            plan.input(path);
        }
    }
    plan.folder("--out", out, report::is_report_file)?;
    let ranks = base.ranks();
    let need = |rows, nnz| analysis::memory_bytes(rows, nnz, ranks);
    check_generator(&source, Some((&args.amg, &o)), need)?;
    let progress = Progress::new();
    progress.say(format!("reading {}", args.matrix.input));
    let mat = args.matrix.load(&source)?;
    let name = mat.name.clone();
    check_loaded(&name, mat.csr.rows(), mat.csr.nnz(), need)?;
    let h = build(mat, &args.amg, &o, &progress)?;
    for w in amg::diagnose::warnings(&h, Some(&o)) {
        progress.suspend(|| warn(&w));
    }
    let methods = MethodOptions {
        seed: 0,
        objective: args.metis_objective,
    };
    let say = |v: &analysis::Variant| progress.say(format!("variant {}", v.name));
    let runs = analysis::compare(&h, &base, &variants, &args.model, &methods, say)?;
    let r = CompareReport::new(&name, &base, &args.model, &runs);
    progress.say("writing compare.json and compare.png".into());
    compare::write_folder(out, &r)?;
    progress.done();
    emit(&format!(
        "{} on {} nodes x {} ppn ({}), {}\n\n{}report in {}\n",
        r.matrix,
        r.nodes,
        r.ppn,
        r.machine,
        r.model,
        compare::table(&r),
        out.display()
    ))
}
