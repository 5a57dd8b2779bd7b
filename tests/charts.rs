//! The charts' geometry tells the truth: the stacked shares drawn in
//! `<op>.svg` are the shares of the report's numbers (read back from the
//! SVG, within 1% of the bar), and nothing is stacked on a log axis.

use std::collections::BTreeMap;
use std::process::Command;

/// `(x, y, width, height, fill)` of every `<rect>` of an SVG.
fn rects(svg: &str) -> Vec<(i64, i64, i64, i64, String)> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!(" {name}=\"");
        let start = tag.find(&key).unwrap() + key.len();
        tag[start..].split('"').next().unwrap().to_string()
    };
    svg.split("<rect")
        .skip(1)
        .map(|t| {
            let tag = &t[..t.find('>').unwrap()];
            let n = |k: &str| attr(tag, k).parse::<i64>().unwrap();
            (n("x"), n("y"), n("width"), n("height"), attr(tag, "fill"))
        })
        .collect()
}

#[test]
fn drawn_shares_match_the_report() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("r");
    let o = Command::new(env!("CARGO_BIN_EXE_amgcomm"))
        .args([
            "analyze",
            "tests/data/reference/beam_tet_2k.mtx.gz",
            "--nodes",
            "16",
            "--preset",
            "pyamg",
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).unwrap()).unwrap();
    let palette = ["#1F77B4", "#FF7F0E", "#2CA02C"];
    let terms = ["max_rate", "queue_search", "contention"];
    for op in ["spmv", "spgemm", "ptap"] {
        let svg = std::fs::read_to_string(out.join(format!("{op}.svg"))).unwrap();
        // Bars (legend boxes are 14 px wide), grouped by level's x.
        let mut bars: BTreeMap<i64, Vec<(i64, i64, usize)>> = BTreeMap::new();
        for (x, y, w, h, fill) in rects(&svg) {
            if let Some(t) = palette.iter().position(|c| *c == fill).filter(|_| w > 20) {
                bars.entry(x).or_default().push((y, h, t));
            }
        }
        let levels: Vec<&serde_json::Value> = (r["levels"].as_array().unwrap().iter())
            .filter(|l| !l["ops"][op].is_null())
            .collect();
        assert_eq!(bars.len(), levels.len(), "{op}");
        let full = bars
            .values()
            .map(|b| b.iter().map(|s| s.1).sum::<i64>())
            .max()
            .unwrap() as f64;
        for (bar, level) in bars.values().zip(&levels) {
            let cost = &level["ops"][op]["cost"];
            let total = cost["total"].as_f64().unwrap();
            // Stacked to 100%: every bar fills the axis.
            let height: i64 = bar.iter().map(|s| s.1).sum();
            assert!(
                (height as f64 - full).abs() <= 2.0,
                "{op}: {height} of {full}"
            );
            // Bottom-up in term order, each segment its share.
            let mut below: Option<i64> = None;
            for &(y, h, t) in bar {
                let want = cost[terms[t]].as_f64().unwrap() / total;
                let drawn = h as f64 / full;
                assert!(
                    (drawn - want).abs() <= 0.01,
                    "{op} {}: {drawn} vs {want}",
                    terms[t]
                );
                // Each segment sits on the one before (SVG's y grows down).
                assert!(
                    below.is_none_or(|b| (y + h - b).abs() <= 1),
                    "{op}: a gap or overlap"
                );
                below = Some(y);
            }
        }
        // The totals panel is a log axis of dots, not bars: no term-coloured
        // rectangle lies above the shares panel's top.
        let top = bars.values().flatten().map(|s| s.0).min().unwrap();
        assert!(
            top > 720 * 50 / 100,
            "{op}: a bar at y {top} is in the totals panel"
        );
    }
}
