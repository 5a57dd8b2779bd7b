//! `amgcomm info` and `amgcomm generate`.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::input_args::MatrixArgs;
use super::{emit, Error};
use crate::matrix::gen::{Kind, Problem, ProblemError};
use crate::matrix::source::Source;
use crate::matrix::{csr, io, Symmetry};
use crate::output::Plan;
use crate::report::{self, ChartFormat};

#[derive(Args, Debug)]
pub(crate) struct InfoArgs {
    #[command(flatten)]
    matrix: MatrixArgs,
    /// Print {"rows","cols","nnz","field","symmetry"} as JSON.
    #[arg(long)]
    json: bool,
    /// Also draw the sparsity pattern to this file (.png or .svg).
    #[arg(long, value_name = "FILE")]
    spy: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct GenerateArgs {
    /// The model problem.
    #[arg(value_enum)]
    kind: Kind,
    /// Grid size: N^3 elements (elasticity3d), N^d unknowns (poisson).
    #[arg(long, value_name = "N")]
    n: usize,
    /// Output file (.mtx, or .mtx.gz for gzip).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Young's modulus (elasticity3d), positive.
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "E",
        allow_negative_numbers = true
    )]
    young: f64,
    /// Poisson's ratio (elasticity3d), in (-1, 0.5); negative for auxetic
    /// materials.
    #[arg(
        long,
        default_value_t = 0.3,
        value_name = "NU",
        allow_negative_numbers = true
    )]
    poisson_ratio: f64,
    /// Anisotropy epsilon (aniso2d), positive.
    #[arg(long, default_value_t = crate::matrix::gen::ANISO_EPSILON, value_name = "E", allow_negative_numbers = true)]
    epsilon: f64,
    /// Rotation of the anisotropy in degrees (aniso2d).
    #[arg(long, default_value_t = crate::matrix::gen::ANISO_ANGLE, value_name = "DEGREES", allow_negative_numbers = true)]
    angle: f64,
    /// Apply a random symmetric node permutation with this seed.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
}

pub(crate) fn info(args: &InfoArgs) -> Result<(), Error> {
    let source = args.matrix.source()?;
    if let Some(path) = &args.spy {
        ChartFormat::of(path).map_err(|e| Error::Usage(format!("--spy {e}")))?;
        let mut plan = Plan::new();
        args.matrix.add_input(&mut plan);
        plan.file("--spy", path)?;
    }
    let start = Instant::now();
    let m = args.matrix.load(&source)?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &args.spy {
        report::spy::draw(path, &m)?;
    }
    let info = m.info();
    if args.json {
        return emit(&report::pretty_json(&info));
    }
    let per_row = if info.rows > 0 {
        info.nnz as f64 / info.rows as f64
    } else {
        0.0
    };
    emit(&format!(
        "matrix    {}\nsize      {} x {}\nnnz       {} ({per_row:.1} per row)\nfield     {}\nsymmetry  {}\nloaded in {seconds:.3} s\n",
        m.name,
        info.rows,
        info.cols,
        info.nnz,
        info.field.as_str(),
        info.symmetry.as_str(),
    ))
}

pub(crate) fn generate(args: &GenerateArgs) -> Result<(), Error> {
    let start = Instant::now();
    let problem = Problem {
        kind: args.kind,
        n: args.n,
        young: args.young,
        poisson_ratio: args.poisson_ratio,
        epsilon: args.epsilon,
        angle: args.angle,
    };
    problem.validate().map_err(|e| {
        let flag = match e {
            ProblemError::ZeroSize(_) | ProblemError::TooLarge { .. } => "--n",
            ProblemError::Young(_) => "--young",
            ProblemError::PoissonRatio(_) => "--poisson-ratio",
            ProblemError::Material(_) => "--young, --poisson-ratio",
            ProblemError::Epsilon(_) => "--epsilon",
            ProblemError::Angle(_) => "--angle",
            ProblemError::Anisotropy(_) => "--epsilon, --angle",
            ProblemError::Memory(_) => "--n",
        };
        Error::Usage(format!("{flag}: {e}"))
    })?;
    Plan::new().file("--output", &args.output)?;
    crate::memory::check(problem.memory_bytes(), || problem.spec())?;
    let m = Source::Gen(problem).load(args.permute)?;
    // Generators are symmetric by construction (their tests check it); a
    // symmetric file stores the lower triangle only.
    let symmetry = m.symmetry;
    debug_assert!(symmetry != Symmetry::Symmetric || csr::is_symmetric(&m.csr));
    let comment = format!(
        "{} written by amgcomm {}",
        m.name,
        env!("CARGO_PKG_VERSION")
    );
    let out = &args.output;
    io::write(out, &m.csr, symmetry, &comment).map_err(Error::write(out))?;
    emit(&format!(
        "wrote {}: {} x {}, {} nonzeros, {} ({:.2} s)\n",
        out.display(),
        m.csr.rows(),
        m.csr.cols(),
        m.csr.nnz(),
        symmetry.as_str(),
        start.elapsed().as_secs_f64()
    ))
}
