//! `amgcomm scale`: one request over several node counts. Strong scaling
//! keeps the problem; weak scaling (`weak`) grows a grid generator's `N`
//! with the ranks (`N_k = round(N_0 (P_k / P_0)^(1/d))`, `d` the grid's
//! dimension), as RAPtor's and hypre's weak-scaling runs do. Each node
//! count is a full [`Request::run`] per strategy asked for; the hierarchy
//! is built once when it depends on neither the ranks (RAPtor's per-rank
//! weights, [`crate::amg::Coarsening::uses_ranks`], MFEM's partition) nor
//! the size (weak scaling). What scaling needs of each run is kept as
//! plain data ([`Point`]); the runs go to the caller as they finish, so
//! no two hierarchies are held at once.
//!
//! The crossover of an operation at a node count is the first level from
//! which the second strategy asked for (node-aware) is cheaper than the
//! first (standard) on every deeper level that has both, modeled and,
//! when measured, measured: the level the EuroMPI'18 study and RAPtor's
//! benchmark_matops runs see move towards the fine levels as the process
//! count grows.

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use serde::Serialize;

use super::request::{Checked, Event, Input, Request, RequestError, Run};
use super::{Analysis, Stages};
use crate::comm::node_aware::Strategy;
use crate::comm::Op;
use crate::matrix::gen::Kind;
use crate::matrix::source::Source;
use crate::partition::methods::Method;
use crate::partition::Fine;

/// A scaling study, as plain data.
#[derive(Clone, Debug)]
pub struct ScaleRequest {
    /// The request at every node count: input, AMG settings, machine
    /// (its node count replaced), model and operations; its
    /// `outputs.folder` is the scaling report's folder.
    pub base: Request,
    /// Node counts, increasing.
    pub nodes: Vec<usize>,
    /// Strategies charged at every node count, the reference first.
    pub strategies: Vec<Strategy>,
    /// Grow the generator with the ranks.
    pub weak: bool,
    /// A folder of measured files (RAPtor logs or amgcomm's measured
    /// JSON), each named with its process count (`aniso_128.out`), or one
    /// file for a single node count.
    pub measured: Option<PathBuf>,
}

/// One node count's request, checked.
#[derive(Clone, Debug)]
pub struct PointRequest {
    /// Nodes.
    pub nodes: usize,
    /// The request (its folder: `<scale folder>/nodes_<n>` for the first
    /// strategy, `nodes_<n>_<strategy>` for the others).
    pub request: Request,
    /// What its check found.
    pub checked: Checked,
}

/// One operation of one level under one strategy.
#[derive(Clone, Debug, Serialize)]
pub struct OpPoint {
    /// The operation.
    pub op: Op,
    /// Modeled seconds.
    pub modeled: f64,
    /// Measured seconds, when a measured run gave them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<f64>,
    /// Most messages one rank receives (all steps).
    pub max_recv: u64,
    /// Each cost term's seconds, under its `report.json` key (terms of
    /// one slot summed), in the model's order.
    #[serde(skip)]
    pub terms: Vec<(&'static str, f64)>,
}

/// One level under one strategy.
#[derive(Clone, Debug, Serialize)]
pub struct LevelPoint {
    /// Level index.
    pub level: usize,
    /// Rows of `A_l`.
    pub rows: usize,
    /// Ranks owning rows.
    pub active_processes: usize,
    /// Its operations.
    pub ops: Vec<OpPoint>,
}

/// One node count: every strategy's levels.
#[derive(Clone, Debug, Serialize)]
pub struct Point {
    /// Nodes.
    pub nodes: usize,
    /// Ranks.
    pub ranks: usize,
    /// The input (a generator's spec grows under weak scaling).
    pub input: String,
    /// The measured file set beside it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<String>,
    /// Per strategy (as asked), its levels.
    pub strategies: Vec<(Strategy, Vec<LevelPoint>)>,
}

impl Point {
    fn of(nodes: usize, request: &Request, runs: &[(Strategy, Analysis)]) -> Point {
        let strategies = runs
            .iter()
            .map(|(s, analysis)| {
                let levels = (analysis.levels.iter())
                    .map(|l| LevelPoint {
                        level: l.level,
                        rows: l.rows,
                        active_processes: l.active_processes,
                        ops: (l.ops.iter())
                            .map(|o| OpPoint {
                                op: o.op,
                                modeled: o.cost.total,
                                measured: o.measured.map(|m| m.seconds),
                                max_recv: o.summary.messages.max_recv,
                                terms: o.cost.by_column(),
                            })
                            .collect(),
                    })
                    .collect();
                (*s, levels)
            })
            .collect();
        Point {
            nodes,
            ranks: request.machine.ranks(),
            input: match &request.input {
                Input::Matrix { spec, .. } => spec.clone(),
                Input::Levels(dir) => dir.display().to_string(),
                Input::Memory(held) => held.name.clone(),
            },
            measured: request.measured.as_ref().map(|p| p.display().to_string()),
            strategies,
        }
    }

