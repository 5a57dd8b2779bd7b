//! Stage 3: the virtual machine the ranks run on (`docs/model.md`,
//! "Definitions"), and everything that describes it:
//!
//! - [`placement`](Placement): which node and socket each rank runs on;
//! - [`network`]: the network the nodes hang off, an extension point (one
//!   file per network and a registry line): switches, hops, routes and
//!   the contention term's charge ([`Network`]);
//! - [`Locality`] and [`Protocol`]: the classes of Table 1, and
//!   [`Places`], the placement as lookup tables that classify messages;
//! - [`Params`]: the cost-model parameters (Table 1, `R_N`, `gamma`,
//!   `delta`, the classic models'), and [`Calibration`], how a measured
//!   machine file got them.
//!
//! `P = nodes * ppn` ranks. SMP placement (default): rank `r` on node
//! `r / ppn`, local index `r % ppn`; round-robin: node `r % nodes`, local
//! index `r / nodes`. Socket = local index `/ (ppn / sockets_per_node)`.
//!
//! May use `matrix`, `amg`, and the ground floor (`output`, `memory`,
//! `json_in`); its files never import each other round a circle
//! (`tests/layering.rs`).

mod calibration;
mod gpu;
mod locality;
pub mod network;
mod params;
mod placement;
mod places;
pub mod presets;
mod protocol;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use calibration::{Calibration, Fit, Source};
pub use gpu::{Copy, Gpus, Memory};
pub use locality::{Domain, Locality};
pub use network::{Allocation, Network};
pub use params::{CopyRates, LogGP, PackTable, Params, ProtocolRates, Rate, Rates, RowWork};
pub use placement::Placement;
pub use places::Places;
pub use protocol::{Class, Protocol, PROTOCOLS};

/// A machine description, as in the JSON files `--machine FILE.json` reads
/// (`amgcomm machine show bluewaters --json` prints one to edit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "MachineFile", into = "MachineFile")]
pub struct Machine {
    /// Name in reports and titles.
    pub name: String,
    /// Nodes of the allocation.
    pub nodes: usize,
    /// Ranks per node.
    pub ppn: usize,
    /// Sockets per node; `ppn` must be a multiple.
    pub sockets_per_node: usize,
    /// The node's nested domains, innermost first, when the file lists
    /// them ([`Machine::domains`]: else `socket` and `node`).
    pub localities: Option<Vec<Domain>>,
    /// The network the nodes hang off; a file's `network` object, or
    /// Blue Waters' box with its `nodes_per_router`.
    pub network: network::Spec,
    /// Which node each rank runs on.
    pub placement: Placement,
    /// Which machine nodes the allocation's nodes are, when the network
    /// names a larger machine.
    pub allocation: Allocation,
    /// Cost-model parameters; Blue Waters' when the file gives none.
    pub params: Params,
    /// The node's GPUs and the costs of device data, if it has any.
    pub gpus: Option<Gpus>,
    /// With the data on the GPUs: the CPU ranks serving each
    /// ([`Machine::on_devices`]); `None`: the data is in host memory.
    pub ranks_per_gpu: Option<usize>,
    /// How the parameters were measured, for a file `amgcomm calibrate`
    /// wrote.
    pub calibration: Option<Calibration>,
    /// Where each parameter comes from (the presets: a measured file and
    /// its fit, a published figure, or an assumption and its reason).
    pub provenance: Vec<Source>,
}

/// [`Machine`] as a file holds it: `nodes_per_router` (a `box3d`, as
/// every file before networks were data) or a `network` object.
#[derive(Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MachineFile {
    name: String,
    nodes: usize,
    ppn: usize,
    sockets_per_node: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    localities: Option<Vec<Domain>>,
    /// Nodes sharing one router of a `box3d` (2 on Blue Waters' Gemini).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    nodes_per_router: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    network: Option<network::Spec>,
    #[serde(default = "default_placement")]
    placement: Placement,
    #[serde(default, skip_serializing_if = "Allocation::is_contiguous")]
    allocation: Allocation,
    #[serde(default = "Params::bluewaters")]
    params: Params,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gpus: Option<Gpus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ranks_per_gpu: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    calibration: Option<Calibration>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    provenance: Vec<Source>,
}

impl TryFrom<MachineFile> for Machine {
    type Error = String;

