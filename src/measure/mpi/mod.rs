//! Real MPI (feature `mpi`, rsmpi): the session every measuring command
//! opens, where its ranks run, and the two commands' MPI parts,
//! [`calibrate`] and [`replay`].
//!
//! Every rank runs the same steps. A step that can fail on some ranks
//! only (a file one rank cannot read) ends with [`Session::agree`], a
//! collective that tells every rank the first failure, so all ranks stop
//! together and none waits forever in a later collective; rank 0 alone
//! prints it.
//!
//! May use the stages before `measure`, the rest of `measure` and rsmpi;
//! nothing outside `measure` uses it but the command line
//! (`tests/layering.rs`).

pub mod calibrate;
pub mod replay;

use mpi::collective::SystemOperation;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;

use crate::machine::Placement;

/// An MPI run: initialised on open, finalised on drop.
pub struct Session {
    world: SimpleCommunicator,
    /// This process's rank in the world.
    pub rank: usize,
    /// Ranks in the world.
    pub size: usize,
    // Declared last, dropped last (fields drop in order): MPI_Finalize.
    _universe: mpi::environment::Universe,
}

/// A failure on some rank, as every rank learns it from
/// [`Session::agree`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The lowest rank that failed.
    pub rank: usize,
    /// Its message (one line).
    pub message: String,
    /// Its exit status.
    pub status: i32,
}

impl Session {
    /// `MPI_Init`; `None` if MPI was initialised already.
    pub fn open() -> Option<Session> {
        let universe = mpi::initialize()?;
        let world = universe.world();
        let (rank, size) = (world.rank() as usize, world.size() as usize);
        Some(Session {
            world,
            rank,
            size,
            _universe: universe,
        })
    }

