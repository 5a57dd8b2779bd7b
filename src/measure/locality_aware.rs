//! Machine presets from MPI Advance's microbenchmarks
//! (`mpi-advance/locality_aware`, branch `microbenchmarks`,
//! `benchmarks/microbenchmarks.cpp` and `gpu_microbenchmarks.cpp`): a
//! ping-pong between two ranks of each locality, `Active Procs` pairs of
//! ranks of one node ping-ponging with the other node at once, and with
//! device buffers the same through a GPU-aware MPI ("GPU-Aware") or
//! staged through pinned host buffers ("Copy-to-CPU").
//!
//! What the numbers are (read from the sources): sizes are bytes
//! (`MPI_CHAR`, 1 B to 2^29 B); each time is one round trip (a send and
//! a receive each way, `MPI_Wtime` over `n_iters` iterations divided by
//! `n_iters`), the maximum over ranks. The table keeps one-way times,
//! half a round trip, as BenchPress's (which divides by `2 n_tests`). A
//! Copy-to-CPU round trip is two messages and four copies
//! (`gpuMemcpyAsync` and a stream synchronisation each: device to host
//! before each send, host to device after each receive), so one copy is
//! a quarter of its difference to the host ping-pong of the same
//! locality; the runs do not tell the two ways apart.
//!
//! A block whose times spread by less than 2x over sizes from 1 B to
//! 1 MiB or more measured no message: some runs print about 0.25 s at
//! every size (Tuolumne, July 2025, Copy-to-CPU). Such blocks are
//! dropped and named in the table's source lines.

use super::benchpress::{Bench, BenchError, Median, SIZES};
use super::calibrate::Experiment;
use crate::machine::{Copy, Locality};

/// Which part of a run a block belongs to (the `Running ...` lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Host buffers: the standard and the multi-process ping-pongs.
    Host,
    /// Device buffers through a GPU-aware MPI.
    GpuAware,
    /// Device buffers staged through pinned host buffers.
    CopyToCpu,
}

/// One block of a run: its section title (without the colon), its part,
/// the number of active pairs (1 unless `Active Procs` says otherwise)
/// and its rows `(bytes, round-trip seconds)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The section title, e.g. `Off-Node Ping-Pong`.
    pub title: String,
    /// Which part of the run.
    pub part: Part,
    /// Pairs ping-ponging at once.
    pub active: u64,
    /// `(bytes, round-trip seconds)`, sizes increasing.
    pub rows: Vec<(u64, f64)>,
}

impl Block {
    /// Whether it measured messages: over sizes reaching 1 MiB its
    /// times spread by 2x or more (a message of a mebibyte or more takes
    /// at least twice one of a byte on every network here).
    pub fn is_measured(&self) -> bool {
        let reaches = self.rows.last().is_some_and(|r| r.0 >= 1 << 20);
        let (lo, hi) = (self.rows.iter()).fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
            (lo.min(r.1), hi.max(r.1))
        });
        !reaches || hi >= 2.0 * lo
    }
}

