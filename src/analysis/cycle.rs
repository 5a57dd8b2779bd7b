//! The solve phase: the communication of one multigrid cycle per level,
//! of `N` cycles, and of the setup beside them, from an [`Analysis`]'s
//! charged operations.
//!
//! A visit to level `l` that has a `P_l` exchanges `A_l`'s halo once per
//! smoothing sweep (`pre + post`) and once for the residual `r = b - A x`,
//! then restricts `P_l^T r` and, after the coarse-grid correction,
//! interpolates `P_l e` (hypre's `hypre_BoomerAMGCycle`, RAPtor's
//! `cycle`). The coarsest level is solved by `pre + post` sweeps of the
//! smoother (a relaxation coarse solve; a direct solve gathers the coarse
//! vector in a collective, outside this point-to-point model). A V-cycle
//! visits each level once, a W-cycle visits level `l` `2^l` times
//! (Trottenberg, Oosterlee, Schüller, *Multigrid*, 2001, sec. 2.4). The
//! setup's communication is each level's spgemm and ptap (`A_l P_l` and
//! `P_l^T (A_l P_l)`, Galerkin's product).
//!
//! Every smoother offered needs one halo exchange of `A_l` per sweep:
//! Jacobi and l1-Jacobi (hypre relax types 0 and 18) read the neighbours'
//! old values, and hypre's hybrid Gauss-Seidel (types 3, 4 and 6) relaxes
//! its own rows in order against the neighbours' values received once per
//! sweep. They cost the same communication; the report names the one
//! asked for.

use serde::Serialize;

use super::{Analysis, LevelAnalysis};
use crate::comm::Op;

/// The cycle's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
pub enum Shape {
    /// One visit per level.
    #[default]
    #[value(name = "V")]
    V,
    /// Two coarse-grid corrections per visit: level `l` visited `2^l`
    /// times.
    #[value(name = "W")]
    W,
}

/// The smoother (each sweep one halo exchange of `A_l`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Smoother {
    /// Weighted Jacobi (hypre relax type 0).
    Jacobi,
    /// l1-Jacobi (hypre relax type 18).
    L1Jacobi,
    /// hypre's hybrid Gauss-Seidel: Gauss-Seidel within a rank, Jacobi
    /// between ranks (relax types 3, 4, 6; BoomerAMG's default).
    #[default]
    HybridGs,
}

/// What the solve runs: `--cycle`, `--pre-sweeps`, `--post-sweeps`,
/// `--smoother`, `--iterations`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cycle {
    /// V or W.
    pub shape: Shape,
    /// Smoothing sweeps before the coarse-grid correction.
    pub pre_sweeps: u32,
    /// Smoothing sweeps after it.
    pub post_sweeps: u32,
    /// The smoother.
    pub smoother: Smoother,
    /// Cycles of the solve, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
}

impl Default for Cycle {
    /// V(1,1) with hybrid Gauss-Seidel: BoomerAMG's default cycle.
    fn default() -> Cycle {
        Cycle {
            shape: Shape::V,
            pre_sweeps: 1,
            post_sweeps: 1,
            smoother: Smoother::HybridGs,
            iterations: None,
        }
    }
}

impl Cycle {
    /// Visits of level `l` per cycle: 1 (V) or `2^l` (W).
    pub fn visits(&self, l: usize) -> f64 {
        match self.shape {
            Shape::V => 1.0,
            Shape::W => 2f64.powi(l as i32),
        }
    }

    /// How many times one cycle exchanges `op` on `level` (the coarsest
    /// or not): per visit, spmv once per sweep and, above the coarsest,
    /// once for the residual; interp and restrict once above the
    /// coarsest; the setup's operations never.
    pub fn exchanges(&self, level: usize, coarsest: bool, op: Op) -> f64 {
        let v = self.visits(level);
        let above = f64::from(u8::from(!coarsest));
        match op {
            Op::Spmv => v * (f64::from(self.pre_sweeps + self.post_sweeps) + above),
            Op::Interp | Op::Restrict => v * above,
            Op::Spgemm | Op::Ptap | Op::Aa => 0.0,
        }
    }

    /// `V(1,1)`, `W(2,0)`, ...
    pub fn name(&self) -> String {
        let shape = match self.shape {
            Shape::V => "V",
            Shape::W => "W",
        };
        format!("{shape}({},{})", self.pre_sweeps, self.post_sweeps)
    }

    /// The operations a cycle's costs need: spmv, and on levels with a
    /// `P`, interp and restrict.
    pub const OPS: [Op; 3] = [Op::Spmv, Op::Interp, Op::Restrict];
}

/// Which phase costs more at the given iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// The setup's spgemm and ptap.
    Setup,
    /// `N` cycles.
    Solve,
}

/// Seconds of communication of one level (or of all) in each phase.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Seconds {
    /// Smoothing sweeps, per cycle (all visits).
    pub smoothing: f64,
    /// The residual's exchange, per cycle.
    pub residual: f64,
    /// `P_l^T r`, per cycle.
    pub restrict: f64,
    /// `P_l e`, per cycle.
    pub interp: f64,
    /// Their sum: one cycle.
    pub cycle: f64,
    /// `iterations` cycles, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solve: Option<f64>,
    /// spgemm and ptap.
    pub setup: f64,
}

