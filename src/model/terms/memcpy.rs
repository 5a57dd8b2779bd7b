//! `memcpy`: the host-device copies of a device strategy (Bienz, Olson,
//! Gropp and Lockhart, HPEC 2021, sec. III): a GPU's copy of `s` bytes
//! costs `alpha + s / R` (`gpus.d2h` to the host, `gpus.h2d` back). The
//! ranks serving one GPU copy at once over its one link, so a GPU's
//! copies cost as one of their total (the Lassen table's split runs, two
//! ranks copying a GPU's data in 35 us where its owner alone takes 44,
//! show the start-ups overlapping); the GPUs copy in parallel, and the
//! slowest GPU's copy is the step's. Zero for exchanges that copy
//! nothing; the analysis adds this term to the model of every device
//! strategy.

use super::{Charge, Slot, Term};
use crate::model::Exchange;

/// The host-device copy term.
pub static TERM: Term = Term {
    name: "memcpy",
    aliases: &[],
    about: "host-device copies of device data: alpha + s / R per GPU, the slowest GPU \
            (HPEC 2021; added for device strategies)",
    slot: Slot::Extra,
    column: "memcpy",
    header: "memcpy",
    legend: "host-device copies",
    details: &[],
    charge,
};

fn charge(x: &Exchange) -> Charge {
    let (Some((way, copies)), Some(gpus)) = (x.copies, x.machine.gpus.as_ref()) else {
        return Charge::seconds(0.0);
    };
    let per_gpu = crate::comm::device::bytes_per_gpu(copies, x.machine);
    let slowest = (per_gpu.values())
        .map(|&b| gpus.copy_time(way, b))
        .fold(0.0, f64::max);
    Charge::seconds(slowest)
}
