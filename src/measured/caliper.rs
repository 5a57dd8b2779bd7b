//! A Caliper profile of a hypre run, in Caliper's json-split format (what
//! `cali-query -q "... format json-split"` and the `hatchet-region-profile`
//! config write; Hatchet's `readers/caliper_reader.py` reads the same):
//! `nodes` (the region tree, `{"label", "column", "parent"}`), `columns`,
//! `column_metadata` and `data` (one row per node, and per rank when a
//! `mpi.rank` column is there).
//!
//! hypre built `--with-caliper` names its multigrid levels `MG level L`
//! (`HYPRE_ANNOTATE_MGLEVEL_BEGIN`, level 0 the finest); Caliper's MPI
//! profiling (`profile.mpi`, `mpi-report`) nests each MPI call as a region
//! named after it. Per level, the reader sums the time of the
//! point-to-point calls ([`POINT_TO_POINT`]) below that level's regions:
//! those of the solve (below a region whose name holds `Solve` or `Cycle`
//! and none holding `Setup`) when the profile has any, else all. The time
//! is the slowest rank's sum, when rows are per rank. The profile does not
//! say which operation a message belongs to: the level's time is set
//! beside the level's modeled solve as a whole. With Caliper's message
//! counts (`mpi.message.count`), the messages the level's regions sent,
//! over all ranks, are read too (`Msgs sent`).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::{fail, Measured, MeasuredError, Phase, PhaseMeasured};

/// MPI's point-to-point calls, as Caliper's MPI wrappers name them.
pub const POINT_TO_POINT: [&str; 22] = [
    "MPI_Send",
    "MPI_Isend",
    "MPI_Ssend",
    "MPI_Issend",
    "MPI_Rsend",
    "MPI_Irsend",
    "MPI_Bsend",
    "MPI_Recv",
    "MPI_Irecv",
    "MPI_Sendrecv",
    "MPI_Wait",
    "MPI_Waitall",
    "MPI_Waitany",
    "MPI_Waitsome",
    "MPI_Test",
    "MPI_Testall",
    "MPI_Testany",
    "MPI_Testsome",
    "MPI_Probe",
    "MPI_Iprobe",
    "MPI_Start",
    "MPI_Startall",
];

/// Time columns, most preferred first, and their unit in seconds:
/// per-rank (or single-process) sums, then cross-rank aggregates.
const TIME_COLUMNS: [(&str, f64); 8] = [
    ("sum#time.duration", 1.0),
    ("time", 1.0),
    ("sum#sum#time.duration", 1.0),
    ("sum#time.duration.ns", 1e-9),
    ("max#sum#time.duration", 1.0),
    ("max#time.duration", 1.0),
    ("avg#sum#time.duration", 1.0),
    ("sum#avg#sum#time.duration", 1.0),
];

/// The highest level number read (hypre allows 25 levels by default;
/// anything past this is not a level).
const MAX_LEVEL: usize = 1 << 16;

/// Whether `v` looks like a json-split profile (its four sections).
pub fn is_profile(v: &Value) -> bool {
    ["nodes", "columns", "data"]
        .iter()
        .all(|k| v.get(k).is_some_and(Value::is_array))
}

/// `MG level L` -> L.
fn level_of(label: &str) -> Option<Result<usize, String>> {
    let n = label.strip_prefix("MG level ")?;
    Some(
        n.trim()
            .parse::<usize>()
            .ok()
            .filter(|&l| l <= MAX_LEVEL)
            .ok_or_else(|| format!("region '{label}' names no level (0 to {MAX_LEVEL})")),
    )
}

/// Where a region sits: its nearest `MG level` above (or itself), and
/// whether it is below a solve or a setup region.
#[derive(Clone, Copy, Default)]
struct Place {
    level: Option<usize>,
    solve: bool,
    setup: bool,
}