/// The blocks of one output (`flux -l`'s `0: ` prefixes or none).
pub fn blocks(text: &str) -> Result<Vec<Block>, BenchError> {
    let mut out: Vec<Block> = Vec::new();
    let mut part = Part::Host;
    let mut title: Option<String> = None;
    let mut active = 1u64;
    let mut open = false;
    for (n, raw) in text.lines().enumerate() {
        let bad = |why: String| BenchError(format!("line {}: {why}", n + 1));
        let line = strip_rank(raw.trim_end()).trim();
        if let Some(rest) = line.strip_prefix("Running ") {
            part = if rest.contains("Copy-to-CPU") {
                Part::CopyToCpu
            } else if rest.contains("GPU-Aware") {
                Part::GpuAware
            } else {
                Part::Host
            };
            title = None;
            open = false;
        } else if let Some(rest) = line.strip_prefix("Active Procs:") {
            active = rest
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|a| (1..=1 << 20).contains(a))
                .ok_or_else(|| bad(format!("'{}' is not a count of ranks", rest.trim())))?;
            open = false;
        } else if let Some(rest) = line.strip_prefix("Size ") {
            let Some(t) = &title else {
                return Err(bad("a size row outside any section".into()));
            };
            let (size, time) = rest
                .split_once(':')
                .ok_or_else(|| bad("expected 'Size BYTES: SECONDS'".into()))?;
            let bytes = size
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|b| b.is_power_of_two() && *b <= 1 << 30)
                .ok_or_else(|| bad(format!("'{}' is not a power-of-two size", size.trim())))?;
            let seconds = time
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite() && *t > 0.0 && *t <= 3600.0)
                .ok_or_else(|| bad(format!("'{}' is not a time in seconds", time.trim())))?;
            if !open {
                out.push(Block {
                    title: t.clone(),
                    part,
                    active,
                    rows: Vec::new(),
                });
                open = true;
            }
            let b = out.last_mut().expect("opened above");
            if b.rows.last().is_some_and(|r| r.0 >= bytes) {
                return Err(bad(format!("size {bytes} does not follow a smaller one")));
            }
            b.rows.push((bytes, seconds));
        } else if let Some(t) = line.strip_suffix(':').filter(|t| is_title(t)) {
            title = Some(t.to_string());
            active = 1;
            open = false;
        } else if line.is_empty() {
            open = false;
        }
    }
    if out.is_empty() {
        return Err(BenchError(
            "no 'Size BYTES: SECONDS' rows (an MPI Advance microbenchmarks output?)".into(),
        ));
    }
    Ok(out)
}

/// `line` without `flux run -l`'s `RANK: ` prefix.
fn strip_rank(line: &str) -> &str {
    match line.split_once(": ") {
        Some((r, rest)) if !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()) => rest,
        _ => line,
    }
}

/// A section title: a ping-pong or multi-process heading.
fn is_title(t: &str) -> bool {
    t.contains("Ping-Pong") || t.contains("Processes Per GPU")
}

/// How one system's runs map onto the table.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    /// The preset fitted from them.
    pub preset: &'static str,
    /// The system measured, and what it stands for.
    pub system: &'static str,
    /// Repeated CPU outputs (`microbenchmarks`).
    pub cpu: &'static [&'static str],
    /// Repeated GPU outputs (`gpu_microbenchmarks`).
    pub gpu: &'static [&'static str],
    /// GPUs per node.
    pub gpus_per_node: usize,
    /// Ranks per node of the runs (their NICs' blocks of ranks).
    pub ranks_per_node: usize,
    /// Host ping-pong sections and the class of their two ranks.
    pub host: &'static [(&'static str, Locality)],
    /// GPU-aware ping-pong sections and the class of their two GPUs.
    pub device: &'static [(&'static str, Locality)],
    /// The Copy-to-CPU section and the host section whose messages it
    /// sends, for the copies.
    pub copies: Option<(&'static str, &'static str)>,
    /// The multi-process off-node section (host buffers) for `R_N`.
    pub injection: Option<&'static str>,
    /// The host protocol thresholds to fit within, and their source,
    /// when the runs' MPI is not the machine's (else the curves' breaks).
    pub thresholds: Option<([u64; 2], &'static str)>,
    /// Why sections of the runs are not used, for the source lines.
    pub unused: &'static str,
}

