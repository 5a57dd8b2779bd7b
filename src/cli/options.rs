//! Every option of a command as data: the Python package's signatures,
//! docstrings and stubs are made from it (`python/generate_stubs.py`), so
//! they say what the command line says and cannot drift from it.

use std::any::TypeId;
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{ArgAction, CommandFactory, Parser};
use serde::Serialize;

use super::embedded::Failure;
use super::Cli;

/// One option: its keyword (the flag without `--`, `_` for `-`), its type,
/// its default as the command line prints it, and its help.
#[derive(Clone, Debug, Serialize)]
pub struct OptionSpec {
    /// The keyword.
    pub name: String,
    /// The flag, `--name-with-dashes`.
    pub flag: String,
    /// `bool` (a switch), `int`, `float`, `path`, `str` or `choice`.
    pub kind: &'static str,
    /// The values a `choice` takes.
    pub choices: Vec<String>,
    /// Whether it takes several values (a list, joined by commas).
    pub many: bool,
    /// The smallest value an `int` takes (0 or 1).
    pub min: Option<u64>,
    /// The default, as the command line shows it, when it has one.
    pub default: Option<String>,
    /// The help text, one paragraph.
    pub help: String,
    /// The help heading (Input, AMG setup, Machine, ...).
    pub group: String,
}

/// The flags the Python package sets itself: the input and where the
/// report goes.
const OWN: &[&str] = &["input", "out", "help", "version"];

/// Every option of `command` (`analyze`, `compare`, `scale` or
/// `hierarchy`), in the order of its help.
pub fn options(command: &str) -> Result<Vec<OptionSpec>, Failure> {
    let cli = Cli::command();
    let Some(sub) = cli.find_subcommand(command) else {
        return Err(Failure {
            message: format!("no command '{command}'"),
            usage: true,
        });
    };
    let mut out = Vec::new();
    for a in sub.get_arguments() {
        let id = a.get_id().as_str();
        if OWN.contains(&id) || a.is_positional() || a.is_hide_set() {
            continue;
        }
        let Some(long) = a.get_long() else { continue };
        let parser = a.get_value_parser();
        let t = parser.type_id();
        let choices: Vec<String> = (a.get_possible_values().iter())
            .filter(|p| !p.is_hide_set())
            .map(|p| p.get_name().to_string())
            .collect();
        let unsigned = [
            TypeId::of::<usize>(),
            TypeId::of::<u64>(),
            TypeId::of::<u32>(),
            TypeId::of::<u16>(),
            TypeId::of::<u8>(),
        ]
        .iter()
        .any(|&x| t == x);
        let kind = match a.get_action() {
            ArgAction::SetTrue | ArgAction::SetFalse => "bool",
            _ if !choices.is_empty() => "choice",
            _ if unsigned || t == TypeId::of::<i64>() || t == TypeId::of::<i32>() => "int",
            _ if t == TypeId::of::<f64>() || t == TypeId::of::<f32>() => "float",
            _ if t == TypeId::of::<PathBuf>() => "path",
            _ => "str",
        };
        // The least value clap takes: 1 when it refuses 0 (a range).
        let min = (kind == "int" && unsigned).then(|| {
            let argv = [
                "amgcomm",
                command,
                "gen:poisson2d:4",
                &format!("--{long}"),
                "0",
            ];
            match Cli::try_parse_from(argv) {
                Err(e) if e.kind() == ErrorKind::ValueValidation => 1,
                Err(_) => 0,
                // Taken by clap: 1 when the request's own check refuses 0
                // by this flag's name.
                Ok(_) => {
                    let argv: Vec<String> = argv[1..].iter().map(|s| s.to_string()).collect();
                    match super::embedded::check(&argv) {
                        Err(f)
                            if [" ", ":"]
                                .iter()
                                .any(|e| f.message.contains(&format!("--{long}{e}"))) =>
                        {
                            1
                        }
                        _ => 0,
                    }
                }
            }
        });
        let many = matches!(a.get_action(), ArgAction::Append)
            || a.get_value_delimiter().is_some()
            || a.get_num_args().is_some_and(|n| n.max_values() > 1);
        let default = (!a.get_default_values().is_empty()).then(|| {
            (a.get_default_values().iter())
                .map(|v| v.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(",")
        });
        let help = a
            .get_long_help()
            .or(a.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        out.push(OptionSpec {
            name: long.replace('-', "_"),
            flag: format!("--{long}"),
            kind,
            choices,
            many,
            min,
            default: if kind == "bool" { None } else { default },
            help: help.split_whitespace().collect::<Vec<_>>().join(" "),
            group: a.get_help_heading().unwrap_or("Options").to_string(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(v: &'a [OptionSpec], name: &str) -> &'a OptionSpec {
        v.iter().find(|o| o.name == name).unwrap()
    }

    #[test]
    fn analyzes_options_carry_their_types_and_defaults() {
        let v = options("analyze").unwrap();
        let nodes = find(&v, "nodes");
        assert_eq!((nodes.kind, nodes.flag.as_str()), ("int", "--nodes"));
        assert_eq!(find(&v, "theta").kind, "float");
        let preset = find(&v, "preset");
        assert_eq!(preset.kind, "choice");
        assert!(preset.choices.contains(&"pyamg".to_string()));
        assert_eq!(preset.default.as_deref(), Some("hypre"));
        assert_eq!(find(&v, "advice").kind, "bool");
        assert!(find(&v, "ops").many);
        assert!(v.iter().all(|o| o.name != "out" && o.name != "input"));
        // --iterations is a range from 1 in clap; the request refuses 0
        // nodes; 0 is a seed.
        assert_eq!(find(&v, "iterations").min, Some(1));
        assert_eq!(nodes.min, Some(1));
        assert_eq!(find(&v, "seed").min, Some(0));
        let h = options("hierarchy").unwrap();
        assert_eq!(find(&h, "ranks").min, Some(1));
        assert!(options("nothing").is_err());
    }
}
