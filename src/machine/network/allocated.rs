//! Where the allocation's nodes sit on a larger machine (docs/machines.md,
//! "Networks": node `k` of the allocation means the machine node it was
//! given). `contiguous` gives node `k` machine node `k`, packed as a
//! scheduler fills an empty machine; `random` draws the allocation's
//! nodes from the whole machine with a seed, as a busy machine scatters
//! a job over its groups or subtrees.

use clap::builder::PossibleValue;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Network, Traffic};
use crate::machine::placement::Shuffle;

/// How the allocation's nodes are placed on the machine's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Allocation {
    /// Allocation node `k` is machine node `k`.
    #[default]
    Contiguous,
    /// Allocation node `k` is machine node `perm(k)` of a seeded
    /// pseudo-random permutation of the whole machine's nodes.
    Random {
        /// Seed of the permutation.
        seed: u64,
    },
}

/// `--allocation` values; `random` takes its seed from
/// `--allocation-seed` (as `--placement random` does).
impl clap::ValueEnum for Allocation {
    fn value_variants<'a>() -> &'a [Self] {
        &[Allocation::Contiguous, Allocation::Random { seed: 0 }]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Allocation::Contiguous => {
                PossibleValue::new("contiguous").help("node k of the job on machine node k")
            }
            Allocation::Random { .. } => PossibleValue::new("random")
                .help("the job's nodes drawn at random (seeded) from the whole machine"),
        })
    }
}

/// `contiguous`, `random (seed S)`.
impl std::fmt::Display for Allocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::value_name(self))?;
        if let Allocation::Random { seed } = self {
            write!(f, " (seed {seed})")?;
        }
        Ok(())
    }
}

impl Allocation {
    /// The same allocation with `seed` when it is random.
    pub fn with_seed(self, seed: u64) -> Allocation {
        match self {
            Allocation::Random { .. } => Allocation::Random { seed },
            other => other,
        }
    }

    /// Whether this is the default.
    pub fn is_contiguous(&self) -> bool {
        *self == Allocation::Contiguous
    }
}

/// A machine's network seen from an allocation: allocation node `k` is
/// machine node `node[k]`.
#[derive(Debug)]
pub struct Allocated {
    machine: Box<dyn Network>,
    node: Vec<u32>,
    seed: u64,
}

impl Allocated {
    /// `nodes` nodes drawn from the `whole` machine's by the seeded
    /// permutation (distinct nodes, the first `nodes` of the permutation).
    pub fn random(machine: Box<dyn Network>, nodes: usize, whole: usize, seed: u64) -> Allocated {
        let s = Shuffle::new(whole, seed);
        Allocated {
            machine,
            node: (0..nodes).map(|k| s.apply(k) as u32).collect(),
            seed,
        }
    }

    /// The machine node of allocation node `k`.
    pub fn machine_node(&self, k: usize) -> usize {
        self.node[k] as usize
    }
}

impl Network for Allocated {
    /// The machine's switches.
    fn switches(&self) -> usize {
        self.machine.switches()
    }
    fn switch_of(&self, node: usize) -> usize {
        self.machine.switch_of(self.machine_node(node))
    }
    fn hops(&self, a: usize, b: usize) -> u32 {
        self.machine
            .hops(self.machine_node(a), self.machine_node(b))
    }
    fn links(&self) -> usize {
        self.machine.links()
    }
    fn route(&self, a: usize, b: usize, visit: &mut dyn FnMut(usize)) {
        self.machine
            .route(self.machine_node(a), self.machine_node(b), visit)
    }
    fn loads(&self, traffic: &[(u32, u32, u64)]) -> Vec<f64> {
        let on_machine: Vec<(u32, u32, u64)> = traffic
            .iter()
            .map(|&(a, b, s)| (self.node[a as usize], self.node[b as usize], s))
            .collect();
        self.machine.loads(&on_machine)
    }
    fn contention(&self, delta: f64, t: &Traffic) -> f64 {
        self.machine.contention(delta, t)
    }
    /// The machine's shape, and the switches and groups the allocation
    /// touches.
    fn shape(&self) -> Map<String, Value> {
        let mut m = self.machine.shape();
        let mut used: Vec<usize> = (0..self.node.len()).map(|k| self.switch_of(k)).collect();
        used.sort_unstable();
        used.dedup();
        m.insert(
            "allocation".into(),
            format!("random (seed {})", self.seed).into(),
        );
        m.insert("switches_used".into(), used.len().into());
        m
    }
    fn describe(&self) -> String {
        let used = self.shape()["switches_used"].clone();
        format!(
            "{}; {} nodes drawn at random (seed {}) over {used} switches",
            self.machine.describe(),
            self.node.len(),
            self.seed
        )
    }
}
