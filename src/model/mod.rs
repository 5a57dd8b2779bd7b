//! Stage 6: what a level's communication costs (`docs/model.md`,
//! "Definitions"; Bienz, Gropp and Olson, EuroMPI'18).
//!
//! A [`Model`] is a set of cost terms from [`terms::REGISTRY`], written
//! `nodeaware+queue+contention` (the default):
//! - one rate term, maximised over sending ranks: `postal` (eq. 1),
//!   `maxrate` (eq. 2 with network parameters for every message),
//!   `nodeaware` (eq. 2 by locality), or the classic `loggp` and
//!   `copytransfer`;
//! - one queue term (eq. 3): `queue`, `queue-measured`, `queue-lower`;
//! - any of `contention` (eqs. 5, 7), `logpc`, `routed`, `pack`.
//!
//! [`cost`] charges one exchange ([`Exchange`]: a pattern, its summary and
//! the machine) and returns a [`Cost`]: the list of (term, seconds) and
//! their sum. [`classic`] holds the classic models' formulas (checked
//! against their papers by [`crate::measure::reproduce`]), [`pack_bench`]
//! measures log3P's pack table.
//!
//! May use `matrix`, `amg`, `machine`, `partition`, `comm`, and the ground
//! floor (`output`, `memory`, `json_in`); its files never import each other
//! round a circle (`tests/layering.rs`).

pub mod classic;
pub mod fit_table;
pub mod pack_bench;
mod senders;
pub mod terms;

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::comm::{Pattern, Summary};
use crate::machine::{Machine, Places};
use terms::{Charge, Figure, Slot, Term, REGISTRY};

/// A set of cost terms, kept in registry order, and the terms implied by
/// what a run exchanges: the work around the messages of an exchange of
/// matrix rows (`rowcopy`, `rowpack`, `recvserial` on `aa`) and of device
/// data (`memcpy`, `kernel`, `devicempi` under device strategies), unless
/// the model is `bare` (then only `memcpy`, a copy of the data itself).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    terms: Vec<&'static Term>,
    /// `+bare`: no implied work terms.
    bare: bool,
    /// Terms implied by the run ([`Model::for_run`]), not named.
    implied: Vec<(&'static Term, Scope)>,
}

/// Which operations an implied term charges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// `aa` only: its benchmark's local work (the paper's spgemm keeps
    /// its three terms unless the term is named).
    Aa,
    /// Every operation of a device strategy.
    All,
}

/// The keyword of `--model` that leaves out the implied work terms.
pub const BARE: &str = "bare";

/// A `--model` that does not parse.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A name that is not in the registry.
    #[error("unknown model term '{term}' (terms: {known})")]
    UnknownTerm {
        /// The name given.
        term: String,
        /// Every term's name.
        known: String,
    },
    /// Two terms of one slot.
    #[error("'{spec}' has two {slot} terms: choose one of {choices}")]
    TwoOfASlot {
        /// The model given.
        spec: String,
        /// `rate` or `queue`.
        slot: &'static str,
        /// The terms of that slot.
        choices: String,
    },
}

/// the default model, whose columns every report has.
const DEFAULT: [&str; 3] = ["nodeaware", "queue", "contention"];

impl Default for Model {
    /// the default: `nodeaware+queue+contention`.
    fn default() -> Model {
        Model::parse(&DEFAULT.join("+")).expect("the default model parses")
    }
}

impl Model {
    /// `term+term+...`, at most one rate term and one queue term.
    pub fn parse(spec: &str) -> Result<Model, ModelError> {
        let mut terms: Vec<&'static Term> = Vec::new();
        let mut bare = false;
        for name in spec.split('+').map(str::trim) {
            if name == BARE {
                bare = true;
                continue;
            }
            let term = terms::find(name).ok_or_else(|| ModelError::UnknownTerm {
                term: name.to_string(),
                known: terms::names(None),
            })?;
            if terms.contains(&term) {
                continue;
            }
            if term.slot != Slot::Extra && terms.iter().any(|t| t.slot == term.slot) {
                return Err(ModelError::TwoOfASlot {
                    spec: spec.to_string(),
                    slot: term.slot.name(),
                    choices: terms::names(Some(term.slot)),
                });
            }
            terms.push(term);
        }
        terms.sort_by_key(|t| terms::index(t));
        Ok(Model {
            terms,
            bare,
            implied: Vec::new(),
        })
    }

