//! The measured side: what `amgcomm calibrate` and `amgcomm replay` run
//! under MPI, and everything about it that needs no MPI.
//!
//! - [`benchpress`]: presets' parameters from BenchPress's published
//!   microbenchmarks, with their provenance;
//! - [`locality_aware`]: the same from MPI Advance's microbenchmarks
//!   (Tuolumne, Delta);
//! - [`fit`]: least squares and the paper's parameter fits;
//! - [`calibrate`]: the machine file fitted from the calibration's raw
//!   samples ([`samples`], CSV) taken on its schedule ([`schedule`]), its
//!   ping-pong fits in `rates`;
//! - [`reproduce`]: `amgcomm models reproduce`, each model beside the
//!   figures its paper prints and the measurements its fit came from;
//! - [`replay`]: each rank's part of saved patterns and the measured JSON
//!   a replay writes;
//! - [`row_work`]: the local work of an exchange of matrix rows, fitted
//!   to RAPtor's benchmark_matops logs, or to [`row_kernels`] timed where
//!   `calibrate` runs;
//! - [`row_kernels`]: that work as RAPtor does it, as kernels to time;
//! - `mpi` (feature `mpi`): the experiments and the replay with real MPI
//!   (rsmpi).
//!
//! May use `matrix`, `amg`, `machine`, `partition`, `comm`, `model`, and
//! the ground floor (`output`, `memory`, `json_in`); its files never import
//! each other round a circle (`tests/layering.rs`).

pub mod benchpress;
pub mod calibrate;
pub mod fit;
pub mod locality_aware;
#[cfg(feature = "mpi")]
pub mod mpi;
mod rates;
pub mod refit;
pub mod replay;
pub mod reproduce;
pub mod row_kernels;
pub mod row_work;
pub mod samples;
pub mod schedule;
