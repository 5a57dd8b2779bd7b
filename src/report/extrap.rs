//! `extrap.jsonl` of `amgcomm scale`: the study in Extra-P's JSON Lines
//! input (Extra-P's `fileio/file_reader/jsonlines_file_reader.py`), one
//! line per process count, call path and metric:
//!
//! ```json
//! {"params": {"p": 64}, "callpath": "MG level 0->spmv", "metric": "time", "value": 1.2e-5}
//! ```
//!
//! `p` is the ranks; the call path is `MG level L->operation` (level 0
//! the finest, as in `profile.json`); the metrics are `time` (modeled
//! seconds of one exchange), each cost term's seconds under its
//! `report.json` key, and `measured` where a measured file gave a time.
//! A study of several strategies names each metric's strategy in
//! brackets (`time [node-aware-3]`). `extrap --jsonlines extrap.jsonl`
//! fits a model of `p` per call path and metric.

use serde_json::json;

use crate::analysis::Scaling;

/// The study as Extra-P's JSON Lines.
pub fn jsonl(s: &Scaling) -> String {
    let mut out = String::new();
    let several = s.strategies.len() > 1;
    for p in &s.points {
        for (strategy, levels) in &p.strategies {
            let name = |metric: &str| {
                if several {
                    format!("{metric} [{}]", strategy.name())
                } else {
                    metric.to_string()
                }
            };
            for l in levels {
                for o in &l.ops {
                    let callpath = format!("MG level {}->{}", l.level, o.op.name());
                    let metrics = std::iter::once(("time", Some(o.modeled)))
                        .chain(o.terms.iter().map(|&(k, v)| (k, Some(v))))
                        .chain(std::iter::once(("measured", o.measured)));
                    for (metric, value) in metrics {
                        if let Some(v) = value {
                            let line = json!({"params": {"p": p.ranks}, "callpath": callpath,
                                "metric": name(metric), "value": v});
                            out += &line.to_string();
                            out.push('\n');
                        }
                    }
                }
            }
        }
    }
    out
}
