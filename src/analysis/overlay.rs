//! A measured run beside the model (`analyze --measured FILE`): each
//! level's and operation's measured seconds and the ratio modeled over
//! measured, as the paper's Figures 10 and 11 set them side by side; and
//! a profile's phases of a level ([`overlay_phases`]: Caliper's time per
//! `MG level`, PETSc's `MGSmooth`, `MGResid`, `MGInterp` events) beside
//! the same phases modeled, their messages counted beside the model's.

use serde::Serialize;

use super::cycle::Cycle;
use super::{Analysis, LevelAnalysis};
use crate::comm::{Op, OPS};
use crate::measured::{Measured, Phase};

/// A measured run that cannot be the one analysed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OverlayError {
    /// The file states another rank count.
    #[error("the measured run had {measured} ranks, the analysis has {analysed}")]
    Ranks {
        /// Ranks the file states.
        measured: usize,
        /// Ranks analysed.
        analysed: usize,
    },
    /// More ranks took part than the analysis has.
    #[error("{active} ranks took part in a measured level, more than the {analysed} analysed")]
    Active {
        /// The most active ranks of a measured level.
        active: usize,
        /// Ranks analysed.
        analysed: usize,
    },
}

/// Whether `m` can be a run on `ranks` ranks: the rank count it states,
/// and the most ranks taking part in any level. Checked before the
/// analysis, as soon as the machine is known.
pub fn check_measured(m: &Measured, ranks: usize) -> Result<(), OverlayError> {
    if let Some(r) = m.ranks.filter(|&r| r != ranks) {
        return Err(OverlayError::Ranks {
            measured: r,
            analysed: ranks,
        });
    }
    if let Some(active) = m.max_active().filter(|&a| a > ranks) {
        return Err(OverlayError::Active {
            active,
            analysed: ranks,
        });
    }
    Ok(())
}

/// Sets each operation's `measured` and `modeled_over_measured` from `m`;
/// returns what the file lacks or has in excess, one sentence each:
/// levels and operations not measured, and a file deeper than the
/// hierarchy, and a replay of another exchange strategy than the one
/// charged. Ptap is not among the file's operations unless it says so.
pub fn overlay(a: &mut Analysis, m: &Measured) -> Vec<String> {
    let mut missing = Vec::new();
    // The measurements of the strategy charged, when the file has them.
    let charged = a.strategy.name();
    let levels = m.under(&charged).unwrap_or(&m.levels);
    for l in &mut a.levels {
        for o in &mut l.ops {
            match levels.get(&l.level).and_then(|ops| ops.get(&o.op)) {
                Some(x) => {
                    o.measured = Some(*x);
                    o.modeled_over_measured = (x.seconds > 0.0).then(|| o.cost.total / x.seconds);
                }
                None => missing.push(format!("{} {}", l.level, o.op.name())),
            }
        }
    }
    let mut warnings = Vec::new();
    // Ptap and aa are measured by no benchmark of the other kind: only
    // an operation the file measures somewhere is missing.
    let measures = |op| levels.values().any(|ops| ops.contains_key(&op));
    missing.retain(|s| OPS.iter().any(|&op| s.ends_with(op.name()) && measures(op)));
    if !missing.is_empty() {
        warnings.push(format!(
            "not measured (level op): {}; shown without a measurement",
            missing.join(", ")
        ));
    }
    if !m.levels.is_empty() && m.under(&charged).is_none() {
        let s = m.strategy.as_deref().unwrap_or("standard");
        warnings.push(format!(
            "the measured run used {s} exchanges, the model charges {charged}"
        ));
    }
    if m.depth() > a.levels.len() {
        warnings.push(format!(
            "the measured run has {} levels, the hierarchy {}: the deeper measured levels are left out",
            m.depth(),
            a.levels.len()
        ));
    }
    warnings
}

/// One measured phase of one level beside the model (a Caliper or PETSc
/// profile, which time phases of a level rather than single operations).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PhaseOverlay {
    /// Level index, 0 the finest.
    pub level: usize,
    /// Which part of the level's solve.
    pub phase: Phase,
    /// The profile's name for it.
    pub event: String,
    /// Times the profile entered it, when it counts them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
    /// Measured seconds over the run.
    pub measured_seconds: f64,
    /// Modeled seconds of the same calls: `calls` times the modeled call
    /// (PETSc's events), or the cycle's level time times
    /// `request.cycle.iterations` (Caliper); `None` when that is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modeled_seconds: Option<f64>,
    /// Their ratio.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modeled_over_measured: Option<f64>,
    /// Messages over all ranks and the whole run, as the profile counted
    /// them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_messages: Option<f64>,
    /// Messages per call over all ranks, as the profile counted them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_messages_per_call: Option<f64>,
    /// The model's messages per call: its exchanges per call (the cycle's
    /// sweeps for smoothing; one for a residual; interpolation and
    /// restriction alternating for a transfer) times the messages of one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modeled_messages_per_call: Option<f64>,
    /// The measured messages per call in exchanges of the model's size:
    /// how many halo exchanges a call held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchanges_per_call: Option<f64>,
    /// Bytes per message, measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured_avg_bytes: Option<f64>,
    /// Bytes per message, modeled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modeled_avg_bytes: Option<f64>,
}

