//! Transposing the levels' sparsity patterns: `sprs`'s `to_csc` against
//! `matrix::csr::transpose_pattern` (issue 8), side by side:
//! `cargo run --release --example sym_bench -- LEVELS_DIR`.
use amgcomm::{amg, matrix::csr};
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).expect("LEVELS_DIR");
    let h = amg::levels_io::load_levels(std::path::Path::new(&dir)).expect("levels");
    for round in 0..3 {
        let t = Instant::now();
        let mut nnz = 0;
        for l in &h.levels {
            nnz += l.a.to_csc().nnz();
        }
        let sprs = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let mut nnz2 = 0;
        for l in &h.levels {
            nnz2 += csr::transpose_pattern(&l.a).1.len();
        }
        let ours = t.elapsed().as_secs_f64();
        assert_eq!(nnz, nnz2);
        println!("round {round}: {nnz} nonzeros: sprs to_csc {sprs:.3} s, transpose_pattern {ours:.3} s, ratio {:.1}", sprs / ours);
    }
}
