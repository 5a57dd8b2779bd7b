//! Flag groups shared by the commands, and how each becomes a library
//! value. Options are the library's `ValueEnum`s; their help comes from
//! their doc comments.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::Error;
use crate::amg::strength::Rule;
use crate::amg::{BuildError, Coarsening, Interpolation, Options, Preset};
use crate::analysis::{Input, Request};
use crate::machine::{Machine, Placement};
use crate::matrix::source::Source;
use crate::matrix::Matrix;
use crate::output::Plan;
use crate::partition::methods::{Method, MethodOptions, Objective};
use crate::partition::{CoarseRule, Fine};

/// Where the ranks run: shared by `analyze` and `compare`.
#[derive(Args, Debug)]
#[command(next_help_heading = "Machine")]
pub(crate) struct MachineArgs {
    /// Machine: bluewaters (built in) or a JSON file with name, nodes, ppn,
    /// sockets_per_node, nodes_per_router [, placement, params].
    #[arg(long, default_value = "bluewaters", value_name = "NAME|FILE")]
    machine: String,
    /// Number of nodes (overrides the machine's; bluewaters: 512).
    #[arg(long)]
    nodes: Option<usize>,
    /// Processes per node (overrides the machine's; bluewaters: 16).
    #[arg(long)]
    ppn: Option<usize>,
    /// Rank placement (overrides the machine's; bluewaters: smp).
    #[arg(long, value_enum)]
    placement: Option<Placement>,
    /// Seed of --placement random.
    #[arg(long, default_value_t = 0)]
    placement_seed: u64,
}

impl MachineArgs {
    /// The machine file, an input no output may overwrite (none for a
    /// built-in machine).
    pub(crate) fn file(&self) -> Vec<PathBuf> {
        match self.machine.as_str() {
            "bluewaters" => Vec::new(),
            file => vec![PathBuf::from(file)],
        }
    }

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

/// `help`, then each preset's value of the option, as clap shows a
/// default: `[hypre: 0.25, pyamg: 0.25, ...]`.
fn preset_help(help: &str, value: fn(&Options) -> String) -> String {
    let values: Vec<String> = Preset::value_variants()
        .iter()
        .map(|p| format!("{}: {}", p.name(), value(&p.options())))
        .collect();
    format!("{help} [{}]", values.join(", "))
}

/// The AMG setup flags shared by `hierarchy`, `analyze` and `compare`.
#[derive(Args, Debug)]
#[command(
    next_help_heading = "AMG setup (each flag overrides the preset's value, shown per preset)"
)]
pub(crate) struct AmgArgs {
    /// Settings chosen at once; the flags below override them.
    #[arg(long, value_enum, default_value_t = Preset::Hypre)]
    pub(crate) preset: Preset,
    /// Strength threshold theta, in [0, 1].
    #[arg(long, allow_negative_numbers = true, help = preset_help("Strength threshold theta, in [0, 1]", |o| o.strength.theta.to_string()))]
    theta: Option<f64>,
    #[arg(long, value_enum, help = preset_help("Strength rule", |o| crate::value_name(&o.strength.rule)))]
    strength: Option<Rule>,
    #[arg(long, allow_negative_numbers = true, help = preset_help("hypre's max_row_sum (signed rule); 1.0 switches it off", |o| o.strength.max_row_sum.to_string()))]
    max_row_sum: Option<f64>,
    #[arg(long, help = preset_help("Unknowns per node for unknown-based strength (3 for 3D elasticity); must divide the rows", |o| o.strength.num_functions.to_string()))]
    num_functions: Option<usize>,
    #[arg(long, value_enum, help = preset_help("C/F splitting", |o| crate::value_name(&o.coarsening)))]
    coarsening: Option<Coarsening>,
    #[arg(long, value_enum, help = preset_help("Interpolation", |o| crate::value_name(&o.interpolation)))]
    interpolation: Option<Interpolation>,
    #[arg(long, help = preset_help("At most this many entries per row of P (hypre's P_max_elmts; 0: no limit)", |o| o.p_max_elmts.to_string()))]
    p_max_elmts: Option<usize>,
    #[arg(long, allow_negative_numbers = true, help = preset_help("Drop entries of P below this fraction of the row's largest (hypre's trunc_factor), in [0, 1)", |o| o.trunc_factor.to_string()))]
    trunc_factor: Option<f64>,
    #[arg(long, help = preset_help("Seed of the random weights of pmis, hmis and cljp", |o| o.seed.to_string()))]
    seed: Option<u64>,
    #[arg(long, help = preset_help("Stop when a level has at most this many rows", |o| o.max_coarse.to_string()))]
    max_coarse: Option<usize>,
    #[arg(long, help = preset_help("At most this many levels", |o| o.max_levels.to_string()))]
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
                // Not options' errors; validate() does not return them.
                BuildError::NotSquare { .. }
                | BuildError::NumFunctionsRows { .. }
                | BuildError::Blocks { .. } => "",
            };
            Error::Usage(format!("{flag}{e}"))
        })?;
        Ok(o)
    }
}

