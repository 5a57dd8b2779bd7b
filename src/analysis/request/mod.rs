//! One analysis as a plain-data [`Request`]: the input, the AMG settings,
//! the machine, the layout, the model and the outputs wanted. It is
//! checked before any input is read ([`Request::check`], which also plans
//! the outputs), then run into plain data ([`Request::run`]: the
//! hierarchy, its layout, the analysis, the measured overlay and the
//! advice) that `report` writes. `amgcomm analyze` is this request with
//! its flags mapped to fields; a library user fills the fields.
//!
//! Errors name the request's fields as `request.<field>`; the command
//! line maps them to its flags in one table.
//!
//! The request's parts live beside it: `check.rs` (everything checked
//! before any input is read), `hierarchy.rs` (the input read and the
//! hierarchy built on the layout's ranks), `run.rs` (the analysis, the
//! measured overlay and the comparison of variants) and `error.rs`.
//!
//! May use every stage before `analysis` and the rest of `analysis`;
//! `hierarchy.rs` uses the checks of `check.rs` on what it loads, and no
//! file here uses one after it (`tests/layering.rs`).

use std::path::PathBuf;

use super::advice::Advice;
use super::{Analysis, Options, Stages, Variant};
use crate::amg::diagnose::Warning;
use crate::amg::levels_io;
use crate::amg::{self, Hierarchy, Preset, Sizes};
use crate::comm::node_aware::Strategy;
use crate::machine::Machine;
use crate::matrix::mesh::HexMesh;
use crate::matrix::source::Source;
use crate::matrix::{Info, Ownership};
use crate::measured::Measured;
use crate::partition::methods::MethodOptions;
use crate::partition::{self, CoarseRule, Fine, Layout};

mod check;
mod error;
mod hierarchy;
mod run;

pub(crate) use check::misplaced;
pub use check::{check_generator, check_loaded, place_data, read_measured};
pub use error::RequestError;
pub use hierarchy::build;
pub use run::overlay_measured;

/// What to analyse.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A matrix to build the hierarchy from: a file (Matrix Market, a
    /// hypre IJ prefix `path/A` for `path/A.00000, ...`, PETSc binary, `-`
    /// for standard input) or a generator `gen:KIND:N`, with an optional
    /// random symmetric permutation's seed.
    Matrix {
        /// The file or generator.
        spec: String,
        /// Seed of the permutation applied first.
        permute: Option<u64>,
    },
    /// A saved hierarchy: a folder of levels or PETSc's
    /// `-pc_mg_dump_binary` file ([`levels_io::load_levels_ranked`]).
    Levels(PathBuf),
    /// A matrix or a hierarchy handed over in memory (the Python
    /// package's SciPy matrices and PyAMG levels), checked as a file's.
    Memory(std::sync::Arc<Held>),
}

/// What [`Input::Memory`] holds, named for reports and messages.
#[derive(Debug)]
pub struct Held {
    /// The name reports give it.
    pub name: String,
    /// The matrix, or the levels.
    pub what: HeldKind,
}

/// A matrix to build the hierarchy from, or the levels of one; taken
/// by the one run that reads it (no copy of the caller's matrices).
#[derive(Debug)]
pub enum HeldKind {
    /// The matrix `A`, rows numbered from 0.
    Matrix(std::sync::Mutex<Option<crate::matrix::Csr>>),
    /// Each level's `A`, `P` (none on the coarsest) and the fine indices
    /// of its coarse points when known (PyAMG's `splitting`).
    Levels(std::sync::Mutex<Option<Vec<levels_io::Given>>>),
}

impl Held {
    /// A matrix held as `name`.
    pub fn matrix(name: &str, a: crate::matrix::Csr) -> Held {
        Held {
            name: name.into(),
            what: HeldKind::Matrix(std::sync::Mutex::new(Some(a))),
        }
    }

    /// Levels held as `name`.
    pub fn levels(name: &str, levels: Vec<levels_io::Given>) -> Held {
        Held {
            name: name.into(),
            what: HeldKind::Levels(std::sync::Mutex::new(Some(levels))),
        }
    }
}

