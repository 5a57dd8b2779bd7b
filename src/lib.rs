//! amgcomm: where does the communication time of each level of an algebraic
//! multigrid hierarchy go, and what would cut it?
//!
//! Pipeline stages, each knowing only the ones before it:
//! `matrix` (I/O, generators) -> `amg` -> `machine` -> `partition` -> `comm`
//! -> `model` -> `report` -> `cli`.

// Numerical kernels index several arrays with one loop variable.
#![allow(clippy::needless_range_loop)]

pub mod amg;
pub mod cli;
pub mod comm;
pub mod machine;
pub mod matrix;
pub mod model;
pub mod output;
pub mod partition;
pub mod report;
