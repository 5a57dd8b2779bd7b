//! A table of medians turned into a machine's parameters, with
//! `amgcomm calibrate`'s own fits and each one's provenance.

use super::super::calibrate::{self, Experiment, Sample, Setup};
use super::super::fit;
use super::median::{Bench, Median};
use crate::machine::{Copy, Gpus, Locality, Machine, Params, Rate, Source};

/// `base` with the parameters fitted from `medians` by `amgcomm
/// calibrate`'s fits, and every fitted parameter's provenance naming
/// `source` (the measured files); what the medians cannot give keeps
/// `base`'s value and provenance. Device medians fit the GPUs' own
/// parameters the same way (`gpus.*`: messages between device buffers
/// per locality, `R_N` of device data) and the copies' `alpha + s / R`
/// (`gpus.h2d`, `gpus.d2h`); `gpus_per_node` names the GPUs when `base`
/// has none yet. `thresholds`, when the runs' MPI is not the
/// machine's, are the host protocol thresholds to fit within and why.
pub fn fit(
    medians: &[Median],
    base: &Machine,
    source: &str,
    gpus_per_node: Option<usize>,
    thresholds: Option<([u64; 2], &str)>,
) -> Result<Machine, calibrate::FitError> {
    let host = |b: Bench| match b {
        Bench::Host(e) => Some(e),
        _ => None,
    };
    let given = thresholds.map(|t| t.0);
    let (params, mut provenance, fitted) =
        fit_params(medians, host, base, &base.params, "", given)?;
    if let Some((_, why)) = thresholds {
        for p in &mut provenance {
            if p.parameter == "eager_threshold, rendezvous_threshold" {
                p.source = why.to_string();
            }
        }
    }
    provenance.insert(
        0,
        Source {
            parameter: "measurements".into(),
            source: format!("published: {source}"),
        },
    );
    let mut gpus = base.gpus.clone();
    let mut fitted_ones = fitted;
    let device = |b: Bench| match b {
        Bench::Device(e) => Some(e),
        _ => None,
    };
    let per_node = gpus_per_node.or(base.gpus.as_ref().map(|g| g.per_node));
    let copies = |m: &Median| matches!(m.experiment, Bench::Memcpy(_));
    if let (Some(per_node), true) = (
        per_node,
        (medians.iter()).any(|m| device(m.experiment).is_some() || copies(m)),
    ) {
        // Device data's queue, contention and pack constants: the host's
        // (no device test measures them).
        let start = gpus.as_ref().map_or(params.clone(), |g| g.params.clone());
        let mut start = Params {
            gamma: params.gamma,
            delta: params.delta,
            pack_per_run: params.pack_per_run,
            pack_rate: params.pack_rate,
            ..start
        };
        let dm = Machine {
            ppn: per_node,
            ..base.clone()
        };
        // Copies alone (no device ping-pong) keep the messages' parameters.
        if medians.iter().any(|m| device(m.experiment).is_some()) {
            let (dp, dprov, dfitted) = fit_params(medians, device, &dm, &start, "gpus.", None)?;
            provenance.extend(dprov);
            fitted_ones.extend(dfitted);
            start = dp;
        }
        let dp = start;
        let copy = |way: Copy| -> Option<(Rate, Source)> {
            let mut pts: Vec<(f64, f64)> = (medians.iter())
                .filter(|m| m.experiment == Bench::Memcpy(way))
                .map(|m| (m.bytes as f64, m.seconds))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let line = fit::line(&pts)?;
            let name = match way {
                Copy::ToDevice => "gpus.h2d",
                Copy::ToHost => "gpus.d2h",
            };
            let rate = Rate {
                alpha: line.alpha.max(0.0),
                rate: 1.0 / line.per_byte.max(f64::MIN_POSITIVE),
            };
            let src = Source {
                parameter: name.into(),
                source: format!(
                    "fitted to the measurements: least squares of alpha + s / R in relative error, HPEC 2021 sec. III ({} points, {}-{} B, R^2 {:.3}, rms relative residual {:.2})",
                    line.points, pts[0].0, pts[pts.len() - 1].0, line.r2, line.rel_err
                ),
            };
            Some((rate, src))
        };
        let old = gpus.as_ref();
        let keep = |w: Copy| {
            old.map(|g| match w {
                Copy::ToDevice => g.h2d,
                Copy::ToHost => g.d2h,
            })
        };
        let mut rate = |w: Copy| -> Option<Rate> {
            match copy(w) {
                Some((r, src)) => {
                    fitted_ones.push(src.parameter.clone());
                    provenance.push(src);
                    Some(r)
                }
                None => keep(w),
            }
        };
        let (h2d, d2h) = (rate(Copy::ToDevice), rate(Copy::ToHost));
        if let (Some(h2d), Some(d2h)) = (h2d, d2h) {
            gpus = Some(Gpus {
                per_node,
                params: dp,
                h2d,
                d2h,
                work: base.gpus.as_ref().map(|g| g.work).unwrap_or_default(),
                memory: base.gpus.as_ref().map(|g| g.memory).unwrap_or_default(),
            });
        }
    }
    // What was not fitted keeps the base's provenance (its notes are
    // the fit's, written again).
    for s in &base.provenance {
        let ours = [
            "measurements",
            "eager_threshold, rendezvous_threshold",
            "gpus.eager_threshold, gpus.rendezvous_threshold",
        ];
        let note = s.parameter == "note" || s.parameter.starts_with("note ");
        let fit_note = note && provenance.iter().any(|p| p.source == s.source);
        let ours = ours.contains(&s.parameter.as_str()) || fitted_ones.contains(&s.parameter);
        if !(ours || fit_note || note && is_fit_note(&s.source)) {
            provenance.push(s.clone());
        }
    }
    Ok(Machine {
        params,
        gpus,
        provenance,
        calibration: None,
        ..base.clone()
    })
}

