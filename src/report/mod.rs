//! Stage 8: what users look at. Rendering only: terminal tables, JSON and
//! CSV of an [`crate::analysis::Analysis`], and charts; nothing here
//! computes a cost.
//!
//! - [`json`]: `report.json`, report.json's fields (docs/report.md, "The fields of report.json");
//! - [`caliper`]: `profile.json`, the levels as a Caliper profile;
//! - [`html`]: `report.html`, the folder in one self-contained page;
//! - [`extrap`]: `extrap.jsonl` of `scale`, Extra-P's input;
//! - [`table`]: the terminal tables and `levels.csv`;
//! - [`charts`]: per-level charts of `analyze`;
//! - [`compare`]: the table, JSON and chart of `compare`;
//! - [`hierarchy`]: the level table of `hierarchy`;
//! - [`text`]: `machine show` and `models reproduce`;
//! - [`phases`]: a profile's phases per level beside the model;
//! - [`spy`]: sparsity plots.
//!
//! Charts are PNG or SVG, chosen by the output file's extension. Text is
//! drawn with the DejaVu Sans font compiled into the binary, so no system
//! font library is needed.
//!
//! May use `matrix`, `amg`, `machine`, `partition`, `comm`, `model`,
//! `measure`, `measured`, `analysis`, and the ground floor (`output`,
//! `memory`, `json_in`); its files never import each other round a circle
//! (`tests/layering.rs`).

pub mod caliper;
pub mod charts;
pub mod compare;
pub mod cycle;
pub mod extrap;
pub mod hierarchy;
pub mod html;
pub mod json;
pub mod measurements;
pub mod phases;
pub mod run;
pub mod scale;
pub mod spy;
pub mod table;
pub mod text;

use std::path::Path;
use std::sync::Once;

pub use crate::matrix::source::base_name;

/// A chart or file that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A chart path that is neither `.png` nor `.svg`.
    #[error("{path}: charts are written as .png or .svg")]
    Format {
        /// The path given.
        path: String,
    },
    /// Writing failed.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// A patterns or DOT folder.
    #[error(transparent)]
    Patterns(#[from] crate::comm::pattern_file::PatternError),
}

/// Chart file formats, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartFormat {
    /// A bitmap.
    Png,
    /// A vector drawing.
    Svg,
}

impl ChartFormat {
    /// The format of `path`, by its extension.
    pub fn of(path: &Path) -> Result<ChartFormat, ReportError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("png") => Ok(ChartFormat::Png),
            Some("svg") => Ok(ChartFormat::Svg),
            _ => Err(ReportError::Format {
                path: path.display().to_string(),
            }),
        }
    }
}

/// What a drawing function returns: plotters' errors are generic in the
/// backend, so they travel boxed until [`save_chart`] names the file.
pub(crate) type Drawn = Result<(), Box<dyn std::error::Error>>;

/// Register the embedded font under plotters' "sans-serif" (once).
fn register_fonts() {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        use plotters::style::FontStyle;
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .unwrap_or_else(|_| panic!("embedded DejaVu Sans is a valid font"));
        plotters::style::register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold())
            .unwrap_or_else(|_| panic!("embedded DejaVu Sans Bold is a valid font"));
    });
}

/// Write a chart to `path`, PNG or SVG by its extension, atomically: `png`
/// and `svg` draw it at a temporary path with the bitmap or SVG backend.
pub(crate) fn save_chart<P, S>(path: &Path, png: P, svg: S) -> Result<(), ReportError>
where
    P: FnOnce(&Path) -> Drawn,
    S: FnOnce(&Path) -> Drawn,
{
    let format = ChartFormat::of(path)?;
    register_fonts();
    crate::output::write_atomically(path, |tmp| {
        // The file is made first, so that a folder's refusal is told as
        // such rather than in the backend's debug text.
        std::fs::File::create(tmp)?;
        match format {
            ChartFormat::Png => png(tmp),
            ChartFormat::Svg => svg(tmp),
        }
        .map_err(|_| std::io::Error::other("the chart could not be drawn"))
    })
    .map_err(|e| ReportError::Write {
        path: path.display().to_string(),
        reason: crate::output::reason(&e),
    })
}

pub use crate::output::is_report_file;

