//! Command line: parse flags, run one stage chain, print one-line errors.

mod analyze;
mod compare;
mod hierarchy;
mod partition;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Parser, Subcommand};

use crate::matrix::gen::{kind_names, Kind, Problem};
use crate::matrix::source::Source;
use crate::matrix::{csr, mtx_write, Symmetry};
use crate::report::{self, ChartFormat};

#[derive(Parser, Debug)]
#[command(
    name = "amgcomm",
    version,
    about = "Per-level communication analysis of algebraic multigrid hierarchies",
    long_about = "Per-level communication analysis of algebraic multigrid hierarchies.\n\n\
        INPUT is a Matrix Market file (.mtx or .mtx.gz) or a generator spec \
        gen:KIND:N with KIND one of elasticity3d, poisson3d, poisson3d-27, poisson2d."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
// Parsed once per run: the size difference of the variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Print the size, nonzeros, field and symmetry of a matrix.
    Info {
        /// Matrix Market file (.mtx, .mtx.gz) or gen:KIND:N.
        input: String,
        /// Print {"rows","cols","nnz","field","symmetry"} as JSON.
        #[arg(long)]
        json: bool,
        /// Apply a random symmetric node permutation with this seed.
        #[arg(long, value_name = "SEED")]
        permute: Option<u64>,
        /// Also draw the sparsity pattern to this file (.png or .svg).
        #[arg(long, value_name = "FILE")]
        spy: Option<PathBuf>,
    },
    /// Per-level communication of the AMG hierarchy on a virtual machine.
    Analyze(analyze::AnalyzeArgs),
    /// Several partitions, placements and communication strategies side by side.
    Compare(compare::CompareArgs),
    /// Partition a matrix's rows and write a partition file.
    Partition(partition::PartitionArgs),
    /// Machine descriptions and their cost-model parameters.
    #[command(subcommand)]
    Machine(MachineCommand),
    /// The classic cost models (LogGP/LoGPC, log3P, copy-transfer).
    #[command(subcommand)]
    Models(ModelsCommand),
    /// Build the classical AMG hierarchy and print its levels.
    Hierarchy(hierarchy::HierarchyArgs),
    /// Generate a model problem and write it as Matrix Market.
    Generate {
        /// elasticity3d, poisson3d, poisson3d-27 or poisson2d.
        #[arg(value_parser = parse_kind)]
        kind: Kind,
        /// Grid size: N^3 elements (elasticity3d), N^d unknowns (poisson).
        #[arg(long, value_name = "N")]
        n: usize,
        /// Output file (.mtx, or .mtx.gz for gzip).
        #[arg(short, long, value_name = "FILE")]
        output: PathBuf,
        /// Young's modulus (elasticity3d).
        #[arg(long, default_value_t = 1.0, value_name = "E")]
        young: f64,
        /// Poisson's ratio (elasticity3d), in (-1, 0.5).
        #[arg(long, default_value_t = 0.3, value_name = "NU")]
        poisson_ratio: f64,
        /// Apply a random symmetric node permutation with this seed.
        #[arg(long, value_name = "SEED")]
        permute: Option<u64>,
    },
}

#[derive(Subcommand, Debug)]
enum MachineCommand {
    /// Print a machine (bluewaters, or a JSON file) with its parameters;
    /// --json gives a file to edit and pass back with --machine FILE.json.
    Show {
        /// bluewaters or FILE.json.
        machine: String,
        #[arg(long)]
        json: bool,
    },
    /// Measure log3P's pack cost (l_mw: gathering a message from k runs,
    /// less a contiguous copy) on this computer over message sizes and run
    /// counts; prints MACHINE's JSON with params.pack_table filled in, for
    /// --machine. Run it on the machine the model stands for.
    CalibratePack {
        /// bluewaters or FILE.json: the parameters to keep.
        #[arg(default_value = "bluewaters")]
        machine: String,
        /// Size of the array gathered from: about a rank's local vector
        /// (small arrays stay in cache; the default is memory-resident).
        #[arg(long, default_value_t = 64 << 20, value_name = "BYTES")]
        source_bytes: usize,
    },
}

#[derive(Subcommand, Debug)]
enum ModelsCommand {
    /// Each model against the numbers its paper prints (parameter sets in
    /// machines/): the paper's value, amgcomm's and their relative
    /// difference.
    Reproduce {
        /// A JSON list of {"case", "paper", "amgcomm", "rel_diff", "note"}.
        #[arg(long)]
        json: bool,
    },
}

