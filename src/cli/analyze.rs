//! `amgcomm analyze`: hierarchy -> virtual machine -> partitions -> per-level
//! communication patterns -> report.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::hierarchy::{build_with_progress, AmgArgs};
use super::CliError;
use super::Progress;
use crate::amg::levels_io;
use crate::comm;
use crate::comm::node_aware::{self, Strategy, STRATEGIES};
use crate::machine::{Machine, Placement};
use crate::matrix::source::Source;
use crate::matrix::{Field, Info, Symmetry};
use crate::model::Model;

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    Strategy::parse(s).ok_or_else(|| format!("unknown strategy (known: {STRATEGIES})"))
}
use crate::partition::methods::{self, Method, Objective};
use crate::partition::{self, CoarseRule, Partition};
use crate::report::{analysis, charts};

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// Matrix Market file (.mtx, .mtx.gz) or gen:KIND:N (or use --levels-from).
    #[arg(
        required_unless_present = "levels_from",
        conflicts_with = "levels_from"
    )]
    input: Option<String>,
    /// Read the hierarchy (A0.mtx, P0.mtx, [C0.txt], A1.mtx, ...) from DIR
    /// instead of building one, e.g. one saved from hypre, PETSc or PyAMG.
    #[arg(long, value_name = "DIR")]
    levels_from: Option<PathBuf>,
    #[command(flatten)]
    amg: AmgArgs,
    /// Apply a random symmetric node permutation with this seed first.
    #[arg(long, value_name = "SEED")]
    permute: Option<u64>,
    #[command(flatten)]
    machine: MachineArgs,
    /// Partition of the fine rows: contiguous (balanced blocks),
    /// contiguous-nnz, random, metis, metis-nodes, or a partition file (one
    /// owner rank a line, as METIS writes them).
    #[arg(long, default_value = "contiguous", value_name = "NAME|FILE")]
    partition: String,
    /// What METIS minimises: cut (edge cut) or vol (communication volume).
    #[arg(long, default_value = "cut", value_parser = ["cut", "vol"])]
    metis_objective: String,
    /// Seed of --partition random.
    #[arg(long, default_value_t = 0)]
    partition_seed: u64,
    /// Coarse levels: inherit (a coarse row stays with its C point's owner)
    /// or rebalance (contiguous balanced on every level).
    #[arg(long, default_value = "inherit", value_parser = ["inherit", "rebalance"])]
    coarse_partition: String,
    /// Communication of spmv and spgemm: standard (one message per pair of
    /// ranks), node-aware-2 or node-aware-3 (one message per pair of nodes).
    #[arg(long, default_value = "standard", value_parser = parse_strategy)]
    strategy: Strategy,
    /// Cost model: terms joined by '+', from one rate term (postal |
    /// maxrate | nodeaware | loggp | copytransfer), queue | queue-measured |
    /// queue-lower, contention, logpc, routed, pack.
    #[arg(long, default_value = "nodeaware+queue+contention", value_parser = Model::parse)]
    model: Model,
    /// Folder for report.json, levels.csv and the charts (PNG and SVG);
    /// default reports/<matrix name>/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the wall time of each stage on stderr and add it to the JSON.
    #[arg(long)]
    timings: bool,
    /// Also write the report JSON to this file.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write each level's process graph per operation as Graphviz DOT into DIR.
    #[arg(long, value_name = "DIR")]
    dot: Option<PathBuf>,
}

/// Where the ranks run: shared by `analyze` and `compare`.
#[derive(Args, Debug)]
pub struct MachineArgs {
    /// Machine: bluewaters (built in) or a JSON file with name, nodes, ppn,
    /// sockets_per_node, nodes_per_router [, placement].
    #[arg(long, default_value = "bluewaters", value_name = "NAME|FILE")]
    machine: String,
    /// Number of nodes (overrides the machine's).
    #[arg(long)]
    nodes: Option<usize>,
    /// Processes per node (overrides the machine's).
    #[arg(long)]
    ppn: Option<usize>,
    /// Rank placement: smp (rank r on node r / ppn), round-robin (node
    /// r % nodes) or random (seeded by --placement-seed).
    #[arg(long, value_parser = ["smp", "round-robin", "random"])]
    placement: Option<String>,
    /// Seed of --placement random.
    #[arg(long, default_value_t = 0)]
    placement_seed: u64,
}

