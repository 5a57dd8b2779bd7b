//! `amgcomm hierarchy`: build the AMG hierarchy and print its level table.

use std::path::PathBuf;

use clap::Args;

use super::amg_args::AmgArgs;
use super::args::{FinePartitionArgs, MachineArgs};
use super::input_args::MatrixArgs;
use super::{emit, warn, write_file, Error, Progress};
use crate::amg::{self, levels_io};
use crate::analysis::{Input, Request, Stages};
use crate::machine::Machine;
use crate::output::Plan;
use crate::report;

#[derive(Args, Debug)]
pub(crate) struct HierarchyArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    #[command(flatten)]
    amg: AmgArgs,
    /// Build it on P ranks (hypre's and RAPtor's setups depend on them),
    /// each a contiguous block of rows unless --partition says otherwise;
    /// or give the machine as analyze takes it (--nodes, --ppn, ...)
    /// [default: 1]
    #[arg(long, value_name = "P", help_heading = "Machine",
          conflicts_with_all = ["machine", "nodes", "ppn", "ranks_per_gpu", "placement", "allocation"])]
    ranks: Option<usize>,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    partition: FinePartitionArgs,
    /// Write {"operator_complexity","grid_complexity","levels":[...]} here.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    json: Option<PathBuf>,
    /// Write A{l}.mtx, P{l}.mtx and C{l}.txt of every level as the folder
    /// DIR (replaced whole).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    save_levels: Option<PathBuf>,
    /// Also print each level's wall seconds by setup step (strength,
    /// coarsening, interpolation, product, gather), and add them to
    /// --json as "setup_seconds".
    #[arg(long, help_heading = "Output")]
    timings: bool,
}

impl HierarchyArgs {
    /// The ranks the setup runs on: P one-rank nodes, the machine asked
    /// for, or one rank.
    fn machine(&self) -> Result<Machine, Error> {
        if self.machine.given() {
            return self
                .machine
                .place(self.machine.resolve()?, None)
                .map(|(m, _)| m);
        }
        let ranks = self.ranks.unwrap_or(1);
        if ranks == 0 {
            return Err(Error::Usage("--ranks must be at least 1, got 0".into()));
        }
        let mut m = Machine::bluewaters();
        m.sockets_per_node = 1;
        Ok(m.allocated(Some(ranks), Some(1), None, None)?)
    }

    pub(crate) fn request(&self) -> Result<Request, Error> {
        let input = Input::Matrix {
            spec: self.matrix.spec()?,
            permute: self.matrix.permute,
        };
        let mut r = Request::new(input, self.machine()?);
        r.preset = self.amg.preset;
        r.amg = self.amg.options()?;
        self.partition.apply(&mut r);
        Ok(r)
    }
}

pub(crate) fn run(args: &HierarchyArgs) -> Result<(), Error> {
    let request = args.request()?;
    let mut plan = Plan::new();
    args.matrix.add_input(&mut plan);
    if let Some(crate::partition::Fine::File(path)) = &args.partition.partition {
        plan.input(path);
    }
    for f in args.machine.file() {
        plan.input(&f);
    }
    if let Some(path) = &args.json {
        plan.file("--json", path)?;
    }
    if let Some(dir) = &args.save_levels {
        plan.folder("--save-levels", dir, levels_io::is_levels_file)?;
    }
    let mut stages = Stages::start();
    let progress = Progress::new();
    let mut loaded = request.hierarchy_alone(&|e| progress.event(e), &mut stages)?;
    progress.done();
    if args.save_levels.is_some() {
        loaded.h.make_whole();
    }
    let (h, name) = (&loaded.h, &loaded.name);
    for w in amg::diagnose::warnings(h, Some(&request.amg), loaded.numbering) {
        warn(&w);
    }
    if let Some(path) = &args.json {
        let sizes = if args.timings {
            h.timed_sizes()
        } else {
            h.sizes()
        };
        write_file(path, &report::pretty_json(&sizes))?;
    }
    if let Some(dir) = &args.save_levels {
        levels_io::save_levels(h, dir, name)?;
    }
    // The input's own rows (hypre rank files), else the machine's ranks.
    let ranks = (loaded.ownership.as_ref())
        .map_or(request.machine.owners().ranks(), |o| o[0].starts.len() - 1);
    let plural = if ranks == 1 { "rank" } else { "ranks" };
    let on = match (request.amg.uses_ranks(), &loaded.fine_part) {
        (true, Some(_)) => format!(
            ", set up on {ranks} {plural} ({})",
            request
                .partition
                .as_ref()
                .map_or("contiguous".into(), |f| f.name())
        ),
        (true, None) => format!(", set up on the input's {ranks} {plural}"),
        (false, _) => String::new(),
    };
    let timed = if args.timings {
        report::hierarchy::setup_table(&h.setup_times)
    } else {
        String::new()
    };
    emit(&format!(
        "{name} ({} preset{on})\n{}{timed}loaded in {:.2} s, hierarchy set up in {:.2} s\n",
        args.amg.preset.name(),
        report::hierarchy::table(h),
        stages.seconds("input"),
        stages.seconds("hierarchy"),
    ))
}