/// The fine partition, its METIS objective and seed, and the coarse rule.
#[derive(Args, Debug)]
#[command(next_help_heading = "Partition")]
pub(crate) struct PartitionArgs {
    /// Partition of the fine rows: a method, or a partition file (one
    /// owner rank a line, as METIS writes them).
    #[arg(long, value_name = "NAME|FILE",
          value_parser = |s: &str| Ok::<_, std::convert::Infallible>(Fine::parse(s)),
          long_help = fine_help())]
    partition: Option<Fine>,
    /// What METIS minimises.
    #[arg(long, value_enum, default_value_t = Objective::Cut)]
    metis_objective: Objective,
    /// Seed of --partition random.
    #[arg(long, default_value_t = 0)]
    partition_seed: u64,
    /// Coarse levels.
    #[arg(long, value_enum, default_value_t = CoarseRule::Inherit)]
    pub(crate) coarse_partition: CoarseRule,
    /// --partition mfem: refine the serial mesh this many times before
    /// METIS partitions its elements (default: the fewest that give
    /// every rank an element, as MFEM's users do).
    #[arg(long, value_name = "K")]
    serial_refinements: Option<u32>,
}

/// `--partition`'s help: the methods with their docs.
fn fine_help() -> String {
    let mut s = String::from(
        "Partition of the fine rows: a method, or a partition file (one owner rank a line, \
         as METIS writes them)\n",
    );
    for m in Method::value_variants() {
        let v = m.to_possible_value().expect("no skipped methods");
        let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
        s += &format!("\n- {}: {help}", v.get_name());
    }
    s += "\n\n[default: contiguous; for hypre IJ input (path/A with path/A.00000, ...) and \
          hypre --levels-from folders, the ranks the files were written by]";
    s
}

impl PartitionArgs {
    /// The partition fields of `r`.
    pub(crate) fn apply(&self, r: &mut Request) {
        r.partition = self.partition.clone();
        r.serial_refinements = self.serial_refinements;
        r.coarse = self.coarse_partition;
        r.methods = self.methods();
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
#[command(next_help_heading = "Input")]
pub(crate) struct MatrixArgs {
    /// Matrix Market file (.mtx, .mtx.gz; - for standard input) or gen:KIND:N.
    pub(crate) input: String,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    pub(crate) permute: Option<u64>,
}

impl MatrixArgs {
    /// The input, parsed (a generator spec is checked) but not read.
    pub(crate) fn source(&self) -> Result<Source, Error> {
        Ok(Source::parse(&self.input)?)
    }

    /// The input file, for the outputs' check.
    pub(crate) fn add_input(&self, plan: &mut Plan) {
        plan.input(Path::new(&self.input));
    }

    /// Read or generate the matrix.
    pub(crate) fn load(&self, source: &Source) -> Result<Matrix, Error> {
        Ok(source.load(self.permute)?)
    }
}

/// The hierarchy to analyse: a matrix to build it from, or a levels folder.
#[derive(Args, Debug)]
#[command(next_help_heading = "Input")]
pub(crate) struct InputArgs {
    /// Matrix Market file (.mtx, .mtx.gz; - for standard input) or
    /// gen:KIND:N (or use --levels-from).
    #[arg(
        required_unless_present = "levels_from",
        conflicts_with = "levels_from"
    )]
    input: Option<String>,
    /// Read the hierarchy from DIR instead of building one: A0.mtx, P0.mtx,
    /// [C0.txt], A1.mtx, ... (PyAMG, --save-levels), A0.petsc, P0.petsc,
    /// ... (PETSc), hypre rank files A0.00000, P0.00000, ...
    /// (tools/hypre_dump_levels.c; their ranks are every level's
    /// partition), or the one file PETSc's -pc_mg_dump_binary writes. The
    /// AMG flags and --permute do not apply to it.
    #[arg(long, value_name = "DIR", conflicts_with_all = [
        "preset", "theta", "strength", "max_row_sum", "num_functions", "coarsening",
        "interpolation", "p_max_elmts", "trunc_factor", "seed", "max_coarse",
        "max_levels", "permute"])]
    levels_from: Option<PathBuf>,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
}

impl InputArgs {
    /// The input the flags name.
    pub(crate) fn input(&self) -> Input {
        match (&self.levels_from, &self.input) {
            (Some(dir), _) => Input::Levels(dir.clone()),
            (None, input) => Input::Matrix {
                spec: input.clone().unwrap_or_default(),
                permute: self.permute,
            },
        }
    }
}
