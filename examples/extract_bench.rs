//! Extraction timings per level and operation (issue 8 profiling):
//! `cargo run --release --example extract_bench -- LEVELS_DIR NODES [PPN]`.
use amgcomm::{amg, comm, machine::Machine, partition};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let h = amg::levels_io::load_levels(std::path::Path::new(&args[1])).expect("levels");
    let mut m = Machine::bluewaters();
    m.nodes = args[2].parse().expect("nodes");
    m.ppn = args.get(3).map_or(16, |p| p.parse().expect("ppn"));
    let fine = partition::Partition::contiguous(h.levels[0].a.rows(), m.ranks());
    let parts = partition::levels(&h, fine, partition::CoarseRule::Inherit);
    let total = Instant::now();
    for (l, level) in h.levels.iter().enumerate() {
        let t = Instant::now();
        let (spmv, spgemm) = comm::spmv_spgemm(&level.a, level.p.as_ref(), &parts[l], &m);
        let t_sg = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let ptap = level
            .p
            .as_ref()
            .map(|p| comm::ptap(&level.a, p, &parts[l], &parts[l + 1], &m));
        let t_ptap = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut msgs = spmv.messages.len();
        comm::summarize(&spmv, &m);
        for pat in spgemm.iter().chain(ptap.iter()) {
            comm::summarize(pat, &m);
            msgs += pat.messages.len();
        }
        let t_sum = t.elapsed().as_secs_f64();
        println!("level {l}: rows {} msgs {msgs}: spmv+spgemm {t_sg:.3} ptap {t_ptap:.3} summarize {t_sum:.3}", level.a.rows());
    }
    println!("total {:.3}", total.elapsed().as_secs_f64());
}