    /// The world communicator.
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }

    /// `MPI_Get_library_version`, its first line up to the first comma,
    /// blanks collapsed: "Open MPI v4.1.4", "MPICH Version: 4.0.2".
    pub fn library_version() -> String {
        let v = mpi::environment::library_version().unwrap_or_default();
        let line = v.split(['\0', '\n']).next().unwrap_or("");
        let head = line.split(',').next().unwrap_or("");
        let words: Vec<&str> = head.split_whitespace().collect();
        if words.is_empty() {
            "unknown MPI library".into()
        } else {
            words.join(" ")
        }
    }

    /// Whether every rank succeeded; otherwise the failure of the lowest
    /// failing rank, on every rank. `local` is this rank's failure, if
    /// any, as (message, exit status). Collective: every rank calls it
    /// at the same step.
    pub fn agree(&self, local: Option<(String, i32)>) -> Result<(), Failure> {
        let mine = if local.is_some() {
            self.rank as i64
        } else {
            self.size as i64
        };
        let mut first = 0i64;
        self.world
            .all_reduce_into(&mine, &mut first, SystemOperation::min());
        if first as usize >= self.size {
            return Ok(());
        }
        let root = self.world.process_at_rank(first as i32);
        let (text, status) = local.unwrap_or_default();
        let mut head: [i64; 2] = [text.len() as i64, status as i64];
        root.broadcast_into(&mut head[..]);
        let mut bytes = if self.rank == first as usize {
            text.into_bytes()
        } else {
            vec![0u8; head[0] as usize]
        };
        root.broadcast_into(&mut bytes[..]);
        Err(Failure {
            rank: first as usize,
            message: String::from_utf8_lossy(&bytes).into_owned(),
            status: head[1] as i32,
        })
    }

    /// `MPI_Barrier`.
    pub fn barrier(&self) {
        self.world.barrier();
    }

    /// A barrier that sleeps while it waits (`MPI_Ibarrier` polled at
    /// intervals growing from 50 us to 5 ms), so that ranks idle during a
    /// two-rank test leave the cores to the ranks measuring, also when
    /// ranks outnumber cores.
    pub fn quiet_barrier(&self) {
        let mut req = self.world.immediate_barrier();
        let mut nap = 50u64;
        loop {
            match req.test() {
                Ok(_) => return,
                Err(r) => {
                    req = r;
                    std::thread::sleep(std::time::Duration::from_micros(nap));
                    nap = (nap * 2).min(5000);
                }
            }
        }
    }

    /// The host this rank runs on (MPI's processor name).
    pub fn processor_name() -> String {
        mpi::environment::processor_name().unwrap_or_else(|_| "an unnamed host".into())
    }

    /// The largest of every rank's `x`, on rank 0 (others get `x`).
    pub fn max_on_root(&self, x: &[f64]) -> Vec<f64> {
        let root = self.world.process_at_rank(0);
        if self.rank == 0 {
            let mut out = vec![0.0; x.len()];
            root.reduce_into_root(x, &mut out[..], SystemOperation::max());
            out
        } else {
            root.reduce_into(x, SystemOperation::max());
            x.to_vec()
        }
    }

    /// The sum over ranks of `x`, on every rank.
    pub fn sum_all(&self, x: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; x.len()];
        self.world
            .all_reduce_into(x, &mut out[..], SystemOperation::sum());
        out
    }

    /// The largest over ranks of `x`, on every rank.
    pub fn max_all(&self, x: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; x.len()];
        self.world
            .all_reduce_into(x, &mut out[..], SystemOperation::max());
        out
    }

    /// Every rank's `x`, on every rank.
    pub fn all_gather(&self, x: u64) -> Vec<u64> {
        let mut out = vec![0u64; self.size];
        self.world.all_gather_into(&x, &mut out[..]);
        out
    }

    /// Every rank's `mine`, concatenated in rank order, on every rank
    /// (`MPI_Allgatherv`).
    pub fn all_gather_v<T: Equivalence + Copy + Default>(&self, mine: &[T]) -> Vec<T> {
        let lens: Vec<i32> = (self.all_gather(mine.len() as u64).iter())
            .map(|&n| count(n as usize))
            .collect();
        let displs = displacements(&lens);
        let mut out = vec![T::default(); lens.iter().map(|&l| l as usize).sum()];
        {
            let mut part = mpi::datatype::PartitionMut::new(&mut out[..], &lens[..], &displs[..]);
            self.world.all_gather_varcount_into(mine, &mut part);
        }
        out
    }

    /// `send[r]` to rank `r`, for every `r`; returns what each rank sent
    /// this one, by rank (`MPI_Alltoall` of the counts, then
    /// `MPI_Alltoallv`).
    pub fn all_to_all_v<T: Equivalence + Copy + Default>(&self, send: &[Vec<T>]) -> Vec<Vec<T>> {
        assert_eq!(send.len(), self.size);
        let counts: Vec<i32> = send.iter().map(|v| count(v.len())).collect();
        let mut from = vec![0i32; self.size];
        self.world.all_to_all_into(&counts[..], &mut from[..]);
        let flat: Vec<T> = send.concat();
        let (sd, rd) = (displacements(&counts), displacements(&from));
        let mut got = vec![T::default(); from.iter().map(|&c| c as usize).sum()];
        {
            let out = mpi::datatype::Partition::new(&flat[..], &counts[..], &sd[..]);
            let mut into = mpi::datatype::PartitionMut::new(&mut got[..], &from[..], &rd[..]);
            self.world.all_to_all_varcount_into(&out, &mut into);
        }
        (0..self.size)
            .map(|r| got[rd[r] as usize..(rd[r] + from[r]) as usize].to_vec())
            .collect()
    }

    /// Every rank's `mine`, concatenated in rank order, on rank 0 (`None`
    /// elsewhere).
    pub fn gather_v<T: Equivalence + Copy + Default>(&self, mine: &[T]) -> Option<Vec<T>> {
        let root = self.world.process_at_rank(0);
        let len = mine.len() as u64;
        if self.rank != 0 {
            root.gather_into(&len);
            root.gather_varcount_into(mine);
            return None;
        }
        let mut lens = vec![0u64; self.size];
        root.gather_into_root(&len, &mut lens[..]);
        let lens: Vec<i32> = lens.iter().map(|&n| count(n as usize)).collect();
        let displs = displacements(&lens);
        let mut out = vec![T::default(); lens.iter().map(|&l| l as usize).sum()];
        {
            let mut part = mpi::datatype::PartitionMut::new(&mut out[..], &lens[..], &displs[..]);
            root.gather_varcount_into_root(mine, &mut part);
        }
        Some(out)
    }

    /// Every rank's bytes, concatenated in rank order, on rank 0 (empty
    /// elsewhere).
    pub fn gather_bytes(&self, mine: &[u8]) -> Vec<Vec<u8>> {
        let root = self.world.process_at_rank(0);
        let len = mine.len() as i32;
        if self.rank != 0 {
            root.gather_into(&len);
            root.gather_varcount_into(mine);
            return Vec::new();
        }
        let mut lens = vec![0i32; self.size];
        root.gather_into_root(&len, &mut lens[..]);
        let displs: Vec<i32> = lens
            .iter()
            .scan(0, |acc, &x| {
                let d = *acc;
                *acc += x;
                Some(d)
            })
            .collect();
        let mut buf = vec![0u8; lens.iter().map(|&l| l as usize).sum()];
        {
            let mut part = mpi::datatype::PartitionMut::new(&mut buf[..], &lens[..], &displs[..]);
            root.gather_varcount_into_root(mine, &mut part);
        }
        (0..self.size)
            .map(|r| buf[displs[r] as usize..(displs[r] + lens[r]) as usize].to_vec())
            .collect()
    }
}

