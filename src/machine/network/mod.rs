//! The network the allocation's nodes hang off (`../shared/MODEL.md`,
//! "Networks"): an extension point.
//!
//! A network is one file here with a [`Kind`] (its name in machine files,
//! and how its JSON fields become a [`Network`] for an allocation), plus
//! one line in [`REGISTRY`]. Everything the stages ask of a network goes
//! through the [`Network`] trait: the switch of a node, hops between
//! nodes, the directed links a route crosses, the contention term's
//! charge, and its shape for reports. Machine files, `machine show`, the
//! report's `machine` object and the terminal header then name it with no
//! other edit.

mod box3d;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

pub use box3d::Box3d;

use super::Invalid;

/// What the stages ask of the network of an allocation of `nodes` nodes
/// (node `k` of the allocation, `0 <= k < nodes`).
pub trait Network: Send + Sync + std::fmt::Debug {
    /// Switches (routers) of the allocation.
    fn switches(&self) -> usize;
    /// The switch node `node` hangs off.
    fn switch_of(&self, node: usize) -> usize;
    /// Switch-to-switch links on the route between two nodes' switches;
    /// 0 when both hang off one switch.
    fn hops(&self, a: usize, b: usize) -> u32;
    /// Directed links that routes can cross; every link index that
    /// [`Network::route`] visits is below it.
    fn links(&self) -> usize;
    /// Calls `visit` with each directed link the route from node `a` to
    /// node `b` crosses, in order.
    fn route(&self, a: usize, b: usize, visit: &mut dyn FnMut(usize));
    /// The contention term's seconds for one exchange with constant
    /// `delta` (MODEL.md "Costs": on `box3d`, EuroMPI'18 eqs. 5 and 7).
    fn contention(&self, delta: f64, t: &Traffic) -> f64;
    /// Figures of this allocation's network for reports (JSON object
    /// fields besides `kind` and the configuration), e.g. the router box.
    fn shape(&self) -> Map<String, Value>;
    /// One phrase for the terminal header and `machine show`.
    fn describe(&self) -> String;
}

/// What an exchange puts on the network, as the contention term sees it.
pub struct Traffic<'a> {
    /// Bytes of all network messages (`B`).
    pub bytes: u64,
    /// Their byte-weighted mean hops (`h`).
    pub avg_hops: f64,
    /// Bytes on the most loaded directed link under the network's
    /// routes, computed on demand (networks whose contention needs it).
    pub max_link_bytes: &'a dyn Fn() -> u64,
}

/// Checks a network object's fields and wires an allocation of `nodes`
/// nodes.
pub type Build = fn(&Map<String, Value>, usize) -> Result<Box<dyn Network>, Invalid>;

/// A network kind: its name in machine files (`"kind"`), what its fields
/// mean, and how they become the network of an allocation.
pub struct Kind {
    /// `"kind"` in a machine file's `network` object.
    pub name: &'static str,
    /// One line for `machine show` and the README.
    pub about: &'static str,
    /// Its fields, for error messages: `"nodes_per_switch"`.
    pub fields: &'static [&'static str],
    /// Checks the fields and wires an allocation of `nodes` nodes.
    pub build: Build,
    /// Nodes per switch, from checked fields (the report's
    /// `nodes_per_router`).
    pub nodes_per_switch: fn(&Map<String, Value>) -> usize,
}

/// Every network kind; the first is the default (MODEL.md: a machine
/// without a `network` object is Blue Waters' box).
pub static REGISTRY: &[&Kind] = &[&box3d::KIND];

/// A machine's network as its file gives it: the kind and its fields
/// (`{"kind": "box3d", "nodes_per_switch": 2}`). Plain data; [`Spec::wire`]
/// makes the [`Network`] of an allocation.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The registry's kind.
    pub kind: &'static Kind,
    /// Its fields, `kind` excluded.
    pub fields: Map<String, Value>,
}

impl PartialEq for Kind {
    fn eq(&self, o: &Kind) -> bool {
        self.name == o.name
    }
}

impl std::fmt::Debug for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Spec {
    /// The kind named `name`, with `fields`.
    pub fn new(name: &str, fields: Map<String, Value>) -> Result<Spec, Invalid> {
        let kind = REGISTRY.iter().find(|k| k.name == name).ok_or_else(|| {
            let known: Vec<&str> = REGISTRY.iter().map(|k| k.name).collect();
            Invalid(format!(
                "network.kind \"{name}\" is not a network (networks: {})",
                known.join(", ")
            ))
        })?;
        if let Some(f) = fields.keys().find(|f| !kind.fields.contains(&f.as_str())) {
            return Err(Invalid(format!(
                "network: {name} has no field \"{f}\" (fields: kind, {})",
                kind.fields.join(", ")
            )));
        }
        Ok(Spec { kind, fields })
    }

    /// Blue Waters' Gemini box with `nodes_per_switch` nodes per router
    /// (MODEL.md "Virtual machine").
    pub fn box3d(nodes_per_switch: usize) -> Spec {
        let mut fields = Map::new();
        fields.insert("nodes_per_switch".into(), nodes_per_switch.into());
        Spec {
            kind: &box3d::KIND,
            fields,
        }
    }

    /// The network of an allocation of `nodes` nodes, its fields checked.
    pub fn wire(&self, nodes: usize) -> Result<Box<dyn Network>, Invalid> {
        (self.kind.build)(&self.fields, nodes).map_err(|e| Invalid(format!("network: {}", e.0)))
    }

    /// Nodes per switch.
    pub fn nodes_per_switch(&self) -> usize {
        (self.kind.nodes_per_switch)(&self.fields)
    }

    /// The object a machine file holds, `kind` first.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("kind".into(), self.kind.name.into());
        m.extend(self.fields.clone());
        m
    }
}

impl Serialize for Spec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Spec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Spec, D::Error> {
        let mut fields = Map::deserialize(d)?;
        let kind = match fields.remove("kind") {
            Some(Value::String(k)) => k,
            _ => return Err(D::Error::custom("network needs \"kind\", a string")),
        };
        Spec::new(&kind, fields).map_err(|e| D::Error::custom(e.0))
    }
}

/// A field that must be a whole number of at least 1.
pub(crate) fn positive(fields: &Map<String, Value>, name: &str) -> Result<usize, Invalid> {
    match fields.get(name).and_then(Value::as_u64) {
        Some(v) if v >= 1 && v <= u32::MAX as u64 => Ok(v as usize),
        Some(_) | None if fields.contains_key(name) => Err(Invalid(format!(
            "{name} must be a whole number from 1 to {}, got {}",
            u32::MAX,
            fields[name]
        ))),
        _ => Err(Invalid(format!("{name} is missing"))),
    }
}
