//! GPU nodes (Bienz, Olson, Gropp and Lockhart, "Modeling Data Movement
//! Performance on Heterogeneous Architectures", HPEC 2021; Lockhart et
//! al., Parallel Computing 116, 2023): a node's GPUs, the parameters of
//! messages between device buffers (their own Table 1 by locality, with
//! the node's injection limit for device data), and the host-device
//! copies `alpha + s / R` each way.
//!
//! When the data lives on the GPUs ([`Machine::on_devices`]) the rows are
//! partitioned over `nodes x per_node` GPUs and `ranks_per_gpu` CPU ranks
//! serve each one, as with MPS: GPU `g` of a node is served by the node's
//! local ranks `g K .. g K + K - 1`, the first of which owns its rows; the
//! others own none and help only where a strategy uses them. A GPU is on
//! the socket of the ranks that serve it, so two GPUs' locality is their
//! owners'.

use serde::{Deserialize, Serialize};

use super::{Invalid, Machine, MachineError, Params, Rate};

/// A node's GPUs and the costs of moving device data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpus {
    /// GPUs per node (a multiple of the sockets: each socket has as
    /// many).
    pub per_node: usize,
    /// Device-to-device messages through a GPU-aware MPI: `alpha` and
    /// `R_b` per locality class of the two GPUs and protocol, the
    /// protocol thresholds, the node's injection limit `R_N` for device
    /// data, `gamma` and `delta`, as a machine's `params`.
    pub params: Params,
    /// `cudaMemcpy` host to device: `alpha + s / R` (HPEC 2021, sec. III).
    pub h2d: Rate,
    /// `cudaMemcpy` device to host.
    pub d2h: Rate,
    /// The work around device messages (terms `kernel` and `devicempi`).
    #[serde(default)]
    pub work: DeviceWork,
    /// Whether the GPUs have memory of their own or share the CPUs'
    /// (an APU: El Capitan's MI300A). With `shared` there is no host
    /// memory to stage through: `h2d` and `d2h` are copies within the one
    /// memory, and the advice offers no strategy that stages.
    #[serde(default, skip_serializing_if = "Memory::is_discrete")]
    pub memory: Memory,
}

/// Where a node's GPUs keep their data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Memory {
    /// Memory of their own, behind a link to the host (PCIe, NVLink,
    /// Infinity Fabric): a copy crosses it.
    #[default]
    Discrete,
    /// The CPUs' memory (one HBM per APU): a host buffer and a device
    /// buffer are two places in one memory.
    Shared,
}

impl Memory {
    /// The default, left out of machine files.
    pub fn is_discrete(&self) -> bool {
        *self == Memory::Discrete
    }
}

/// What a device exchange does besides moving bytes (BenchPress
/// `spmv/mpi_sparse_mat.cu`): a kernel packs the values a GPU sends into
/// a buffer, and one unpacks what arrives scattered through helper
/// ranks; a CUDA-aware exchange of device buffers pays a fixed cost per
/// call. Under MPS the ranks sharing a GPU queue their kernels and copies
/// on it one after another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceWork {
    /// Seconds per pack or unpack kernel: its launch and run, queued on
    /// the stream with the copy whose synchronisation it shares (term
    /// `kernel`).
    pub kernel: f64,
    /// Seconds per exchange of device buffers through a CUDA-aware MPI,
    /// besides its messages (term `devicempi`).
    pub aware_call: f64,
    /// Seconds per round of a device strategy's messages through the
    /// host (each blocking exchange between the GPUs' ranks), besides its
    /// messages (term `hostround`). BenchPress's looped exchanges between
    /// every GPU's ranks cost this much more than its ping-pongs predict.
    #[serde(default)]
    pub round: f64,
    /// The demonstrated error of the device strategies' model on the
    /// table it was fitted to, as a factor (0 or 1: none given); the
    /// advice calls device strategies a close call within it.
    #[serde(default)]
    pub error: f64,
}

/// Which way a copy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copy {
    /// Device to host, before the host sends.
    ToHost,
    /// Host to device, after the host receives.
    ToDevice,
}

impl Gpus {
    /// Seconds of one copy of `bytes` (HPEC 2021: `alpha + s / R`).
    pub fn copy_time(&self, way: Copy, bytes: u64) -> f64 {
        let r = self.rate_of(way);
        r.alpha + bytes as f64 / r.rate
    }

    /// The copy parameters of `way`.
    pub fn rate_of(&self, way: Copy) -> Rate {
        match way {
            Copy::ToHost => self.d2h,
            Copy::ToDevice => self.h2d,
        }
    }

