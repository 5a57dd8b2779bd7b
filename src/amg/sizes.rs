//! A hierarchy's sizes and complexities, as plain data: what a report
//! says of the hierarchy, also known to a distributed run that never
//! holds the matrices.

use serde::Serialize;

use super::{Hierarchy, SetupTimes};

/// One level's sizes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelSizes {
    /// Level index.
    pub level: usize,
    /// Rows of `A_l`.
    pub rows: usize,
    /// Nonzeros of `A_l`.
    pub nnz: usize,
    /// Nonzeros of `P_l` (not on the coarsest level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_nnz: Option<usize>,
}

/// The hierarchy's sizes and complexities (`amgcomm hierarchy --json`:
/// `{"operator_complexity","grid_complexity","levels":[{"level","rows","nnz","p_nnz"}]}`,
/// and `"setup_seconds"` with `--timings`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sizes {
    /// `sum nnz(A_l) / nnz(A_0)`.
    pub operator_complexity: f64,
    /// `sum rows(A_l) / rows(A_0)`.
    pub grid_complexity: f64,
    /// Every level.
    pub levels: Vec<LevelSizes>,
    /// The setup's wall seconds by step, in all and per level
    /// (`hierarchy --timings`; none unless asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setup_seconds: Option<SetupTimes>,
}

impl Sizes {
    /// Levels of these sizes, with their complexities.
    pub fn of(levels: Vec<LevelSizes>) -> Sizes {
        let ratio = |f: fn(&LevelSizes) -> usize| {
            let total: usize = levels.iter().map(f).sum();
            total as f64 / levels.first().map_or(0, f).max(1) as f64
        };
        Sizes {
            operator_complexity: ratio(|l| l.nnz),
            grid_complexity: ratio(|l| l.rows),
            levels,
            setup_seconds: None,
        }
    }
}

impl Hierarchy {
    /// Every level's sizes and the complexities.
    pub fn sizes(&self) -> Sizes {
        Sizes::of(
            (self.levels.iter().enumerate())
                .map(|(level, l)| LevelSizes {
                    level,
                    rows: l.a.rows(),
                    nnz: l.a.nnz(),
                    p_nnz: l.p.as_ref().map(|p| p.nnz()),
                })
                .collect(),
        )
    }

    /// [`Hierarchy::sizes`] with the setup's wall seconds (empty for
    /// levels read rather than built).
    pub fn timed_sizes(&self) -> Sizes {
        Sizes {
            setup_seconds: Some(self.setup_times.clone()),
            ..self.sizes()
        }
    }

    /// `sum_l nnz(A_l) / nnz(A_0)`.
    pub fn operator_complexity(&self) -> f64 {
        self.sizes().operator_complexity
    }

    /// `sum_l rows(A_l) / rows(A_0)`.
    pub fn grid_complexity(&self) -> f64 {
        self.sizes().grid_complexity
    }
}
