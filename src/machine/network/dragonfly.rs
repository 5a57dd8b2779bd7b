//! `dragonfly`: groups of all-to-all switches, all-to-all between groups
//! (Kim, Dally, Scott, Abts, ISCA 2008; HPE Slingshot as deployed on
//! Frontier, El Capitan, Perlmutter: De Sensi et al., SC20), exactly as
//! docs/machines.md's table of networks wires it. Switch `s` is in group `s / a`, local
//! index `s % a`. Groups `i != j` are joined by `m` global links; copy `c`
//! leaves group `i` at local index `gw(i, j, c) = (((j - i - 1) mod G) m + c)
//! mod a`.
//!
//! Routing, a field of the network object:
//! - `minimal` (default, docs/machines.md): local hop to the gateway, the global
//!   link, local hop from the gateway, over the copy with the fewest hops
//!   (ties: lowest `c`).
//! - `adaptive` (UGAL, Kim et al. sec. 4.2, in the fluid limit): within a
//!   group, minimal. Between groups `i != j` carrying `B_ij` bytes, with
//!   `b = B_ij / m` the load per copy if the pair used its own copies and
//!   `V_ij = sum_{k != i,j} (B_ik + B_kj) / (2 m (G - 2))` the mean load of
//!   the global links its Valiant paths would cross (all traffic minimal),
//!   a share `v` goes through intermediate groups so that a direct copy
//!   carries twice what a Valiant global link does (a Valiant path crosses
//!   two global links, UGAL's `q_min H_min <= q_nm H_nm` rule):
//!   `(1 - v) b = 2 (V_ij + v b / (G - 2))`, so
//!   `v = clamp((b - 2 V_ij)(G - 2) / (b G), 0, 1)` (`v = 0` when `G <= 2`).
//!   The share `1 - v` is spread evenly over the pair's `m` copies; the
//!   share `v` evenly over the `G - 2` intermediate groups `k` and, on each
//!   leg, over its `m` copies (local hops to, between and from the
//!   gateways as minimal routing takes them).
//!
//! `hops` and `route` (byte-hops, copy-transfer's link sharing) are the
//! minimal route's under both; `loads` (the `routed` and `contention`
//! terms) follow the routing. Contention: `delta` times the bytes on the
//! busiest directed link.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{positive, Kind, Network};
use crate::machine::Invalid;

/// The registry entry.
pub static KIND: Kind = Kind {
    name: "dragonfly",
    about: "groups of all-to-all switches, links_between_groups global links per group pair, minimal or adaptive (UGAL) routing",
    fields: &[
        "nodes_per_switch",
        "switches_per_group",
        "links_between_groups",
        "groups",
        "routing",
    ],
    build,
    size: |f| {
        let g = positive(f, "groups").ok()?;
        let a = positive(f, "switches_per_group").ok()?;
        let per = positive(f, "nodes_per_switch").ok()?;
        g.checked_mul(a)?.checked_mul(per)
    },
    nodes_per_switch: |f| positive(f, "nodes_per_switch").unwrap_or(1),
};

/// How messages between groups are routed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    /// docs/machines.md's minimal route over the copy with the fewest hops.
    Minimal,
    /// UGAL in the fluid limit (module docs).
    Adaptive,
}

fn build(fields: &Map<String, Value>, nodes: usize) -> Result<Box<dyn Network>, Invalid> {
    let per = positive(fields, "nodes_per_switch")?;
    let a = positive(fields, "switches_per_group")?;
    let m = positive(fields, "links_between_groups")?;
    let routing = match fields.get("routing") {
        None => Routing::Minimal,
        Some(Value::String(r)) if r == "minimal" => Routing::Minimal,
        Some(Value::String(r)) if r == "adaptive" => Routing::Adaptive,
        Some(v) => {
            return Err(Invalid(format!(
                "routing must be \"minimal\" or \"adaptive\", got {v}"
            )))
        }
    };
    let switches = nodes.div_ceil(per);
    let groups = match fields.get("groups") {
        Some(_) => positive(fields, "groups")?,
        None => switches.div_ceil(a),
    };
    let holds = groups.saturating_mul(a);
    if switches > holds {
        return Err(Invalid(format!(
            "{nodes} nodes need {switches} switches, more than {groups} groups of {a} hold"
        )));
    }
    // Links are tabled: a hostile file must not ask for billions.
    groups
        .checked_mul(a)
        .and_then(|x| x.checked_mul(a))
        .zip(groups.checked_mul(groups).and_then(|x| x.checked_mul(m)))
        .and_then(|(l, g)| l.checked_add(g))
        .filter(|&l| l <= super::MAX_LINKS)
        .ok_or_else(|| {
            Invalid(format!(
                "{groups} groups of {a} switches with {m} links between groups: too many links"
            ))
        })?;
    Ok(Box::new(Dragonfly {
        per,
        a,
        m,
        groups,
        routing,
    }))
}

