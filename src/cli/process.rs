//! The process around a command: who prints (rank 0 of an MPI run),
//! one-line messages with the library's field names as flags, the
//! spinner, and the hooks for panics and interrupts.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use super::Error;

/// Set on the ranks of an MPI run but the first: they print no error or
/// warning (rank 0 prints what all agreed on).
static QUIET: AtomicBool = AtomicBool::new(false);

/// Silences this process's errors and warnings (an MPI rank but 0).
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

pub(super) fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// The rank an MPI launcher gave this process, from its environment
/// (Open MPI, PMIx, MPICH's PMI, Slurm), before MPI starts.
pub(super) fn launcher_rank() -> Option<u64> {
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
pub(super) fn launcher_size() -> Option<u64> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE"]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse().ok())
}

/// The library names a request's fields (`request.partition`); the
/// command line says the flag that sets each. Longer names first.
const FLAGS: [(&str, &str); 19] = [
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
    ("request.ranks_per_gpu", "--ranks-per-gpu"),
    ("request.strategy", "--strategy"),
    ("request.cycle", "--cycle"),
    ("request.ops", "--ops"),
    ("request.input", "INPUT"),
];

/// `text` with the library's field names as flags ([`FLAGS`]).
pub(super) fn flags(text: &str) -> String {
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

pub(super) fn install_panic_hook() {
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

/// Ctrl-C (and SIGTERM, SIGHUP): remove every temporary file and folder,
/// so outputs keep their previous content ([`crate::output::clean_up`]);
/// exit 130 as shells expect of SIGINT.
pub(super) fn install_interrupt_handler() {
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
