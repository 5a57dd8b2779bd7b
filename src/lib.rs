//! amgcomm: where does the communication time of each level of an algebraic
//! multigrid hierarchy go, and what would cut it?
//!
//! # Module map
//!
//! Data flows one way; each stage knows only the ones before it.
//!
//! | stage | what it holds |
//! |---|---|
//! | [`matrix`] | sparse matrices: [`matrix::io`] (one reader per format behind one dispatcher), generators, permutations |
//! | [`amg`] | the classical AMG setup (strength, C/F splitting, interpolation, RAP) and saved hierarchies |
//! | [`machine`] | the virtual machine: placement, router box and hops, [`machine::Locality`] and [`machine::Protocol`] classes, routes, cost parameters |
//! | [`partition`] | which rank owns which row on every level ([`partition::Layout`]) |
//! | [`comm`] | each level's logical messages (spmv, spgemm, ptap), their summaries, node-aware strategies, pattern files |
//! | [`measure`] | the measured side: calibration fits and schedule, replay of saved patterns; with feature `mpi`, both run under real MPI |
//! | [`model`] | cost terms, one file each under [`model::terms`], one registry; a [`model::Cost`] is a list of (term, seconds) |
//! | [`analysis`] | [`analysis::analyze`]: a hierarchy through partition, comm and model, as plain data; [`analysis::compare`] |
//! | [`report`] | rendering only: JSON, tables, CSV, charts |
//! | [`cli`] | the command line: parses flags, calls the above, writes files |
//!
//! [`output`] writes files and folders whole or not at all and checks
//! outputs against inputs; [`memory`] refuses requests beyond the memory
//! available; [`measured`] reads measured times (RAPtor's output, amgcomm's
//! JSON) that [`analysis::overlay`] sets beside the model.
//!
//! # A library call
//!
//! ```no_run
//! use amgcomm::{amg, analysis, machine::Machine, matrix, partition};
//!
//! let a = matrix::io::read("elasticity.mtx".as_ref())?.csr;
//! let h = amg::build(&a, &amg::Preset::Hypre.options(), &mut |_, _| {})?;
//! let m = Machine::bluewaters(); // 512 nodes x 16 ranks
//! let fine = partition::Partition::contiguous(a.rows(), m.ranks());
//! let layout = partition::Layout::new(&h, fine, partition::CoarseRule::Inherit);
//! let result = analysis::analyze(&h, &layout, &m, &analysis::Options::default())?;
//! for level in &result.levels {
//!     for op in &level.ops {
//!         println!("level {} {}: {:.3e} s", level.level, op.op.name(), op.cost.total);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Numerical kernels index several arrays with one loop variable.
#![allow(clippy::needless_range_loop)]
#![warn(missing_docs)]

pub mod amg;
pub mod analysis;
pub mod cli;
pub mod comm;
pub mod machine;
pub mod matrix;
pub mod measure;
pub mod measured;
pub mod memory;
pub mod model;
pub mod output;
pub mod partition;
pub mod report;

/// The command-line name of a value of an option (`node-aware-3`,
/// `contiguous-nnz`): options are clap `ValueEnum`s, which define their
/// names once.
pub(crate) fn value_name<T: clap::ValueEnum>(v: &T) -> String {
    v.to_possible_value()
        .map(|p| p.get_name().to_string())
        .unwrap_or_default()
}

/// Every name of an option, joined by ", " (for messages).
pub(crate) fn value_names<T: clap::ValueEnum>() -> String {
    let names: Vec<String> = T::value_variants().iter().map(value_name).collect();
    names.join(", ")
}