/// Each preset's runs (`benchmark_tests/<system>/` of the branch).
pub static RUNS: &[Runs] = &[
    Runs {
        preset: "elcapitan",
        system: "Tuolumne (HPE Cray EX255a, 4 MI300A APUs per node, Slingshot-11: El Capitan's node and network), 2 nodes x 64 ranks (16 per APU), flux with mpibind, Cray MPICH, MPICH_GPU_SUPPORT_ENABLED=1 and HSA_XNACK=1",
        cpu: &[
            "cpu_microbenchmarks_n2.f2Eam73EecfZ.out",
            "cpu_microbenchmarks_n2.f2Eam7dmZtPR.out",
            "cpu_microbenchmarks_n2.f2Eam86FV4Lf.out",
        ],
        gpu: &[
            "gpu_microbenchmarks_n2.f2EcU4dK52iK.out",
            "gpu_microbenchmarks_n2.f2EcbfyqAHNP.out",
            "gpu_microbenchmarks_n2.f2EcbixLriHd.out",
        ],
        gpus_per_node: 4,
        ranks_per_node: 64,
        host: &[
            ("On-NUMA Ping-Pong", Locality::SOCKET),
            ("On-Node, Off-Socket Ping-Pong", Locality::NODE),
            ("Off-Node Ping-Pong", Locality::NETWORK),
        ],
        device: &[
            ("GPU-Aware On-Node, Off-Socket Ping-Pong", Locality::NODE),
            ("GPU-Aware Off-Node Ping-Pong", Locality::NETWORK),
        ],
        copies: Some((
            "GPU-Aware On-Node, Off-Socket Ping-Pong",
            "On-Node, Off-Socket Ping-Pong",
        )),
        injection: Some("Off-Node MultiProc Ping-Pong"),
        thresholds: None,
        unused: "the July 2025 runs (07_25_25/) print about 0.25 s at every size in their Copy-to-CPU blocks and are not used",
    },
    Runs {
        preset: "perlmutter",
        system: "NCSA Delta (gpuA100x4: one 64-core EPYC 7763 in 4 NUMA domains, 4 A100 SXM4, Slingshot: Perlmutter's GPU node), 2 nodes x 64 ranks (16 per NUMA domain), Open MPI 5 with CUDA",
        cpu: &["cpu_microbenchmarks.11820505.out"],
        gpu: &[
            "gpu_microbenchmarks.12318276.out",
            "gpu_microbenchmarks.12319254.out",
        ],
        gpus_per_node: 4,
        ranks_per_node: 64,
        // One socket: a pair of a node's ranks is in two NUMA domains
        // three times in four, so the socket class is that section.
        host: &[("On-Node, Off-Socket Ping-Pong", Locality::SOCKET)],
        device: &[],
        copies: None,
        injection: None,
        // Perlmutter runs Cray MPICH; Delta's curves break where Open
        // MPI's protocols change (256 and 4096 B).
        thresholds: Some((
            [1024, 32768],
            "assumed: Cray MPICH's, the breaks fitted to Tioga's BenchPress ping-pongs (the frontier preset), which the network parameters also come from; the Delta runs are Open MPI's (their curves break at 256 and 4096 B)",
        )),
        unused: "the Copy-to-CPU runs (their messages between pinned host buffers take 330 us round trips on the node below 32 KiB where the CPU runs take 2 us, so the copies cannot be told from them); off-node times (CPU 16.7 us one way at 1 B, GPU-aware 20-37 us) are 7x and more those of Cray MPICH on the same Slingshot-11 NIC (Tioga, the frontier preset): they measure Open MPI's path on Delta, not Perlmutter's network, and are not used; the GPU-aware on-node section pairs two ranks on one GPU (local rank mod 4) and is not a message between GPUs",
    },
];

