//! Ways to partition the fine rows among the ranks (`--partition NAME`):
//! - `contiguous`: balanced blocks of rows (the default, docs/model.md);
//! - `contiguous-nnz`: contiguous blocks balanced by nonzeros;
//! - `random`: a seeded random balanced assignment;
//! - `metis`: METIS k-way on the graph of `A + A^T` without the diagonal,
//!   minimising the edge cut or the communication volume;
//! - `metis-nodes`: METIS into the nodes first, then each node's rows into
//!   its ranks, so that what METIS minimises first is off-node traffic.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use clap::ValueEnum;

use super::{Partition, PartitionError};
use crate::machine::Machine;
use crate::matrix::Csr;

/// What METIS minimises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Objective {
    /// The edge cut.
    #[default]
    Cut,
    /// The total communication volume.
    Vol,
}

/// A partitioning method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// Balanced blocks of consecutive rows (the default).
    Contiguous,
    /// Consecutive rows, blocks balanced by nonzeros.
    ContiguousNnz,
    /// A seeded random balanced assignment.
    Random,
    /// METIS k-way on the graph of A + A^T.
    Metis,
    /// METIS into the nodes, then each node into its ranks.
    MetisNodes,
    /// MFEM's ParMesh partition of a mesh generator's elements (gen:beam,
    /// gen:elasticity3d): METIS k-way over the serially refined mesh,
    /// children on their parent's rank, a shared node to the lowest rank,
    /// rows renumbered rank by rank (see --serial-refinements).
    Mfem,
}

/// The knobs of the methods that have any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MethodOptions {
    /// Seed of `random`.
    pub seed: u64,
    /// What `metis` and `metis-nodes` minimise.
    pub objective: Objective,
}

impl Method {
    /// Its command-line name.
    pub fn name(self) -> String {
        crate::value_name(&self)
    }
}

/// Partition the rows of `a` among the ranks of `m`.
pub fn partition(
    a: &Csr,
    m: &Machine,
    method: Method,
    o: &MethodOptions,
) -> Result<Partition, PartitionError> {
    let ranks = m.ranks();
    let objective = o.objective;
    match method {
        Method::Contiguous => Ok(Partition::contiguous(a.rows(), ranks)),
        Method::ContiguousNnz => Ok(contiguous_nnz(a, ranks)),
        Method::Random => Ok(random(a.rows(), ranks, o.seed)),
        Method::Metis => {
            let g = Graph::symmetric_pattern(a);
            let parts = g.kway(ranks, objective)?;
            Ok(Partition {
                owner: parts,
                ranks,
            })
        }
        // Made with the mesh, before the hierarchy (partition::mfem); a
        // matrix alone does not have what it needs.
        Method::Mfem => Err(PartitionError::NoMesh("the matrix".into())),
        Method::MetisNodes => {
            let g = Graph::symmetric_pattern(a);
            let node_of_row = g.kway(m.nodes, objective)?;
            let mut owner = vec![0u32; a.rows()];
            for node in 0..m.nodes {
                let rows: Vec<u32> = (0..a.rows() as u32)
                    .filter(|&i| node_of_row[i as usize] == node as u32)
                    .collect();
                let local = g.induced(&rows).kway(m.ppn, objective)?;
                for (&i, &l) in rows.iter().zip(&local) {
                    owner[i as usize] = m.rank_at(node, l as usize) as u32;
                }
            }
            Ok(Partition { owner, ranks })
        }
    }
}

/// Contiguous blocks whose nonzero counts are as equal as possible: rank r
/// starts at the first row where the running nonzero count reaches
/// `r * nnz / P`.
fn contiguous_nnz(a: &Csr, ranks: usize) -> Partition {
    let indptr = a.indptr();
    let indptr = indptr.raw_storage();
    let total = a.nnz() as u128;
    let mut owner = Vec::with_capacity(a.rows());
    let mut r = 0usize;
    for i in 0..a.rows() {
        // Advance while the next rank's share starts at or before row i.
        while r + 1 < ranks && (indptr[i] as u128) * (ranks as u128) >= (r as u128 + 1) * total {
            r += 1;
        }
        owner.push(r as u32);
    }
    Partition { owner, ranks }
}

