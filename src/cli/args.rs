//! Flag groups shared by the commands, and how each becomes a library
//! value. Options are the library's `ValueEnum`s; their help comes from
//! their doc comments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::stages::Stages;
use super::{Error, Progress};
use crate::amg::strength::Rule;
use crate::amg::{
    self, levels_io, BuildError, Coarsening, Hierarchy, Interpolation, Options, Preset,
};
use crate::machine::{Machine, Placement};
use crate::matrix::source::Source;
use crate::matrix::{Field, Info, Matrix, Symmetry};
use crate::partition::methods::{Method, MethodOptions, Objective};
use crate::partition::{CoarseRule, Fine};

/// Where the ranks run: shared by `analyze` and `compare`.
#[derive(Args, Debug)]
pub(crate) struct MachineArgs {
    /// Machine: bluewaters (built in) or a JSON file with name, nodes, ppn,
    /// sockets_per_node, nodes_per_router [, placement, params].
    #[arg(long, default_value = "bluewaters", value_name = "NAME|FILE")]
    machine: String,
    /// Number of nodes (overrides the machine's).
    #[arg(long)]
    nodes: Option<usize>,
    /// Processes per node (overrides the machine's).
    #[arg(long)]
    ppn: Option<usize>,
    /// Rank placement (overrides the machine's).
    #[arg(long, value_enum)]
    placement: Option<Placement>,
    /// Seed of --placement random.
    #[arg(long, default_value_t = 0)]
    placement_seed: u64,
}

impl MachineArgs {
    /// The machine with the overrides applied and checked.
    pub(crate) fn resolve(&self) -> Result<Machine, Error> {
        let mut m = Machine::named_or_file(&self.machine)?;
        for (flag, v) in [("--nodes", self.nodes), ("--ppn", self.ppn)] {
            if v == Some(0) {
                return Err(Error::Usage(format!("{flag} must be at least 1, got 0")));
            }
        }
        m.nodes = self.nodes.unwrap_or(m.nodes);
        m.ppn = self.ppn.unwrap_or(m.ppn);
        if let Some(p) = self.placement {
            m.placement = p.with_seed(self.placement_seed);
        }
        if let Some(ppn) = self.ppn.filter(|p| !p.is_multiple_of(m.sockets_per_node)) {
            return Err(Error::Usage(format!(
                "--ppn {ppn}: not divisible by the {} sockets per node of {}",
                m.sockets_per_node, m.name
            )));
        }
        m.validate()
            .map_err(|e| Error::Usage(format!("machine {}: {e}", m.name)))?;
        Ok(m)
    }
}

/// The AMG setup flags shared by `hierarchy`, `analyze` and `compare`.
#[derive(Args, Debug)]
pub(crate) struct AmgArgs {
    /// Settings chosen at once; the flags below override them.
    #[arg(long, value_enum, default_value_t = Preset::Hypre)]
    pub(crate) preset: Preset,
    /// Strength threshold theta, in [0, 1].
    #[arg(long)]
    theta: Option<f64>,
    /// Strength rule.
    #[arg(long, value_enum)]
    strength: Option<Rule>,
    /// hypre's max_row_sum (signed rule); 1.0 switches it off.
    #[arg(long)]
    max_row_sum: Option<f64>,
    /// Unknowns per node for unknown-based strength (3 for 3D elasticity).
    #[arg(long)]
    num_functions: Option<usize>,
    /// C/F splitting.
    #[arg(long, value_enum)]
    coarsening: Option<Coarsening>,
    /// Interpolation.
    #[arg(long, value_enum)]
    interpolation: Option<Interpolation>,
    /// At most this many entries per row of P (hypre's P_max_elmts; 0: no limit).
    #[arg(long)]
    p_max_elmts: Option<usize>,
    /// Drop entries of P below this fraction of the row's largest (hypre's
    /// trunc_factor), in [0, 1).
    #[arg(long)]
    trunc_factor: Option<f64>,
    /// Seed of the random weights of pmis, hmis and cljp.
    #[arg(long)]
    seed: Option<u64>,
    /// Stop when a level has at most this many rows.
    #[arg(long)]
    max_coarse: Option<usize>,
    /// At most this many levels.
    #[arg(long)]
    max_levels: Option<usize>,
}