/// One level of the cycle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CycleLevel {
    /// Level index.
    pub level: usize,
    /// Visits per cycle.
    pub visits: f64,
    /// Modeled seconds.
    #[serde(flatten)]
    pub modeled: Seconds,
    /// The same from measured times, where every part was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_cycle: Option<f64>,
    /// Measured setup (spgemm and ptap both measured).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_setup: Option<f64>,
    /// The fewest cycles whose communication reaches the level's setup.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub break_even: Option<u64>,
}

/// The solve beside the setup (`report.json`'s `cycle`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CycleAnalysis {
    /// `V(1,1)`, ...
    pub name: String,
    /// What was asked.
    #[serde(flatten)]
    pub cycle: Cycle,
    /// Per level.
    pub levels: Vec<CycleLevel>,
    /// Over all levels.
    pub total: Seconds,
    /// The same from measured times, when every level's parts were.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_cycle: Option<f64>,
    /// The fewest cycles whose communication reaches the setup's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub break_even: Option<u64>,
    /// The costlier phase at `iterations`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dominates: Option<Phase>,
}

/// The fewest `n` with `n * cycle >= setup`; `None` when a cycle costs
/// nothing.
fn break_even(cycle: f64, setup: f64) -> Option<u64> {
    (cycle > 0.0).then(|| (setup / cycle).ceil().max(1.0) as u64)
}

/// The phase that costs more after `n` cycles (ties go to the solve).
pub fn dominates(total: &Seconds, n: u64) -> Phase {
    if total.setup > n as f64 * total.cycle {
        Phase::Setup
    } else {
        Phase::Solve
    }
}

/// One level's seconds from `time(op)` (an operation's seconds on the
/// level, `None` when it was not charged or measured); `None` when a
/// part the cycle needs is missing.
pub(crate) fn level_seconds(
    l: &LevelAnalysis,
    coarsest: bool,
    c: &Cycle,
    time: impl Fn(&LevelAnalysis, Op) -> Option<f64>,
) -> Option<Seconds> {
    let v = c.visits(l.level);
    let spmv = time(l, Op::Spmv)?;
    let sweeps = f64::from(c.pre_sweeps + c.post_sweeps);
    let mut s = Seconds {
        smoothing: v * sweeps * spmv,
        ..Seconds::default()
    };
    if !coarsest {
        s.residual = v * spmv;
        s.restrict = c.exchanges(l.level, coarsest, Op::Restrict) * time(l, Op::Restrict)?;
        s.interp = c.exchanges(l.level, coarsest, Op::Interp) * time(l, Op::Interp)?;
        s.setup = time(l, Op::Spgemm).unwrap_or(0.0) + time(l, Op::Ptap).unwrap_or(0.0);
    }
    s.cycle = s.smoothing + s.residual + s.restrict + s.interp;
    s.solve = c.iterations.map(|n| n as f64 * s.cycle);
    Some(s)
}

/// The cycle `c` over `a`'s levels; `None` when a level lacks spmv, or
/// one with a `P` lacks interp or restrict (not extracted).
pub fn of(a: &Analysis, c: &Cycle) -> Option<CycleAnalysis> {
    let last = a.levels.len().checked_sub(1)?;
    let modeled = |l: &LevelAnalysis, op| l.op(op).map(|o| o.cost.total);
    let measured = |l: &LevelAnalysis, op| l.op(op)?.measured.map(|m| m.seconds);
    let mut levels = Vec::with_capacity(a.levels.len());
    let mut total = Seconds::default();
    let mut measured_total = Some(0.0);
    for l in &a.levels {
        let coarsest = l.level == last;
        let s = level_seconds(l, coarsest, c, modeled)?;
        let m = level_seconds(l, coarsest, c, measured);
        let has_setup = !coarsest && l.op(Op::Spgemm).is_some() && l.op(Op::Ptap).is_some();
        let measured_setup = (has_setup)
            .then(|| Some(measured(l, Op::Spgemm)? + measured(l, Op::Ptap)?))
            .flatten();
        measured_total = measured_total.zip(m).map(|(t, m)| t + m.cycle);
        for (sum, x) in [
            (&mut total.smoothing, s.smoothing),
            (&mut total.residual, s.residual),
            (&mut total.restrict, s.restrict),
            (&mut total.interp, s.interp),
            (&mut total.cycle, s.cycle),
            (&mut total.setup, s.setup),
        ] {
            *sum += x;
        }
        levels.push(CycleLevel {
            level: l.level,
            visits: c.visits(l.level),
            break_even: (s.setup > 0.0)
                .then(|| break_even(s.cycle, s.setup))
                .flatten(),
            modeled: s,
            measured_cycle: m.map(|m| m.cycle),
            measured_setup,
        });
    }
    total.solve = c.iterations.map(|n| n as f64 * total.cycle);
    Some(CycleAnalysis {
        name: c.name(),
        cycle: *c,
        levels,
        measured_cycle: measured_total,
        break_even: break_even(total.cycle, total.setup),
        dominates: c.iterations.map(|n| dominates(&total, n)),
        total,
    })
}