    /// Modeled (or measured) seconds of `op` on `level` under the `k`-th
    /// strategy.
    pub fn seconds(&self, k: usize, level: usize, op: Op, measured: bool) -> Option<f64> {
        let (_, levels) = self.strategies.get(k)?;
        let o = levels.get(level)?.ops.iter().find(|o| o.op == op)?;
        if measured {
            o.measured
        } else {
            Some(o.modeled)
        }
    }

    /// Levels of the hierarchy at this node count.
    pub fn levels(&self) -> usize {
        self.strategies.first().map_or(0, |(_, l)| l.len())
    }

    /// The crossover of `op` (module docs): the first level from which
    /// the second strategy wins on every deeper level having both times;
    /// `None` when it wins on none (or only one strategy was asked for).
    pub fn crossover(&self, op: Op, measured: bool) -> Option<usize> {
        if self.strategies.len() < 2 {
            return None;
        }
        let wins: Vec<(usize, bool)> = (0..self.levels())
            .filter_map(|l| {
                let a = self.seconds(0, l, op, measured)?;
                let b = self.seconds(1, l, op, measured)?;
                Some((l, b < a))
            })
            .collect();
        let first_loss_from_end = wins.iter().rposition(|&(_, w)| !w);
        let from = first_loss_from_end.map_or(0, |k| k + 1);
        wins.get(from).map(|&(l, _)| l)
    }
}

/// The whole study.
#[derive(Clone, Debug, Serialize)]
pub struct Scaling {
    /// Strong or weak.
    pub weak: bool,
    /// The strategies, as asked.
    pub strategies: Vec<Strategy>,
    /// The operations charged.
    pub ops: Vec<Op>,
    /// One per node count.
    pub points: Vec<Point>,
    /// What the study could not do (a node count without a measured file).
    pub warnings: Vec<String>,
}

/// A grid generator's dimension (weak scaling grows its `N` by the
/// `d`-th root of the ranks); `None` for the beam, whose refinements
/// multiply the elements by 8.
pub fn dimension(kind: Kind) -> Option<u32> {
    match kind {
        Kind::Poisson2d | Kind::Aniso2d => Some(2),
        Kind::Poisson3d | Kind::Poisson3d27 | Kind::Elasticity3d => Some(3),
        Kind::Beam => None,
    }
}

/// The process counts a file name states: its runs of digits
/// (`aniso_128.out` -> 128).
fn numbers_in(name: &str) -> Vec<usize> {
    name.split(|c: char| !c.is_ascii_digit())
        .filter_map(|d| d.parse().ok())
        .collect()
}

/// The measured file for `ranks` processes in `dir`: the first, by name,
/// whose name states that count.
pub fn measured_for(dir: &Path, ranks: usize) -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    names.into_iter().find(|p| {
        p.file_name()
            .is_some_and(|n| numbers_in(&n.to_string_lossy()).contains(&ranks))
    })
}

impl ScaleRequest {
    /// The scaling report's folder.
    pub fn folder(&self) -> PathBuf {
        self.base.folder()
    }