impl AmgArgs {
    /// The preset with the flags applied, checked before any input is read.
    pub(crate) fn options(&self) -> Result<Options, Error> {
        let mut o = self.preset.options();
        let s = &mut o.strength;
        s.theta = self.theta.unwrap_or(s.theta);
        s.rule = self.strength.unwrap_or(s.rule);
        s.max_row_sum = self.max_row_sum.unwrap_or(s.max_row_sum);
        s.num_functions = self.num_functions.unwrap_or(s.num_functions);
        o.coarsening = self.coarsening.unwrap_or(o.coarsening);
        o.interpolation = self.interpolation.unwrap_or(o.interpolation);
        o.p_max_elmts = self.p_max_elmts.unwrap_or(o.p_max_elmts);
        o.trunc_factor = self.trunc_factor.unwrap_or(o.trunc_factor);
        o.seed = self.seed.unwrap_or(o.seed);
        o.max_coarse = self.max_coarse.unwrap_or(o.max_coarse);
        o.max_levels = self.max_levels.unwrap_or(o.max_levels);
        o.validate().map_err(|e| {
            let flag = match e {
                BuildError::Theta(_) => "--theta: ",
                BuildError::TruncFactor(_) => "--trunc-factor: ",
                BuildError::MaxLevels => "--max-levels: ",
                BuildError::NumFunctions => "--num-functions: ",
                // Not an option's error; validate() does not return it.
                BuildError::NotSquare { .. } => "",
            };
            Error::Usage(format!("{flag}{e}"))
        })?;
        Ok(o)
    }
}

/// Build the hierarchy (taking the matrix over), naming each level on the
/// progress spinner.
pub(crate) fn build(m: Matrix, o: &Options, progress: &Progress) -> Result<Hierarchy, Error> {
    let mut step = |level: usize, rows: usize| {
        progress.say(format!(
            "setting up level {level} ({} rows)",
            crate::report::group(rows)
        ))
    };
    amg::build_owned(m.csr, o, &mut step).map_err(|source| Error::Build {
        name: m.name,
        source,
    })
}

/// The fine partition, its METIS objective and seed, and the coarse rule.
#[derive(Args, Debug)]
pub(crate) struct PartitionArgs {
    /// Partition of the fine rows: a method, or a partition file (one
    /// owner rank a line, as METIS writes them).
    #[arg(long, default_value = "contiguous", value_name = "NAME|FILE",
          value_parser = |s: &str| Ok::<_, std::convert::Infallible>(Fine::parse(s)),
          long_help = fine_help())]
    partition: Fine,
    /// What METIS minimises.
    #[arg(long, value_enum, default_value_t = Objective::Cut)]
    metis_objective: Objective,
    /// Seed of --partition random.
    #[arg(long, default_value_t = 0)]
    partition_seed: u64,
    /// Coarse levels.
    #[arg(long, value_enum, default_value_t = CoarseRule::Inherit)]
    pub(crate) coarse_partition: CoarseRule,
}

/// `--partition`'s help: the methods with their docs.
fn fine_help() -> String {
    let mut s = String::from(
        "Partition of the fine rows: a method, or a partition file (one owner rank a line, \
         as METIS writes them) [default: contiguous]\n",
    );
    for m in Method::value_variants() {
        let v = m.to_possible_value().expect("no skipped methods");
        let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
        s += &format!("\n- {}: {help}", v.get_name());
    }
    s
}

impl PartitionArgs {
    /// The fine partition asked for; a file must exist.
    pub(crate) fn fine(&self) -> Result<&Fine, Error> {
        if let Fine::File(path) = &self.partition {
            if !path.exists() {
                return Err(Error::Usage(format!(
                    "--partition {}: neither a method ({}) nor a partition file",
                    path.display(),
                    crate::value_names::<Method>()
                )));
            }
        }
        Ok(&self.partition)
    }

