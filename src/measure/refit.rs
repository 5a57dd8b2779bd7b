//! A preset refitted from its measurements: BenchPress's runs
//! ([`super::benchpress::RUNS`]), MPI Advance's
//! ([`super::locality_aware::RUNS`]), or a table of medians.

use super::benchpress::read::read_text;
use super::benchpress::{fit, read_table, BenchError, Median, Runs, RUNS};
use crate::machine::Machine;

/// Why `preset` has no runs to fit it from (naming the presets that
/// have some), or nothing.
pub fn fittable(preset: &str) -> Result<(), BenchError> {
    if Runs::of(preset).is_some() || super::locality_aware::Runs::of(preset).is_some() {
        return Ok(());
    }
    let known: Vec<&str> = (RUNS.iter().map(|r| r.preset))
        .chain(super::locality_aware::RUNS.iter().map(|r| r.preset))
        .collect();
    Err(BenchError(format!(
        "{preset}: no measured runs to fit it from (presets: {})",
        known.join(", ")
    )))
}

/// Preset `name` with its measured parameters fitted again `from` a
/// folder of its runs (BenchPress's, [`RUNS`], or MPI Advance's,
/// [`super::locality_aware::RUNS`]) or a table of medians
/// ([`super::benchpress::write_table`]'s); also the table's source lines and medians.
pub fn refit(
    name: &str,
    from: &std::path::Path,
) -> Result<(Machine, Vec<String>, Vec<Median>), BenchError> {
    fittable(name)?;
    let base = crate::machine::presets::preset(name).expect("every run names a preset");
    // From a folder, its runs' medians; from a table, its own.
    let dir = from.is_dir();
    let (source, per_node, thresholds, medians) =
        match (Runs::of(name), super::locality_aware::Runs::of(name)) {
            (Some(runs), _) => (
                runs.source(),
                runs.gpus.map(|g| g.per_node),
                None,
                dir.then(|| runs.read(from)).transpose()?,
            ),
            (None, Some(runs)) => (
                runs.source(),
                Some(runs.gpus_per_node),
                runs.thresholds,
                dir.then(|| runs.read(from)).transpose()?,
            ),
            (None, None) => unreachable!("fittable"),
        };
    let (source, medians) = match medians {
        Some(medians) => (source, medians),
        None => read_table(&read_text(from)?)
            .map_err(|e| BenchError(format!("{}: {}", from.display(), e.0)))?,
    };
    let m = fit(&medians, &base, &source.join("; "), per_node, thresholds)
        .map_err(|e| BenchError(format!("{}: {e}", from.display())))?;
    Ok((m, source, medians))
}
