//! The terminal tables of `amgcomm analyze` and `levels.csv`. Their cost
//! columns come from the model ([`Model::columns`] and the terms'
//! [`Detail`]s), so a new term appears without a change here.

use super::json::Report;
use super::{bytes, group, seconds};
use crate::analysis::OpAnalysis;
use crate::comm::OPS;
use crate::model::terms::{Detail, Figure, Term};
use crate::model::{Cost, Model};

/// The details of the model's terms that `show` picks (the table's or the
/// CSV's), with their term.
fn details(
    model: &Model,
    show: impl Fn(&Detail) -> Option<&'static str>,
) -> Vec<(&'static Term, &'static Detail, &'static str)> {
    model
        .terms()
        .iter()
        .flat_map(|&t| t.details.iter().map(move |d| (t, d)))
        .filter_map(|(t, d)| show(d).map(|name| (t, d, name)))
        .collect()
}

fn figure(f: Option<Figure>, seconds_as: impl Fn(f64) -> String) -> String {
    match f {
        Some(Figure::Seconds(s)) => seconds_as(s),
        Some(Figure::Peak(b)) => b.to_string(),
        Some(Figure::Choice(c)) => c.to_string(),
        None => String::new(),
    }
}

/// The "What would cut it" section: a line per piece of advice, e.g.
/// `L3 spmv: queue search 61% of 6.9 ms; --strategy node-aware-3
/// predicts 2.1 ms (3.3x)`.
pub fn advice(r: &Report) -> String {
    advice_lines(r)
}

/// The terminal's last line when `--advice` was not asked for: per
/// operation the level that costs most and its dominant term, and how to
/// see what would cut it (`most time: spmv L3 (queue search 72% of 12.35
/// ms), ...`).
pub fn pointer(r: &Report) -> String {
    let columns = r.model.columns();
    let parts: Vec<String> = (OPS.iter())
        .filter_map(|&op| {
            let (level, o) = (r.levels.iter())
                .filter_map(|l| Some((l.level, l.op(op)?)))
                .max_by(|a, b| a.1.cost.total.total_cmp(&b.1.cost.total))?;
            let total = o.cost.total;
            let (term, secs) = o.cost.dominant(&columns);
            (total > 0.0).then(|| {
                let share = 100.0 * secs / total;
                format!(
                    "{} L{level} ({} {share:.0}% of {})",
                    op.name(),
                    term.legend,
                    seconds(total)
                )
            })
        })
        .collect();
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "most time: {}; add --advice to see what would cut it\n",
        parts.join(", ")
    )
}

fn advice_lines(r: &Report) -> String {
    let mut s = String::from("What would cut it\n");
    let advice = r.advice.as_deref().unwrap_or_default();
    if advice.is_empty() {
        s += "  no alternative tried (strategy, partition, placement, coarse partition) lowers a level that carries 10% of the time\n";
    }
    for a in advice {
        s += &format!(
            "  L{} {}: {} {:.0}% of {}; {} predicts {} ({:.1}x)",
            a.level,
            a.op.name(),
            a.dominant,
            100.0 * a.share,
            seconds(a.total),
            a.try_args.join(" "),
            seconds(a.predicted_total),
            a.factor
        );
        if let Some([now, then]) = a.max_recv {
            s += &format!("; most messages a rank receives {now} -> {then}");
        }
        if let Some([now, then]) = a.rows {
            let rows = if now == then {
                format!("keeps its {} rows", crate::group(now))
            } else {
                format!(
                    "has {} rows, {} with it",
                    crate::group(now),
                    crate::group(then)
                )
            };
            s += &format!(
                "; another hierarchy (the setup depends on the partition; L{} {rows})",
                a.level
            );
        }
        if a.close {
            s += &format!(
                "; a close call: within {:.0}%{}, the model does not name a winner: measure both with amgcomm replay on the machine",
                100.0 * (a.within - 1.0),
                if a.within > crate::analysis::advice::CLOSE {
                    " (its demonstrated error on the runs it was fitted to)"
                } else {
                    ""
                }
            );
        }
        if let Some(c) = &a.cycle {
            s += &cycle_effect(c);
        }
        s += "\n";
    }
    s
}

/// What an alternative does to the setup and the solve (`--cycle`):
/// `; setup 3.82 ms -> 2.10 ms, solve (20 cycles) 60.60 ms -> 72.00 ms:
/// it cuts the setup but slows the solve, 64.42 ms -> 74.10 ms in all`.
fn cycle_effect(c: &crate::analysis::advice::CycleEffect) -> String {
    let n = c.iterations;
    let [now, then] = c.both();
    let mut s = format!(
        "; setup {} -> {}, solve ({n} cycle{}) {} -> {}",
        seconds(c.setup[0]),
        seconds(c.setup[1]),
        if n == 1 { "" } else { "s" },
        seconds(c.solve[0]),
        seconds(c.solve[1]),
    );
    let trade = if c.slows_solve() {
        Some("it cuts the setup but slows the solve")
    } else if c.slows_setup() {
        Some("it cuts the solve but slows the setup")
    } else {
        None
    };
    if let Some(t) = trade {
        s += &format!(
            ": {t}, {} -> {} in all{}",
            seconds(now),
            seconds(then),
            if then > now {
                ", a loss at this many cycles"
            } else {
                ""
            }
        );
    }
    s
}

