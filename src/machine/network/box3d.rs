//! `box3d`: Blue Waters' Gemini network as the EuroMPI'18 model sees it
//! (docs/model.md, "Virtual machine"). Node `k` hangs off router
//! `k / nodes_per_switch`; the routers of the allocation form the most
//! cube-like box `gx >= gy >= gz` (smallest `gx - gz`, then smallest
//! `gx`), router `g` at `(g % gx, (g / gx) % gy, g / (gx gy))`; `hops` is
//! the Manhattan distance (a sub-box of the torus: no wrap-around), and
//! routes go in x, then y, then z, one directed link per hop. Contention
//! is the paper's `delta h^3 B / routers` (eqs. 5 and 7).

use serde_json::{Map, Value};

use super::{positive, Kind, Network, Traffic};
use crate::machine::Invalid;

/// The registry entry.
pub static KIND: Kind = Kind {
    name: "box3d",
    about: "routers in the most cube-like box, Manhattan hops, dimension-order routes (Blue Waters' Gemini)",
    fields: &["nodes_per_switch"],
    build,
    size: |_| None,
    nodes_per_switch: |f| positive(f, "nodes_per_switch").unwrap_or(1),
};

fn build(fields: &Map<String, Value>, nodes: usize) -> Result<Box<dyn Network>, Invalid> {
    let per = positive(fields, "nodes_per_switch")?;
    let routers = nodes.div_ceil(per);
    Ok(Box::new(Box3d::with_dims(nodes, per, router_box(routers))))
}

/// The most cube-like `[gx, gy, gz]`, `gx >= gy >= gz`, with
/// `gx gy gz = routers`.
pub fn router_box(routers: usize) -> [usize; 3] {
    let r = routers;
    let mut best = [r, 1, 1];
    let mut gz = 1;
    while gz * gz * gz <= r {
        if r.is_multiple_of(gz) {
            let mut gy = gz;
            while gy * gy * gz <= r {
                if (r / gz).is_multiple_of(gy) {
                    let gx = r / (gz * gy);
                    let better = (gx - gz, gx) < (best[0] - best[2], best[0]);
                    if gx >= gy && better {
                        best = [gx, gy, gz];
                    }
                }
                gy += 1;
            }
        }
        gz += 1;
    }
    best
}

/// The box of one allocation: its dimensions and every node's router
/// coordinates (hops are asked for millions of messages).
#[derive(Clone, Debug)]
pub struct Box3d {
    nodes_per_switch: usize,
    dims: [usize; 3],
    coords: Vec<[u32; 3]>,
}

impl Box3d {
    /// `nodes` nodes, `nodes_per_switch` per router, routers in a box of
    /// `dims` (which must hold them).
    pub fn with_dims(nodes: usize, nodes_per_switch: usize, dims: [usize; 3]) -> Box3d {
        let coords = (0..nodes)
            .map(|n| {
                let g = n / nodes_per_switch;
                [
                    g % dims[0],
                    (g / dims[0]) % dims[1],
                    g / (dims[0] * dims[1]),
                ]
                .map(|c| c as u32)
            })
            .collect();
        Box3d {
            nodes_per_switch,
            dims,
            coords,
        }
    }

    /// `[gx, gy, gz]`.
    pub fn dims(&self) -> [usize; 3] {
        self.dims
    }

    /// Router coordinates of `node`.
    pub fn coords(&self, node: usize) -> [u32; 3] {
        self.coords[node]
    }

    fn router_index(&self, c: [u32; 3]) -> usize {
        let b = self.dims;
        c[0] as usize + b[0] * (c[1] as usize + b[1] * c[2] as usize)
    }
}

impl Network for Box3d {
    fn switches(&self) -> usize {
        self.coords.len().div_ceil(self.nodes_per_switch)
    }

    fn switch_of(&self, node: usize) -> usize {
        node / self.nodes_per_switch
    }

    #[inline]
    fn hops(&self, a: usize, b: usize) -> u32 {
        let (x, y) = (self.coords[a], self.coords[b]);
        (0..3).map(|d| x[d].abs_diff(y[d])).sum()
    }

    /// Six directed links per router of the box.
    fn links(&self) -> usize {
        self.dims.iter().product::<usize>() * 6
    }

