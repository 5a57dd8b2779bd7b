//! `report.html`: one self-contained page per report folder (`analyze`,
//! `compare`, `scale`) to open anywhere or send to a colleague. No network
//! access and no external script: the charts are the folder's SVGs inlined
//! (their text stays text), the tables real tables (a click on a header
//! sorts them, by a few lines of inline script), the style inline, readable
//! on a phone (tables scroll sideways, charts shrink to the width) and
//! printable.

use std::fmt::Write as _;

use super::json::Report;
use super::{bytes, group, seconds};
use crate::analysis::Scaling;
use crate::comm::OPS;

/// `s` with HTML's special characters escaped.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A chart to inline: its file's stem, caption and SVG text.
pub struct Chart {
    /// `spmv`, `messages`, ... (the file's stem).
    pub name: String,
    /// What it shows, one line.
    pub caption: String,
    /// The SVG as written.
    pub svg: String,
}

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", system-ui, sans-serif; margin: 0 auto; padding: 0.8rem; max-width: 1100px; color: #1b1b1b; line-height: 1.45; }
h1 { font-size: 1.45rem; margin: 0.3rem 0 0.2rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 1.6rem 0 0.4rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1rem; margin: 1rem 0 0.3rem; }
dl.header { display: grid; grid-template-columns: max-content 1fr; gap: 0.15rem 0.9rem; margin: 0.5rem 0; }
dl.header dt { font-weight: bold; }
dl.header dd { margin: 0; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.3rem 0 0.8rem; }
th, td { padding: 0.2rem 0.5rem; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; cursor: pointer; user-select: none; }
th:first-child, td:first-child { text-align: left; }
td.text { text-align: left; white-space: normal; }
tr.total td { font-weight: bold; border-top: 2px solid #999; }
figure { margin: 0.6rem 0 1.2rem; }
figure svg { width: 100%; height: auto; max-width: 900px; display: block; }
figcaption { font-size: 0.85rem; color: #444; }
ul.notes li, ul.advice li { margin: 0.2rem 0; }
.warn { color: #8a4b00; }
footer { margin-top: 2rem; font-size: 0.8rem; color: #555; }
@media (max-width: 600px) { body { padding: 0.4rem; } table { font-size: 0.78rem; } h1 { font-size: 1.2rem; } }
@media print { th { cursor: auto; } .scroll { overflow: visible; } figure { break-inside: avoid; } a { color: inherit; } }
"#;

/// Sorting by a header's click: numbers by their `data-v`, else text.
const SCRIPT: &str = r#"
document.querySelectorAll("table.sortable").forEach(function (t) {
  t.querySelectorAll("th").forEach(function (th, k) {
    th.addEventListener("click", function () {
      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var up = th.getAttribute("data-dir") !== "up";
      t.querySelectorAll("th").forEach(function (h) { h.removeAttribute("data-dir"); });
      th.setAttribute("data-dir", up ? "up" : "down");
      rows.sort(function (a, b) {
        var x = a.cells[k], y = b.cells[k];
        var u = parseFloat(x.getAttribute("data-v")), v = parseFloat(y.getAttribute("data-v"));
        var c = (!isNaN(u) && !isNaN(v)) ? u - v : x.textContent.localeCompare(y.textContent);
        return up ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
"#;

/// A whole page.
pub(super) fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n<footer>Written by amgcomm {} (modeled communication of AMG levels). Self-contained: no file or script outside this page.</footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        esc(title),
        env!("CARGO_PKG_VERSION")
    )
}

/// A cell: its shown text, and its value for sorting and checks.
pub struct Cell {
    text: String,
    value: Option<f64>,
}

pub(super) fn text(s: impl Into<String>) -> Cell {
    Cell {
        text: s.into(),
        value: None,
    }
}

pub(super) fn secs(t: f64) -> Cell {
    Cell {
        text: seconds(t),
        value: Some(t),
    }
}

pub(super) fn count(n: u64) -> Cell {
    Cell {
        text: group(n as usize),
        value: Some(n as f64),
    }
}

fn num(x: f64, digits: usize) -> Cell {
    Cell {
        text: format!("{x:.digits$}"),
        value: Some(x),
    }
}

fn bytes_cell(b: u64) -> Cell {
    Cell {
        text: bytes(b),
        value: Some(b as f64),
    }
}

pub(super) fn opt(x: Option<Cell>) -> Cell {
    x.unwrap_or_else(|| text("-"))
}

/// A sortable table with `id`; the last row a total row when `total`.
pub(super) fn table(
    id: &str,
    headers: &[String],
    rows: &[Vec<Cell>],
    total: Option<Vec<Cell>>,
) -> String {
    let mut s = format!(
        "<div class=\"scroll\"><table class=\"sortable\" id=\"{}\">\n<thead><tr>",
        esc(id)
    );
    for h in headers {
        let _ = write!(s, "<th>{}</th>", esc(h));
    }
    s += "</tr></thead>\n<tbody>\n";
    let row = |s: &mut String, r: &[Cell]| {
        for c in r {
            match c.value {
                Some(v) => {
                    let _ = write!(s, "<td data-v=\"{v:e}\">{}</td>", esc(&c.text));
                }
                None => {
                    let _ = write!(s, "<td class=\"text\">{}</td>", esc(&c.text));
                }
            }
        }
    };
    for r in rows {
        s += "<tr>";
        row(&mut s, r);
        s += "</tr>\n";
    }
    s += "</tbody>\n";
    if let Some(t) = total {
        s += "<tfoot><tr class=\"total\">";
        row(&mut s, &t);
        s += "</tr></tfoot>\n";
    }
    s += "</table></div>\n";
    s
}

/// The charts, each a figure with its caption.
pub(super) fn figures<'a>(charts: impl IntoIterator<Item = &'a Chart>) -> String {
    let mut s = String::new();
    for c in charts {
        let _ = write!(
            s,
            "<figure id=\"chart-{}\" class=\"chart\">\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
            esc(&c.name),
            strip_prolog(&c.svg),
            esc(&c.caption)
        );
    }
    s
}

/// The SVG element alone (an XML declaration may not stand in HTML).
fn strip_prolog(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |k| &svg[k..])
}

pub(super) fn header(items: &[(&str, String)]) -> String {
    let mut s = String::from("<dl class=\"header\">\n");
    for (k, v) in items {
        let _ = writeln!(s, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
    }
    s + "</dl>\n"
}

/// `analyze`'s page: the run's header, the totals, per operation its
/// level table and chart, the messages chart, the cycle, the measured
/// overlay, the advice and where the machine's parameters come from.
pub fn analyze(r: &Report, charts: &[Chart]) -> String {
    let m = r.machine.machine;
    let name = super::base_name(&r.matrix.name);
    let mut body = format!("<h1>{}: communication per level</h1>\n", esc(name));
    body += &header(&[
        (
            "input",
            format!(
                "{} ({} rows, {} nonzeros)",
                r.matrix.name,
                group(r.matrix.rows),
                group(r.matrix.nnz)
            ),
        ),
        (
            "hierarchy",
            format!(
                "{}, {} levels, operator complexity {:.2}",
                r.hierarchy.source,
                r.levels.len(),
                r.hierarchy.summary.operator_complexity
            ),
        ),
        (
            "machine",
            format!(
                "{}: {} nodes x {} ranks per node = {} ranks, {}",
                m.name,
                m.nodes,
                m.ppn,
                r.machine.ranks,
                m.network().describe()
            ),
        ),
        (
            "layout",
            format!(
                "partition {}, coarse levels {}",
                r.partition.fine,
                crate::value_name(&r.partition.coarse)
            ),
        ),
        ("model", r.model.to_string()),
        (
            "strategy",
            match crate::comm::device::grouping(r.strategy, m) {
                Some(g) => format!("{} ({g})", r.strategy.name()),
                None => r.strategy.name(),
            },
        ),
    ]);
    // Totals over the levels, term by term.
    let columns: Vec<&str> = {
        let mut c: Vec<&str> = Vec::new();
        for (_, cost) in &r.totals.0 {
            for (k, _) in cost.by_column() {
                if !c.contains(&k) {
                    c.push(k);
                }
            }
        }
        c
    };
    // The total first, where a phone shows it without scrolling.
    let mut headers = vec!["operation".to_string(), "total".into()];
    headers.extend(columns.iter().map(|c| c.to_string()));
    let rows: Vec<Vec<Cell>> = (r.totals.0.iter())
        .map(|(op, cost)| {
            let mut row = vec![text(op.name()), secs(cost.total)];
            row.extend(columns.iter().map(|c| secs(cost.seconds(c))));
            row
        })
        .collect();
    body += "<h2 id=\"totals\">Totals over the levels</h2>\n";
    body += &table("totals", &headers, &rows, None);

    for op in OPS {
        let levels: Vec<_> = (r.levels.iter())
            .filter_map(|l| Some((l, l.op(op)?)))
            .collect();
        if levels.is_empty() {
            continue;
        }
        let measured = levels.iter().any(|(_, o)| o.measured.is_some());
        let mut headers: Vec<String> = [
            "level",
            "total",
            "rows",
            "nonzeros",
            "active ranks",
            "messages",
            "max recv",
            "bytes",
            "network bytes",
        ]
        .map(String::from)
        .to_vec();
        headers.extend(columns.iter().map(|c| c.to_string()));
        if measured {
            headers.push("measured".into());
            headers.push("model/meas".into());
        }
        let rows: Vec<Vec<Cell>> = (levels.iter())
            .map(|(l, o)| {
                let s = &o.summary;
                let mut row = vec![
                    count(l.level as u64),
                    secs(o.cost.total),
                    count(l.rows as u64),
                    count(l.nnz as u64),
                    count(l.active_processes as u64),
                    count(s.messages.total),
                    count(s.messages.max_recv),
                    bytes_cell(s.bytes.total),
                    bytes_cell(s.bytes.inter_node),
                ];
                row.extend(columns.iter().map(|c| secs(o.cost.seconds(c))));
                if measured {
                    row.push(opt(o.measured.map(|m| secs(m.seconds))));
                    row.push(opt(o.modeled_over_measured.map(|x| num(x, 2))));
                }
                row
            })
            .collect();
        let total = r.totals.op(op).map(|c| {
            let mut t = vec![text("total"), secs(c.total)];
            t.extend((0..7).map(|_| text("")));
            t.extend(columns.iter().map(|k| secs(c.seconds(k))));
            if measured {
                t.push(text(""));
                t.push(text(""));
            }
            t
        });
        let _ = writeln!(body, "<h2 id=\"op-{0}\">{0}</h2>", op.name());
        body += &table(&format!("levels-{}", op.name()), &headers, &rows, total);
        body += &figures(charts.iter().filter(|c| c.name == op.name()));
    }
    let others: Vec<&Chart> = charts
        .iter()
        .filter(|c| !OPS.iter().any(|o| o.name() == c.name))
        .collect();
    for c in others {
        let _ = writeln!(
            body,
            "<h2 id=\"section-{0}\">{1}</h2>",
            esc(&c.name),
            esc(section_title(&c.name))
        );
        if c.name == "cycle" {
            if let Some(cy) = r.cycle {
                body += &cycle_table(cy);
            }
        }
        if c.name == "measured_levels" {
            body += &phases_table(r);
        }
        body += &figures([c]);
    }
    if let Some(ms) = &r.measured {
        body += "<h2 id=\"measured\">Measured</h2>\n";
        let _ = writeln!(
            body,
            "<p>{} ({}{})</p>",
            esc(&ms.file),
            esc(ms.format),
            ms.ranks.map(|n| format!(", {n} ranks")).unwrap_or_default()
        );
        body += "<ul class=\"notes\">\n";
        for n in &ms.notes {
            let _ = writeln!(body, "<li>{}</li>", esc(n));
        }
        for w in &ms.warnings {
            let _ = writeln!(body, "<li class=\"warn\">{}</li>", esc(w));
        }
        body += "</ul>\n";
    }
    if r.advice.is_some() {
        body += "<h2 id=\"advice\">What would cut it</h2>\n<ul class=\"advice\">\n";
        for line in super::table::advice(r).lines().skip(1) {
            let _ = writeln!(body, "<li>{}</li>", esc(line.trim()));
        }
        body += "</ul>\n";
    }
    if !r.warnings.is_empty() {
        body += "<h2 id=\"warnings\">Warnings</h2>\n<ul class=\"notes\">\n";
        for w in &r.warnings {
            let _ = writeln!(body, "<li class=\"warn\">{}</li>", esc(&w.to_string()));
        }
        body += "</ul>\n";
    }
    body += &provenance(m);
    page(&format!("amgcomm: {name}"), &body)
}

fn section_title(name: &str) -> &'static str {
    match name {
        "messages" => "Messages per level",
        "cycle" => "The solve beside the setup",
        "measured_levels" => "Measured beside modeled, per level",
        _ => "Chart",
    }
}

/// Where the machine's parameters come from.
fn provenance(m: &crate::machine::Machine) -> String {
    let sources = m.provenance_or_default();
    let mut rows: Vec<Vec<Cell>> = (sources.iter())
        .map(|s| vec![text(s.parameter.clone()), text(s.source.clone())])
        .collect();
    // The work around the messages always says where it comes from.
    if !sources.iter().any(|s| s.parameter.starts_with("row_work")) {
        rows.push(vec![
            text("row_work".to_string()),
            text(m.row_work_source()),
        ]);
    }
    format!(
        "<h2 id=\"provenance\">Where {}'s parameters come from</h2>\n{}",
        esc(&m.name),
        table(
            "provenance",
            &["parameter".into(), "source".into()],
            &rows,
            None
        )
    )
}

fn cycle_table(c: &crate::analysis::cycle::CycleAnalysis) -> String {
    let solve = c.cycle.iterations.map(|n| format!("solve x{n}"));
    let mut headers: Vec<String> = [
        "level",
        "visits",
        "smoothing",
        "residual",
        "restrict",
        "interp",
        "cycle",
    ]
    .map(String::from)
    .to_vec();
    headers.extend(solve.clone());
    headers.push("setup".into());
    let row = |label: Cell, visits: Option<f64>, s: &crate::analysis::cycle::Seconds| {
        let mut r = vec![
            label,
            opt(visits.map(|v| num(v, 0))),
            secs(s.smoothing),
            secs(s.residual),
            secs(s.restrict),
            secs(s.interp),
            secs(s.cycle),
        ];
        if solve.is_some() {
            r.push(opt(s.solve.map(secs)));
        }
        r.push(secs(s.setup));
        r
    };
    let rows: Vec<Vec<Cell>> = (c.levels.iter())
        .map(|l| row(count(l.level as u64), Some(l.visits), &l.modeled))
        .collect();
    let mut s = format!(
        "<p>{} cycle, {} smoother</p>\n",
        esc(&c.name),
        esc(&crate::value_name(&c.cycle.smoother))
    );
    s += &table(
        "cycle",
        &headers,
        &rows,
        Some(row(text("total"), None, &c.total)),
    );
    s
}

fn phases_table(r: &Report) -> String {
    let rows: Vec<Vec<Cell>> = (super::phases::of(r).iter())
        .map(|p| {
            vec![
                count(p.level as u64),
                text(p.phase.name()),
                text(p.event.clone()),
                opt(p.calls.map(count)),
                secs(p.measured_seconds),
                opt(p.modeled_seconds.map(secs)),
                opt(p.modeled_over_measured.map(|x| num(x, 2))),
                opt(p.measured_messages_per_call.map(|x| num(x, 1))),
                opt(p.modeled_messages_per_call.map(|x| num(x, 1))),
                opt(p.exchanges_per_call.map(|x| num(x, 2))),
            ]
        })
        .collect();
    let headers = [
        "level",
        "phase",
        "event",
        "calls",
        "measured",
        "modeled",
        "model/meas",
        "msgs/call",
        "model msgs",
        "exch/call",
    ]
    .map(String::from);
    table("phases", &headers, &rows, None)
}

/// `scale`'s page: per node count, level, operation and strategy the
/// modeled (and measured) seconds, and the charts.
pub fn scale(s: &Scaling, charts: &[Chart]) -> String {
    let input = s.points.first().map_or(String::new(), |p| p.input.clone());
    let mut body = format!(
        "<h1>{}: {} scaling</h1>\n",
        esc(&input),
        if s.weak { "weak" } else { "strong" }
    );
    body += &header(&[
        (
            "nodes",
            s.points
                .iter()
                .map(|p| p.nodes.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        (
            "strategies",
            s.strategies
                .iter()
                .map(|x| x.name())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        (
            "operations",
            s.ops
                .iter()
                .map(|o| o.name())
                .collect::<Vec<_>>()
                .join(", "),
        ),
    ]);
    let mut rows = Vec::new();
    for p in &s.points {
        for (strategy, levels) in &p.strategies {
            for l in levels {
                for o in &l.ops {
                    rows.push(vec![
                        count(p.nodes as u64),
                        count(p.ranks as u64),
                        count(l.level as u64),
                        text(o.op.name()),
                        text(strategy.name()),
                        secs(o.modeled),
                        opt(o.measured.map(secs)),
                    ]);
                }
            }
        }
    }
    let headers = [
        "nodes",
        "ranks",
        "level",
        "operation",
        "strategy",
        "modeled",
        "measured",
    ]
    .map(String::from);
    body += &figures(charts);
    body += "<h2 id=\"points\">Every point</h2>\n";
    body += &table("points", &headers, &rows, None);
    if !s.warnings.is_empty() {
        body += "<ul class=\"notes\">\n";
        for w in &s.warnings {
            let _ = writeln!(body, "<li class=\"warn\">{}</li>", esc(w));
        }
        body += "</ul>\n";
    }
    page(&format!("amgcomm scale: {input}"), &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_svg_prologs_dropped() {
        assert_eq!(esc("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&#39;");
        assert_eq!(strip_prolog("<?xml version=\"1.0\"?>\n<svg/>"), "<svg/>");
        let t = table(
            "t",
            &["a".into(), "b".into()],
            &[vec![text("x<y"), secs(1.5e-5)]],
            None,
        );
        assert!(
            t.contains("<td class=\"text\">x&lt;y</td><td data-v=\"1.5e-5\">15.0 us</td>"),
            "{t}"
        );
    }
}
