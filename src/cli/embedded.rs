//! The Python package's way in (`python/`): a command's flags parsed and
//! mapped to a request by the command line's own code, run on an input
//! held in memory when one is given, its report folder written, nothing
//! printed. The package is a face like the command line: it turns its
//! keyword arguments into these flags.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Parser;

use super::{Cli, Command, Error};
use crate::amg::Hierarchy;
use crate::analysis::request::Event;
use crate::analysis::{Held, Input};

/// Why a command failed: the command line's one line (without
/// `amgcomm: `), and whether it is about how amgcomm was asked (the
/// command line's exit status 2).
#[derive(Debug)]
pub struct Failure {
    /// The message.
    pub message: String,
    /// A usage error.
    pub usage: bool,
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure {
            message: super::process::flags(&e.to_string()),
            usage: e.exit_status() == 2,
        }
    }
}

/// `argv` (a command and its flags, as after `amgcomm`) parsed as the
/// command line parses it.
fn parse(argv: &[String]) -> Result<Command, Failure> {
    let all = std::iter::once("amgcomm".to_string()).chain(argv.iter().cloned());
    Cli::try_parse_from(all)
        .map(|c| c.command)
        .map_err(|e| Failure {
            message: e
                .render()
                .to_string()
                .lines()
                .next()
                .unwrap_or_default()
                .trim_start_matches("error: ")
                .to_string(),
            usage: true,
        })
}

/// One line of progress per event, as the spinner shows it.
fn say(progress: &(dyn Fn(String) + Sync)) -> impl Fn(Event) + '_ {
    move |e| match e {
        Event::Step(s) => progress(s),
        Event::Warning(w) => progress(format!("warning: {w}")),
    }
}

/// The request `r`, on `held` when given, checked.
fn checked(
    mut r: crate::analysis::Request,
    held: Option<Arc<Held>>,
) -> Result<(crate::analysis::Request, crate::analysis::request::Checked), Failure> {
    if let Some(h) = held {
        r.input = Input::Memory(h);
    }
    let checked = r.check().map_err(Error::from)?;
    Ok((r, checked))
}

/// Runs `analyze`, `compare` or `scale` as `argv` asks, on `held` instead
/// of the input the flags name when given; returns the report folder
/// written (its `--out`).
pub fn run(
    argv: &[String],
    held: Option<Arc<Held>>,
    progress: &(dyn Fn(String) + Sync),
) -> Result<PathBuf, Failure> {
    let input = |given: Input| held.clone().map_or(given, Input::Memory);
    let events = say(progress);
    match parse(argv)? {
        Command::Analyze(args) => {
            let (r, checked) = checked(args.request()?, held)?;
            let run = r.run(checked, &events).map_err(Error::from)?;
            crate::report::run::write_run(&run, &r, false, &|s| progress(s))
                .map_err(Error::from)?;
            Ok(r.folder())
        }
        Command::Compare(args) => {
            let (mut r, model) = super::compare::request(&args)?;
            r.input = input(r.input);
            super::compare::compare(&r, &model, &events)?;
            Ok(r.folder())
        }
        Command::Scale(args) => {
            let mut r = args.request()?;
            r.base.input = input(r.base.input);
            let points = r.check().map_err(Error::from)?;
            let dir = r.folder();
            crate::report::scale::write_folder(&dir, |each| r.run(points, &events, each))
                .map_err(Error::from)?;
            Ok(dir)
        }
        _ => Err(Failure {
            message: "the Python package runs analyze, compare and scale".into(),
            usage: true,
        }),
    }
}

/// Whether `argv` asks well: parsed, mapped to its request and checked as
/// the command line does before it reads anything, nothing run.
pub fn check(argv: &[String]) -> Result<(), Failure> {
    match parse(argv)? {
        Command::Analyze(args) => checked(args.request()?, None).map(|_| ()),
        Command::Compare(args) => super::compare::request(&args)
            .map(|_| ())
            .map_err(Failure::from),
        Command::Scale(args) => {
            let r = args.request()?;
            r.check().map(|_| ()).map_err(|e| Error::from(e).into())
        }
        Command::Hierarchy(args) => checked(args.request()?, None).map(|_| ()),
        _ => Err(Failure {
            message: "the Python package runs analyze, compare, scale and hierarchy".into(),
            usage: true,
        }),
    }
}

/// The hierarchy `argv` (`hierarchy`'s flags) builds, or reads, from
/// `held` or the input the flags name.
pub fn hierarchy(
    argv: &[String],
    held: Option<Arc<Held>>,
    progress: &(dyn Fn(String) + Sync),
) -> Result<Hierarchy, Failure> {
    let Command::Hierarchy(args) = parse(argv)? else {
        return Err(Failure {
            message: "hierarchy takes hierarchy's flags".into(),
            usage: true,
        });
    };
    let (r, checked) = checked(args.request()?, held)?;
    let mut stages = crate::analysis::Stages::start();
    let loaded = (r.hierarchy(&checked, &say(progress), &mut stages)).map_err(Error::from)?;
    Ok(loaded.h)
}