/// A dragonfly of `groups` groups of `a` switches, `m` global links
/// between each pair of groups.
#[derive(Clone, Debug)]
pub struct Dragonfly {
    per: usize,
    a: usize,
    m: usize,
    groups: usize,
    routing: Routing,
}

impl Dragonfly {
    /// Local index, in group `i`, of the switch holding copy `c` of the
    /// global links toward group `j`.
    fn gateway(&self, i: usize, j: usize, c: usize) -> usize {
        let g = self.groups;
        (((j + g - i - 1) % g) * self.m + c) % self.a
    }

    /// Directed local link from local index `x` to `y` of group `g`.
    fn local(&self, g: usize, x: usize, y: usize) -> usize {
        (g * self.a + x) * self.a + y
    }

    /// Directed global link, copy `c`, from group `i` to group `j`.
    fn global(&self, i: usize, j: usize, c: usize) -> usize {
        self.groups * self.a * self.a + (i * self.groups + j) * self.m + c
    }

    /// The copy minimal routing takes between switches `s` and `t` of
    /// different groups, and its hops.
    fn copy(&self, s: usize, t: usize) -> (usize, u32) {
        let (i, j) = (s / self.a, t / self.a);
        (0..self.m)
            .map(|c| {
                let h = (s % self.a != self.gateway(i, j, c)) as u32
                    + 1
                    + (t % self.a != self.gateway(j, i, c)) as u32;
                (c, h)
            })
            .min_by_key(|&(c, h)| (h, c))
            .expect("m >= 1")
    }

    /// Visits the links from switch `s` through copy `c` to switch `t`
    /// (groups differ).
    fn via(&self, s: usize, t: usize, c: usize, visit: &mut dyn FnMut(usize)) {
        let (i, j) = (s / self.a, t / self.a);
        let (out, inn) = (self.gateway(i, j, c), self.gateway(j, i, c));
        if s % self.a != out {
            visit(self.local(i, s % self.a, out));
        }
        visit(self.global(i, j, c));
        if t % self.a != inn {
            visit(self.local(j, inn, t % self.a));
        }
    }