/// An element count as MPI takes it (a C `int`).
fn count(n: usize) -> i32 {
    i32::try_from(n).expect("fewer than 2^31 elements per rank in one collective")
}

/// Offsets of consecutive blocks of these lengths.
fn displacements(lens: &[i32]) -> Vec<i32> {
    lens.iter()
        .scan(0i32, |acc, &x| {
            let d = *acc;
            *acc += x;
            Some(d)
        })
        .collect()
}

/// One exchange of this rank in one step: a receive posted for every
/// (sender, bytes) of `recvs`, each into its own region of `rbuf`, then a
/// send of every (receiver, bytes) of `sends` from `sbuf` (sends may share
/// a buffer), then a wait for all. MPI keeps the order of the messages
/// between two ranks on one tag, so repeated pairs match in order.
pub fn exchange(
    s: &Session,
    sends: &[(usize, usize)],
    recvs: &[(usize, usize)],
    sbuf: &[u8],
    rbuf: &mut [u8],
    tag: i32,
) {
    let w = s.world();
    mpi::request::multiple_scope(sends.len() + recvs.len(), |scope, coll| {
        let mut rest: &mut [u8] = rbuf;
        for &(from, bytes) in recvs {
            let (head, tail) = rest.split_at_mut(bytes);
            rest = tail;
            coll.add(
                w.process_at_rank(from as i32)
                    .immediate_receive_into_with_tag(scope, head, tag),
            );
        }
        for &(to, bytes) in sends {
            coll.add(w.process_at_rank(to as i32).immediate_send_with_tag(
                scope,
                &sbuf[..bytes],
                tag,
            ));
        }
        let mut done = Vec::new();
        coll.wait_all(&mut done);
    });
}

/// Where the ranks of the run are: the nodes MPI reports (ranks sharing
/// memory, `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`), and the nodes
/// the measurements use, which `--ppn K` may cut into virtual nodes of K
/// ranks (on one computer, a loopback stand-in for several).
#[derive(Clone, Debug, PartialEq)]
pub struct Topology {
    /// Nodes MPI reports.
    pub real_nodes: usize,
    /// Nodes used (virtual when `ppn` divides a real node).
    pub nodes: usize,
    /// Ranks per node used.
    pub ppn: usize,
    /// World ranks of each node used, in rank order.
    pub ranks_of_node: Vec<Vec<usize>>,
    /// The node used of each world rank.
    pub node_of: Vec<usize>,
    /// `smp` (nodes are blocks of consecutive ranks) or `round-robin`;
    /// `None` for any other mapping.
    pub placement: Option<Placement>,
}

