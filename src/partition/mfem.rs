//! MFEM's partition of a hexahedral mesh among ranks, as the EuroMPI'18
//! runs got their rows (RAPtor's `mfem_linear_elasticity.cpp` on MFEM of
//! 2018):
//!
//! 1. The serial mesh is refined until every rank can get an element
//!    (the fewest refinements giving at least `ranks` elements; or `K`).
//! 2. `ParMesh(comm, mesh)` partitions its elements with METIS
//!    (`Mesh::GeneratePartitioning`, `part_method` 1: `METIS_PartGraphKway`
//!    on the element graph, elements adjacent through a face, neighbour
//!    lists in decreasing order, `METIS_OPTION_CONTIG`).
//! 3. The remaining refinements run in parallel: a child stays on its
//!    parent's rank.
//! 4. A node on several ranks' elements belongs to its group's master,
//!    which `GroupTopology::Create` picks with `PickElementInSet`: the
//!    first of the sorted set, the lowest rank.
//! 5. hypre numbers the rows of rank 0, then rank 1, and so on.
//!
//! Within a rank rows keep the mesh's lexicographic order (MFEM's own
//! local order, the refined `ParMesh`'s vertices, differs; it changes no
//! message of level 0). The elements are numbered lexicographically, not
//! in MFEM's refinement order, so METIS's cut differs in detail.

use rayon::prelude::*;

use super::PartitionError;
use crate::matrix::mesh::HexMesh;

/// The rows of a mesh's matrix, renumbered rank by rank.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshPartition {
    /// Serial refinements before the partition.
    pub serial_refinements: u32,
    /// Rank of each element METIS partitioned (the serial mesh's,
    /// lexicographic).
    pub element_part: Vec<u32>,
    /// Owner rank of each node that has rows, in row-node order.
    pub node_owner: Vec<u32>,
    /// New index of each row-node: rank by rank, mesh order within one.
    pub new_of_old: Vec<u32>,
    /// First new row of each rank, and the row count (`ranks + 1`).
    pub starts: Vec<usize>,
}

impl MeshPartition {
    /// Each row's owner in the generator's row order (`block` unknowns
    /// per mesh node), for a partition file.
    pub fn row_owners(&self, block: usize, ranks: usize) -> super::Partition {
        let owner = (self.node_owner.iter())
            .flat_map(|&o| std::iter::repeat_n(o, block))
            .collect();
        super::Partition { owner, ranks }
    }
}

/// The serial refinements: `k` when given (at most the mesh's, and giving
/// at least one element per rank), else the fewest that give every rank
/// an element.
pub fn serial_refinements(
    mesh: &HexMesh,
    ranks: usize,
    k: Option<u32>,
) -> Result<u32, PartitionError> {
    let count = |k: u32| -> usize { mesh.elements_at(k).iter().product() };
    match k {
        Some(k) if k > mesh.refinements => Err(PartitionError::Mesh(format!(
            "request.serial_refinements {k}: the mesh is refined {} times in all",
            mesh.refinements
        ))),
        Some(k) if count(k) < ranks => Err(PartitionError::Mesh(format!(
            "request.serial_refinements {k}: {} elements for {ranks} ranks; every rank needs one",
            count(k)
        ))),
        Some(k) => Ok(k),
        None => (0..=mesh.refinements)
            .find(|&k| count(k) >= ranks)
            .ok_or_else(|| {
                PartitionError::Mesh(format!(
                    "the mesh has {} elements, fewer than the {ranks} ranks",
                    count(mesh.refinements)
                ))
            }),
    }
}