    /// Link (router, dimension, direction) at `(r * 3 + d) * 2 + up`.
    fn route(&self, a: usize, b: usize, visit: &mut dyn FnMut(usize)) {
        let mut c = self.coords[a];
        let target = self.coords[b];
        for d in 0..3 {
            while c[d] != target[d] {
                let up = target[d] > c[d];
                visit((self.router_index(c) * 3 + d) * 2 + up as usize);
                if up {
                    c[d] += 1;
                } else {
                    c[d] -= 1;
                }
            }
        }
    }

    /// `delta h^3 B / routers` (eqs. 5, 7; the paper's `2 h^3 b ppn` with
    /// `b = B / P`), multiplied in this order.
    fn contention(&self, delta: f64, t: &Traffic) -> f64 {
        let h = t.avg_hops;
        delta * h * h * h * t.bytes as f64 / self.switches() as f64
    }

    fn shape(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("switches".into(), self.switches().into());
        m.insert("router_box".into(), self.dims.to_vec().into());
        m
    }

    fn describe(&self) -> String {
        format!(
            "box3d, {} nodes per router, routers {:?}",
            self.nodes_per_switch, self.dims
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn net(nodes: usize, per: usize) -> Box3d {
        Box3d::with_dims(nodes, per, router_box(nodes.div_ceil(per)))
    }

    #[test]
    fn router_boxes() {
        assert_eq!(router_box(256), [8, 8, 4]); // 512 nodes (docs/model.md)
        assert_eq!(router_box(4), [2, 2, 1]);
        assert_eq!(router_box(2048), [16, 16, 8]);
        assert_eq!(router_box(32), [4, 4, 2]);
        assert_eq!(router_box(2), [2, 1, 1]); // ceil(3 / 2) routers
        assert_eq!(router_box(7), [7, 1, 1]); // prime
        assert_eq!(router_box(12), [3, 2, 2]);
    }

    #[test]
    fn hops_on_a_2x2x1_box() {
        // 8 nodes, 4 routers at (0,0,0), (1,0,0), (0,1,0), (1,1,0).
        let b = net(8, 2);
        assert_eq!(b.hops(0, 1), 0); // same router
        assert_eq!(b.hops(0, 2), 1);
        assert_eq!(b.hops(0, 4), 1);
        assert_eq!(b.hops(0, 6), 2);
        assert_eq!(b.hops(3, 5), 2);
        assert_eq!(b.hops(7, 0), 2);
    }

    #[test]
    fn hops_on_an_8x8x4_box() {
        let b = net(512, 2);
        // Node 511 is on router 255 at (7, 7, 3): 7 + 7 + 3 hops from router 0.
        assert_eq!(b.coords(511), [7, 7, 3]);
        assert_eq!(b.hops(0, 511), 17);
        // Router 9 = (1, 1, 0), router 64 = (0, 0, 1), router 73 = (1, 1, 1).
        assert_eq!(b.hops(18, 128), 3);
        assert_eq!(b.hops(146, 129), 2);
        assert_eq!(b.hops(146, 147), 0);
    }

    #[test]
    fn routes_follow_x_then_y_then_z_one_link_per_hop() {
        // 8 x 8 x 4 routers: node 0 (router (0,0,0)) to node 511 (router
        // (7,7,3)) crosses 17 links, first the +x ones.
        let b = net(512, 2);
        assert_eq!(b.links(), 256 * 6);
        let mut links = Vec::new();
        b.route(0, 511, &mut |l| links.push(l));
        assert_eq!(links.len(), 17);
        assert_eq!(links[0], 1); // router 0, dimension x, up
        assert_eq!(links[1], 3 * 2 + 1); // router 1: (1 * 3 + x) * 2 + up
        assert_eq!(links[7], (7 * 3 + 1) * 2 + 1); // router (7,0,0), y, up
        let mut back = Vec::new();
        b.route(511, 0, &mut |l| back.push(l));
        assert_eq!(back.len(), 17);
        assert!(back.iter().all(|l| l % 2 == 0)); // all down
        let mut none = 0;
        b.route(0, 1, &mut |_| none += 1); // one router
        assert_eq!(none, 0);
    }

    /// Every node pair: the route crosses as many links as there are
    /// hops, and no link twice.
    #[test]
    fn routes_are_as_long_as_the_hops() {
        let b = net(24, 1);
        assert_eq!(b.dims(), [4, 3, 2]);
        for x in 0..24 {
            for y in 0..24 {
                let mut seen = Vec::new();
                b.route(x, y, &mut |l| seen.push(l));
                assert_eq!(seen.len() as u32, b.hops(x, y));
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len() as u32, b.hops(x, y));
                assert!(seen.iter().all(|&l| l < b.links()));
            }
        }
    }
}
