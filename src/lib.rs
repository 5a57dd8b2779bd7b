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
//! | [`machine`] | the virtual machine: placement, the node's locality classes ([`machine::Locality`], data), [`machine::Protocol`]s, the network ([`machine::network`], an extension point), cost parameters |
//! | [`partition`] | which rank owns which row on every level ([`partition::Layout`]) |
//! | [`comm`] | each level's logical messages (spmv, spgemm, ptap), their summaries, node-aware strategies, pattern files |
//! | [`model`] | cost terms, one file each under [`model::terms`], one registry; a [`model::Cost`] is a list of (term, seconds) |
//! | [`measure`] | the measured side: calibration fits and schedule, replay of saved patterns; with feature `mpi`, both run under real MPI |
//! | [`measured`] | measured times to set beside the model: RAPtor's output, amgcomm's JSON (what replay writes), Caliper profiles, PETSc's `-log_view` |
//! | [`analysis`] | [`analysis::Request`]: one run (input, AMG, machine, layout, model, outputs) checked, then run into plain data; [`analysis::analyze`]: a hierarchy through partition, comm and model; [`analysis::compare`] |
//! | [`report`] | rendering only: JSON, tables, CSV, charts, a run's outputs ([`report::run`]) |
//! | [`cli`] | the command line: flags into a request, run, print |
//!
//! The ground floor, which imports no stage: [`output`] writes files and
//! folders whole or not at all and checks outputs against inputs;
//! [`memory`] refuses requests beyond the memory available; [`json_in`]
//! reads JSON with errors in user terms. `tests/layering.rs` holds the
//! order, and that no two files of a folder import each other.
//!
//! # A library call
//!
//! `amgcomm analyze gen:beam:2 --nodes 4 --ppn 4 --partition mfem --preset
//! raptor-2018` is one [`analysis::Request`]: checked before any input is
//! read, run into plain data ([`analysis::Run`]), rendered by `report`.
//!
//! ```
//! use amgcomm::analysis::{Input, Request};
//! use amgcomm::{amg::Preset, machine::Machine, report::json::Report};
//! use amgcomm::partition::{methods::Method, Fine};
//!
//! let machine = Machine { nodes: 4, ppn: 4, ..Machine::bluewaters() };
//! let beam = Input::Matrix { spec: "gen:beam:2".into(), permute: None };
//! let mut request = Request::new(beam, machine).with_preset(Preset::Raptor2018);
//! request.partition = Some(Fine::Method(Method::Mfem));
//! let run = request.run(request.check()?, &|_| {})?;
//! let json = Report::of_run(&run, &request).to_json(); // analyze's report.json
//! assert!(json.contains(r#""fine": "mfem""#) && run.analysis.levels.len() > 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A hypre input is `Input::Matrix { spec: "path/A".into(), .. }` for the
//! rank files `path/A.00000, ...`; `examples/library_report.rs` writes
//! both reports, and `tests/regression.rs` checks them against
//! `analyze`'s golden reports number by number.

// Numerical kernels index several arrays with one loop variable.
#![allow(clippy::needless_range_loop)]
#![warn(missing_docs)]

/// The version of this build (Cargo's), as `amgcomm --version` prints it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod amg;
pub mod analysis;
pub mod cli;
pub mod comm;
pub mod json_in;
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

/// 1234567 -> "1,234,567".
pub(crate) fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (k, ch) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Every name of an option, joined by ", " (for messages).
pub(crate) fn value_names<T: clap::ValueEnum>() -> String {
    let names: Vec<String> = T::value_variants().iter().map(value_name).collect();
    names.join(", ")
}