    /// Every node count's request, checked before any input is read:
    /// the flags, each machine, the weak-scaled sizes and the measured
    /// files.
    pub fn check(&self) -> Result<Vec<PointRequest>, RequestError> {
        let field = |s: String| Err(RequestError::Field(s));
        if self.nodes.is_empty() || self.nodes.contains(&0) {
            return field("request.nodes: give node counts of at least 1".into());
        }
        if self.nodes.windows(2).any(|w| w[0] >= w[1]) {
            return field("request.nodes: node counts must increase".into());
        }
        if self.strategies.is_empty() {
            return field("request.strategies: give at least one strategy".into());
        }
        let mut seen = self.strategies.clone();
        seen.sort_by_key(|s| s.name());
        seen.dedup();
        if seen.len() != self.strategies.len() {
            return field("request.strategies: a strategy is named twice".into());
        }
        let device = self.base.machine.is_on_devices();
        for s in &self.strategies {
            if let Some(why) = super::request::misplaced(*s, device) {
                return field(format!("request.strategies: {}: {why}", s.name()));
            }
        }
        if self.base.advice || !self.base.variants.is_empty() || self.base.measured.is_some() {
            return field("request: scale takes its measured files from request.measured (a folder), and no advice or variants".into());
        }
        let o = &self.base.outputs;
        if o.json.is_some() || o.dot.is_some() || o.patterns.is_some() {
            return field("request.outputs: scale writes its folder only".into());
        }
        let weak_base = match (&self.base.input, self.weak) {
            (_, false) => None,
            (Input::Matrix { spec, .. }, true) => match Source::parse(spec)? {
                Source::Gen(p) if dimension(p.kind).is_some() => Some(p),
                _ => {
                    return field(format!(
                        "request.weak grows a grid generator with the ranks (gen:poisson2d, aniso2d, poisson3d, poisson3d-27, elasticity3d); {spec} is not one"
                    ))
                }
            },
            (Input::Levels(_) | Input::Memory(_), true) => {
                return field(
                    "request.weak grows a generator; a levels folder or a matrix has one size"
                        .into(),
                )
            }
        };
        if let Some(m) = self.measured.as_ref().filter(|m| !m.exists()) {
            return field(format!(
                "request.measured {}: no such file or folder",
                m.display()
            ));
        }
        let mut plan = crate::output::Plan::new();
        plan.folder("request.outputs.folder", &self.folder(), is_scale_entry)?;
        let ranks0 = self.base.machine.ppn * self.nodes[0];
        let mut out = Vec::new();
        for &n in &self.nodes {
            let mut r = self.base.clone();
            r.machine.nodes = n;
            r.machine
                .validate()
                .map_err(|e| RequestError::Field(format!("request.nodes {n}: {e}")))?;
            if let Some(p) = &weak_base {
                let d = dimension(p.kind).unwrap_or(1) as f64;
                let grow = (r.machine.ranks() as f64 / ranks0 as f64).powf(1.0 / d);
                let mut p = p.clone();
                p.n = ((p.n as f64) * grow).round().max(1.0) as usize;
                if let Input::Matrix { spec, .. } = &mut r.input {
                    *spec = p.spec();
                }
            }
            r.measured = match &self.measured {
                Some(m) if m.is_dir() => measured_for(m, r.machine.ranks()),
                Some(m) if self.nodes.len() == 1 => Some(m.clone()),
                Some(m) => {
                    return field(format!(
                        "request.measured {}: several node counts need a folder of measured files named with their process counts",
                        m.display()
                    ))
                }
                None => None,
            };
            r.outputs.folder = Some(self.folder().join(format!("nodes_{n}")));
            r.options.strategy = self.strategies[0];
            let checked = r.check()?;
            out.push(PointRequest {
                nodes: n,
                request: r,
                checked,
            });
        }
        Ok(out)
    }

    /// Whether one hierarchy serves every node count.
    pub fn shares_hierarchy(&self) -> bool {
        let mfem = self.base.partition == Some(Fine::Method(Method::Mfem));
        let ranked = self.base.amg.uses_ranks() && !matches!(self.base.input, Input::Levels(_));
        !(self.weak || mfem || ranked)
    }

    /// The study: at each node count, one run per strategy, each given to
    /// `each(node count's request for that strategy, run)` as it ends.
    pub fn run(
        &self,
        points: Vec<PointRequest>,
        progress: &dyn Fn(Event),
        each: &mut dyn FnMut(&Request, &Run) -> Result<(), RequestError>,
    ) -> Result<Scaling, RequestError> {
        let mut shared = None;
        let mut out = Vec::new();
        let mut warnings = Vec::new();
        for p in points {
            progress(Event::Step(format!(
                "{} nodes ({} ranks)",
                p.nodes,
                p.request.machine.ranks()
            )));
            if self.measured.is_some() && p.request.measured.is_none() {
                warnings.push(format!(
                    "no measured file for {} processes",
                    p.request.machine.ranks()
                ));
            }
            let mut stages = Stages::start();
            let loaded = match &shared {
                Some(l) => Clone::clone(l),
                None => {
                    let l = p.request.hierarchy(&p.checked, progress, &mut stages)?;
                    if self.shares_hierarchy() {
                        shared = Some(l.clone());
                    }
                    l
                }
            };
            // The last strategy takes the hierarchy over; a run's report is
            // written and its analysis kept, the rest dropped.
            let mut loaded = Some(loaded);
            let mut runs = Vec::new();
            for (k, &s) in self.strategies.iter().enumerate() {
                let input = match k + 1 == self.strategies.len() {
                    true => loaded.take(),
                    false => loaded.clone(),
                }
                .expect("held until the last strategy");
                let mut r = p.request.clone();
                r.options.strategy = s;
                if s != self.strategies[0] {
                    let name = format!("nodes_{}_{}", p.nodes, s.name());
                    r.outputs.folder = Some(self.folder().join(name));
                }
                let run = r.run_on(input, p.checked.clone(), progress, stages.clone())?;
                each(&r, &run)?;
                runs.push((s, run.analysis));
            }
            out.push(Point::of(p.nodes, &p.request, &runs));
        }
        Ok(Scaling {
            weak: self.weak,
            strategies: self.strategies.clone(),
            ops: self.base.options.ops.list(),
            points: out,
            warnings,
        })
    }
}

