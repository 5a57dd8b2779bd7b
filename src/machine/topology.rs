//! Routers and hops (MODEL.md, "Virtual machine"): node `k` hangs off
//! router `k / nodes_per_router`; the routers of the allocation form the
//! most cube-like box `gx >= gy >= gz` (smallest `gx - gz`, then smallest
//! `gx`), router `g` at `(g % gx, (g / gx) % gy, g / (gx gy))`, and `hops`
//! is the Manhattan distance (a sub-box of the torus: no wrap-around).

use super::Machine;

impl Machine {
    /// `ceil(nodes / nodes_per_router)`.
    pub fn routers(&self) -> usize {
        self.nodes.div_ceil(self.nodes_per_router)
    }

    /// The most cube-like `[gx, gy, gz]`, `gx >= gy >= gz`, with
    /// `gx gy gz = routers`.
    pub fn router_box(&self) -> [usize; 3] {
        let r = self.routers();
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

    /// Coordinates of `router` in the box `b` ([`Machine::router_box`]).
    pub fn router_coords(&self, router: usize, b: [usize; 3]) -> [usize; 3] {
        [
            router % b[0],
            (router / b[0]) % b[1],
            router / (b[0] * b[1]),
        ]
    }

    /// Router hops between two nodes; `b` is [`Machine::router_box`].
    #[inline]
    pub fn hops(&self, node_a: usize, node_b: usize, b: [usize; 3]) -> usize {
        let x = self.router_coords(node_a / self.nodes_per_router, b);
        let y = self.router_coords(node_b / self.nodes_per_router, b);
        (0..3).map(|d| x[d].abs_diff(y[d])).sum()
    }
}

#[cfg(test)]
mod tests {
    use crate::machine::test_machine as machine;

    #[test]
    fn router_boxes() {
        assert_eq!(machine(512, 16).router_box(), [8, 8, 4]); // 256 routers (MODEL.md)
        assert_eq!(machine(8, 16).router_box(), [2, 2, 1]);
        assert_eq!(machine(4096, 16).router_box(), [16, 16, 8]);
        assert_eq!(machine(64, 16).router_box(), [4, 4, 2]);
        assert_eq!(machine(3, 16).router_box(), [2, 1, 1]); // ceil(3 / 2) routers
        assert_eq!(machine(14, 16).router_box(), [7, 1, 1]); // prime
        assert_eq!(machine(24, 16).router_box(), [3, 2, 2]);
    }

    #[test]
    fn hops_on_a_2x2x1_box() {
        // 8 nodes, 4 routers at (0,0,0), (1,0,0), (0,1,0), (1,1,0).
        let m = machine(8, 16);
        let b = m.router_box();
        assert_eq!(m.hops(0, 1, b), 0); // same router
        assert_eq!(m.hops(0, 2, b), 1);
        assert_eq!(m.hops(0, 4, b), 1);
        assert_eq!(m.hops(0, 6, b), 2);
        assert_eq!(m.hops(3, 5, b), 2);
        assert_eq!(m.hops(7, 0, b), 2);
    }

    #[test]
    fn hops_on_an_8x8x4_box() {
        let m = machine(512, 16);
        let b = m.router_box();
        // Node 511 is on router 255 at (7, 7, 3): 7 + 7 + 3 hops from router 0.
        assert_eq!(m.router_coords(255, b), [7, 7, 3]);
        assert_eq!(m.hops(0, 511, b), 17);
        // Router 9 = (1, 1, 0), router 64 = (0, 0, 1), router 73 = (1, 1, 1).
        assert_eq!(m.hops(18, 128, b), 3);
        assert_eq!(m.hops(146, 129, b), 2);
        assert_eq!(m.hops(146, 147, b), 0);
    }
}
