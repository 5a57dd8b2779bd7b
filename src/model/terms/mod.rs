//! The cost terms, one file each, and the one registry that lists them.
//!
//! A term is plain data ([`Term`]): its `--model` name, a line of help,
//! the slot it fills (at most one rate term and one queue term per model),
//! its column in the report (the JSON `cost` key and CSV column of its
//! seconds), its labels, the extra figures it reports ([`Detail`]), and the
//! function that charges one exchange ([`Term::charge`]). Everything else
//! (parsing `--model`, its help, table and CSV columns, the JSON `cost`
//! object, chart legends) derives from [`REGISTRY`]. Adding a term is one
//! file here and one line in [`REGISTRY`] (see `CONTRIBUTING.md`).
//!
//! May use `matrix` to `comm` and the rest of `model`; a term's file uses
//! only this one (`tests/layering.rs`).

mod contention;
mod copytransfer;
mod devicework;
mod loggp;
mod logpc;
mod maxrate;
mod memcpy;
mod nodeaware;
mod pack;
mod postal;
mod queue;
mod routed;
mod rowwork;

pub use copytransfer::{copy_transfer, network_rate, CopyTransfer};
pub use loggp::loggp_params;
pub use memcpy::TERM as MEMCPY;
pub use nodeaware::message_time;
pub use pack::pack_at;
pub use routed::{link_loads, LinkLoads};
pub use rowwork::{moves_rows, COPY as ROWCOPY, PACK as ROWPACK, SERIAL as RECVSERIAL};

use super::Exchange;

/// The work around the messages of an exchange of matrix rows that
/// [`crate::model::Model::for_run`] implies for `aa` on every machine.
/// `recvserial` is implied only where the machine's `per_received` is
/// not 0 (a `calibrate`d file): Blue Waters' fit finds no cost of a
/// serial receive beyond the network terms', and the presets borrow it.
pub static ROW_WORK: [&Term; 2] = [&rowwork::COPY, &rowwork::PACK];

/// The work around the messages of device data that
/// [`crate::model::Model::for_run`] implies for device strategies.
pub static DEVICE_WORK: [&Term; 3] = [&devicework::KERNEL, &devicework::AWARE, &devicework::ROUND];

/// Every term, in report order: the rate terms, the queue terms, then the
/// others. A model's cost lists its terms in this order and sums them in
/// this order.
pub static REGISTRY: &[&Term] = &[
    &postal::TERM,
    &maxrate::TERM,
    &nodeaware::TERM,
    &loggp::TERM,
    &copytransfer::TERM,
    &queue::UPPER,
    &queue::MEASURED,
    &queue::LOWER,
    &contention::TERM,
    &logpc::TERM,
    &routed::TERM,
    &pack::TERM,
    &rowwork::COPY,
    &rowwork::PACK,
    &rowwork::SERIAL,
    &memcpy::TERM,
    &devicework::KERNEL,
    &devicework::AWARE,
    &devicework::ROUND,
];

/// One cost term.
#[derive(Debug)]
pub struct Term {
    /// Its name in `--model` (`nodeaware`, `queue-measured`, ...).
    pub name: &'static str,
    /// Other names `--model` accepts.
    pub aliases: &'static [&'static str],
    /// One line of `--model` help: what it charges, after which paper.
    pub about: &'static str,
    /// Which slot of a model it fills.
    pub slot: Slot,
    /// Its seconds' key in the JSON `cost` object and its CSV column.
    /// Terms of one slot share a column (`max_rate`, `queue_search`).
    pub column: &'static str,
    /// Its column header in the terminal table.
    pub header: &'static str,
    /// Its name in chart legends.
    pub legend: &'static str,
    /// The figures it reports beside its seconds, in the order of
    /// [`Charge::details`].
    pub details: &'static [Detail],
    /// Its seconds (and details) for one exchange.
    pub charge: fn(&Exchange) -> Charge,
}

/// Terms are registry entries, known by their (unique) names.
impl PartialEq for Term {
    fn eq(&self, other: &Term) -> bool {
        self.name == other.name
    }
}

/// The slot a term fills: a model has at most one rate term and one
/// queue term; other terms add up freely.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Sending time, maximised over sending ranks (EuroMPI'18 eqs. 1-2,
    /// LogGP, copy-transfer).
    Rate,
    /// Queue search at the receiver (eq. 3 and its variants).
    Queue,
    /// Any other term (contention, pack, ...).
    Extra,
}

