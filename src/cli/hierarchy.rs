//! `amgcomm hierarchy`: build the AMG hierarchy and print its level table.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::args::{build, AmgArgs, MatrixArgs};
use super::{emit, write_file, Error, Progress};
use crate::amg::levels_io;
use crate::report;

#[derive(Args, Debug)]
pub(crate) struct HierarchyArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    #[command(flatten)]
    amg: AmgArgs,
    /// Write {"operator_complexity","grid_complexity","levels":[...]} here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write A{l}.mtx, P{l}.mtx and C{l}.txt of every level into DIR.
    #[arg(long, value_name = "DIR")]
    save_levels: Option<PathBuf>,
}

pub(crate) fn run(args: &HierarchyArgs) -> Result<(), Error> {
    let o = args.amg.options()?;
    let start = Instant::now();
    let m = args.matrix.load()?;
    let loaded = start.elapsed().as_secs_f64();
    let name = m.name.clone();
    let setup_start = Instant::now();
    let progress = Progress::new();
    let h = build(m, &o, &progress)?;
    progress.done();
    let setup = setup_start.elapsed().as_secs_f64();
    if let Some(path) = &args.json {
        write_file(path, &report::pretty_json(&report::hierarchy::json(&h)))?;
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
