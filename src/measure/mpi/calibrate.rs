//! The calibration's experiments with real MPI: ping-pongs per locality,
//! the injection test for `R_N`, the queue-search test for `gamma` and
//! the contention patterns for `delta` ([`super::super::calibrate`] fits
//! them). Every rank calls [`measure`]; the ranks a test does not use
//! wait in [`Session::quiet_barrier`], asleep, so that on a computer with
//! fewer cores than ranks the measuring ranks keep the cores.

use mpi::topology::{Color, Communicator, Process, SimpleCommunicator};
use mpi::traits::*;

use super::{exchange, Session, Topology};
use crate::machine::{Locality, Machine};
use crate::measure::calibrate::{contention_patterns, Experiment, Sample, Schedule};
use crate::measure::fit::median;

/// Tags of the tests' control messages (repetition counts, hand-shakes),
/// above any message count of the queue test.
const CONTROL: i32 = 30_000;
const READY: i32 = 30_001;
const DONE: i32 = 30_002;
const DATA: i32 = 1;

/// How the sockets of the ranks were found.
#[derive(Clone, Debug, PartialEq)]
pub struct Sockets {
    /// Sockets per node.
    pub per_node: usize,
    /// The socket of each rank, on its node.
    pub of_rank: Vec<usize>,
    /// How they were found, for the machine file's notes.
    pub note: String,
}

/// The sockets of the ranks: from `--sockets S` (ranks on them by local
/// index, as the model places them), else from hwloc (`bound`: each
/// rank's package, gathered; `packages`: hwloc's count), else one per
/// node. Collective.
pub fn sockets(
    s: &Session,
    t: &Topology,
    flag: Option<usize>,
    hwloc: Option<(usize, Option<usize>)>,
) -> Result<Sockets, String> {
    let by_rule = |per_node: usize| -> Vec<usize> {
        (0..s.size)
            .map(|r| t.local_of(r) / (t.ppn / per_node))
            .collect()
    };
    let mine = hwloc.and_then(|h| h.1).map_or(u64::MAX, |p| p as u64);
    let bound = s.all_gather(mine);
    if let Some(k) = flag {
        if k == 0 || !t.ppn.is_multiple_of(k) {
            return Err(format!(
                "--sockets {k}: the {} ranks per node do not divide among {k} sockets",
                t.ppn
            ));
        }
        return Ok(Sockets {
            per_node: k,
            of_rank: by_rule(k),
            note: format!(
                "sockets from --sockets {k}: ranks on them by local index, {} each",
                t.ppn / k
            ),
        });
    }
    let Some((packages, _)) = hwloc else {
        return Ok(Sockets {
            per_node: 1,
            of_rank: vec![0; s.size],
            note: "hwloc's tools not found: one socket per node assumed (give --sockets S)".into(),
        });
    };
    if bound.iter().all(|&b| b != u64::MAX) {
        // Each node's packages renumbered in order of appearance.
        let mut of_rank = vec![0usize; s.size];
        let mut per_node = 0;
        for ranks in &t.ranks_of_node {
            let mut seen: Vec<u64> = Vec::new();
            for &r in ranks {
                let k = match seen.iter().position(|&p| p == bound[r]) {
                    Some(k) => k,
                    None => {
                        seen.push(bound[r]);
                        seen.len() - 1
                    }
                };
                of_rank[r] = k;
            }
            per_node = per_node.max(seen.len());
        }
        let rule = t.ppn.is_multiple_of(per_node).then(|| by_rule(per_node));
        let note = if rule.as_ref() == Some(&of_rank) {
            format!("sockets from hwloc: {per_node} per node used, ranks bound to one each as the model places them")
        } else {
            format!("sockets from hwloc: {per_node} per node used; MPI bound the ranks otherwise than the model's rule (local index / (ppn / sockets)): measured pairs follow the binding, the model classifies by the rule")
        };
        return Ok(Sockets {
            per_node,
            of_rank,
            note,
        });
    }
    let per_node = if t.ppn.is_multiple_of(packages) {
        packages
    } else {
        1
    };
    Ok(Sockets {
        per_node,
        of_rank: by_rule(per_node),
        note: format!(
            "hwloc: {packages} socket(s), ranks not bound to one: {per_node} per node assumed, by local index; bind them (mpirun --bind-to core) for clean socket and node classes"
        ),
    })
}

/// The two ranks of each measured locality: two ranks of node 0 on one
/// socket, two on different sockets, the first ranks of nodes 0 and 1.
pub fn pairs(t: &Topology, sockets: &Sockets) -> Vec<(Locality, usize, usize)> {
    let node0 = &t.ranks_of_node[0];
    let mut out = Vec::new();
    let a = node0[0];
    if let Some(&b) = node0[1..]
        .iter()
        .find(|&&b| sockets.of_rank[b] == sockets.of_rank[a])
    {
        out.push((Locality::SOCKET, a, b));
    }
    if let Some(&b) = node0[1..]
        .iter()
        .find(|&&b| sockets.of_rank[b] != sockets.of_rank[a])
    {
        out.push((Locality::NODE, a, b));
    }
    if t.nodes > 1 {
        out.push((Locality::NETWORK, a, t.ranks_of_node[1][0]));
    }
    out
}