/// METIS k-way over the elements of `mesh` refined `k` times, as MFEM
/// calls it: element `(x, y, z)` is `(z ny + y) nx + x`.
fn element_parts(mesh: &HexMesh, k: u32, ranks: usize) -> Result<Vec<u32>, PartitionError> {
    let [nx, ny, nz] = mesh.elements_at(k);
    let n = nx * ny * nz;
    if ranks <= 1 {
        return Ok(vec![0; n]);
    }
    let mut xadj: Vec<metis::Idx> = Vec::with_capacity(n + 1);
    let mut adjncy: Vec<metis::Idx> = Vec::with_capacity(6 * n);
    xadj.push(0);
    for e in 0..n {
        let (x, y, z) = (e % nx, (e / nx) % ny, e / (nx * ny));
        let mut nb: Vec<metis::Idx> = Vec::with_capacity(6);
        if x > 0 {
            nb.push((e - 1) as metis::Idx);
        }
        if x + 1 < nx {
            nb.push((e + 1) as metis::Idx);
        }
        if y > 0 {
            nb.push((e - nx) as metis::Idx);
        }
        if y + 1 < ny {
            nb.push((e + nx) as metis::Idx);
        }
        if z > 0 {
            nb.push((e - nx * ny) as metis::Idx);
        }
        if z + 1 < nz {
            nb.push((e + nx * ny) as metis::Idx);
        }
        // "Sort in decreasing order, as in previous versions of MFEM."
        nb.sort_unstable_by(|a, b| b.cmp(a));
        adjncy.extend(nb);
        xadj.push(adjncy.len() as metis::Idx);
    }
    if ranks == n {
        return Ok((0..n as u32).collect());
    }
    let mut part = vec![0 as metis::Idx; n];
    let _one_at_a_time = super::metis_lock();
    metis::Graph::new(1, ranks as metis::Idx, &xadj, &adjncy)
        .map_err(|e| PartitionError::Metis(e.to_string()))?
        .set_option(metis::option::Contig(true))
        .part_kway(&mut part)
        .map_err(|e| PartitionError::Metis(e.to_string()))?;
    Ok(part.into_iter().map(|p| p as u32).collect())
}

