//! The built-in machines, `--machine NAME`: Blue Waters (EuroMPI'18's),
//! Lassen, Summit, Frontier, and today's El Capitan, Aurora and
//! Perlmutter. A preset is a machine file in
//! `machines/presets/` compiled in, every parameter with its provenance
//! (`amgcomm machine show NAME`); `amgcomm machine fit NAME` refits its
//! measured parameters and prints the file again.

use super::{Machine, Source};

/// Name and machine file of each preset besides `bluewaters`.
static FILES: &[(&str, &str)] = &[
    ("lassen", include_str!("../../machines/presets/lassen.json")),
    ("summit", include_str!("../../machines/presets/summit.json")),
    (
        "frontier",
        include_str!("../../machines/presets/frontier.json"),
    ),
    (
        "elcapitan",
        include_str!("../../machines/presets/elcapitan.json"),
    ),
    ("aurora", include_str!("../../machines/presets/aurora.json")),
    (
        "perlmutter",
        include_str!("../../machines/presets/perlmutter.json"),
    ),
];

/// Every preset's name, `bluewaters` first.
pub fn names() -> Vec<&'static str> {
    std::iter::once("bluewaters")
        .chain(FILES.iter().map(|f| f.0))
        .collect()
}

/// The preset `name`, if there is one.
pub fn preset(name: &str) -> Option<Machine> {
    if name == "bluewaters" {
        return Some(Machine::bluewaters());
    }
    let (_, text) = FILES.iter().find(|f| f.0 == name)?;
    let m: Machine = crate::json_in::from_str(text)
        .unwrap_or_else(|e| panic!("preset {name} does not read: {e} (a test checks them)"));
    Some(m)
}

/// One line of `amgcomm machine list`: a preset's node, network and
/// where its parameters come from.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Listing {
    /// The preset's name.
    pub name: String,
    /// Cores (ranks per node), sockets, GPUs and their memory.
    pub node: String,
    /// The network's kind and shape.
    pub network: String,
    /// Nodes the network holds, when it says.
    pub slots: Option<usize>,
    /// When its sources were measured or published (the provenance's
    /// `dates`).
    pub dates: String,
    /// How many provenance lines are of each kind: fitted, published,
    /// derived, assumed.
    pub kinds: [usize; 4],
}

/// Every preset's [`Listing`], `bluewaters` first.
pub fn listing() -> Vec<Listing> {
    names()
        .into_iter()
        .map(|name| {
            let m = preset(name).expect("a preset");
            let prov = m.provenance_or_default();
            let count = |kind: &str| prov.iter().filter(|s| s.source.starts_with(kind)).count();
            let gpus = match &m.gpus {
                Some(g) => format!(
                    ", {} GPUs{}",
                    g.per_node,
                    match g.memory {
                        super::Memory::Shared => " sharing the CPUs' memory",
                        super::Memory::Discrete => "",
                    }
                ),
                None => String::new(),
            };
            let dates = (prov.iter())
                .find(|s| s.parameter == "dates")
                .map(|s| s.source.trim_start_matches("published: ").to_string())
                .unwrap_or_default();
            Listing {
                name: name.into(),
                node: format!(
                    "{} ranks, {} socket{}{gpus}",
                    m.ppn,
                    m.sockets_per_node,
                    if m.sockets_per_node == 1 { "" } else { "s" }
                ),
                network: m.network().describe(),
                slots: m.network.size(),
                dates,
                kinds: [
                    count("fitted"),
                    count("published"),
                    count("derived"),
                    count("assumed"),
                ],
            }
        })
        .collect()
}

