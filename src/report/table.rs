//! The terminal tables of `amgcomm analyze` and `levels.csv`. Their cost
//! columns come from the model ([`Model::columns`] and the terms'
//! [`Detail`]s), so a new term appears without a change here.

use super::json::Report;
use super::{bytes, group, seconds};
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
    let mut s = String::new();
    for op in OPS {
        s += &format!(
            "{} ({how})\n{:>5} {:>11} {:>13} {:>6} {:>8} {:>10}{header} {:>10}\n",
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
                "{:>5} {:>11} {:>13} {:>6} {:>8} {:>10}{} {:>10}\n",
                l.level,
                group(l.rows),
                group(l.nnz),
                l.active_processes,
                o.summary.messages.max_recv,
                bytes(o.summary.bytes.inter_node),
                cells(&o.cost),
                seconds(o.cost.total)
            );
        }
        s += "\n";
    }
    s
}

/// `levels.csv`: one row per level and operation: MODEL.md's figures, a
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
    s += "total\n";
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
            s += &format!("{:e}\n", c.total);
        }
    }
    s
}
