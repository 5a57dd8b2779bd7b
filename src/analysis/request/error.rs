//! What a request can fail with, naming its fields (`request.<field>`).

use crate::amg::levels_io::LevelsError;
use crate::amg::BuildError;
use crate::analysis::{AnalysisError, CompareError};
use crate::matrix::source::LoadError;
use crate::memory::TooLarge;
use crate::output::Refused;
use crate::partition::PartitionError;

/// Why a request cannot run.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// A field that cannot be, found before any input is read; the text
    /// names fields as `request.<field>`.
    #[error("{0}")]
    Field(String),
    /// An output that would overwrite an input, or cannot be written.
    #[error(transparent)]
    Output(#[from] Refused),
    /// A request (generator size, ranks) beyond this computer's memory.
    #[error(transparent)]
    Memory(#[from] TooLarge),
    /// An input whose hierarchy would not fit in memory.
    #[error("{0}")]
    InputMemory(TooLarge),
    /// The input matrix.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The setup refused the matrix.
    #[error("{name}: {source}")]
    Build {
        /// The matrix.
        name: String,
        /// Why.
        source: BuildError,
    },
    /// A levels folder.
    #[error(transparent)]
    Levels(#[from] LevelsError),
    /// A partition.
    #[error(transparent)]
    Partition(#[from] PartitionError),
    /// The analysis.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
    /// A variant of `compare`.
    #[error(transparent)]
    Compare(#[from] CompareError),
    /// A measured file that does not read.
    #[error("request.measured {path}: {problem}")]
    Measured {
        /// The file.
        path: String,
        /// Why.
        problem: String,
    },
}

impl RequestError {
    /// Whether the request was asked wrongly (rather than its input
    /// being bad): a field, an output, memory asked for, a generator
    /// spec. The command line exits 2 for these, 1 for the rest.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            RequestError::Field(_)
                | RequestError::Output(_)
                | RequestError::Memory(_)
                | RequestError::Load(LoadError::Spec { .. })
        )
    }
}