/// What was held, taken once.
fn take<T>(m: &std::sync::Mutex<Option<T>>, name: &str) -> Result<T, RequestError> {
    let mut g = m.lock().unwrap_or_else(|e| e.into_inner());
    g.take().ok_or_else(|| {
        RequestError::Field(format!(
            "request.input {name}: a held input is read by one run; hand it over again"
        ))
    })
}

/// Two held inputs are equal when they are the same one.
impl PartialEq for Held {
    fn eq(&self, other: &Held) -> bool {
        std::ptr::eq(self, other)
    }
}

/// The files an analysis writes; `None` writes nothing of that kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    /// The report folder (`report.json`, `levels.csv`, charts); `None`:
    /// `reports/<input's name>/` ([`Request::folder`]).
    pub folder: Option<PathBuf>,
    /// The report JSON again, outside the folder.
    pub json: Option<PathBuf>,
    /// Every kept pattern's process graph as Graphviz DOT, a folder.
    pub dot: Option<PathBuf>,
    /// Every level's patterns for `amgcomm replay`, a folder.
    pub patterns: Option<PathBuf>,
}

/// One analysis, as plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The input.
    pub input: Input,
    /// The preset the AMG settings came from (named in the report).
    pub preset: Preset,
    /// The AMG settings (the preset's, possibly changed).
    pub amg: amg::Options,
    /// The machine.
    pub machine: Machine,
    /// The fine partition; `None`: the input's own ranks when it was
    /// written per rank, else contiguous blocks.
    pub partition: Option<Fine>,
    /// `mfem`'s serial refinements; `None`: the fewest that give every
    /// rank an element.
    pub serial_refinements: Option<u32>,
    /// The coarse levels' rule.
    pub coarse: CoarseRule,
    /// The partition methods' seed and METIS objective.
    pub methods: MethodOptions,
    /// Model, strategy and what to keep.
    pub options: Options,
    /// Measured times to set beside the model (RAPtor's output or
    /// amgcomm's measured JSON).
    pub measured: Option<PathBuf>,
    /// Try the alternatives that would cut the time.
    pub advice: bool,
    /// What to write.
    pub outputs: Outputs,
    /// Other files the request was made from (a machine file): no
    /// output may overwrite them.
    pub inputs: Vec<PathBuf>,
    /// `compare`'s variants of partition, placement, coarse rule and
    /// strategy ([`Request::compare`]); empty for an analysis.
    pub variants: Vec<Variant>,
}

impl Request {
    /// `input` on `machine` with the defaults of `amgcomm analyze`: the
    /// hypre preset, the input's ranks or contiguous blocks, the inherit
    /// rule, the default model, ptap, no outputs.
    pub fn new(input: Input, machine: Machine) -> Request {
        Request {
            input,
            preset: Preset::Hypre,
            amg: Preset::Hypre.options(),
            machine,
            partition: None,
            serial_refinements: None,
            coarse: CoarseRule::Inherit,
            methods: MethodOptions::default(),
            options: Options::default(),
            measured: None,
            advice: false,
            outputs: Outputs::default(),
            variants: Vec::new(),
            inputs: Vec::new(),
        }
    }

    /// The same request with `preset`'s AMG settings.
    pub fn with_preset(mut self, preset: Preset) -> Request {
        self.preset = preset;
        self.amg = preset.options();
        self.options.ops = super::default_ops(preset);
        self
    }

    /// The report folder: [`Outputs::folder`], or `reports/<name>/` for a
    /// file `path/name.mtx[.gz]`, `gen:kind:n` or a levels folder
    /// (`reports/stdin/` for standard input, `_permuted` when permuted).
    pub fn folder(&self) -> PathBuf {
        if let Some(dir) = &self.outputs.folder {
            return dir.clone();
        }
        let (base, permute) = match &self.input {
            Input::Levels(dir) => (
                dir.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "levels".into()),
                None,
            ),
            Input::Memory(held) => (held.name.clone(), None),
            Input::Matrix { spec, permute } if spec == "-" => ("stdin".into(), *permute),
            Input::Matrix { spec, permute } => (
                crate::matrix::source::base_name(spec)
                    .replace("gen:", "")
                    .replace(':', "_"),
                *permute,
            ),
        };
        match permute {
            Some(_) => PathBuf::from("reports").join(format!("{base}_permuted")),
            None => PathBuf::from("reports").join(base),
        }
    }

    /// The same request under `strategy`, its model charging what the
    /// strategy moves ([`crate::model::Model::for_run`]).
    pub fn with_strategy(mut self, strategy: Strategy) -> Request {
        self.options.strategy = strategy;
        self.options.model = self
            .options
            .model
            .for_run(strategy, self.options.ops, &self.machine);
        self
    }
}

