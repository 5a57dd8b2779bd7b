//! Communication patterns: hand-counted cases, and a brute-force reference
//! (nested loops over nonzeros and sets, no code shared with the fast path)
//! on random matrices and partitions, for every figure.

use std::collections::{BTreeMap, BTreeSet};

use amgcomm::comm::{self, Pattern};
use amgcomm::machine::{Locality, Machine, Placement, Protocol};
use amgcomm::matrix::gen::{Kind, Problem};
use amgcomm::matrix::{csr, Csr};
use amgcomm::partition::{CoarseRule, Partition};

fn machine(nodes: usize, ppn: usize, sockets: usize) -> Machine {
    Machine {
        name: "test".into(),
        nodes,
        ppn,
        sockets_per_node: sockets,
        placement: Placement::Smp,
        ..Machine::bluewaters()
    }
}

fn from_lists(ncols: usize, rows: &[Vec<u32>]) -> Csr {
    csr::from_rows(
        rows.len(),
        ncols,
        |i| rows[i].len(),
        |i, c, v| {
            for (k, &j) in rows[i].iter().enumerate() {
                c[k] = j;
                v[k] = 1.0;
            }
        },
    )
}

fn triples(p: &Pattern) -> Vec<(u32, u32, u64)> {
    p.messages.iter().map(|m| (m.from, m.to, m.bytes)).collect()
}

/// 1D Laplacian on 8 points, 4 ranks on 2 nodes x 2 ranks (one per socket).
#[test]
fn laplacian_1d_on_4_ranks_counted_by_hand() {
    let a = from_lists(
        8,
        &(0..8u32)
            .map(|i| (i.saturating_sub(1)..(i + 2).min(8)).collect())
            .collect::<Vec<_>>(),
    );
    // C points 0, 2, 4, 6; odd points interpolate from both neighbours,
    // point 7 from 6 only.
    let p = from_lists(
        4,
        &[
            vec![0],
            vec![0, 1],
            vec![1],
            vec![1, 2],
            vec![2],
            vec![2, 3],
            vec![3],
            vec![3],
        ],
    );
    let m = machine(2, 2, 2);
    let part = Partition::contiguous(8, 4);
    let (spmv, spgemm) = comm::spmv_spgemm(&a, Some(&p), &part, &m);
    assert_eq!(
        triples(&spmv),
        vec![
            (0, 1, 8),
            (1, 0, 8),
            (1, 2, 8),
            (2, 1, 8),
            (2, 3, 8),
            (3, 2, 8)
        ]
    );
    let places = m.places();
    let localities: Vec<Locality> = (spmv.messages.iter())
        .map(|x| places.locality(x.from, x.to))
        .collect();
    let (node, network) = (Locality::NODE, Locality::NETWORK);
    assert_eq!(localities, vec![node, node, network, network, node, node]);
    assert!(spmv
        .messages
        .iter()
        .all(|x| places.hops(x.from, x.to) == 0 && places.protocol(x.bytes) == Protocol::Short));
    // Row j of P travels as 4 + 12 nnz(P[j,:]) bytes: rows 1, 3, 5 have 2
    // entries (28 bytes), rows 2, 4, 6 one (16 bytes).
    let spgemm = spgemm.unwrap();
    assert_eq!(
        triples(&spgemm),
        vec![
            (0, 1, 28),
            (1, 0, 16),
            (1, 2, 28),
            (2, 1, 16),
            (2, 3, 28),
            (3, 2, 16)
        ]
    );
    // ptap: rank r's row 2r+1 has P entries in coarse columns r and r+1;
    // column r+1 belongs to rank r+1, which gets the partial coarse row
    // P[2r+1, r+1] (A P)[2r+1,:] with pattern {r, r+1}: 4 + 24 bytes.
    let coarse = part.coarsen(&[0, 2, 4, 6], CoarseRule::Inherit);
    assert_eq!(coarse.owner, vec![0, 1, 2, 3]);
    let ptap = comm::ptap(&a, &p, &part, &coarse, &m);
    assert_eq!(triples(&ptap), vec![(0, 1, 28), (1, 2, 28), (2, 3, 28)]);
    let s = comm::summarize(&spmv, &m);
    assert_eq!(
        (
            s.messages.total,
            s.messages.max_sent,
            s.messages.max_recv,
            s.messages.inter_node
        ),
        (6, 2, 2, 2)
    );
    assert_eq!(
        (
            s.bytes.total,
            s.bytes.max_sent,
            s.bytes.inter_node,
            s.byte_hops
        ),
        (48, 16, 16, 0)
    );
    assert_eq!(s.max_nodes_talked_to, 1);
}

