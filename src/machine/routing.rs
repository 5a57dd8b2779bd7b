//! Dimension-order routes over the router box: a network message goes in
//! x, then y, then z, with no wrap-around (as the hop counts of
//! [`super::Machine::hops`]), crossing one directed link per hop.

use super::Places;

impl Places {
    /// Number of directed links of the router box: six per router.
    pub fn links(&self) -> usize {
        let b = self.router_box;
        b[0] * b[1] * b[2] * 6
    }

    /// Calls `visit` with each directed link (an index below
    /// [`Places::links`]) that the route from rank `from` to rank `to`
    /// crosses, in order. Ranks on one router cross none.
    pub fn route(&self, from: u32, to: u32, mut visit: impl FnMut(usize)) {
        let b = self.router_box;
        // Link (router, dimension, direction) at (r * 3 + d) * 2 + up.
        let index = |c: [u32; 3]| c[0] as usize + b[0] * (c[1] as usize + b[1] * c[2] as usize);
        let mut c = self.coords[self.node_of(from) as usize];
        let target = self.coords[self.node_of(to) as usize];
        for d in 0..3 {
            while c[d] != target[d] {
                let up = target[d] > c[d];
                visit((index(c) * 3 + d) * 2 + up as usize);
                if up {
                    c[d] += 1;
                } else {
                    c[d] -= 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::machine::Machine;

    #[test]
    fn routes_follow_x_then_y_then_z_one_link_per_hop() {
        // 8 x 8 x 4 routers: rank 0 (router (0,0,0)) to node 511's rank
        // (router (7,7,3)) crosses 17 links, first the +x ones.
        let m = Machine::bluewaters();
        let p = m.places();
        assert_eq!(p.links(), 256 * 6);
        let mut links = Vec::new();
        p.route(0, 511 * 16, |l| links.push(l));
        assert_eq!(links.len(), 17);
        assert_eq!(links[0], 1); // router 0, dimension x, up
        assert_eq!(links[1], 3 * 2 + 1); // router 1: (1 * 3 + x) * 2 + up
        assert_eq!(links[7], (7 * 3 + 1) * 2 + 1); // router (7,0,0), y, up
        let mut back = Vec::new();
        p.route(511 * 16, 0, |l| back.push(l));
        assert_eq!(back.len(), 17);
        assert!(back.iter().all(|l| l % 2 == 0)); // all down
        let mut none = 0;
        p.route(0, 31, |_| none += 1); // nodes 0 and 1: one router
        assert_eq!(none, 0);
    }
}
