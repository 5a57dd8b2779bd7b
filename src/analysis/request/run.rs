//! A request run: the hierarchy analysed on the machine, the measured
//! overlay set beside it, the advice; and the variants of `compare`.

use std::path::Path;

use super::{Checked, Event, Loaded, MeasuredOverlay, Request, RequestError, Run};
use crate::amg::{self};
use crate::analysis::advice::Setup;
use crate::analysis::{Analysis, Stages, Variant, VariantAnalysis};
use crate::measured::Measured;
use crate::partition::methods::{Method, MethodOptions};
use crate::partition::{self, CoarseRule, Fine, Layout};

impl Request {
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
        let mut analysis = crate::analysis::analyze(h, &layout, m, &self.options)?;
        stages.record("extraction", analysis.seconds.extraction);
        stages.record("model", analysis.seconds.model);
        let measured = checked.measured.map(|file| {
            let path = self.measured.as_deref().expect("a measured file was read");
            let cycle = self.options.cycle.unwrap_or_default();
            overlay_measured(&mut analysis, file, path, &cycle, progress)
        });
        let cycle = (self.options.cycle).and_then(|c| crate::analysis::cycle::of(&analysis, &c));
        let advice = if self.advice {
            progress(Event::Step("what would cut it: trying alternatives".into()));
            let setup = Setup {
                machine: m,
                fine: &fine,
                methods: self.methods,
                coarse,
                options: &self.options,
                rebuild: (input.built && self.amg.uses_ranks()).then_some(
                    crate::analysis::compare::Rebuild {
                        amg: &self.amg,
                        built_on: &fine,
                    },
                ),
            };
            let (advice, failed) = crate::analysis::advice::advise(h, &setup, &analysis);
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
            crate::analysis::compare::Rebuild {
                amg: &self.amg,
                built_on: &built_on,
            },
        );
        let runs = crate::analysis::compare(
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

/// Sets the measured times of `file` (read from `path`) beside
/// `analysis`, warning of what it lacks.
pub fn overlay_measured(
    analysis: &mut Analysis,
    file: Measured,
    path: &Path,
    cycle: &crate::analysis::cycle::Cycle,
    progress: &dyn Fn(Event),
) -> MeasuredOverlay {
    let mut warnings = crate::analysis::overlay(analysis, &file);
    let (levels, more) = crate::analysis::overlay_phases(analysis, &file, cycle);
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