    /// The methods' seed and objective.
    pub(crate) fn methods(&self) -> MethodOptions {
        MethodOptions {
            seed: self.partition_seed,
            objective: self.metis_objective,
        }
    }
}

/// A matrix input: a file or `gen:KIND:N`, optionally permuted.
#[derive(Args, Debug)]
pub(crate) struct MatrixArgs {
    /// Matrix Market file (.mtx, .mtx.gz) or gen:KIND:N.
    pub(crate) input: String,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    pub(crate) permute: Option<u64>,
}

impl MatrixArgs {
    /// Read or generate the matrix.
    pub(crate) fn load(&self) -> Result<Matrix, Error> {
        Ok(Source::parse(&self.input)?.load(self.permute)?)
    }
}

/// The hierarchy to analyse: a matrix to build it from, or a levels folder.
#[derive(Args, Debug)]
pub(crate) struct InputArgs {
    /// Matrix Market file (.mtx, .mtx.gz) or gen:KIND:N (or use --levels-from).
    #[arg(
        required_unless_present = "levels_from",
        conflicts_with = "levels_from"
    )]
    input: Option<String>,
    /// Read the hierarchy (A0.mtx, P0.mtx, [C0.txt], A1.mtx, ...) from DIR
    /// instead of building one, e.g. one saved from hypre, PETSc or PyAMG.
    #[arg(long, value_name = "DIR")]
    levels_from: Option<PathBuf>,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
}

/// A hierarchy and what the report says of its origin.
pub(crate) struct Loaded {
    /// The matrix's name, or the folder.
    pub(crate) name: String,
    /// Level 0's size.
    pub(crate) info: Info,
    /// The hierarchy.
    pub(crate) h: Hierarchy,
    /// `<preset> preset` or `levels from <dir>`.
    pub(crate) source: String,
    /// Whether amgcomm built it (and timed its setup steps).
    pub(crate) built: bool,
}

impl InputArgs {
    /// `reports/<name>/` for a file `path/name.mtx[.gz]`, `gen:kind:n` or a
    /// levels folder.
    pub(crate) fn default_out(&self) -> PathBuf {
        let base = match (&self.levels_from, &self.input) {
            (Some(dir), _) => dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "levels".into()),
            (None, Some(input)) => crate::report::base_name(input)
                .replace("gen:", "")
                .replace(':', "_"),
            (None, None) => "report".into(),
        };
        match self.permute {
            Some(_) => PathBuf::from("reports").join(format!("{base}_permuted")),
            None => PathBuf::from("reports").join(base),
        }
    }

    /// Read the levels, or read the matrix and build them, timing both.
    pub(crate) fn load(
        &self,
        amg: &AmgArgs,
        o: &Options,
        progress: &Progress,
        stages: &mut Stages,
    ) -> Result<Loaded, Error> {
        if let Some(dir) = &self.levels_from {
            progress.say(format!("reading levels from {}", dir.display()));
            let h = levels_io::load_levels(dir)?;
            stages.lap("input");
            stages.lap("hierarchy");
            let a = &h.levels[0].a;
            let info = Info {
                rows: a.rows(),
                cols: a.cols(),
                nnz: a.nnz(),
                field: Field::Real,
                symmetry: Symmetry::General,
            };
            let name = dir.display().to_string();
            let source = format!("levels from {name}");
            return Ok(Loaded {
                name,
                info,
                h,
                source,
                built: false,
            });
        }
        let input = self
            .input
            .as_deref()
            .expect("clap requires INPUT or --levels-from");
        progress.say(format!("reading {input}"));
        let mat = Source::parse(input)?.load(self.permute)?;
        let (name, info) = (mat.name.clone(), mat.info());
        stages.lap("input");
        let h = build(mat, o, progress)?;
        stages.lap("hierarchy");
        Ok(Loaded {
            name,
            info,
            h,
            source: format!("{} preset", amg.preset.name()),
            built: true,
        })
    }
}