/// A communicator of the ranks in `members` (`None` elsewhere).
/// Collective.
fn group(s: &Session, members: &[usize]) -> Option<SimpleCommunicator> {
    let color = if members.contains(&s.rank) {
        Color::with_value(0)
    } else {
        Color::undefined()
    };
    s.world().split_by_color(color)
}

/// Repetitions that fill a batch of about `seconds`, from one exchange
/// `a` timed; `a` sends its count to its peer, so both run as many.
fn repetitions(peer: &Process, me_a: bool, seconds: f64, one: f64) -> u64 {
    let mut reps = (seconds / one.max(1e-7)).clamp(1.0, 10_000.0) as u64;
    if me_a {
        peer.send_with_tag(&reps, CONTROL);
    } else {
        peer.receive_into_with_tag(&mut reps, CONTROL);
    }
    reps
}

/// A sample of `batches` (seconds each): their median and minimum.
#[allow(clippy::too_many_arguments)]
fn sample(
    experiment: Experiment,
    pattern: String,
    bytes: u64,
    messages: u64,
    active: u64,
    hops: f64,
    batches: &[f64],
    repetitions: u64,
) -> Sample {
    Sample {
        experiment,
        pattern,
        bytes,
        messages,
        active,
        hops,
        seconds: median(batches),
        min_seconds: batches.iter().copied().fold(f64::INFINITY, f64::min),
        repetitions,
    }
}

/// Ping-pong between `a` and `b` over the schedule's sizes: one-way time
/// (half a round trip), per batch the mean over its repetitions. Samples
/// on `a`.
fn pingpong(s: &Session, locality: Locality, a: usize, b: usize, o: &Schedule) -> Vec<Sample> {
    let mut out = Vec::new();
    if s.rank != a && s.rank != b {
        return out;
    }
    let w = s.world();
    let (me_a, peer) = (
        s.rank == a,
        w.process_at_rank(if s.rank == a { b } else { a } as i32),
    );
    let largest = *o.sizes.last().unwrap_or(&1) as usize;
    let mut buf = vec![1u8; largest];
    let round = |buf: &mut [u8]| {
        if me_a {
            peer.send_with_tag(&*buf, DATA);
            peer.receive_into_with_tag(buf, DATA);
        } else {
            peer.receive_into_with_tag(buf, DATA);
            peer.send_with_tag(&*buf, DATA);
        }
    };
    // Warm up the pair (pages, caches, clocks) before the first size: the
    // first microseconds of a run are slower than the rest.
    let t0 = mpi::time();
    let mut n = 0u64;
    loop {
        round(&mut buf[..1]);
        n += 1;
        // Both ranks stop after the same count: a's decides.
        let mut more = u8::from(mpi::time() - t0 < 20.0 * o.batch_seconds && n < 100_000);
        if me_a {
            peer.send_with_tag(&more, CONTROL);
        } else {
            peer.receive_into_with_tag(&mut more, CONTROL);
        }
        if more == 0 {
            break;
        }
    }
    for &size in &o.sizes {
        let m = &mut buf[..size as usize];
        round(m);
        let t0 = mpi::time();
        round(m);
        let reps = repetitions(&peer, me_a, o.batch_seconds, mpi::time() - t0);
        let mut batches = Vec::with_capacity(o.batches);
        for _ in 0..o.batches {
            let t0 = mpi::time();
            for _ in 0..reps {
                round(m);
            }
            batches.push((mpi::time() - t0) / (2 * reps) as f64);
        }
        if me_a {
            let pattern = format!("ranks {a}-{b}");
            out.push(sample(
                Experiment::PingPong(locality),
                pattern,
                size,
                1,
                1,
                0.0,
                &batches,
                reps,
            ));
        }
    }
    out
}

