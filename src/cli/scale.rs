//! `amgcomm scale`: flags to a [`ScaleRequest`], then the table.

use std::path::PathBuf;

use clap::Args;

use super::amg_args::AmgArgs;
use super::args::{MachineArgs, PartitionArgs};
use super::input_args::InputArgs;
use super::{emit, Error, Progress};
use crate::analysis::{default_ops, Request, ScaleRequest};
use crate::comm::node_aware::Strategy;
use crate::comm::{Op, Ops};
use crate::model::{terms, Model};

#[derive(Args, Debug)]
pub(crate) struct ScaleArgs {
    #[command(flatten)]
    input: InputArgs,
    #[command(flatten)]
    amg: AmgArgs,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    partition: PartitionArgs,
    /// Grow the generator's N with the ranks (weak scaling); default:
    /// the same problem at every node count (strong scaling).
    #[arg(long, help_heading = "Scaling")]
    weak: bool,
    /// Strategies charged at every node count, the reference first
    /// [default: standard,node-aware-3; with --ranks-per-gpu the four
    /// device strategies].
    #[arg(long, value_enum, value_delimiter = ',', help_heading = "Scaling")]
    strategies: Option<Vec<Strategy>>,
    /// Measured runs: a folder of RAPtor logs or amgcomm measured JSON,
    /// each named with its process count (aniso_128.out).
    #[arg(long, value_name = "DIR", help_heading = "Input")]
    measured: Option<PathBuf>,
    /// Operations to charge [default: spmv,spgemm,ptap, and aa under
    /// --preset raptor-matops-2018].
    #[arg(long, value_enum, value_delimiter = ',', help_heading = "Model")]
    ops: Option<Vec<Op>>,
    #[arg(long, default_value = "nodeaware+queue+contention", value_parser = Model::parse,
          long_help = terms::help(), help = "Cost model: terms joined by '+'", help_heading = "Model")]
    model: Model,
    /// Folder for scale.json, scale.csv, the charts and each node count's
    /// report, replaced whole; default reports/<matrix name>_scale/.
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    out: Option<PathBuf>,
}

impl ScaleArgs {
    pub(crate) fn request(&self) -> Result<ScaleRequest, Error> {
        if self.machine.node_counts().is_empty() {
            return Err(Error::Usage(
                "--nodes: give the node counts, joined by ','".into(),
            ));
        }
        let mut base = Request::new(self.input.input()?, crate::machine::Machine::bluewaters());
        let given = self.strategies.as_deref().unwrap_or_default();
        let device = given.iter().copied().find(|s| s.is_device());
        let (m, first) = self
            .machine
            .place(self.machine.resolve_for_scale()?, device)?;
        let strategies = self
            .strategies
            .clone()
            .unwrap_or_else(|| match m.is_on_devices() {
                true => Strategy::all(true),
                false => vec![Strategy::Standard, Strategy::NodeAware3],
            });
        base.machine = m;
        base.preset = self.amg.preset;
        base.amg = self.amg.options()?;
        self.partition.apply(&mut base);
        base.options.ops = self
            .ops
            .as_deref()
            .map_or(default_ops(self.amg.preset), Ops::of);
        base.options.model = self.model.for_run(first, base.options.ops, &base.machine);
        base.inputs = self.machine.file();
        let folder = self.out.clone().unwrap_or_else(|| {
            let name = base
                .folder()
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            PathBuf::from("reports").join(format!("{}_scale", name.unwrap_or_default()))
        });
        base.outputs.folder = Some(folder);
        Ok(ScaleRequest {
            base,
            nodes: self.machine.node_counts().to_vec(),
            strategies,
            weak: self.weak,
            measured: self.measured.clone(),
        })
    }
}

pub(crate) fn run(args: &ScaleArgs) -> Result<(), Error> {
    let request = args.request()?;
    let points = request.check()?;
    let progress = Progress::new();
    let dir = request.folder();
    let study = crate::report::scale::write_folder(&dir, |each| {
        request.run(points, &|e| progress.event(e), each)
    })?;
    progress.done();
    emit(&format!(
        "{}\nreport in {}\n",
        crate::report::scale::table(&study),
        dir.display()
    ))
}
