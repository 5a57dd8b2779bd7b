//! Flag groups shared by the commands, and how each becomes a library
//! value. Options are the library's `ValueEnum`s; their help comes from
//! their doc comments.

use std::path::{Path, PathBuf};

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
use crate::memory;
use crate::output::Plan;
use crate::partition::methods::{Method, MethodOptions, Objective};
use crate::partition::{CoarseRule, Fine, PartitionError};

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
    /// The machine file, an input (none for a built-in machine).
    pub(crate) fn add_input(&self, plan: &mut Plan) {
        if self.machine != "bluewaters" {
            plan.input(Path::new(&self.machine));
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
    /// `--max-levels`, when given.
    #[cfg(feature = "mpi")]
    pub(crate) fn max_levels(&self) -> Option<usize> {
        self.max_levels
    }

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

impl AmgArgs {
    /// `--num-functions` must divide the rows: refused as a usage error,
    /// before a generator runs or once a file's size is known.
    pub(crate) fn check_rows(&self, o: &Options, name: &str, rows: u128) -> Result<(), Error> {
        let nf = o.strength.num_functions;
        if rows.is_multiple_of(nf as u128) {
            return Ok(());
        }
        let whose = match self.num_functions {
            Some(_) => String::new(),
            None => format!(" (the {} preset's)", self.preset.name()),
        };
        Err(Error::Usage(format!(
            "{name}: its {rows} rows are not a multiple of --num-functions {nf}{whose}; \
             pass --num-functions 1 or a divisor of the rows"
        )))
    }
}

/// Before a generator runs: its rows fit `--num-functions`, and `need`
/// bytes (the run's estimate from its nonzeros) fit in memory. Both are
/// usage errors, found before any input is made.
pub(crate) fn check_generator(
    source: &Source,
    amg: Option<(&AmgArgs, &Options)>,
    need: impl Fn(u64, u64) -> u64,
) -> Result<(), Error> {
    let Source::Gen(p) = source else {
        return Ok(());
    };
    if let Some((args, o)) = amg {
        args.check_rows(o, &p.spec(), p.kind.rows(p.n))?;
    }
    let rows = p.kind.rows(p.n).min(u64::MAX as u128) as u64;
    memory::check(need(rows, p.nnz_bound()), || p.spec())?;
    Ok(())
}

/// Once a file is read: the run's `need` bytes from its rows and nonzeros
/// fit in memory (the input's size, so exit status 1).
pub(crate) fn check_loaded(
    name: &str,
    rows: usize,
    nnz: usize,
    need: impl Fn(u64, u64) -> u64,
) -> Result<(), Error> {
    memory::check(need(rows as u64, nnz as u64), || {
        format!("{name} ({rows} rows, {nnz} nonzeros)")
    })
    .map_err(Error::InputMemory)
}

/// Build the hierarchy (taking the matrix over), naming each level on the
/// progress spinner; `--num-functions` is checked against the rows first.
pub(crate) fn build(
    m: Matrix,
    amg: &AmgArgs,
    o: &Options,
    progress: &Progress,
) -> Result<Hierarchy, Error> {
    amg.check_rows(o, &m.name, m.csr.rows() as u128)?;
    let mut step = |level: usize, rows: usize| {
        progress.say(format!(
            "setting up level {level} ({} rows)",
            crate::report::group(rows)
        ))
    };
    let rows = m.csr.rows();
    let blocks = m.ownership.map_or_else(|| vec![0, rows], |o| o.starts);
    amg::build_ranked(m.csr, &blocks, o, &mut step).map_err(|source| Error::Build {
        name: m.name,
        source,
    })
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

/// What `--partition mfem` partitions: a generator's mesh, after `k`
/// serial refinements.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MeshRequest {
    /// The mesh.
    pub(crate) mesh: crate::matrix::mesh::HexMesh,
    /// Serial refinements.
    pub(crate) serial: u32,
    /// Ranks.
    pub(crate) ranks: usize,
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
    /// The partition file, an input.
    pub(crate) fn add_input(&self, plan: &mut Plan) {
        if let Some(Fine::File(path)) = &self.partition {
            plan.input(path);
        }
    }

    /// Whether `--partition` was given (else an input's own ranks, if it
    /// has them, are the partition).
    pub(crate) fn explicit(&self) -> bool {
        self.partition.is_some()
    }

    /// The fine partition asked for (contiguous by default); a file must
    /// exist.
    pub(crate) fn fine(&self) -> Result<Fine, Error> {
        if let Some(Fine::File(path)) = &self.partition {
            if !path.exists() {
                return Err(Error::Usage(format!(
                    "--partition {}: neither a method ({}) nor a partition file",
                    path.display(),
                    crate::value_names::<Method>()
                )));
            }
        }
        Ok(self
            .partition
            .clone()
            .unwrap_or(Fine::Method(Method::Contiguous)))
    }

    /// `--partition mfem`'s mesh, checked before anything is generated:
    /// the input is a mesh generator, not permuted, with an element for
    /// every rank after the serial refinements. `None` for other methods
    /// (where `--serial-refinements` is refused).
    pub(crate) fn mesh_request(
        &self,
        source: Option<&Source>,
        permute: Option<u64>,
        ranks: usize,
    ) -> Result<Option<MeshRequest>, Error> {
        if self.partition != Some(Fine::Method(Method::Mfem)) {
            if let Some(k) = self.serial_refinements {
                return Err(Error::Usage(format!(
                    "--serial-refinements {k} applies to --partition mfem only"
                )));
            }
            return Ok(None);
        }
        let name = match source {
            Some(Source::Gen(p)) => p.spec(),
            Some(Source::File(path)) => path.display().to_string(),
            None => "--levels-from".to_string(),
        };
        let no_mesh = |name: String| Error::Usage(PartitionError::NoMesh(name).to_string());
        let Some(Source::Gen(p)) = source else {
            return Err(no_mesh(name));
        };
        let mesh = p.kind.mesh(p.n).ok_or_else(|| no_mesh(name.clone()))?;
        if permute.is_some() {
            return Err(Error::Usage(
                "--partition mfem partitions the mesh as generated; drop --permute".into(),
            ));
        }
        let serial =
            crate::partition::mfem::serial_refinements(&mesh, ranks, self.serial_refinements)
                .map_err(|e| Error::Usage(e.to_string()))?;
        Ok(Some(MeshRequest {
            mesh,
            serial,
            ranks,
        }))
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
    /// The row blocks the rows were renumbered to (`--partition mfem`).
    pub(crate) blocks: Option<Fine>,
    /// The ranks' rows as the input's files give them: level 0's for a
    /// hypre IJ matrix, every level's for a hypre levels folder.
    pub(crate) ownership: Option<Vec<crate::matrix::Ownership>>,
}

impl InputArgs {
    /// `--permute`'s seed.
    pub(crate) fn permute(&self) -> Option<u64> {
        self.permute
    }

    /// `INPUT`, when given.
    #[cfg(feature = "mpi")]
    pub(crate) fn input(&self) -> Option<&str> {
        self.input.as_deref()
    }

    /// `--levels-from`, when given.
    #[cfg(feature = "mpi")]
    pub(crate) fn levels_from(&self) -> Option<&Path> {
        self.levels_from.as_deref()
    }

    /// The ranks that wrote the input, for inputs written per rank (a
    /// hypre IJ prefix, a folder of hypre levels): the number of rank
    /// files, counted before anything is read.
    pub(crate) fn input_ranks(&self) -> Result<Option<usize>, Error> {
        let prefix = match (&self.levels_from, &self.input) {
            (Some(dir), _) => dir.join("A0"),
            (None, Some(input)) if !Path::new(input).exists() => PathBuf::from(input),
            _ => return Ok(None),
        };
        let files =
            crate::matrix::io::hypre_ij::rank_files(&prefix).map_err(|e| Error::Load(e.into()))?;
        Ok(files.map(|f| f.len()))
    }

    /// The input matrix, parsed (a generator spec is checked) but not
    /// read; `None` for `--levels-from`.
    pub(crate) fn source(&self) -> Result<Option<Source>, Error> {
        match &self.input {
            Some(input) if self.levels_from.is_none() => Ok(Some(Source::parse(input)?)),
            _ => Ok(None),
        }
    }

    /// The input file or levels folder, for the outputs' check.
    pub(crate) fn add_inputs(&self, plan: &mut Plan) {
        if let Some(input) = &self.input {
            plan.input(Path::new(input));
            // A hypre IJ prefix: its rank files are the inputs.
            if let Ok(Some(files)) = crate::matrix::io::hypre_ij::rank_files(Path::new(input)) {
                for f in files {
                    plan.input(&f);
                }
            }
        }
        if let Some(dir) = &self.levels_from {
            plan.input(dir);
        }
    }

    /// `reports/<name>/` for a file `path/name.mtx[.gz]`, `gen:kind:n` or a
    /// levels folder; `reports/stdin/` for standard input.
    pub(crate) fn default_out(&self) -> PathBuf {
        let base = match (&self.levels_from, &self.input) {
            (Some(dir), _) => dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "levels".into()),
            (None, Some(input)) if input == "-" => "stdin".into(),
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

    /// Read the levels, or read the matrix (`source`) and build them,
    /// timing both; `need` estimates the run's bytes from a matrix's rows
    /// and nonzeros, checked once a file is read.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn load(
        &self,
        source: Option<&Source>,
        mesh: Option<MeshRequest>,
        amg: &AmgArgs,
        o: &Options,
        need: impl Fn(u64, u64) -> u64,
        progress: &Progress,
        stages: &mut Stages,
    ) -> Result<Loaded, Error> {
        if let Some(dir) = &self.levels_from {
            progress.say(format!("reading levels from {}", dir.display()));
            let (h, ownership) = levels_io::load_levels_ranked(dir)?;
            let a = &h.levels[0].a;
            check_loaded(&dir.display().to_string(), a.rows(), a.nnz(), &need)?;
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
                blocks: None,
                ownership,
            });
        }
        let source = source.expect("clap requires INPUT or --levels-from");
        let input = self.input.as_deref().unwrap_or_default();
        progress.say(format!("reading {input}"));
        // MFEM's partition needs only the mesh: METIS (single-threaded)
        // runs while the matrix is assembled.
        let (mat, part) = rayon::join(
            || source.load(self.permute),
            || mesh.map(|r| crate::partition::mfem::partition(&r.mesh, r.ranks, Some(r.serial))),
        );
        let mut mat = mat?;
        let (name, info) = (mat.name.clone(), mat.info());
        check_loaded(&name, info.rows, info.nnz, &need)?;
        stages.lap("input");
        let mut described = format!("{} preset", amg.preset.name());
        let mut blocks = None;
        if let (Some(r), Some(p)) = (mesh, part) {
            let p = p?;
            mat.csr =
                crate::matrix::permute::permute_symmetric(&mat.csr, r.mesh.block, &p.new_of_old);
            mat.ownership = Some(crate::matrix::Ownership {
                starts: p.starts.clone(),
            });
            described += &format!(
                ", mfem partition ({} serial refinements, {} elements)",
                p.serial_refinements,
                p.element_part.len()
            );
            blocks = Some(Fine::Blocks {
                name: "mfem".into(),
                starts: p.starts,
            });
            stages.lap("mesh partition");
        }
        let ownership = mat.ownership.clone().map(|o| vec![o]);
        let h = build(mat, amg, o, progress)?;
        stages.lap("hierarchy");
        Ok(Loaded {
            name,
            info,
            h,
            source: described,
            built: true,
            blocks,
            ownership,
        })
    }
}