    /// Adaptive loads (module docs), from bytes per switch pair.
    fn adaptive(&self, pairs: &HashMap<(u32, u32), f64>) -> Vec<f64> {
        let (g, m, a) = (self.groups, self.m as f64, self.a);
        let mut load = vec![0.0; self.links()];
        let mut group = vec![0.0; g * g];
        for (&(s, t), &b) in pairs {
            let (i, j) = (s as usize / a, t as usize / a);
            if i == j {
                load[self.local(i, s as usize % a, t as usize % a)] += b;
            } else {
                group[i * g + j] += b;
            }
        }
        // v per group pair.
        let share = |i: usize, j: usize| -> f64 {
            let bij = group[i * g + j];
            if g <= 2 || bij == 0.0 {
                return 0.0;
            }
            let b = bij / m;
            let valiant: f64 = (0..g)
                .filter(|&k| k != i && k != j)
                .map(|k| group[i * g + k] + group[k * g + j])
                .sum::<f64>()
                / (2.0 * m * (g - 2) as f64);
            ((b - 2.0 * valiant) * (g - 2) as f64 / (b * g as f64)).clamp(0.0, 1.0)
        };
        let v: Vec<f64> = (0..g * g).map(|x| share(x / g, x % g)).collect();
        // Minimal share over every copy, and the Valiant end legs summed
        // per (switch, other group): leaving the source's switch, entering
        // the destination's.
        let mut from = HashMap::<(usize, usize), f64>::new();
        let mut to = HashMap::<(usize, usize), f64>::new();
        for (&(s, t), &b) in pairs {
            let (s, t) = (s as usize, t as usize);
            let (i, j) = (s / a, t / a);
            if i == j {
                continue;
            }
            let vij = v[i * g + j];
            let direct = (1.0 - vij) * b / m;
            if direct > 0.0 {
                for c in 0..self.m {
                    self.via(s, t, c, &mut |l| load[l] += direct);
                }
            }
            if vij > 0.0 {
                *from.entry((s, j)).or_default() += vij * b;
                *to.entry((t, i)).or_default() += vij * b;
            }
        }
        let per_leg = m * (g.saturating_sub(2)) as f64;
        for (legs, leaving) in [(&from, true), (&to, false)] {
            for (&(x, other), &w) in legs {
                let own = x / a;
                for k in (0..g).filter(|&k| k != own && k != other) {
                    for c in 0..self.m {
                        let gw = self.gateway(own, k, c);
                        if x % a != gw {
                            let (p, q) = if leaving { (x % a, gw) } else { (gw, x % a) };
                            load[self.local(own, p, q)] += w / per_leg;
                        }
                    }
                }
            }
        }
        for i in 0..g {
            for j in (0..g).filter(|&j| j != i) {
                let w = v[i * g + j] * group[i * g + j];
                if w == 0.0 {
                    continue;
                }
                for k in (0..g).filter(|&k| k != i && k != j) {
                    for c in 0..self.m {
                        load[self.global(i, k, c)] += w / per_leg;
                        load[self.global(k, j, c)] += w / per_leg;
                        let inn = self.gateway(k, i, c);
                        for c2 in 0..self.m {
                            let out = self.gateway(k, j, c2);
                            if inn != out {
                                load[self.local(k, inn, out)] += w / (per_leg * m);
                            }
                        }
                    }
                }
            }
        }
        load
    }
}

impl Network for Dragonfly {
    /// Every switch of the groups.
    fn switches(&self) -> usize {
        self.groups * self.a
    }

    fn switch_of(&self, node: usize) -> usize {
        node / self.per
    }

    fn hops(&self, x: usize, y: usize) -> u32 {
        let (s, t) = (x / self.per, y / self.per);
        if s == t {
            0
        } else if s / self.a == t / self.a {
            1
        } else {
            self.copy(s, t).1
        }
    }

    /// `a (a - 1)` local links per group (indexed `a^2`, the diagonal
    /// unused), then `m` per ordered pair of groups.
    fn links(&self) -> usize {
        self.groups * self.a * self.a + self.groups * self.groups * self.m
    }

    fn route(&self, x: usize, y: usize, visit: &mut dyn FnMut(usize)) {
        let (s, t) = (x / self.per, y / self.per);
        if s == t {
        } else if s / self.a == t / self.a {
            visit(self.local(s / self.a, s % self.a, t % self.a));
        } else {
            self.via(s, t, self.copy(s, t).0, visit);
        }
    }

    fn loads(&self, traffic: &[(u32, u32, u64)]) -> Vec<f64> {
        match self.routing {
            Routing::Minimal => super::route_loads(self, traffic),
            Routing::Adaptive => {
                let mut pairs = HashMap::<(u32, u32), f64>::new();
                for &(x, y, b) in traffic {
                    let (s, t) = (x as usize / self.per, y as usize / self.per);
                    if s != t {
                        *pairs.entry((s as u32, t as u32)).or_default() += b as f64;
                    }
                }
                self.adaptive(&pairs)
            }
        }
    }

    fn shape(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("groups".into(), self.groups.into());
        m.insert("switches".into(), self.switches().into());
        m.insert(
            "global_links".into(),
            (self.groups * self.groups.saturating_sub(1) / 2 * self.m).into(),
        );
        m.insert(
            "routing".into(),
            match self.routing {
                Routing::Minimal => "minimal",
                Routing::Adaptive => "adaptive",
            }
            .into(),
        );
        m
    }

