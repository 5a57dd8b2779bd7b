//! "What would cut it": for every level and operation that carries at
//! least [`HOT`] of the hierarchy's modeled time, the dominant term and
//! its share, then the alternatives that address communication (a
//! node-aware strategy, a METIS partition, another placement, rebalanced
//! coarse levels) evaluated on the same hierarchy (set up again under
//! another partition when the setup depends on the ranks, as hypre's
//! does), one flag changed at a time, and the best one with its
//! predicted time. Each alternative is a
//! full [`super::analyze`] of the run with that flag changed, so `analyze` with
//! the run's flags plus `try` reproduces `predicted_total` exactly.

use serde::Serialize;

use super::compare::{self, Variant};
use super::cycle::{Cycle, Seconds};
use super::{Analysis, Options};
use crate::amg::Hierarchy;
use crate::comm::node_aware::Strategy;
use crate::comm::Op;
use crate::machine::{Machine, Memory, Placement};
use crate::partition::methods::{Method, MethodOptions};
use crate::partition::{CoarseRule, Fine};

/// A level and operation carrying at least this share of the hierarchy's
/// modeled time is worth advice.
pub const HOT: f64 = 0.10;

/// How the analysed run was set up: what an alternative changes.
#[derive(Clone, Debug)]
pub struct Setup<'a> {
    /// The machine, with its placement.
    pub machine: &'a Machine,
    /// The fine partition.
    pub fine: &'a Fine,
    /// Its methods' seed and METIS objective.
    pub methods: MethodOptions,
    /// The coarse levels' rule.
    pub coarse: CoarseRule,
    /// Model, strategy and ptap of the run.
    pub options: &'a Options,
    /// A setup that depends on the ranks, to set up again under another
    /// partition.
    pub rebuild: Option<compare::Rebuild<'a>>,
}

/// Modeled times within this factor of each other are a close call.
pub const CLOSE: f64 = 1.25;

/// One piece of advice (`report.json`'s `advice[]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Advice {
    /// The level.
    pub level: usize,
    /// The operation.
    pub op: Op,
    /// Its modeled seconds now.
    pub total: f64,
    /// The term that dominates it (its legend, e.g. `queue search`).
    pub dominant: &'static str,
    /// That term's share of `total`.
    pub share: f64,
    /// The flags to add to the run.
    #[serde(rename = "try")]
    pub try_args: Vec<String>,
    /// Its modeled seconds with them.
    pub predicted_total: f64,
    /// `total / predicted_total`.
    pub factor: f64,
    /// The two lie within [`CLOSE`] of each other: the model cannot call
    /// the choice (on the benchmark_matops logs the measured winner
    /// differs from the modeled one mostly at such levels).
    pub close: bool,
    /// The factor within which the choice is a close call: [`CLOSE`], or
    /// the model's demonstrated error on the measurements its work terms
    /// were fitted to, when larger (`aa`'s row work:
    /// `params.row_work.error`; device strategies: `gpus.work.error`).
    pub within: f64,
    /// The most messages a rank receives now and with `try`, when the
    /// queue search dominates (the count it grows with).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_recv: Option<[u64; 2]>,
    /// With a cycle asked for: what `try` does to the whole run's setup
    /// and solve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<CycleEffect>,
    /// When `try` sets up another hierarchy (another partition, with a
    /// setup that depends on the ranks): the level's rows now and with
    /// `try` (its `P` differs even where they are equal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<[usize; 2]>,
}

/// An alternative's effect on the setup and the solve of the whole
/// hierarchy (`--cycle`): it may cut one and slow the other.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CycleEffect {
    /// The solve's cycles (`--iterations`); without them, one cycle.
    pub iterations: u64,
    /// The setup's communication now and with `try`.
    pub setup: [f64; 2],
    /// The solve's (`iterations` cycles) now and with `try`.
    pub solve: [f64; 2],
}

impl CycleEffect {
    /// From the whole hierarchy's seconds now (`a`) and with `try` (`b`).
    fn of(c: &Cycle, a: &Seconds, b: &Seconds) -> CycleEffect {
        let n = c.iterations.unwrap_or(1);
        CycleEffect {
            iterations: n,
            setup: [a.setup, b.setup],
            solve: [n as f64 * a.cycle, n as f64 * b.cycle],
        }
    }

    /// Setup plus solve, now and with `try`.
    pub fn both(&self) -> [f64; 2] {
        [self.setup[0] + self.solve[0], self.setup[1] + self.solve[1]]
    }

    /// It cuts the setup but slows the solve.
    pub fn slows_solve(&self) -> bool {
        self.setup[1] < self.setup[0] && self.solve[1] > self.solve[0]
    }

    /// It cuts the solve but slows the setup.
    pub fn slows_setup(&self) -> bool {
        self.solve[1] < self.solve[0] && self.setup[1] > self.setup[0]
    }
}

