//! `fattree`: a folded-Clos (fat tree) of leaf switches, as InfiniBand
//! clusters (Summit, Lassen) wire it (docs/machines.md, "Networks and machine presets"). With
//! `fanout = [f1, ..., fL]`, a level-`k` subtree holds the `f1 ... fk`
//! consecutive leaves that share its switches (level 0: one leaf), and one
//! root level above the last fanout holds all; `hops = 2k` for the lowest
//! level `k >= 1` whose subtree holds both leaves (up `k`, down `k`).
//!
//! Links: each subtree's up-links (and down-links) to the level above are
//! one bundle, and a message crosses the bundles of the subtrees it
//! leaves and enters. Routing spreads a bundle's bytes evenly over its
//! cables (an ideal of the static, destination-based routes of
//! InfiniBand, which Hoefler, Schneider and Lumsdaine, Cluster 2008, show
//! can only be worse). A bundle of a level-`j` subtree of `n_j` nodes has
//! `n_j / (t_0 ... t_j)` cables, `taper = [t_0, ..., t_L]` the
//! oversubscription of each level's up-links (1: full bisection).
//! Contention: `delta` times the bytes on the busiest cable.

use serde_json::{Map, Value};

use super::{positive, positive_list, Kind, Network};
use crate::machine::Invalid;

/// The registry entry.
pub static KIND: Kind = Kind {
    name: "fattree",
    about: "leaf switches under subtrees of fanout [f1, ...] and a root level; taper per level of up-links",
    fields: &["nodes_per_switch", "fanout", "taper", "switches"],
    build,
    size: |f| {
        let s = positive(f, "switches").ok()?;
        s.checked_mul(positive(f, "nodes_per_switch").ok()?)
    },
    nodes_per_switch: |f| positive(f, "nodes_per_switch").unwrap_or(1),
};

/// Levels of fanout a fat tree may have.
const MAX_LEVELS: usize = 8;

fn build(fields: &Map<String, Value>, nodes: usize) -> Result<Box<dyn Network>, Invalid> {
    let per = positive(fields, "nodes_per_switch")?;
    let fanout = positive_list(fields, "fanout", Some(0..=MAX_LEVELS))?;
    let levels = fanout.len() + 1; // levels of up-links: 0..=L
    let taper = match fields.get("taper") {
        None => vec![1.0; levels],
        Some(v) => {
            let t: Option<Vec<f64>> = v
                .as_array()
                .filter(|a| a.len() == levels)
                .map(|a| {
                    a.iter()
                        .map(|x| x.as_f64().filter(|&t| (1.0..=1e6).contains(&t)))
                        .collect()
                })
                .and_then(|x| x);
            t.ok_or_else(|| {
                Invalid(format!(
                    "taper must list {levels} numbers from 1 (full bisection) to 1e6, one per level of up-links (fanout's levels + 1), got {v}"
                ))
            })?
        }
    };
    let leaves = match fields.get("switches") {
        Some(_) => positive(fields, "switches")?,
        None => nodes.div_ceil(per),
    };
    if nodes.div_ceil(per) > leaves {
        return Err(Invalid(format!(
            "{nodes} nodes need more than the {leaves} leaf switches"
        )));
    }
    // Leaves per level-j subtree, j = 0..=L.
    let mut size = vec![1usize];
    for &f in &fanout {
        let s = size[size.len() - 1]
            .checked_mul(f)
            .filter(|&s| s <= super::MAX_NODES)
            .ok_or_else(|| Invalid(format!("fanout {fanout:?}: subtrees too large")))?;
        size.push(s);
    }
    let mut offset = Vec::with_capacity(levels);
    let mut cables = Vec::new();
    let mut links = 0;
    let mut tapered = 1.0;
    for (j, &s) in size.iter().enumerate() {
        offset.push(links);
        tapered *= taper[j];
        let c = (s * per) as f64 / tapered;
        let subtrees = leaves.div_ceil(s);
        links += 2 * subtrees;
        cables.extend(std::iter::repeat_n(c, 2 * subtrees));
    }
    Ok(Box::new(FatTree {
        per,
        fanout,
        size,
        offset,
        cables,
        leaves,
    }))
}

/// A fat tree of `leaves` leaf switches.
#[derive(Clone, Debug)]
pub struct FatTree {
    per: usize,
    fanout: Vec<usize>,
    /// Leaves per level-`j` subtree.
    size: Vec<usize>,
    /// First bundle index of level `j`.
    offset: Vec<usize>,
    /// Cables of each bundle.
    cables: Vec<f64>,
    leaves: usize,
}

impl FatTree {
    /// The lowest level `k >= 1` whose subtree holds both leaves
    /// (`fanout.len() + 1` is the root).
    fn common(&self, s: usize, t: usize) -> usize {
        (1..self.size.len())
            .find(|&k| s / self.size[k] == t / self.size[k])
            .unwrap_or(self.size.len())
    }

    /// Bundle of level-`j` subtree `i`, up or down.
    fn bundle(&self, j: usize, i: usize, up: bool) -> usize {
        self.offset[j] + 2 * i + up as usize
    }
}

impl Network for FatTree {
    /// Leaf switches.
    fn switches(&self) -> usize {
        self.leaves
    }

    fn switch_of(&self, node: usize) -> usize {
        node / self.per
    }

