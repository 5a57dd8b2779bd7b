//! amgcomm: where does the communication time of each level of an algebraic
//! multigrid hierarchy go, and what would cut it?
//!
//! Pipeline stages, each knowing only the ones before it:
//! `matrix` (I/O, generators) -> `amg` -> `machine` -> `partition` -> `comm`
//! -> `model` -> `report` -> `cli`.

// Numerical kernels index several arrays with one loop variable.
#![allow(clippy::needless_range_loop)]

pub mod amg;
pub mod analysis;
pub mod cli;
pub mod comm;
pub mod machine;
pub mod matrix;
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