impl Runs {
    /// The runs of `preset`.
    pub fn of(preset: &str) -> Option<&'static Runs> {
        RUNS.iter().find(|r| r.preset == preset)
    }

    /// What the medians are, for the table's `# source:` lines.
    pub fn source(&self) -> Vec<String> {
        vec![
            format!(
                "MPI Advance microbenchmarks (github.com/mpi-advance/locality_aware, branch microbenchmarks, benchmark_tests/) on {}",
                self.system
            ),
            format!(
                "CPU runs {}; GPU runs {}: per section and size (4 B to 512 KiB), the minimum over the runs of half the round trip; copies: a quarter of the Copy-to-CPU round trip less the host ping-pong's; R_N: per active pair count at 512 KiB",
                self.cpu.join(", "),
                self.gpu.join(", ")
            ),
            format!("not used: {}", self.unused),
        ]
    }

    /// The medians of the runs in `dir`.
    pub fn read(&self, dir: &std::path::Path) -> Result<Vec<Median>, BenchError> {
        let read = |files: &[&str]| super::benchpress::read::parsed(dir, files, blocks);
        let (cpu, gpu) = (read(self.cpu)?, read(self.gpu)?);
        let mut out = Vec::new();
        let one_way = |runs: &[Vec<Block>], part: Part, title: &str, active: u64| {
            minima(runs, part, title, active).map(|v| v.into_iter().map(|(b, t)| (b, t / 2.0)))
        };
        // Ping-pongs of host buffers (CPU runs) and device buffers (GPU
        // runs, GPU-aware sections), per section's locality class.
        let pingpongs = [
            (
                self.host,
                &cpu,
                self.cpu,
                Part::Host,
                Bench::Host as fn(_) -> _,
            ),
            (self.device, &gpu, self.gpu, Part::GpuAware, Bench::Device),
        ];
        for (sections, runs, files, part, bench) in pingpongs {
            for &(title, l) in sections {
                let rows = one_way(runs, part, title, 1).ok_or_else(|| missing(title, files))?;
                out.extend(rows.map(|(bytes, seconds)| {
                    median(
                        bench(Experiment::PingPong(l)),
                        bytes,
                        1,
                        seconds,
                        runs.len(),
                    )
                }));
            }
        }
        if let Some((copy, host)) = self.copies {
            let staged =
                minima(&gpu, Part::CopyToCpu, copy, 1).ok_or_else(|| missing(copy, self.gpu))?;
            let sent = minima(&cpu, Part::Host, host, 1).ok_or_else(|| missing(host, self.cpu))?;
            for (bytes, rt) in staged {
                let Some(&(_, h)) = sent.iter().find(|x| x.0 == bytes) else {
                    continue;
                };
                let each = (rt - h) / 4.0;
                if each > 0.0 {
                    for way in [Copy::ToDevice, Copy::ToHost] {
                        out.push(median(Bench::Memcpy(way), bytes, 1, each, gpu.len()));
                    }
                }
            }
        }
        if let Some(title) = self.injection {
            for active in 1..=1 << 10 {
                let Some(mut rows) = one_way(&cpu, Part::Host, title, active) else {
                    continue;
                };
                if let Some((bytes, seconds)) = rows.next_back() {
                    out.push(median(
                        Bench::Host(Experiment::Injection),
                        bytes,
                        active,
                        seconds,
                        cpu.len(),
                    ));
                }
            }
        }
        Ok(out)
    }
}

fn median(experiment: Bench, bytes: u64, active: u64, seconds: f64, count: usize) -> Median {
    Median {
        experiment,
        bytes,
        active,
        seconds,
        count,
    }
}

fn missing(title: &str, files: &[&str]) -> BenchError {
    BenchError(format!(
        "{}: no measured section '{title}'",
        files.join(", ")
    ))
}

