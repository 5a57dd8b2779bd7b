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

use std::path::{Path, PathBuf};

use super::advice::{Advice, Setup};
use super::{Analysis, AnalysisError, CompareError, Options, Stages, Variant, VariantAnalysis};
use crate::amg::diagnose::Warning;
use crate::amg::levels_io::{self, LevelsError};
use crate::amg::{self, BuildError, Hierarchy, Preset, Sizes};
use crate::comm::node_aware::Strategy;
use crate::machine::Machine;
use crate::matrix::io::hypre_ij;
use crate::matrix::mesh::HexMesh;
use crate::matrix::source::{LoadError, Source};
use crate::matrix::{Info, Matrix, Ownership};
use crate::measured::Measured;
use crate::memory::{self, TooLarge};
use crate::output::{Plan, Refused};
use crate::partition::methods::{Method, MethodOptions};
use crate::partition::{self, CoarseRule, Fine, Layout, PartitionError};

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

    /// The ranks that wrote the input, for inputs written per rank (a
    /// hypre IJ prefix, a folder of hypre levels): the number of rank
    /// files, counted before anything is read.
    pub fn input_ranks(&self) -> Result<Option<usize>, RequestError> {
        let prefix = match &self.input {
            Input::Levels(dir) => dir.join("A0"),
            Input::Matrix { spec, .. } if !Path::new(spec).exists() => PathBuf::from(spec),
            Input::Matrix { .. } | Input::Memory(_) => return Ok(None),
        };
        let files = hypre_ij::rank_files(&prefix).map_err(|e| RequestError::Load(e.into()))?;
        Ok(files.map(|f| f.len()))
    }

    /// The ranks that wrote the input (`written_by`, [`Request::input_ranks`])
    /// are the machine's, as the files are the partition; the message
    /// offers a partition of one's own when `repartition` is possible.
    pub fn check_input_ranks(
        &self,
        written_by: Option<usize>,
        repartition: bool,
    ) -> Result<(), RequestError> {
        let (m, ranks) = (&self.machine, self.machine.owners().ranks());
        let Some(k) = written_by.filter(|&k| k != ranks) else {
            return Ok(());
        };
        let or = if repartition {
            ", or request.partition to repartition"
        } else {
            ""
        };
        let per_node = match m.is_on_devices() {
            true => format!("{} GPUs", m.owners().ppn),
            false => format!("{} ppn", m.ppn),
        };
        Err(RequestError::Field(format!(
            "the input was written by {k} ranks ({k} rank files), the machine has {} nodes x {per_node} = {ranks}; give request.nodes and request.ppn to match{or}",
            m.nodes
        )))
    }

    /// Everything that can be checked before any input is read: the
    /// fields, the outputs against the inputs and what they would
    /// replace ([`Plan`]), the input's rank count against the machine,
    /// the measured file, and what the run would ask of memory.
    pub fn check(&self) -> Result<Checked, RequestError> {
        let m = &self.machine;
        let ranks = m.ranks();
        let source = match &self.input {
            Input::Matrix { spec, .. } => Some(Source::parse(spec)?),
            Input::Levels(_) | Input::Memory(_) => None,
        };
        self.check_partition_file()?;
        self.check_strategies()?;
        self.check_cycle()?;
        let mesh = self.mesh(source.as_ref())?;
        self.plan()?;
        for v in &self.variants {
            v.machine(m)
                .validate()
                .map_err(|e| RequestError::Field(format!("request.variants '{}': {e}", v.name)))?;
        }
        // Files written per rank are the partition unless one is given
        // (or variants give theirs): as many ranks as the machine has.
        let own = self.partition.is_none() && self.variants.is_empty();
        if own {
            self.check_input_ranks(self.input_ranks()?, true)?;
        }
        let measured = match &self.measured {
            Some(path) => Some(read_measured(path, ranks)?),
            None => None,
        };
        let need = |rows, nnz| super::memory_bytes(rows, nnz, ranks);
        memory::check(need(0, 0), || {
            format!("{} nodes x {} ppn = {ranks} ranks", m.nodes, m.ppn)
        })?;
        if let Some(source) = &source {
            check_generator(source, &self.amg, self.preset, need)?;
        }
        Ok(Checked {
            source,
            mesh,
            measured,
        })
    }

    /// Every input and output, checked: no output overwrites an input,
    /// and a folder output holds only what it would replace.
    pub fn plan(&self) -> Result<Plan, RequestError> {
        let mut plan = Plan::new();
        match &self.input {
            Input::Matrix { spec, .. } => {
                plan.input(Path::new(spec));
                // A hypre IJ prefix: its rank files are the inputs.
                if let Ok(Some(files)) = hypre_ij::rank_files(Path::new(spec)) {
                    for f in files {
                        plan.input(&f);
                    }
                }
            }
            Input::Levels(dir) => plan.input(dir),
            Input::Memory(_) => {}
        }
        if let Some(Fine::File(path)) = &self.partition {
            plan.input(path);
        }
        if let Some(path) = &self.measured {
            plan.input(path);
        }
        for path in &self.inputs {
            plan.input(path);
        }
        for v in &self.variants {
            if let Fine::File(path) = &v.partition {
                plan.input(path);
            }
        }
        let o = &self.outputs;
        plan.folder(
            "request.outputs.folder",
            &self.folder(),
            crate::output::is_report_file,
        )?;
        if let Some(path) = &o.json {
            plan.file("request.outputs.json", path)?;
        }
        if let Some(dir) = &o.dot {
            plan.folder("request.outputs.dot", dir, crate::comm::dot::is_dot_file)?;
        }
        if let Some(dir) = &o.patterns {
            let is = crate::comm::pattern_file::is_pattern_file;
            plan.folder("request.outputs.patterns", dir, is)?;
        }
        Ok(plan)
    }

    /// `mfem`'s mesh, checked before anything is generated: the input is
    /// a mesh generator, not permuted, with an element for every rank
    /// after the serial refinements. `None` for other partitions.
    fn mesh(&self, source: Option<&Source>) -> Result<Option<MeshRequest>, RequestError> {
        if self.partition != Some(Fine::Method(Method::Mfem)) {
            if let Some(k) = self.serial_refinements {
                return Err(RequestError::Field(format!(
                    "request.serial_refinements {k} applies to request.partition mfem only"
                )));
            }
            return Ok(None);
        }
        let name = match source {
            Some(Source::Gen(p)) => p.spec(),
            Some(Source::File(path)) => path.display().to_string(),
            None => "request.levels".to_string(),
        };
        let no_mesh = |name: String| RequestError::Field(PartitionError::NoMesh(name).to_string());
        let Some(Source::Gen(p)) = source else {
            return Err(no_mesh(name));
        };
        let mesh = p.kind.mesh(p.n).ok_or_else(|| no_mesh(name.clone()))?;
        if matches!(
            self.input,
            Input::Matrix {
                permute: Some(_),
                ..
            }
        ) {
            return Err(RequestError::Field(
                "request.partition mfem partitions the mesh as generated; drop request.permute"
                    .into(),
            ));
        }
        let ranks = self.machine.owners().ranks();
        let serial = partition::mfem::serial_refinements(&mesh, ranks, self.serial_refinements)
            .map_err(|e| RequestError::Field(e.to_string()))?;
        Ok(Some(MeshRequest {
            mesh,
            serial,
            ranks,
        }))
    }

    /// Reads the levels, or reads the matrix and builds them (with
    /// MFEM's partition beside the assembly), timing both.
    pub fn hierarchy(
        &self,
        checked: &Checked,
        progress: &dyn Fn(Event),
        stages: &mut Stages,
    ) -> Result<Loaded, RequestError> {
        let need = |rows, nnz| super::memory_bytes(rows, nnz, self.machine.ranks());
        let (spec, permute) = match &self.input {
            Input::Levels(dir) => {
                progress(Event::Step(format!(
                    "reading levels from {}",
                    dir.display()
                )));
                let (h, ownership) = levels_io::load_levels_ranked(dir)?;
                let name = dir.display().to_string();
                let a = &h.levels[0].a;
                check_loaded(&name, a.rows(), a.nnz(), need)?;
                stages.lap("input");
                stages.lap("hierarchy");
                // Saved levels number rows as their format does: Matrix
                // Market levels from 1, PETSc's and hypre's from 0.
                let format = levels_io::FolderFormat::of(dir);
                let from_one = matches!(format, Some(levels_io::FolderFormat::MatrixMarket));
                let numbering = match from_one {
                    true => crate::matrix::Numbering::FromOne,
                    false => crate::matrix::Numbering::FromZero,
                };
                return Ok(Loaded {
                    info: Info::of(a),
                    source: format!("levels from {name}"),
                    name,
                    h,
                    built: false,
                    blocks: None,
                    ownership,
                    numbering,
                    fine_part: None,
                });
            }
            Input::Memory(held) => return self.held(held, progress, stages),
            Input::Matrix { spec, permute } => (spec, *permute),
        };
        let source = checked
            .source
            .as_ref()
            .expect("a matrix input has a source");
        progress(Event::Step(format!("reading {spec}")));
        // MFEM's partition needs only the mesh: METIS (single-threaded)
        // runs while the matrix is assembled.
        let mesh = checked.mesh;
        let (mat, part) = rayon::join(
            || source.load(permute),
            || mesh.map(|r| partition::mfem::partition(&r.mesh, r.ranks, Some(r.serial))),
        );
        let mut mat = mat?;
        let (name, info) = (mat.name.clone(), mat.info());
        check_loaded(&name, info.rows, info.nnz, need)?;
        stages.lap("input");
        let mut described = format!("{} preset", self.preset.name());
        let mut blocks = None;
        if let (Some(r), Some(p)) = (mesh, part) {
            let p = p?;
            mat.csr =
                crate::matrix::permute::permute_symmetric(&mat.csr, r.mesh.block, &p.new_of_old);
            mat.ownership = Some(Ownership {
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
        let numbering = match blocks {
            Some(_) => crate::matrix::Numbering::Renumbered,
            None => mat.numbering,
        };
        let (h, fine_part) = self.build_on_ranks(mat, progress)?;
        stages.lap("hierarchy");
        Ok(Loaded {
            name,
            info,
            h,
            source: described,
            built: true,
            blocks,
            ownership,
            numbering,
            fine_part,
        })
    }

    /// [`Request::hierarchy`] of a held input: the levels checked as a
    /// folder's, or the hierarchy built from the matrix checked as a
    /// file's.
    fn held(
        &self,
        held: &Held,
        progress: &dyn Fn(Event),
        stages: &mut Stages,
    ) -> Result<Loaded, RequestError> {
        let need = |rows, nnz| super::memory_bytes(rows, nnz, self.machine.ranks());
        let name = held.name.clone();
        match &held.what {
            HeldKind::Levels(levels) => {
                progress(Event::Step(format!("checking the levels of {name}")));
                let h = levels_io::from_given(take(levels, &name)?, &name)?;
                let a = &h.levels[0].a;
                check_loaded(&name, a.rows(), a.nnz(), need)?;
                stages.lap("input");
                stages.lap("hierarchy");
                Ok(Loaded {
                    info: Info::of(a),
                    source: format!("levels of {name}"),
                    name,
                    h,
                    built: false,
                    blocks: None,
                    ownership: None,
                    numbering: crate::matrix::Numbering::FromZero,
                    fine_part: None,
                })
            }
            HeldKind::Matrix(csr) => {
                progress(Event::Step(format!("checking {name}")));
                let mat = crate::matrix::Matrix::held(&name, take(csr, &name)?)?;
                let info = mat.info();
                check_loaded(&name, info.rows, info.nnz, need)?;
                stages.lap("input");
                let (h, fine_part) = self.build_on_ranks(mat, progress)?;
                stages.lap("hierarchy");
                Ok(Loaded {
                    name,
                    info,
                    h,
                    source: format!("{} preset", self.preset.name()),
                    built: true,
                    blocks: None,
                    ownership: None,
                    numbering: crate::matrix::Numbering::FromZero,
                    fine_part,
                })
            }
        }
    }

    /// Builds the hierarchy (taking the matrix over). A setup that
    /// depends on the ranks ([`amg::Options::uses_ranks`]: hypre's,
    /// RAPtor's) runs on the ranks the analysis places the rows on: the
    /// input's own row blocks (hypre rank files, MFEM's renumbered
    /// blocks), else the fine partition asked for (contiguous blocks by
    /// default) over the machine's ranks, one per GPU when the data
    /// lives on the GPUs. That partition comes back for the layout.
    fn build_on_ranks(
        &self,
        mat: Matrix,
        progress: &dyn Fn(Event),
    ) -> Result<(Hierarchy, Option<partition::Partition>), RequestError> {
        if mat.ownership.is_some() || !self.amg.uses_ranks() {
            return Ok((build(mat, None, &self.amg, self.preset, progress)?, None));
        }
        let fine = (self.partition.clone()).unwrap_or(Fine::Method(Method::Contiguous));
        let ranks = self.machine.owners();
        progress(Event::Step(format!(
            "partitioning {} rows over {} ranks ({}) for the setup",
            crate::group(mat.csr.rows()),
            ranks.ranks(),
            fine.name()
        )));
        let part = fine.partition(&mat.csr, &ranks, &self.methods)?;
        let h = build(mat, Some(&part), &self.amg, self.preset, progress)?;
        Ok((h, Some(part)))
    }

    /// `amgcomm hierarchy`: the hierarchy alone, built as [`Request::run`]
    /// builds it (on the machine's ranks when the setup depends on
    /// them), the input and partition checked as [`Request::check`]
    /// checks them; no output is planned. `stages` gets `input` and
    /// `hierarchy`.
    pub fn hierarchy_alone(
        &self,
        progress: &dyn Fn(Event),
        stages: &mut Stages,
    ) -> Result<Loaded, RequestError> {
        let source = match &self.input {
            Input::Matrix { spec, .. } => Some(Source::parse(spec)?),
            Input::Levels(_) | Input::Memory(_) => None,
        };
        self.check_partition_file()?;
        let mesh = self.mesh(source.as_ref())?;
        if let Some(source) = &source {
            check_generator(source, &self.amg, self.preset, amg::setup_bytes)?;
        }
        let checked = Checked {
            source,
            mesh,
            measured: None,
        };
        self.hierarchy(&checked, progress, stages)
    }

    /// A partition file given must exist (a name that is neither a method
    /// nor a file is a field error).
    fn check_partition_file(&self) -> Result<(), RequestError> {
        if let Some(Fine::File(path)) = &self.partition {
            if !path.exists() {
                return Err(RequestError::Field(format!(
                    "request.partition {}: neither a method ({}) nor a partition file",
                    path.display(),
                    crate::value_names::<Method>()
                )));
            }
        }
        Ok(())
    }

    /// The run: the hierarchy, its layout on the machine, every level's
    /// communication charged, the measured times beside it and, when
    /// asked, the advice. `progress` hears each step and every warning.
    pub fn run(&self, checked: Checked, progress: &dyn Fn(Event)) -> Result<Run, RequestError> {
        let mut stages = Stages::start();
        let input = self.hierarchy(&checked, progress, &mut stages)?;
        self.run_on(input, checked, progress, stages)
    }

    /// [`Request::run`] on a hierarchy already loaded or built
    /// ([`Request::hierarchy`]), as `scale` reuses one across node counts.
    pub fn run_on(
        &self,
        input: Loaded,
        checked: Checked,
        progress: &dyn Fn(Event),
        mut stages: Stages,
    ) -> Result<Run, RequestError> {
        let m = &self.machine;
        let h = &input.h;
        // The fine partition: MFEM's renumbered blocks; else the input's
        // own ranks (a hypre dump), unless a partition was given; else
        // the one asked for.
        let given = input
            .ownership
            .as_ref()
            .filter(|_| self.partition.is_none());
        let asked = (self.partition.clone()).unwrap_or(Fine::Method(Method::Contiguous));
        let mut coarse = self.coarse;
        let fine = match (&input.blocks, given) {
            (Some(blocks), _) => blocks.clone(),
            (None, Some(own)) => Fine::Blocks {
                name: "input ranks".into(),
                starts: own[0].starts.clone(),
            },
            (None, None) => asked,
        };
        let built = input.built.then_some(&self.amg);
        let warnings = amg::diagnose::warnings(h, built, input.numbering);
        for w in &warnings {
            progress(Event::Warning(w.to_string()));
        }
        progress(Event::Step(format!(
            "partitioning {} rows ({})",
            input.info.rows,
            fine.name()
        )));
        // With the data on GPUs, the rows go to the GPUs (one part each).
        let fine_part = match input.fine_part.clone() {
            // The partition the setup ran on.
            Some(p) => p,
            None => fine.partition(&h.levels[0].a, &m.owners(), &self.methods)?,
        };
        let layout = match given.filter(|own| own.len() == h.levels.len()) {
            // Every level's rows as the files give them.
            Some(own) => {
                coarse = CoarseRule::Files;
                let files = Layout {
                    levels: own
                        .iter()
                        .map(partition::Partition::from_ownership)
                        .collect(),
                };
                if files != Layout::new(h, fine_part, coarse) {
                    progress(Event::Warning("the input's coarse rows do not all stay with their C points' ranks; the files' ranks are used".into()));
                }
                files
            }
            None => Layout::new(h, fine_part, coarse),
        }
        .spread(m);
        stages.lap("partition");
        progress(Event::Step(format!(
            "communication of {} levels on {} ranks",
            h.levels.len(),
            m.ranks()
        )));
        let mut analysis = super::analyze(h, &layout, m, &self.options)?;
        stages.record("extraction", analysis.seconds.extraction);
        stages.record("model", analysis.seconds.model);
        let measured = checked.measured.map(|file| {
            let path = self.measured.as_deref().expect("a measured file was read");
            let cycle = self.options.cycle.unwrap_or_default();
            overlay_measured(&mut analysis, file, path, &cycle, progress)
        });
        let cycle = (self.options.cycle).and_then(|c| super::cycle::of(&analysis, &c));
        let advice = if self.advice {
            progress(Event::Step("what would cut it: trying alternatives".into()));
            let setup = Setup {
                machine: m,
                fine: &fine,
                methods: self.methods,
                coarse,
                options: &self.options,
                rebuild: (input.built && self.amg.uses_ranks()).then_some(
                    super::compare::Rebuild {
                        amg: &self.amg,
                        built_on: &fine,
                    },
                ),
            };
            let (advice, failed) = super::advice::advise(h, &setup, &analysis);
            for f in failed {
                progress(Event::Warning(format!(
                    "an alternative could not be evaluated: {f}"
                )));
            }
            stages.lap("advice");
            Some(advice)
        } else {
            stages.lap("advice");
            None
        };
        let input_seconds = stages.seconds("input") + stages.seconds("hierarchy");
        Ok(Run {
            sizes: h.sizes(),
            name: input.name,
            info: input.info,
            source: input.source,
            built: input.built.then_some(input.h),
            fine,
            coarse,
            layout: Some(layout),
            analysis,
            cycle,
            warnings,
            measured,
            advice,
            input_seconds,
            stages,
        })
    }
}

impl Request {
    /// `compare`: the hierarchy once, then every variant of
    /// [`Request::variants`] analysed on it (the base machine, model and
    /// METIS objective of the request). `progress` hears each variant.
    pub fn compare(
        &self,
        checked: &Checked,
        progress: &dyn Fn(Event),
    ) -> Result<(Loaded, Vec<VariantAnalysis>), RequestError> {
        let mut stages = Stages::start();
        let loaded = self.hierarchy(checked, progress, &mut stages)?;
        for w in amg::diagnose::warnings(&loaded.h, Some(&self.amg), loaded.numbering) {
            progress(Event::Warning(w.to_string()));
        }
        let say = |v: &Variant| progress(Event::Step(format!("variant {}", v.name)));
        let model = &self.options.model;
        let methods = MethodOptions {
            seed: 0,
            ..self.methods
        };
        // The partition the hierarchy was set up on: the one asked for,
        // else the input's own rows, else contiguous blocks.
        let own = (loaded.ownership.as_ref()).map(|o| Fine::Blocks {
            name: "input ranks".into(),
            starts: o[0].starts.clone(),
        });
        let built_on = (self.partition.clone())
            .or(own)
            .unwrap_or(Fine::Method(Method::Contiguous));
        let rebuild = (loaded.built && loaded.blocks.is_none() && self.amg.uses_ranks()).then_some(
            super::compare::Rebuild {
                amg: &self.amg,
                built_on: &built_on,
            },
        );
        let runs = super::compare(
            &loaded.h,
            &self.machine,
            &self.variants,
            model,
            &methods,
            rebuild,
            say,
        )?;
        Ok((loaded, runs))
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

/// Where a request's data lives, from its flags: on the GPUs when
/// `ranks_per_gpu` is given or `strategy` moves device data (then `ppn` is
/// the GPUs' ranks, [`Machine::on_devices`], and the strategy defaults to
/// `gpu-aware`), else in host memory (`standard` by default). Every
/// mismatch is a field error, found before any input is read.
pub fn place_data(
    m: Machine,
    strategy: Option<Strategy>,
    ranks_per_gpu: Option<usize>,
    ppn_given: bool,
) -> Result<(Machine, Strategy), RequestError> {
    let device = ranks_per_gpu.is_some() || strategy.is_some_and(Strategy::is_device);
    if !device {
        return Ok((m, strategy.unwrap_or(Strategy::Standard)));
    }
    let s = strategy.unwrap_or(Strategy::GpuAware);
    let field = match ranks_per_gpu {
        Some(_) => "request.ranks_per_gpu".to_string(),
        None => format!("request.strategy {}", s.name()),
    };
    if m.gpus.is_none() {
        return Err(RequestError::Field(format!(
            "{field}: machine {} has no GPUs to hold the data (every preset but bluewaters has; a machine file gives them with a \"gpus\" object)",
            m.name
        )));
    }
    if let Some(why) = misplaced(s, true) {
        return Err(RequestError::Field(format!(
            "request.strategy {}: moves host data; with request.ranks_per_gpu {why}",
            s.name()
        )));
    }
    if ppn_given {
        return Err(RequestError::Field(
            "request.ppn: with the data on the GPUs the ranks per node are the GPUs x request.ranks_per_gpu; drop request.ppn".into(),
        ));
    }
    let m = m
        .on_devices(ranks_per_gpu.unwrap_or(1))
        .map_err(|e| RequestError::Field(e.to_string()))?;
    Ok((m, s))
}

/// Why `strategy` cannot move the data where it is (on the GPUs when
/// `device`), naming those that can; `None` when it can.
pub(crate) fn misplaced(strategy: Strategy, device: bool) -> Option<String> {
    let where_ = if device {
        "on the GPUs"
    } else {
        "in host memory"
    };
    (strategy.is_device() != device).then(|| {
        format!(
            "the data is {where_}; choose {}",
            names(&Strategy::all(device))
        )
    })
}

fn names(strategies: &[Strategy]) -> String {
    let v: Vec<String> = strategies.iter().map(|s| s.name()).collect();
    v.join(", ")
}

impl Request {
    /// The same request under `strategy`, its model charging what the
    /// strategy moves ([`crate::model::Model::for_run`]).
    pub fn with_strategy(mut self, strategy: Strategy) -> Request {
        self.options.strategy = strategy;
        self.options.model = self.options.model.for_run(strategy, self.options.ops);
        self
    }

    /// The strategies of the request and its variants move the data
    /// where it is: device strategies on GPUs, the others in host memory;
    /// no pattern files of device strategies (replay sends host buffers).
    /// A cycle needs its operations charged.
    pub fn check_cycle(&self) -> Result<(), RequestError> {
        let Some(c) = &self.options.cycle else {
            return Ok(());
        };
        let missing: Vec<&str> = (super::cycle::Cycle::OPS.iter())
            .filter(|&&op| !self.options.ops.has(op))
            .map(|op| op.name())
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(RequestError::Field(format!(
            "request.cycle {}: request.ops lacks {}, which the cycle exchanges",
            c.name(),
            missing.join(" and ")
        )))
    }

    fn check_strategies(&self) -> Result<(), RequestError> {
        let device = self.machine.is_on_devices();
        if self.variants.is_empty() {
            if let Some(why) = misplaced(self.options.strategy, device) {
                return Err(RequestError::Field(format!(
                    "request.strategy {}: {why}",
                    self.options.strategy.name()
                )));
            }
        }
        for v in &self.variants {
            if let Some(why) = misplaced(v.strategy, device) {
                return Err(RequestError::Field(format!(
                    "request.variants '{}': strategy {}, but {why}",
                    v.name,
                    v.strategy.name()
                )));
            }
        }
        if device && self.outputs.patterns.is_some() {
            return Err(RequestError::Field(
                "request.outputs.patterns: replay sends host buffers; a device strategy's patterns cannot be replayed".into(),
            ));
        }
        Ok(())
    }
}

/// Sets the measured times of `file` (read from `path`) beside
/// `analysis`, warning of what it lacks.
pub fn overlay_measured(
    analysis: &mut Analysis,
    file: Measured,
    path: &Path,
    cycle: &super::cycle::Cycle,
    progress: &dyn Fn(Event),
) -> MeasuredOverlay {
    let mut warnings = super::overlay(analysis, &file);
    let (levels, more) = super::overlay_phases(analysis, &file, cycle);
    warnings.extend(more);
    for w in &warnings {
        progress(Event::Warning(format!(
            "request.measured {}: {w}",
            path.display()
        )));
    }
    MeasuredOverlay {
        file: path.display().to_string(),
        format: file.format,
        ranks: file.ranks,
        warnings,
        notes: file.notes,
        levels,
    }
}

/// The measured file: read (a small file, size-capped) and parsed, a
/// [`RequestError::Measured`] when it does not read; one that cannot be a
/// run on `ranks` ranks is a field error.
pub fn read_measured(path: &Path, ranks: usize) -> Result<Measured, RequestError> {
    let name = path.display();
    let text = memory::read_text(path, 64 << 20).map_err(|e| RequestError::Measured {
        path: name.to_string(),
        problem: crate::output::reason(&e),
    })?;
    let file = crate::measured::parse(&text).map_err(|e| RequestError::Measured {
        path: name.to_string(),
        problem: e.to_string(),
    })?;
    super::check_measured(&file, ranks)
        .map_err(|e| RequestError::Field(format!("request.measured {name}: {e}")))?;
    Ok(file)
}

/// Before a generator runs: its rows fit `num_functions` of `o` (from
/// `preset`), and `need` bytes (the run's estimate from its nonzeros) fit
/// in memory. Both are found before any input is made.
pub fn check_generator(
    source: &Source,
    o: &amg::Options,
    preset: Preset,
    need: impl Fn(u64, u64) -> u64,
) -> Result<(), RequestError> {
    let Source::Gen(p) = source else {
        return Ok(());
    };
    check_rows(o, preset, &p.spec(), p.kind.rows(p.n))?;
    let rows = p.kind.rows(p.n).min(u64::MAX as u128) as u64;
    memory::check(need(rows, p.nnz_bound()), || p.spec())?;
    Ok(())
}

/// Once a file is read: the run's `need` bytes from its rows and nonzeros
/// fit in memory (the input's size, so not a field error).
pub fn check_loaded(
    name: &str,
    rows: usize,
    nnz: usize,
    need: impl Fn(u64, u64) -> u64,
) -> Result<(), RequestError> {
    memory::check(need(rows as u64, nnz as u64), || {
        format!("{name} ({rows} rows, {nnz} nonzeros)")
    })
    .map_err(RequestError::InputMemory)
}

/// `num_functions` must divide the rows: a field error, before a
/// generator runs or once a file's size is known; it says when the
/// preset chose the value.
fn check_rows(
    o: &amg::Options,
    preset: Preset,
    name: &str,
    rows: u128,
) -> Result<(), RequestError> {
    let nf = o.strength.num_functions;
    if rows.is_multiple_of(nf as u128) {
        return Ok(());
    }
    let whose = if nf == preset.options().strength.num_functions {
        format!(" (the {} preset's)", preset.name())
    } else {
        String::new()
    };
    Err(RequestError::Field(format!(
        "{name}: its {rows} rows are not a multiple of request.amg.num_functions {nf}{whose}; \
         pass request.amg.num_functions 1 or a divisor of the rows"
    )))
}

/// Builds the hierarchy (taking the matrix over), telling `progress` each
/// level: on the rows `part` gives each rank, in any pattern
/// ([`amg::build_owned_by`]), else on the matrix's own row blocks;
/// `num_functions` is checked against the rows first.
pub fn build(
    m: Matrix,
    part: Option<&partition::Partition>,
    o: &amg::Options,
    preset: Preset,
    progress: &dyn Fn(Event),
) -> Result<Hierarchy, RequestError> {
    check_rows(o, preset, &m.name, m.csr.rows() as u128)?;
    let mut step = |level: usize, rows: usize| {
        progress(Event::Step(format!(
            "setting up level {level} ({} rows)",
            crate::group(rows)
        )))
    };
    let rows = m.csr.rows();
    let built = match (part, m.ownership) {
        (Some(p), _) => amg::build_owned_by(m.csr, &p.owner, p.ranks, o, &mut step),
        (None, own) => {
            let blocks = own.map_or_else(|| vec![0, rows], |o| o.starts);
            amg::build_ranked(m.csr, &blocks, o, &mut step)
        }
    };
    built.map_err(|source| RequestError::Build {
        name: m.name,
        source,
    })
}
