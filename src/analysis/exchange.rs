//! One operation's exchange charged with the model: a single pattern, or
//! a strategy's steps, each charged with the view of the machine its
//! kind needs (device messages with the GPUs' parameters, copies with the
//! copy rates), the steps' costs added in order.

use rayon::prelude::*;

use serde::Serialize;

use super::{OpAnalysis, Options, StepAnalysis};
use crate::comm::node_aware::{self, StepKind};
use crate::comm::{self, Op, Pattern, Summary};
use crate::machine::{Machine, Places};
use crate::model::{self, Cost, Exchange};

/// An operation, its messages, and for an exchange of rows the nonzeros
/// of the exchanged matrix per rank.
pub(super) type Charging = (Op, Exchanged, Option<Vec<u64>>);

/// An operation's messages before charging.
pub(super) enum Exchanged {
    /// One pattern and its summary.
    One((Pattern, Summary)),
    /// A strategy's steps, each with its summary, and the summary of all
    /// their messages (a copy step's are not messages: its summary is
    /// empty).
    Steps(Vec<(node_aware::Step, Summary)>, Summary),
}

/// Where the ranks are, as charging needs it, built once per analysis:
/// the machine's places and, with the data on GPUs, the device view (the
/// GPUs' parameters and protocol thresholds, [`Machine::device`]).
pub(super) struct Sites {
    pub(super) places: Places,
    device: Option<(Machine, Places)>,
}

impl Sites {
    pub(super) fn of(m: &Machine) -> Sites {
        let device = m.device().filter(|_| m.is_on_devices()).map(|dm| {
            let dp = dm.places();
            (dm, dp)
        });
        Sites {
            places: m.places(),
            device,
        }
    }

    /// The machine and places that charge a step of `kind`: device
    /// messages with the device view.
    pub(super) fn of_kind<'a>(
        &'a self,
        kind: StepKind,
        m: &'a Machine,
    ) -> (&'a Machine, &'a Places) {
        match (kind, &self.device) {
            (StepKind::Device, Some((dm, dp))) => (dm, dp),
            _ => (m, &self.places),
        }
    }
}

impl Exchanged {
    pub(super) fn steps(
        op: Op,
        steps: Vec<node_aware::Step>,
        m: &Machine,
        sites: &Sites,
    ) -> Exchanged {
        let none = Pattern {
            op,
            messages: Vec::new(),
        };
        let mut all = Pattern {
            op,
            messages: (steps.iter())
                .filter(|s| !matches!(s.kind, StepKind::Copy(_)))
                .flat_map(|s| s.pattern.messages.iter().copied())
                .collect(),
        };
        // By sender in place, as summarize_on would sort a copy (stably).
        all.messages.par_sort_by_key(|msg| msg.from);
        // A device strategy's messages are all device or all host ones.
        let any = steps.iter().find(|s| !matches!(s.kind, StepKind::Copy(_)));
        let kind = any.map_or(StepKind::Host, |s| s.kind);
        let summary = comm::summarize_on(&all, sites.of_kind(kind, m).1);
        let steps = steps
            .into_iter()
            .map(|s| {
                let pattern = match s.kind {
                    StepKind::Copy(_) => &none,
                    _ => &s.pattern,
                };
                let summary = comm::summarize_on(pattern, sites.of_kind(s.kind, m).1);
                (s, summary)
            })
            .collect();
        Exchanged::Steps(steps, summary)
    }

    /// Charges the exchange; `local`: the nonzeros of the exchanged
    /// matrix per rank, for an exchange of rows (given to the first step).
    pub(super) fn charge(
        self,
        op: Op,
        m: &Machine,
        sites: &Sites,
        o: &Options,
        local: Option<&[u64]>,
    ) -> OpAnalysis {
        let places = &sites.places;
        let model = o.model.for_run(o.strategy, o.ops, m).for_op(op);
        match self {
            Exchanged::One((pattern, summary)) => OpAnalysis {
                op,
                cost: model::cost(
                    &Exchange {
                        pattern: &pattern,
                        summary: &summary,
                        machine: m,
                        places,
                        copies: None,
                        local_nonzeros: local,
                        device: false,
                    },
                    &model,
                ),
                summary,
                steps: Vec::new(),
                patterns: if o.keep_patterns {
                    vec![(op.name().to_string(), pattern)]
                } else {
                    Vec::new()
                },
                measured: None,
                modeled_over_measured: None,
            },
            Exchanged::Steps(steps, summary) => {
                let none = Pattern {
                    op,
                    messages: Vec::new(),
                };
                let mut cost = Cost::zero(&model);
                let mut patterns = Vec::new();
                let steps = steps
                    .into_iter()
                    .enumerate()
                    .map(|(k, (step, summary))| {
                        let local = local.filter(|_| k == 0);
                        let (sm, sp) = sites.of_kind(step.kind, m);
                        let x = match step.kind {
                            StepKind::Copy(way) => Exchange {
                                pattern: &none,
                                summary: &summary,
                                machine: m,
                                places,
                                copies: Some((way, &step.pattern)),
                                local_nonzeros: local,
                                device: false,
                            },
                            _ => Exchange {
                                pattern: &step.pattern,
                                summary: &summary,
                                machine: sm,
                                places: sp,
                                copies: None,
                                local_nonzeros: local,
                                device: step.kind == StepKind::Device,
                            },
                        };
                        let c = model::cost(&x, &model);
                        cost.then(&c);
                        let copy = match step.kind {
                            StepKind::Copy(_) => Some(CopyFigures::of(&step.pattern, m)),
                            _ => None,
                        };
                        if o.keep_patterns {
                            patterns.push((step.name.to_string(), step.pattern));
                        }
                        StepAnalysis {
                            name: step.name.to_string(),
                            summary,
                            cost: c,
                            copy,
                        }
                    })
                    .collect();
                OpAnalysis {
                    op,
                    summary,
                    cost,
                    steps,
                    patterns,
                    measured: None,
                    modeled_over_measured: None,
                }
            }
        }
    }
}

/// A copy step's figures: how many GPUs copy, the bytes in all, and
/// the most one GPU copies.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CopyFigures {
    /// GPUs that copy.
    pub gpus: usize,
    /// Bytes copied over all GPUs.
    pub bytes: u64,
    /// Most bytes one GPU copies (its serving ranks together).
    pub max_gpu_bytes: u64,
}

impl CopyFigures {
    fn of(copies: &Pattern, m: &Machine) -> CopyFigures {
        let per_gpu = comm::device::bytes_per_gpu(copies, m);
        CopyFigures {
            gpus: per_gpu.len(),
            bytes: per_gpu.values().sum(),
            max_gpu_bytes: per_gpu.values().copied().max().unwrap_or(0),
        }
    }
}
