//! `amgcomm calibrate`: the machine's parameters measured under
//! `mpirun` (feature `mpi`). Every rank parses the same flags and runs
//! the same steps; a failure anywhere is agreed on by all ranks
//! ([`crate::measure::mpi::Session::agree`]) and printed by rank 0 alone.

use std::path::PathBuf;

use clap::Args;

use super::Error;

/// `amgcomm calibrate`'s flags.
#[derive(Args, Debug)]
pub(crate) struct CalibrateArgs {
    /// The machine file to write (what --machine reads); the raw
    /// measurements go beside it as FILE-stem.measurements.csv.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Fewer sizes (powers of two), 3 batches of 1 ms, queues up to 512
    /// messages: seconds instead of about a minute.
    #[arg(long)]
    quick: bool,
    /// The machine's name in the file and in reports.
    #[arg(long, default_value = "calibrated")]
    name: String,
    /// Ranks per node: cut each node MPI reports into virtual nodes of
    /// this many ranks (on one computer, a loopback stand-in for several
    /// nodes; its "network" is shared memory).
    #[arg(long)]
    ppn: Option<usize>,
    /// Sockets per node, ranks on them by local index; default: from
    /// hwloc's tools (hwloc-calc, hwloc-bind), else 1.
    #[arg(long)]
    sockets: Option<usize>,
    /// Nodes sharing one router of a box3d network, for the hops of the
    /// contention fit (2 on Blue Waters' Gemini).
    #[arg(long, default_value_t = 1, conflicts_with = "like")]
    nodes_per_router: usize,
    /// Take the network from a preset (frontier, lassen, ...) or a
    /// machine file, and fit delta against its contention measure (the
    /// busiest link under its routes) instead of a box3d's.
    #[arg(long, value_name = "NAME|FILE")]
    like: Option<String>,
    /// Smallest eager message in bytes, instead of the break found in
    /// the ping-pong curves (give both thresholds).
    #[arg(long, requires = "rendezvous_threshold", value_name = "BYTES")]
    eager_threshold: Option<u64>,
    /// Smallest rendezvous message in bytes.
    #[arg(long, requires = "eager_threshold", value_name = "BYTES")]
    rendezvous_threshold: Option<u64>,
    /// Largest ping-pong message (bytes), also the injection test's size.
    #[arg(long, default_value_t = 4 << 20, value_name = "BYTES")]
    max_bytes: u64,
}

/// The CSV beside a machine file: `m.json` -> `m.measurements.csv`.
#[cfg(feature = "mpi")]
fn csv_path(out: &std::path::Path) -> PathBuf {
    out.with_extension("measurements.csv")
}

#[cfg(not(feature = "mpi"))]
pub(crate) const NO_MPI: &str = "needs MPI: build amgcomm with the mpi feature (apt-get install openmpi-bin libopenmpi-dev libclang-dev; cargo build --release --features mpi) and run it under mpirun";

/// `amgcomm calibrate`.
#[cfg(not(feature = "mpi"))]
pub(crate) fn calibrate(_: &CalibrateArgs) -> Result<(), Error> {
    Err(Error::Usage(format!("calibrate {NO_MPI}")))
}

#[cfg(feature = "mpi")]
pub(crate) use with_mpi::calibrate;

#[cfg(feature = "mpi")]
mod with_mpi {
    use super::*;

    use super::super::mpi::{agree, open};
    use crate::measure::calibrate::{self as cal, Schedule, Setup};
    use crate::measure::mpi::{self, Session};
    use crate::output::Plan;
    use crate::report::{measurements as text, pretty_json};

    /// `amgcomm calibrate`.
    pub(crate) fn calibrate(a: &CalibrateArgs) -> Result<(), Error> {
        // hwloc's tools are run before MPI starts: no fork under MPI.
        let hwloc = if a.sockets.is_none() {
            mpi::hwloc_socket()
        } else {
            None
        };
        let s = open()?;
        let csv = csv_path(&a.out);
        // How it was asked: checked on rank 0, which alone writes.
        let asked = || -> Result<(), Error> {
            if s.size < 2 {
                return Err(Error::Usage(
                    "calibrate needs at least 2 ranks: run it under mpirun -n 2 (or more)".into(),
                ));
            }
            let thresholds = a.eager_threshold.zip(a.rendezvous_threshold);
            cal::check_asked(
                a.max_bytes,
                thresholds,
                [Some(a.nodes_per_router), a.ppn, a.sockets],
            )
            .map_err(Error::Usage)?;
            if s.rank == 0 {
                let mut plan = Plan::new();
                plan.file("--out", &a.out)?;
                plan.file("--out (measurements beside it)", &csv)?;
            }
            Ok(())
        };
        agree(&s, asked())?;
        let network = match &a.like {
            None => Ok(crate::machine::network::Spec::box3d(a.nodes_per_router)),
            Some(like) => crate::machine::Machine::named_or_file(like).map(|m| m.network),
        };
        let network = agree(&s, network.map_err(Error::from))?;
        let t = mpi::topology(&s, a.ppn).map_err(Error::Usage);
        let t = agree(&s, t)?;
        let sockets = mpi::calibrate::sockets(&s, &t, a.sockets, hwloc).map_err(Error::Usage);
        let sockets = agree(&s, sockets)?;
        let schedule = if a.quick {
            Schedule::quick(a.max_bytes)
        } else {
            Schedule::full(a.max_bytes)
        };
        let mut notes = vec![sockets.note.clone()];
        if t.placement.is_none() {
            notes
                .push("ranks are neither in node blocks nor round-robin: the file says smp".into());
        }
        let setup = Setup {
            name: a.name.clone(),
            nodes: t.nodes,
            ppn: t.ppn,
            sockets_per_node: sockets.per_node,
            network: network.clone(),
            placement: t.placement.unwrap_or(crate::machine::Placement::Smp),
            thresholds: a
                .eager_threshold
                .zip(a.rendezvous_threshold)
                .map(|(e, r)| [e, r]),
            ranks: s.size,
            real_nodes: t.real_nodes,
            mpi_library: Session::library_version(),
            date: cal::utc_now(),
            host: Session::processor_name(),
            quick: a.quick,
            measurements: csv
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
            notes,
        };
        // The router box for the contention test's hops.
        let m = setup.machine(crate::machine::Params::bluewaters());
        if s.rank == 0 {
            super::super::say(format_args!(
                "amgcomm: calibrating on {} ranks: {} node{} x {} ({} real node{}), {} socket(s) per node",
                s.size,
                t.nodes,
                if t.nodes == 1 { "" } else { "s" },
                t.ppn,
                t.real_nodes,
                if t.real_nodes == 1 { "" } else { "s" },
                sockets.per_node
            ));
        }
        let samples = mpi::calibrate::measure(&s, &t, &sockets, &m, &schedule);
        let written = || -> Result<(), Error> {
            if s.rank != 0 {
                return Ok(());
            }
            let c = cal::fit_machine(&samples, &setup)?;
            super::super::write_file(&csv, &cal::csv(&samples))?;
            super::super::write_file(&a.out, &pretty_json(&c.machine))?;
            for w in &c.warnings {
                super::super::warn(w);
            }
            super::super::emit(&format!(
                "{}machine file {} ({} measurements in {})\n",
                text::calibration(&c.machine),
                a.out.display(),
                samples.len(),
                csv.display()
            ))
        };
        agree(&s, written())
    }
}
