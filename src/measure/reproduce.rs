//! `amgcomm models reproduce`: each classic model against the numbers its
//! paper prints, from the parameter sets shipped in `machines/`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::machine::{Locality, Machine};
use crate::model::classic::{self, Log3PPoint};

/// One reproduced figure, in the paper's units.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Case {
    /// What is computed, with its unit.
    pub case: String,
    /// The value the paper prints.
    pub paper: f64,
    /// amgcomm's value.
    pub amgcomm: f64,
    /// `(amgcomm - paper) / paper`.
    pub rel_diff: f64,
    /// The formula, or why the two differ.
    pub note: String,
}

/// A shipped parameter file (`machines/`, compiled in) that does not hold
/// what a case needs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("machines/{file}: {problem}")]
pub struct ReproduceError {
    /// The file.
    pub file: &'static str,
    /// What is wrong.
    pub problem: String,
}

fn case(name: &str, paper: f64, amgcomm: f64, note: &str) -> Case {
    Case {
        case: name.to_string(),
        paper,
        amgcomm,
        rel_diff: (amgcomm - paper) / paper,
        note: note.to_string(),
    }
}

/// LoGPC's Alewife parameters (Moritz and Frank 2001).
pub const ALEWIFE: &str = include_str!("../../machines/alewife-logpc.json");
/// log3P's Titan table (Cameron, Ge and Sun 2007).
pub const TITAN: &str = include_str!("../../machines/titan-log3p.json");
/// Copy-transfer's Cray T3D rates (Stricker and Gross 1995).
pub const T3D: &str = include_str!("../../machines/t3d-copy-transfer.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamFile<T> {
    #[allow(dead_code)]
    name: String,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    unit: String,
    #[serde(alias = "logpc", alias = "log3p", alias = "copy_transfer")]
    params: T,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LoGPC {
    l: Vec<f64>,
    o_s: Vec<f64>,
    o_r: Vec<f64>,
    #[allow(dead_code)]
    o_sl: f64,
    #[allow(dead_code)]
    o_rl: f64,
    big_g: f64,
    dimensions: f64,
    c_n: f64,
    measured_request_reply: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CopyTransfer {
    copy: BTreeMap<String, f64>,
    send: BTreeMap<String, f64>,
    deposit: BTreeMap<String, f64>,
    congestion: Vec<f64>,
    network_data: Vec<f64>,
    network_adp: Vec<f64>,
    network_data_examples: f64,
}

fn parse<T: for<'de> Deserialize<'de>>(
    file: &'static str,
    text: &str,
) -> Result<T, ReproduceError> {
    crate::json_in::from_str::<ParamFile<T>>(text)
        .map(|f| f.params)
        .map_err(|e| ReproduceError {
            file,
            problem: e.to_string(),
        })
}

const T3D_FILE: &str = "t3d-copy-transfer.json";

fn missing(what: String) -> ReproduceError {
    ReproduceError {
        file: T3D_FILE,
        problem: what,
    }
}

fn rate(table: &BTreeMap<String, f64>, key: &str) -> Result<f64, ReproduceError> {
    table
        .get(key)
        .copied()
        .ok_or_else(|| missing(format!("no rate {key}")))
}

/// Every case: log3P, LoGPC, copy-transfer, then EuroMPI'18's worked
/// examples.
pub fn cases() -> Result<Vec<Case>, ReproduceError> {
    let mut out = Vec::new();

    // log3P, Titan (us).
    let titan: Vec<Log3PPoint> = parse("titan-log3p.json", TITAN)?;
    let p = classic::log3p_at(&titan, 16384.0);
    out.push(case(
        "log3P Titan T01 (16 KB, 1 KB stride, us)",
        580.0,
        p.remote(),
        "o_mw + l_mw + o_net",
    ));
    out.push(case(
        "log3P Titan T00 send to self (us)",
        452.0,
        p.to_self(),
        "o_mw + l_mw + T_mem",
    ));

    // LoGPC, Alewife (cycles); two-argument messages.
    let a: LoGPC = parse("alewife-logpc.json", ALEWIFE)?;
    let rr = classic::request_reply(a.l[0], a.o_s[2], a.o_r[2], a.c_n);
    let measured = format!("measured {}", a.measured_request_reply);
    for (name, paper, value, note) in [
        (
            "LogP request-reply (cycles)",
            316.0,
            rr[0],
            "2 (o_s + L + o_r)".to_string(),
        ),
        (
            "LoPC request-reply (cycles)",
            453.0,
            rr[1],
            "LogP + C_r, C_r = o_s + o_r".to_string(),
        ),
        (
            "LoGPC request-reply (cycles)",
            499.0,
            rr[2],
            format!("LoPC + 2 C_n, C_n = {} as printed; {measured}", a.c_n),
        ),
    ] {
        out.push(case(name, paper, value, &note));
    }
    out.push(case(
        "LoGPC contention ratio bound F (n = 2, k_d = 2, G = 0.5)",
        1.0 + 1.5f64.sqrt(),
        classic::contention_ratio_bound(a.dimensions, 2.0, a.big_g),
        "root of (F - 2G)(2F - k_d) = (n+1)(k_d-1); paper: 1 + sqrt(1.5) = 2.2247",
    ));

    // Copy-transfer, T3D (MB/s).
    let t: CopyTransfer = parse(T3D_FILE, T3D)?;
    let at_congestion = |v: &[f64], c: f64| -> Result<f64, ReproduceError> {
        t.congestion
            .iter()
            .position(|&x| x == c)
            .and_then(|i| v.get(i).copied())
            .ok_or_else(|| missing(format!("no congestion {c}")))
    };
    let (s1, d1) = (rate(&t.send, "1S0")?, rate(&t.deposit, "0D1")?);
    let nd = t.network_data_examples;
    let packing = |x: &str, y: &str, n: f64| -> Result<f64, ReproduceError> {
        Ok(classic::buffer_packing(
            rate(&t.copy, &format!("{x}C1"))?,
            s1,
            n,
            d1,
            rate(&t.copy, &format!("1C{y}"))?,
        ))
    };
    out.push(case(
        "copy-transfer T3D transpose 1Q1024 (MB/s)",
        25.0,
        packing("1", "64", at_congestion(&t.network_data, 2.0)?)?,
        "1/(1/1C1 + 1/min(1S0, Nd at congestion 2, 0D1) + 1/1C1024), 1C1024 = 1C64",
    ));
    for (name, x, y, paper) in [
        ("1Q1", "1", "1", 27.9),
        ("1Q64", "1", "64", 25.2),
        ("wQw", "w", "w", 14.2),
    ] {
        out.push(case(
            &format!("copy-transfer T3D buffer packing {name} (MB/s)"),
            paper,
            packing(x, y, nd)?,
            &format!("xC1 . (1S0 || Nd || 0D1) . 1Cy, Nd = {nd}"),
        ));
    }
    out.push(case(
        "copy-transfer T3D buffer packing 64Q1 (MB/s)",
        18.1,
        packing("64", "1", nd)?,
        "the paper prints 17.1, a typo: its own formula 1/(1/33.3 + 1/70 + 1/93) gives 18.1",
    ));
    let adp = at_congestion(&t.network_adp, 2.0)?;
    for (name, sx, network, note, paper) in [
        (
            "1Q'1",
            s1,
            nd,
            "1S0 || Nd || 0D1: contiguous, data only",
            70.0,
        ),
        (
            "1Q'64",
            s1,
            adp,
            "1S0 || Nadp || 0D64: address-data pairs at congestion 2; 0D64 = 0D1",
            38.0,
        ),
        (
            "wQ'w",
            rate(&t.send, "wS0")?,
            adp,
            "wS0 || Nadp || 0Dw; 0Dw = 0D1",
            32.0,
        ),
    ] {
        out.push(case(
            &format!("copy-transfer T3D chained {name} (MB/s)"),
            paper,
            classic::chained(sx, network, d1),
            note,
        ));
    }

    // EuroMPI'18, Blue Waters Table 1 (s), against values worked by hand.
    let m = Machine::bluewaters();
    out.push(case(
        "EuroMPI'18 eq. 2: 16 KiB network rendezvous, 16 active ranks (s)",
        // 3.0e-6 + 16 * 16384 / min(6.6e9, 16 * 2.9e9)
        3.0e-6 + 262_144.0 / 6.6e9,
        crate::model::terms::message_time(&m, Locality::NETWORK, 16384, 16),
        "alpha + a s / min(R_N, a R_b)",
    ));
    out.push(case(
        "EuroMPI'18 eq. 2: 1 KiB eager on the socket (s)",
        // 5.3e-7 + 1024 / 3.2e9
        5.3e-7 + 3.2e-7,
        crate::model::terms::message_time(&m, Locality::SOCKET, 1024, 16),
        "alpha + s / R_b, socket eager",
    ));
    Ok(out)
}

/// Each measured preset's table of medians (the project's own format,
/// naming its files; `amgcomm machine fit NAME` fits from it), its name
/// in the cases, and whether its host rows are reproduced too (Lassen's
/// rows are its GPU model's, as since issue 30).
pub const MEASURED: &[(&str, &str, &str, &str, bool)] = &[
    (
        "lassen",
        "Lassen",
        "../tests/data/presets/lassen.csv",
        include_str!("../../tests/data/presets/lassen.csv"),
        false,
    ),
    (
        "elcapitan",
        "El Capitan (Tuolumne)",
        "../tests/data/presets/elcapitan.csv",
        include_str!("../../tests/data/presets/elcapitan.csv"),
        true,
    ),
    (
        "perlmutter",
        "Perlmutter (Delta)",
        "../tests/data/presets/perlmutter.csv",
        include_str!("../../tests/data/presets/perlmutter.csv"),
        true,
    ),
];

/// Every measured preset's model against its medians ([`MEASURED`]):
/// per locality and size the one-way time of host and device buffers,
/// each memcpy way, `a` ranks of a node sending to another node at once
/// (injection), and one GPU's n messages to GPUs of another node
/// (mult_pong: each of `bytes`; split: sharing `bytes`), as the
/// `nodeaware` and `memcpy` terms charge them (EuroMPI'18 eq. 2, HPEC
/// 2021's postal and copy models).
pub fn measured_cases() -> Result<Vec<Case>, ReproduceError> {
    let mut out = Vec::new();
    for &(name, label, file, table, host) in MEASURED {
        out.extend(preset_cases(name, label, file, table, host)?);
    }
    out.extend(fitted_work_cases());
    out.extend(device_winner_cases());
    Ok(out)
}

/// The tables the work terms were fitted to (the project's own format,
/// compiled in; `scripts/fit_row_work.sh`, `scripts/fit_device_work.sh`).
const ROW_WORK_TABLE: &str = include_str!("../../tests/data/presets/bluewaters_row_work.csv");
const DEVICE_WORK_TABLE: &str = include_str!("../../tests/data/presets/lassen_device_work.csv");

/// Lassen's device work as the table's coefficients: per kernel (the
/// table has none: its program launches no kernel), per CUDA-aware call,
/// per round of host messages.
fn lassen_device_work() -> [f64; 3] {
    let w = (crate::machine::presets::preset("lassen").and_then(|m| m.gpus))
        .expect("the lassen preset has its GPUs")
        .work;
    [w.kernel, w.aware_call, w.round]
}

/// Each fit of the work around the messages beside the measurements it
/// was fitted to, level by level: Blue Waters' row work for `aa`
/// (RAPtor's benchmark_matops, ms) and Lassen's device work for the GPU
/// strategies (BenchPress's SpMV, us). Their median factor is the
/// machine's `error`, the advice's close-call factor.
pub fn fitted_work_cases() -> Vec<Case> {
    let tables = [
        (
            "Fitted row work, Blue Waters aa",
            ROW_WORK_TABLE,
            crate::machine::RowWork::bluewaters().as_array(),
            (1e3, "ms"),
            "network terms + rowcopy + rowpack, params.row_work (scripts/fit_row_work.sh)",
        ),
        (
            "Fitted device work, Lassen",
            DEVICE_WORK_TABLE,
            lassen_device_work(),
            (1e6, "us"),
            "the messages' terms + devicempi + hostround (BenchPress's comm-only program: no copy, no kernel), gpus.work (scripts/fit_device_work.sh)",
        ),
    ];
    let mut out = Vec::new();
    for (label, table, c, (scale, unit), note) in tables {
        // Compiled in and read by the fits' own tests.
        let rows = crate::model::fit_table::read_table(table).expect("a fitted table reads");
        for r in &rows {
            out.push(case(
                &format!(
                    "{label}, {} ranks, {}, level {} ({unit})",
                    r.ranks, r.strategy, r.level
                ),
                r.measured * scale,
                crate::model::fit_table::modeled(r, &c) * scale,
                note,
            ));
        }
    }
    out
}

/// How often the fitted device work names the fastest GPU strategy, per
/// layout of its table (Lassen's training runs): "paper", the decisive
/// levels, where the measured fastest strategy leads the next by more
/// than a fifth; "amgcomm", those of them whose fastest the model names.
pub fn device_winner_cases() -> Vec<Case> {
    let c = lassen_device_work();
    let rows =
        crate::model::fit_table::read_table(DEVICE_WORK_TABLE).expect("a fitted table reads");
    // Per layout and level: each strategy's (measured, modeled).
    let mut levels: BTreeMap<(usize, usize), Vec<(f64, f64)>> = BTreeMap::new();
    for r in &rows {
        (levels.entry((r.ranks, r.level)).or_default())
            .push((r.measured, crate::model::fit_table::modeled(r, &c)));
    }
    let fastest = |v: &[(f64, f64)], k: fn(&(f64, f64)) -> f64| {
        (0..v.len()).min_by(|&a, &b| k(&v[a]).total_cmp(&k(&v[b])))
    };
    let mut marks: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for ((ranks, _), v) in &levels {
        let mut measured: Vec<f64> = v.iter().map(|x| x.0).collect();
        measured.sort_by(f64::total_cmp);
        let m = marks.entry(*ranks).or_default();
        if measured.len() > 1 && measured[1] > 1.2 * measured[0] {
            m.0 += 1;
            m.1 += usize::from(fastest(v, |x| x.0) == fastest(v, |x| x.1));
        }
    }
    (marks.into_iter())
        .map(|(ranks, (decisive, right))| {
            case(
                &format!("Fitted device work's fastest strategy, Lassen, {ranks} ranks (levels)"),
                decisive as f64,
                right as f64,
                "paper: levels whose measured fastest strategy leads by > 20%; amgcomm: those the model names (issue 52 asks 70%)",
            )
        })
        .collect()
}

fn preset_cases(
    name: &str,
    label: &str,
    file: &'static str,
    table: &str,
    host: bool,
) -> Result<Vec<Case>, ReproduceError> {
    use super::benchpress::{read_table, Bench};
    use super::calibrate::Experiment;
    use crate::machine::{Copy, Locality};
    let bad = |problem: String| ReproduceError { file, problem };
    let (_, medians) = read_table(table).map_err(|e| bad(e.0))?;
    let m = crate::machine::presets::preset(name).expect("a preset");
    let d = m.device();
    // Ranks per node of the runs the medians came from.
    let run_ppn = super::locality_aware::Runs::of(name).map_or(m.ppn, |r| r.ranks_per_node);
    let us = |t: f64| t * 1e6;
    let mut out = Vec::new();
    for md in &medians {
        let size = md.bytes;
        let (case_name, modeled, note) = match (md.experiment, &d, &m.gpus) {
            (Bench::Host(Experiment::PingPong(l)), _, _) if host => (
                format!("{label} ping-pong {} {size} B (us)", l.default_name()),
                crate::model::terms::message_time(&m, l, size, 1),
                "<locality>: alpha + s / R_b".to_string(),
            ),
            (Bench::Host(Experiment::Injection), _, _) if host => {
                // The runs' first `a` ranks of a node: their NIC's block
                // holds at most the runs' ranks per NIC of them.
                let a = md.active as usize;
                let per_nic = a.min((run_ppn / m.params.nics.max(1)).max(1));
                (
                    format!("{label} injection {a} x {size} B (us)"),
                    crate::model::terms::message_time(&m, Locality::NETWORK, size, per_nic),
                    "a ranks of a node each off it, the first NIC's share of them: alpha + a s / min(R_N / nics, a R_b), EuroMPI'18 eq. 2"
                        .to_string(),
                )
            }
            (Bench::Device(Experiment::PingPong(l)), Some(d), _) => (
                format!("{label} GPU ping-pong {} {size} B (us)", l.default_name()),
                crate::model::terms::message_time(d, l, size, 1),
                "gpus.<locality>: alpha + s / R_b".to_string(),
            ),
            (Bench::Memcpy(way), _, Some(g)) => (
                format!(
                    "{label} memcpy {} {size} B (us)",
                    if way == Copy::ToDevice { "h2d" } else { "d2h" }
                ),
                g.copy_time(way, size),
                "alpha + s / R (HPEC 2021 sec. III)".to_string(),
            ),
            (Bench::Messages | Bench::Split, Some(d), _) => {
                let n = md.active;
                let each = match md.experiment {
                    Bench::Split => size / n,
                    _ => size,
                };
                let t = n as f64 * crate::model::terms::message_time(d, Locality::NETWORK, each, 1);
                let kind = if md.experiment == Bench::Split {
                    "split"
                } else {
                    "mult"
                };
                (
                    format!("{label} GPU {kind} {n} x {each} B (us)"),
                    t,
                    "n messages from one GPU: n (alpha + s / R_b), network".to_string(),
                )
            }
            _ => continue,
        };
        out.push(case(&case_name, us(md.seconds), us(modeled), &note));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_case_is_within_one_percent() {
        let cases = cases().unwrap();
        assert_eq!(cases.len(), 16);
        for c in &cases {
            assert!(c.rel_diff.abs() < 0.01, "{c:?}");
        }
    }

    #[test]
    fn hand_worked_values() {
        let c = cases().unwrap();
        let get = |name: &str| c.iter().find(|x| x.case.starts_with(name)).unwrap().amgcomm;
        assert_eq!(get("log3P Titan T01"), 580.0);
        assert_eq!(get("LoGPC request-reply"), 499.0);
        // 1 / (1/93 + 1/69 + 1/67.9) = 25.0169
        assert!((get("copy-transfer T3D transpose") - 25.0169).abs() < 1e-3);
        // 3.0e-6 + 16 * 16384 / min(6.6e9, 16 * 2.9e9) = 4.2719e-5
        assert!((get("EuroMPI'18 eq. 2: 16 KiB") - 4.2719e-5).abs() < 1e-9);
        // 1 / (1/33.3 + 1/70 + 1/93) = 18.159...
        assert!((get("copy-transfer T3D buffer packing 64Q1") - 18.159).abs() < 1e-3);
    }
}
