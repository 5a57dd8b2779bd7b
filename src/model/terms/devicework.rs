//! The work around device messages (BenchPress `spmv/mpi_sparse_mat.cu`;
//! the machine's [`crate::machine::gpu::DeviceWork`]):
//! - `kernel`: every pack kernel before a copy to the host or a
//!   CUDA-aware send, and every unpack kernel after a copy to the device
//!   of values that arrive through helper ranks, each with its launch and
//!   stream synchronisation (the most one rank launches);
//! - `devicempi`: a fixed cost per exchange of device buffers through a
//!   CUDA-aware MPI, besides its messages.
//!
//! Zero on machines without GPUs and for host data.

use super::{Charge, Slot, Term};
use crate::model::Exchange;

/// Pack and unpack kernels.
pub static KERNEL: Term = Term {
    name: "kernel",
    aliases: &[],
    about: "pack and unpack kernels of device data, launch and synchronisation each \
            (added for device strategies)",
    slot: Slot::Extra,
    column: "kernel",
    header: "kernel",
    legend: "pack kernels",
    details: &[],
    charge: kernel,
};

/// The CUDA-aware call.
pub static AWARE: Term = Term {
    name: "devicempi",
    aliases: &[],
    about: "a fixed cost per exchange of device buffers through a CUDA-aware MPI \
            (added for device strategies)",
    slot: Slot::Extra,
    column: "devicempi",
    header: "devicempi",
    legend: "CUDA-aware call",
    details: &[],
    charge: aware,
};

fn kernel(x: &Exchange) -> Charge {
    let Some(g) = x.machine.gpus.as_ref() else {
        return Charge::seconds(0.0);
    };
    let most = match x.copies {
        // A copy's runs are the kernels its rank launches with it.
        Some((_, copies)) => (copies.messages.iter())
            .map(|c| c.runs as u64)
            .max()
            .unwrap_or(0),
        // A CUDA-aware exchange: one pack kernel per sending GPU.
        None if x.device && !x.pattern.messages.is_empty() => 1,
        None => 0,
    };
    Charge::seconds(g.work.kernel * most as f64)
}

fn aware(x: &Exchange) -> Charge {
    match (
        x.machine.gpus.as_ref(),
        x.device && !x.pattern.messages.is_empty(),
    ) {
        (Some(g), true) => Charge::seconds(g.work.aware_call),
        _ => Charge::seconds(0.0),
    }
}