    fn describe(&self) -> String {
        format!(
            "dragonfly, {} groups x {} switches, {} nodes per switch, {} links between groups, {} routing",
            self.groups,
            self.a,
            self.per,
            self.m,
            self.shape()["routing"].as_str().unwrap_or("")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_every_pair, wired};
    use super::*;

    fn dragonfly(f: serde_json::Value, nodes: usize) -> Box<dyn Network> {
        wired("dragonfly", f, nodes).unwrap()
    }

    /// A brute-force router: every copy's path written out from docs/model.md's
    /// gateway formula, the shortest kept, ties to the lowest copy.
    fn brute(a: usize, m: usize, g: usize, s: usize, t: usize) -> (u32, Vec<usize>) {
        if s == t {
            return (0, vec![]);
        }
        let local = |grp: usize, x: usize, y: usize| (grp * a + x) * a + y;
        if s / a == t / a {
            return (1, vec![local(s / a, s % a, t % a)]);
        }
        let (i, j) = (s / a, t / a);
        let mut best: Option<Vec<usize>> = None;
        for c in 0..m {
            let out =
                ((((j as isize - i as isize - 1).rem_euclid(g as isize)) as usize) * m + c) % a;
            let inn =
                ((((i as isize - j as isize - 1).rem_euclid(g as isize)) as usize) * m + c) % a;
            let mut p = Vec::new();
            if s % a != out {
                p.push(local(i, s % a, out));
            }
            p.push(g * a * a + (i * g + j) * m + c);
            if t % a != inn {
                p.push(local(j, inn, t % a));
            }
            if best.as_ref().is_none_or(|b| p.len() < b.len()) {
                best = Some(p);
            }
        }
        let p = best.unwrap();
        (p.len() as u32, p)
    }

    /// Every node pair of small dragonflies: hops and the route's links
    /// against the brute-force router, including the tie rule.
    #[test]
    fn minimal_routes_against_brute_force() {
        for (per, a, m, g) in [(2, 4, 1, 5), (1, 4, 2, 3), (1, 3, 3, 4), (2, 2, 1, 2)] {
            let nodes = per * a * g;
            let f = serde_json::json!({"nodes_per_switch": per, "switches_per_group": a,
                                       "links_between_groups": m, "groups": g});
            let d = dragonfly(f, nodes);
            check_every_pair(&*d, nodes, |x, y| brute(a, m, g, x / per, y / per).0);
            for x in 0..nodes {
                for y in 0..nodes {
                    let mut r = Vec::new();
                    d.route(x, y, &mut |l| r.push(l));
                    assert_eq!(r, brute(a, m, g, x / per, y / per).1, "{x} -> {y}");
                }
            }
        }
    }

    /// The tie rule by hand: a = 4, m = 2, G = 3. From group 0 to group
    /// 1, copy c leaves at local ((0 * 2) + c) mod 4 = c and enters group
    /// 1 at local (((0 - 1 - 1) mod 3) * 2 + c) mod 4 = 2 + c. Switch 1
    /// (local 1) to switch 6 (local 2): copy 0 takes 1 + 1 + 0 hops, copy
    /// 1 takes 0 + 1 + 1: a tie, copy 0 wins. Switch 1 to switch 7
    /// (local 3): copy 1, 1 hop.
    #[test]
    fn the_tie_rule_by_hand() {
        let f = serde_json::json!({"nodes_per_switch": 1, "switches_per_group": 4,
                                   "links_between_groups": 2, "groups": 3});
        let d = dragonfly(f, 12);
        let global = |i: usize, j: usize, c: usize| 3 * 16 + (i * 3 + j) * 2 + c;
        let route = |x, y| {
            let mut r = Vec::new();
            d.route(x, y, &mut |l| r.push(l));
            r
        };
        assert_eq!(d.hops(1, 6), 2);
        assert_eq!(route(1, 6), [4, global(0, 1, 0)]); // local 1 -> 0 of group 0
        assert_eq!(d.hops(1, 7), 1);
        assert_eq!(route(1, 7), [global(0, 1, 1)]);
        // Back from group 1 to 0: copy c leaves at local 2 + c.
        assert_eq!(route(6, 1), [global(1, 0, 0), 1]); // then local 0 -> 1
    }

    /// Without groups named, the allocation's switches fill groups.
    #[test]
    fn groups_default_to_the_allocations() {
        let f = serde_json::json!({"nodes_per_switch": 4, "switches_per_group": 8,
                                   "links_between_groups": 2});
        let d = dragonfly(f, 100); // 25 switches: 4 groups
        assert_eq!(d.shape()["groups"], 4);
        assert_eq!(d.switches(), 32);
    }

    /// Adaptive routing by hand: G = 4 groups of a = 2 switches, m = 1,
    /// one node per switch, one message of 1000 B from switch 0 (group
    /// 0) to switch 2 (group 1). b = 1000, V = 0, v = (1000)(2)/(1000 x 4)
    /// = 1/2: 500 B over the direct copy, 250 B over each of groups 2
    /// and 3.
    #[test]
    fn adaptive_spreads_by_the_ugal_formula() {
        let f = serde_json::json!({"nodes_per_switch": 1, "switches_per_group": 2,
                                   "links_between_groups": 1, "groups": 4,
                                   "routing": "adaptive"});
        let d = dragonfly(f, 8);
        let load = d.loads(&[(0, 2, 1000)]);
        let global = |i: usize, j: usize| 4 * 4 + i * 4 + j;
        assert_eq!(load[global(0, 1)], 500.0);
        assert_eq!(load[global(0, 2)], 250.0);
        assert_eq!(load[global(2, 1)], 250.0);
        assert_eq!(load[global(0, 3)], 250.0);
        assert_eq!(load[global(3, 1)], 250.0);
        // Bytes are conserved on global links: 500 + 4 x 250 = 1500 B
        // (Valiant's crossing two).
        let globals: f64 = load[16..].iter().sum();
        assert_eq!(globals, 1500.0);
        // Under a uniform all-to-all of 4000 B per group pair, no pair
        // gains by detouring (b - 2 V < 0 for every pair): all minimal.
        let mut t = vec![(0, 2, 1000)];
        for i in 0..4u32 {
            for j in (0..4).filter(|&j| j != i) {
                t.push((2 * i, 2 * j, 4000));
            }
        }
        let load = d.loads(&t);
        assert_eq!(load[global(0, 1)], 5000.0);
        assert_eq!(load[global(0, 2)], 4000.0);
        assert_eq!(load[global(3, 1)], 4000.0);
        // Minimal routing puts every byte on the one copy.
        let f = serde_json::json!({"nodes_per_switch": 1, "switches_per_group": 2,
                                   "links_between_groups": 1, "groups": 4});
        assert_eq!(dragonfly(f, 8).loads(&[(0, 2, 1000)])[global(0, 1)], 1000.0);
    }

    /// Adaptive loads against a brute-force router that writes out every
    /// path of every message with its weight (each direct copy
    /// `(1 - v) / m`, each Valiant path through group `k` over copies
    /// `c, c2` `v / ((G - 2) m^2)`), on many random messages of a small
    /// dragonfly, every node pair present.
    #[test]
    fn adaptive_loads_against_brute_force() {
        let (per, a, m, g) = (2usize, 3usize, 2usize, 5usize);
        let f = serde_json::json!({"nodes_per_switch": per, "switches_per_group": a,
                                   "links_between_groups": m, "groups": g,
                                   "routing": "adaptive"});
        let nodes = per * a * g;
        let d = dragonfly(f, nodes);
        let mut traffic = Vec::new();
        let mut x = 12345u64;
        for p in 0..nodes as u32 {
            for q in 0..nodes as u32 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Group 0 to group 1 heavy, so that pair detours.
                let heavy = p as usize / (per * a) == 0 && q as usize / (per * a) == 1;
                let bytes = if heavy { 20_000 } else { (x >> 40) % 1000 };
                traffic.push((p, q, bytes));
            }
        }
        let got = d.loads(&traffic);
        // Brute force.
        let gw = |i: usize, j: usize, c: usize| ((((j + g - i - 1) % g) * m) + c) % a;
        let local = |grp: usize, x: usize, y: usize| (grp * a + x) * a + y;
        let global = |i: usize, j: usize, c: usize| g * a * a + (i * g + j) * m + c;
        let mut bg = vec![0.0; g * g];
        for &(p, q, b) in &traffic {
            let (s, t) = (p as usize / per, q as usize / per);
            if s / a != t / a {
                bg[(s / a) * g + t / a] += b as f64;
            }
        }
        let v = |i: usize, j: usize| {
            let b = bg[i * g + j] / m as f64;
            if b == 0.0 {
                return 0.0;
            }
            let mut vv = 0.0;
            for k in 0..g {
                if k != i && k != j {
                    vv += (bg[i * g + k] + bg[k * g + j]) / (2.0 * m as f64 * (g - 2) as f64);
                }
            }
            ((b - 2.0 * vv) * (g - 2) as f64 / (b * g as f64)).clamp(0.0, 1.0)
        };
        let mut want = vec![0.0; d.links()];
        let mut detoured = 0;
        for &(p, q, b) in &traffic {
            let (s, t) = (p as usize / per, q as usize / per);
            let (i, j) = (s / a, t / a);
            let b = b as f64;
            if s == t {
                continue;
            }
            if i == j {
                want[local(i, s % a, t % a)] += b;
                continue;
            }
            let vij = v(i, j);
            detoured += (vij > 0.0) as usize;
            let mut hop = |grp: usize, x: usize, y: usize, w: f64| {
                if x != y {
                    want[local(grp, x, y)] += w;
                }
            };
            for c in 0..m {
                let w = (1.0 - vij) * b / m as f64;
                hop(i, s % a, gw(i, j, c), w);
                hop(j, gw(j, i, c), t % a, w);
            }
            for k in (0..g).filter(|&k| k != i && k != j) {
                for c in 0..m {
                    for c2 in 0..m {
                        let w = vij * b / ((g - 2) * m * m) as f64;
                        hop(i, s % a, gw(i, k, c), w);
                        hop(k, gw(k, i, c), gw(k, j, c2), w);
                        hop(j, gw(j, k, c2), t % a, w);
                    }
                }
            }
            for c in 0..m {
                want[global(i, j, c)] += (1.0 - vij) * b / m as f64;
                for k in (0..g).filter(|&k| k != i && k != j) {
                    want[global(i, k, c)] += vij * b / ((g - 2) * m) as f64;
                    want[global(k, j, c)] += vij * b / ((g - 2) * m) as f64;
                }
            }
        }
        assert!(detoured > 0 && detoured < traffic.len());
        for (l, (x, y)) in got.iter().zip(&want).enumerate() {
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "link {l}: {x} vs {y}"
            );
        }
    }

    #[test]
    fn malformed_dragonflies_are_refused() {
        let wire = |f, nodes| wired("dragonfly", f, nodes).map(|_| ()).unwrap_err().0;
        let e = wire(
            serde_json::json!({"nodes_per_switch": 4, "switches_per_group": 0,
                                        "links_between_groups": 1}),
            8,
        );
        assert!(
            e.contains("switches_per_group must be a whole number"),
            "{e}"
        );
        let e = wire(
            serde_json::json!({"nodes_per_switch": 4, "switches_per_group": 2,
                                        "links_between_groups": 1, "routing": "valiant"}),
            8,
        );
        assert!(e.contains("routing must be"), "{e}");
        let e = wire(
            serde_json::json!({"nodes_per_switch": 1, "switches_per_group": 2,
                                        "links_between_groups": 1, "groups": 2}),
            5,
        );
        assert!(e.contains("5 nodes do not fit"), "{e}");
        let e = wire(
            serde_json::json!({"nodes_per_switch": 1, "switches_per_group": 1000000,
                                        "links_between_groups": 1, "groups": 4}),
            5,
        );
        assert!(e.contains("too many links") || e.contains("at most"), "{e}");
    }
}