/// The alternatives to `s`: one flag changed each, at most eight, as
/// the flags to add and the [`Variant`] they make.
fn alternatives(s: &Setup) -> Vec<(Vec<String>, Variant)> {
    let run = Variant {
        name: String::new(),
        partition: s.fine.clone(),
        strategy: s.options.strategy,
        placement: Some(s.machine.placement),
        allocation: Some(s.machine.allocation),
        coarse: s.coarse,
    };
    let mut out = Vec::new();
    let mut add = |flag: &str, value: String, v: Variant| {
        let args = vec![flag.to_string(), value];
        out.push((
            args.clone(),
            Variant {
                name: args.join(" "),
                ..v
            },
        ));
    };
    // The strategies that move the data where it is (host or GPUs); on
    // GPUs sharing the CPUs' memory, none that stages through a host
    // memory that is not there.
    let shared = (s.machine.gpus.as_ref()).is_some_and(|g| g.memory == Memory::Shared);
    for st in Strategy::all(run.strategy.is_device()) {
        if st != run.strategy && !(shared && st.stages()) {
            add(
                "--strategy",
                st.name(),
                Variant {
                    strategy: st,
                    ..run.clone()
                },
            );
        }
    }
    // Rows the input renumbered for its own partition (mfem) make another
    // hierarchy under another partition flag: no alternative to offer.
    let given = matches!(run.partition, Fine::Blocks { .. });
    for m in [Method::Metis, Method::MetisNodes] {
        if !given && run.partition != Fine::Method(m) {
            let partition = Fine::Method(m);
            add(
                "--partition",
                m.name(),
                Variant {
                    partition,
                    ..run.clone()
                },
            );
        }
    }
    for p in [Placement::Smp, Placement::RoundRobin] {
        if s.machine.placement != p {
            let v = Variant {
                placement: Some(p),
                ..run.clone()
            };
            add("--placement", crate::value_name(&p), v);
        }
    }
    // A job scattered over the machine: what a packed one would save
    // (a scheduler's contiguous or topology-aware request).
    if !s.machine.allocation.is_contiguous() {
        let v = Variant {
            allocation: Some(crate::machine::Allocation::Contiguous),
            ..run.clone()
        };
        add("--allocation", "contiguous".into(), v);
    }
    // Coarse rows the input's files place stay there.
    let coarse = match s.coarse {
        CoarseRule::Inherit => Some(CoarseRule::Rebalance),
        CoarseRule::Rebalance => Some(CoarseRule::Inherit),
        CoarseRule::Files => None,
    };
    if let Some(coarse) = coarse {
        add(
            "--coarse-partition",
            crate::value_name(&coarse),
            Variant { coarse, ..run },
        );
    }
    out.truncate(8);
    out
}

/// How many times the run performs `op` on `level` (of `last + 1`
/// levels): once without a cycle; with one, the setup's operations once
/// and the solve's as often as its cycles exchange them
/// ([`super::cycle::Cycle::exchanges`]), so that hot levels are hot in
/// the whole run.
fn weight(c: Option<&Cycle>, level: usize, last: usize, op: Op) -> f64 {
    match (c, op) {
        (None, _) | (_, Op::Spgemm | Op::Ptap | Op::Aa) => 1.0,
        (Some(c), _) => c.iterations.unwrap_or(1) as f64 * c.exchanges(level, level == last, op),
    }
}

