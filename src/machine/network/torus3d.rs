//! `torus3d`: a full 3D torus with wrap-around (docs/machines.md, "Networks and machine presets"),
//! as Cray's Gemini (Blue Waters, Titan) and Fujitsu's Tofu wire a whole
//! machine. Switch `g` sits at `(g % X, (g / X) % Y, g / (X Y))`;
//! `hops = sum_d min(|d_d|, D_d - |d_d|)`. Routes go in x, then y, then z,
//! each dimension the short way round (the positive way on a tie, as
//! Gemini's dimension-order routing breaks it), one directed link per
//! hop. Contention: `delta` times the bytes on the busiest link.

use serde_json::{Map, Value};

use super::{positive, positive_list, Kind, Network};
use crate::machine::Invalid;

/// The registry entry.
pub static KIND: Kind = Kind {
    name: "torus3d",
    about: "a full 3D torus of dims [X, Y, Z] switches, wrap-around, dimension-order routes the short way",
    fields: &["nodes_per_switch", "dims"],
    build,
    size: |f| {
        let per = positive(f, "nodes_per_switch").ok()?;
        let d = positive_list(f, "dims", Some(3..=3)).ok()?;
        d.iter().try_fold(per, |acc, &x| acc.checked_mul(x))
    },
    nodes_per_switch: |f| positive(f, "nodes_per_switch").unwrap_or(1),
};

fn build(fields: &Map<String, Value>, nodes: usize) -> Result<Box<dyn Network>, Invalid> {
    let per = positive(fields, "nodes_per_switch")?;
    let d = positive_list(fields, "dims", Some(3..=3))?;
    let dims = [d[0], d[1], d[2]];
    let holds = dims
        .iter()
        .try_fold(1usize, |acc, &x| acc.checked_mul(x))
        .filter(|&s| s <= super::MAX_NODES)
        .ok_or_else(|| Invalid(format!("dims {d:?} hold too many switches")))?;
    let switches = nodes.div_ceil(per);
    if switches > holds {
        return Err(Invalid(format!(
            "{nodes} nodes need {switches} switches, more than the torus of dims {d:?} holds ({holds})"
        )));
    }
    Ok(Box::new(Torus3d { per, dims, nodes }))
}

/// A full torus of `dims` switches, `per` nodes on each.
#[derive(Clone, Debug)]
pub struct Torus3d {
    per: usize,
    dims: [usize; 3],
    nodes: usize,
}

impl Torus3d {
    /// Coordinates of switch `g`.
    fn coords(&self, g: usize) -> [usize; 3] {
        let [x, y, _] = self.dims;
        [g % x, (g / x) % y, g / (x * y)]
    }

    fn index(&self, c: [usize; 3]) -> usize {
        c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])
    }

    /// Steps from `a` to `b` along a ring of `n`: signed, the short way,
    /// `+` on a tie.
    fn steps(a: usize, b: usize, n: usize) -> isize {
        let up = (b + n - a) % n;
        if up <= n - up {
            up as isize
        } else {
            -((n - up) as isize)
        }
    }
}

impl Network for Torus3d {
    /// Every switch of the torus.
    fn switches(&self) -> usize {
        self.dims.iter().product()
    }

    fn switch_of(&self, node: usize) -> usize {
        node / self.per
    }

    fn hops(&self, a: usize, b: usize) -> u32 {
        let (x, y) = (self.coords(a / self.per), self.coords(b / self.per));
        (0..3)
            .map(|d| Self::steps(x[d], y[d], self.dims[d]).unsigned_abs() as u32)
            .sum()
    }

    /// Six directed links per switch.
    fn links(&self) -> usize {
        self.switches() * 6
    }

    /// Link (switch, dimension, direction) at `(g * 3 + d) * 2 + up`.
    fn route(&self, a: usize, b: usize, visit: &mut dyn FnMut(usize)) {
        let mut c = self.coords(a / self.per);
        let t = self.coords(b / self.per);
        for d in 0..3 {
            let n = self.dims[d];
            let s = Self::steps(c[d], t[d], n);
            for _ in 0..s.unsigned_abs() {
                let up = s > 0;
                visit((self.index(c) * 3 + d) * 2 + up as usize);
                c[d] = if up {
                    (c[d] + 1) % n
                } else {
                    (c[d] + n - 1) % n
                };
            }
        }
    }