/// Whether a provenance note is one a fit writes (and writes again).
pub(crate) fn is_fit_note(source: &str) -> bool {
    let fitted = ["short:", "eager:", "rend:", "thresholds:"];
    fitted.iter().any(|f| source.contains(f))
}

/// `start` with the rates, thresholds and `R_N` fitted from the medians
/// `pick` maps to calibrate's experiments, on `m`'s node (`ppn` ranks
/// or GPUs); each fitted parameter's provenance named with `prefix`, and
/// the fit's notes.
pub(crate) fn fit_params(
    medians: &[Median],
    pick: impl Fn(Bench) -> Option<Experiment>,
    m: &Machine,
    start: &Params,
    prefix: &str,
    thresholds: Option<[u64; 2]>,
) -> Result<(Params, Vec<Source>, Vec<String>), calibrate::FitError> {
    let samples: Vec<Sample> = medians
        .iter()
        .filter_map(|md| {
            Some(Sample {
                experiment: pick(md.experiment)?,
                pattern: String::new(),
                bytes: md.bytes,
                messages: md.active,
                active: md.active,
                hops: 0.0,
                seconds: md.seconds,
                min_seconds: md.seconds,
                repetitions: md.count as u64,
            })
        })
        .collect();
    let setup = Setup {
        name: m.name.clone(),
        nodes: 2,
        ppn: m.ppn,
        sockets_per_node: m.sockets_per_node,
        network: m.network.clone(),
        placement: m.placement,
        thresholds,
        ranks: 2 * m.ppn,
        real_nodes: 2,
        mpi_library: String::new(),
        date: String::new(),
        host: String::new(),
        quick: false,
        measurements: String::new(),
        notes: Vec::new(),
    };
    let fitted = calibrate::fit_machine(&samples, &setup)?.machine;
    let cal = fitted.calibration.as_ref().expect("fit_machine calibrates");
    let mut params = start.clone();
    let mut provenance = Vec::new();
    for f in &cal.fits {
        let quality = match (f.r2, f.rel_err) {
            (Some(r2), Some(e)) => format!(", R^2 {r2:.3}, rms relative residual {e:.2}"),
            (Some(r2), None) => format!(", R^2 {r2:.3}"),
            _ => String::new(),
        };
        let bytes = f
            .bytes
            .map_or(String::new(), |[a, b]| format!(", {a}-{b} B"));
        let parameter = match f.parameter.as_str() {
            "thresholds" => format!("{prefix}eager_threshold, {prefix}rendezvous_threshold"),
            p => format!("{prefix}{p}"),
        };
        provenance.push(Source {
            parameter,
            source: format!(
                "fitted to the measurements: {} ({} points{bytes}{quality})",
                f.method, f.points
            ),
        });
    }
    let fitted_ones: Vec<String> = cal
        .fits
        .iter()
        .map(|f| format!("{prefix}{}", f.parameter))
        .collect();
    let p = &fitted.params;
    params.eager_threshold = p.eager_threshold;
    params.rendezvous_threshold = p.rendezvous_threshold;
    for l in Locality::DEFAULT {
        let name = l.default_name();
        if fitted_ones
            .iter()
            .any(|f| f.starts_with(&format!("{prefix}{name}.")))
        {
            *params.rates_mut(l) = *p.rates(l);
        }
    }
    if fitted_ones.iter().any(|f| *f == format!("{prefix}r_n")) {
        params.r_n = p.r_n;
    }
    for n in &cal.notes {
        provenance.push(Source {
            parameter: "note".into(),
            source: format!("{prefix}{n}"),
        });
    }
    Ok((params, provenance, fitted_ones))
}