fn models_reproduce(json: bool) -> CmdResult {
    let cases = crate::model::reproduce::cases()?;
    if json {
        return emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&cases).expect("plain struct")
        ));
    }
    let width = cases.iter().map(|c| c.case.len()).max().unwrap_or(4);
    let mut s = format!(
        "{:<width$} {:>12} {:>12} {:>9}  note\n",
        "case", "paper", "amgcomm", "rel diff"
    );
    let num = |v: f64| {
        if v.abs() < 0.01 {
            format!("{v:.4e}")
        } else {
            format!("{v:.4}")
        }
    };
    for c in &cases {
        s += &format!(
            "{:<width$} {:>12} {:>12} {:>8.3}%  {}\n",
            c.case,
            num(c.paper),
            num(c.amgcomm),
            100.0 * c.rel_diff,
            c.note
        );
    }
    emit(&s)
}

fn calibrate_pack(spec: &str, source_bytes: usize) -> Result<(), CliError> {
    let mut m = crate::machine::Machine::named_or_file(spec).map_err(CliError::Usage)?;
    if !(1 << 10..=1 << 34).contains(&source_bytes) {
        return Err(CliError::Usage(format!(
            "--source-bytes {source_bytes}: choose between 1 KiB and 16 GiB"
        )));
    }
    m.params.pack_table = Some(crate::model::calibrate::pack_table(source_bytes));
    Ok(emit(&format!(
        "{}\n",
        serde_json::to_string_pretty(&m).expect("plain struct")
    ))?)
}

fn machine_show(spec: &str, json: bool) -> CmdResult {
    let m = crate::machine::Machine::named_or_file(spec)?;
    if json {
        return emit(&format!(
            "{}\n",
            serde_json::to_string_pretty(&m).expect("plain struct")
        ));
    }
    let p = &m.params;
    let mut s = format!(
        "{}: {} nodes x {} ppn ({} ranks), {} sockets per node, {} nodes per router, routers {:?}, {:?} placement\n",
        m.name,
        m.nodes,
        m.ppn,
        m.ranks(),
        m.sockets_per_node,
        m.nodes_per_router,
        m.router_box(),
        m.placement
    );
    s += &format!(
        "protocols: short < {} B <= eager < {} B <= rend\n{:<8} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}\n",
        p.eager_threshold, p.rendezvous_threshold, "", "short alpha", "short R_b", "eager alpha", "eager R_b", "rend alpha", "rend R_b"
    );
    for (name, r) in [
        ("socket", &p.socket),
        ("node", &p.node),
        ("network", &p.network),
    ] {
        s += &format!(
            "{name:<8} {:>12.1e} {:>12.1e} {:>12.1e} {:>12.1e} {:>12.1e} {:>12.1e}\n",
            r.short.alpha, r.short.rate, r.eager.alpha, r.eager.rate, r.rend.alpha, r.rend.rate
        );
    }
    s += &format!(
        "R_N = {:.1e} B/s (network rendezvous), gamma = {:.1e} s, delta = {:.1e} s\n",
        p.r_n, p.gamma, p.delta
    );
    s += &match &p.pack_table {
        Some(t) => format!(
            "pack: log3P table, {} sizes x {} runs ({})\n",
            t.bytes.len(),
            t.runs.len(),
            t.source
        ),
        None => format!(
            "pack: {:.1e} s per run, {:.1e} B/s\n",
            p.pack_per_run, p.pack_rate
        ),
    };
    s += &match &p.loggp {
        Some(g) => format!(
            "loggp: L = {:.1e} s, o_s = {:.1e} s, o_r = {:.1e} s, g = {:.1e} s, G = {:.1e} s/B\n",
            g.l, g.o_s, g.o_r, g.g, g.big_g
        ),
        None => {
            "loggp: per class from alpha and R_b (G = 1/R_b, o_s = L = o_r = g = alpha/3)\n".into()
        }
    };
    let c = p.copy_rates();
    s += &format!(
        "copy-transfer{} (B/s): 1C1 {:.2e}, wC1 {:.2e}, 1S0 {:.2e}, wS0 {:.2e}, 0D1 {:.2e}, Nd {}\n",
        if p.copy_transfer.is_some() { "" } else { " (derived)" },
        c.copy,
        c.copy_indexed,
        c.send,
        c.send_indexed,
        c.deposit,
        c.congestion
            .iter()
            .zip(&c.network_data)
            .map(|(k, r)| format!("{r:.2e} at congestion {k}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    emit(&s)
}

fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::parse(s).ok_or_else(|| format!("unknown kind (known: {})", kind_names()))
}

/// Run the command line; returns the process exit code.
pub fn run() -> i32 {
    install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return flag_error(e),
    };
    match dispatch(cli.command) {
        Ok(()) => 0,
        Err(CliError::Failure(msg)) => {
            eprintln!("amgcomm: {msg}");
            1
        }
        Err(CliError::Usage(msg)) => {
            eprintln!("amgcomm: {msg}");
            2
        }
    }
}

/// A run fails on its input or work (exit 1) or on how it was asked
/// (exit 2, like flag errors).
#[derive(Debug)]
pub(crate) enum CliError {
    Failure(String),
    Usage(String),
}

impl From<String> for CliError {
    fn from(msg: String) -> CliError {
        CliError::Failure(msg)
    }
}

/// clap's messages span several lines; keep the first paragraph on one.
fn flag_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let _ = e.print();
        return 0;
    }
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = e.print();
        return 2;
    }
    let text = e.render().to_string();
    let first: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    let mut line = first.join(" ");
    if let Some(tip) = text.lines().map(str::trim).find(|l| l.starts_with("tip:")) {
        line = format!("{line}; {tip}");
    }
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    eprintln!("amgcomm: {line} (see amgcomm --help)");
    2
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("amgcomm: internal error{place}: {msg} (please report this)");
    }));
}

