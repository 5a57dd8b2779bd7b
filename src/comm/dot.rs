//! Graphviz DOT export of one level's process graph (`--dot`): a vertex per
//! rank that communicates, an edge per message labelled with its bytes,
//! network messages drawn bold.

use std::collections::HashMap;
use std::path::Path;

use petgraph::dot::{Config, Dot};
use petgraph::graph::DiGraph;
use petgraph::visit::EdgeRef;

use super::Pattern;
use crate::machine::Machine;

/// The DOT text of `pat`'s process graph on `m`.
pub fn to_dot(pat: &Pattern, m: &Machine) -> String {
    let mut g: DiGraph<String, String> = DiGraph::new();
    let mut index = HashMap::new();
    let mut vertex = |g: &mut DiGraph<String, String>, r: u32| {
        *index
            .entry(r)
            .or_insert_with(|| g.add_node(format!("rank {r} (node {})", m.node_of(r as usize))))
    };
    for msg in &pat.messages {
        let (a, b) = (vertex(&mut g, msg.from), vertex(&mut g, msg.to));
        g.add_edge(a, b, format!("{} B", msg.bytes));
    }
    let places = m.places();
    let network: Vec<bool> = pat
        .messages
        .iter()
        .map(|msg| places.node_of(msg.from) != places.node_of(msg.to))
        .collect();
    format!(
        "{:?}",
        Dot::with_attr_getters(
            &g,
            &[Config::EdgeNoLabel, Config::NodeNoLabel],
            &|g, e| {
                let style = if network[e.id().index()] {
                    ", style=bold"
                } else {
                    ""
                };
                format!("label=\"{}\"{style}", g[e.id()])
            },
            &|g, (n, _)| format!("label=\"{}\"", g[n]),
        )
    )
}

/// Whether a DOT folder may hold a file of that name: `level{l}_*.dot`.
pub fn is_dot_file(name: &str) -> bool {
    let rest = name
        .strip_prefix("level")
        .and_then(|r| r.strip_suffix(".dot"));
    rest.and_then(|r| r.split_once('_'))
        .is_some_and(|(l, _)| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
}

/// Writes [`to_dot`] to `path`, atomically.
pub fn write(path: &Path, pat: &Pattern, m: &Machine) -> std::io::Result<()> {
    let text = to_dot(pat, m);
    crate::output::write_atomically(path, |tmp| std::fs::write(tmp, &text))
}