    /// The terms, in registry order.
    pub fn terms(&self) -> &[&'static Term] {
        &self.terms
    }

    /// The model of a run under `strategy` charging `ops` on `machine`:
    /// this one, with the `memcpy` term for a strategy that moves device
    /// data (its copies are part of its cost whatever terms were asked
    /// for) and, unless `bare`, the work around the messages: the device
    /// strategies' kernels and CUDA-aware calls, and `aa`'s local matrix
    /// copy, row packing and serial receives where they cost (RAPtor's
    /// `communicate(A)`; a `calibrate`d `per_received`).
    pub fn for_run(
        &self,
        strategy: crate::comm::node_aware::Strategy,
        ops: crate::comm::Ops,
        machine: &Machine,
    ) -> Model {
        let mut m = self.clone();
        m.implied.clear();
        if strategy.is_device() && !m.terms.contains(&&terms::MEMCPY) {
            m.terms.push(&terms::MEMCPY);
            m.terms.sort_by_key(|t| terms::index(t));
        }
        let mut imply = |t: &'static Term, scope: Scope| {
            if !m.terms.contains(&t) && !m.implied.iter().any(|(i, _)| *i == t) {
                m.implied.push((t, scope));
            }
        };
        if !self.bare {
            if strategy.is_device() {
                for t in terms::DEVICE_WORK {
                    imply(t, Scope::All);
                }
            }
            if ops.has(crate::comm::Op::Aa) {
                for t in terms::ROW_WORK {
                    imply(t, Scope::Aa);
                }
                if machine.params.row_work.per_received > 0.0 {
                    imply(&terms::RECVSERIAL, Scope::Aa);
                }
            }
        }
        m.implied.sort_by_key(|(t, _)| terms::index(t));
        m
    }

    /// The terms that charge `op`: the named ones and those implied for
    /// it.
    pub fn for_op(&self, op: crate::comm::Op) -> Model {
        let mut terms = self.terms.clone();
        for &(t, scope) in &self.implied {
            if scope == Scope::All || op == crate::comm::Op::Aa {
                terms.push(t);
            }
        }
        terms.sort_by_key(|t| terms::index(t));
        Model {
            terms,
            bare: self.bare,
            implied: Vec::new(),
        }
    }

    /// `term+term+...` in registry order (`+bare` last when asked): the
    /// named terms, not the implied ones.
    pub fn name(&self) -> String {
        let mut names: Vec<&str> = self.terms.iter().map(|t| t.name).collect();
        if self.bare {
            names.push(BARE);
        }
        names.join("+")
    }

    /// The implied terms' names, joined by `+` (empty when none).
    pub fn implied_names(&self) -> String {
        let names: Vec<&str> = self.implied.iter().map(|(t, _)| t.name).collect();
        names.join("+")
    }

    /// The report's columns of seconds for this model: those of its terms
    /// and always the default model's (the default model's `max_rate`,
    /// `queue_search`, `contention`), in registry order, each with the term
    /// that names it (the model's own where it has one).
    pub fn columns(&self) -> Vec<&'static Term> {
        let default = Model::default();
        let mut out: Vec<&'static Term> = Vec::new();
        for t in REGISTRY {
            let mine = self.terms.contains(t) || self.implied.iter().any(|(i, _)| i == t);
            let required =
                default.terms.contains(t) && !self.terms.iter().any(|m| m.column == t.column);
            if (mine || required) && !out.iter().any(|o| o.column == t.column) {
                out.push(t);
            }
        }
        out
    }
}

impl std::str::FromStr for Model {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Model, ModelError> {
        Model::parse(s)
    }
}

