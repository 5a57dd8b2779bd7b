//! PETSc's `-log_view` text of a run with `-pc_mg_log`: per multigrid level
//! its events `MGSmooth Level k`, `MGResid Level k` and `MGInterp Level k`,
//! each line
//!
//! ```text
//! MGResid Level 3       11 1.0 4.9976e-04 3.0 1.52e+05 1.0 6.6e+01 2.0e+03 0.0e+00  0  7 ...
//!                    count ratio time-max ratio flop-max ratio  Mess  AvgLen  Reduct
//! ```
//!
//! `count` is the calls (the most on a rank), `time` the slowest rank's
//! seconds, `Mess` the messages sent over all ranks, `AvgLen` their mean
//! bytes (PETSc's `PetscLogView`; 3.18 prints them to two digits). An
//! event in several stages is summed over them. PETSc numbers its levels
//! from the coarsest: of `D` levels, `Level k` is amgcomm's level
//! `D - 1 - k` (level 0 the finest). `MGInterp` times interpolation and
//! restriction both.

use std::collections::BTreeMap;

use super::{fail, Measured, MeasuredError, Phase, PhaseMeasured};

/// Whether `text` is PETSc's `-log_view`.
pub fn is_log(text: &str) -> bool {
    text.contains("PETSc Performance Summary")
}

/// The highest PETSc level number read.
const MAX_LEVEL: usize = 1 << 16;

/// `MGSmooth Level 3   11 1.0 ...` -> (phase, 3, the fields after it).
fn event(line: &str) -> Option<(Phase, &str, &str)> {
    let t = line.trim_start();
    let (phase, rest) = [
        ("MGSmooth Level ", Phase::Smooth),
        ("MGResid Level ", Phase::Residual),
        ("MGInterp Level ", Phase::Transfer),
    ]
    .iter()
    .find_map(|(p, phase)| t.strip_prefix(p).map(|r| (*phase, r)))?;
    let (k, fields) = rest.split_once(char::is_whitespace)?;
    Some((phase, k, fields))
}

/// Sums of one event over the stages.
#[derive(Default)]
struct Sums {
    calls: f64,
    seconds: f64,
    messages: f64,
    bytes: f64,
}

/// Reads PETSc's `-log_view` text.
pub fn parse_log(text: &str) -> Result<Measured, MeasuredError> {
    let mut ranks = None;
    let mut events: BTreeMap<(usize, Phase), Sums> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let at = Some(n + 1);
        // "./app on a  named host with 4 processors, by user ..."
        if ranks.is_none() && line.contains(" named ") {
            let words: Vec<&str> = line.split_whitespace().collect();
            ranks = (words.windows(3))
                .find(|w| w[0] == "with" && w[2].starts_with("process"))
                .and_then(|w| w[1].parse::<usize>().ok());
        }
        let Some((phase, k, fields)) = event(line) else {
            continue;
        };
        let k: usize = k
            .parse()
            .ok()
            .filter(|&k| k <= MAX_LEVEL)
            .ok_or_else(|| fail(at, format!("'Level {k}' is not a level number")))?;
        let f: Vec<&str> = fields.split_whitespace().collect();
        if f.len() < 9 {
            return Err(fail(
                at,
                "an event line needs its count, time, flops, messages, length and reductions",
            ));
        }
        let num = |i: usize, what: &str| -> Result<f64, MeasuredError> {
            f[i].parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e300)
                .ok_or_else(|| fail(at, format!("{what} '{}' is not a count", f[i])))
        };
        let (calls, seconds) = (num(0, "count")?, num(2, "time")?);
        let (messages, avg) = (num(6, "Mess")?, num(7, "AvgLen")?);
        let s = events.entry((k, phase)).or_default();
        s.calls += calls;
        s.seconds += seconds;
        s.messages += messages;
        s.bytes += messages * avg;
    }
    let Some(deepest) = events.keys().map(|k| k.0).max() else {
        return Err(fail(
            None,
            "PETSc's log has no MGSmooth, MGResid or MGInterp event: run with -log_view -pc_mg_log",
        ));
    };
    let depth = deepest + 1;
    let mut phases = super::LevelPhases::new();
    for ((k, phase), s) in events {
        let level = depth - 1 - k;
        let name = match phase {
            Phase::Smooth => "MGSmooth",
            Phase::Residual => "MGResid",
            _ => "MGInterp",
        };
        phases.entry(level).or_default().insert(
            phase,
            PhaseMeasured {
                event: format!("{name} Level {k}"),
                calls: Some(s.calls.round() as u64),
                seconds: s.seconds,
                messages: Some(s.messages),
                avg_bytes: (s.messages > 0.0).then(|| s.bytes / s.messages),
            },
        );
    }
    let notes = vec![
        format!("PETSc numbers its levels from the coarsest: its Level k is level {} - k here (level 0 the finest)", depth - 1),
        "per event: calls (the most on a rank), the slowest rank's seconds, messages sent over all ranks and their mean length (PETSc prints them to two digits)".into(),
        "MGInterp holds interpolation and restriction both: it is set beside their mean".into(),
        "an event's time holds its computation as well as its messages; its counted messages are what compares with the model".into(),
    ];
    Ok(Measured::of_phases("petsc", ranks, phases, notes))
}
