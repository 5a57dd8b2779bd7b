//! Extraction and model timings (issue 8's scaling with ranks):
//! `cargo run --release --example extract_bench -- LEVELS_DIR NODES [PPN]`
//! on levels saved by `amgcomm hierarchy --save-levels`.
use amgcomm::{amg, analysis, machine::Machine, partition};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let h = amg::levels_io::load_levels(std::path::Path::new(&args[1])).expect("levels");
    let mut m = Machine::bluewaters();
    m.nodes = args[2].parse().expect("nodes");
    m.ppn = args.get(3).map_or(16, |p| p.parse().expect("ppn"));
    let fine = partition::Partition::contiguous(h.levels[0].a.rows(), m.ranks());
    let layout = partition::Layout::new(&h, fine, partition::CoarseRule::Inherit);
    let cpu0 = cpu_seconds();
    let t = Instant::now();
    let a = analysis::analyze(&h, &layout, &m, &analysis::Options::default()).expect("layout");
    let wall = t.elapsed().as_secs_f64();
    let (t_extract, t_model) = (a.seconds.extraction, a.seconds.model);
    let ops = a.levels.iter().flat_map(|l| &l.ops);
    let total_cost: f64 = ops.clone().map(|o| o.cost.total).sum();
    let msgs: u64 = ops.map(|o| o.summary.messages.total).sum();
    let cpu = cpu_seconds() - cpu0;
    println!(
        "{} ranks, {msgs} messages: extraction {t_extract:.3} s, model {t_model:.3} s, \
         total {wall:.3} s, {cpu:.2} s of CPU (cost sum {total_cost:.6e})",
        m.ranks()
    );
}

/// User and system time of this process so far (`/proc/self/stat`, in
/// clock ticks of 10 ms): steal time on a shared machine is not in it.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<f64> = after
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    f.get(11)
        .zip(f.get(12))
        .map_or(0.0, |(u, s)| (u + s) / 100.0)
}