impl std::fmt::Display for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// Reports and JSON hold a model by its name.
impl Serialize for Model {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// One exchange to charge: the messages of an operation (or of one step
/// of a node-aware strategy), their summary, and the machine.
#[derive(Clone, Copy)]
pub struct Exchange<'a> {
    /// The messages.
    pub pattern: &'a Pattern,
    /// [`crate::comm::summarize`] of them.
    pub summary: &'a Summary,
    /// The machine and its parameters.
    pub machine: &'a Machine,
    /// [`Machine::places`].
    pub places: &'a Places,
    /// A device strategy's copies between each GPU and its host (the
    /// `memcpy` term's; `pattern` is then empty): which way, and `(r, r,
    /// bytes)` per copying rank.
    pub copies: Option<(crate::machine::Copy, &'a Pattern)>,
    /// An exchange of matrix rows: the nonzeros of the exchanged matrix
    /// each rank holds (the `rowcopy` term's), given with an operation's
    /// first step only (the copy happens once per call).
    pub local_nonzeros: Option<&'a [u64]>,
    /// Whether the messages go between device buffers through a
    /// CUDA-aware MPI (a `gpu-aware` step; `machine` is then the device
    /// view).
    pub device: bool,
}

/// One term's part of a cost.
#[derive(Clone, Debug, PartialEq)]
pub struct Charged {
    /// The term.
    pub term: &'static Term,
    /// What it charged.
    pub charge: Charge,
}

/// Modeled seconds of one exchange: each term of the model, and their
/// sum.
#[derive(Clone, Debug, PartialEq)]
pub struct Cost {
    /// The model's terms, in registry order.
    pub terms: Vec<Charged>,
    /// The sum of their seconds, in that order.
    pub total: f64,
}

/// Charges `x` with every term of `model`.
pub fn cost(x: &Exchange, model: &Model) -> Cost {
    let terms: Vec<Charged> = model
        .terms
        .iter()
        .map(|&term| Charged {
            term,
            charge: (term.charge)(x),
        })
        .collect();
    let total = terms.iter().fold(0.0, |sum, c| sum + c.charge.seconds);
    Cost { terms, total }
}

impl Cost {
    /// A model's cost of nothing (zero seconds in each term), to sum
    /// steps into.
    pub fn zero(model: &Model) -> Cost {
        Cost {
            terms: model
                .terms
                .iter()
                .map(|&term| Charged {
                    term,
                    charge: Charge::seconds(0.0),
                })
                .collect(),
            total: 0.0,
        }
    }

    /// The seconds in `column` (zero when no term of the model has it).
    pub fn seconds(&self, column: &str) -> f64 {
        // From +0.0: f64's `sum` of nothing is -0.0, which reports print.
        self.terms
            .iter()
            .filter(|c| c.term.column == column)
            .fold(0.0, |sum, c| sum + c.charge.seconds)
    }

