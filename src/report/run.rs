//! What a request's run writes ([`write_run`]): its patterns and DOT
//! graphs when asked, the report folder, the JSON copy; and the text the
//! terminal shows of it ([`terminal`]).

use std::path::{Path, PathBuf};

use super::json::Report;
use super::{table, ReportError};
use crate::analysis::{Request, Run};

/// What [`write_run`] wrote.
pub struct Written<'a> {
    /// The report, as written.
    pub report: Report<'a>,
    /// Its folder.
    pub folder: PathBuf,
    /// The stages' timings, one line, when asked for.
    pub timings: Option<String>,
}

/// Writes the outputs `request` asks of `run`, each whole: the patterns
/// and DOT folders, the report folder (its JSON last, so that timings
/// cover the charts), and the JSON copy. `say` hears each step.
pub fn write_run<'a>(
    run: &'a Run,
    request: &'a Request,
    timings: bool,
    say: &dyn Fn(String),
) -> Result<Written<'a>, ReportError> {
    let mut stages = run.stages.clone();
    let (o, m) = (&request.outputs, &request.machine);
    if let Some(dir) = &o.patterns {
        say(format!("writing patterns into {}", dir.display()));
        run.analysis.save_patterns(dir, m)?;
        stages.lap("patterns");
    }
    if let Some(dir) = &o.dot {
        run.analysis.save_dot(dir, m)?;
    }
    say("writing the report".into());
    let mut report = Report::of_run(run, request);
    let folder = request.folder();
    let mut line = None;
    super::write_folder(&folder, &mut report, |r| {
        stages.lap("charts and csv");
        if timings {
            let (t, l) = stages.report(run.built.as_ref());
            r.timings = Some(t);
            line = Some(l);
        }
    })?;
    if let Some(path) = &o.json {
        write_text(path, &report.to_json())?;
    }
    Ok(Written {
        report,
        folder,
        timings: line,
    })
}

/// Writes `text` as the file `path`, whole or not at all.
pub fn write_text(path: &Path, text: &str) -> Result<(), ReportError> {
    crate::output::write_atomically(path, |tmp| std::fs::write(tmp, text)).map_err(|e| {
        ReportError::Write {
            path: path.display().to_string(),
            reason: crate::output::reason(&e),
        }
    })
}

/// The terminal's account of a run: the input on the machine, the tables
/// of every operation, the cycle beside the setup when asked for, the
/// advice when asked for, where the report is,
/// and, without advice, a last line pointing at the costliest levels.
pub fn terminal(w: &Written, run: &Run, request: &Request) -> String {
    let (r, m) = (&w.report, &request.machine);
    format!(
        "{} ({}) on {} nodes x {} ppn = {} ranks ({}), {}\n\n{}{}{}{}\nhierarchy and input {:.2} s, communication extracted in {:.2} s; report in {}\n{}",
        r.matrix.name,
        run.source,
        m.nodes,
        m.ppn,
        m.ranks(),
        m.name,
        m.network().describe(),
        table::table(r),
        r.cycle.map(|c| format!("\n{}", super::cycle::table(c))).unwrap_or_default(),
        match super::phases::table(r) {
            t if t.is_empty() => t,
            t => format!("\n{t}"),
        },
        if request.advice { table::advice(r) } else { String::new() },
        run.input_seconds,
        run.analysis.seconds.extraction,
        w.folder.display(),
        if request.advice { String::new() } else { table::pointer(r) },
    )
}
