//! Defining properties of the coarsenings and interpolations, on every
//! level of real hierarchies, and operator complexity against hypre.

use amgcomm::amg::strength::strength_graph_on;
use amgcomm::amg::{self, Coarsening, Hierarchy, Interpolation, Options, Preset};
use amgcomm::matrix::gen::{Kind, Problem};
use amgcomm::matrix::{csr, Csr};

fn matrix(kind: Kind, n: usize, permute: Option<u64>) -> Csr {
    let m = Problem::new(kind, n).generate().unwrap();
    match permute {
        None => m.csr,
        Some(seed) => {
            let order =
                amgcomm::matrix::permute::random_node_order(m.csr.rows() / m.block_size, seed);
            amgcomm::matrix::permute::permute_symmetric(&m.csr, m.block_size, &order)
        }
    }
}

/// Graph Laplacian with the pattern of `a`: zero row sums.
fn zero_row_sum(a: &Csr) -> Csr {
    csr::from_rows(
        a.rows(),
        a.cols(),
        |i| a.outer_view(i).unwrap().nnz(),
        |i, cols, vals| {
            let row = a.outer_view(i).unwrap();
            let off: f64 = row.iter().filter(|&(j, _)| j != i).map(|(_, &v)| v).sum();
            for (k, (j, &v)) in row.iter().enumerate() {
                cols[k] = j as u32;
                vals[k] = if j == i { -off } else { v };
            }
        },
    )
}

/// Row `i`'s column indices.
fn row(s: &Csr, i: usize) -> &[u32] {
    let range = s.indptr().outer_inds_sz(i);
    &s.indices()[range]
}

fn splitting(h: &Hierarchy, l: usize) -> Vec<bool> {
    let mut s = vec![false; h.levels[l].a.rows()];
    for &c in &h.levels[l].coarse_points {
        s[c as usize] = true;
    }
    s
}

fn cases() -> Vec<(&'static str, Csr, Options)> {
    let hypre = Preset::Hypre.options();
    let raptor = Preset::RaptorElasticity.options();
    vec![
        (
            "poisson3d 12",
            matrix(Kind::Poisson3d, 12, None),
            hypre.clone(),
        ),
        (
            "poisson3d-27 9 permuted",
            matrix(Kind::Poisson3d27, 9, Some(2)),
            hypre.clone(),
        ),
        (
            "elasticity3d 5",
            matrix(Kind::Elasticity3d, 5, None),
            raptor.clone(),
        ),
        (
            "elasticity3d 4 permuted",
            matrix(Kind::Elasticity3d, 4, Some(5)),
            raptor,
        ),
        ("poisson2d 40", matrix(Kind::Poisson2d, 40, None), hypre),
    ]
}

/// Level `l`'s strength graph, each row's unknown carried from the finest
/// level (`i % num_functions`) through the C points.
fn strength_of(h: &amg::Hierarchy, l: usize, o: &Options) -> Csr {
    let nf = o.strength.num_functions;
    let mut f: Vec<u8> = (0..h.levels[0].a.rows()).map(|i| (i % nf) as u8).collect();
    for level in &h.levels[..l] {
        f = level.coarse_points.iter().map(|&c| f[c as usize]).collect();
    }
    strength_graph_on(&h.levels[l].a, &o.strength, &f)
}

fn with(o: &Options, coarsening: Coarsening, interpolation: Interpolation) -> Options {
    let mut o = o.clone();
    o.coarsening = coarsening;
    o.interpolation = interpolation;
    o
}

#[test]
fn pmis_c_points_are_a_maximal_independent_set() {
    for (name, a, o) in cases() {
        let o = with(&o, Coarsening::Pmis, Interpolation::ExtendedI);
        let h = amg::build(&a, &o, &mut |_, _| {}).unwrap();
        assert!(h.levels.len() >= 3, "{name}");
        for l in 0..h.levels.len() - 1 {
            let s: Csr = strength_of(&h, l, &o);
            let st: Csr = s.transpose_view().to_csr();
            let split = splitting(&h, l);
            for i in 0..split.len() {
                let neighbours: Vec<usize> = row(&s, i)
                    .iter()
                    .chain(row(&st, i))
                    .map(|&j| j as usize)
                    .collect();
                if split[i] {
                    assert!(
                        neighbours.iter().all(|&j| !split[j]),
                        "{name} level {l}: C point {i} strongly connected to a C point"
                    );
                } else if !neighbours.is_empty() {
                    assert!(
                        neighbours.iter().any(|&j| split[j]),
                        "{name} level {l}: F point {i} could have been C"
                    );
                }
            }
        }
    }
}

