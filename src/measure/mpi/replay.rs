//! The replay with real MPI: each level's saved exchange, step by step,
//! with the saved byte sizes. Per iteration every rank posts `MPI_Irecv`
//! for each message it receives, then `MPI_Isend` for each it sends, then
//! `MPI_Waitall`; iterations are separated by barriers, and the only
//! other traffic is collective (the sizes exchanged before timing, the
//! timings reduced after), so the point-to-point traffic is exactly the
//! pattern's.

use mpi::traits::*;

use super::{exchange, Failure, Session};
use crate::comm::pattern_file::PatternIndex;
use crate::measure::replay::{RankPart, Replayed};

/// Tag of replayed messages; MPI keeps the order of messages between two
/// ranks on one tag, so a pair's messages of a step match in file order.
const TAG: i32 = 7;

/// What one rank does in one step: (receiver, bytes) sent and (sender,
/// bytes) received.
struct Step {
    sends: Vec<(usize, usize)>,
    recvs: Vec<(usize, usize)>,
}

/// Who sends this rank what in one step, learnt from the senders: counts
/// by `MPI_Alltoall`, sizes by `MPI_Alltoallv` (collective).
fn incoming(s: &Session, sends: &[(u32, u64)]) -> Vec<(usize, usize)> {
    let w = s.world();
    let mut counts = vec![0i32; s.size];
    for &(to, _) in sends {
        counts[to as usize] += 1;
    }
    let mut from_counts = vec![0i32; s.size];
    w.all_to_all_into(&counts[..], &mut from_counts[..]);
    let displs = |c: &[i32]| -> Vec<i32> {
        c.iter()
            .scan(0, |acc, &x| {
                let d = *acc;
                *acc += x;
                Some(d)
            })
            .collect()
    };
    // Sends are by receiver within the step (the file's order).
    let mut by_to: Vec<(u32, u64)> = sends.to_vec();
    by_to.sort_by_key(|m| m.0);
    let sizes: Vec<u64> = by_to.iter().map(|m| m.1).collect();
    let mut got = vec![0u64; from_counts.iter().map(|&c| c as usize).sum()];
    {
        let (sd, rd) = (displs(&counts), displs(&from_counts));
        let send = mpi::datatype::Partition::new(&sizes[..], &counts[..], &sd[..]);
        let mut recv = mpi::datatype::PartitionMut::new(&mut got[..], &from_counts[..], &rd[..]);
        w.all_to_all_varcount_into(&send, &mut recv);
    }
    let mut out = Vec::with_capacity(got.len());
    let mut k = 0;
    for (from, &c) in from_counts.iter().enumerate() {
        for _ in 0..c {
            out.push((from, got[k] as usize));
            k += 1;
        }
    }
    out
}

/// Replays every file (collective): `parts[k]` is this rank's part of
/// `files[k]`. Returns the timings on rank 0 (empty elsewhere); `each`
/// is called on rank 0 after each file, for progress. Fails on every
/// rank alike when the ranks together did not find every message of a
/// step (records out of sender order) or a rank's buffers would not fit
/// in memory.
pub fn replay(
    s: &Session,
    files: &[PatternIndex],
    parts: &[RankPart],
    iterations: usize,
    warmup: usize,
    mut each: impl FnMut(&Replayed),
) -> Result<Vec<Replayed>, Failure> {
    let mut out = Vec::new();
    for (file, part) in files.iter().zip(parts) {
        let found = s.sum_all(
            &part
                .sends
                .iter()
                .map(|v| v.len() as u64)
                .collect::<Vec<_>>(),
        );
        for (k, st) in file.steps.iter().enumerate() {
            if found[k] != st.messages {
                return Err(Failure {
                    rank: 0,
                    message: format!(
                        "{}: step {}: the ranks found {} of its {} messages: its records are not by sender",
                        file.path.display(),
                        st.name,
                        found[k],
                        st.messages
                    ),
                    status: 1,
                });
            }
        }
        let steps: Vec<Step> = part
            .sends
            .iter()
            .map(|sends| Step {
                recvs: incoming(s, sends),
                sends: sends
                    .iter()
                    .map(|&(to, b)| (to as usize, b as usize))
                    .collect(),
            })
            .collect();
        let largest = steps
            .iter()
            .flat_map(|st| st.sends.iter().map(|m| m.1))
            .max()
            .unwrap_or(0);
        let inbox = steps
            .iter()
            .map(|st| st.recvs.iter().map(|m| m.1).sum::<usize>())
            .max()
            .unwrap_or(0);
        let need = (largest + inbox) as u64;
        let fits = crate::memory::check(need, || {
            format!(
                "{}: rank {}'s send and receive buffers",
                file.path.display(),
                s.rank
            )
        });
        s.agree(fits.err().map(|e| (e.to_string(), 1)))?;
        let sbuf = vec![1u8; largest];
        let mut rbuf = vec![0u8; inbox];
        let active = steps
            .iter()
            .any(|st| !st.sends.is_empty() || !st.recvs.is_empty());
        let figures = s.sum_all(&[part.messages(), part.bytes(), u64::from(active)]);
        let max_msgs = s.max_all(&[part.messages()])[0];
        let mut times = Vec::with_capacity(iterations);
        for it in 0..warmup + iterations {
            s.world().barrier();
            let t0 = mpi::time();
            for st in &steps {
                exchange(s, &st.sends, &st.recvs, &sbuf, &mut rbuf, TAG);
            }
            let t = mpi::time() - t0;
            if it >= warmup {
                times.push(t);
            }
        }
        let seconds = s.max_on_root(&times);
        if s.rank == 0 {
            let r = Replayed {
                level: file.level,
                op: file.op,
                seconds,
                max_msgs,
                messages: figures[0],
                bytes: figures[1],
                active: figures[2] as usize,
            };
            each(&r);
            out.push(r);
        }
    }
    Ok(out)
}
