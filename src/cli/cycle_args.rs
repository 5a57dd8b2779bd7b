//! The solve's flags (`--cycle`, `--pre-sweeps`, `--post-sweeps`,
//! `--smoother`, `--iterations`) -> [`Cycle`].

use clap::Args;

use crate::analysis::cycle::{Cycle, Shape, Smoother};
use crate::comm::Ops;

#[derive(Args, Debug, Default)]
pub(crate) struct CycleArgs {
    /// Set the solve beside the setup: the communication of one cycle per
    /// level (smoothing, residual, restrict, interp), of --iterations
    /// cycles, and which phase dominates [default with any of the flags
    /// below: V].
    #[arg(long, value_enum, help_heading = "Solve")]
    cycle: Option<Shape>,
    /// Smoothing sweeps before the coarse-grid correction [default: 1].
    #[arg(long, value_name = "N", help_heading = "Solve")]
    pre_sweeps: Option<u32>,
    /// Smoothing sweeps after it [default: 1].
    #[arg(long, value_name = "N", help_heading = "Solve")]
    post_sweeps: Option<u32>,
    /// The smoother; each sweep is one halo exchange of A_l [default:
    /// hybrid-gs].
    #[arg(long, value_enum, help_heading = "Solve")]
    smoother: Option<Smoother>,
    /// Cycles of the solve: the solve's total and which of setup or
    /// solve dominates.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Solve")]
    iterations: Option<u64>,
}

impl CycleArgs {
    /// The cycle asked for, when any of its flags is given.
    pub(crate) fn cycle(&self) -> Option<Cycle> {
        let given = self.cycle.is_some()
            || self.pre_sweeps.is_some()
            || self.post_sweeps.is_some()
            || self.smoother.is_some()
            || self.iterations.is_some();
        let d = Cycle::default();
        given.then(|| Cycle {
            shape: self.cycle.unwrap_or(d.shape),
            pre_sweeps: self.pre_sweeps.unwrap_or(d.pre_sweeps),
            post_sweeps: self.post_sweeps.unwrap_or(d.post_sweeps),
            smoother: self.smoother.unwrap_or(d.smoother),
            iterations: self.iterations,
        })
    }

    /// `ops` with the cycle's operations when a cycle is asked and the
    /// operations were not named (`--ops` named them: the request checks
    /// they hold the cycle's).
    pub(crate) fn ops(&self, ops: Ops, named: bool) -> Ops {
        match self.cycle() {
            Some(_) if !named => (Cycle::OPS.iter()).fold(ops, |o, &op| o.with(op, true)),
            _ => ops,
        }
    }
}
