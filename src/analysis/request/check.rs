//! What a request checks before any input is read: the input's ranks,
//! the outputs' plan, the mesh, the partition file, the cycle and the
//! strategies, and each loaded matrix against its generator or layout.

use std::path::{Path, PathBuf};

use super::{Checked, Input, MeshRequest, Request, RequestError};
use crate::amg::{self, Preset};
use crate::comm::node_aware::Strategy;
use crate::machine::Machine;
use crate::matrix::io::hypre_ij;
use crate::matrix::source::Source;
use crate::measured::Measured;
use crate::memory::{self};
use crate::output::Plan;
use crate::partition::methods::Method;
use crate::partition::{self, Fine, PartitionError};

impl Request {
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
        let need = |rows, nnz| crate::analysis::memory_bytes(rows, nnz, ranks);
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
    pub(super) fn mesh(
        &self,
        source: Option<&Source>,
    ) -> Result<Option<MeshRequest>, RequestError> {
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

    /// A partition file given must exist (a name that is neither a method
    /// nor a file is a field error).
    pub(super) fn check_partition_file(&self) -> Result<(), RequestError> {
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

    /// The strategies of the request and its variants move the data
    /// where it is: device strategies on GPUs, the others in host memory;
    /// no pattern files of device strategies (replay sends host buffers).
    /// A cycle needs its operations charged.
    pub fn check_cycle(&self) -> Result<(), RequestError> {
        let Some(c) = &self.options.cycle else {
            return Ok(());
        };
        let missing: Vec<&str> = (crate::analysis::cycle::Cycle::OPS.iter())
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

    pub(super) fn check_strategies(&self) -> Result<(), RequestError> {
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

pub(super) fn names(strategies: &[Strategy]) -> String {
    let v: Vec<String> = strategies.iter().map(|s| s.name()).collect();
    v.join(", ")
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
pub(super) fn check_rows(
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
    crate::analysis::check_measured(&file, ranks)
        .map_err(|e| RequestError::Field(format!("request.measured {name}: {e}")))?;
    Ok(file)
}