/// What [`Request::check`] found before any input was read, for
/// [`Request::run`].
#[derive(Clone, Debug)]
pub struct Checked {
    /// The input matrix, parsed (a generator spec checked) but not read.
    pub source: Option<Source>,
    /// `mfem`'s mesh and serial refinements.
    pub mesh: Option<MeshRequest>,
    /// The measured file, read and checked against the machine's ranks.
    pub measured: Option<Measured>,
}

/// What `mfem` partitions: a generator's mesh, after `serial` serial
/// refinements, into `ranks` parts.
#[derive(Clone, Copy, Debug)]
pub struct MeshRequest {
    /// The mesh.
    pub mesh: HexMesh,
    /// Serial refinements.
    pub serial: u32,
    /// Ranks.
    pub ranks: usize,
}

/// What a run tells while it runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The step now under way.
    Step(String),
    /// Something the user should know (one line).
    Warning(String),
}

/// A hierarchy and what the report says of its origin.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The matrix's name, or the folder.
    pub name: String,
    /// Level 0's size.
    pub info: Info,
    /// The hierarchy.
    pub h: Hierarchy,
    /// `<preset> preset` or `levels from <dir>`.
    pub source: String,
    /// Whether amgcomm built it (and timed its setup steps).
    pub built: bool,
    /// The row blocks the rows were renumbered to (`mfem`).
    pub blocks: Option<Fine>,
    /// The ranks' rows as the input's files give them: level 0's for a
    /// hypre IJ matrix, every level's for a hypre levels folder.
    pub ownership: Option<Vec<Ownership>>,
    /// How the input numbers level 0's rows, for warnings.
    pub numbering: crate::matrix::Numbering,
    /// The fine partition the hierarchy was built on, when the setup
    /// depends on the ranks and the input had no row blocks of its own.
    pub fine_part: Option<partition::Partition>,
}

/// Where measured times came from, and what they lack.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MeasuredOverlay {
    /// The file given.
    pub file: String,
    /// `raptor`, `amgcomm`, `caliper` or `petsc`.
    pub format: &'static str,
    /// Ranks, when the file states them.
    pub ranks: Option<usize>,
    /// Levels and operations not measured, levels beyond the hierarchy.
    pub warnings: Vec<String>,
    /// How the reader read the file (a profile's), one sentence each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A profile's phases of each level beside the model.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub levels: Vec<super::PhaseOverlay>,
}

/// A run's plain data, for `report`.
#[derive(Clone, Debug)]
pub struct Run {
    /// The matrix's name, or the levels folder.
    pub name: String,
    /// Level 0's size.
    pub info: Info,
    /// `<preset> preset`, `levels from <dir>`, ...
    pub source: String,
    /// Every level's sizes and the complexities.
    pub sizes: Sizes,
    /// The hierarchy, when amgcomm built it (its setup timings).
    pub built: Option<Hierarchy>,
    /// The fine partition used.
    pub fine: Fine,
    /// The coarse rule used (`files` when the input gave every level's).
    pub coarse: CoarseRule,
    /// Every level's rows on the ranks (`None` when the levels were
    /// read across MPI processes).
    pub layout: Option<Layout>,
    /// Every level's communication and cost.
    pub analysis: Analysis,
    /// The solve beside the setup, when a cycle was asked for.
    pub cycle: Option<super::cycle::CycleAnalysis>,
    /// What makes the hierarchy suspect.
    pub warnings: Vec<Warning>,
    /// The measured times set beside the model.
    pub measured: Option<MeasuredOverlay>,
    /// What would cut the time, when asked for.
    pub advice: Option<Vec<Advice>>,
    /// Seconds reading and building.
    pub input_seconds: f64,
    /// Wall time of each stage.
    pub stages: Stages,
}