/// What a scaling folder holds: its own files and each node count's
/// report folder.
pub fn is_scale_entry(name: &str) -> bool {
    matches!(
        name,
        "scale.json" | "scale.csv" | "extrap.jsonl" | "report.html"
    ) || name.strip_prefix("nodes_").is_some_and(|n| {
        let (count, strategy) = n.split_once('_').unwrap_or((n, ""));
        count.parse::<usize>().is_ok()
            && (strategy.is_empty() || Strategy::from_str(strategy, false).is_ok())
    }) || ["time_", "crossover"]
        .iter()
        .any(|p| name.starts_with(p) && (name.ends_with(".png") || name.ends_with(".svg")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(times: &[(f64, f64)]) -> Point {
        let levels = |k: usize| -> Vec<LevelPoint> {
            (times.iter().enumerate())
                .map(|(l, t)| LevelPoint {
                    level: l,
                    rows: 1,
                    active_processes: 1,
                    ops: vec![OpPoint {
                        op: Op::Spmv,
                        modeled: if k == 0 { t.0 } else { t.1 },
                        measured: None,
                        max_recv: 0,
                        terms: Vec::new(),
                    }],
                })
                .collect()
        };
        Point {
            nodes: 1,
            ranks: 16,
            input: "x".into(),
            measured: None,
            strategies: vec![
                (Strategy::Standard, levels(0)),
                (Strategy::NodeAware3, levels(1)),
            ],
        }
    }

    #[test]
    fn the_crossover_is_where_node_aware_wins_to_the_coarsest_level() {
        // Standard wins levels 0-1, node-aware 2-4: crossover 2.
        let p = point(&[(1.0, 2.0), (1.0, 1.5), (2.0, 1.0), (3.0, 1.0), (2.0, 1.0)]);
        assert_eq!(p.crossover(Op::Spmv, false), Some(2));
        // A win on level 1 then a loss on 2 does not count: still 3.
        let p = point(&[(1.0, 2.0), (2.0, 1.0), (1.0, 2.0), (3.0, 1.0)]);
        assert_eq!(p.crossover(Op::Spmv, false), Some(3));
        // Never, and always.
        assert_eq!(
            point(&[(1.0, 2.0), (1.0, 2.0)]).crossover(Op::Spmv, false),
            None
        );
        assert_eq!(
            point(&[(3.0, 2.0), (3.0, 2.0)]).crossover(Op::Spmv, false),
            Some(0)
        );
        // Nothing measured: no measured crossover.
        assert_eq!(point(&[(3.0, 2.0)]).crossover(Op::Spmv, true), None);
    }

    #[test]
    fn measured_files_are_found_by_their_process_count() {
        assert_eq!(numbers_in("aniso_128.out"), [128]);
        assert_eq!(numbers_in("lin_elas_128_8509518.bw.out"), [128, 8509518]);
        let d = tempfile::tempdir().unwrap();
        for n in ["aniso_512.out", "aniso_128.out", "aniso_1280.out"] {
            std::fs::write(d.path().join(n), "").unwrap();
        }
        let found = |r| measured_for(d.path(), r).map(|p| p.file_name().unwrap().to_owned());
        assert_eq!(found(128).unwrap(), "aniso_128.out");
        assert_eq!(found(1280).unwrap(), "aniso_1280.out");
        assert_eq!(found(2048), None);
        assert!(is_scale_entry("nodes_32") && is_scale_entry("time_spmv.png"));
        assert!(is_scale_entry("nodes_32_node-aware-3") && !is_scale_entry("nodes_32_fast"));
        assert!(!is_scale_entry("nodes_x") && !is_scale_entry("notes.txt"));
    }
}
