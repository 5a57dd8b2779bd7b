//! Where a machine file's parameters come from, when `amgcomm calibrate`
//! measured them: the run, each fit with its quality, and what was not
//! measured and kept at Blue Waters' values.

use serde::{Deserialize, Serialize};

/// How a machine file's parameters were measured (its `calibration`
/// block; absent from hand-written files and `bluewaters`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// The program and version that measured.
    pub tool: String,
    /// When (UTC, ISO 8601).
    pub date: String,
    /// The MPI library's version line.
    pub mpi_library: String,
    /// Ranks of the run.
    pub ranks: usize,
    /// Nodes MPI reported (ranks sharing memory).
    pub real_nodes: usize,
    /// All ranks shared one node: the "network" figures are shared memory
    /// between virtual nodes, not a network.
    pub loopback: bool,
    /// `--quick`: fewer sizes and repetitions.
    pub quick: bool,
    /// Each fitted parameter.
    pub fits: Vec<Fit>,
    /// Parameters not measured, kept at Blue Waters' values, each with why.
    pub not_measured: Vec<String>,
    /// Anything else a reader of the numbers should know.
    pub notes: Vec<String>,
    /// The raw measurements: a CSV file beside the machine file.
    pub measurements: String,
}

/// One fitted parameter or postal class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fit {
    /// `socket.short`, `network.rend`, `r_n`, `gamma`, `delta`,
    /// `eager_threshold`, ...
    pub parameter: String,
    /// How: `least squares alpha + s/R_b`, `highest node rate`, ...
    pub method: String,
    /// The value set (postal classes: see `alpha` and `rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// A postal class's `alpha` (s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// A postal class's `R_b` (bytes/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// R^2 of the fit, where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r2: Option<f64>,
    /// Root mean square relative residual, where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rel_err: Option<f64>,
    /// Measurements fitted.
    pub points: usize,
    /// Smallest and largest message fitted (bytes), for postal classes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<[u64; 2]>,
}

/// Where one parameter of a machine comes from (a preset's
/// `provenance`): a measured file and its fit, a published figure, or
/// "assumed" with the reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `nodes`, `ppn`, `network.groups`, `socket.short`, `gamma`, ... or
    /// `note`.
    pub parameter: String,
    /// `fitted: ...`, `published: ...` or `assumed: ...`.
    pub source: String,
}
