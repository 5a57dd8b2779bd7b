//! The wall time of each stage of a run (`analyze --timings`).

use std::collections::BTreeMap;
use std::time::Instant;

use crate::amg::{Hierarchy, SetupTimes};

/// Wall time of each stage, in order, and when the current one began.
#[derive(Clone, Debug)]
pub struct Stages(Vec<(&'static str, f64)>, Instant);

impl Stages {
    /// The first stage starts now.
    pub fn start() -> Stages {
        Stages(Vec::new(), Instant::now())
    }

    /// Close the current stage under `name` and start the next.
    pub fn lap(&mut self, name: &'static str) {
        self.0.push((name, self.1.elapsed().as_secs_f64()));
        self.1 = Instant::now();
    }

    /// A stage timed elsewhere; the next starts now.
    pub fn record(&mut self, name: &'static str, seconds: f64) {
        self.0.push((name, seconds));
        self.1 = Instant::now();
    }

    /// Seconds of the stages named `name`.
    pub fn seconds(&self, name: &str) -> f64 {
        self.0.iter().filter(|s| s.0 == name).map(|s| s.1).sum()
    }

    /// The stages (and a built hierarchy's setup steps, summed and per
    /// level) for the JSON, and one line of them for the terminal.
    pub fn report(&self, built: Option<&Hierarchy>) -> (BTreeMap<String, f64>, String) {
        let mut t: BTreeMap<String, f64> =
            self.0.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let steps = built.map(|h| h.setup_times.steps());
        let line: Vec<String> = self
            .0
            .iter()
            .map(|(k, v)| match (*k, &steps) {
                ("hierarchy", Some(steps)) => {
                    let parts: Vec<String> =
                        steps.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
                    format!("{k} {v:.2} s ({})", parts.join(", "))
                }
                _ => format!("{k} {v:.2} s"),
            })
            .collect();
        for (k, v) in steps.into_iter().flatten() {
            t.insert(format!("hierarchy.{k}"), v);
        }
        // Per level, the steps that took time there.
        for (level, times) in built
            .iter()
            .flat_map(|h| h.setup_times.levels.iter().enumerate())
        {
            for ((k, _), &v) in SetupTimes::default().steps().iter().zip(times) {
                if v > 0.0 {
                    t.insert(format!("hierarchy.level.{level}.{k}"), v);
                }
            }
        }
        let total: f64 = self.0.iter().map(|s| s.1).sum::<f64>() + self.1.elapsed().as_secs_f64();
        (
            t,
            format!("timings: {} (total {total:.2} s)", line.join(", ")),
        )
    }
}