/// Blue Waters' provenance: the EuroMPI'18 paper and docs/model.md.
pub(crate) fn bluewaters_provenance() -> Vec<Source> {
    let s = |parameter: &str, source: &str| Source {
        parameter: parameter.into(),
        source: source.into(),
    };
    vec![
        s("dates", "published: measurements of 2017-2018 (EuroMPI'18; RAPtor's benchmark_matops logs of June 2018)"),
        s("nodes, ppn", "published: the EuroMPI'18 runs, 512 nodes x 16 ranks (Bienz, Gropp, Olson, EuroMPI'18, sec. 5)"),
        s("sockets_per_node", "published: two Interlagos sockets per Cray XE6 node"),
        s("network", "published: Gemini, 2 nodes per router, routers in a 3D torus; the allocation's routers as the most cube-like box (docs/model.md, 'Virtual machine')"),
        s("eager_threshold, rendezvous_threshold", "published: 500 and 8000 bytes (EuroMPI'18, sec. 3; docs/model.md)"),
        s("socket.*, node.*, network.*", "published: EuroMPI'18 Table 1"),
        s("r_n, gamma, delta", "published: EuroMPI'18 (R_N eq. 2, gamma eq. 3, delta eq. 7), docs/model.md, 'Costs'"),
        s("pack_per_run, pack_rate", "assumed: amgcomm's defaults for the pack term (the socket rendezvous rate)"),
        s("row_work.copy_per_nonzero, row_work.per_element, row_work.per_received, row_work.error", "fitted to the measurements: bienz2/BlueWatersModel@4ecec3e, bw_output/amg_models/aniso_128.out and aniso_512.out (RAPtor benchmark_matops, June 11 2018: 'A Communication' and 'A TAP Communication' per level, 56 level-ops), non-negative least squares on relative residuals beside the EuroMPI'18 network terms (table tests/data/presets/bluewaters_row_work.csv, scripts/fit_row_work.sh): copy_per_nonzero 32.9 ns per nonzero of the rank's local matrix copied, per_element 30.1 ns per (value, index) element packed plus unpacked; per_received 0: no cost of a serial receive beyond the network terms shows on these logs (not separable); error 1.36, the median factor the fit misses its logs by"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset reads and validates, names its network, and gives
    /// the provenance of every field of its file and every parameter.
    #[test]
    fn presets_are_valid_and_every_parameter_names_its_source() {
        for name in names() {
            let m = preset(name).unwrap();
            m.validate().unwrap();
            assert_eq!(m.name, name);
            let prov = m.provenance_or_default();
            let named = |p: &str| {
                prov.iter().any(|s| {
                    s.parameter
                        .split(", ")
                        .any(|x| x == p || x.strip_suffix(".*").is_some_and(|c| p.starts_with(c)))
                })
            };
            let mut wanted: Vec<String> =
                vec!["nodes".into(), "ppn".into(), "sockets_per_node".into()];
            wanted.extend(
                [
                    "r_n",
                    "gamma",
                    "delta",
                    "eager_threshold",
                    "rendezvous_threshold",
                ]
                .map(String::from),
            );
            for (class, _) in &m.params.rates.0 {
                for p in ["short", "eager", "rend"] {
                    wanted.push(format!("{class}.{p}"));
                }
            }
            if let Some(g) = &m.gpus {
                for (class, _) in &g.params.rates.0 {
                    for p in ["short", "eager", "rend"] {
                        wanted.push(format!("gpus.{class}.{p}"));
                    }
                }
                wanted.extend(["gpus.per_node", "gpus.h2d", "gpus.d2h"].map(String::from));
            }
            wanted.push("dates".into());
            if name != "bluewaters" {
                for f in m.network.fields.keys() {
                    wanted.push(format!("network.{f}"));
                }
                wanted.push("network.kind".into());
            }
            for w in wanted {
                assert!(
                    named(&w) || (name == "bluewaters" && w.starts_with("network")),
                    "{name}: {w}"
                );
            }
            for s in &prov {
                let ok = [
                    "fitted to the measurements: ",
                    "published: ",
                    "published for ",
                    "assumed: ",
                    "derived ",
                    "derived: ",
                ]
                .iter()
                .any(|p| s.source.starts_with(p))
                    || s.parameter.starts_with("note");
                assert!(
                    ok,
                    "{name}: {} has no kind of source: {}",
                    s.parameter, s.source
                );
            }
        }
        assert_eq!(
            names(),
            [
                "bluewaters",
                "lassen",
                "summit",
                "frontier",
                "elcapitan",
                "aurora",
                "perlmutter"
            ]
        );
        assert!(preset("tuolumne").is_none());
    }
}
