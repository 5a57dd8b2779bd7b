//! `amgcomm machine show|calibrate-pack` and `amgcomm models reproduce`.

use clap::Subcommand;

use super::{emit, Error};
use crate::machine::Machine;
use crate::model::{pack_bench, reproduce};
use crate::report::{pretty_json as json, text};

#[derive(Subcommand, Debug)]
pub(crate) enum MachineCommand {
    /// Print a machine (bluewaters, or a JSON file) with its parameters;
    /// --json gives a file to edit and pass back with --machine FILE.json.
    Show {
        /// bluewaters or FILE.json.
        machine: String,
        /// Print the machine file instead of the table.
        #[arg(long)]
        json: bool,
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
        MachineCommand::Show { machine, json: j } => {
            let m = Machine::named_or_file(&machine)?;
            emit(&if j { json(&m) } else { text::machine(&m) })
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
    let cases = reproduce::cases()?;
    emit(&if j {
        json(&cases)
    } else {
        text::reproduced(&cases)
    })
}
