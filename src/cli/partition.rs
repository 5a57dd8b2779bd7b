//! `amgcomm partition`: write a partition file (one owner rank a line) of a
//! matrix's rows, for `analyze --partition FILE` or other tools.

use std::path::PathBuf;

use clap::Args;

use super::input_args::MatrixArgs;
use super::{emit, Error};
use crate::partition::methods::{self, Method, MethodOptions, Objective};

#[derive(Args, Debug)]
pub(crate) struct PartitionArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    /// Number of parts (ranks).
    #[arg(long)]
    parts: usize,
    /// Ranks per node, for metis-nodes (parts / ppn nodes).
    #[arg(long)]
    ppn: Option<usize>,
    /// The method.
    #[arg(long, value_enum, default_value_t = Method::Metis)]
    method: Method,
    /// What METIS minimises.
    #[arg(long, value_enum, default_value_t = Objective::Cut)]
    metis_objective: Objective,
    /// Seed of the random method.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Output file, e.g. partitioners/NAME.part.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

pub(crate) fn run(args: &PartitionArgs) -> Result<(), Error> {
    let usage = |s: String| Err(Error::Usage(s));
    if args.parts == 0 {
        return usage("--parts must be at least 1".into());
    }
    let ppn = args.ppn.unwrap_or(1);
    if ppn == 0 || !args.parts.is_multiple_of(ppn) {
        return usage(format!(
            "--parts {} is not a multiple of --ppn {ppn}",
            args.parts
        ));
    }
    if args.method == Method::MetisNodes && args.ppn.is_none() {
        return usage("--method metis-nodes needs --ppn (ranks per node)".into());
    }
    let source = args.matrix.source()?;
    // MFEM's partition works on the mesh: a mesh generator's, not permuted.
    let mesh = if args.method == Method::Mfem {
        let mesh = match &source {
            crate::matrix::source::Source::Gen(g) => g.kind.mesh(g.n),
            _ => None,
        };
        let Some(mesh) = mesh.filter(|_| args.matrix.permute.is_none()) else {
            return usage(format!(
                "--method mfem partitions a mesh generator's elements (gen:beam:R, gen:elasticity3d:N, not permuted); {} has no mesh",
                args.matrix.input
            ));
        };
        crate::partition::mfem::serial_refinements(&mesh, args.parts, None)
            .map_err(|e| Error::Usage(e.to_string()))?;
        Some(mesh)
    } else {
        None
    };
    let mut plan = crate::output::Plan::new();
    args.matrix.add_input(&mut plan);
    plan.file("--output", &args.output)?;
    let mat = args.matrix.load(&source)?;
    if args.parts > mat.csr.rows() {
        return usage(format!(
            "--parts {} is larger than the {} rows of {}",
            args.parts,
            mat.csr.rows(),
            mat.name
        ));
    }
    let start = std::time::Instant::now();
    let o = MethodOptions {
        seed: args.seed,
        objective: args.metis_objective,
    };
    let p = match &mesh {
        // Owners in the generator's row order (analyze --partition mfem
        // also renumbers the rows rank by rank).
        Some(mesh) => {
            let p = crate::partition::mfem::partition(mesh, args.parts, None)?;
            p.row_owners(mesh.block, args.parts)
        }
        None => methods::into_parts(&mat.csr, args.parts, ppn, args.method, &o)?,
    };
    let seconds = start.elapsed().as_secs_f64();
    let method = args.method.name();
    let comment = format!(
        "{method} of {} into {} parts, written by amgcomm",
        mat.name, args.parts
    );
    crate::partition::file::write(&args.output, &p, &comment)
        .map_err(Error::write(&args.output))?;
    emit(&format!(
        "wrote {}: {} rows into {} parts ({method}, {seconds:.2} s)\n",
        args.output.display(),
        p.owner.len(),
        args.parts,
    ))
}