/// Advice for `current`, the analysis of `h` set up as `s`, and the
/// alternatives that could not be evaluated (one sentence each).
pub fn advise(h: &Hierarchy, s: &Setup, current: &Analysis) -> (Vec<Advice>, Vec<String>) {
    let last = current.levels.len().saturating_sub(1);
    let weight = |level, op| weight(s.options.cycle.as_ref(), level, last, op);
    let whole: f64 = (current.levels.iter())
        .flat_map(|l| {
            l.ops
                .iter()
                .map(move |o| weight(l.level, o.op) * o.cost.total)
        })
        .sum();
    let columns = s.options.model.columns();
    let hot: Vec<(usize, Op)> = (current.levels.iter())
        .flat_map(|l| l.ops.iter().map(move |o| (l, o)))
        .filter(|(l, o)| whole > 0.0 && weight(l.level, o.op) * o.cost.total >= HOT * whole)
        .map(|(l, o)| (l.level, o.op))
        .collect();
    if hot.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut failed = Vec::new();
    let runs: Vec<(Vec<String>, Analysis, bool)> = alternatives(s)
        .into_iter()
        .filter_map(|(args, v)| {
            let rebuilt = s.rebuild.is_some_and(|r| *r.built_on != v.partition);
            match compare::analyze_variant(h, s.machine, &v, s.options, &s.methods, s.rebuild) {
                Ok(a) => Some((args, a, rebuilt)),
                Err(e) => {
                    failed.push(format!("{}: {e}", v.name));
                    None
                }
            }
        })
        .collect();
    // The cycle's totals now and under each alternative, once each.
    let totals = |a: &Analysis| Some(super::cycle::of(a, s.options.cycle.as_ref()?)?.total);
    let now_cycle = totals(current);
    let run_cycles: Vec<Option<Seconds>> = runs.iter().map(|(_, a, _)| totals(a)).collect();
    let mut advice = Vec::new();
    for (level, op) in hot {
        let now = current.levels[level].op(op).expect("hot ops exist");
        let total = now.cost.total;
        let (dominant, secs) = now.cost.dominant(&columns);
        let best = (runs.iter().enumerate())
            .filter_map(|(k, (args, a, _))| {
                let o = a.levels.get(level)?.op(op)?;
                Some(((k, args), o))
            })
            .min_by(|x, y| x.1.cost.total.total_cmp(&y.1.cost.total));
        let Some(((k, args), then)) = best.filter(|(_, o)| o.cost.total < total) else {
            continue;
        };
        let rows = [current.levels[level].rows, runs[k].1.levels[level].rows];
        let rebuilt = runs[k].2;
        let close_within = within(s.machine, op, s.options.strategy);
        advice.push(Advice {
            level,
            op,
            total,
            dominant: dominant.legend,
            share: secs / total,
            try_args: args.clone(),
            predicted_total: then.cost.total,
            factor: total / then.cost.total,
            close: total / then.cost.total < close_within,
            within: close_within,
            max_recv: (dominant.column == "queue_search").then_some([
                now.summary.messages.max_recv,
                then.summary.messages.max_recv,
            ]),
            cycle: match (&s.options.cycle, &now_cycle, &run_cycles[k]) {
                (Some(c), Some(a), Some(b)) => Some(CycleEffect::of(c, a, b)),
                _ => None,
            },
            rows: rebuilt.then_some(rows),
        });
    }
    (advice, failed)
}

/// The close-call factor of `op` under `strategy` on `m` (see
/// [`Advice::within`]).
fn within(m: &crate::machine::Machine, op: Op, strategy: crate::comm::node_aware::Strategy) -> f64 {
    let mut f = CLOSE;
    if op == Op::Aa {
        f = f.max(m.params.row_work.error);
    }
    if let (true, Some(g)) = (strategy.is_device(), &m.gpus) {
        f = f.max(g.work.error);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Allocation;
    use crate::partition::methods::Method;

    /// The alternatives offered to contiguous blocks on `machine` under
    /// `strategy`, as the flags each adds.
    fn offered(machine: &Machine, strategy: Strategy) -> Vec<(Vec<String>, Variant)> {
        let fine = Fine::Method(Method::Contiguous);
        let options = Options {
            model: crate::model::Model::default(),
            strategy,
            ops: crate::comm::Ops::of(&[crate::comm::Op::Spmv, crate::comm::Op::Spgemm]),
            keep_patterns: false,
            cycle: None,
        };
        let s = Setup {
            machine,
            fine: &fine,
            methods: MethodOptions::default(),
            coarse: CoarseRule::Inherit,
            options: &options,
            rebuild: None,
        };
        alternatives(&s)
    }

    /// A job scattered over the machine is offered a packed one; a
    /// packed job is not offered what it has.
    #[test]
    fn a_scattered_job_is_offered_a_packed_allocation() {
        let frontier = crate::machine::presets::preset("frontier").unwrap();
        let offered = |allocation| {
            let machine = Machine {
                allocation,
                ..frontier.clone()
            };
            offered(&machine, Strategy::Standard)
                .into_iter()
                .find(|(flags, _)| flags[0] == "--allocation")
                .map(|(flags, v)| (flags, v.allocation))
        };
        assert_eq!(
            offered(Allocation::Random { seed: 4 }),
            Some((
                vec!["--allocation".to_string(), "contiguous".to_string()],
                Some(Allocation::Contiguous)
            ))
        );
        assert_eq!(offered(Allocation::Contiguous), None);
    }

    /// On GPUs with their own memory every other device strategy is
    /// tried; on APUs (El Capitan's MI300A share the CPUs' HBM) none
    /// that stages through a host memory.
    #[test]
    fn apus_are_offered_no_staging() {
        let strategies = |name: &str| {
            let machine = crate::machine::presets::preset(name)
                .unwrap()
                .on_devices(2)
                .unwrap();
            offered(&machine, Strategy::GpuAware)
                .into_iter()
                .filter(|(flags, _)| flags[0] == "--strategy")
                .map(|(flags, _)| flags[1].clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            strategies("frontier"),
            ["staged", "staged-node-aware", "split"]
        );
        assert!(strategies("elcapitan").is_empty());
        assert!(Strategy::Split.stages() && !Strategy::GpuAware.stages());
        assert!(!Strategy::NodeAware3.stages());
    }
}