/// Per size from 4 B to 512 KiB (BenchPress's range), the minimum over
/// the runs of the measured block `title` of `part` with `active` pairs;
/// `None` if no run has one.
fn minima(runs: &[Vec<Block>], part: Part, title: &str, active: u64) -> Option<Vec<(u64, f64)>> {
    let found: Vec<&Block> = (runs.iter())
        .filter_map(|r| {
            r.iter().find(|b| {
                b.part == part && b.title == title && b.active == active && b.is_measured()
            })
        })
        .collect();
    if found.is_empty() {
        return None;
    }
    let sizes = (0..SIZES).map(|k| 4u64 << k);
    let rows: Vec<(u64, f64)> = sizes
        .filter_map(|bytes| {
            let cells: Vec<f64> = (found.iter())
                .filter_map(|b| b.rows.iter().find(|r| r.0 == bytes).map(|r| r.1))
                .collect();
            (!cells.is_empty())
                .then(|| (bytes, cells.iter().copied().fold(f64::INFINITY, f64::min)))
        })
        .collect();
    (!rows.is_empty()).then_some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run written by hand: rank prefixes, parts, active counts; a
    /// block that does not grow is not measured.
    #[test]
    fn blocks_by_hand() {
        let text = "0: Running standard ping-pongs\n0: \n0: On-NUMA Ping-Pong:\n0: Size 1: 2.0e-06\n0: Size 2: 2.0e-06\n0: \n\
            0: Off-Node MultiProc Ping-Pong:\n0: Active Procs: 2\n0: Rank 0 sending to 64\n0: Size 1: 3e-06\n0: \n\
            Running standard Copy-to-CPU benchmarks\nGPU-Aware Off-Node Ping-Pong:\nSize 1: 0.25\nSize 1048576: 0.25\n";
        let b = blocks(text).unwrap();
        assert_eq!(b.len(), 3);
        assert_eq!(
            (b[0].title.as_str(), b[0].part, b[0].active),
            ("On-NUMA Ping-Pong", Part::Host, 1)
        );
        assert_eq!(b[0].rows, vec![(1, 2e-6), (2, 2e-6)]);
        assert_eq!(
            (b[1].title.as_str(), b[1].active),
            ("Off-Node MultiProc Ping-Pong", 2)
        );
        assert_eq!(b[2].part, Part::CopyToCpu);
        assert!(b[0].is_measured() && !b[2].is_measured());
        for (bad, needle) in [
            ("Size 1: 1e-6\n", "outside any section"),
            (
                "A Ping-Pong:\nSize 3: 1e-6\n",
                "'3' is not a power-of-two size",
            ),
            ("A Ping-Pong:\nSize 4: nan\n", "'nan' is not a time"),
            (
                "A Ping-Pong:\nSize 4: 1e-6\nSize 2: 1e-6\n",
                "does not follow",
            ),
            ("A Ping-Pong:\nActive Procs: 0\n", "not a count"),
            ("nothing here\n", "no 'Size"),
        ] {
            let e = blocks(bad).unwrap_err().0;
            assert!(e.contains(needle), "{bad:?}: {e}");
        }
    }

    /// One way is half a round trip, the minimum over runs; a copy is a
    /// quarter of the staged round trip less the host one.
    #[test]
    fn medians_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let cpu = |t: f64| {
            format!("Running standard ping-pongs\nOn-NUMA Ping-Pong:\nSize 4: {t:e}\nSize 8: 4e-6\n\nOn-Node, Off-Socket Ping-Pong:\nSize 4: 6e-6\n\nOff-Node Ping-Pong:\nSize 4: 8e-6\n\nOff-Node MultiProc Ping-Pong:\nActive Procs: 1\nSize 524288: 1e-4\n\nActive Procs: 2\nSize 524288: 2e-4\n")
        };
        std::fs::write(dir.path().join("a"), cpu(2e-6)).unwrap();
        std::fs::write(dir.path().join("b"), cpu(3e-6)).unwrap();
        let gpu = "Running standard GPU-Aware benchmarks\nGPU-Aware On-Node, Off-Socket Ping-Pong:\nSize 4: 1e-5\n\nGPU-Aware Off-Node Ping-Pong:\nSize 4: 1.2e-5\n\nRunning standard Copy-to-CPU benchmarks\nGPU-Aware On-Node, Off-Socket Ping-Pong:\nSize 4: 4.6e-5\n";
        std::fs::write(dir.path().join("g"), gpu).unwrap();
        let runs = Runs {
            cpu: &["a", "b"],
            gpu: &["g"],
            ..RUNS[0]
        };
        let m = runs.read(dir.path()).unwrap();
        let at = |e: Bench, bytes: u64, active: u64| {
            m.iter()
                .find(|x| x.experiment == e && x.bytes == bytes && x.active == active)
                .map(|x| x.seconds)
        };
        let pp = |l| Bench::Host(Experiment::PingPong(l));
        assert_eq!(at(pp(Locality::SOCKET), 4, 1), Some(1e-6));
        assert_eq!(at(pp(Locality::SOCKET), 8, 1), Some(2e-6));
        assert_eq!(at(pp(Locality::NETWORK), 4, 1), Some(4e-6));
        assert_eq!(
            at(Bench::Device(Experiment::PingPong(Locality::NODE)), 4, 1),
            Some(5e-6)
        );
        // (46 - 6) / 4 us.
        let copy = at(Bench::Memcpy(Copy::ToHost), 4, 1).unwrap();
        assert!((copy - 1e-5).abs() < 1e-18, "{copy}");
        assert_eq!(
            at(Bench::Host(Experiment::Injection), 524288, 2),
            Some(1e-4)
        );
        // A run without a section names it.
        std::fs::write(
            dir.path().join("g"),
            "Running standard GPU-Aware benchmarks\nGPU-Aware Off-Node Ping-Pong:\nSize 4: 1e-5\n",
        )
        .unwrap();
        let e = runs.read(dir.path()).unwrap_err().0;
        assert!(
            e.contains("no measured section 'GPU-Aware On-Node, Off-Socket Ping-Pong'"),
            "{e}"
        );
    }
}