    fn try_from(f: MachineFile) -> Result<Machine, String> {
        let network = match (f.nodes_per_router, f.network) {
            (Some(_), Some(_)) => {
                return Err(
                    "give nodes_per_router (Blue Waters' box) or a network object, not both".into(),
                )
            }
            (None, None) => {
                return Err("missing field `nodes_per_router` (or a network object)".into())
            }
            (Some(k), None) => network::Spec::box3d(k),
            (None, Some(n)) => n,
        };
        let mut m = Machine {
            name: f.name,
            nodes: f.nodes,
            ppn: f.ppn,
            sockets_per_node: f.sockets_per_node,
            localities: f.localities,
            network,
            placement: f.placement,
            allocation: f.allocation,
            params: f.params,
            gpus: f.gpus,
            ranks_per_gpu: f.ranks_per_gpu,
            calibration: f.calibration,
            provenance: f.provenance,
        };
        // Parameters in the classes' order, whatever the file's.
        let names = m.localities();
        m.params.rates.order_as(&names);
        if let Some(g) = &mut m.gpus {
            g.params.rates.order_as(&names);
        }
        Ok(m)
    }
}

impl From<Machine> for MachineFile {
    fn from(m: Machine) -> MachineFile {
        // A box keeps today's field, so older readers read the file.
        let boxed = m.network.kind == network::REGISTRY[0];
        MachineFile {
            name: m.name,
            nodes: m.nodes,
            ppn: m.ppn,
            sockets_per_node: m.sockets_per_node,
            localities: m.localities,
            nodes_per_router: boxed.then(|| m.network.nodes_per_switch()),
            network: (!boxed).then_some(m.network),
            placement: m.placement,
            allocation: m.allocation,
            params: m.params,
            gpus: m.gpus,
            ranks_per_gpu: m.ranks_per_gpu,
            calibration: m.calibration,
            provenance: m.provenance,
        }
    }
}

fn default_placement() -> Placement {
    Placement::Smp
}

/// What is wrong with a machine description: one sentence naming the
/// field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

impl From<&str> for Invalid {
    fn from(s: &str) -> Invalid {
        Invalid(s.to_string())
    }
}

/// A machine that cannot be had: its file is missing or malformed, or the
/// description is inconsistent.
#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    /// `--machine FILE` names no file.
    #[error(
        "request.machine {path}: no such file (built in: bluewaters, lassen, summit, frontier, elcapitan, aurora, perlmutter)"
    )]
    NotFound {
        /// The file given.
        path: String,
    },
    /// The file cannot be read.
    #[error("request.machine {path}: {}", crate::output::reason(.source))]
    Io {
        /// The file given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a machine in JSON.
    #[error("{path}: {reason}")]
    Json {
        /// The file given.
        path: String,
        /// The JSON parser's message (field, line and column).
        reason: String,
    },
    /// The allocation asked of the machine cannot be.
    #[error("{0}")]
    Allocation(String),
    /// The description is inconsistent.
    #[error("{context}: {problem}")]
    Invalid {
        /// The file or the machine's name.
        context: String,
        /// What is wrong.
        problem: Invalid,
    },
}

impl Machine {
    /// Blue Waters XE: 16 ranks per node on 2 sockets, 2 nodes per Gemini
    /// router; 512 nodes by default, as in the EuroMPI'18 runs.
    pub fn bluewaters() -> Machine {
        Machine {
            name: "bluewaters".into(),
            nodes: 512,
            ppn: 16,
            sockets_per_node: 2,
            localities: None,
            network: network::Spec::box3d(2),
            placement: Placement::Smp,
            allocation: Allocation::Contiguous,
            params: Params::bluewaters(),
            gpus: None,
            ranks_per_gpu: None,
            calibration: None,
            provenance: Vec::new(),
        }
    }