/// Writes the report folder `dir` whole ([`crate::output::write_folder`]):
/// `levels.csv`; `profile.json` ([`caliper`]); `report.html` ([`html`]); a chart per operation charged, the `messages` chart and,
/// with a cycle, the `cycle` chart, each as PNG and SVG; then `finish` is called (to add timings that cover the
/// charts) and `report.json` written. A folder that holds other files is
/// refused; on failure `dir` keeps what it held.
pub fn write_folder(
    dir: &Path,
    r: &mut json::Report,
    finish: impl FnOnce(&mut json::Report),
) -> Result<(), ReportError> {
    report_folder(dir, |f| {
        f.text("levels.csv", &table::csv(r))?;
        for ext in ["png", "svg"] {
            // A chart per operation charged.
            for op in crate::comm::OPS {
                if charts::level_costs(r, op).is_empty() {
                    continue;
                }
                charts::breakdown(&f.path(&format!("{}.{ext}", op.name())), r, op)?;
            }
            charts::messages(&f.path(&format!("messages.{ext}")), r)?;
            if let Some(c) = r.cycle {
                cycle::chart(&f.path(&format!("cycle.{ext}")), r, c)?;
            }
            if !phases::of(r).is_empty() {
                phases::chart(&f.path(&format!("measured_levels.{ext}")), r)?;
            }
        }
        f.text(
            "profile.json",
            &caliper::profile(r.levels, caliper::metadata(r)),
        )?;
        let mut charts = Vec::new();
        for op in crate::comm::OPS {
            let caption = format!(
                "{}: modeled seconds per level, term by term (measured beside when given)",
                op.name()
            );
            charts.push((op.name().to_string(), caption));
        }
        charts.push((
            "messages".into(),
            "messages a rank receives per level (the most and the mean) and the active ranks"
                .into(),
        ));
        charts.push((
            "cycle".into(),
            "per level, the setup and the solve; below, the parts' shares".into(),
        ));
        charts.push((
            "measured_levels".into(),
            "per level, measured beside modeled".into(),
        ));
        f.text("report.html", &html::analyze(r, &f.svgs(&charts)?))?;
        finish(r);
        f.text("report.json", &r.to_json())
    })
}

/// A report folder under construction: files go into the temporary
/// folder, errors name them as in the target.
pub(crate) struct Folder<'a> {
    tmp: &'a Path,
    dir: &'a Path,
}

impl Folder<'_> {
    /// Where the file `name` is written.
    pub(crate) fn path(&self, name: &str) -> std::path::PathBuf {
        self.tmp.join(name)
    }

    /// The charts of `names` (stem, caption) written so far as SVG, in
    /// that order, for [`html`].
    pub(crate) fn svgs(&self, names: &[(String, String)]) -> Result<Vec<html::Chart>, ReportError> {
        let mut out = Vec::new();
        for (name, caption) in names {
            let path = self.path(&format!("{name}.svg"));
            if path.is_file() {
                let svg = std::fs::read_to_string(&path).map_err(|e| write_error(&path, &e))?;
                out.push(html::Chart {
                    name: name.clone(),
                    caption: caption.clone(),
                    svg,
                });
            }
        }
        Ok(out)
    }

    /// Writes `text` as the file `name`.
    pub(crate) fn text(&self, name: &str, text: &str) -> Result<(), ReportError> {
        std::fs::write(self.path(name), text).map_err(|e| write_error(&self.dir.join(name), &e))
    }
}

fn write_error(path: &Path, e: &std::io::Error) -> ReportError {
    ReportError::Write {
        path: path.display().to_string(),
        reason: crate::output::reason(e),
    }
}

/// Builds the report folder `dir` whole (`analyze --out`, `compare --out`):
/// refused when it holds other than report files, filled by `fill`,
/// swapped in ([`crate::output::write_folder`]).
pub(crate) fn report_folder(
    dir: &Path,
    fill: impl FnOnce(&Folder) -> Result<(), ReportError>,
) -> Result<(), ReportError> {
    crate::output::check_folder(dir, is_report_file).map_err(|e| ReportError::Write {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    crate::output::write_folder(
        dir,
        |tmp| fill(&Folder { tmp, dir }),
        |e| write_error(dir, &e),
    )
}

/// `v` as pretty JSON with a final newline, as every JSON file and
/// `--json` output of amgcomm is written.
pub fn pretty_json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(v).expect("plain data serialises")
    )
}

/// 1234567 -> "1,234,567".
pub fn group(n: usize) -> String {
    crate::group(n)
}

/// 1536 -> "1.5 KB" (decimal units, as network rates are quoted).
pub fn bytes(b: u64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"];
    let mut x = b as f64;
    let mut u = 0;
    while x >= 1000.0 && u + 1 < units.len() {
        x /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", units[u])
    }
}

/// Seconds with a unit: "12.3 us", "4.56 ms".
pub fn seconds(t: f64) -> String {
    if t == 0.0 {
        "0".into()
    } else if t < 1e-3 {
        format!("{:.1} us", t * 1e6)
    } else if t < 1.0 {
        format!("{:.2} ms", t * 1e3)
    } else {
        format!("{t:.2} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_people() {
        assert_eq!(group(1234567), "1,234,567");
        assert_eq!(group(999), "999");
        assert_eq!(bytes(1536), "1.5 KB");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(seconds(1.23e-5), "12.3 us");
        assert_eq!(seconds(4.567e-3), "4.57 ms");
        assert_eq!(base_name("a/beam_tet_2k.mtx.gz"), "beam_tet_2k");
        assert!(ChartFormat::of(Path::new("x.jpg")).is_err());
        assert_eq!(
            ChartFormat::of(Path::new("x.SVG")).unwrap(),
            ChartFormat::Svg
        );
    }
}
