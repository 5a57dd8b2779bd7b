//! Flag groups shared by the commands, and how each becomes a library
//! value. Options are the library's `ValueEnum`s; their help comes from
//! their doc comments.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::Error;
use crate::analysis::Request;
use crate::machine::{Allocation, Machine, Placement};
use crate::partition::methods::{Method, MethodOptions, Objective};
use crate::partition::{CoarseRule, Fine};

/// Where the ranks run: shared by `analyze` and `compare`.
#[derive(Args, Debug)]
#[command(next_help_heading = "Machine")]
pub(crate) struct MachineArgs {
    /// Machine: a preset (bluewaters, lassen, summit, frontier,
    /// elcapitan, aurora, perlmutter; amgcomm machine list) or a JSON file with name, nodes, ppn,
    /// sockets_per_node, nodes_per_router or network [, placement,
    /// allocation, params].
    ///
    /// [default: bluewaters]
    #[arg(long, value_name = "NAME|FILE")]
    machine: Option<String>,
    /// Number of nodes (overrides the machine's; bluewaters: 512); amgcomm
    /// scale takes several, joined by ','.
    #[arg(long, value_delimiter = ',')]
    nodes: Vec<usize>,
    /// Processes per node (overrides the machine's; bluewaters: 16).
    #[arg(long)]
    pub(crate) ppn: Option<usize>,
    /// Put the data on the machine's GPUs, K CPU ranks serving each (as
    /// with MPS; ppn = GPUs per node x K): the rows are partitioned over
    /// the GPUs, the first rank of each owns them. Implied (K = 1) by a
    /// device strategy (gpu-aware, staged, staged-node-aware, split).
    #[arg(long, value_name = "K")]
    pub(crate) ranks_per_gpu: Option<usize>,
    /// Rank placement (overrides the machine's; bluewaters: smp).
    #[arg(long, value_enum)]
    placement: Option<Placement>,
    /// Seed of --placement random.
    #[arg(long, default_value_t = 0)]
    placement_seed: u64,
    /// Which of the machine's nodes the job gets, when its network names
    /// the whole machine (torus3d dims, dragonfly groups, fattree
    /// switches); default contiguous.
    #[arg(long, value_enum)]
    allocation: Option<Allocation>,
    /// Seed of --allocation random.
    #[arg(long, default_value_t = 0)]
    allocation_seed: u64,
}

impl MachineArgs {
    /// The machine file, an input no output may overwrite (none for a
    /// built-in machine).
    pub(crate) fn file(&self) -> Vec<PathBuf> {
        match self.name() {
            "bluewaters" => Vec::new(),
            file => vec![PathBuf::from(file)],
        }
    }

    fn name(&self) -> &str {
        self.machine.as_deref().unwrap_or("bluewaters")
    }

    /// Whether any of the flags was given.
    pub(crate) fn given(&self) -> bool {
        self.machine.is_some()
            || !self.nodes.is_empty()
            || self.ppn.is_some()
            || self.ranks_per_gpu.is_some()
            || self.placement.is_some()
            || self.allocation.is_some()
    }

    /// The machine with the overrides applied and checked.
    pub(crate) fn resolve(&self) -> Result<Machine, Error> {
        if self.nodes.len() > 1 {
            return Err(Error::Usage(
                "--nodes takes one count here (amgcomm scale takes several)".into(),
            ));
        }
        self.resolve_for_scale()
    }

    /// The machine at the first node count asked for (scale sets the
    /// others).
    pub(crate) fn resolve_for_scale(&self) -> Result<Machine, Error> {
        let placement = self.placement.map(|p| p.with_seed(self.placement_seed));
        let allocation = self.allocation.map(|a| a.with_seed(self.allocation_seed));
        let m = Machine::named_or_file(self.name())?;
        Ok(m.allocated(self.nodes.first().copied(), self.ppn, placement, allocation)?)
    }

    /// The machine and strategy with the data where the flags put it
    /// ([`crate::analysis::request::place_data`]).
    pub(crate) fn place(
        &self,
        m: Machine,
        strategy: Option<crate::comm::node_aware::Strategy>,
    ) -> Result<(Machine, crate::comm::node_aware::Strategy), Error> {
        let given = self.ppn.is_some();
        Ok(crate::analysis::request::place_data(
            m,
            strategy,
            self.ranks_per_gpu,
            given,
        )?)
    }

    /// The node counts asked for (`amgcomm scale`).
    pub(crate) fn node_counts(&self) -> &[usize] {
        &self.nodes
    }
}

/// The fine partition and its METIS objective and seed.
#[derive(Args, Debug)]
#[command(next_help_heading = "Partition")]
pub(crate) struct FinePartitionArgs {
    /// Partition of the fine rows: a method, or a partition file (one
    /// owner rank a line, as METIS writes them).
    #[arg(long, value_name = "NAME|FILE",
          value_parser = |s: &str| Ok::<_, std::convert::Infallible>(Fine::parse(s)),
          long_help = fine_help())]
    pub(crate) partition: Option<Fine>,
    /// What METIS minimises.
    #[arg(long, value_enum, default_value_t = Objective::Cut)]
    metis_objective: Objective,
    /// Seed of --partition random.
    #[arg(long, default_value_t = 0)]
    partition_seed: u64,
    /// --partition mfem: refine the serial mesh this many times before
    /// METIS partitions its elements (default: the fewest that give
    /// every rank an element, as MFEM's users do).
    #[arg(long, value_name = "K")]
    serial_refinements: Option<u32>,
}

impl FinePartitionArgs {
    /// The fine partition fields of `r`.
    pub(crate) fn apply(&self, r: &mut Request) {
        r.partition = self.partition.clone();
        r.serial_refinements = self.serial_refinements;
        r.methods = MethodOptions {
            seed: self.partition_seed,
            objective: self.metis_objective,
        };
    }
}

/// The fine partition and the coarse rule.
#[derive(Args, Debug)]
#[command(next_help_heading = "Partition")]
pub(crate) struct PartitionArgs {
    #[command(flatten)]
    fine: FinePartitionArgs,
    /// Coarse levels.
    #[arg(long, value_enum, default_value_t = CoarseRule::Inherit)]
    pub(crate) coarse_partition: CoarseRule,
}

/// `--partition`'s help: the methods with their docs.
fn fine_help() -> String {
    let mut s = String::from(
        "Partition of the fine rows: a method, or a partition file (one owner rank a line, \
         as METIS writes them)\n",
    );
    for m in Method::value_variants() {
        let v = m.to_possible_value().expect("no skipped methods");
        let help = v.get_help().map(|h| h.to_string()).unwrap_or_default();
        s += &format!("\n- {}: {help}", v.get_name());
    }
    s += "\n\n[default: contiguous; for hypre IJ input (path/A with path/A.00000, ...) and \
          hypre --levels-from folders, the ranks the files were written by]";
    s
}

impl PartitionArgs {
    /// The partition fields of `r`.
    pub(crate) fn apply(&self, r: &mut Request) {
        self.fine.apply(r);
        r.coarse = self.coarse_partition;
    }
}
