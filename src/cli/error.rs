//! Why a command failed, and its exit status, decided in one place.

use std::io;

use crate::amg::levels_io::LevelsError;
use crate::analysis::VariantError;
use crate::machine::MachineError;
use crate::matrix::source::LoadError;
use crate::measure::reproduce::ReproduceError;
use crate::model::ModelError;
use crate::partition::PartitionError;
use crate::report::ReportError;

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
    /// A chart.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The models' shipped parameters.
    #[error(transparent)]
    Reproduce(#[from] ReproduceError),
    /// An output that would overwrite an input, or cannot be written.
    #[error(transparent)]
    Output(#[from] crate::output::Refused),
    /// A request (generator size, ranks) beyond this computer's memory.
    #[error(transparent)]
    Memory(#[from] crate::memory::TooLarge),
    /// Measurements that do not make a machine.
    #[error("calibrate: {0}")]
    Calibrate(#[from] crate::measure::calibrate::FitError),
    /// BenchPress outputs or a table of medians that do not read.
    #[error(transparent)]
    Bench(#[from] crate::measure::benchpress::BenchError),
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
