//! Machine presets from BenchPress microbenchmarks (Bienz et al.,
//! `bienz2/BenchPress`, `examples/time_ping_pong.cpp`,
//! `time_max_rate.cpp`): the CPU ping-pongs between every pair of ranks
//! of two nodes, and the max-rate test (`np` ranks of a node each
//! ping-pong with a partner on the other node at once).
//!
//! The output files become a small table of medians ([`Median`], the
//! project's own CSV, naming its source): per locality and size the
//! median over the rank pairs of that locality of the minimum over the
//! repeated runs (the minimum of repeats: single cells of BenchPress's
//! outputs spike 2-10x); per sender count the
//! max-rate time of the largest size. [`fit()`] turns the table into the
//! machine's parameters with `amgcomm calibrate`'s own fits
//! ([`super::calibrate::fit_machine`]) and records each one's provenance.
//!
//! [`read`] reads the outputs, [`median`] keeps their medians as a
//! table, [`mod@fit`] fits a machine to it, [`runs`] names each preset's
//! files; [`super::refit`] refits a preset from either source.
//!
//! May use the stages before `measure` and the rest of `measure` (`fit`,
//! `calibrate`, `samples`); `read` < `median` < `fit` and `runs`, never
//! back (`tests/layering.rs`).

pub mod fit;
pub mod median;
pub mod read;
pub mod runs;

pub use fit::fit;
pub use median::{medians, read_table, write_table, Bench, Layout, Median, TABLE_HEADER};
pub use read::{max_rate, memcpy, ping_pong, ping_pong_of, sized_rows, BenchError, Buffers, SIZES};
pub use runs::{GpuRuns, Runs, RUNS};