    /// A preset ([`presets::names`]), or a JSON file with the fields of
    /// [`Machine`].
    pub fn named_or_file(spec: &str) -> Result<Machine, MachineError> {
        if let Some(m) = presets::preset(spec) {
            return Ok(m);
        }
        let path = Path::new(spec);
        // A description with measured tables is a few kilobytes.
        let text = crate::memory::read_text(path, 64 << 20).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => MachineError::NotFound { path: spec.into() },
            _ => MachineError::Io {
                path: spec.into(),
                source: e,
            },
        })?;
        let m: Machine = crate::json_in::from_str(&text).map_err(|e| MachineError::Json {
            path: spec.into(),
            reason: e.to_string(),
        })?;
        m.validate().map_err(|problem| MachineError::Invalid {
            context: spec.into(),
            problem,
        })?;
        Ok(m)
    }

    /// Checks the counts and every parameter.
    pub fn validate(&self) -> Result<(), Invalid> {
        if self.nodes == 0 {
            return Err("nodes must be at least 1".into());
        }
        if self.ppn == 0 {
            return Err("ppn must be at least 1".into());
        }
        if self.sockets_per_node == 0 || !self.ppn.is_multiple_of(self.sockets_per_node) {
            return Err(Invalid(format!(
                "ppn {} is not divisible by the {} sockets per node",
                self.ppn, self.sockets_per_node
            )));
        }
        self.network.wire(self.nodes, self.allocation)?;
        self.check_domains()?;
        self.params.validate()?;
        self.check_gpus()?;
        let names = self.localities();
        if self
            .params
            .rates
            .names()
            .ne(names.iter().map(String::as_str))
        {
            let given: Vec<&str> = self.params.rates.names().collect();
            return Err(Invalid(format!(
                "params give rates for {}, the machine's locality classes are {}",
                given.join(", "),
                names.join(", ")
            )));
        }
        if self
            .nodes
            .checked_mul(self.ppn)
            .is_none_or(|p| p > u32::MAX as usize)
        {
            return Err(Invalid(format!(
                "{} nodes x {} ppn is too many ranks",
                self.nodes, self.ppn
            )));
        }
        Ok(())
    }

    /// This machine with the allocation's `nodes`, ranks per node `ppn`,
    /// `placement` and `allocation` on the machine's nodes (each `None`
    /// keeps the machine's), checked.
    pub fn allocated(
        mut self,
        nodes: Option<usize>,
        ppn: Option<usize>,
        placement: Option<Placement>,
        allocation: Option<Allocation>,
    ) -> Result<Machine, MachineError> {
        for (field, v) in [("request.nodes", nodes), ("request.ppn", ppn)] {
            if v == Some(0) {
                let why = format!("{field} must be at least 1, got 0");
                return Err(MachineError::Allocation(why));
            }
        }
        self.nodes = nodes.unwrap_or(self.nodes);
        self.ppn = ppn.unwrap_or(self.ppn);
        self.placement = placement.unwrap_or(self.placement);
        self.allocation = allocation.unwrap_or(self.allocation);
        if let Some(ppn) = ppn.filter(|p| !p.is_multiple_of(self.sockets_per_node)) {
            return Err(MachineError::Allocation(format!(
                "request.ppn {ppn}: not divisible by the {} sockets per node of {}",
                self.sockets_per_node, self.name
            )));
        }
        let context = format!("machine {}", self.name);
        self.validate()
            .map_err(|problem| MachineError::Invalid { context, problem })?;
        Ok(self)
    }

    /// Where each parameter comes from: the file's `provenance`, or for
    /// Blue Waters the paper's.
    pub fn provenance_or_default(&self) -> Vec<Source> {
        let bw = Machine::bluewaters();
        let is_bw = self.name == bw.name && self.params == bw.params && self.network == bw.network;
        if self.provenance.is_empty() && is_bw {
            return presets::bluewaters_provenance();
        }
        self.provenance.clone()
    }

    /// Where this machine's row work ([`RowWork`]) comes from, in words:
    /// `calibrate`'s measurement, the machine's own provenance line for it,
    /// or Blue Waters' fit, borrowed, when the machine has no fit of its
    /// own.
    pub fn row_work_source(&self) -> String {
        let measured = (self.calibration.iter())
            .flat_map(|c| &c.fits)
            .filter(|f| f.parameter.starts_with("row_work."))
            .map(|f| format!("{}: {}", f.parameter, f.method))
            .collect::<Vec<_>>();
        if !measured.is_empty() {
            return measured.join("; ");
        }
        if let Some(p) =
            (self.provenance_or_default().into_iter()).find(|p| p.parameter.starts_with("row_work"))
        {
            return p.source;
        }
        if self.params.row_work == RowWork::bluewaters() {
            return "borrowed: Blue Waters' fit to RAPtor's benchmark_matops logs of June 2018 \
                    (the machine has no fit of its own; amgcomm calibrate measures it where it runs)"
                .into();
        }
        "given in the machine file, without a source".into()
    }

    /// `P = nodes * ppn`.
    pub fn ranks(&self) -> usize {
        self.nodes * self.ppn
    }

    /// The network of this allocation ([`network::Spec::wire`]).
    ///
    /// # Panics
    /// On a machine that [`Machine::validate`] refuses.
    pub fn network(&self) -> Box<dyn Network> {
        self.network
            .wire(self.nodes, self.allocation)
            .unwrap_or_else(|e| panic!("machine {}: {e} (validate it first)", self.name))
    }
}