/// 2D 5-point Laplacian on a 4 x 4 grid, one grid line per rank, 4 nodes
/// with one rank each: 2 routers in a 2 x 1 x 1 box.
#[test]
fn laplacian_2d_on_a_2x2_node_machine_counted_by_hand() {
    let a = Problem::new(Kind::Poisson2d, 4).generate().unwrap().csr;
    let m = machine(4, 1, 1);
    assert_eq!(
        m.network().shape()["router_box"],
        serde_json::json!([2, 1, 1])
    );
    let part = Partition::contiguous(16, 4);
    let (spmv, _) = comm::spmv_spgemm(&a, None, &part, &m);
    // Each rank needs the 4 unknowns of each neighbouring line: 32 bytes.
    assert_eq!(
        triples(&spmv),
        vec![
            (0, 1, 32),
            (1, 0, 32),
            (1, 2, 32),
            (2, 1, 32),
            (2, 3, 32),
            (3, 2, 32)
        ]
    );
    let hops = |m: &Machine, p: &Pattern| -> Vec<u32> {
        let places = m.places();
        p.messages
            .iter()
            .map(|x| places.hops(x.from, x.to))
            .collect()
    };
    assert_eq!(hops(&m, &spmv), vec![0, 0, 1, 1, 0, 0]);
    let s = comm::summarize(&spmv, &m);
    assert_eq!(
        (s.messages.inter_node, s.bytes.inter_node, s.byte_hops),
        (6, 192, 64)
    );
    assert!((s.avg_hops - 64.0 / 192.0).abs() < 1e-15);

    // The same on a 2 x 2 router box (one node per router): node k at
    // (k % 2, k / 2), so lines 0-1 and 2-3 are 1 hop apart, 1-2 are 2.
    let m = Machine {
        network: amgcomm::machine::network::Spec::box3d(1),
        ..machine(4, 1, 1)
    };
    assert_eq!(
        m.network().shape()["router_box"],
        serde_json::json!([2, 2, 1])
    );
    let (spmv, _) = comm::spmv_spgemm(&a, None, &part, &m);
    assert_eq!(hops(&m, &spmv), vec![1, 1, 2, 2, 1, 1]);
    let s = comm::summarize(&spmv, &m);
    assert_eq!(s.byte_hops, 32 * 8);
    assert!((s.avg_hops - 256.0 / 192.0).abs() < 1e-15);

    // Two nodes of two ranks (one per socket): lines 0-1 and 2-3 share a
    // node across sockets, 1-2 cross the network within one router.
    let m = machine(2, 2, 2);
    let (spmv, _) = comm::spmv_spgemm(&a, None, &part, &m);
    let (node, network) = (Locality::NODE, Locality::NETWORK);
    let places = m.places();
    let localities: Vec<Locality> = (spmv.messages.iter())
        .map(|x| places.locality(x.from, x.to))
        .collect();
    assert_eq!(localities, vec![node, node, network, network, node, node]);
    let s = comm::summarize(&spmv, &m);
    assert_eq!(
        (s.messages.inter_node, s.bytes.inter_node, s.byte_hops),
        (2, 64, 0)
    );
}

// ---- brute force ----------------------------------------------------------

struct Rng(u64);
impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn random_matrix(rng: &mut Rng, rows: usize, cols: usize, per_row: usize) -> Vec<Vec<u32>> {
    (0..rows)
        .map(|_| {
            let set: BTreeSet<u32> = (0..rng.next(per_row) + 1)
                .map(|_| rng.next(cols) as u32)
                .collect();
            set.into_iter().collect()
        })
        .collect()
}