/// Whether any operation of `r` carries a measured time.
fn has_measured(r: &Report) -> bool {
    (r.levels.iter()).any(|l| l.ops.iter().any(|o| o.measured.is_some()))
}

/// One table per operation: per level, size, active ranks, the most
/// messages a rank receives, inter-node bytes, each cost column and the
/// total.
pub fn table(r: &Report) -> String {
    let model = r.model;
    let how = if r.strategy == Default::default() {
        model.name()
    } else {
        format!("{}, {}", model.name(), r.strategy.name())
    };
    let columns = model.columns();
    let details = details(model, |d| d.header);
    let cells = |c: &Cost| -> String {
        let mut s: String = (columns.iter())
            .map(|t| format!(" {:>10}", seconds(c.seconds(t.column))))
            .collect();
        for (t, d, _) in &details {
            s += &format!(" {:>10}", figure(c.detail(t, d.json), seconds));
        }
        s
    };
    let mut header: String = columns
        .iter()
        .map(|t| format!(" {:>10}", t.header))
        .collect();
    for (_, _, name) in &details {
        header += &format!(" {name:>10}");
    }
    let measured = has_measured(r);
    let beside = |o: &OpAnalysis| -> String {
        if !measured {
            return String::new();
        }
        match (o.measured, o.modeled_over_measured) {
            (Some(m), Some(q)) => format!(" {:>10} {:>10.2}", seconds(m.seconds), q),
            (Some(m), None) => format!(" {:>10} {:>10}", seconds(m.seconds), "-"),
            _ => format!(" {:>10} {:>10}", "-", "-"),
        }
    };
    let measured_header = if measured {
        format!(" {:>10} {:>10}", "measured", "model/meas")
    } else {
        String::new()
    };
    let mut s = String::new();
    // The operations charged (spgemm and ptap on levels with a P).
    for op in OPS
        .into_iter()
        .filter(|&op| r.levels.iter().any(|l| l.op(op).is_some()))
    {
        s += &format!(
            "{} ({how})\n{:>5} {:>11} {:>13} {:>6} {:>8} {:>10}{header} {:>10}{measured_header}\n",
            op.name(),
            "level",
            "rows",
            "nnz",
            "active",
            "max recv",
            "net bytes",
            "total"
        );
        for l in r.levels {
            let Some(o) = l.op(op) else { continue };
            s += &format!(
                "{:>5} {:>11} {:>13} {:>6} {:>8} {:>10}{} {:>10}{}\n",
                l.level,
                group(l.rows),
                group(l.nnz),
                l.active_processes,
                o.summary.messages.max_recv,
                bytes(o.summary.bytes.inter_node),
                cells(&o.cost),
                seconds(o.cost.total),
                beside(o)
            );
        }
        if let Some(t) = r.totals.op(op) {
            // Sums of seconds only: a peak or a choice does not add.
            let mut row: String = (columns.iter())
                .map(|c| format!(" {:>10}", seconds(t.seconds(c.column))))
                .collect();
            row += &" ".repeat(11 * details.len());
            s += &format!(
                "{:>5} {:>11} {:>13} {:>6} {:>8} {:>10}{row} {:>10}\n",
                "total",
                "",
                "",
                "",
                "",
                "",
                seconds(t.total)
            );
        }
        s += "\n";
    }
    s
}