/// `n` messages of 8 bytes from `a` to `b`, whose receives `b` posted
/// before, in matching or in reversed tag order, or which `b` receives
/// one at a time as they come (a blocking probe, then the receive: RAPtor's
/// `communicate(A)`, for `row_work.per_received`): from `b`'s "ready" to
/// its "done", timed on `a`. Samples on `a`.
fn queue(s: &Session, a: usize, b: usize, o: &Schedule) -> Vec<Sample> {
    let mut out = Vec::new();
    if s.rank != a && s.rank != b {
        return out;
    }
    let w = s.world();
    let me_a = s.rank == a;
    let peer = w.process_at_rank(if me_a { b } else { a } as i32);
    for &n in &o.queue_counts {
        let send = vec![7u8; 8 * n];
        let mut recv = vec![0u8; 8 * n];
        for experiment in [
            Experiment::QueueMatching,
            Experiment::QueueReversed,
            Experiment::RecvSerial,
        ] {
            let mut exchange = || -> f64 {
                if me_a {
                    let mut flag = 0u8;
                    peer.receive_into_with_tag(&mut flag, READY);
                    let t0 = mpi::time();
                    mpi::request::multiple_scope(n, |scope, coll| {
                        for (k, chunk) in send.chunks(8).enumerate() {
                            coll.add(peer.immediate_send_with_tag(scope, chunk, k as i32));
                        }
                        let mut done = Vec::new();
                        coll.wait_all(&mut done);
                    });
                    peer.receive_into_with_tag(&mut flag, DONE);
                    mpi::time() - t0
                } else if experiment == Experiment::RecvSerial {
                    // RAPtor's receive of rows: nothing posted before the
                    // messages come; each probed (its size read), then
                    // received, one after the other.
                    peer.send_with_tag(&1u8, READY);
                    for (k, chunk) in recv.chunks_mut(8).enumerate() {
                        let status = peer.probe_with_tag(k as i32);
                        let bytes = status.count(u8::equivalent_datatype()) as usize;
                        peer.receive_into_with_tag(&mut chunk[..bytes.min(8)], k as i32);
                    }
                    peer.send_with_tag(&1u8, DONE);
                    0.0
                } else {
                    mpi::request::multiple_scope(n, |scope, coll| {
                        let mut chunks: Vec<(usize, &mut [u8])> =
                            recv.chunks_mut(8).enumerate().collect();
                        if experiment == Experiment::QueueReversed {
                            chunks.reverse();
                        }
                        for (k, chunk) in chunks {
                            coll.add(peer.immediate_receive_into_with_tag(scope, chunk, k as i32));
                        }
                        peer.send_with_tag(&1u8, READY);
                        let mut done = Vec::new();
                        coll.wait_all(&mut done);
                    });
                    peer.send_with_tag(&1u8, DONE);
                    0.0
                }
            };
            exchange();
            let one = exchange();
            let reps = repetitions(&peer, me_a, o.batch_seconds, one);
            let mut batches = Vec::with_capacity(o.batches);
            for _ in 0..o.batches {
                let total: f64 = (0..reps).map(|_| exchange()).sum();
                batches.push(total / reps as f64);
            }
            if me_a {
                out.push(sample(
                    experiment,
                    format!("ranks {a}-{b}"),
                    8,
                    n as u64,
                    1,
                    0.0,
                    &batches,
                    reps,
                ));
            }
        }
    }
    out
}

/// Every rank in `messages` (from, to) sends `bytes` to its partner at
/// once; per batch, the slowest participant's mean over `reps`, on the
/// group's first rank. Collective over the world (the rest wait asleep).
fn simultaneous(
    s: &Session,
    messages: &[(usize, usize)],
    bytes: usize,
    batches: usize,
    reps: u64,
) -> Vec<f64> {
    let mut members: Vec<usize> = messages.iter().flat_map(|&(a, b)| [a, b]).collect();
    members.sort_unstable();
    members.dedup();
    let comm = group(s, &members);
    let mut out = Vec::new();
    if let Some(g) = comm {
        let sends: Vec<(usize, usize)> = messages
            .iter()
            .filter(|m| m.0 == s.rank)
            .map(|m| (m.1, bytes))
            .collect();
        let recvs: Vec<(usize, usize)> = messages
            .iter()
            .filter(|m| m.1 == s.rank)
            .map(|m| (m.0, bytes))
            .collect();
        let sbuf = vec![3u8; bytes];
        let mut rbuf = vec![0u8; bytes * recvs.len()];
        exchange(s, &sends, &recvs, &sbuf, &mut rbuf, DATA);
        for _ in 0..batches {
            g.barrier();
            let t0 = mpi::time();
            for _ in 0..reps {
                exchange(s, &sends, &recvs, &sbuf, &mut rbuf, DATA);
            }
            let t = (mpi::time() - t0) / reps as f64;
            let root = g.process_at_rank(0);
            if g.rank() == 0 {
                let mut max = 0.0;
                root.reduce_into_root(&t, &mut max, mpi::collective::SystemOperation::max());
                out.push(max);
            } else {
                root.reduce_into(&t, mpi::collective::SystemOperation::max());
            }
        }
    }
    s.quiet_barrier();
    out
}

