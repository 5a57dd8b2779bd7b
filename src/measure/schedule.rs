//! What `amgcomm calibrate` measures, and for how long ([`Schedule`]),
//! with the flags it checks before any MPI starts.

/// `calibrate`'s flags that need no MPI, checked: the largest message,
/// the thresholds given (eager, rendezvous), and the counts (nodes per
/// router, ranks per node, sockets) that must be at least 1. The error
/// names the flag.
pub fn check_asked(
    max_bytes: u64,
    thresholds: Option<(u64, u64)>,
    counts: [Option<usize>; 3],
) -> Result<(), String> {
    if !(4096..=1 << 30).contains(&max_bytes) {
        return Err(format!(
            "--max-bytes {max_bytes}: choose between 4096 and 1073741824"
        ));
    }
    if let Some((e, r)) = thresholds.filter(|(e, r)| e > r) {
        return Err(format!(
            "--eager-threshold {e} is above --rendezvous-threshold {r}"
        ));
    }
    if counts.contains(&Some(0)) {
        return Err("--nodes-per-router, --ppn and --sockets must be at least 1".into());
    }
    Ok(())
}

/// What to measure and how long.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Ping-pong message sizes (bytes), increasing.
    pub sizes: Vec<u64>,
    /// Timed batches per size; the median and the minimum are kept.
    pub batches: usize,
    /// Each batch repeats the exchange for about this long (s).
    pub batch_seconds: f64,
    /// Message counts of the queue-search test.
    pub queue_counts: Vec<usize>,
    /// Message size of the injection (`R_N`) test.
    pub injection_bytes: u64,
    /// Message sizes of the contention test.
    pub contention_bytes: Vec<u64>,
    /// Rows a rank of the row-work test holds (27 nonzeros a row).
    pub row_rows: Vec<usize>,
    /// Each row-work batch repeats its kernel for about this long (s): at
    /// least a few copies of the largest size, so that a rank sharing its
    /// core is timed over several of the system's time slices, not one.
    pub row_batch_seconds: f64,
}

impl Schedule {
    /// Sizes `1, 2, 3, 4, 6, 8, 12, ...` up to `max_bytes` (powers of two
    /// and their midpoints), 5 batches of 5 ms, queues of 16 to 2048
    /// messages; the row work in batches of 20 ms.
    pub fn full(max_bytes: u64) -> Schedule {
        let mut sizes = Vec::new();
        let mut p = 1u64;
        while p <= max_bytes {
            sizes.push(p);
            if p >= 2 && p + p / 2 <= max_bytes {
                sizes.push(p + p / 2);
            }
            p *= 2;
        }
        Schedule {
            sizes,
            batches: 5,
            batch_seconds: 5e-3,
            queue_counts: vec![16, 32, 64, 128, 256, 512, 1024, 2048],
            injection_bytes: max_bytes,
            contention_bytes: vec![(max_bytes / 16).max(1), max_bytes],
            row_rows: vec![1 << 11, 1 << 13, 1 << 15],
            row_batch_seconds: 2e-2,
        }
    }

    /// Powers of two only, 3 batches of 1 ms, queues up to 512 messages,
    /// the row work in batches of 10 ms: seconds instead of a minute, for
    /// a first look or a test.
    pub fn quick(max_bytes: u64) -> Schedule {
        let full = Schedule::full(max_bytes);
        Schedule {
            sizes: full
                .sizes
                .into_iter()
                .filter(|s| s.is_power_of_two())
                .collect(),
            batches: 3,
            batch_seconds: 1e-3,
            queue_counts: vec![16, 32, 64, 128, 256, 512],
            injection_bytes: max_bytes,
            contention_bytes: vec![max_bytes],
            row_rows: vec![1 << 11, 1 << 14],
            row_batch_seconds: 1e-2,
        }
    }
}

/// The contention tests on `nodes` nodes (at least 3): shifts (every node
/// `i` to node `i + d`, `d` < 5) and pairs (node 0 to node `j`, `j` < 5),
/// each named as its samples' `pattern`; every rank of a sending node
/// sends to the same local rank there.
pub fn contention_patterns(nodes: usize) -> Vec<(String, Vec<(usize, usize)>)> {
    let mut patterns = Vec::new();
    for d in 1..nodes.min(5) {
        let shift = (0..nodes).map(|i| (i, (i + d) % nodes)).collect();
        patterns.push((format!("shift {d}"), shift));
    }
    for j in 1..nodes.min(5) {
        patterns.push((format!("node 0 -> node {j}"), vec![(0, j)]));
    }
    patterns
}
