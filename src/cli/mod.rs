//! Stage 9: the command line. Each command parses its flags into library
//! values, calls the library, and hands the result to `report`; every
//! failure is one `Error`, printed as one line, its exit status decided in
//! one place, `Error::exit_status`: 2 for how amgcomm was asked, 1 for the
//! input and failures at run time.

mod analyze;
#[cfg(feature = "mpi")]
mod analyze_mpi;
mod args;
mod compare;
mod hierarchy;
mod machine;
mod matrix;
mod measure;
#[cfg(feature = "mpi")]
mod mpi;
mod partition;

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};

use crate::amg::levels_io::LevelsError;
use crate::analysis::{AnalysisError, CompareError, VariantError};
use crate::comm::io::PatternError;
use crate::machine::MachineError;
use crate::matrix::source::LoadError;
use crate::model::reproduce::ReproduceError;
use crate::model::ModelError;
use crate::partition::PartitionError;
use crate::report::ReportError;

#[derive(Parser, Debug)]
#[command(
    name = "amgcomm",
    version,
    about = "Per-level communication analysis of algebraic multigrid hierarchies",
    long_about = "Per-level communication analysis of algebraic multigrid hierarchies.\n\n\
        INPUT is a Matrix Market file (.mtx or .mtx.gz) or a generator spec \
        gen:KIND:N with KIND one of elasticity3d, beam, poisson3d, poisson3d-27, poisson2d."
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
    Calibrate(measure::CalibrateArgs),
    /// Replay the patterns analyze --save-patterns saved, with MPI (under
    /// mpirun, one rank per saved rank), and write measured times for
    /// --measured; needs the mpi feature.
    Replay(measure::ReplayArgs),
}

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// How amgcomm was asked: a flag value out of range, an impossible
    /// combination, an output that cannot be written.
    #[error("{0}")]
    Usage(String),
    /// The machine asked for.
    #[error(transparent)]
    Machine(#[from] MachineError),
    /// The model asked for.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The variants asked for.
    #[error(transparent)]
    Variant(#[from] VariantError),
    /// The input matrix.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A request of the library (analyze, compare, hierarchy).
    #[error(transparent)]
    Request(#[from] crate::analysis::RequestError),
    /// A levels folder.
    #[error(transparent)]
    Levels(#[from] LevelsError),
    /// A partition.
    #[error(transparent)]
    Partition(#[from] PartitionError),
    /// The analysis.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// A compare variant.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// A chart.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The models' shipped parameters.
    #[error(transparent)]
    Reproduce(#[from] ReproduceError),
    /// A patterns file.
    #[error(transparent)]
    Patterns(#[from] PatternError),
    /// An output that would overwrite an input, or cannot be written.
    #[error(transparent)]
    Output(#[from] crate::output::Refused),
    /// A request (generator size, ranks) beyond this computer's memory.
    #[error(transparent)]
    Memory(#[from] crate::memory::TooLarge),
    /// Measurements that do not make a machine.
    #[error("calibrate: {0}")]
    Calibrate(#[from] crate::measure::calibrate::FitError),
    /// Saved patterns that cannot be replayed.
    #[error(transparent)]
    Replay(#[from] crate::measure::replay::ReplayError),
    /// A failure every rank of an MPI run agreed on (the first failing
    /// rank's message and status).
    #[cfg(feature = "mpi")]
    #[error("{message}")]
    Agreed {
        /// The message, naming the rank when it is not rank 0.
        message: String,
        /// Its exit status.
        status: i32,
    },
    /// An output file.
    #[error("cannot write {path}: {}", crate::output::reason(.source))]
    Write {
        /// The file.
        path: String,
        /// Why.
        source: io::Error,
    },
}

impl Error {
    /// 2 for how amgcomm was asked (as clap's flag errors), 1 for the
    /// input and failures at run time.
    pub(crate) fn exit_status(&self) -> i32 {
        use crate::matrix::source::LoadError;
        match self {
            Error::Request(e) if e.is_usage() => 2,
            Error::Usage(_)
            | Error::Machine(_)
            | Error::Model(_)
            | Error::Variant(_)
            | Error::Output(_)
            | Error::Memory(_)
            | Error::Load(LoadError::Spec { .. })
            | Error::Calibrate(crate::measure::calibrate::FitError::TooFewSizes(_)) => 2,
            #[cfg(feature = "mpi")]
            Error::Agreed { status, .. } => *status,
            _ => 1,
        }
    }

    /// Writing `path` failed.
    pub(crate) fn write(path: &std::path::Path) -> impl Fn(io::Error) -> Error + '_ {
        move |source| Error::Write {
            path: path.display().to_string(),
            source,
        }
    }
}

/// Set on the ranks of an MPI run but the first: they print no error or
/// warning (rank 0 prints what all agreed on).
static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences this process's errors and warnings (an MPI rank but 0).
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// The rank an MPI launcher gave this process, from its environment
/// (Open MPI, PMIx, MPICH's PMI, Slurm), before MPI starts.
fn launcher_rank() -> Option<u64> {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMIX_RANK",
        "PMI_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// The processes an MPI launcher started, from its environment (Open
/// MPI, MPICH's PMI), if it says.
fn launcher_size() -> Option<u64> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
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
        format!("started as one of {k} MPI processes, but built without the mpi feature, so each would analyse alone and write the same report: build with --features mpi (README, \"Measuring with MPI\"), or run it without mpirun")
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
        Command::Analyze(args) => analyze::run(&args),
        Command::Partition(args) => partition::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Machine(c) => machine::machine(c),
        Command::Models(c) => machine::models(c),
        Command::Calibrate(args) => measure::calibrate(&args),
        Command::Replay(args) => measure::replay(&args),
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

/// Ctrl-C (and SIGTERM, SIGHUP): remove every temporary file and folder,
/// so outputs keep their previous content ([`crate::output::clean_up`]);
/// exit 130 as shells expect of SIGINT.
fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        crate::output::clean_up();
        // mpirun ends the other ranks with SIGTERM when one fails: rank 0
        // has said why.
        if !quiet() {
            say(format_args!(
                "amgcomm: interrupted; unfinished outputs removed, earlier content kept"
            ));
        }
        std::process::exit(130);
    });
}

/// The library names a request's fields (`request.partition`); the
/// command line says the flag that sets each. Longer names first.
const FLAGS: [(&str, &str); 15] = [
    ("request.outputs.patterns", "--save-patterns"),
    ("request.outputs.folder", "--out"),
    ("request.outputs.json", "--json"),
    ("request.outputs.dot", "--dot"),
    ("request.amg.num_functions", "--num-functions"),
    ("request.serial_refinements", "--serial-refinements"),
    ("request.partition", "--partition"),
    ("request.variants", "--variants"),
    ("request.measured", "--measured"),
    ("request.machine", "--machine"),
    ("request.permute", "--permute"),
    ("request.levels", "--levels-from"),
    ("request.nodes", "--nodes"),
    ("request.ppn", "--ppn"),
    ("request.input", "INPUT"),
];

/// `text` with the library's field names as flags ([`FLAGS`]).
fn flags(text: &str) -> String {
    FLAGS
        .iter()
        .fold(text.to_string(), |t, (field, flag)| t.replace(field, flag))
}

/// One line on stderr in one write: under `mpirun`, whose output
/// forwarding interleaves what arrives in pieces, it stays whole. Fields
/// of library requests are named by their flags.
pub(crate) fn say(line: std::fmt::Arguments) {
    let text = format!("{}\n", flags(&line.to_string()));
    let _ = io::stderr().write_all(text.as_bytes());
}

/// A warning on stderr: one line, after `amgcomm: warning: `.
pub(crate) fn warn(w: impl std::fmt::Display) {
    if !quiet() {
        say(format_args!("amgcomm: warning: {w}"));
    }
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("amgcomm: internal error{place}: {msg} (please report this)");
    }));
}

/// Write to stdout; a closed pipe (`amgcomm info ... | head`) is not an error.
pub(crate) fn emit(text: &str) -> Result<(), Error> {
    match io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Error::Write {
            path: "stdout".into(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Write `content` to `path` atomically.
pub(crate) fn write_file(path: &std::path::Path, content: &str) -> Result<(), Error> {
    crate::output::write_atomically(path, |tmp| std::fs::write(tmp, content))
        .map_err(Error::write(path))
}

/// A spinner on stderr with the current step; silent when stderr is not a
/// terminal (indicatif's default).
pub(crate) struct Progress(indicatif::ProgressBar);

impl Progress {
    pub(crate) fn new() -> Progress {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(bar)
    }

    /// One that never draws (an MPI rank but 0).
    #[cfg(feature = "mpi")]
    pub(crate) fn hidden() -> Progress {
        Progress(indicatif::ProgressBar::hidden())
    }

    pub(crate) fn say(&self, msg: String) {
        self.0.set_message(msg);
    }

    /// A library run's step (on the spinner) or warning (a line).
    pub(crate) fn event(&self, e: crate::analysis::request::Event) {
        use crate::analysis::request::Event;
        match e {
            Event::Step(s) => self.say(s),
            Event::Warning(w) => self.suspend(|| warn(w)),
        }
    }

    /// Runs `f` (a warning) with the spinner hidden.
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.0.suspend(f)
    }

    pub(crate) fn done(&self) {
        self.0.finish_and_clear();
    }
}