/// A modeled exchange: seconds, messages over all ranks, bytes.
#[derive(Clone, Copy, Default)]
struct Exchange {
    seconds: f64,
    messages: f64,
    bytes: f64,
}

impl Exchange {
    fn of(l: &LevelAnalysis, op: Op) -> Option<Exchange> {
        let o = l.op(op)?;
        Some(Exchange {
            seconds: o.cost.total,
            messages: o.summary.messages.total as f64,
            bytes: o.summary.bytes.total as f64,
        })
    }

    /// `k` of these.
    fn times(self, k: f64) -> Exchange {
        Exchange {
            seconds: k * self.seconds,
            messages: k * self.messages,
            bytes: k * self.bytes,
        }
    }

    fn plus(self, o: Exchange) -> Exchange {
        Exchange {
            seconds: self.seconds + o.seconds,
            messages: self.messages + o.messages,
            bytes: self.bytes + o.bytes,
        }
    }
}

/// Each measured phase of `m` beside the model of `a` under the cycle
/// `c`, and what could not be compared, one sentence each.
pub fn overlay_phases(a: &Analysis, m: &Measured, c: &Cycle) -> (Vec<PhaseOverlay>, Vec<String>) {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    let Some(last) = a.levels.len().checked_sub(1) else {
        return (out, warnings);
    };
    let mut lacking = std::collections::BTreeSet::new();
    for (&level, phases) in m.phases.range(..=last) {
        let l = &a.levels[level];
        let spmv = Exchange::of(l, Op::Spmv);
        for (&phase, pm) in phases {
            // One call of the phase, modeled; per call in exchanges of
            // the model's size.
            let call: Option<(Exchange, Option<Exchange>)> = match phase {
                Phase::Solve => None,
                Phase::Smooth => {
                    let sweeps = f64::from(c.pre_sweeps + c.post_sweeps) / 2.0;
                    spmv.map(|x| (x.times(sweeps), Some(x)))
                }
                Phase::Residual => spmv.map(|x| (x, Some(x))),
                Phase::Transfer => {
                    let both = Exchange::of(l, Op::Interp).zip(Exchange::of(l, Op::Restrict));
                    if both.is_none() {
                        lacking.insert("interp and restrict");
                    }
                    both.map(|(i, r)| {
                        let half = i.plus(r).times(0.5);
                        (half, Some(half))
                    })
                }
            };
            let modeled_seconds = match phase {
                Phase::Solve => {
                    let s = super::cycle::level_seconds(l, level == last, c, |l, op| {
                        l.op(op).map(|o| o.cost.total)
                    });
                    if s.is_none() {
                        lacking.insert("interp and restrict");
                    }
                    s.and_then(|s| s.solve)
                }
                _ => call.zip(pm.calls).map(|((x, _), n)| n as f64 * x.seconds),
            };
            let measured_per_call = pm
                .messages
                .zip(pm.calls)
                .map(|(msgs, n)| msgs / n.max(1) as f64);
            let unit = call.and_then(|(_, u)| u);
            out.push(PhaseOverlay {
                level,
                phase,
                event: pm.event.clone(),
                calls: pm.calls,
                measured_seconds: pm.seconds,
                modeled_over_measured: modeled_seconds
                    .filter(|_| pm.seconds > 0.0)
                    .map(|s| s / pm.seconds),
                modeled_seconds,
                measured_messages: pm.messages,
                measured_messages_per_call: measured_per_call,
                modeled_messages_per_call: call.map(|(x, _)| x.messages),
                exchanges_per_call: measured_per_call
                    .zip(unit)
                    .filter(|(_, u)| u.messages > 0.0)
                    .map(|(m, u)| m / u.messages),
                measured_avg_bytes: pm.avg_bytes,
                modeled_avg_bytes: call
                    .filter(|(x, _)| x.messages > 0.0)
                    .map(|(x, _)| x.bytes / x.messages),
            });
        }
    }
    for what in lacking {
        warnings.push(format!(
            "the measured phases need {what} charged (--ops spmv,interp,restrict): those levels are shown without a model"
        ));
    }
    let solve = m.phases.values().any(|p| p.contains_key(&Phase::Solve));
    if solve && c.iterations.is_none() {
        warnings.push(
            "the profile times the whole solve: give its cycles (--iterations N) to model the same"
                .into(),
        );
    }
    (out, warnings)
}
