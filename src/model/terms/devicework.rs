//! The work around device messages (BenchPress `spmv/mpi_sparse_mat.cu`;
//! the machine's [`crate::machine::gpu::DeviceWork`]):
//! - `kernel`: every pack kernel before a copy to the host or a
//!   CUDA-aware send, and every unpack kernel after a copy to the device
//!   of values that arrive through helper ranks, each with its launch and
//!   stream synchronisation (the most one rank launches);
//! - `devicempi`: a fixed cost per exchange of device buffers through a
//!   CUDA-aware MPI, besides its messages;
//! - `hostround`: a fixed cost per round of a device strategy's messages
//!   through the host (a blocking exchange between the GPUs' ranks),
//!   besides its messages: what BenchPress's looped exchanges cost beyond
//!   its ping-pongs (its comm-only SpMV, `spmv/mpi_sparse_mat_comm_only`,
//!   times the strategies' MPI calls alone).
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

/// A round of host messages of a device strategy.
pub static ROUND: Term = Term {
    name: "hostround",
    aliases: &[],
    about: "a fixed cost per round of a device strategy's messages through the host \
            (added for device strategies)",
    slot: Slot::Extra,
    column: "hostround",
    header: "hostround",
    legend: "host round",
    details: &[],
    charge: round,
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

/// A host step with messages of an exchange whose data lives on the GPUs
/// (the machine serves each GPU with ranks: a device strategy's).
fn round(x: &Exchange) -> Charge {
    match (x.machine.gpus.as_ref(), x.machine.ranks_per_gpu) {
        (Some(g), Some(_)) if !x.device && x.copies.is_none() && !x.pattern.messages.is_empty() => {
            Charge::seconds(g.work.round)
        }
        _ => Charge::seconds(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{Message, Op, Pattern};

    /// A round is charged once per host step with messages of data on
    /// the GPUs, whatever its messages; never for copies, device messages,
    /// empty steps or host data.
    #[test]
    fn a_round_per_host_step_of_device_data() {
        let lassen = crate::machine::presets::preset("lassen").unwrap();
        let round = lassen.gpus.as_ref().unwrap().work.round;
        assert!(round > 0.0);
        let served = lassen.clone().on_devices(3).unwrap();
        let places = served.places();
        let msg = |from, to| Message {
            from,
            to,
            bytes: 800,
            runs: 1,
        };
        let two = Pattern {
            op: Op::Spmv,
            messages: vec![msg(0, 12), msg(3, 40)],
        };
        let none = Pattern {
            op: Op::Spmv,
            messages: Vec::new(),
        };
        let charged = |m: &crate::machine::Machine, p: &Pattern, copies, device| {
            let summary = crate::comm::summarize(p, m);
            let x = Exchange {
                pattern: p,
                summary: &summary,
                machine: m,
                places: &places,
                copies,
                local_nonzeros: None,
                device,
            };
            (ROUND.charge)(&x).seconds
        };
        assert_eq!(charged(&served, &two, None, false), round);
        assert_eq!(charged(&served, &none, None, false), 0.0);
        assert_eq!(charged(&served, &two, None, true), 0.0);
        let copies = Some((crate::machine::Copy::ToHost, &two));
        assert_eq!(charged(&served, &none, copies, false), 0.0);
        // The same messages between ranks that hold their data.
        assert_eq!(charged(&lassen, &two, None, false), 0.0);
    }
}