/// MFEM's partition of `mesh` into `ranks` (module doc), `k` serial
/// refinements or the fewest that serve every rank.
pub fn partition(
    mesh: &HexMesh,
    ranks: usize,
    k: Option<u32>,
) -> Result<MeshPartition, PartitionError> {
    let k = serial_refinements(mesh, ranks, k)?;
    let parts = element_parts(mesh, k, ranks)?;
    let [cx, cy, _] = mesh.elements_at(k);
    let coarse = mesh.elements_at(k);
    let shift = mesh.refinements - k;
    // The coarse elements around fine node coordinate c along one
    // dimension of n coarse elements: one, or two on a coarse face.
    let around = move |c: usize, n: usize| {
        let q = c >> shift;
        let on_face = c & ((1 << shift) - 1) == 0;
        let lo = if on_face && q > 0 {
            q - 1
        } else {
            q.min(n - 1)
        };
        let hi = q.min(n - 1);
        lo..=hi
    };
    let nodes = mesh.node_count();
    let node_owner: Vec<u32> = (0..nodes)
        .into_par_iter()
        .map(|v| {
            let [x, y, z] = mesh.node_at(v);
            let mut best = u32::MAX;
            for ez in around(z, coarse[2]) {
                for ey in around(y, coarse[1]) {
                    for ex in around(x, coarse[0]) {
                        best = best.min(parts[(ez * cy + ey) * cx + ex]);
                    }
                }
            }
            best
        })
        .collect();
    // Rank by rank, mesh order within a rank (a counting sort).
    let mut count = vec![0usize; ranks + 1];
    for &o in &node_owner {
        count[o as usize + 1] += 1;
    }
    for r in 0..ranks {
        count[r + 1] += count[r];
    }
    let starts: Vec<usize> = count.iter().map(|&c| c * mesh.block).collect();
    let mut next = count;
    let new_of_old = node_owner
        .iter()
        .map(|&o| {
            let k = next[o as usize];
            next[o as usize] += 1;
            k as u32
        })
        .collect();
    Ok(MeshPartition {
        serial_refinements: k,
        element_part: parts,
        node_owner,
        new_of_old,
        starts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_refinements_serve_every_rank() {
        let beam = HexMesh::beam(5);
        // 8 elements, then 64, 512, 4096, 32768.
        assert_eq!(serial_refinements(&beam, 8192, None).unwrap(), 4);
        assert_eq!(serial_refinements(&beam, 128, None).unwrap(), 2);
        assert_eq!(serial_refinements(&beam, 8, None).unwrap(), 0);
        assert_eq!(serial_refinements(&beam, 64, Some(5)).unwrap(), 5);
        let e = serial_refinements(&beam, 8192, Some(3))
            .unwrap_err()
            .to_string();
        assert!(e.contains("4096 elements for 8192 ranks"), "{e}");
        let e = serial_refinements(&beam, 4, Some(6))
            .unwrap_err()
            .to_string();
        assert!(e.contains("refined 5 times in all"), "{e}");
        let e = serial_refinements(&HexMesh::beam(1), 100, None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("64 elements, fewer than the 100 ranks"), "{e}");
    }

    #[test]
    fn children_inherit_and_shared_nodes_go_to_the_lowest_rank() {
        // The beam refined twice, partitioned after one refinement: 64
        // coarse elements of side 1/2 into 8 ranks.
        let mesh = HexMesh::beam(2);
        let p = partition(&mesh, 8, Some(1)).unwrap();
        assert_eq!((p.serial_refinements, p.element_part.len()), (1, 64));
        let parts = &p.element_part;
        // Balanced within METIS's 3%: 8 elements each.
        let mut sizes = [0usize; 8];
        for &q in parts {
            sizes[q as usize] += 1;
        }
        assert!(sizes.iter().all(|&s| s == 8), "{sizes:?}");
        // Brute force: a node's owner is the lowest rank among the fine
        // elements that hold it, each fine element on its parent's rank.
        let [fx, fy, fz] = mesh.elements();
        for v in 0..mesh.node_count() {
            let [x, y, z] = mesh.node_at(v);
            let mut ranks = Vec::new();
            for ez in z.saturating_sub(1)..=z.min(fz - 1) {
                for ey in y.saturating_sub(1)..=y.min(fy - 1) {
                    for ex in x.saturating_sub(1)..=x.min(fx - 1) {
                        ranks.push(parts[((ez / 2) * 2 + ey / 2) * 16 + ex / 2]);
                    }
                }
            }
            assert_eq!(p.node_owner[v], *ranks.iter().min().unwrap(), "node {v}");
        }
        // Renumbering: rank by rank, mesh order within a rank, blocks of
        // whole nodes.
        assert_eq!(p.starts[0], 0);
        assert_eq!(*p.starts.last().unwrap(), 3 * mesh.node_count());
        for v in 0..mesh.node_count() {
            let o = p.node_owner[v] as usize;
            let new = 3 * p.new_of_old[v] as usize;
            assert!((p.starts[o]..p.starts[o + 1]).contains(&new));
        }
        for w in (0..mesh.node_count()).collect::<Vec<_>>().windows(2) {
            if p.node_owner[w[0]] == p.node_owner[w[1]] {
                assert_eq!(p.new_of_old[w[0]] + 1, p.new_of_old[w[1]]);
            }
        }
        let mut seen = p.new_of_old.clone();
        seen.sort_unstable();
        assert!(seen.iter().enumerate().all(|(k, &n)| n as usize == k));
    }

    #[test]
    fn elasticity3d_meshes_partition_too() {
        // N = 12 = 3 x 2^2: base 3^3, 27 elements serve 27 ranks unrefined.
        let mesh = HexMesh::elasticity3d(12);
        let p = partition(&mesh, 16, None).unwrap();
        assert_eq!((p.serial_refinements, p.element_part.len()), (0, 27));
        assert_eq!(*p.starts.last().unwrap(), 3 * 12 * 13 * 13);
        assert_eq!(p.starts.len(), 17);
    }
}