impl Slot {
    /// `rate` or `queue` (for messages about a model with two of them).
    pub fn name(self) -> &'static str {
        match self {
            Slot::Rate => "rate",
            Slot::Queue => "queue",
            Slot::Extra => "extra",
        }
    }
}

/// A figure a term reports beside its seconds.
#[derive(Debug)]
pub struct Detail {
    /// Its key in the JSON `cost` object; `group.key` nests it in the
    /// object `group`.
    pub json: &'static str,
    /// Its CSV column, if the CSV shows it.
    pub csv: Option<&'static str>,
    /// Its table header, if the table shows it.
    pub header: Option<&'static str>,
}

/// The value of a [`Detail`]; the variant says how the steps of a
/// node-aware strategy combine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Figure {
    /// Seconds: the steps add up.
    Seconds(f64),
    /// A peak in bytes: the largest step's.
    Peak(u64),
    /// A choice: the steps' common one, or `mixed`.
    Choice(&'static str),
}

impl Figure {
    /// This figure and the next step's.
    pub fn then(self, next: Figure) -> Figure {
        match (self, next) {
            (Figure::Seconds(a), Figure::Seconds(b)) => Figure::Seconds(a + b),
            (Figure::Peak(a), Figure::Peak(b)) => Figure::Peak(a.max(b)),
            (Figure::Choice(a), Figure::Choice(b)) if a == b => Figure::Choice(a),
            _ => Figure::Choice("mixed"),
        }
    }
}

/// What a term charges one exchange.
#[derive(Clone, Debug, PartialEq)]
pub struct Charge {
    /// Modeled seconds.
    pub seconds: f64,
    /// One figure per entry of [`Term::details`].
    pub details: Vec<Figure>,
}

impl Charge {
    /// Seconds with no details.
    pub fn seconds(seconds: f64) -> Charge {
        Charge {
            seconds,
            details: Vec::new(),
        }
    }
}

/// The term named `name` (or one of its aliases).
pub fn find(name: &str) -> Option<&'static Term> {
    REGISTRY
        .iter()
        .copied()
        .find(|t| t.name == name || t.aliases.contains(&name))
}

/// Position of `term` in [`REGISTRY`].
pub fn index(term: &Term) -> usize {
    REGISTRY
        .iter()
        .position(|&t| t == term)
        .expect("every term is registered")
}

/// The names of the terms of `slot`, joined by ", ".
pub fn names(slot: Option<Slot>) -> String {
    REGISTRY
        .iter()
        .filter(|t| slot.is_none_or(|s| t.slot == s))
        .map(|t| t.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--model` help: the syntax, then one line per term.
pub fn help() -> String {
    let width = REGISTRY.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let mut s =
        String::from("Cost model: terms joined by '+', at most one rate term and one queue term\n");
    for t in REGISTRY {
        let slot = match t.slot {
            Slot::Extra => String::new(),
            slot => format!(" ({} term)", slot.name()),
        };
        s += &format!("\n  {:<width$}  {}{slot}", t.name, t.about);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_columns_are_unique_where_they_must_be() {
        for (i, a) in REGISTRY.iter().enumerate() {
            assert_eq!(index(a), i);
            assert_eq!(find(a.name).map(index), Some(i));
            for b in &REGISTRY[i + 1..] {
                assert_ne!(a.name, b.name);
                // Terms of one slot share their column; others do not.
                let shared = a.slot == b.slot && a.slot != Slot::Extra;
                assert_eq!(a.column == b.column, shared, "{} {}", a.name, b.name);
            }
        }
        assert_eq!(find("queue-upper").map(|t| t.name), Some("queue"));
        assert!(find("logp").is_none());
        assert!(help().contains("copytransfer"));
    }

    #[test]
    fn figures_of_steps_combine() {
        assert_eq!(
            Figure::Seconds(1.0).then(Figure::Seconds(2.0)),
            Figure::Seconds(3.0)
        );
        assert_eq!(Figure::Peak(5).then(Figure::Peak(3)), Figure::Peak(5));
        assert_eq!(
            Figure::Choice("packing").then(Figure::Choice("packing")),
            Figure::Choice("packing")
        );
        assert_eq!(
            Figure::Choice("packing").then(Figure::Choice("chained")),
            Figure::Choice("mixed")
        );
    }
}
