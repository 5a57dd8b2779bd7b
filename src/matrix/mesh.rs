//! The structured hexahedral meshes behind the elasticity generators, as
//! a finite element code would hold them: a coarse base mesh refined
//! uniformly (every hexahedron into 8), nodes numbered lexicographically
//! (x fastest), `block` unknowns per node interleaved. A partition of the
//! elements ([`crate::partition::mfem`]) needs it.

/// A box of hexahedra, `base` refined `refinements` times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexMesh {
    /// Elements of the base mesh per dimension (MFEM's beam-hex: 8 x 1 x 1).
    pub base: [usize; 3],
    /// Uniform refinements from the base mesh to this one.
    pub refinements: u32,
    /// Unknowns per node (3 for elasticity).
    pub block: usize,
    /// The nodes on `x = 0` have no rows (their unknowns were removed,
    /// not eliminated in place).
    pub without_x0: bool,
}

impl HexMesh {
    /// Elements per dimension after `k` refinements of the base.
    pub fn elements_at(&self, k: u32) -> [usize; 3] {
        self.base.map(|b| b << k)
    }

    /// Elements per dimension of this mesh.
    pub fn elements(&self) -> [usize; 3] {
        self.elements_at(self.refinements)
    }

    /// Nodes per dimension.
    pub fn nodes(&self) -> [usize; 3] {
        self.elements().map(|e| e + 1)
    }

    /// The first row of node `(x, y, z)`'s unknowns, `None` for a node
    /// without rows.
    pub fn node_row(&self, x: usize, y: usize, z: usize) -> Option<usize> {
        let [nx, ny, _] = self.nodes();
        if self.without_x0 {
            (x > 0).then(|| ((z * ny + y) * (nx - 1) + x - 1) * self.block)
        } else {
            Some(((z * ny + y) * nx + x) * self.block)
        }
    }

    /// Nodes that have rows, in row order.
    pub fn node_count(&self) -> usize {
        let [nx, ny, nz] = self.nodes();
        if self.without_x0 {
            (nx - 1) * ny * nz
        } else {
            nx * ny * nz
        }
    }

    /// The node of row-node `k` (the `k`-th node with rows): `(x, y, z)`.
    pub fn node_at(&self, k: usize) -> [usize; 3] {
        let [nx, ny, _] = self.nodes();
        let w = if self.without_x0 { nx - 1 } else { nx };
        let x = k % w + usize::from(self.without_x0);
        [x, (k / w) % ny, k / (w * ny)]
    }

    /// The mesh of `gen:elasticity3d:N`: `N = b 2^r` with `b` odd is the
    /// base `b^3` refined `r` times; the clamped face's nodes have no rows.
    pub fn elasticity3d(n: usize) -> HexMesh {
        let r = n.trailing_zeros();
        let b = n >> r;
        HexMesh {
            base: [b, b, b],
            refinements: r,
            block: 3,
            without_x0: true,
        }
    }

    /// The mesh of `gen:beam:R`: MFEM's beam-hex (8 x 1 x 1 on \[0,8\] x
    /// \[0,1\] x \[0,1\]) refined `r` times; every node has rows.
    pub fn beam(r: u32) -> HexMesh {
        HexMesh {
            base: [8, 1, 1],
            refinements: r,
            block: 3,
            without_x0: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_rows_and_back() {
        let b = HexMesh::beam(1);
        assert_eq!((b.elements(), b.nodes()), ([16, 2, 2], [17, 3, 3]));
        assert_eq!(b.node_row(0, 0, 0), Some(0));
        assert_eq!(b.node_row(1, 0, 0), Some(3));
        assert_eq!(b.node_row(0, 1, 0), Some(3 * 17));
        assert_eq!(b.node_count(), 17 * 9);
        let e = HexMesh::elasticity3d(12);
        assert_eq!((e.base, e.refinements), ([3, 3, 3], 2));
        assert_eq!(e.node_row(0, 3, 3), None);
        assert_eq!(e.node_row(1, 0, 0), Some(0));
        assert_eq!(e.node_row(1, 1, 0), Some(3 * 12));
        for m in [b, e] {
            for k in 0..m.node_count() {
                let [x, y, z] = m.node_at(k);
                assert_eq!(m.node_row(x, y, z), Some(k * m.block));
            }
        }
    }
}