impl Topology {
    /// The local index of `rank` on its node.
    pub fn local_of(&self, rank: usize) -> usize {
        let node = &self.ranks_of_node[self.node_of[rank]];
        node.iter()
            .position(|&r| r == rank)
            .expect("rank on its node")
    }
}

/// Discovers the nodes (collective). `ppn`: cut each real node into
/// virtual nodes of this many ranks. Errors name what is inconsistent.
pub fn topology(s: &Session, ppn: Option<usize>) -> Result<Topology, String> {
    let node_comm = s.world.split_shared(s.rank as i32);
    // A node is named by its lowest world rank.
    let mut leader = s.rank as u64;
    node_comm.process_at_rank(0).broadcast_into(&mut leader);
    let leaders = s.all_gather(leader);
    let mut real: Vec<u64> = leaders.clone();
    real.sort_unstable();
    real.dedup();
    let real_index = |l: u64| real.binary_search(&l).expect("a leader");
    let mut real_ranks: Vec<Vec<usize>> = vec![Vec::new(); real.len()];
    for (r, &l) in leaders.iter().enumerate() {
        real_ranks[real_index(l)].push(r);
    }
    let sizes: Vec<usize> = real_ranks.iter().map(|v| v.len()).collect();
    let nodes_ranks: Vec<Vec<usize>> = match ppn {
        None => {
            if sizes.iter().any(|&n| n != sizes[0]) {
                return Err(format!(
                    "the nodes hold different numbers of ranks ({}); run the same number on every node",
                    sizes.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
                ));
            }
            real_ranks
        }
        Some(k) => {
            if let Some(n) = sizes.iter().find(|&&n| n % k != 0) {
                return Err(format!(
                    "--ppn {k}: a node holds {n} ranks, not a multiple of {k} (virtual nodes cut real ones)"
                ));
            }
            real_ranks
                .iter()
                .flat_map(|v| v.chunks(k).map(|c| c.to_vec()))
                .collect()
        }
    };
    let mut ranks_of_node = nodes_ranks;
    ranks_of_node.sort_by_key(|v| v[0]);
    let nodes = ranks_of_node.len();
    let ppn = ranks_of_node[0].len();
    let mut node_of = vec![0usize; s.size];
    for (n, v) in ranks_of_node.iter().enumerate() {
        for &r in v {
            node_of[r] = n;
        }
    }
    let smp = (0..s.size).all(|r| node_of[r] == r / ppn);
    let rr = (0..s.size).all(|r| node_of[r] == r % nodes);
    let placement = if smp {
        Some(Placement::Smp)
    } else if rr {
        Some(Placement::RoundRobin)
    } else {
        None
    };
    Ok(Topology {
        real_nodes: real.len(),
        nodes,
        ppn,
        ranks_of_node,
        node_of,
        placement,
    })
}

/// The processor packages (sockets) of this computer and the one this
/// process is bound to, from hwloc's tools when they are installed:
/// `(packages, Some(package))` when bound within one package, `(packages,
/// None)` when not bound to one; `None` without hwloc.
pub fn hwloc_socket() -> Option<(usize, Option<usize>)> {
    let run = |args: &[&str]| -> Option<String> {
        let out = std::process::Command::new(args[0])
            .args(&args[1..])
            .stderr(std::process::Stdio::null())
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let packages: usize = run(&["hwloc-calc", "--number-of", "package", "machine:0"])?
        .parse()
        .ok()?;
    let mine = run(&["hwloc-bind", "--get"]).and_then(|set| {
        let list = run(&["hwloc-calc", "--intersect", "package", &set])?;
        let ids: Vec<usize> = list
            .split(',')
            .filter_map(|x| x.trim().parse().ok())
            .collect();
        (ids.len() == 1).then(|| ids[0])
    });
    Some((packages.max(1), mine))
}