/// Reads a json-split profile already parsed into `v`.
pub fn parse_profile(v: &Value) -> Result<Measured, MeasuredError> {
    let field = |k: &str| -> Result<&Vec<Value>, MeasuredError> {
        v.get(k)
            .and_then(Value::as_array)
            .ok_or_else(|| fail(None, format!("a Caliper profile needs a list `{k}`")))
    };
    let nodes = field("nodes")?;
    let columns: Vec<&str> = (field("columns")?.iter())
        .enumerate()
        .map(|(k, c)| {
            c.as_str()
                .ok_or_else(|| fail(None, format!("columns[{k}] is not a name")))
        })
        .collect::<Result<_, _>>()?;
    let data = field("data")?;
    let col = |name: &str| columns.iter().position(|c| *c == name);
    let path = col("path").ok_or_else(|| {
        fail(
            None,
            "the profile has no `path` column (the region tree): record it with Caliper's region profile",
        )
    })?;
    let (time, unit, time_name) = TIME_COLUMNS
        .iter()
        .find_map(|&(n, u)| col(n).map(|k| (k, u, n)))
        .ok_or_else(|| {
            fail(
                None,
                format!(
                    "the profile has no time column (one of {})",
                    TIME_COLUMNS.map(|c| c.0).join(", ")
                ),
            )
        })?;
    let rank = col("mpi.rank");
    // Caliper's `mpi.message.count`: the messages each call sent.
    let sent = col("Msgs sent");

    // The tree, parents first (as Caliper writes it), so that each node's
    // place follows from its parent's in one pass.
    let mut places: Vec<Place> = Vec::with_capacity(nodes.len());
    let mut labels: Vec<&str> = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let label = n
            .get("label")
            .and_then(Value::as_str)
            .ok_or_else(|| fail(None, format!("nodes[{i}] has no label")))?;
        let parent = match n.get("parent") {
            None | Some(Value::Null) => None,
            Some(p) => Some(
                p.as_u64()
                    .map(|p| p as usize)
                    .filter(|&p| p < i)
                    .ok_or_else(|| {
                        fail(
                            None,
                            format!("nodes[{i}]: parent {p} is not an earlier node"),
                        )
                    })?,
            ),
        };
        let mut place = parent.map_or(Place::default(), |p| places[p]);
        if let Some(l) = level_of(label) {
            place.level = Some(l.map_err(|e| fail(None, e))?);
        }
        place.setup |= label.contains("Setup");
        place.solve |= label.contains("Solve") || label.contains("Cycle");
        places.push(place);
        labels.push(label);
    }
    if !places.iter().any(|p| p.level.is_some()) {
        return Err(fail(
            None,
            "no region named `MG level L`: not a profile of hypre built with Caliper",
        ));
    }

    // Per (solve?, level, rank): the point-to-point seconds; per (solve?,
    // level): the messages sent below it, by any call.
    let mut sums: HashMap<(bool, usize, u64), f64> = HashMap::new();
    let mut counts: HashMap<(bool, usize), f64> = HashMap::new();
    let mut calls_seen = 0usize;
    for (r, row) in data.iter().enumerate() {
        let row = row
            .as_array()
            .ok_or_else(|| fail(None, format!("data[{r}] is not a row")))?;
        if row.len() != columns.len() {
            return Err(fail(
                None,
                format!(
                    "data[{r}] has {} values for {} columns",
                    row.len(),
                    columns.len()
                ),
            ));
        }
        // A row outside every region (Caliper writes null) is skipped.
        let node = match &row[path] {
            Value::Null => continue,
            p => p
                .as_u64()
                .map(|p| p as usize)
                .filter(|&p| p < nodes.len())
                .ok_or_else(|| fail(None, format!("data[{r}]: path {p} is not a node")))?,
        };
        let place = places[node];
        let Some(level) = place.level else { continue };
        let in_solve = place.solve && !place.setup;
        if let Some(k) = sent {
            let n = match &row[k] {
                Value::Null => 0.0,
                x => x
                    .as_f64()
                    .filter(|n| n.is_finite() && *n >= 0.0)
                    .ok_or_else(|| {
                        fail(None, format!("data[{r}]: Msgs sent {x} is not a count"))
                    })?,
            };
            *counts.entry((in_solve, level)).or_default() += n;
        }
        if !POINT_TO_POINT.contains(&labels[node]) {
            continue;
        }
        let seconds = match &row[time] {
            Value::Null => 0.0,
            t => t
                .as_f64()
                .map(|t| t * unit)
                .ok_or_else(|| fail(None, format!("data[{r}]: {time_name} {t} is not a number")))?,
        };
        super::check_seconds(None, seconds)
            .map_err(|e| fail(None, format!("data[{r}]: {}", e.problem)))?;
        let who = match rank.map(|k| &row[k]) {
            None | Some(Value::Null) => 0,
            Some(x) => x
                .as_u64()
                .ok_or_else(|| fail(None, format!("data[{r}]: mpi.rank {x} is not a rank")))?,
        };
        *sums.entry((in_solve, level, who)).or_default() += seconds;
        calls_seen += 1;
    }
    if calls_seen == 0 {
        return Err(fail(
            None,
            "no MPI point-to-point call below an `MG level` region: record the run with Caliper's MPI profiling (profile.mpi)",
        ));
    }
    let solve = sums.keys().any(|k| k.0);
    let mut levels: BTreeMap<usize, f64> = BTreeMap::new();
    for (&(in_solve, level, _), &s) in &sums {
        if !s.is_finite() {
            return Err(fail(
                None,
                format!("the times below MG level {level} sum past any number"),
            ));
        }
        if in_solve == solve {
            let m = levels.entry(level).or_default();
            *m = m.max(s);
        }
    }
    let mut notes = vec![
        "per level, the seconds in MPI point-to-point calls below hypre's `MG level L` regions (level 0 the finest); the profile does not say which operation a message belongs to, so each level is compared as a whole with its modeled solve".to_string(),
    ];
    notes.push(if solve {
        "only the solve's regions are counted (below a region named *Solve or *Cycle)".into()
    } else {
        "the profile has no solve region (a name holding Solve or Cycle): every `MG level` region is counted".into()
    });
    notes.push(match rank {
        Some(_) => format!("{time_name}: per rank, the slowest rank's sum"),
        None => format!("{time_name}: as the profile aggregates it over ranks"),
    });
    if sent.is_some() {
        notes.push("messages: Caliper's `Msgs sent` (mpi.message.count) below each level's regions, over all ranks and the whole run".into());
    }
    let mut phases = super::LevelPhases::new();
    for (level, seconds) in levels {
        phases.entry(level).or_default().insert(
            Phase::Solve,
            PhaseMeasured {
                event: format!("MPI point-to-point below MG level {level}"),
                seconds,
                messages: counts.get(&(solve, level)).copied(),
                ..PhaseMeasured::default()
            },
        );
    }
    let meta_ranks = v
        .get("mpi.world.size")
        .and_then(|x| x.as_u64().or_else(|| x.as_str()?.trim().parse().ok()))
        .map(|r| r as usize);
    Ok(Measured::of_phases("caliper", meta_ranks, phases, notes))
}
