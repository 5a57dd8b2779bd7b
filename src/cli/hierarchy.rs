//! `amgcomm hierarchy`: build the AMG hierarchy and print its level table.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use crate::amg::strength::Rule;
use crate::amg::{self, levels_io, Coarsening, Interpolation, Options, Preset};
use crate::matrix::source::Source;
use crate::report;

#[derive(Args, Debug)]
pub struct HierarchyArgs {
    /// Matrix Market file (.mtx, .mtx.gz) or gen:KIND:N.
    input: String,
    #[command(flatten)]
    pub amg: AmgArgs,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
    /// Write {"operator_complexity","grid_complexity","levels":[...]} here.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write A{l}.mtx, P{l}.mtx and C{l}.txt of every level into DIR.
    #[arg(long, value_name = "DIR")]
    save_levels: Option<PathBuf>,
}

/// The AMG setup flags shared by `hierarchy` and `analyze`.
#[derive(Args, Debug)]
pub struct AmgArgs {
    /// Settings chosen at once; the flags below override them.
    /// hypre: BoomerAMG defaults (signed strength theta 0.25, max_row_sum 0.9,
    /// HMIS, extended+i, P_max_elmts 4, max_coarse 9, max_levels 25).
    /// pyamg: PyAMG's ruge_stuben_solver defaults (abs strength theta 0.25, RS,
    /// classical interpolation, max_coarse 10, max_levels 30).
    /// raptor-elasticity: the EuroMPI'18 elasticity setting (signed strength
    /// theta 0.5, num_functions 3, HMIS, extended+i, max_coarse 50, max_levels 25).
    #[arg(long, default_value = "hypre", value_parser = parse_preset, verbatim_doc_comment)]
    preset: Preset,
    /// Strength threshold theta.
    #[arg(long)]
    theta: Option<f64>,
    /// Strength rule: abs (PyAMG classical), signed (hypre, RAPtor) or
    /// symmetric (PyAMG's |a_ij|^2 >= theta^2 |a_ii a_jj|).
    #[arg(long, value_parser = ["abs", "signed", "symmetric"])]
    strength: Option<String>,
    /// hypre's max_row_sum (signed rule); 1.0 switches it off.
    #[arg(long)]
    max_row_sum: Option<f64>,
    /// Unknowns per node for unknown-based strength (3 for 3D elasticity).
    #[arg(long)]
    num_functions: Option<usize>,
    /// Coarsening: rs, rs2 (RS with PyAMG's second pass), pmis, hmis or cljp.
    #[arg(long, value_parser = ["rs", "rs2", "pmis", "hmis", "cljp"])]
    coarsening: Option<String>,
    /// Interpolation: direct, classical (PyAMG's modified classical) or
    /// extended+i (hypre's interp_type 6).
    #[arg(long, value_parser = ["direct", "classical", "extended+i"])]
    interpolation: Option<String>,
    /// At most this many entries per row of P (hypre's P_max_elmts; 0: no limit).
    #[arg(long)]
    p_max_elmts: Option<usize>,
    /// Drop entries of P below this fraction of the row's largest (hypre's trunc_factor).
    #[arg(long)]
    trunc_factor: Option<f64>,
    /// Seed of the random weights of pmis, hmis and cljp.
    #[arg(long)]
    seed: Option<u64>,
    /// Stop when a level has at most this many rows.
    #[arg(long)]
    max_coarse: Option<usize>,
    /// At most this many levels.
    #[arg(long)]
    max_levels: Option<usize>,
}

fn parse_preset(s: &str) -> Result<Preset, String> {
    Preset::parse(s).ok_or_else(|| {
        let known: Vec<&str> = amg::PRESETS.iter().map(|p| p.name()).collect();
        format!("unknown preset (known: {})", known.join(", "))
    })
}

impl AmgArgs {
    pub fn options(&self) -> Result<Options, String> {
        if self.num_functions == Some(0) {
            return Err("--num-functions must be at least 1, got 0".into());
        }
        let mut o = self.preset.options();
        if let Some(t) = self.theta {
            o.strength.theta = t;
        }
        match self.strength.as_deref() {
            Some("abs") => o.strength.rule = Rule::Abs,
            Some("signed") => o.strength.rule = Rule::Signed,
            Some("symmetric") => o.strength.rule = Rule::Symmetric,
            _ => {}
        }
        if let Some(m) = self.max_row_sum {
            o.strength.max_row_sum = m;
        }
        if let Some(n) = self.num_functions {
            o.strength.num_functions = n;
        }
        match self.coarsening.as_deref() {
            Some("rs") => o.coarsening = Coarsening::Rs { second_pass: false },
            Some("rs2") => o.coarsening = Coarsening::Rs { second_pass: true },
            Some("pmis") => o.coarsening = Coarsening::Pmis,
            Some("hmis") => o.coarsening = Coarsening::Hmis,
            Some("cljp") => o.coarsening = Coarsening::Cljp,
            _ => {}
        }
        match self.interpolation.as_deref() {
            Some("direct") => o.interpolation = Interpolation::Direct,
            Some("classical") => o.interpolation = Interpolation::Classical,
            Some("extended+i") => o.interpolation = Interpolation::ExtendedI,
            _ => {}
        }
        if let Some(m) = self.p_max_elmts {
            o.p_max_elmts = m;
        }
        if let Some(t) = self.trunc_factor {
            o.trunc_factor = t;
        }
        if let Some(seed) = self.seed {
            o.seed = seed;
        }
        if let Some(m) = self.max_coarse {
            o.max_coarse = m;
        }
        if let Some(m) = self.max_levels {
            o.max_levels = m;
        }
        Ok(o)
    }

    pub fn preset(&self) -> Preset {
        self.preset
    }
}

/// Build the hierarchy (taking the matrix over), naming each level on the
/// progress spinner.
pub fn build_with_progress(
    a: crate::matrix::Csr,
    o: &Options,
    progress: &super::Progress,
) -> Result<amg::Hierarchy, String> {
    let mut step = |level: usize, rows: usize| {
        progress.say(format!(
            "setting up level {level} ({} rows)",
            report::spy::group(rows)
        ))
    };
    amg::build_owned(a, o, &mut step)
}

pub fn run(args: &HierarchyArgs) -> Result<(), String> {
    let o = args.amg.options()?;
    let source = Source::parse(&args.input).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let m = source.load(args.permute).map_err(|e| e.to_string())?;
    let loaded = start.elapsed().as_secs_f64();
    let setup_start = Instant::now();
    let progress = super::Progress::new();
    let name = m.name.clone();
    let h = build_with_progress(m.csr, &o, &progress).map_err(|e| format!("{name}: {e}"))?;
    progress.done();
    let setup = setup_start.elapsed().as_secs_f64();
    if let Some(path) = &args.json {
        let text =
            serde_json::to_string_pretty(&report::hierarchy::json(&h)).expect("plain struct");
        crate::output::write_atomically(path, |tmp| std::fs::write(tmp, format!("{text}\n")))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(dir) = &args.save_levels {
        levels_io::save_levels(&h, dir, &m.name)?;
    }
    super::emit(&format!(
        "{} ({} preset)\n{}loaded in {loaded:.2} s, hierarchy set up in {setup:.2} s\n",
        m.name,
        args.amg.preset.name(),
        report::hierarchy::table(&h)
    ))
}