    /// Each report column's seconds (terms of one slot summed), in the
    /// model's order: `report.json`'s `cost` keys but `total`.
    pub fn by_column(&self) -> Vec<(&'static str, f64)> {
        let mut out: Vec<(&'static str, f64)> = Vec::new();
        for c in &self.terms {
            match out.iter_mut().find(|(k, _)| *k == c.term.column) {
                Some((_, s)) => *s += c.charge.seconds,
                None => out.push((c.term.column, c.charge.seconds)),
            }
        }
        out
    }

    /// Of the report columns `columns` ([`Model::columns`]), the one
    /// charging most here, and its seconds (the first on a tie).
    pub fn dominant(&self, columns: &[&'static Term]) -> (&'static Term, f64) {
        (columns.iter()).map(|t| (*t, self.seconds(t.column))).fold(
            (columns[0], f64::MIN),
            |best, x| {
                if x.1 > best.1 {
                    x
                } else {
                    best
                }
            },
        )
    }

    /// The figure of `term`'s detail `json`, if the model has the term.
    pub fn detail(&self, term: &Term, json: &str) -> Option<Figure> {
        let c = self.terms.iter().find(|c| c.term == term)?;
        let k = term.details.iter().position(|d| d.json == json)?;
        c.charge.details.get(k).copied()
    }

    /// The sum of `costs` (of one model) term by term, with no details
    /// (a peak or a choice does not add across levels): a hierarchy's
    /// total. `None` for no costs.
    pub fn sum<'a>(costs: impl IntoIterator<Item = &'a Cost>) -> Option<Cost> {
        let mut costs = costs.into_iter();
        let first = costs.next()?;
        let mut sum = Cost {
            terms: (first.terms.iter())
                .map(|c| Charged {
                    term: c.term,
                    charge: Charge::seconds(c.charge.seconds),
                })
                .collect(),
            total: first.total,
        };
        for c in costs {
            for (a, b) in sum.terms.iter_mut().zip(&c.terms) {
                debug_assert!(a.term == b.term);
                a.charge.seconds += b.charge.seconds;
            }
            sum.total += c.total;
        }
        Some(sum)
    }

    /// Adds the cost of the next step of a strategy (same model): seconds
    /// add term by term, details combine ([`Figure::then`]), totals add.
    pub fn then(&mut self, next: &Cost) {
        for (a, b) in self.terms.iter_mut().zip(&next.terms) {
            debug_assert!(a.term == b.term);
            a.charge.seconds += b.charge.seconds;
            a.charge.details = if a.charge.details.is_empty() {
                b.charge.details.clone()
            } else {
                (a.charge.details.iter())
                    .zip(&b.charge.details)
                    .map(|(x, y)| x.then(*y))
                    .collect()
            };
        }
        self.total += next.total;
    }
}

/// report.json's `cost` object: each report column's seconds (report.json's
/// three always, zero when the model lacks them), the terms' details
/// (`group.key` nested), then `total`.
impl Serialize for Cost {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let model = Model {
            terms: self.terms.iter().map(|c| c.term).collect(),
            bare: false,
            implied: Vec::new(),
        };
        let mut map = s.serialize_map(None)?;
        for t in model.columns() {
            map.serialize_entry(t.column, &self.seconds(t.column))?;
        }
        for c in &self.terms {
            let pairs: Vec<(&str, Figure)> = (c.term.details.iter())
                .zip(&c.charge.details)
                .map(|(d, f)| (d.json, *f))
                .collect();
            for group in pairs.chunk_by(|a, b| group_of(a.0) == group_of(b.0)) {
                match group_of(group[0].0) {
                    Some(name) => map.serialize_entry(name, &Group(group))?,
                    None => {
                        for (key, f) in group {
                            map.serialize_entry(key, f)?;
                        }
                    }
                }
            }
        }
        map.serialize_entry("total", &self.total)?;
        map.end()
    }
}

/// `group` of a `group.key` detail.
fn group_of(json: &str) -> Option<&str> {
    json.split_once('.').map(|(g, _)| g)
}

/// Details `group.key` as the object `{key: ...}`.
struct Group<'a>(&'a [(&'static str, Figure)]);

impl Serialize for Group<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (key, f) in self.0 {
            map.serialize_entry(key.split_once('.').map_or(*key, |(_, k)| k), f)?;
        }
        map.end()
    }
}

impl Serialize for Figure {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Figure::Seconds(x) => s.serialize_f64(x),
            Figure::Peak(b) => s.serialize_u64(b),
            Figure::Choice(c) => s.serialize_str(c),
        }
    }
}

/// Helpers of the model's and the terms' tests.
#[cfg(test)]
pub(crate) mod test_util {
    use super::*;
    use crate::comm::{Message, Op};

