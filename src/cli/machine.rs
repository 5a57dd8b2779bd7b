//! `amgcomm machine show|fit|calibrate-pack` and `amgcomm models
//! reproduce`.

use std::path::PathBuf;

use clap::Subcommand;

use super::{emit, Error};
use crate::machine::Machine;
use crate::measure::reproduce;
use crate::model::pack_bench;
use crate::report::{pretty_json as json, text};

#[derive(Subcommand, Debug)]
pub(crate) enum MachineCommand {
    /// Every preset, one line each: its node, network and size, and the
    /// dates and kinds of its sources.
    List {
        /// A JSON list instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Print a machine (a preset: bluewaters, lassen, summit, frontier,
    /// elcapitan, aurora, perlmutter; or a JSON file) with its parameters and where each comes from;
    /// --json gives a file to edit and pass back with --machine FILE.json.
    Show {
        /// A preset or FILE.json.
        machine: String,
        /// Print the machine file instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Fit a preset's measured parameters (Table 1's alpha and R_b per
    /// locality and protocol, the thresholds, R_N) again, with
    /// calibrate's fits, from the BenchPress outputs they came from or
    /// from a table of their medians; prints the preset's machine file.
    Fit {
        /// lassen, summit, frontier (BenchPress runs), elcapitan or
        /// perlmutter (MPI Advance's microbenchmarks).
        preset: String,
        /// A folder of the preset's outputs (as BenchPress's
        /// benchmarks/lassen/spectrum/ or locality_aware's benchmark_tests/tuolumne/), or a table of
        /// medians (--write-table's).
        from: PathBuf,
        /// Also write the medians as a table (the project's CSV, naming
        /// its source).
        #[arg(long, value_name = "FILE")]
        write_table: Option<PathBuf>,
    },
    /// Measure log3P's pack cost (l_mw: gathering a message from k runs,
    /// less a contiguous copy) on this computer over message sizes and run
    /// counts; prints MACHINE's JSON with params.pack_table filled in, for
    /// --machine. Run it on the machine the model stands for.
    CalibratePack {
        /// bluewaters or FILE.json: the parameters to keep.
        #[arg(default_value = "bluewaters")]
        machine: String,
        /// Size of the array gathered from: about a rank's local vector
        /// (small arrays stay in cache; the default is memory-resident).
        #[arg(long, default_value_t = 64 << 20, value_name = "BYTES")]
        source_bytes: usize,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum ModelsCommand {
    /// Each model against the numbers its paper prints (parameter sets in
    /// machines/): the paper's value, amgcomm's and their relative
    /// difference.
    Reproduce {
        /// A JSON list of {"case", "paper", "amgcomm", "rel_diff", "note"}.
        #[arg(long)]
        json: bool,
    },
}

pub(crate) fn machine(c: MachineCommand) -> Result<(), Error> {
    match c {
        MachineCommand::List { json: j } => {
            let list = crate::machine::presets::listing();
            emit(&if j { json(&list) } else { text::listing(&list) })
        }
        MachineCommand::Show { machine, json: j } => {
            let m = Machine::named_or_file(&machine)?;
            emit(&if j { json(&m) } else { text::machine(&m) })
        }
        MachineCommand::Fit {
            preset,
            from,
            write_table,
        } => {
            use crate::measure::benchpress;
            // Before anything is read: a usage error.
            crate::measure::refit::fittable(&preset)
                .map_err(|e| Error::Usage(format!("machine fit {}", e.0)))?;
            let mut plan = crate::output::Plan::new();
            plan.input(&from);
            if let Some(t) = &write_table {
                plan.file("--write-table", t)?;
            }
            let (m, source, medians) = crate::measure::refit::refit(&preset, &from)?;
            if let Some(t) = &write_table {
                let text = benchpress::write_table(&source, &medians);
                crate::output::write_atomically(t, |p| std::fs::write(p, &text))
                    .map_err(Error::write(t))?;
            }
            emit(&json(&m))
        }
        MachineCommand::CalibratePack {
            machine,
            source_bytes,
        } => {
            let mut m = Machine::named_or_file(&machine)?;
            if !(1 << 10..=1 << 34).contains(&source_bytes) {
                return Err(Error::Usage(format!(
                    "--source-bytes {source_bytes}: choose between 1 KiB and 16 GiB"
                )));
            }
            m.params.pack_table = Some(pack_bench::pack_table(source_bytes));
            emit(&json(&m))
        }
    }
}

pub(crate) fn models(c: ModelsCommand) -> Result<(), Error> {
    let ModelsCommand::Reproduce { json: j } = c;
    let mut cases = reproduce::cases()?;
    cases.extend(reproduce::measured_cases()?);
    emit(&if j {
        json(&cases)
    } else {
        text::reproduced(&cases)
    })
}