impl MachineArgs {
    /// The machine with the overrides applied and checked.
    pub fn resolve(&self) -> Result<Machine, String> {
        let args = self;
        let mut m = Machine::named_or_file(&args.machine)?;
        if args.nodes == Some(0) {
            return Err("--nodes must be at least 1, got 0".into());
        }
        if args.ppn == Some(0) {
            return Err("--ppn must be at least 1, got 0".into());
        }
        m.nodes = args.nodes.unwrap_or(m.nodes);
        m.ppn = args.ppn.unwrap_or(m.ppn);
        match args.placement.as_deref() {
            Some("smp") => m.placement = Placement::Smp,
            Some("round-robin") => m.placement = Placement::RoundRobin,
            Some("random") => {
                m.placement = Placement::Random {
                    seed: args.placement_seed,
                }
            }
            _ => {}
        }
        if let Some(ppn) = args.ppn.filter(|p| p % m.sockets_per_node != 0) {
            return Err(format!(
                "--ppn {ppn}: not divisible by the {} sockets per node of {}",
                m.sockets_per_node, m.name
            ));
        }
        m.validate()
            .map_err(|e| format!("machine {}: {e}", m.name))?;
        Ok(m)
    }
}

/// `reports/<name>/` for a file `path/name.mtx[.gz]`, `gen:kind:n` or a
/// levels folder.
fn default_out(args: &AnalyzeArgs) -> PathBuf {
    let base = match (&args.levels_from, &args.input) {
        (Some(dir), _) => dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "levels".into()),
        (None, Some(input)) => crate::report::base_name(input)
            .replace("gen:", "")
            .replace(':', "_"),
        (None, None) => "report".into(),
    };
    let base = if args.permute.is_some() {
        format!("{base}_permuted")
    } else {
        base
    };
    PathBuf::from("reports").join(base)
}

