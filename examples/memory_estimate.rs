//! Prints amgcomm's memory estimates for a generator spec on a number of
//! ranks, for `scripts/bench.sh memory` to set beside measured peaks:
//! `generate` (the matrix), `setup` (the hierarchy), `analyze` (the run).
//!
//!     cargo run --release --example memory_estimate -- gen:poisson3d:150 1024

use amgcomm::matrix::source::Source;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(spec), Some(ranks)) = (args.next(), args.next()) else {
        eprintln!("usage: memory_estimate gen:KIND:N RANKS");
        std::process::exit(2);
    };
    let ranks: usize = ranks.parse().expect("RANKS is a number");
    let Ok(Source::Gen(p)) = Source::parse(&spec) else {
        eprintln!("{spec}: not a generator spec");
        std::process::exit(2);
    };
    let rows = p.kind.rows(p.n) as u64;
    let nnz = p.nnz_bound();
    println!(
        "{} {} {}",
        p.memory_bytes(),
        amgcomm::amg::setup_bytes(rows, nnz),
        amgcomm::analysis::memory_bytes(rows, nnz, ranks)
    );
}