/// Balanced random: a seeded shuffle of the rows, cut into contiguous
/// balanced blocks.
fn random(n: usize, ranks: usize, seed: u64) -> Partition {
    let blocks = Partition::contiguous(n, ranks);
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    let mut owner = vec![0u32; n];
    for (k, &i) in order.iter().enumerate() {
        owner[i as usize] = blocks.owner[k];
    }
    Partition { owner, ranks }
}

/// Adjacency of an undirected graph (CSR, METIS's `xadj`/`adjncy`).
struct Graph {
    xadj: Vec<metis::Idx>,
    adjncy: Vec<metis::Idx>,
}

impl Graph {
    /// The pattern of `A + A^T` without the diagonal.
    fn symmetric_pattern(a: &Csr) -> Graph {
        let n = a.rows();
        let mut rows: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                a.outer_view(i)
                    .expect("row")
                    .indices()
                    .iter()
                    .copied()
                    .filter(|&j| j as usize != i)
                    .collect()
            })
            .collect();
        if !crate::matrix::csr::is_symmetric(&a.map(|_| 1.0)) {
            for i in 0..n {
                for &j in a.outer_view(i).expect("row").indices() {
                    if j as usize != i {
                        rows[j as usize].push(i as u32);
                    }
                }
            }
            for r in rows.iter_mut() {
                r.sort_unstable();
                r.dedup();
            }
        }
        Graph::from_rows(&rows)
    }

    fn from_rows(rows: &[Vec<u32>]) -> Graph {
        let mut xadj = Vec::with_capacity(rows.len() + 1);
        xadj.push(0);
        let mut adjncy = Vec::new();
        for r in rows {
            adjncy.extend(r.iter().map(|&j| j as metis::Idx));
            xadj.push(adjncy.len() as metis::Idx);
        }
        Graph { xadj, adjncy }
    }

    /// The subgraph on `vertices` (sorted), renumbered 0..len.
    fn induced(&self, vertices: &[u32]) -> Graph {
        let mut local = std::collections::HashMap::with_capacity(vertices.len());
        for (k, &v) in vertices.iter().enumerate() {
            local.insert(v as metis::Idx, k as u32);
        }
        let rows: Vec<Vec<u32>> = vertices
            .iter()
            .map(|&v| {
                let (s, e) = (
                    self.xadj[v as usize] as usize,
                    self.xadj[v as usize + 1] as usize,
                );
                self.adjncy[s..e]
                    .iter()
                    .filter_map(|j| local.get(j).copied())
                    .collect()
            })
            .collect();
        Graph::from_rows(&rows)
    }

    /// METIS k-way partition into `parts` (trivial for 1 part or no
    /// vertices).
    fn kway(&self, parts: usize, objective: Objective) -> Result<Vec<u32>, PartitionError> {
        let n = self.xadj.len() - 1;
        if parts <= 1 || n == 0 {
            return Ok(vec![0; n]);
        }
        if parts >= n {
            // More parts than vertices: one vertex each.
            return Ok((0..n as u32).collect());
        }
        let mut part = vec![0 as metis::Idx; n];
        let obj = match objective {
            Objective::Cut => metis::option::ObjType::Cut,
            Objective::Vol => metis::option::ObjType::Vol,
        };
        let _one_at_a_time = super::metis_lock();
        metis::Graph::new(1, parts as metis::Idx, &self.xadj, &self.adjncy)
            .map_err(|e| PartitionError::Metis(e.to_string()))?
            .set_option(obj)
            .part_kway(&mut part)
            .map_err(|e| PartitionError::Metis(e.to_string()))?;
        Ok(part.into_iter().map(|p| p as u32).collect())
    }
}