/// Check, before any long step, that the output folder can be made and
/// written: its nearest existing ancestor must be a writable folder. Nothing
/// is created yet, so a run that fails later leaves no empty folder.
pub(crate) fn check_out(dir: &std::path::Path) -> Result<(), CliError> {
    let usage = |why: String| CliError::Usage(format!("--out {}: {why}", dir.display()));
    let mut existing = dir;
    while !existing.exists() {
        existing = match existing.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
    }
    if !existing.is_dir() {
        return Err(usage(format!(
            "{} is a file, not a folder",
            existing.display()
        )));
    }
    let probe = existing.join(format!(".amgcomm-probe-{}", std::process::id()));
    std::fs::write(&probe, b"").map_err(|e| usage(format!("cannot write there ({e})")))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

pub fn run(args: &AnalyzeArgs) -> Result<(), CliError> {
    let start = Instant::now();
    let mut stages = Stages(Vec::new(), Instant::now());
    // Everything that can be checked before the long steps is checked first.
    let m = args.machine.resolve().map_err(CliError::Usage)?;
    let o = args.amg.options().map_err(CliError::Usage)?;
    let out = args.out.clone().unwrap_or_else(|| default_out(args));
    check_out(&out)?;
    let rule = if args.coarse_partition == "rebalance" {
        CoarseRule::Rebalance
    } else {
        CoarseRule::Inherit
    };
    let progress = Progress::new();
    let (name, info, h, source) = match (&args.levels_from, &args.input) {
        (Some(dir), _) => {
            progress.say(format!("reading levels from {}", dir.display()));
            let h = levels_io::load_levels(dir)?;
            stages.lap("input");
            let a = &h.levels[0].a;
            let info = Info {
                rows: a.rows(),
                cols: a.cols(),
                nnz: a.nnz(),
                field: Field::Real,
                symmetry: Symmetry::General,
            };
            (
                dir.display().to_string(),
                info,
                h,
                format!("levels from {}", dir.display()),
            )
        }
        (None, Some(input)) => {
            progress.say(format!("reading {input}"));
            let mat = Source::parse(input)
                .map_err(|e| e.to_string())?
                .load(args.permute)
                .map_err(|e| e.to_string())?;
            let info = mat.info();
            stages.lap("input");
            let h = build_with_progress(mat.csr, &o, &progress)
                .map_err(|e| format!("{}: {e}", mat.name))?;
            (
                mat.name,
                info,
                h,
                format!("{} preset", args.amg.preset().name()),
            )
        }
        (None, None) => unreachable!("clap requires INPUT or --levels-from"),
    };
    stages.lap("hierarchy");
    let setup = start.elapsed().as_secs_f64();
    let objective = if args.metis_objective == "vol" {
        Objective::Vol
    } else {
        Objective::Cut
    };
    let fine = match Method::parse(&args.partition, args.partition_seed, objective) {
        Some(method) => {
            progress.say(format!(
                "partitioning {} rows ({})",
                info.rows,
                method.name()
            ));
            methods::partition(&h.levels[0].a, &m, method)?
        }
        None => {
            let path = std::path::Path::new(&args.partition);
            if !path.exists() {
                return Err(CliError::Usage(format!(
                    "--partition {}: neither a method ({}) nor a partition file",
                    args.partition,
                    methods::METHODS
                )));
            }
            Partition::read(path, info.rows, m.ranks())?
        }
    };
    let parts = partition::levels(&h, fine, rule);
    progress.say(format!(
        "extracting communication of {} levels on {} ranks",
        h.levels.len(),
        m.ranks()
    ));
    stages.lap("partition");
    let extract = Instant::now();
    let levels = comm::levels(&h, &parts, &m);
    let extract = extract.elapsed().as_secs_f64();
    if let Some(dir) = &args.dot {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
        for l in &levels {
            for (pat, _) in &l.ops {
                let path = dir.join(format!("level{}_{}.dot", l.level, pat.op.name()));
                comm::dot::write(&path, pat, &m)?;
            }
        }
    }
    let partition_json = analysis::PartitionJson {
        fine: args.partition.clone(),
        coarse: args.coarse_partition.clone(),
    };
    let node_aware: Vec<_> = if args.strategy == Strategy::Standard {
        Vec::new()
    } else {
        h.levels
            .iter()
            .enumerate()
            .map(|(l, level)| {
                let spmv = node_aware::steps(&level.a, None, &parts[l], &m, args.strategy);
                let spgemm = level
                    .p
                    .as_ref()
                    .map(|p| node_aware::steps(&level.a, Some(p), &parts[l], &m, args.strategy));
                analysis::LevelSteps {
                    level: l,
                    spmv,
                    spgemm,
                }
            })
            .collect()
    };
    stages.lap("extraction");
    let mut rep = analysis::report(
        &args.model,
        &name,
        &info,
        &m,
        partition_json,
        &h,
        &source,
        &levels,
        args.strategy,
        &node_aware,
    );
    stages.lap("model");
    progress.say("writing the report".into());
    std::fs::create_dir_all(&out).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let write = |path: PathBuf, content: &str| {
        crate::output::write_atomically(&path, |tmp| std::fs::write(tmp, content))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(out.join("levels.csv"), &analysis::csv(&rep))?;
    for ext in ["png", "svg"] {
        for op in ["spmv", "spgemm", "ptap"] {
            charts::breakdown(&out.join(format!("{op}.{ext}")), &rep, op)?;
        }
        charts::messages(&out.join(format!("messages.{ext}")), &rep)?;
    }
    stages.lap("charts and csv");
    if args.timings {
        let mut timings: std::collections::BTreeMap<String, f64> =
            stages.0.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let built = args.levels_from.is_none();
        let steps = h.setup_times.steps();
        if built {
            for (k, v) in steps {
                timings.insert(format!("hierarchy.{k}"), v);
            }
        }
        rep.timings = Some(timings);
        let line: Vec<String> = stages
            .0
            .iter()
            .map(|(k, v)| match *k {
                "hierarchy" if built => {
                    let parts: Vec<String> =
                        steps.iter().map(|(k, v)| format!("{k} {v:.2}")).collect();
                    format!("{k} {v:.2} s ({})", parts.join(", "))
                }
                _ => format!("{k} {v:.2} s"),
            })
            .collect();
        progress.done();
        eprintln!(
            "timings: {} (total {:.2} s)",
            line.join(", "),
            start.elapsed().as_secs_f64()
        );
    }
    // The JSON last, so that its timings cover everything before it.
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&rep).expect("plain structs serialise")
    );
    write(out.join("report.json"), &text)?;
    if let Some(path) = &args.json {
        write(path.clone(), &text)?;
    }
    progress.done();
    Ok(super::emit(&format!(
        "{name} ({source}) on {} nodes x {} ppn = {} ranks ({}), routers {:?}\n\n{}hierarchy and input {setup:.2} s, communication extracted in {extract:.2} s; report in {}\n",
        m.nodes,
        m.ppn,
        m.ranks(),
        m.name,
        m.router_box(),
        analysis::table(&rep),
        out.display()
    ))?)
}

/// Wall time of each stage, in order.
struct Stages(Vec<(&'static str, f64)>, Instant);

impl Stages {
    /// Close the current stage under `name` and start the next.
    fn lap(&mut self, name: &'static str) {
        self.0.push((name, self.1.elapsed().as_secs_f64()));
        self.1 = Instant::now();
    }
}
