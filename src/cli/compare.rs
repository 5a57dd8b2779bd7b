//! `amgcomm compare`: one hierarchy, several variants of partition, coarse
//! rule, placement and strategy ([`crate::analysis::compare`]), side by
//! side.

use std::path::PathBuf;

use clap::Args;

use super::args::{build, AmgArgs, MachineArgs, MatrixArgs};
use super::{emit, write_file, Error, Progress};
use crate::analysis::{self, parse_variants};
use crate::model::{terms, Model};
use crate::partition::methods::{MethodOptions, Objective};
use crate::report::compare::{self, CompareReport};

#[derive(Args, Debug)]
pub(crate) struct CompareArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    /// Variants separated by ';', each a ','-separated list of key=value
    /// with keys partition (a method or a file), strategy, placement,
    /// coarse-partition (values as for analyze). Example:
    /// "partition=contiguous;partition=metis;strategy=node-aware-3"
    #[arg(long)]
    variants: String,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    amg: AmgArgs,
    #[arg(long, default_value = "nodeaware+queue+contention", value_parser = Model::parse,
          long_help = terms::help(), help = "Cost model: terms joined by '+'")]
    model: Model,
    /// What METIS minimises.
    #[arg(long, value_enum, default_value_t = Objective::Cut)]
    metis_objective: Objective,
    /// Folder for compare.json and compare.png.
    #[arg(long, value_name = "DIR", default_value = "reports/compare")]
    out: PathBuf,
}

pub(crate) fn run(args: &CompareArgs) -> Result<(), Error> {
    let variants = parse_variants(&args.variants)?;
    let base = args.machine.resolve()?;
    let o = args.amg.options()?;
    let out = &args.out;
    crate::output::check_folder(out)
        .map_err(|e| Error::Usage(format!("--out {}: {e}", out.display())))?;
    let progress = Progress::new();
    progress.say(format!("reading {}", args.matrix.input));
    let mat = args.matrix.load()?;
    let name = mat.name.clone();
    let h = build(mat, &o, &progress)?;
    let methods = MethodOptions {
        seed: 0,
        objective: args.metis_objective,
    };
    let say = |v: &analysis::Variant| progress.say(format!("variant {}", v.name));
    let runs = analysis::compare(&h, &base, &variants, &args.model, &methods, say)?;
    let r = CompareReport::new(&name, &base, &args.model, &runs);
    progress.say("writing compare.json and compare.png".into());
    std::fs::create_dir_all(out).map_err(Error::write(out))?;
    write_file(&out.join("compare.json"), &r.to_json())?;
    for ext in ["png", "svg"] {
        compare::chart(&out.join(format!("compare.{ext}")), &r)?;
    }
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
