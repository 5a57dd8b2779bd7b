//! `amgcomm partition`: write a partition file (one owner rank a line) of a
//! matrix's rows, for `analyze --partition FILE` or other tools.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::machine::Machine;
use crate::matrix::source::Source;
use crate::partition::methods::{self, Method, Objective, METHODS};

#[derive(Args, Debug)]
pub struct PartitionArgs {
    /// Matrix Market file (.mtx, .mtx.gz) or gen:KIND:N.
    input: String,
    /// Number of parts (ranks).
    #[arg(long)]
    parts: usize,
    /// Ranks per node, for metis-nodes (parts / ppn nodes).
    #[arg(long)]
    ppn: Option<usize>,
    /// contiguous, contiguous-nnz, random, metis or metis-nodes.
    #[arg(long, default_value = "metis")]
    method: String,
    /// What METIS minimises: cut or vol.
    #[arg(long, default_value = "cut", value_parser = ["cut", "vol"])]
    metis_objective: String,
    /// Seed of the random method.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
    /// Output file, e.g. partitioners/NAME.part.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

pub fn run(args: &PartitionArgs) -> Result<(), super::CliError> {
    use super::CliError::Usage;
    let objective = if args.metis_objective == "vol" {
        Objective::Vol
    } else {
        Objective::Cut
    };
    let method = Method::parse(&args.method, args.seed, objective).ok_or_else(|| {
        Usage(format!(
            "--method {}: unknown (known: {METHODS})",
            args.method
        ))
    })?;
    if args.parts == 0 {
        return Err(Usage("--parts must be at least 1".into()));
    }
    let ppn = args.ppn.unwrap_or(1);
    if ppn == 0 || !args.parts.is_multiple_of(ppn) {
        return Err(Usage(format!(
            "--parts {} is not a multiple of --ppn {ppn}",
            args.parts
        )));
    }
    if matches!(method, Method::MetisNodes { .. }) && args.ppn.is_none() {
        return Err(Usage(
            "--method metis-nodes needs --ppn (ranks per node)".into(),
        ));
    }
    let m = Machine {
        nodes: args.parts / ppn,
        ppn,
        sockets_per_node: 1,
        ..Machine::bluewaters()
    };
    let mat = Source::parse(&args.input)
        .map_err(|e| e.to_string())?
        .load(args.permute)
        .map_err(|e| e.to_string())?;
    if args.parts > mat.csr.rows() {
        return Err(Usage(format!(
            "--parts {} is larger than the {} rows of {}",
            args.parts,
            mat.csr.rows(),
            mat.name
        )));
    }
    let start = std::time::Instant::now();
    let p = methods::partition(&mat.csr, &m, method)?;
    let seconds = start.elapsed().as_secs_f64();
    crate::output::write_atomically(&args.output, |tmp| {
        let mut out = std::io::BufWriter::new(std::fs::File::create(tmp)?);
        writeln!(
            out,
            "% {} of {} into {} parts, written by amgcomm",
            method.name(),
            mat.name,
            args.parts
        )?;
        for o in &p.owner {
            writeln!(out, "{o}")?;
        }
        out.flush()
    })
    .map_err(|e| format!("cannot write {}: {e}", args.output.display()))?;
    Ok(super::emit(&format!(
        "wrote {}: {} rows into {} parts ({}, {seconds:.2} s)\n",
        args.output.display(),
        p.owner.len(),
        args.parts,
        method.name()
    ))?)
}