    fn shape(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("switches".into(), self.switches().into());
        m.insert("machine_nodes".into(), self.nodes.into());
        m
    }

    fn describe(&self) -> String {
        format!(
            "torus3d {:?} ({} switches), {} nodes per switch",
            self.dims,
            self.switches(),
            self.per
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{check_every_pair, wired};
    use super::*;

    fn torus(per: usize, dims: [usize; 3], nodes: usize) -> Box<dyn Network> {
        let f = serde_json::json!({"nodes_per_switch": per, "dims": dims});
        wired("torus3d", f, nodes).unwrap()
    }

    /// Every node pair of a 4 x 3 x 2 torus, 2 nodes per switch: hops
    /// against the shortest way round each ring by brute force (both
    /// ways counted), and the route as long as the hops.
    #[test]
    fn hops_wrap_around_against_brute_force() {
        let t = torus(2, [4, 3, 2], 48);
        assert_eq!((t.switches(), t.links()), (24, 144));
        let ring = |a: usize, b: usize, n: usize| {
            (0..n)
                .filter(|k| (a + k) % n == b || (b + k) % n == a)
                .min()
                .unwrap() as u32
        };
        let hops = |a: usize, b: usize| {
            let (x, y) = (a / 2, b / 2);
            ring(x % 4, y % 4, 4) + ring((x / 4) % 3, (y / 4) % 3, 3) + ring(x / 12, y / 12, 2)
        };
        check_every_pair(&*t, 48, hops);
        for a in 0..48 {
            for b in 0..48 {
                let mut n = 0;
                t.route(a, b, &mut |_| n += 1);
                assert_eq!(n, t.hops(a, b));
            }
        }
        // Wrap-around: switch 0 (0,0,0) to switch 3 (3,0,0) is one hop
        // down x, over link (0, x, down).
        assert_eq!(t.hops(0, 6), 1);
        let mut l = Vec::new();
        t.route(0, 6, &mut |x| l.push(x));
        assert_eq!(l, [0]);
        // A tie on a ring of 4 (2 each way) goes up.
        let mut l = Vec::new();
        t.route(0, 4, &mut |x| l.push(x));
        assert_eq!(l, [1, 3 * 2 + 1]); // switches 0 and 1, x, up
    }

    /// Loads: two messages over one link add up; the wrap-around link
    /// carries the short way's bytes.
    #[test]
    fn loads_add_on_shared_links() {
        let t = torus(1, [4, 1, 1], 4);
        // 1 -> 3: a tie, up through 2; 2 -> 3 up; 0 -> 3 down the wrap.
        let load = t.loads(&[(1, 3, 50), (2, 3, 100), (0, 3, 7)]);
        assert_eq!(load[(2 * 3) * 2 + 1], 150.0); // switch 2, x, up
        assert_eq!(load[(3) * 2 + 1], 50.0); // switch 1, x, up
        assert_eq!(load[0], 7.0); // switch 0, x, down
        assert_eq!(load.iter().sum::<f64>(), 207.0);
    }

    #[test]
    fn malformed_tori_are_refused() {
        let wire = |f, nodes| wired("torus3d", f, nodes).map(|_| ()).unwrap_err().0;
        let e = wire(
            serde_json::json!({"nodes_per_switch": 2, "dims": [2, 2, 2]}),
            17,
        );
        assert!(
            e.contains("17 nodes do not fit the torus3d machine's 16 nodes"),
            "{e}"
        );
        let e = wire(
            serde_json::json!({"nodes_per_switch": 2, "dims": [2, 0, 2]}),
            4,
        );
        assert!(e.contains("dims must hold whole numbers from 1"), "{e}");
        let e = wire(
            serde_json::json!({"nodes_per_switch": 2, "dims": [2, 2]}),
            4,
        );
        assert!(e.contains("dims must list 3 numbers"), "{e}");
        let e = wire(serde_json::json!({"nodes_per_switch": 2}), 4);
        assert!(e.contains("dims is missing"), "{e}");
    }
}
