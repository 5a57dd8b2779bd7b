//! Stage 7: what users look at: charts now; tables, JSON and CSV of the
//! communication analysis with the later stages.
//!
//! Charts are PNG or SVG, chosen by the output file's extension. Text is
//! drawn with the DejaVu Sans font compiled into the binary, so no system
//! font library is needed.

pub mod analysis;
pub mod charts;
pub mod compare;
pub mod hierarchy;
pub mod spy;

use std::path::Path;
use std::sync::Once;

/// "path/beam_tet_2k.mtx.gz" -> "beam_tet_2k": a matrix's name without
/// folders and Matrix Market extensions, for titles and folder names.
pub fn base_name(name: &str) -> &str {
    let name = name.rsplit('/').next().unwrap_or(name);
    name.trim_end_matches(".gz").trim_end_matches(".mtx")
}

/// Chart file formats, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChartFormat {
    Png,
    Svg,
}

impl ChartFormat {
    pub fn of(path: &Path) -> Result<ChartFormat, String> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("png") => Ok(ChartFormat::Png),
            Some("svg") => Ok(ChartFormat::Svg),
            _ => Err(format!(
                "{}: charts are written as .png or .svg",
                path.display()
            )),
        }
    }
}

/// Register the embedded font under plotters' "sans-serif" (once).
pub(crate) fn register_fonts() {
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
pub(crate) fn save_chart<P, S>(path: &Path, png: P, svg: S) -> Result<(), String>
where
    P: FnOnce(&Path) -> Result<(), String>,
    S: FnOnce(&Path) -> Result<(), String>,
{
    let format = ChartFormat::of(path)?;
    register_fonts();
    crate::output::write_atomically(path, |tmp| {
        match format {
            ChartFormat::Png => png(tmp),
            ChartFormat::Svg => svg(tmp),
        }
        .map_err(std::io::Error::other)
    })
    .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
