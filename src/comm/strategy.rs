//! The strategies that exchange a level's values ([`Strategy`]: on the
//! host, `standard` and node-aware; on the GPUs, the device ones) and the
//! steps they are made of: what [`super::node_aware`] and
//! [`super::device`] both build.

use super::Pattern;

/// How spmv and spgemm exchange their values.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// One message per pair of ranks (the default).
    #[default]
    Standard,
    /// Each rank sends its values for a node to its counterpart there,
    /// which redistributes them.
    #[serde(rename = "node-aware-2")]
    #[value(name = "node-aware-2")]
    NodeAware2,
    /// Gather on the sending node, one message per pair of nodes, scatter
    /// on the receiving node.
    #[serde(rename = "node-aware-3")]
    #[value(name = "node-aware-3")]
    NodeAware3,
    /// Data on the GPUs: each message device to device through a
    /// GPU-aware MPI ([`super::device`]).
    GpuAware,
    /// Data on the GPUs: one device-to-host copy per GPU, the standard
    /// exchange between host buffers, one host-to-device copy.
    Staged,
    /// Data on the GPUs: copied to the host, exchanged with node-aware-3
    /// over each GPU's serving ranks (BenchPress's TAPComm), copied back.
    StagedNodeAware,
    /// Data on the GPUs: each GPU's messages spread over its serving
    /// ranks (TAPComm's global round), each rank copying its own.
    Split,
}

impl Strategy {
    /// Its command-line name.
    pub fn name(self) -> String {
        crate::value_name(&self)
    }

    /// Whether it moves device data (the data lives on the GPUs).
    pub fn is_device(self) -> bool {
        matches!(
            self,
            Strategy::GpuAware | Strategy::Staged | Strategy::StagedNodeAware | Strategy::Split
        )
    }

    /// Whether it copies device data to host buffers and back (every
    /// device strategy but `gpu-aware`): pointless where the GPUs share
    /// the CPUs' memory.
    pub fn stages(self) -> bool {
        self.is_device() && self != Strategy::GpuAware
    }

    /// The strategies for data in host memory (`device = false`) or on
    /// the GPUs, in `--strategy`'s order.
    pub fn all(device: bool) -> Vec<Strategy> {
        <Strategy as clap::ValueEnum>::value_variants()
            .iter()
            .copied()
            .filter(|s| s.is_device() == device)
            .collect()
    }
}

/// What a step moves, and so which parameters charge it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepKind {
    /// Messages between host buffers: the machine's parameters.
    Host,
    /// Messages between device buffers: the GPUs' parameters.
    Device,
    /// Copies between each GPU and its host: the pattern's messages are
    /// `(r, r, bytes)`, rank `r` copying `bytes` of its GPU's data.
    Copy(crate::machine::Copy),
}

/// One step of a strategy: its name and its messages.
#[derive(Clone, Debug)]
pub struct Step {
    /// `on-node`, `gather`, `inter-node`, `scatter`, `redistribute`,
    /// `standard`, or a device strategy's `device`, `to-host`, `host`,
    /// `to-device`.
    pub name: &'static str,
    /// Its messages.
    pub pattern: Pattern,
    /// What it moves.
    pub kind: StepKind,
}
