//! The network the allocation's nodes hang off (`docs/machines.md`,
//! "Networks and machine presets"): an extension point.
//!
//! A network is one file here with a [`Kind`] (its name in machine files,
//! and how its JSON fields become a [`Network`] for an allocation), plus
//! one line in [`REGISTRY`]. Everything the stages ask of a network goes
//! through the [`Network`] trait: the switch of a node, hops between
//! nodes, the directed links a route crosses, the contention term's
//! charge, and its shape for reports. Machine files, `machine show`, the
//! report's `machine` object and the terminal header then name it with no
//! other edit.
//!
//! May use `matrix` and `amg` (as the whole `machine` stage may), the rest
//! of `machine` and the ground floor; each network's file uses only this
//! one (`tests/layering.rs`).

mod allocated;
mod box3d;
mod dragonfly;
mod fattree;
mod torus3d;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

pub use allocated::{Allocated, Allocation};
pub use box3d::Box3d;
pub use dragonfly::{Dragonfly, Routing};
pub use fattree::FatTree;
pub use torus3d::Torus3d;

use super::Invalid;

/// What the stages ask of a network of `nodes` nodes (node `k`,
/// `0 <= k < nodes`; [`Allocated`] maps an allocation's nodes onto a
/// larger machine's).
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
    /// Bytes each directed link carries when every `(a, b, bytes)` of
    /// `traffic` goes from node `a` to node `b` under the network's
    /// routing. By default each message loads every link of its
    /// [`Network::route`] with all its bytes (integer sums, exact below
    /// 2^53); a network whose link is a bundle of cables, or whose routing
    /// spreads a message over several paths, divides.
    fn loads(&self, traffic: &[(u32, u32, u64)]) -> Vec<f64> {
        route_loads(self, traffic)
    }
    /// The contention term's seconds for one exchange with constant
    /// `delta`: `delta * l`, `l` the bytes on the most loaded directed
    /// link under the network's routes (docs/machines.md); `box3d`
    /// keeps EuroMPI'18's `delta h^3 B / routers` (eqs. 5 and 7).
    fn contention(&self, delta: f64, t: &Traffic) -> f64 {
        delta * (t.max_link_bytes)()
    }
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
    /// routes ([`Network::loads`]), computed on demand (networks whose
    /// contention needs it).
    pub max_link_bytes: &'a dyn Fn() -> f64,
}

/// Checks a network object's fields and wires a machine of `nodes`
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
    /// Checks the fields and wires a machine of `nodes` nodes: the whole
    /// machine when [`Kind::size`] gives it, else the allocation.
    pub build: Build,
    /// Nodes of the whole machine, when the fields say (a torus's `dims`,
    /// a dragonfly's `groups`, a fat tree's `switches`): what a random
    /// [`Allocation`] draws from.
    pub size: fn(&Map<String, Value>) -> Option<usize>,
    /// Nodes per switch, from checked fields (the report's
    /// `nodes_per_router`).
    pub nodes_per_switch: fn(&Map<String, Value>) -> usize,
}

/// Every network kind; the first is the default (docs/model.md: a machine
/// without a `network` object is Blue Waters' box).
pub static REGISTRY: &[&Kind] = &[
    &box3d::KIND,
    &torus3d::KIND,
    &dragonfly::KIND,
    &fattree::KIND,
];

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
            let known = std::iter::once("kind").chain(kind.fields.iter().copied());
            return Err(Invalid(crate::json_in::unknown(f, "network", known)));
        }
        Ok(Spec { kind, fields })
    }

    /// Blue Waters' Gemini box with `nodes_per_switch` nodes per router
    /// (docs/model.md, "Virtual machine").
    pub fn box3d(nodes_per_switch: usize) -> Spec {
        let mut fields = Map::new();
        fields.insert("nodes_per_switch".into(), nodes_per_switch.into());
        Spec {
            kind: &box3d::KIND,
            fields,
        }
    }

    /// The network of an allocation of `nodes` nodes placed on the
    /// machine by `allocation`, its fields checked.
    pub fn wire(&self, nodes: usize, allocation: Allocation) -> Result<Box<dyn Network>, Invalid> {
        let e = |e: Invalid| Invalid(format!("network: {}", e.0));
        let size = (self.kind.size)(&self.fields);
        let whole = size.unwrap_or(nodes);
        if nodes > whole {
            return Err(Invalid(format!(
                "network: {nodes} nodes do not fit the {} machine's {whole} nodes",
                self.kind.name
            )));
        }
        // A size from the file is checked here; an allocation's, by the
        // memory the request needs.
        if size.is_some_and(|s| s > MAX_NODES) {
            return Err(Invalid(format!(
                "network: a machine of {whole} nodes; amgcomm models machines of at most {MAX_NODES}"
            )));
        }
        // The network's tables grow with its nodes (a box3d's router of
        // each node, 12 bytes; at most 64 for any network): refused before
        // they are allocated. A machine file's 2^32 nodes once asked 51 GB
        // of a box3d here, before the request's own memory check.
        crate::memory::check((whole as u64).saturating_mul(64), || {
            format!("a {} network of {whole} nodes", self.kind.name)
        })
        .map_err(|t| Invalid(format!("network: {t}")))?;
        let net = (self.kind.build)(&self.fields, whole).map_err(e)?;
        if net.links() > MAX_LINKS {
            return Err(Invalid(format!(
                "network: {} directed links; amgcomm models networks of at most {MAX_LINKS}",
                net.links()
            )));
        }
        match allocation {
            Allocation::Contiguous => Ok(net),
            Allocation::Random { .. } if size.is_none() => Err(Invalid(format!(
                "allocation random: the {} network does not name the whole machine to draw nodes from ({})",
                self.kind.name,
                "give a torus3d's dims, a dragonfly's groups or a fattree's switches"
            ))),
            Allocation::Random { seed } => Ok(Box::new(Allocated::random(net, nodes, whole, seed))),
        }
    }

    /// Nodes of the whole machine, when the network names it.
    pub fn size(&self) -> Option<usize> {
        (self.kind.size)(&self.fields)
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
        let kind = match fields.shift_remove("kind") {
            Some(Value::String(k)) => k,
            _ => return Err(D::Error::custom("network needs \"kind\", a string")),
        };
        Spec::new(&kind, fields).map_err(|e| D::Error::custom(e.0))
    }
}