/// Messages as (from, to) -> bytes, straight from the definitions.
fn brute_spmv(
    a: &[Vec<u32>],
    p_rows: Option<&[Vec<u32>]>,
    owner: &[u32],
) -> BTreeMap<(u32, u32), u64> {
    let mut needed: BTreeSet<(u32, u32, u32)> = BTreeSet::new(); // (sender, receiver, column)
    for (i, row) in a.iter().enumerate() {
        for &j in row {
            if owner[j as usize] != owner[i] {
                needed.insert((owner[j as usize], owner[i], j));
            }
        }
    }
    let mut out = BTreeMap::new();
    for (q, p, j) in needed {
        let bytes = match p_rows {
            None => 8,
            Some(pr) => 4 + 12 * pr[j as usize].len() as u64,
        };
        *out.entry((q, p)).or_insert(0) += bytes;
    }
    out
}

/// Contiguous runs of the sender's local rows (its rows in global order)
/// in each spmv message, from the needed sets directly.
fn brute_runs(a: &[Vec<u32>], owner: &[u32]) -> BTreeMap<(u32, u32), u32> {
    let mut needed: BTreeMap<(u32, u32), BTreeSet<usize>> = BTreeMap::new();
    for (i, row) in a.iter().enumerate() {
        for &j in row {
            let q = owner[j as usize];
            if q != owner[i] {
                // Local index of j on q.
                let local = (0..j as usize).filter(|&k| owner[k] == q).count();
                needed.entry((q, owner[i])).or_default().insert(local);
            }
        }
    }
    needed
        .into_iter()
        .map(|(k, set)| {
            let runs = set
                .iter()
                .filter(|&&l| l == 0 || !set.contains(&(l - 1)))
                .count();
            (k, runs as u32)
        })
        .collect()
}

