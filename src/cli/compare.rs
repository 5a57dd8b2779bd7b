//! `amgcomm compare`: one hierarchy, several ways to run it (partition,
//! coarse rule, placement, communication strategy), side by side.

use std::path::PathBuf;

use clap::Args;

use super::analyze::MachineArgs;
use super::hierarchy::{build_with_progress, AmgArgs};
use super::{CliError, Progress};
use crate::comm::node_aware::{self, Strategy, STRATEGIES};
use crate::comm::summarize;
use crate::machine::Placement;
use crate::matrix::source::Source;
use crate::model::{self, Model};
use crate::partition::methods::{self, Method, Objective, METHODS};
use crate::partition::{self, CoarseRule, Partition};
use crate::report::compare::{self, CompareReport, LevelCompare, OpCompare, VariantReport};

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Matrix Market file (.mtx, .mtx.gz) or gen:KIND:N.
    input: String,
    /// Variants separated by ';', each a ','-separated list of key=value
    /// with keys partition (contiguous, contiguous-nnz, random, metis,
    /// metis-nodes or a file), strategy (standard, node-aware-2,
    /// node-aware-3), placement (smp, round-robin, random), coarse-partition
    /// (inherit, rebalance). Example:
    /// "partition=contiguous;partition=metis;strategy=node-aware-3"
    #[arg(long)]
    variants: String,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    amg: AmgArgs,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
    /// Cost model (see analyze --help).
    #[arg(long, default_value = "nodeaware+queue+contention", value_parser = Model::parse)]
    model: Model,
    /// What METIS minimises: cut or vol.
    #[arg(long, default_value = "cut", value_parser = ["cut", "vol"])]
    metis_objective: String,
    /// Folder for compare.json and compare.png (default reports/compare).
    #[arg(long, value_name = "DIR", default_value = "reports/compare")]
    out: PathBuf,
}

struct Variant {
    name: String,
    partition: String,
    strategy: Strategy,
    placement: Option<Placement>,
    coarse: CoarseRule,
}

fn parse_variants(spec: &str) -> Result<Vec<Variant>, String> {
    let mut out = Vec::new();
    for v in spec.split(';').map(str::trim).filter(|v| !v.is_empty()) {
        let mut var = Variant {
            name: v.to_string(),
            partition: "contiguous".into(),
            strategy: Strategy::Standard,
            placement: None,
            coarse: CoarseRule::Inherit,
        };
        for kv in v.split(',').map(str::trim) {
            let (k, val) = kv
                .split_once('=')
                .ok_or_else(|| format!("--variants: '{kv}' is not key=value"))?;
            match k.trim() {
                "partition" => var.partition = val.trim().to_string(),
                "strategy" => {
                    var.strategy = Strategy::parse(val.trim())
                        .ok_or_else(|| format!("--variants: unknown strategy '{val}' (known: {STRATEGIES})"))?
                }
                "placement" => {
                    var.placement = Some(match val.trim() {
                        "smp" => Placement::Smp,
                        "round-robin" => Placement::RoundRobin,
                        "random" => Placement::Random { seed: 0 },
                        _ => return Err(format!("--variants: unknown placement '{val}' (known: smp, round-robin, random)")),
                    })
                }
                "coarse-partition" => {
                    var.coarse = match val.trim() {
                        "inherit" => CoarseRule::Inherit,
                        "rebalance" => CoarseRule::Rebalance,
                        _ => return Err(format!("--variants: unknown coarse-partition '{val}' (known: inherit, rebalance)")),
                    }
                }
                other => {
                    return Err(format!(
                        "--variants: unknown key '{other}' (known: partition, strategy, placement, coarse-partition)"
                    ))
                }
            }
        }
        out.push(var);
    }
    if out.is_empty() {
        return Err("--variants: no variant given".into());
    }
    Ok(out)
}

