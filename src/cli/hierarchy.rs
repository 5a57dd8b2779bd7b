//! `amgcomm hierarchy`: build the AMG hierarchy and print its level table.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::amg_args::AmgArgs;
use super::input_args::MatrixArgs;
use super::{emit, warn, write_file, Error, Progress};
use crate::amg::{self, levels_io};
use crate::analysis::request::{build, check_generator, check_loaded};
use crate::output::Plan;
use crate::report;

#[derive(Args, Debug)]
pub(crate) struct HierarchyArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    #[command(flatten)]
    amg: AmgArgs,
    /// Write {"operator_complexity","grid_complexity","levels":[...]} here.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    json: Option<PathBuf>,
    /// Write A{l}.mtx, P{l}.mtx and C{l}.txt of every level as the folder
    /// DIR (replaced whole).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    save_levels: Option<PathBuf>,
}

pub(crate) fn run(args: &HierarchyArgs) -> Result<(), Error> {
    let o = args.amg.options()?;
    let source = args.matrix.source()?;
    let mut plan = Plan::new();
    args.matrix.add_input(&mut plan);
    if let Some(path) = &args.json {
        plan.file("--json", path)?;
    }
    if let Some(dir) = &args.save_levels {
        plan.folder("--save-levels", dir, levels_io::is_levels_file)?;
    }
    check_generator(&source, &o, args.amg.preset, amg::setup_bytes)?;
    let start = Instant::now();
    let m = args.matrix.load(&source)?;
    check_loaded(&m.name, m.csr.rows(), m.csr.nnz(), amg::setup_bytes)?;
    let loaded = start.elapsed().as_secs_f64();
    let name = m.name.clone();
    let setup_start = Instant::now();
    let progress = Progress::new();
    let numbering = m.numbering;
    let h = build(m, &o, args.amg.preset, &|e| progress.event(e))?;
    progress.done();
    for w in amg::diagnose::warnings(&h, Some(&o), numbering) {
        warn(&w);
    }
    let setup = setup_start.elapsed().as_secs_f64();
    if let Some(path) = &args.json {
        write_file(path, &report::pretty_json(&h.sizes()))?;
    }
    if let Some(dir) = &args.save_levels {
        levels_io::save_levels(&h, dir, &name)?;
    }
    emit(&format!(
        "{name} ({} preset)\n{}loaded in {loaded:.2} s, hierarchy set up in {setup:.2} s\n",
        args.amg.preset.name(),
        report::hierarchy::table(&h)
    ))
}