#[test]
fn rs_and_hmis_f_points_depend_on_a_c_point() {
    for (name, a, o) in cases() {
        for coarsening in [Coarsening::Hmis, Coarsening::Rs2, Coarsening::Cljp] {
            let o = with(&o, coarsening, Interpolation::ExtendedI);
            let h = amg::build(&a, &o, &mut |_, _| {}).unwrap();
            for l in 0..h.levels.len() - 1 {
                let s = strength_of(&h, l, &o);
                let split = splitting(&h, l);
                for i in 0..split.len() {
                    let si = row(&s, i);
                    if !split[i] && !si.is_empty() {
                        assert!(
                            si.iter().any(|&j| split[j as usize]),
                            "{name} {coarsening:?} level {l}: F point {i} has no strong C point"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn c_points_interpolate_by_injection() {
    for (name, a, o) in cases() {
        for interpolation in [
            Interpolation::Direct,
            Interpolation::Classical,
            Interpolation::ExtendedI,
        ] {
            let o = with(&o, Coarsening::Hmis, interpolation);
            let h = amg::build(&a, &o, &mut |_, _| {}).unwrap();
            for level in &h.levels[..h.levels.len() - 1] {
                let p = level.p.as_ref().unwrap();
                assert_eq!(p.cols(), level.coarse_points.len());
                for (k, &c) in level.coarse_points.iter().enumerate() {
                    let row = p.outer_view(c as usize).unwrap();
                    assert_eq!(
                        (row.nnz(), row.get(k)),
                        (1, Some(&1.0)),
                        "{name} {interpolation:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn extended_i_reproduces_constants_on_zero_row_sum_operators() {
    for (name, a, o) in cases() {
        let a = zero_row_sum(&a);
        for (p_max, trunc) in [(0, 0.0), (4, 0.0), (0, 0.2)] {
            let mut o = with(&o, Coarsening::Hmis, Interpolation::ExtendedI);
            // Scalar setting: with num_functions > 1 the weak couplings to
            // other functions are dropped, not lumped, by design.
            o.strength.num_functions = 1;
            o.p_max_elmts = p_max;
            o.trunc_factor = trunc;
            let h = amg::build(&a, &o, &mut |_, _| {}).unwrap();
            assert!(h.levels.len() >= 2, "{name}");
            for (l, level) in h.levels[..h.levels.len() - 1].iter().enumerate() {
                let p = level.p.as_ref().unwrap();
                for i in 0..p.rows() {
                    let row = p.outer_view(i).unwrap();
                    let sum: f64 = row.data().iter().sum();
                    assert!(
                        (sum - 1.0).abs() < 1e-10,
                        "{name} P_max {p_max} level {l} row {i}: sum {sum}"
                    );
                    if p_max > 0 {
                        assert!(row.nnz() <= p_max);
                    }
                }
            }
        }
    }
}

/// hypre 2.26 (Debian's libhypre-dev), BoomerAMG in serial with coarsen_type
/// 10 (HMIS), interp_type 6 (extended+i), P_max_elmts 4, strong threshold
/// 0.25, max_row_sum 0.9, max_coarse_size 9, on the matrix `amgcomm generate
/// poisson3d --n 30` writes: levels 27000, 13500, 3074, 399, 83, 17; grid
/// complexity 1.632333, operator complexity 3.047358. With coarsen_type 8
/// (PMIS): operator complexity 2.680103; coarsen_type 0 (CLJP): 10.532380.
/// HMIS is hypre's own code (src/amg/hypre.rs): its levels are hypre's
/// exactly. PMIS and CLJP are the textbook algorithms with amgcomm's
/// random weights: PMIS within 15% of hypre's operator complexity, CLJP
/// (8.74, hypre's update rules differ) within 20%.
#[test]
fn hmis_is_hypres_and_pmis_cljp_come_close_on_poisson3d_30() {
    let a = matrix(Kind::Poisson3d, 30, None);
    let h = amg::build(&a, &Preset::Hypre.options(), &mut |_, _| {}).unwrap();
    let rows: Vec<usize> = h.levels.iter().map(|l| l.a.rows()).collect();
    assert_eq!(rows, [27000, 13500, 3074, 399, 83, 17]);
    assert!((h.operator_complexity() - 3.047358).abs() < 5e-7);
    assert!((h.grid_complexity() - 1.632333).abs() < 5e-7);
    for (coarsening, hypre, within) in [
        (Coarsening::Pmis, 2.680103, 0.15),
        (Coarsening::Cljp, 10.532380, 0.20),
    ] {
        let mut o = Preset::Hypre.options();
        o.coarsening = coarsening;
        let h = amg::build(&a, &o, &mut |_, _| {}).unwrap();
        let oc = h.operator_complexity();
        assert!(
            (oc / hypre - 1.0).abs() < within,
            "{coarsening:?}: {oc} vs hypre {hypre}"
        );
    }
}

#[test]
fn random_coarsenings_are_reproducible_and_depend_on_the_seed() {
    let a = matrix(Kind::Poisson3d, 10, None);
    let mut o = Preset::Hypre.options();
    o.coarsening = Coarsening::Pmis;
    let points = |o: &Options| {
        amg::build(&a, o, &mut |_, _| {}).unwrap().levels[0]
            .coarse_points
            .clone()
    };
    let first = points(&o);
    assert_eq!(first, points(&o));
    o.seed = 99;
    assert_ne!(first, points(&o));
}