/// `a`'s rows into `parts` parts by `method`, for a partition file: the
/// parts are ranks of `ppn` per node (`metis-nodes` keeps each node's
/// `ppn` parts together), on `parts / ppn` nodes of one socket.
pub fn into_parts(
    a: &Csr,
    parts: usize,
    ppn: usize,
    method: Method,
    o: &MethodOptions,
) -> Result<Partition, PartitionError> {
    let m = Machine {
        nodes: parts / ppn.max(1),
        ppn,
        sockets_per_node: 1,
        ..Machine::bluewaters()
    };
    partition(a, &m, method, o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::gen::{Kind, Problem};

    fn cut(a: &Csr, p: &Partition) -> usize {
        a.iter()
            .filter(|(_, (i, j))| p.owner[*i as usize] != p.owner[*j as usize])
            .count()
    }

    #[test]
    fn contiguous_nnz_balances_nonzeros() {
        // A matrix whose first rows are dense: row-balanced blocks are not
        // nonzero-balanced.
        let a = crate::matrix::csr::from_rows(
            100,
            100,
            |i| if i < 10 { 50 } else { 5 },
            |i, c, v| {
                for k in 0..c.len() {
                    c[k] = ((i + k) % 100) as u32;
                    v[k] = 1.0;
                }
                c.sort_unstable();
            },
        );
        let p = contiguous_nnz(&a, 4);
        let mut per = [0usize; 4];
        for (_, (i, _)) in a.iter() {
            per[p.owner[i as usize] as usize] += 1;
        }
        // 950 nonzeros: every part within one row (50) of 950 / 4.
        for &x in &per {
            assert!((x as f64 - 237.5).abs() <= 50.0, "{per:?}");
        }
        assert!(p.owner.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn random_is_balanced_and_seeded() {
        let p = random(1003, 10, 5);
        let mut count = [0usize; 10];
        for &o in &p.owner {
            count[o as usize] += 1;
        }
        assert!(count.iter().all(|&c| c == 100 || c == 101), "{count:?}");
        assert_eq!(p, random(1003, 10, 5));
        assert_ne!(p, random(1003, 10, 6));
    }

    #[test]
    fn metis_cuts_far_fewer_edges_than_random() {
        let a = Problem::new(Kind::Poisson3d, 16).generate().unwrap().csr;
        let m = Machine {
            nodes: 4,
            ppn: 4,
            ..Machine::bluewaters()
        };
        for (method, objective) in [
            (Method::Metis, Objective::Cut),
            (Method::Metis, Objective::Vol),
            (Method::MetisNodes, Objective::Cut),
        ] {
            let o = MethodOptions { seed: 0, objective };
            let p = partition(&a, &m, method, &o).unwrap();
            assert_eq!(p.owner.len(), 4096);
            assert_eq!(p.active_ranks(), 16, "{method:?}");
            let r = random(4096, 16, 1);
            assert!(
                cut(&a, &p) * 4 < cut(&a, &r),
                "{method:?}: {} vs {}",
                cut(&a, &p),
                cut(&a, &r)
            );
        }
    }

    #[test]
    fn metis_nodes_keeps_each_node_a_unit() {
        let a = Problem::new(Kind::Poisson3d, 12).generate().unwrap().csr;
        let m = Machine {
            nodes: 4,
            ppn: 4,
            ..Machine::bluewaters()
        };
        let o = MethodOptions::default();
        let p = partition(&a, &m, Method::MetisNodes, &o).unwrap();
        // Rows of one node's ranks: the node-level cut is what METIS first
        // minimised, so it is no larger than the cut of a rank-level METIS
        // partition seen node by node.
        let node_cut = |p: &Partition| {
            a.iter()
                .filter(|(_, (i, j))| {
                    m.node_of(p.owner[*i as usize] as usize)
                        != m.node_of(p.owner[*j as usize] as usize)
                })
                .count()
        };
        let flat = partition(&a, &m, Method::Metis, &o).unwrap();
        assert!(
            node_cut(&p) <= node_cut(&flat) * 11 / 10,
            "{} vs {}",
            node_cut(&p),
            node_cut(&flat)
        );
        assert_eq!(p.active_ranks(), 16);
    }
}