pub fn run(args: &CompareArgs) -> Result<(), CliError> {
    let variants = parse_variants(&args.variants).map_err(CliError::Usage)?;
    let base = args.machine.resolve().map_err(CliError::Usage)?;
    let o = args.amg.options().map_err(CliError::Usage)?;
    super::analyze::check_out(&args.out)?;
    let objective = if args.metis_objective == "vol" {
        Objective::Vol
    } else {
        Objective::Cut
    };
    for v in &variants {
        if Method::parse(&v.partition, 0, objective).is_none()
            && !std::path::Path::new(&v.partition).exists()
        {
            return Err(CliError::Usage(format!(
                "--variants: partition '{}' is neither a method ({METHODS}) nor a file",
                v.partition
            )));
        }
    }
    let progress = Progress::new();
    progress.say(format!("reading {}", args.input));
    let mat = Source::parse(&args.input)
        .map_err(|e| e.to_string())?
        .load(args.permute)
        .map_err(|e| e.to_string())?;
    let matrix_name = mat.name.clone();
    let h =
        build_with_progress(mat.csr, &o, &progress).map_err(|e| format!("{matrix_name}: {e}"))?;
    let mut reports = Vec::new();
    for v in &variants {
        progress.say(format!("variant {}", v.name));
        let mut m = base.clone();
        if let Some(p) = v.placement {
            m.placement = p;
        }
        let fine = match Method::parse(&v.partition, 0, objective) {
            Some(method) => methods::partition(&h.levels[0].a, &m, method)?,
            None => Partition::read(
                std::path::Path::new(&v.partition),
                h.levels[0].a.rows(),
                m.ranks(),
            )?,
        };
        let parts = partition::levels(&h, fine, v.coarse);
        let evaluate = |steps: Vec<node_aware::Step>| OpCompare {
            figures: node_aware::combine(&steps, &m),
            total: steps
                .iter()
                .map(|s| model::cost(&s.pattern, &summarize(&s.pattern, &m), &m, &args.model).total)
                .sum(),
        };
        let levels: Vec<LevelCompare> = h
            .levels
            .iter()
            .enumerate()
            .map(|(l, level)| LevelCompare {
                level: l,
                rows: level.a.rows(),
                spmv: evaluate(node_aware::steps(&level.a, None, &parts[l], &m, v.strategy)),
                spgemm: level.p.as_ref().map(|p| {
                    evaluate(node_aware::steps(
                        &level.a,
                        Some(p),
                        &parts[l],
                        &m,
                        v.strategy,
                    ))
                }),
            })
            .collect();
        reports.push(VariantReport {
            name: v.name.clone(),
            spmv_total: levels.iter().map(|l| l.spmv.total).sum(),
            spgemm_total: levels
                .iter()
                .filter_map(|l| l.spgemm.as_ref())
                .map(|g| g.total)
                .sum(),
            network_messages: levels.iter().map(|l| l.spmv.figures.network_messages).sum(),
            levels,
        });
    }
    let r = CompareReport {
        matrix: matrix_name,
        machine: base.name.clone(),
        nodes: base.nodes,
        ppn: base.ppn,
        model: args.model.name(),
        variants: reports,
    };
    progress.say("writing compare.json and compare.png".into());
    std::fs::create_dir_all(&args.out).map_err(|e| {
        CliError::Usage(format!(
            "--out {}: cannot write there ({e})",
            args.out.display()
        ))
    })?;
    let json = format!(
        "{}\n",
        serde_json::to_string_pretty(&r).expect("plain structs")
    );
    let path = args.out.join("compare.json");
    crate::output::write_atomically(&path, |tmp| std::fs::write(tmp, &json))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    compare::chart(&args.out.join("compare.png"), &r)?;
    compare::chart(&args.out.join("compare.svg"), &r)?;
    progress.done();
    Ok(super::emit(&format!(
        "{} on {} nodes x {} ppn ({}), {}\n\n{}report in {}\n",
        r.matrix,
        r.nodes,
        r.ppn,
        r.machine,
        r.model,
        compare::table(&r),
        args.out.display()
    ))?)
}
