//! The BenchPress runs each preset's parameters come from ([`RUNS`]).

use super::median::{copy_medians, medians, message_minima, Bench, Layout, Median};
use super::read::{
    max_rate, memcpy, parsed, ping_pong, ping_pong_of, sized_rows, BenchError, Buffers,
};
use crate::machine::Copy;

/// The BenchPress runs a preset's parameters are fitted from: the files
/// of its folder of BenchPress outputs and how their ranks sat.
#[derive(Clone, Copy, Debug)]
pub struct Runs {
    /// The preset.
    pub preset: &'static str,
    /// The system measured, when not the preset's own.
    pub system: &'static str,
    /// Ranks of the ping-pong runs (two nodes).
    pub layout: Layout,
    /// Repeated ping-pong outputs.
    pub ping_pong: &'static [&'static str],
    /// Repeated max-rate outputs (none on Tioga).
    pub max_rate: &'static [&'static str],
    /// The GPU runs, if the system has GPUs.
    pub gpus: Option<GpuRuns>,
}

/// The runs that time device data (ping-pongs' GPU sections, max-rate's
/// GPU section, memcpy, and the multiple-message ping-pongs).
#[derive(Clone, Copy, Debug)]
pub struct GpuRuns {
    /// GPUs per node.
    pub per_node: usize,
    /// Memcpy outputs, repeated (only each rank's own GPU is read: `CPU
    /// p, GPU p mod per_node`).
    pub memcpy: &'static [&'static str],
    /// mult_pong outputs, repeated (their GPU section).
    pub mult: &'static [&'static str],
    /// mult_pong_split outputs, repeated.
    pub split: &'static [&'static str],
}

/// Each preset's runs (the folders' READMEs give the layouts; June 2021
/// runs preferred on Lassen, as its README asks).
pub static RUNS: &[Runs] = &[
    Runs {
        preset: "lassen",
        system: "Lassen",
        layout: Layout { ppn: 4, sockets: 2 },
        ping_pong: &["ping_pong.2598271.out", "ping_pong.2598272.out"],
        max_rate: &["maxrate.2598182.out"],
        gpus: Some(GpuRuns {
            per_node: 4,
            memcpy: &["memcpy.2598183.out"],
            mult: &["mult_pong.2598184.out"],
            split: &["mult_pong_split.2598185.out"],
        }),
    },
    Runs {
        preset: "summit",
        system: "Summit",
        layout: Layout { ppn: 6, sockets: 2 },
        ping_pong: &[
            "ping_pong.315486.out",
            "ping_pong.315490.out",
            "ping_pong.315491.out",
        ],
        max_rate: &[
            "maxrate.305181.out",
            "maxrate.305655.out",
            "maxrate.305656.out",
        ],
        gpus: Some(GpuRuns {
            per_node: 6,
            memcpy: &[
                "memcpy.305179.out",
                "memcpy.305657.out",
                "memcpy.305658.out",
            ],
            mult: &[],
            split: &[],
        }),
    },
    Runs {
        preset: "frontier",
        system: "Tioga (HPE Cray EX235a, MI250X, Slingshot: Frontier's node and network)",
        layout: Layout { ppn: 8, sockets: 1 },
        ping_pong: &["ping_pong.0.out", "ping_pong.2.out"],
        max_rate: &[],
        gpus: Some(GpuRuns {
            per_node: 8,
            memcpy: &["memcpy.out"],
            mult: &[],
            split: &[],
        }),
    },
];

impl Runs {
    /// The runs of `preset`.
    pub fn of(preset: &str) -> Option<&'static Runs> {
        RUNS.iter().find(|r| r.preset == preset)
    }

    /// What the medians are, for the table's `# source:` lines.
    pub fn source(&self) -> Vec<String> {
        let mut s = vec![format!(
            "BenchPress (github.com/bienz2/BenchPress) CPU ping-pongs on {}, {} (2 nodes, {} ranks per node, {} socket(s)): per locality and size, the median over rank pairs of the minimum over the runs",
            self.system,
            self.ping_pong.join(", "),
            self.layout.ppn,
            self.layout.sockets
        )];
        if !self.max_rate.is_empty() {
            s.push(format!(
                "max-rate, {}: per sender count at 512 KiB, the minimum over the runs",
                self.max_rate.join(", ")
            ));
        }
        if let Some(g) = &self.gpus {
            s.push(format!(
                "GPU ping-pongs (device buffers, CUDA-aware MPI) of the same files, medians as the CPU's{}",
                match self.max_rate.is_empty() {
                    true => String::new(),
                    false => "; GPU max-rate of the same max-rate files, per GPU count at 512 KiB".into(),
                }
            ));
            s.push(format!(
                "memcpy, {}: host-to-device and device-to-host per size, each rank with its own GPU (CPU p, GPU p), the median over ranks of the minimum over the runs",
                g.memcpy.join(", ")
            ));
            if !g.mult.is_empty() {
                s.push(format!(
                    "GPU multiple messages, {} and split, {}: per message count and size, the minimum over the runs",
                    g.mult.join(", "),
                    g.split.join(", ")
                ));
            }
        }
        s
    }

    /// The medians of the files in `dir`.
    pub fn read(&self, dir: &std::path::Path) -> Result<Vec<Median>, BenchError> {
        // Each file is read once; its CPU and GPU sections parsed from it.
        let gpus = self.gpus.is_some();
        let (pp, gpp): (Vec<_>, Vec<_>) = parsed(dir, self.ping_pong, |t| {
            Ok((
                ping_pong(t)?,
                gpus.then(|| ping_pong_of(t, Buffers::Device)).transpose()?,
            ))
        })?
        .into_iter()
        .unzip();
        let gpu_max_rate = |t: &str| sized_rows(t, "Timing GPU Max-Rate Ping Pongs", "max-rate");
        let (mr, gmr): (Vec<_>, Vec<_>) = parsed(dir, self.max_rate, |t| {
            Ok((max_rate(t)?, gpus.then(|| gpu_max_rate(t)).transpose()?))
        })?
        .into_iter()
        .unzip();
        let mut out = medians(&pp, &mr, self.layout)?;
        let Some(g) = &self.gpus else {
            return Ok(out);
        };
        let (gpp, gmr): (Vec<_>, Vec<_>) = (
            gpp.into_iter().flatten().collect(),
            gmr.into_iter().flatten().collect(),
        );
        let device = medians(&gpp, &gmr, self.layout)?;
        out.extend(device.into_iter().map(|m| Median {
            experiment: match m.experiment {
                Bench::Host(e) => Bench::Device(e),
                b => b,
            },
            ..m
        }));
        let (h2d, d2h): (Vec<_>, Vec<_>) = parsed(dir, g.memcpy, |t| {
            Ok((memcpy(t, Copy::ToDevice)?, memcpy(t, Copy::ToHost)?))
        })?
        .into_iter()
        .unzip();
        out.extend(copy_medians(&h2d, Copy::ToDevice, g.per_node)?);
        out.extend(copy_medians(&d2h, Copy::ToHost, g.per_node)?);
        let gpu_rows = |t: &str| sized_rows(t, "Timing GPU Multiple Messages", "mult_pong");
        for (files, bench) in [(g.mult, Bench::Messages), (g.split, Bench::Split)] {
            out.extend(message_minima(&parsed(dir, files, gpu_rows)?, bench));
        }
        Ok(out)
    }
}
