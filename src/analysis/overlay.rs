//! A measured run beside the model (`analyze --measured FILE`): each
//! level's and operation's measured seconds and the ratio modeled over
//! measured, as the paper's Figures 10 and 11 set them side by side.

use crate::comm::OPS;
use crate::measured::Measured;

use super::Analysis;

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
    if m.under(&charged).is_none() {
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
