//! The tables of the project's own format that the row-work and
//! device-work fits read (`tests/data/presets/bluewaters_row_work.csv`,
//! `lassen_device_work.csv`): per level and strategy, the model's seconds
//! without the fitted terms, the features the terms multiply and the
//! measured seconds. The model's stage holds them so that `models
//! reproduce` can set each fit's model beside its measurements.

/// One measured exchange of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Ranks of the run.
    pub ranks: usize,
    /// `standard` or `node-aware-3`.
    pub strategy: String,
    /// Level.
    pub level: usize,
    /// The network terms' seconds (the model without row work).
    pub network: f64,
    /// The features `rowcopy`, `rowpack` and `recvserial` multiply.
    pub features: [f64; 3],
    /// Measured seconds.
    pub measured: f64,
}

/// A table that does not read.
#[derive(Debug, thiserror::Error)]
#[error("row-work table, line {line}: {reason}")]
pub struct TableError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// The rows of a table (`#` lines are its source notes).
pub fn read_table(text: &str) -> Result<Vec<Row>, TableError> {
    let mut rows = Vec::new();
    let mut header = false;
    for (k, line) in text.lines().enumerate() {
        let bad = |reason: String| TableError {
            line: k + 1,
            reason,
        };
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if !header {
            let want = "ranks,strategy,level,network_s,local_nonzeros,elements,received,measured_s";
            if f.join(",") != want {
                return Err(bad(format!("the header must be {want}")));
            }
            header = true;
            continue;
        }
        if f.len() != 8 {
            return Err(bad(format!("{} fields, not 8", f.len())));
        }
        let num = |i: usize| -> Result<f64, TableError> {
            f[i].parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| bad(format!("field {} is not a number of 0 or more", i + 1)))
        };
        let whole = |i: usize| -> Result<usize, TableError> {
            f[i].parse::<usize>()
                .map_err(|_| bad(format!("field {} is not a whole number", i + 1)))
        };
        let measured = num(7)?;
        if measured <= 0.0 {
            return Err(bad("a measured time must be positive".into()));
        }
        rows.push(Row {
            ranks: whole(0)?,
            strategy: f[1].to_string(),
            level: whole(2)?,
            network: num(3)?,
            features: [num(4)?, num(5)?, num(6)?],
            measured,
        });
    }
    if rows.is_empty() {
        return Err(TableError {
            line: text.lines().count(),
            reason: "no rows".into(),
        });
    }
    Ok(rows)
}

/// The row's modeled seconds with parameters `c`.
pub fn modeled(r: &Row, c: &[f64; 3]) -> f64 {
    r.network + (0..3).map(|k| c[k] * r.features[k]).sum::<f64>()
}
