//! Writing then reading gives back what was written, for random inputs
//! (proptest): Matrix Market, PETSc binary, hypre IJ rank files, partition
//! files and pattern files. The matrices include empty rows and columns,
//! 1 x 1 and empty shapes, duplicate entries (summed on assembly),
//! explicit zeros and extreme finite values.

use amgcomm::comm::node_aware::Strategy as Exchange;
use amgcomm::comm::pattern_file;
use amgcomm::comm::{Message, Op, Pattern};
use amgcomm::machine::Machine;
use amgcomm::matrix::csr::{from_triplets, Triplets};
use amgcomm::matrix::io::{self, hypre_ij, petsc, Values};
use amgcomm::matrix::{Csr, Symmetry};
use amgcomm::partition::Partition;
use proptest::prelude::*;

/// A value of any finite magnitude, zero included.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(f64::MAX),
        Just(f64::MIN),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        -1e6f64..1e6,
        any::<f64>().prop_filter("finite", |v| v.is_finite()),
    ]
}

/// A random matrix of 1 to 12 rows and columns, 0 to 40 entries (some
/// repeated, so summed), as the readers assemble it.
fn matrix() -> impl Strategy<Value = Csr> {
    (1usize..=12, 1usize..=12).prop_flat_map(|(r, c)| {
        proptest::collection::vec((0..r as u32, 0..c as u32, value()), 0..40).prop_map(
            move |entries| {
                let mut t = Triplets::default();
                for (i, j, v) in entries {
                    // Duplicates are summed: at most 40 of them, each
                    // below f64::MAX / 64, keep every sum finite.
                    t.push(i, j, v / 64.0);
                }
                from_triplets(r, c, &[t], Symmetry::General)
            },
        )
    })
}

/// Row blocks of `n` rows over 1 to 4 ranks, some of them empty.
fn blocks(n: usize) -> impl Strategy<Value = Vec<usize>> {
    (1usize..=4).prop_flat_map(move |ranks| {
        proptest::collection::vec(0..=n, ranks - 1).prop_map(move |mut cuts| {
            cuts.sort_unstable();
            let mut starts = vec![0];
            starts.extend(cuts);
            starts.push(n);
            starts
        })
    })
}

fn same(a: &Csr, b: &Csr) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.shape(), b.shape());
    prop_assert_eq!(
        a.indptr().to_proper().to_vec(),
        b.indptr().to_proper().to_vec()
    );
    prop_assert_eq!(a.indices(), b.indices());
    let bits = |m: &Csr| m.data().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    // Bit for bit, but -0.0 may read back as 0.0 where a format has no sign
    // for zero: both are zero.
    let norm = |v: Vec<u64>| {
        v.into_iter()
            .map(|b| if b == (-0.0f64).to_bits() { 0 } else { b })
            .collect::<Vec<_>>()
    };
    prop_assert_eq!(norm(bits(a)), norm(bits(b)));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn matrix_market_round_trips(a in matrix(), gz in any::<bool>()) {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(if gz { "a.mtx.gz" } else { "a.mtx" });
        io::write(&path, &a, Symmetry::General, "round trip").unwrap();
        let back = io::read_with(&path, Values::Finite).unwrap();
        same(&a, &back.csr)?;
    }

    #[test]
    fn petsc_binary_round_trips(a in matrix()) {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("a.petsc");
        petsc::write(&path, &a).unwrap();
        let back = petsc::parse(&std::fs::read(&path).unwrap(), "a.petsc", Values::Finite).unwrap();
        same(&a, &back.csr)?;
    }

    #[test]
    fn hypre_ij_round_trips(
        (a, rows, cols) in matrix().prop_flat_map(|a| {
            let (r, c) = a.shape();
            (Just(a), blocks(r), blocks(c))
        }).prop_filter("one count of ranks", |(_, r, c)| r.len() == c.len())
    ) {
        let d = tempfile::tempdir().unwrap();
        let prefix = d.path().join("A");
        hypre_ij::write(&prefix, &a, &rows, &cols).unwrap();
        let back = hypre_ij::read(&prefix, Values::Finite).unwrap();
        same(&a, &back.matrix.csr)?;
        prop_assert_eq!(&back.matrix.ownership.as_ref().unwrap().starts, &rows);
        prop_assert_eq!(&back.col_starts, &cols);
    }

    #[test]
    fn partition_files_round_trip(owner in proptest::collection::vec(0u32..5, 1..200)) {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("p.part");
        let ranks = owner.iter().max().map_or(1, |&m| m as usize + 1);
        let p = Partition { owner: owner.clone(), ranks };
        amgcomm::partition::file::write(&path, &p, "round trip").unwrap();
        let back = Partition::read(&path, owner.len(), ranks).unwrap();
        prop_assert_eq!(back.owner, owner);
    }

    #[test]
    fn pattern_files_round_trip(
        msgs in proptest::collection::vec((0u32..8, 0u32..8, 0u64..1 << 40, 1u32..1000), 0..60),
        level in 0usize..30,
    ) {
        let mut messages: Vec<Message> = msgs
            .into_iter()
            .filter(|m| m.0 != m.1)
            .map(|(from, to, bytes, runs)| Message { from, to, bytes, runs })
            .collect();
        messages.sort_by_key(|m| (m.from, m.to));
        messages.dedup_by_key(|m| (m.from, m.to));
        let m = Machine { nodes: 2, ppn: 4, ..Machine::bluewaters() };
        let steps = vec![("spmv".to_string(), Pattern { op: Op::Spmv, messages })];
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join(pattern_file::file_name(level, Op::Spmv));
        pattern_file::write(&path, level, Op::Spmv, Exchange::Standard, &m, &steps).unwrap();
        let back = pattern_file::read(&path).unwrap();
        prop_assert_eq!(back.level, level);
        prop_assert_eq!(back.op, Op::Spmv);
        prop_assert_eq!(back.steps, steps);
        prop_assert_eq!(back.layout.nodes, 2);
    }
}

/// The smallest shapes, by hand: 1 x 1 with one entry, 1 x 1 empty, and
/// a matrix whose only row is empty.
#[test]
fn smallest_matrices_round_trip() {
    let d = tempfile::tempdir().unwrap();
    for (r, c, entries) in [
        (1usize, 1usize, vec![(0u32, 0u32, 2.5f64)]),
        (1, 1, vec![]),
        (3, 2, vec![(2, 1, -1.0), (2, 1, 1.0)]),
    ] {
        let mut t = Triplets::default();
        for (i, j, v) in entries {
            t.push(i, j, v);
        }
        let a = from_triplets(r, c, &[t], Symmetry::General);
        let path = d.path().join("s.mtx");
        io::write(&path, &a, Symmetry::General, "s").unwrap();
        let back = io::read(&path).unwrap().csr;
        assert_eq!(back.shape(), (r, c));
        assert_eq!(back.nnz(), a.nnz());
        let p = d.path().join("s.petsc");
        petsc::write(&p, &a).unwrap();
        let b = petsc::parse(&std::fs::read(&p).unwrap(), "s", Values::Finite).unwrap();
        assert_eq!(b.csr, a);
    }
}
