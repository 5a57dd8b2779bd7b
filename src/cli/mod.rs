//! Stage 9: the command line. Each command parses its flags into library
//! values, calls the library, and hands the result to `report`; every
//! failure is one `Error`, printed as one line, its exit status decided in
//! one place, `Error::exit_status`: 2 for how amgcomm was asked, 1 for the
//! input and failures at run time.
//!
//! May use every stage; its files import no circle (`tests/layering.rs`).

mod amg_args;
mod analyze;
#[cfg(feature = "mpi")]
mod analyze_mpi;
mod args;
mod calibrate;
mod compare;
mod cycle_args;
pub mod embedded;
mod error;
mod hierarchy;
mod input_args;
mod machine;
mod matrix;
#[cfg(feature = "mpi")]
mod mpi;
pub mod options;
mod partition;
mod process;
mod replay;
mod scale;

use clap::{Parser, Subcommand};

pub(crate) use error::Error;
pub(crate) use process::{emit, say, set_quiet, warn, write_file, Progress};
use process::{install_interrupt_handler, install_panic_hook, launcher_rank, launcher_size, quiet};

/// The top-level help: every kind of INPUT (the README's "Commands"
/// says the same).
fn long_about() -> String {
    format!(
        "Per-level communication analysis of algebraic multigrid hierarchies.\n\n\
         INPUT is one of: a Matrix Market file (.mtx, or gzip-compressed .mtx.gz); \
         a PETSc binary matrix (MatView's format, 32- or 64-bit indices); the prefix of \
         hypre IJ rank files (path/A for path/A.00000, path/A.00001, ...; their ranks are \
         the partition); - for standard input (Matrix Market or PETSc); or a generator \
         spec gen:KIND:N, built in memory, with KIND one of {}. All files are recognised \
         by their content. analyze also reads a whole hierarchy with --levels-from DIR \
         (levels saved by --save-levels or PyAMG, PETSc's A0.petsc, P0.petsc, ... or the \
         one file -pc_mg_dump_binary writes, hypre's A0.00000, P0.00000, ...).",
        crate::value_names::<crate::matrix::gen::Kind>()
    )
}

#[derive(Parser, Debug)]
#[command(
    name = "amgcomm",
    version,
    about = "Per-level communication analysis of algebraic multigrid hierarchies",
    long_about = long_about()
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
// Parsed once per run: the size difference of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Print the size, nonzeros, field and symmetry of a matrix.
    Info(matrix::InfoArgs),
    /// Per-level communication of the AMG hierarchy on a virtual machine.
    Analyze(analyze::AnalyzeArgs),
    /// Several partitions, placements and communication strategies side by side.
    Compare(compare::CompareArgs),
    /// The analysis over several node counts (strong or weak scaling).
    Scale(scale::ScaleArgs),
    /// Partition a matrix's rows and write a partition file.
    Partition(partition::PartitionArgs),
    /// Machine descriptions and their cost-model parameters.
    #[command(subcommand)]
    Machine(machine::MachineCommand),
    /// The classic cost models (LogGP/LoGPC, log3P, copy-transfer).
    #[command(subcommand)]
    Models(machine::ModelsCommand),
    /// Build the classical AMG hierarchy and print its levels.
    Hierarchy(hierarchy::HierarchyArgs),
    /// Generate a model problem and write it as Matrix Market.
    Generate(matrix::GenerateArgs),
    /// Measure this machine's parameters with MPI (under mpirun, at least
    /// 2 ranks) and write a machine file for --machine; needs the mpi
    /// feature.
    Calibrate(calibrate::CalibrateArgs),
    /// Replay the patterns analyze --save-patterns saved, with MPI (under
    /// mpirun, one rank per saved rank), and write measured times for
    /// --measured; needs the mpi feature.
    Replay(replay::ReplayArgs),
}

/// A command that runs as one process, started as one of several by an
/// MPI launcher: refused (exit 2), as every process would write the same
/// outputs. `calibrate`, `replay` and (built with the `mpi` feature)
/// `analyze` run under `mpirun`.
fn one_process_only(command: &Command) -> Option<i32> {
    let several = launcher_size().is_some_and(|k| k > 1) || launcher_rank().is_some_and(|r| r > 0);
    let mpi = matches!(command, Command::Calibrate(_) | Command::Replay(_))
        || (cfg!(feature = "mpi") && matches!(command, Command::Analyze(_)));
    if !several || mpi {
        return None;
    }
    let k = launcher_size().map_or("several".to_string(), |k| k.to_string());
    let line = if matches!(command, Command::Analyze(_)) {
        format!("started as one of {k} MPI processes, but built without the mpi feature, so each would analyse alone and write the same report: build with --features mpi (docs/mpi.md), or run it without mpirun")
    } else {
        let name = std::env::args().nth(1).unwrap_or_default();
        format!("started as one of {k} MPI processes: {name} runs as one process (analyze, calibrate and replay run under mpirun); run it without mpirun")
    };
    // Rank 0 says it; the others too when rank 0 may not know.
    if !quiet() || launcher_size().is_none() {
        say(format_args!("amgcomm: {line}"));
    } else {
        // Let rank 0 print before this exit makes mpirun end the job.
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    Some(2)
}

/// Run the command line; returns the process exit code.
pub fn run() -> i32 {
    install_panic_hook();
    install_interrupt_handler();
    // Under an MPI launcher, rank 0 alone prints errors, flag errors
    // included.
    set_quiet(launcher_rank().is_some_and(|r| r != 0));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return flag_error(e),
    };
    if let Some(refused) = one_process_only(&cli.command) {
        return refused;
    }
    let result = match cli.command {
        Command::Info(args) => matrix::info(&args),
        Command::Generate(args) => matrix::generate(&args),
        Command::Hierarchy(args) => hierarchy::run(&args),
        #[cfg(feature = "mpi")] // under mpirun the ranks analyze together
        Command::Analyze(args) if launcher_rank().is_some() => analyze_mpi::run(&args),
        Command::Analyze(args) => analyze::serial(&args),
        Command::Partition(args) => partition::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Scale(args) => scale::run(&args),
        Command::Machine(c) => machine::machine(c),
        Command::Models(c) => machine::models(c),
        Command::Calibrate(args) => calibrate::calibrate(&args),
        Command::Replay(args) => replay::replay(&args),
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            if !quiet() {
                say(format_args!("amgcomm: {e}"));
            }
            e.exit_status()
        }
    }
}

/// clap's messages span several lines; keep the first paragraph on one.
fn flag_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return 0;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        if !quiet() {
            let _ = e.print();
        }
        return 2;
    }
    let text = e.render().to_string();
    let first: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let mut line = first.join(" ");
    if let Some(tip) = text.lines().map(str::trim).find(|l| l.starts_with("tip:")) {
        line = format!("{line}; {tip}");
    }
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    if !quiet() {
        say(format_args!("amgcomm: {line} (see amgcomm --help)"));
    } else {
        // An MPI rank but 0 (no MPI yet): let rank 0 print before this
        // exit makes mpirun end the job.
        std::thread::sleep(std::time::Duration::from_millis(500));
    }
    2
}