fn brute_ptap(
    a: &[Vec<u32>],
    p: &[Vec<u32>],
    owner: &[u32],
    coarse_owner: &[u32],
) -> BTreeMap<(u32, u32), u64> {
    let mut entries: BTreeSet<(u32, u32, u32, u32)> = BTreeSet::new(); // (from, to, k, column)
    let mut rows_k: BTreeSet<(u32, u32, u32)> = BTreeSet::new();
    for (i, prow) in p.iter().enumerate() {
        for &k in prow {
            let q = coarse_owner[k as usize];
            if q != owner[i] {
                rows_k.insert((owner[i], q, k));
                for &j in &a[i] {
                    for &c in &p[j as usize] {
                        entries.insert((owner[i], q, k, c));
                    }
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for (from, to, _) in rows_k {
        *out.entry((from, to)).or_insert(0) += 4;
    }
    for (from, to, _, _) in entries {
        *out.entry((from, to)).or_insert(0) += 12;
    }
    out
}

/// Locality and hops re-derived from docs/model.md for SMP placement.
fn brute_place(m: &Machine, from: u32, to: u32) -> (Locality, u32) {
    let (nf, nt) = (from as usize / m.ppn, to as usize / m.ppn);
    let per_socket = m.ppn / m.sockets_per_node;
    if nf == nt {
        let same = (from as usize % m.ppn) / per_socket == (to as usize % m.ppn) / per_socket;
        return (
            if same {
                Locality::SOCKET
            } else {
                Locality::NODE
            },
            0,
        );
    }
    let routers = m.nodes.div_ceil(m.network.nodes_per_switch());
    let mut best = (usize::MAX, usize::MAX, [0; 3]);
    for gz in 1..=routers {
        for gy in gz..=routers {
            for gx in gy..=routers {
                if gx * gy * gz == routers && (gx - gz, gx) < (best.0, best.1) {
                    best = (gx - gz, gx, [gx, gy, gz]);
                }
            }
        }
    }
    let b = best.2;
    let coords = |node: usize| {
        let g = node / m.network.nodes_per_switch();
        [g % b[0], (g / b[0]) % b[1], g / (b[0] * b[1])]
    };
    let (x, y) = (coords(nf), coords(nt));
    (
        Locality::NETWORK,
        (0..3).map(|d| x[d].abs_diff(y[d]) as u32).sum(),
    )
}

fn check_against(pat: &Pattern, want: &BTreeMap<(u32, u32), u64>, m: &Machine, what: &str) {
    let got: BTreeMap<(u32, u32), u64> = pat
        .messages
        .iter()
        .map(|x| ((x.from, x.to), x.bytes))
        .collect();
    assert_eq!(got.len(), pat.messages.len(), "{what}: duplicate messages");
    assert_eq!(&got, want, "{what}");
    let places = m.places();
    for x in &pat.messages {
        let (loc, hops) = brute_place(m, x.from, x.to);
        assert_eq!(
            (places.locality(x.from, x.to), places.hops(x.from, x.to)),
            (loc, hops),
            "{what}: {} -> {}",
            x.from,
            x.to
        );
        let proto = if x.bytes < 500 {
            Protocol::Short
        } else if x.bytes < 8000 {
            Protocol::Eager
        } else {
            Protocol::Rend
        };
        assert_eq!(places.protocol(x.bytes), proto);
    }
    // Every summary figure, recomputed.
    let s = comm::summarize(pat, m);
    let mut sent: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    let mut recv: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    let mut nodes: BTreeMap<u32, BTreeSet<usize>> = BTreeMap::new();
    let mut net_sent: BTreeMap<u32, u64> = BTreeMap::new();
    let (mut inter, mut inter_bytes, mut byte_hops) = (0u64, 0u64, 0u64);
    for (&(f, t), &b) in want {
        let e = sent.entry(f).or_default();
        e.0 += 1;
        e.1 += b;
        let e = recv.entry(t).or_default();
        e.0 += 1;
        e.1 += b;
        let (loc, hops) = brute_place(m, f, t);
        if loc == Locality::NETWORK {
            inter += 1;
            inter_bytes += b;
            byte_hops += b * hops as u64;
            nodes.entry(f).or_default().insert(t as usize / m.ppn);
            nodes.entry(t).or_default().insert(f as usize / m.ppn);
            *net_sent.entry(f).or_default() += 1;
        }
    }
    assert_eq!(s.messages.total, want.len() as u64, "{what}");
    assert_eq!(
        s.messages.max_sent,
        sent.values().map(|v| v.0).max().unwrap_or(0),
        "{what}"
    );
    assert_eq!(
        s.messages.max_recv,
        recv.values().map(|v| v.0).max().unwrap_or(0),
        "{what}"
    );
    assert_eq!(s.messages.inter_node, inter, "{what}");
    assert_eq!(
        s.messages.max_inter_node_sent,
        net_sent.values().copied().max().unwrap_or(0),
        "{what}"
    );
    assert_eq!(s.bytes.total, want.values().sum::<u64>(), "{what}");
    assert_eq!(
        s.bytes.max_sent,
        sent.values().map(|v| v.1).max().unwrap_or(0),
        "{what}"
    );
    assert_eq!(
        s.bytes.max_recv,
        recv.values().map(|v| v.1).max().unwrap_or(0),
        "{what}"
    );
    assert_eq!(
        (s.bytes.inter_node, s.byte_hops),
        (inter_bytes, byte_hops),
        "{what}"
    );
    let avg = if inter_bytes > 0 {
        byte_hops as f64 / inter_bytes as f64
    } else {
        0.0
    };
    assert!((s.avg_hops - avg).abs() < 1e-12, "{what}");
    assert_eq!(
        s.max_nodes_talked_to,
        nodes.values().map(|v| v.len()).max().unwrap_or(0),
        "{what}"
    );
    let class_total: u64 = s.by_class.iter().map(|c| c.messages).sum();
    assert_eq!(class_total, want.len() as u64);
    // Per locality: the most one rank sends and receives, each on its own.
    let mut by_loc: BTreeMap<(u32, bool, usize), u64> = BTreeMap::new();
    for &(f, t) in want.keys() {
        let k = brute_place(m, f, t).0.index();
        *by_loc.entry((f, true, k)).or_default() += 1;
        *by_loc.entry((t, false, k)).or_default() += 1;
    }
    let most = |sending: bool, k: usize| {
        (by_loc.iter())
            .filter(|((_, s, l), _)| *s == sending && *l == k)
            .map(|(_, n)| *n)
            .max()
            .unwrap_or(0)
    };
    let expect = |sending| vec![most(sending, 0), most(sending, 1), most(sending, 2)];
    assert_eq!(
        s.messages.max_sent_by_locality.values(),
        expect(true),
        "{what}"
    );
    assert_eq!(
        s.messages.max_recv_by_locality.values(),
        expect(false),
        "{what}"
    );
    // Per class: totals and the most one rank sends.
    for c in &s.by_class {
        let mut per_rank: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
        let (mut n, mut b) = (0, 0);
        for (&(f, t), &bytes) in want {
            let proto = if bytes < 500 {
                Protocol::Short
            } else if bytes < 8000 {
                Protocol::Eager
            } else {
                Protocol::Rend
            };
            if brute_place(m, f, t).0.default_name() == c.locality && proto == c.protocol {
                n += 1;
                b += bytes;
                let e = per_rank.entry(f).or_default();
                e.0 += 1;
                e.1 += bytes;
            }
        }
        assert_eq!(
            (c.messages, c.bytes),
            (n, b),
            "{what} {:?} {:?}",
            c.locality,
            c.protocol
        );
        assert_eq!(
            c.max_sent,
            per_rank.values().map(|v| v.0).max().unwrap_or(0),
            "{what}"
        );
        assert_eq!(
            c.max_bytes_sent,
            per_rank.values().map(|v| v.1).max().unwrap_or(0),
            "{what}"
        );
    }
}

#[test]
fn fast_path_agrees_with_brute_force_on_random_matrices_and_partitions() {
    let mut rng = Rng(2024);
    for case in 0..12 {
        let (n, nc) = (200 + rng.next(300), 40 + rng.next(60));
        let m = machine(2 + rng.next(6), [2, 4, 8][rng.next(3)], 2);
        let ranks = m.ranks();
        // Dense enough in some cases for eager and rendezvous messages.
        let a_rows = random_matrix(&mut rng, n, n, [12, 60, 200][case % 3]);
        let p_rows = random_matrix(&mut rng, n, nc, 4);
        let owner: Vec<u32> = (0..n).map(|_| rng.next(ranks) as u32).collect();
        let coarse_owner: Vec<u32> = (0..nc).map(|_| rng.next(ranks) as u32).collect();
        let (a, p) = (from_lists(n, &a_rows), from_lists(nc, &p_rows));
        let part = Partition {
            owner: owner.clone(),
            ranks,
        };
        let coarse = Partition {
            owner: coarse_owner.clone(),
            ranks,
        };
        let (spmv, spgemm) = comm::spmv_spgemm(&a, Some(&p), &part, &m);
        check_against(
            &spmv,
            &brute_spmv(&a_rows, None, &owner),
            &m,
            &format!("case {case} spmv"),
        );
        let runs: BTreeMap<(u32, u32), u32> = spmv
            .messages
            .iter()
            .map(|msg| ((msg.from, msg.to), msg.runs))
            .collect();
        assert_eq!(runs, brute_runs(&a_rows, &owner), "case {case} runs");
        let spgemm_runs: Vec<u32> = spgemm
            .as_ref()
            .unwrap()
            .messages
            .iter()
            .map(|m| m.runs)
            .collect();
        assert_eq!(
            spgemm_runs,
            spmv.messages.iter().map(|m| m.runs).collect::<Vec<_>>()
        );
        // Summaries do not depend on the order of the messages (a strategy's
        // steps are summarised one after another).
        let mut by_receiver = spmv.clone();
        by_receiver.messages.sort_by_key(|msg| (msg.to, msg.from));
        assert_eq!(
            comm::summarize(&by_receiver, &m),
            comm::summarize(&spmv, &m)
        );
        check_against(
            spgemm.as_ref().unwrap(),
            &brute_spmv(&a_rows, Some(&p_rows), &owner),
            &m,
            &format!("case {case} spgemm"),
        );
        let ptap = comm::ptap(&a, &p, &part, &coarse, &m);
        check_against(
            &ptap,
            &brute_ptap(&a_rows, &p_rows, &owner, &coarse_owner),
            &m,
            &format!("case {case} ptap"),
        );
    }
}

#[test]
fn summaries_summed_while_building_match_summarize() {
    // Symmetric patterns take A for A^T; the others its transpose, and
    // their ranks' receiving nodes differ from their sending ones.
    let mut rng = Rng(77);
    let placements = [
        Placement::Smp,
        Placement::RoundRobin,
        Placement::Random { seed: 5 },
    ];
    for case in 0..12 {
        // Sparse rows on many nodes: a rank talks to few of them, so sends
        // alone would miss nodes it only receives from.
        let n = 150 + rng.next(200);
        let mut m = machine(8 + rng.next(24), [2, 4][rng.next(2)], 2);
        m.placement = placements[case % 3];
        let ranks = m.ranks();
        let mut a_rows = random_matrix(&mut rng, n, n, [3, 12][case % 2]);
        let symmetric = case % 4 < 2;
        if symmetric {
            let upper: Vec<(u32, u32)> = (a_rows.iter().enumerate())
                .flat_map(|(i, r)| r.iter().map(move |&j| (i as u32, j)))
                .collect();
            for (i, j) in upper {
                a_rows[j as usize].push(i);
            }
            for r in &mut a_rows {
                r.sort_unstable();
                r.dedup();
            }
        }
        let a = from_lists(n, &a_rows);
        assert_eq!(csr::is_pattern_symmetric(&a), symmetric, "case {case}");
        let p_rows = random_matrix(&mut rng, n, 30, 3);
        let p = from_lists(30, &p_rows);
        let owner: Vec<u32> = (0..n).map(|_| rng.next(ranks) as u32).collect();
        let part = Partition {
            owner: owner.clone(),
            ranks,
        };
        let with_p = case % 3 != 2;
        let (spmv, spgemm) = comm::spmv_spgemm_summarized(&a, with_p.then_some(&p), &part, &m);
        // Pairs and sizes; localities and hops are checked elsewhere (the
        // brute-force placement is smp only).
        let flat = |want: BTreeMap<(u32, u32), u64>| -> Vec<(u32, u32, u64)> {
            want.into_iter().map(|((f, t), b)| (f, t, b)).collect()
        };
        assert_eq!(triples(&spmv.0), flat(brute_spmv(&a_rows, None, &owner)));
        assert_eq!(spmv.1, comm::summarize(&spmv.0, &m), "case {case} spmv");
        // Runs of one sender, found in parallel ranges; out of order, none.
        let mut runs: BTreeMap<u32, usize> = BTreeMap::new();
        for msg in &spmv.0.messages {
            *runs.entry(msg.from).or_default() += 1;
        }
        let got = spmv
            .0
            .per_sender(|run| (run[0].from, run.len()))
            .map(|p| p.concat());
        assert_eq!(got, Some(runs.into_iter().collect()), "case {case}");
        let mut moved = spmv.0.clone();
        let last = moved.messages.pop().unwrap();
        moved.messages.insert(moved.messages.len() / 2, last);
        if !moved.messages.is_sorted_by_key(|msg| msg.from) {
            assert!(moved.per_sender(|run| run.len()).is_none(), "case {case}");
        }
        // Out of order, the rate terms sort first: the same cost.
        let model = amgcomm::model::Model::default();
        let places = m.places();
        let cost = |pattern: &Pattern| {
            let x = amgcomm::model::Exchange {
                pattern,
                summary: &spmv.1,
                machine: &m,
                places: &places,
                copies: None,
                local_nonzeros: None,
                device: false,
            };
            amgcomm::model::cost(&x, &model)
        };
        assert_eq!(cost(&moved), cost(&spmv.0));
        assert_eq!(spgemm.is_some(), with_p);
        if let Some((pat, summary)) = spgemm {
            let want = flat(brute_spmv(&a_rows, Some(&p_rows), &owner));
            assert_eq!(triples(&pat), want, "case {case} spgemm");
            assert_eq!(summary, comm::summarize(&pat, &m), "case {case} spgemm");
        }
    }
}