/// Blue Waters with `nodes` x `ppn` ranks, for tests.
#[cfg(test)]
pub(crate) fn test_machine(nodes: usize, ppn: usize) -> Machine {
    Machine {
        nodes,
        ppn,
        ..Machine::bluewaters()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::test_machine as machine;

    #[test]
    fn machine_files_load_and_are_checked() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("m.json");
        std::fs::write(&f, r#"{"name": "mini", "nodes": 6, "ppn": 8, "sockets_per_node": 4, "nodes_per_router": 1, "placement": "round-robin"}"#).unwrap();
        let m = Machine::named_or_file(f.to_str().unwrap()).unwrap();
        let shape = m.network().shape();
        assert_eq!((m.ranks(), m.network().switches()), (48, 6));
        assert_eq!(shape["router_box"], serde_json::json!([3, 2, 1]));
        assert_eq!((m.node_of(7), m.socket_of(7)), (1, 0));
        assert_eq!(m.socket_of(47), 3);
        std::fs::write(
            &f,
            r#"{"name": "x", "nodes": 2, "ppn": 6, "sockets_per_node": 4, "nodes_per_router": 2}"#,
        )
        .unwrap();
        let e = Machine::named_or_file(f.to_str().unwrap()).unwrap_err();
        assert!(matches!(e, MachineError::Invalid { .. }));
        assert!(e.to_string().contains("not divisible"));
        std::fs::write(
            &f,
            r#"{"name": "x", "nodes": 2, "ppn": 4, "sockets": 2, "nodes_per_router": 2}"#,
        )
        .unwrap();
        let e = Machine::named_or_file(f.to_str().unwrap()).unwrap_err();
        assert!(matches!(e, MachineError::Json { .. }));
        assert!(e.to_string().contains("sockets"));
        // Random placement keeps its seed in the file.
        std::fs::write(
            &f,
            r#"{"name": "r", "nodes": 2, "ppn": 4, "sockets_per_node": 2, "nodes_per_router": 2, "placement": {"random": {"seed": 3}}}"#,
        )
        .unwrap();
        let m = Machine::named_or_file(f.to_str().unwrap()).unwrap();
        assert_eq!(m.placement, Placement::Random { seed: 3 });
    }

    #[test]
    fn a_network_object_names_its_kind_and_fields() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("m.json");
        let load = |network: &str| {
            let text = format!(
                r#"{{"name": "n", "nodes": 8, "ppn": 2, "sockets_per_node": 1, {network}}}"#
            );
            std::fs::write(&f, text).unwrap();
            Machine::named_or_file(f.to_str().unwrap()).map_err(|e| e.to_string())
        };
        let m = load(r#""network": {"kind": "box3d", "nodes_per_switch": 1}"#).unwrap();
        assert_eq!(m.network, network::Spec::box3d(1));
        assert_eq!(m.network().switches(), 8);
        // Written back as a box has always been written.
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["nodes_per_router"], 1);
        assert!(json.get("network").is_none());
        let e = load(r#""network": {"kind": "tree"}"#).unwrap_err();
        assert!(
            e.contains("\"tree\" is not a network (networks: box3d"),
            "{e}"
        );
        let e = load(r#""network": {"kind": "box3d", "nodes_per_switch": 0}"#).unwrap_err();
        assert!(
            e.contains("network: nodes_per_switch must be a whole number"),
            "{e}"
        );
        let e = load(r#""network": {"kind": "box3d", "switches": 4}"#).unwrap_err();
        assert!(
            e.contains("unknown field `switches` in network (fields: kind,"),
            "{e}"
        );
        let e =
            load(r#""nodes_per_router": 2, "network": {"kind": "box3d", "nodes_per_switch": 2}"#)
                .unwrap_err();
        assert!(e.contains("not both"), "{e}");
        let e = load(r#""placement": "smp""#).unwrap_err();
        assert!(e.contains("nodes_per_router"), "{e}");
    }

    #[test]
    fn validation_names_the_problem() {
        assert!(machine(0, 16).validate().unwrap_err().0.contains("nodes"));
        assert!(machine(4, 15)
            .validate()
            .unwrap_err()
            .0
            .contains("not divisible"));
        let e = Machine::named_or_file("no-such.json").unwrap_err();
        assert_eq!(
            e.to_string(),
            "request.machine no-such.json: no such file (built in: bluewaters, lassen, summit, frontier, elcapitan, aurora, perlmutter)"
        );
    }
}