    fn hops(&self, a: usize, b: usize) -> u32 {
        let (s, t) = (a / self.per, b / self.per);
        if s == t {
            0
        } else {
            2 * self.common(s, t) as u32
        }
    }

    /// Two bundles (up, down) per subtree of each level below the root.
    fn links(&self) -> usize {
        self.cables.len()
    }

    /// Up the bundles of the subtrees holding `a`'s leaf, down those
    /// holding `b`'s.
    fn route(&self, a: usize, b: usize, visit: &mut dyn FnMut(usize)) {
        let (s, t) = (a / self.per, b / self.per);
        if s == t {
            return;
        }
        let k = self.common(s, t);
        for j in 0..k {
            visit(self.bundle(j, s / self.size[j], true));
        }
        for j in (0..k).rev() {
            visit(self.bundle(j, t / self.size[j], false));
        }
    }

    /// Bytes per cable: each bundle's bytes over its cables.
    fn loads(&self, traffic: &[(u32, u32, u64)]) -> Vec<f64> {
        let mut load = super::route_loads(self, traffic);
        for (l, c) in load.iter_mut().zip(&self.cables) {
            *l /= c;
        }
        load
    }

    fn shape(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("switches".into(), self.leaves.into());
        m.insert("levels".into(), (self.fanout.len() + 2).into());
        m
    }

    fn describe(&self) -> String {
        format!(
            "fattree, {} leaf switches of {} nodes, fanout {:?}, {} switch levels",
            self.leaves,
            self.per,
            self.fanout,
            self.fanout.len() + 2
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_every_pair, wired};
    use super::*;

    fn tree(f: serde_json::Value, nodes: usize) -> Box<dyn Network> {
        wired("fattree", f, nodes).unwrap()
    }

    /// Every node pair: hops against the definition by brute force (the
    /// smallest level whose subtree, as a set of leaves, holds both).
    #[test]
    fn hops_against_brute_force() {
        let t = tree(
            serde_json::json!({"nodes_per_switch": 2, "fanout": [3, 2]}),
            28,
        );
        // 14 leaves; subtrees of 3 leaves, then of 6, then the root.
        let hops = |a: usize, b: usize| {
            let (s, t) = (a / 2, b / 2);
            if s == t {
                return 0;
            }
            // The leaves of s's subtree at each level, as a set.
            for (k, size) in [(1u32, 3), (2, 6)] {
                let subtree: Vec<usize> = (0..14).filter(|x| x / size == s / size).collect();
                if subtree.contains(&t) {
                    return 2 * k;
                }
            }
            6 // the root
        };
        check_every_pair(&*t, 28, hops);
        assert_eq!(t.shape()["levels"], 4);
        for a in 0..28 {
            for b in 0..28 {
                let mut n = 0;
                t.route(a, b, &mut |_| n += 1);
                assert_eq!(n, t.hops(a, b));
            }
        }
    }

    /// A taper by hand: 4 leaves of 2 nodes, fanout [2] (2 subtrees of 2
    /// leaves), taper [1, 2]. A leaf has 2 up-cables; a level-1 subtree
    /// (4 nodes) has 4 / (1 x 2) = 2. Node 0 sends 600 B to node 4 (leaf
    /// 2, other subtree) and node 2 (leaf 1) 200 B to node 6 (leaf 3).
    /// Leaf 0's up-cables carry 300 B each; subtree 0's up-cables carry
    /// (600 + 200) / 2 = 400 B each, the busiest.
    #[test]
    fn a_taper_shares_a_subtrees_up_links() {
        let t = tree(
            serde_json::json!({"nodes_per_switch": 2, "fanout": [2], "taper": [1, 2]}),
            8,
        );
        let load = t.loads(&[(0, 4, 600), (2, 6, 200)]);
        let max = load.iter().copied().fold(0.0, f64::max);
        assert_eq!(max, 400.0);
        assert_eq!(load[1], 300.0); // leaf 0 up
        assert_eq!(load[8 + 1], 400.0); // subtree 0 up (level 1 starts at 8)
        assert_eq!(load[8 + 2], 400.0); // subtree 1 down
                                        // Full bisection: subtree 0 has 4 up-cables, 200 B each.
        let t = tree(serde_json::json!({"nodes_per_switch": 2, "fanout": [2]}), 8);
        assert_eq!(t.loads(&[(0, 4, 600), (2, 6, 200)])[9], 200.0);
    }

    #[test]
    fn malformed_trees_are_refused() {
        let wire = |f, nodes| wired("fattree", f, nodes).map(|_| ()).unwrap_err().0;
        let e = wire(serde_json::json!({"nodes_per_switch": 2, "fanout": [0]}), 8);
        assert!(e.contains("fanout must hold whole numbers from 1"), "{e}");
        let e = wire(
            serde_json::json!({"nodes_per_switch": 2, "fanout": [2], "taper": [1]}),
            8,
        );
        assert!(e.contains("taper must list 2 numbers"), "{e}");
        let e = wire(
            serde_json::json!({"nodes_per_switch": 2, "fanout": [2], "taper": [1, 0.5]}),
            8,
        );
        assert!(e.contains("taper must list"), "{e}");
        let e = wire(
            serde_json::json!({"nodes_per_switch": 2, "fanout": [2], "switches": 3}),
            8,
        );
        assert!(e.contains("8 nodes do not fit"), "{e}");
    }
}
