//! Sparsity ("spy") plot: where the nonzeros of a matrix are. The numbering
//! it shows is what a contiguous row partition turns into communication: a
//! banded matrix talks to neighbours, a randomly numbered one to everybody.
//!
//! Large matrices are binned: each pixel cell counts the nonzeros of a
//! block of rows and columns, shaded on a log scale.

use std::path::Path;

use plotters::prelude::*;
use rayon::prelude::*;

use super::{group, ChartFormat, Drawn, ReportError};
use crate::matrix::{Csr, Matrix};

/// Nonzero counts of a `bins_r x bins_c` grid of blocks of `cell` x `cell`
/// entries, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct SpyGrid {
    /// Rows and columns of the matrix per cell side.
    pub cell: usize,
    /// Cells down.
    pub bins_r: usize,
    /// Cells across.
    pub bins_c: usize,
    /// Nonzeros per cell, row-major.
    pub counts: Vec<u64>,
}

/// Bin the nonzeros of `a` into cells of `ceil(max(rows, cols) / max_bins)`
/// entries a side; each grid row is filled by one task.
pub fn bin(a: &Csr, max_bins: usize) -> SpyGrid {
    let n = a.rows().max(a.cols()).max(1);
    let cell = n.div_ceil(max_bins.max(1));
    let bins_r = a.rows().div_ceil(cell).max(1);
    let bins_c = a.cols().div_ceil(cell).max(1);
    let mut counts = vec![0u64; bins_r * bins_c];
    let indptr = a.indptr();
    let indptr = indptr.raw_storage();
    counts
        .par_chunks_mut(bins_c)
        .enumerate()
        .for_each(|(br, line)| {
            let rows = (br * cell).min(a.rows())..((br + 1) * cell).min(a.rows());
            for &j in &a.indices()[indptr[rows.start]..indptr[rows.end]] {
                line[j as usize / cell] += 1;
            }
        });
    SpyGrid {
        cell,
        bins_r,
        bins_c,
        counts,
    }
}

/// Draw the spy plot of `m` to `path` (.png or .svg), written atomically.
pub fn draw(path: &Path, m: &Matrix) -> Result<(), ReportError> {
    let format = ChartFormat::of(path)?;
    // SVG draws one element per cell: keep it smaller.
    let grid = bin(&m.csr, if format == ChartFormat::Svg { 200 } else { 600 });
    super::save_chart(
        path,
        |tmp| {
            render(
                BitMapBackend::new(tmp, (860, 900)).into_drawing_area(),
                m,
                &grid,
            )
        },
        |tmp| {
            render(
                SVGBackend::new(tmp, (860, 900)).into_drawing_area(),
                m,
                &grid,
            )
        },
    )
}

fn render<DB: DrawingBackend>(
    root: DrawingArea<DB, plotters::coord::Shift>,
    m: &Matrix,
    g: &SpyGrid,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (rows, cols, nnz) = (m.csr.rows(), m.csr.cols(), m.csr.nnz());
    let title = format!(
        "{}: {} x {}, {} nonzeros",
        m.name,
        group(rows),
        group(cols),
        group(nnz)
    );
    let note = if g.cell == 1 {
        "one pixel cell per entry".to_string()
    } else {
        let c = group(g.cell);
        format!("each cell: {c} x {c} entries, shade = log(nonzeros in the cell)")
    };
    let (top, bottom) = root.split_vertically(860);
    let mut chart = ChartBuilder::on(&top)
        .caption(&title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..cols as f64, rows as f64..0f64)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("column")
        .y_desc("row")
        .x_label_formatter(&|v| group(*v as usize))
        .y_label_formatter(&|v| group(*v as usize))
        .label_style(("sans-serif", 14))
        .draw()?;
    let max = g.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let cell = g.cell as f64;
    chart.draw_series(
        g.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(k, &c)| {
                let (br, bc) = ((k / g.bins_c) as f64, (k % g.bins_c) as f64);
                let t = if max > 1.0 {
                    (c as f64).ln_1p() / max.ln_1p()
                } else {
                    1.0
                };
                let shade = RGBColor(
                    (200.0 - 170.0 * t) as u8,
                    (215.0 - 160.0 * t) as u8,
                    (240.0 - 110.0 * t) as u8,
                );
                let x1 = ((bc + 1.0) * cell).min(cols as f64);
                let y1 = ((br + 1.0) * cell).min(rows as f64);
                Rectangle::new([(bc * cell, br * cell), (x1, y1)], shade.filled())
            }),
    )?;
    bottom.draw_text(
        &note,
        &("sans-serif", 14).into_font().color(&BLACK.mix(0.7)),
        (82, 8),
    )?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::gen::{Kind, Problem};

    #[test]
    fn binning_conserves_nonzeros_and_places_them() {
        let a = Problem::new(Kind::Poisson2d, 30).generate().unwrap().csr;
        let g = bin(&a, 180);
        assert_eq!(g.cell, 5);
        assert_eq!((g.bins_r, g.bins_c), (180, 180));
        assert_eq!(g.counts.iter().sum::<u64>(), a.nnz() as u64);
        // Brute force over all entries.
        let mut expect = vec![0u64; g.counts.len()];
        for (_, (i, j)) in a.iter() {
            expect[(i as usize / 5) * 180 + j as usize / 5] += 1;
        }
        assert_eq!(g.counts, expect);
        // A banded matrix fills the diagonal cells only near the diagonal.
        assert_eq!(g.counts[179], 0);
    }

    #[test]
    fn grouping_digits() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(66_728_592), "66,728,592");
    }

    #[test]
    fn draws_png_and_svg_and_rejects_other_extensions() {
        let d = tempfile::tempdir().unwrap();
        let m = Problem::new(Kind::Elasticity3d, 3).generate().unwrap();
        for name in ["s.png", "s.svg"] {
            let p = d.path().join(name);
            draw(&p, &m).unwrap();
            assert!(std::fs::metadata(&p).unwrap().len() > 1000);
        }
        let svg = std::fs::read_to_string(d.path().join("s.svg")).unwrap();
        assert!(svg.contains("gen:elasticity3d:3"));
        assert!(draw(&d.path().join("s.jpg"), &m)
            .unwrap_err()
            .to_string()
            .contains(".png or .svg"));
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
    }
}
