//! Times reading one Matrix Market file into CSR: amgcomm's parallel reader
//! against sprs's `read_matrix_market` (+ `to_csr`). Used by
//! `scripts/bench_read.sh`; prints `name seconds` lines (median of runs).

use std::time::Instant;

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 {
        eprintln!("usage: read_bench FILE [RUNS] [--sprs]");
        std::process::exit(2);
    }
    let path = std::path::Path::new(&args[1]);
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let with_sprs = args.iter().any(|a| a == "--sprs");

    let mut times = Vec::new();
    let mut nnz = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let m = amgcomm::matrix::io::read(path).unwrap_or_else(|e| panic!("{e}"));
        times.push(t.elapsed().as_secs_f64());
        nnz = m.csr.nnz();
    }
    println!("amgcomm {:.4} nnz={nnz}", median(times));

    if with_sprs {
        let t = Instant::now();
        let tri = sprs::io::read_matrix_market::<f64, usize, _>(path).expect("sprs reads the file");
        let csr: sprs::CsMat<f64> = tri.to_csr();
        println!("sprs {:.4} nnz={}", t.elapsed().as_secs_f64(), csr.nnz());
    }
}