type CmdResult = Result<(), String>;

fn dispatch(command: Command) -> Result<(), CliError> {
    match command {
        Command::Info {
            input,
            json,
            permute,
            spy,
        } => Ok(info(&input, json, permute, spy.as_deref())?),
        Command::Hierarchy(args) => Ok(hierarchy::run(&args)?),
        Command::Analyze(args) => analyze::run(&args),
        Command::Partition(args) => partition::run(&args),
        Command::Compare(args) => compare::run(&args),
        Command::Machine(MachineCommand::Show { machine, json }) => {
            Ok(machine_show(&machine, json)?)
        }
        Command::Machine(MachineCommand::CalibratePack {
            machine,
            source_bytes,
        }) => calibrate_pack(&machine, source_bytes),
        Command::Models(ModelsCommand::Reproduce { json }) => Ok(models_reproduce(json)?),
        Command::Generate {
            kind,
            n,
            output,
            young,
            poisson_ratio,
            permute,
        } => {
            let problem = Problem {
                kind,
                n,
                young,
                poisson_ratio,
            };
            Ok(generate(&problem, &output, permute)?)
        }
    }
}

/// Write to stdout; a closed pipe (`amgcomm info ... | head`) is not an error.
pub(crate) fn emit(text: &str) -> CmdResult {
    match io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write to stdout: {e}"))
        }
        _ => Ok(()),
    }
}

fn info(input: &str, json: bool, permute: Option<u64>, spy: Option<&Path>) -> CmdResult {
    if let Some(path) = spy {
        ChartFormat::of(path).map_err(|e| format!("--spy {e}"))?;
    }
    let start = Instant::now();
    let source = Source::parse(input).map_err(|e| e.to_string())?;
    let m = source.load(permute).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = spy {
        report::spy::draw(path, &m)?;
    }
    let info = m.info();
    if json {
        let text = serde_json::to_string_pretty(&info).expect("plain struct serialises");
        return emit(&format!("{text}\n"));
    }
    let per_row = if info.rows > 0 {
        info.nnz as f64 / info.rows as f64
    } else {
        0.0
    };
    emit(&format!(
        "matrix    {}\nsize      {} x {}\nnnz       {} ({per_row:.1} per row)\nfield     {}\nsymmetry  {}\nloaded in {seconds:.3} s\n",
        m.name,
        info.rows,
        info.cols,
        info.nnz,
        info.field.as_str(),
        info.symmetry.as_str(),
    ))
}

fn generate(problem: &Problem, output: &Path, permute: Option<u64>) -> CmdResult {
    let start = Instant::now();
    let m = Source::Gen(problem.clone())
        .load(permute)
        .map_err(|e| e.to_string())?;
    // Generators are symmetric by construction (their tests check it); a
    // symmetric file stores the lower triangle only.
    let symmetry = m.symmetry;
    debug_assert!(symmetry != Symmetry::Symmetric || csr::is_symmetric(&m.csr));
    let comment = format!(
        "{} written by amgcomm {}",
        m.name,
        env!("CARGO_PKG_VERSION")
    );
    mtx_write::write(output, &m.csr, symmetry, &comment)
        .map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    emit(&format!(
        "wrote {}: {} x {}, {} nonzeros, {} ({:.2} s)\n",
        output.display(),
        m.csr.rows(),
        m.csr.cols(),
        m.csr.nnz(),
        symmetry.as_str(),
        start.elapsed().as_secs_f64()
    ))
}

/// A spinner on stderr with the current step; silent when stderr is not a
/// terminal (indicatif's default).
pub(crate) struct Progress(indicatif::ProgressBar);

impl Progress {
    pub(crate) fn new() -> Progress {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(bar)
    }

    pub(crate) fn say(&self, msg: String) {
        self.0.set_message(msg);
    }

    pub(crate) fn done(&self) {
        self.0.finish_and_clear();
    }
}
