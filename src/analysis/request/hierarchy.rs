//! A request's hierarchy: the input read (a file, a generator, rank
//! files or levels held in memory) and the levels built on the ranks of
//! its layout.

use super::check::{check_generator, check_loaded, check_rows};
use super::{take, Checked, Event, Held, HeldKind, Input, Loaded, Request, RequestError};
use crate::amg::levels_io::{self};
use crate::amg::{self, Hierarchy, Preset};
use crate::analysis::Stages;
use crate::matrix::source::Source;
use crate::matrix::{Info, Matrix, Ownership};
use crate::partition::methods::Method;
use crate::partition::{self, Fine};

impl Request {
    /// [`check_loaded`] against what the analysis needs on this
    /// request's ranks.
    fn check_fits(&self, name: &str, rows: usize, nnz: usize) -> Result<(), RequestError> {
        let ranks = self.machine.ranks();
        check_loaded(name, rows, nnz, |r, z| {
            crate::analysis::memory_bytes(r, z, ranks)
        })
    }

    /// Reads the levels, or reads the matrix and builds them (with
    /// MFEM's partition beside the assembly), timing both; every level
    /// whole, for a reader of its matrices ([`amg::Hierarchy::make_whole`],
    /// timed with the hierarchy).
    pub fn hierarchy(
        &self,
        checked: &Checked,
        progress: &dyn Fn(Event),
        stages: &mut Stages,
    ) -> Result<Loaded, RequestError> {
        self.levels(checked, progress, stages, true)
    }

    /// [`Request::hierarchy`], the levels made whole when `whole`, else
    /// left as the setup leaves them.
    fn levels(
        &self,
        checked: &Checked,
        progress: &dyn Fn(Event),
        stages: &mut Stages,
        whole: bool,
    ) -> Result<Loaded, RequestError> {
        let (spec, permute) = match &self.input {
            Input::Levels(dir) => {
                progress(Event::Step(format!(
                    "reading levels from {}",
                    dir.display()
                )));
                let (h, ownership) = levels_io::load_levels_ranked(dir)?;
                let name = dir.display().to_string();
                let a = &h.levels[0].a;
                self.check_fits(&name, a.rows(), a.nnz())?;
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
            Input::Memory(held) => return self.held(held, progress, stages, whole),
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
        self.check_fits(&name, info.rows, info.nnz)?;
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
        let (h, fine_part) = self.build_on_ranks(mat, progress, whole)?;
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
    pub(super) fn held(
        &self,
        held: &Held,
        progress: &dyn Fn(Event),
        stages: &mut Stages,
        whole: bool,
    ) -> Result<Loaded, RequestError> {
        let name = held.name.clone();
        match &held.what {
            HeldKind::Levels(levels) => {
                progress(Event::Step(format!("checking the levels of {name}")));
                let h = levels_io::from_given(take(levels, &name)?, &name)?;
                let a = &h.levels[0].a;
                self.check_fits(&name, a.rows(), a.nnz())?;
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
                let mat = crate::matrix::Matrix::held(&name, take(csr, &name)?);
                let info = mat.info();
                self.check_fits(&name, info.rows, info.nnz)?;
                stages.lap("input");
                let (h, fine_part) = self.build_on_ranks(mat, progress, whole)?;
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
    /// lives on the GPUs. That partition comes back for the layout. The
    /// levels are made whole when `whole`.
    pub(super) fn build_on_ranks(
        &self,
        mat: Matrix,
        progress: &dyn Fn(Event),
        whole: bool,
    ) -> Result<(Hierarchy, Option<partition::Partition>), RequestError> {
        let made = |mut h: Hierarchy| {
            if whole && !h.is_whole() {
                progress(Event::Step("making each level whole".into()));
                h.make_whole();
            }
            h
        };
        if mat.ownership.is_some() || !self.amg.uses_ranks() {
            return Ok((
                made(build(mat, None, &self.amg, self.preset, progress)?),
                None,
            ));
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
        Ok((made(h), Some(part)))
    }

    /// `amgcomm hierarchy`: the hierarchy alone, built as [`Request::run`]
    /// builds it (on the machine's ranks when the setup depends on
    /// them), the input and partition checked as [`Request::check`]
    /// checks them; no output is planned. `stages` gets `input` and
    /// `hierarchy`. The levels stay as the setup leaves them (the hypre
    /// preset's in the ranks' blocks, made whole when first read whole).
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
        self.levels(&checked, progress, stages, false)
    }
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