/// Each message's bytes on every link of its [`Network::route`]: the
/// default [`Network::loads`], for networks that override it to build on.
pub fn route_loads<N: Network + ?Sized>(net: &N, traffic: &[(u32, u32, u64)]) -> Vec<f64> {
    let mut load = vec![0.0; net.links()];
    for &(a, b, bytes) in traffic {
        net.route(a as usize, b as usize, &mut |l| load[l] += bytes as f64);
    }
    load
}

/// The largest machine amgcomm wires (nodes): a hostile file must not
/// allocate tables of billions of entries.
pub const MAX_NODES: usize = 1 << 22;

/// The most directed links a network may have, for the same reason.
pub const MAX_LINKS: usize = 1 << 26;

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

/// A field that must be a list of whole numbers of at least 1, of `len`
/// entries when given.
pub(crate) fn positive_list(
    fields: &Map<String, Value>,
    name: &str,
    len: Option<std::ops::RangeInclusive<usize>>,
) -> Result<Vec<usize>, Invalid> {
    let v = fields
        .get(name)
        .ok_or_else(|| Invalid(format!("{name} is missing")))?;
    let list = v
        .as_array()
        .ok_or_else(|| Invalid(format!("{name} must be a list, got {v}")))?;
    if let Some(r) = len.filter(|r| !r.contains(&list.len())) {
        let n = if r.start() == r.end() {
            r.start().to_string()
        } else {
            format!("{} to {}", r.start(), r.end())
        };
        return Err(Invalid(format!("{name} must list {n} numbers, got {v}")));
    }
    list.iter()
        .map(|x| match x.as_u64() {
            Some(k) if k >= 1 && k <= MAX_NODES as u64 => Ok(k as usize),
            _ => Err(Invalid(format!(
                "{name} must hold whole numbers from 1 to {MAX_NODES}, got {v}"
            ))),
        })
        .collect()
}

/// The network `kind` with `fields` (a JSON object) wired for `nodes`
/// contiguous nodes, for the networks' tests.
#[cfg(test)]
pub(crate) fn wired(
    kind: &str,
    fields: serde_json::Value,
    nodes: usize,
) -> Result<Box<dyn Network>, Invalid> {
    let fields = fields.as_object().expect("an object").clone();
    Spec::new(kind, fields)?.wire(nodes, Allocation::Contiguous)
}

/// Every pair of nodes of a small network: its hops against `hops` (a
/// brute-force count), its route's links (in range, none twice, none on
/// one switch), and the loads of one message on its own: exactly the
/// links of its route carry bytes.
#[cfg(test)]
pub(crate) fn check_every_pair(
    net: &dyn Network,
    nodes: usize,
    hops: impl Fn(usize, usize) -> u32,
) {
    for a in 0..nodes {
        for b in 0..nodes {
            assert_eq!(net.hops(a, b), hops(a, b), "hops {a} -> {b}");
            let mut seen = Vec::new();
            net.route(a, b, &mut |l| seen.push(l));
            assert!(seen.iter().all(|&l| l < net.links()), "{a} -> {b}");
            let n = seen.len();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), n, "a link twice on {a} -> {b}");
            if net.switch_of(a) == net.switch_of(b) {
                assert!(seen.is_empty());
            }
            let load = net.loads(&[(a as u32, b as u32, 1000)]);
            for (l, &x) in load.iter().enumerate() {
                assert_eq!(
                    x > 0.0,
                    seen.binary_search(&l).is_ok(),
                    "{a} -> {b} link {l}"
                );
            }
        }
    }
}
