//! RAPtor 2018's setup as `ParRugeStubenSolver` runs it at c00e9d6 on
//! the ranks' row blocks, one file per stage: HMIS (`hmis`), extended
//! interpolation (`interp`) and the Galerkin product (`matmult`), each
//! with its operations in RAPtor's order, so that the levels are the
//! ones RAPtor builds (held against RAPtor itself in tests/raptor.rs).
//!
//! May use `matrix` and the rest of `amg`; each stage's file uses only the
//! stages before it (`tests/layering.rs`).

pub(crate) mod hmis;
pub(crate) mod interp;
pub(crate) mod matmult;