    fn validate(&self, m: &Machine) -> Result<(), Invalid> {
        if self.per_node == 0 || !self.per_node.is_multiple_of(m.sockets_per_node) {
            return Err(Invalid(format!(
                "gpus.per_node {} is not a multiple of the {} sockets per node",
                self.per_node, m.sockets_per_node
            )));
        }
        self.params
            .validate()
            .map_err(|e| Invalid(format!("gpus.{e}")))?;
        let names = m.localities();
        if self
            .params
            .rates
            .names()
            .ne(names.iter().map(String::as_str))
        {
            return Err(Invalid(format!(
                "gpus.params give rates for {}, the machine's locality classes are {}",
                self.params.rates.names().collect::<Vec<_>>().join(", "),
                names.join(", ")
            )));
        }
        for (name, x) in [
            ("kernel", self.work.kernel),
            ("aware_call", self.work.aware_call),
            ("round", self.work.round),
        ] {
            if !(x.is_finite() && (0.0..=1.0).contains(&x)) {
                return Err(Invalid(format!(
                    "gpus.work.{name} is {x}; a time must lie in [0, 1] seconds"
                )));
            }
        }
        if !(self.work.error.is_finite() && (0.0..=100.0).contains(&self.work.error)) {
            return Err("gpus.work.error must be a factor in [1, 100] (or 0: none)".into());
        }
        for (way, r) in [("h2d", self.h2d), ("d2h", self.d2h)] {
            let ok = r.alpha.is_finite() && r.alpha >= 0.0 && r.rate.is_finite() && r.rate > 0.0;
            if !ok {
                return Err(Invalid(format!(
                    "gpus.{way}: alpha must be a time of 0 s or more and rate a positive number of bytes/s"
                )));
            }
        }
        Ok(())
    }
}

impl Machine {
    /// Checks the GPUs and, with the data on them, that `ppn` is the
    /// GPUs' ranks.
    pub(crate) fn check_gpus(&self) -> Result<(), Invalid> {
        if let Some(g) = &self.gpus {
            g.validate(self)?;
        }
        match (self.ranks_per_gpu, &self.gpus) {
            (None, _) => Ok(()),
            (Some(_), None) => Err("ranks_per_gpu is set, but the machine has no gpus".into()),
            (Some(k), Some(g)) if k == 0 || g.per_node * k != self.ppn => Err(Invalid(format!(
                "ranks_per_gpu {k} with {} GPUs per node needs ppn {}, not {}",
                g.per_node,
                g.per_node * k.max(1),
                self.ppn
            ))),
            _ => Ok(()),
        }
    }

    /// This machine with the data on its GPUs, `k` CPU ranks serving each
    /// (`ppn = gpus.per_node x k`), checked; an error naming
    /// `request.ranks_per_gpu` on a machine without GPUs.
    pub fn on_devices(mut self, k: usize) -> Result<Machine, MachineError> {
        let Some(g) = &self.gpus else {
            return Err(MachineError::Allocation(format!(
                "request.ranks_per_gpu: machine {} has no GPUs (a machine file's \"gpus\" object gives them; every preset but bluewaters has them)",
                self.name
            )));
        };
        if k == 0 || k > 1 << 16 {
            return Err(MachineError::Allocation(format!(
                "request.ranks_per_gpu must be from 1 to 65536, got {k}"
            )));
        }
        self.ppn = g.per_node * k;
        self.ranks_per_gpu = Some(k);
        let context = format!("machine {}", self.name);
        self.validate()
            .map_err(|problem| MachineError::Invalid { context, problem })?;
        Ok(self)
    }

    /// Whether the data lives on the GPUs.
    pub fn is_on_devices(&self) -> bool {
        self.ranks_per_gpu.is_some()
    }

    /// The machine the rows are partitioned over: with the data on the
    /// GPUs, one rank per GPU (`ppn = gpus.per_node`); else this one.
    pub fn owners(&self) -> Machine {
        match (&self.gpus, self.ranks_per_gpu) {
            (Some(g), Some(_)) => Machine {
                ppn: g.per_node,
                ranks_per_gpu: None,
                ..self.clone()
            },
            _ => self.clone(),
        }
    }

    /// The rank that owns the rows of part `g` of [`Machine::owners`]:
    /// the first rank serving that GPU.
    pub fn owner_rank(&self, g: usize) -> usize {
        match (&self.gpus, self.ranks_per_gpu) {
            (Some(gpus), Some(k)) => {
                let owners = self.owners();
                let (node, gpu) = (owners.node_of(g), owners.local_of(g));
                debug_assert!(gpu < gpus.per_node);
                self.rank_at(node, gpu * k)
            }
            _ => g,
        }
    }

