//! The AMG setup flags shared by `hierarchy`, `analyze` and `compare`:
//! a preset, each setting overriding it, checked before any input is read.

use clap::{Args, ValueEnum};

use super::Error;
use crate::amg::strength::Rule;
use crate::amg::{BuildError, Coarsening, Interpolation, Options, Preset};

/// `help`, then each preset's value of the option, as clap shows a
/// default: `[hypre: 0.25, pyamg: 0.25, ...]`.
fn preset_help(help: &str, value: fn(&Options) -> String) -> String {
    let values: Vec<String> = Preset::value_variants()
        .iter()
        .map(|p| format!("{}: {}", p.name(), value(&p.options())))
        .collect();
    format!("{help} [{}]", values.join(", "))
}

/// The AMG setup flags shared by `hierarchy`, `analyze` and `compare`.
#[derive(Args, Debug)]
#[command(
    next_help_heading = "AMG setup (each flag overrides the preset's value, shown per preset)"
)]
pub(crate) struct AmgArgs {
    /// Settings chosen at once; the flags below override them.
    #[arg(long, value_enum, default_value_t = Preset::Hypre)]
    pub(crate) preset: Preset,
    /// Strength threshold theta, in [0, 1].
    #[arg(long, allow_negative_numbers = true, help = preset_help("Strength threshold theta, in [0, 1]", |o| o.strength.theta.to_string()))]
    theta: Option<f64>,
    #[arg(long, value_enum, help = preset_help("Strength rule", |o| crate::value_name(&o.strength.rule)))]
    strength: Option<Rule>,
    #[arg(long, allow_negative_numbers = true, help = preset_help("hypre's max_row_sum (signed rule); 1.0 switches it off", |o| o.strength.max_row_sum.to_string()))]
    max_row_sum: Option<f64>,
    #[arg(long, help = preset_help("Unknowns per node for unknown-based strength (3 for 3D elasticity); must divide the rows", |o| o.strength.num_functions.to_string()))]
    num_functions: Option<usize>,
    #[arg(long, value_enum, help = preset_help("C/F splitting", |o| crate::value_name(&o.coarsening)))]
    coarsening: Option<Coarsening>,
    #[arg(long, value_enum, help = preset_help("Interpolation", |o| crate::value_name(&o.interpolation)))]
    interpolation: Option<Interpolation>,
    #[arg(long, help = preset_help("At most this many entries per row of P (hypre's P_max_elmts; 0: no limit)", |o| o.p_max_elmts.to_string()))]
    p_max_elmts: Option<usize>,
    #[arg(long, allow_negative_numbers = true, help = preset_help("Drop entries of P below this fraction of the row's largest (hypre's trunc_factor), in [0, 1)", |o| o.trunc_factor.to_string()))]
    trunc_factor: Option<f64>,
    #[arg(long, help = preset_help("Seed of the random weights of pmis and cljp (hmis draws hypre_Rand, seeded 2747 + rank as hypre does)", |o| o.seed.to_string()))]
    seed: Option<u64>,
    #[arg(long, help = preset_help("Stop when a level has at most this many rows", |o| o.max_coarse.to_string()))]
    max_coarse: Option<usize>,
    #[arg(long, help = preset_help("At most this many levels", |o| o.max_levels.to_string()))]
    max_levels: Option<usize>,
}

impl AmgArgs {
    /// The preset with the flags applied, checked before any input is read.
    pub(crate) fn options(&self) -> Result<Options, Error> {
        let mut o = self.preset.options();
        let s = &mut o.strength;
        s.theta = self.theta.unwrap_or(s.theta);
        s.rule = self.strength.unwrap_or(s.rule);
        s.max_row_sum = self.max_row_sum.unwrap_or(s.max_row_sum);
        s.num_functions = self.num_functions.unwrap_or(s.num_functions);
        o.coarsening = self.coarsening.unwrap_or(o.coarsening);
        o.interpolation = self.interpolation.unwrap_or(o.interpolation);
        o.p_max_elmts = self.p_max_elmts.unwrap_or(o.p_max_elmts);
        o.trunc_factor = self.trunc_factor.unwrap_or(o.trunc_factor);
        o.seed = self.seed.unwrap_or(o.seed);
        o.max_coarse = self.max_coarse.unwrap_or(o.max_coarse);
        o.max_levels = self.max_levels.unwrap_or(o.max_levels);
        o.validate().map_err(|e| {
            let flag = match e {
                BuildError::Theta(_) => "--theta: ",
                BuildError::TruncFactor(_) => "--trunc-factor: ",
                BuildError::MaxLevels => "--max-levels: ",
                BuildError::NumFunctions => "--num-functions: ",
                // Not options' errors; validate() does not return them.
                BuildError::NotSquare { .. }
                | BuildError::NumFunctionsRows { .. }
                | BuildError::Blocks { .. } => "",
            };
            Error::Usage(format!("{flag}{e}"))
        })?;
        Ok(o)
    }
}
