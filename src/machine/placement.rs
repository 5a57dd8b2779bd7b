//! Which node and local slot each rank runs on (docs/model.md, "Virtual
//! machine": SMP-style by default).

use clap::builder::PossibleValue;
use serde::{Deserialize, Serialize};

use super::Machine;

/// How ranks are placed on nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Rank `r` on node `r / ppn`, local index `r % ppn` (docs/model.md).
    Smp,
    /// Rank `r` on node `r % nodes`, local index `r / nodes`.
    RoundRobin,
    /// Rank `r` in slot `perm(r)` (node `slot / ppn`, local index
    /// `slot % ppn`) of a seeded pseudo-random permutation of the ranks.
    Random {
        /// Seed of the permutation.
        seed: u64,
    },
}

/// The command-line values (`--placement`); `random` takes its seed from
/// `--placement-seed`. Written by hand because `Random` carries its seed,
/// which clap's derive does not allow.
impl clap::ValueEnum for Placement {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            Placement::Smp,
            Placement::RoundRobin,
            Placement::Random { seed: 0 },
        ]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            Placement::Smp => PossibleValue::new("smp").help("rank r on node r / ppn"),
            Placement::RoundRobin => {
                PossibleValue::new("round-robin").help("rank r on node r % nodes")
            }
            Placement::Random { .. } => {
                PossibleValue::new("random").help("a seeded random permutation of the ranks")
            }
        })
    }
}

/// `smp`, `round-robin`, `random (seed S)`.
impl std::fmt::Display for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::value_name(self))?;
        if let Placement::Random { seed } = self {
            write!(f, " (seed {seed})")?;
        }
        Ok(())
    }
}

impl Placement {
    /// The same placement with `seed` when it is random.
    pub fn with_seed(self, seed: u64) -> Placement {
        match self {
            Placement::Random { .. } => Placement::Random { seed },
            other => other,
        }
    }
}

/// A seeded pseudo-random permutation of `0..n` without tables: a 4-round
/// Feistel network on the smallest even number of bits covering `n`, with
/// cycle walking back into range. O(1) per call, and invertible.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shuffle {
    n: u64,
    half: u32,
    seed: u64,
}

impl Shuffle {
    pub(crate) fn new(n: usize, seed: u64) -> Shuffle {
        let bits = (usize::BITS - n.saturating_sub(1).leading_zeros()).max(2);
        Shuffle {
            n: n as u64,
            half: bits.div_ceil(2),
            seed,
        }
    }

    fn round(&self, x: u64, k: u64) -> u64 {
        // splitmix64 finaliser of (x, round, seed).
        let mut z = x ^ self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (k << 56);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) & ((1 << self.half) - 1)
    }

    fn forward(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (x >> self.half, x & mask);
        for k in 0..4 {
            (l, r) = (r, l ^ self.round(r, k));
        }
        (l << self.half) | r
    }

    fn backward(&self, y: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (y >> self.half, y & mask);
        for k in (0..4).rev() {
            (l, r) = (r ^ self.round(l, k), l);
        }
        (l << self.half) | r
    }

    pub(crate) fn apply(&self, x: usize) -> usize {
        let mut y = self.forward(x as u64);
        while y >= self.n {
            y = self.forward(y);
        }
        y as usize
    }

    fn invert(&self, y: usize) -> usize {
        let mut x = self.backward(y as u64);
        while x >= self.n {
            x = self.backward(x);
        }
        x as usize
    }
}

impl Machine {
    /// The node `rank` runs on.
    #[inline]
    pub fn node_of(&self, rank: usize) -> usize {
        match self.placement {
            Placement::Smp => rank / self.ppn,
            Placement::RoundRobin => rank % self.nodes,
            Placement::Random { seed } => Shuffle::new(self.ranks(), seed).apply(rank) / self.ppn,
        }
    }

    /// Index of `rank` among the ranks of its node.
    #[inline]
    pub fn local_of(&self, rank: usize) -> usize {
        match self.placement {
            Placement::Smp => rank % self.ppn,
            Placement::RoundRobin => rank / self.nodes,
            Placement::Random { seed } => Shuffle::new(self.ranks(), seed).apply(rank) % self.ppn,
        }
    }

    /// The rank at local index `local` of node `node` (inverse of
    /// [`Machine::node_of`] and [`Machine::local_of`]).
    pub fn rank_at(&self, node: usize, local: usize) -> usize {
        match self.placement {
            Placement::Smp => node * self.ppn + local,
            Placement::RoundRobin => local * self.nodes + node,
            Placement::Random { seed } => {
                Shuffle::new(self.ranks(), seed).invert(node * self.ppn + local)
            }
        }
    }

    /// The socket of `rank` on its node: local index `/ (ppn /
    /// sockets_per_node)`.
    #[inline]
    pub fn socket_of(&self, rank: usize) -> usize {
        self.local_of(rank) / (self.ppn / self.sockets_per_node).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_placement_is_a_seeded_bijection() {
        for ranks in [1usize, 2, 3, 16, 100, 257, 8192] {
            let s = Shuffle::new(ranks, 7);
            let mut seen = vec![false; ranks];
            for r in 0..ranks {
                let y = s.apply(r);
                assert!(!seen[y], "{ranks}: {r}");
                seen[y] = true;
                assert_eq!(s.invert(y), r);
            }
        }
        let m = Machine {
            nodes: 8,
            ppn: 4,
            placement: Placement::Random { seed: 3 },
            ..Machine::bluewaters()
        };
        let mut per_node = [0; 8];
        for r in 0..32 {
            per_node[m.node_of(r)] += 1;
            assert_eq!(m.rank_at(m.node_of(r), m.local_of(r)), r);
        }
        assert_eq!(per_node, [4; 8]);
        // Not the identity, and another seed gives another placement.
        assert!((0..32).any(|r| m.node_of(r) != r / 4));
        let other = Machine {
            placement: Placement::Random { seed: 4 },
            ..m.clone()
        };
        assert!((0..32).any(|r| m.node_of(r) != other.node_of(r)));
    }

    #[test]
    fn placement_values_and_seed() {
        use clap::ValueEnum;
        let names: Vec<String> = Placement::value_variants()
            .iter()
            .map(|p| p.to_possible_value().unwrap().get_name().to_string())
            .collect();
        assert_eq!(names, ["smp", "round-robin", "random"]);
        let p = Placement::from_str("random", false).unwrap();
        assert_eq!(p.with_seed(9), Placement::Random { seed: 9 });
        assert_eq!(Placement::Smp.with_seed(9), Placement::Smp);
        assert_eq!(p.with_seed(9).to_string(), "random (seed 9)");
        assert_eq!(Placement::RoundRobin.to_string(), "round-robin");
    }
}
