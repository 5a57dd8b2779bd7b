//! "What would cut it": for every level and operation that carries at
//! least [`HOT`] of the hierarchy's modeled time, the dominant term and
//! its share, then the alternatives that address communication (a
//! node-aware strategy, a METIS partition, another placement, rebalanced
//! coarse levels) evaluated on the same hierarchy, one flag changed at a
//! time, and the best one with its predicted time. Each alternative is a
//! full [`super::analyze`] of the run with that flag changed, so `analyze` with
//! the run's flags plus `try` reproduces `predicted_total` exactly.

use serde::Serialize;

use super::compare::{self, Variant};
use super::{Analysis, Options};
use crate::amg::Hierarchy;
use crate::comm::node_aware::Strategy;
use crate::comm::Op;
use crate::machine::{Machine, Placement};
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
    /// The most messages a rank receives now and with `try`, when the
    /// queue search dominates (the count it grows with).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_recv: Option<[u64; 2]>,
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
    // The strategies that move the data where it is (host or GPUs).
    for st in Strategy::all(run.strategy.is_device()) {
        if st != run.strategy {
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

/// Advice for `current`, the analysis of `h` set up as `s`, and the
/// alternatives that could not be evaluated (one sentence each).
pub fn advise(h: &Hierarchy, s: &Setup, current: &Analysis) -> (Vec<Advice>, Vec<String>) {
    let whole: f64 = (current.levels.iter())
        .flat_map(|l| &l.ops)
        .map(|o| o.cost.total)
        .sum();
    let columns = s.options.model.columns();
    let hot: Vec<(usize, Op)> = (current.levels.iter())
        .flat_map(|l| l.ops.iter().map(move |o| (l, o)))
        .filter(|(_, o)| whole > 0.0 && o.cost.total >= HOT * whole)
        .map(|(l, o)| (l.level, o.op))
        .collect();
    if hot.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let mut failed = Vec::new();
    let runs: Vec<(Vec<String>, Analysis)> = alternatives(s)
        .into_iter()
        .filter_map(|(args, v)| {
            match compare::analyze_variant(h, s.machine, &v, s.options, &s.methods) {
                Ok(a) => Some((args, a)),
                Err(e) => {
                    failed.push(format!("{}: {e}", v.name));
                    None
                }
            }
        })
        .collect();
    let mut advice = Vec::new();
    for (level, op) in hot {
        let now = current.levels[level].op(op).expect("hot ops exist");
        let total = now.cost.total;
        let (dominant, secs) = now.cost.dominant(&columns);
        let best = (runs.iter())
            .filter_map(|(args, a)| {
                let o = a.levels.get(level)?.op(op)?;
                Some((args, o))
            })
            .min_by(|x, y| x.1.cost.total.total_cmp(&y.1.cost.total));
        let Some((args, then)) = best.filter(|(_, o)| o.cost.total < total) else {
            continue;
        };
        advice.push(Advice {
            level,
            op,
            total,
            dominant: dominant.legend,
            share: secs / total,
            try_args: args.clone(),
            predicted_total: then.cost.total,
            factor: total / then.cost.total,
            close: total / then.cost.total < CLOSE,
            max_recv: (dominant.column == "queue_search").then_some([
                now.summary.messages.max_recv,
                then.summary.messages.max_recv,
            ]),
        });
    }
    (advice, failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Allocation;
    use crate::partition::methods::Method;

    /// A job scattered over the machine is offered a packed one; a
    /// packed job is not offered what it has.
    #[test]
    fn a_scattered_job_is_offered_a_packed_allocation() {
        let frontier = crate::machine::presets::preset("frontier").unwrap();
        let fine = Fine::Method(Method::Contiguous);
        let options = Options {
            model: crate::model::Model::default(),
            strategy: Strategy::Standard,
            ops: crate::comm::Ops::of(&[crate::comm::Op::Spmv, crate::comm::Op::Spgemm]),
            keep_patterns: false,
        };
        let offered = |allocation| {
            let machine = Machine {
                allocation,
                ..frontier.clone()
            };
            let s = Setup {
                machine: &machine,
                fine: &fine,
                methods: MethodOptions::default(),
                coarse: CoarseRule::Inherit,
                options: &options,
            };
            alternatives(&s)
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
}