/// The node rate with `a` = 1, 2, 4, ... and all ranks of node 0 each
/// sending `injection_bytes` to its counterpart on node 1. Samples on
/// node 0's first rank.
fn injection(s: &Session, t: &Topology, o: &Schedule) -> Vec<Sample> {
    let mut out = Vec::new();
    if t.nodes < 2 {
        return out;
    }
    let mut counts: Vec<usize> = (0..)
        .map(|k| 1usize << k)
        .take_while(|&a| a < t.ppn)
        .collect();
    counts.push(t.ppn);
    let bytes = o.injection_bytes as usize;
    let reps = if o.batches > 3 { 4 } else { 2 };
    for a in counts {
        let messages: Vec<(usize, usize)> = (0..a)
            .map(|k| (t.ranks_of_node[0][k], t.ranks_of_node[1][k]))
            .collect();
        let batches = simultaneous(s, &messages, bytes, o.batches, reps);
        if !batches.is_empty() {
            out.push(sample(
                Experiment::Injection,
                "node 0 -> node 1".into(),
                bytes as u64,
                a as u64,
                a as u64,
                0.0,
                &batches,
                reps,
            ));
        }
    }
    out
}

/// Shifts (every node `i` to node `i + d`) and pairs (node 0 to node
/// `j`), every rank of a sending node to the same local rank there, at
/// the contention sizes ([`contention_patterns`]); hops on `m`'s
/// network. Needs 3 nodes.
fn contention(s: &Session, t: &Topology, m: &Machine, o: &Schedule) -> Vec<Sample> {
    let mut out = Vec::new();
    if t.nodes < 3 {
        return out;
    }
    let net = m.network();
    let hops = |x: usize, y: usize| net.hops(x, y) as f64;
    let patterns = contention_patterns(t.nodes);
    let reps = 2;
    for (name, node_pairs) in &patterns {
        let messages: Vec<(usize, usize)> = node_pairs
            .iter()
            .flat_map(|&(x, y)| (0..t.ppn).map(move |k| (x, y, k)))
            .map(|(x, y, k)| (t.ranks_of_node[x][k], t.ranks_of_node[y][k]))
            .collect();
        let h = node_pairs.iter().map(|&(x, y)| hops(x, y)).sum::<f64>() / node_pairs.len() as f64;
        for &bytes in &o.contention_bytes {
            let batches = simultaneous(s, &messages, bytes as usize, o.batches, reps);
            if !batches.is_empty() {
                out.push(sample(
                    Experiment::Contention,
                    name.clone(),
                    bytes,
                    messages.len() as u64,
                    t.ppn as u64,
                    h,
                    &batches,
                    reps,
                ));
            }
        }
    }
    out
}

/// RAPtor's local work around an exchange of rows
/// ([`crate::measure::row_kernels`]), every rank at it at once as in an
/// exchange: per size, each batch the slowest rank's mean. Samples on
/// rank 0.
fn row_work(s: &Session, o: &Schedule) -> Vec<Sample> {
    let mut out = Vec::new();
    for &rows in &o.row_rows {
        let (mut copy, mut pack, mut counts) = (Vec::new(), Vec::new(), (0, 0));
        for _ in 0..o.batches {
            s.quiet_barrier();
            let t = crate::measure::row_kernels::time(rows, s.rank, o.row_batch_seconds);
            let worst = s.max_on_root(&[t.copy_seconds, t.pack_seconds]);
            copy.push(worst[0]);
            pack.push(worst[1]);
            counts = (t.nnz as u64, t.elements as u64);
        }
        if s.rank == 0 {
            let pattern = format!("{rows} rows a rank");
            let ranks = s.size as u64;
            out.push(sample(
                Experiment::RowCopy,
                pattern.clone(),
                0,
                counts.0,
                ranks,
                0.0,
                &copy,
                1,
            ));
            out.push(sample(
                Experiment::RowPack,
                pattern,
                0,
                counts.1,
                ranks,
                0.0,
                &pack,
                1,
            ));
        }
    }
    out
}

/// Runs every test (collective) and returns all samples on rank 0 (empty
/// elsewhere). `m` gives the network for the contention hops.
pub fn measure(
    s: &Session,
    t: &Topology,
    sockets: &Sockets,
    m: &Machine,
    o: &Schedule,
) -> Vec<Sample> {
    let mut mine = Vec::new();
    let pairs = pairs(t, sockets);
    for &(locality, a, b) in &pairs {
        mine.extend(pingpong(s, locality, a, b, o));
        s.quiet_barrier();
    }
    mine.extend(injection(s, t, o));
    if let Some(&(_, a, b)) = pairs.first() {
        mine.extend(queue(s, a, b, o));
        s.quiet_barrier();
    }
    mine.extend(contention(s, t, m, o));
    s.quiet_barrier();
    mine.extend(row_work(s, o));
    let text = serde_json::to_vec(&mine).expect("samples serialise");
    let all = s.gather_bytes(&text);
    all.iter()
        .flat_map(|b| serde_json::from_slice::<Vec<Sample>>(b).expect("samples of this program"))
        .collect()
}