    /// The ranks serving the GPU of `rank` (the owner first).
    pub fn serving(&self, rank: usize) -> Vec<usize> {
        let k = self.ranks_per_gpu.unwrap_or(1);
        (0..k).map(|l| self.serving_rank(rank, l)).collect()
    }

    /// The `l`-th of [`Machine::serving`] (`l` below `ranks_per_gpu`),
    /// without the list.
    pub fn serving_rank(&self, rank: usize, l: usize) -> usize {
        let k = self.ranks_per_gpu.unwrap_or(1);
        self.rank_at(self.node_of(rank), self.local_of(rank) / k * k + l)
    }

    /// The machine-wide index of the GPU `rank` serves (`node x per_node
    /// + local GPU`).
    pub fn gpu_of(&self, rank: usize) -> usize {
        let k = self.ranks_per_gpu.unwrap_or(1);
        let per_node = self.ppn / k.max(1);
        self.node_of(rank) * per_node + self.local_of(rank) / k.max(1)
    }

    /// The owner of the GPU `rank` serves (the first of
    /// [`Machine::serving`]).
    pub fn gpu_owner(&self, rank: usize) -> usize {
        let k = self.ranks_per_gpu.unwrap_or(1);
        self.rank_at(self.node_of(rank), self.local_of(rank) / k * k)
    }

    /// The machine as device messages see it: the GPUs' parameters in
    /// place of the host's (`None` without GPUs).
    pub fn device(&self) -> Option<Machine> {
        let g = self.gpus.as_ref()?;
        Some(Machine {
            params: g.params.clone(),
            ..self.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu_machine() -> Machine {
        let mut m = crate::machine::test_machine(2, 4);
        m.gpus = Some(Gpus {
            per_node: 2,
            params: Params::bluewaters(),
            h2d: Rate {
                alpha: 1e-5,
                rate: 1e10,
            },
            d2h: Rate {
                alpha: 2e-5,
                rate: 5e9,
            },
            work: Default::default(),
            memory: Default::default(),
        });
        m
    }

    #[test]
    fn the_owners_are_the_first_rank_of_each_gpu() {
        let m = gpu_machine().on_devices(3).unwrap();
        assert_eq!((m.ppn, m.ranks()), (6, 12));
        assert_eq!(m.owners().ranks(), 4);
        let owners: Vec<usize> = (0..4).map(|g| m.owner_rank(g)).collect();
        assert_eq!(owners, [0, 3, 6, 9]);
        assert_eq!(m.serving(7), [6, 7, 8]);
        assert_eq!((m.gpu_owner(7), m.gpu_owner(6), m.gpu_owner(11)), (6, 6, 9));
        // One copy: alpha + s / R.
        let g = m.gpus.as_ref().unwrap();
        assert_eq!(g.copy_time(Copy::ToHost, 5000), 2e-5 + 1e-6);
        // Round-robin placement numbers the GPUs round-robin too: part 1
        // is node 1's GPU 0, part 2 node 0's GPU 1 (local rank 3).
        let mut rr = gpu_machine();
        rr.placement = crate::machine::Placement::RoundRobin;
        let rr = rr.on_devices(3).unwrap();
        assert_eq!(rr.owner_rank(1), rr.rank_at(1, 0));
        assert_eq!(rr.owner_rank(2), rr.rank_at(0, 3));
        assert_eq!(rr.owner_rank(2), 6);
    }

    #[test]
    fn gpus_are_checked() {
        let e = crate::machine::test_machine(2, 4)
            .on_devices(1)
            .unwrap_err();
        assert!(e.to_string().contains("has no GPUs"), "{e}");
        let e = gpu_machine().on_devices(0).unwrap_err();
        assert!(e.to_string().contains("from 1 to 65536"), "{e}");
        let mut m = gpu_machine();
        m.gpus.as_mut().unwrap().per_node = 3;
        assert!(m.validate().unwrap_err().0.contains("gpus.per_node 3"));
        let mut m = gpu_machine();
        m.ranks_per_gpu = Some(1);
        assert!(m.validate().unwrap_err().0.contains("needs ppn 2, not 4"));
        let mut m = gpu_machine();
        m.gpus.as_mut().unwrap().h2d.rate = 0.0;
        assert!(m.validate().unwrap_err().0.contains("gpus.h2d"));
    }
}