    /// Equal to 12 digits.
    pub(crate) fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-30)
    }

    /// A message of one run.
    pub(crate) fn msg(from: u32, to: u32, bytes: u64) -> Message {
        Message {
            from,
            to,
            bytes,
            runs: 1,
        }
    }

    /// `messages` charged on `m` with the model `spec`.
    pub(crate) fn charge(spec: &str, messages: Vec<Message>, m: &Machine) -> Cost {
        let pattern = Pattern {
            op: Op::Spmv,
            messages,
        };
        let summary = crate::comm::summarize(&pattern, m);
        let places = m.places();
        let x = Exchange {
            pattern: &pattern,
            summary: &summary,
            machine: m,
            places: &places,
            copies: None,
            local_nonzeros: None,
            device: false,
        };
        cost(&x, &Model::parse(spec).unwrap())
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::{charge, close, msg};
    use super::*;
    use crate::comm::Message;

    #[test]
    fn tiny_pattern_by_hand() {
        // 2 nodes x 4 ranks (2 sockets), one router (2 nodes per router).
        let m = Machine {
            nodes: 2,
            ppn: 4,
            ..Machine::bluewaters()
        };
        let messages = vec![
            msg(0, 1, 100),   // socket
            msg(0, 4, 1000),  // network, eager
            msg(1, 4, 10000), // network, rendezvous
            msg(2, 0, 100),   // node
            msg(5, 0, 600),   // network, eager
        ];
        let c = charge("nodeaware+queue+contention", messages.clone(), &m);
        // Node 0 has 2 network senders (0, 1), node 1 one (5).
        let r0: f64 = (4.4e-7 + 100.0 / 2.2e9) + (7.0e-6 + 2.0 * 1000.0 / (2.0 * 7.5e8));
        let r1 = 3.0e-6 + 2.0 * 10000.0 / (2.0f64 * 2.9e9).min(6.6e9);
        let r2 = 8.3e-7 + 100.0 / 4.8e8;
        let r5 = 7.0e-6 + 600.0 / 7.5e8;
        assert!(
            close(c.seconds("max_rate"), r0.max(r1).max(r2).max(r5)),
            "{c:?}"
        );
        // Rank 0 receives 2, rank 4 receives 2: gamma * 4.
        assert!(close(c.seconds("queue_search"), 8.4e-9 * 4.0));
        // All on one router: h = 0, no contention.
        assert_eq!(c.seconds("contention"), 0.0);
        assert!(close(
            c.total,
            c.seconds("max_rate") + c.seconds("queue_search")
        ));
        // Postal: network short/eager/rendezvous parameters for all; rank
        // 0's two messages are short and eager.
        let c = charge("postal", messages.clone(), &m);
        let p0: f64 = (2.3e-6 + 100.0 / 1.3e9) + (7.0e-6 + 1000.0 / 7.5e8);
        let p1 = 3.0e-6 + 10000.0 / 2.9e9;
        assert!(close(c.total, p0.max(p1)), "{c:?}");
        // Max-rate: every sender is active (node 0: ranks 0, 1, 2; node 1:
        // rank 5), each message injection-limited.
        let c = charge("maxrate", messages, &m);
        let a = 3.0;
        let m0: f64 = (2.3e-6 + a * 100.0 / (a * 1.3e9)) + (7.0e-6 + a * 1000.0 / (a * 7.5e8));
        let m1 = 3.0e-6 + a * 10000.0 / (a * 2.9e9f64).min(6.6e9);
        assert!(close(c.total, m0.max(m1)), "{c:?}");
    }

    /// Eq. 2's `a` counts the senders sharing a NIC: with two NICs per
    /// node, ranks 0-1 and 2-3 of a node inject through their own.
    #[test]
    fn injection_per_nic_by_hand() {
        let mut m = Machine {
            nodes: 2,
            ppn: 4,
            ..Machine::bluewaters()
        };
        // Ranks 0, 1 (NIC 0) and 2 (NIC 1) each send 1 MB off the node.
        let messages = vec![msg(0, 4, 1 << 20), msg(1, 5, 1 << 20), msg(2, 6, 1 << 20)];
        let s = (1u64 << 20) as f64;
        let c = charge("nodeaware", messages.clone(), &m);
        assert!(close(c.total, 3.0e-6 + 3.0 * s / 6.6e9), "{c:?}");
        m.params.nics = 2;
        let c = charge("nodeaware", messages, &m);
        assert!(close(c.total, 3.0e-6 + 2.0 * s / 3.3e9), "{c:?}");
    }

    #[test]
    fn queue_of_1000_messages() {
        let m = Machine {
            nodes: 64,
            ..Machine::bluewaters()
        };
        let messages: Vec<Message> = (1..=1000).map(|r| msg(r, 0, 8)).collect();
        for (spec, want) in [
            ("queue", 8.4e-9 * 1e6),
            ("queue-measured", 8.4e-9 * 1e6 / 3.0),
            ("queue-lower", 8.4e-9 * 1e3),
        ] {
            let c = charge(spec, messages.clone(), &m);
            assert!(close(c.seconds("queue_search"), want), "{spec}");
            assert_eq!(c.total, c.seconds("queue_search"));
        }
    }

    #[test]
    fn contention_is_delta_h_cubed_b_over_routers() {
        let m = Machine {
            nodes: 8,
            ppn: 1,
            ..Machine::bluewaters()
        }; // 4 routers in a 2 x 2 box: node 2 one hop away, node 6 two
        let c = charge("contention", vec![msg(0, 2, 1000), msg(0, 6, 3000)], &m);
        // h = (1000 + 6000) / 4000 = 1.75, B = 4000.
        let h: f64 = 1.75;
        assert!(close(c.total, 1e-10 * h.powi(3) * 4000.0 / 4.0));
    }

    #[test]
    fn steps_add_term_by_term_and_the_json_has_model_md_s_fields() {
        let m = Machine {
            nodes: 8,
            ppn: 2,
            ..Machine::bluewaters()
        };
        let a = charge("copytransfer+routed", vec![msg(0, 4, 8000)], &m);
        let b = charge("copytransfer+routed", vec![msg(2, 14, 100)], &m);
        let mut sum = Cost::zero(&Model::parse("copytransfer+routed").unwrap());
        sum.then(&a);
        sum.then(&b);
        assert_eq!(sum.total, a.total + b.total);
        assert_eq!(
            sum.seconds("max_rate"),
            a.seconds("max_rate") + b.seconds("max_rate")
        );
        let json = serde_json::to_value(&sum).unwrap();
        for k in ["max_rate", "queue_search", "contention", "routed", "total"] {
            assert!(json[k].is_f64(), "{k}: {json}");
        }
        assert_eq!(json["queue_search"], 0.0);
        let routed = terms::find("routed").unwrap();
        let links = |c: &Cost| c.detail(routed, "max_link_bytes");
        assert_eq!(
            json["max_link_bytes"].as_u64(),
            match (links(&a), links(&b)) {
                (Some(Figure::Peak(x)), Some(Figure::Peak(y))) => Some(x.max(y)),
                _ => None,
            }
        );
        let ct = &json["copy_transfer"];
        assert!(ct["packing"].is_f64() && ct["chained"].is_f64());
        assert!(["packing", "chained", "mixed"].contains(&ct["cheaper"].as_str().unwrap()));
    }

    #[test]
    fn model_specs() {
        let d = Model::default();
        assert_eq!(d.name(), "nodeaware+queue+contention");
        assert_eq!(Model::parse("contention+queue+nodeaware").unwrap(), d);
        assert_eq!(Model::parse("postal").unwrap().name(), "postal");
        assert_eq!(
            Model::parse("maxrate+queue-lower").unwrap().name(),
            "maxrate+queue-lower"
        );
        let e = Model::parse("postal+maxrate").unwrap_err();
        assert_eq!(
            e.to_string(),
            "'postal+maxrate' has two rate terms: choose one of postal, maxrate, nodeaware, loggp, copytransfer"
        );
        assert!(Model::parse("queue+queue-lower")
            .unwrap_err()
            .to_string()
            .contains("two queue terms"));
        assert!(Model::parse("logp")
            .unwrap_err()
            .to_string()
            .contains("unknown model term 'logp'"));
        // The report's columns are always there, in registry order.
        let cols = |spec: &str| -> Vec<&str> {
            Model::parse(spec)
                .unwrap()
                .columns()
                .iter()
                .map(|t| t.column)
                .collect()
        };
        assert_eq!(cols("postal"), ["max_rate", "queue_search", "contention"]);
        assert_eq!(
            cols("pack+loggp+logpc"),
            ["max_rate", "queue_search", "contention", "logpc", "pack"]
        );
        let m = Model::parse("loggp").unwrap();
        assert_eq!(m.columns()[0].name, "loggp");
        assert_eq!(Model::parse("postal").unwrap().columns()[1].name, "queue");
    }
}