/// `levels.csv`: one row per level and operation: the report's figures, a
/// column per cost column of the model, the details the terms put in the
/// CSV, then `total`.
pub fn csv(r: &Report) -> String {
    let columns = r.model.columns();
    let details = details(r.model, |d| d.csv);
    let mut s = String::from(
        "level,op,rows,nnz,active_processes,messages_total,messages_max_sent,messages_max_recv,\
         messages_inter_node,bytes_total,bytes_max_sent,bytes_max_recv,bytes_inter_node,\
         byte_hops,avg_hops,",
    );
    for t in &columns {
        s += &format!("{},", t.column);
    }
    for (_, _, name) in &details {
        s += &format!("{name},");
    }
    s += "total";
    let measured = has_measured(r);
    if measured {
        s += ",measured_seconds,modeled_over_measured";
    }
    s += "\n";
    let beside = |o: Option<&OpAnalysis>| -> String {
        let Some(o) = o.filter(|_| measured) else {
            return if measured { ",,".into() } else { String::new() };
        };
        let m = o
            .measured
            .map(|m| format!("{:e}", m.seconds))
            .unwrap_or_default();
        let q = o
            .modeled_over_measured
            .map(|q| format!("{q:e}"))
            .unwrap_or_default();
        format!(",{m},{q}")
    };
    for l in r.levels {
        for o in &l.ops {
            let (m, b, c) = (&o.summary.messages, &o.summary.bytes, &o.cost);
            s += &format!(
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},",
                l.level,
                o.op.name(),
                l.rows,
                l.nnz,
                l.active_processes,
                m.total,
                m.max_sent,
                m.max_recv,
                m.inter_node,
                b.total,
                b.max_sent,
                b.max_recv,
                b.inter_node,
                o.summary.byte_hops,
                o.summary.avg_hops,
            );
            for t in &columns {
                s += &format!("{:e},", c.seconds(t.column));
            }
            for (t, d, _) in &details {
                s += &format!("{},", figure(c.detail(t, d.json), |x| format!("{x:e}")));
            }
            s += &format!("{:e}{}\n", c.total, beside(Some(o)));
        }
    }
    // A total row per operation: level "total", figures empty, seconds
    // summed over the levels.
    for (op, t) in &r.totals.0 {
        s += &format!("total,{},{}", op.name(), ",".repeat(13));
        for c in &columns {
            s += &format!("{:e},", t.seconds(c.column));
        }
        s += &",".repeat(details.len());
        s += &format!("{:e}{}\n", t.total, beside(None));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{analyze, Options};
    use crate::comm::node_aware::Strategy;
    use crate::machine::Machine;
    use crate::matrix::gen::{Kind, Problem};
    use crate::partition::methods::Method;
    use crate::partition::{CoarseRule, Fine, Layout, Partition};
    use crate::report::json::{Context, MatrixJson};

    #[test]
    fn columns_follow_the_model_in_the_table_and_every_csv_row() {
        let a = Problem::new(Kind::Poisson3d, 10).generate().unwrap().csr;
        let h =
            crate::amg::build(&a, &crate::amg::Preset::Hypre.options(), &mut |_, _| {}).unwrap();
        let m = Machine {
            nodes: 8,
            ppn: 2,
            ..Machine::bluewaters()
        };
        let layout = Layout::new(
            &h,
            Partition::contiguous(a.rows(), m.ranks()),
            CoarseRule::Inherit,
        );
        let model = Model::parse("pack+routed+copytransfer+queue-lower+logpc").unwrap();
        for strategy in [Strategy::Standard, Strategy::NodeAware2] {
            let o = Options {
                model: model.clone(),
                strategy,
                ..Options::default()
            };
            let analysis = analyze(&h, &layout, &m, &o).unwrap();
            let fine = Fine::Method(Method::Contiguous);
            let r = Report::new(
                &analysis,
                Context {
                    model: &model,
                    strategy,
                    matrix: MatrixJson {
                        name: "p".into(),
                        rows: a.rows(),
                        cols: a.cols(),
                        nnz: a.nnz(),
                    },
                    machine: &m,
                    fine: &fine,
                    coarse: CoarseRule::Inherit,
                    hierarchy: h.sizes(),
                    source: String::new(),
                },
            );
            let csv = csv(&r);
            let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
            assert_eq!(
                header[15..],
                [
                    "max_rate",
                    "queue_search",
                    "contention",
                    "logpc",
                    "routed",
                    "pack",
                    "copy_packing",
                    "copy_chained",
                    "copy_cheaper",
                    "total"
                ]
            );
            let ops: usize = r.levels.iter().map(|l| l.ops.len()).sum();
            assert_eq!(csv.lines().count(), 1 + ops + 3);
            for line in csv.lines().skip(1) {
                let cells: Vec<&str> = line.split(',').collect();
                assert_eq!(cells.len(), header.len(), "{line}");
                if cells[0] == "total" {
                    // Seconds add over levels; a choice does not.
                    let x = |k: usize| cells[k].parse::<f64>().unwrap();
                    let sum: f64 = (15..21).map(x).sum();
                    assert!((sum - x(24)).abs() <= 1e-12 * x(24), "{line}");
                    assert_eq!(cells[23], "", "{line}");
                    continue;
                }
                assert!(
                    ["packing", "chained", "mixed"].contains(&cells[23]),
                    "{line}"
                );
                // The cost columns add up to the total (the rate term is the
                // cheaper of the two copy-transfer strategies).
                let x = |k: usize| cells[k].parse::<f64>().unwrap();
                let sum: f64 = (15..21).map(x).sum();
                assert!((sum - x(24)).abs() <= 1e-12 * x(24), "{line}");
                assert_eq!(x(15), x(21).min(x(22)), "{line}");
            }
            let t = table(&r);
            let head = t.lines().nth(1).unwrap();
            let names: Vec<&str> = head.split_whitespace().collect();
            assert_eq!(
                names[names.len() - 10..],
                [
                    "copy-transfer",
                    "queue",
                    "contention",
                    "logpc",
                    "routed",
                    "pack",
                    "packing",
                    "chained",
                    "cheaper",
                    "total"
                ]
            );
        }
    }
}
