//! `--partition mfem` in parts (issue 19): MFEM's partition of
//! `gen:beam:R` into `RANKS` (METIS k-way over the serially refined
//! elements, then node owners and the new numbering), the matrix's
//! assembly beside it, and its renumbering.
//! `cargo run --release --example mfem_bench -- [R] [RANKS]` (default 5,
//! 8192). Used by `scripts/bench.sh paper`.
use std::time::Instant;

use amgcomm::matrix::{elasticity, mesh::HexMesh, permute};
use amgcomm::partition::mfem;

fn main() {
    let mut args = std::env::args().skip(1);
    let r: u32 = args.next().map_or(5, |a| a.parse().expect("R"));
    let ranks: usize = args.next().map_or(8192, |a| a.parse().expect("RANKS"));
    let mesh = HexMesh::beam(r);
    let t = Instant::now();
    let p = mfem::partition(&mesh, ranks, None).expect("a partition");
    let part = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let a = elasticity::assemble_beam(r);
    let assemble = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let b = permute::permute_symmetric(&a, 3, &p.new_of_old);
    let renumber = t.elapsed().as_secs_f64();
    println!(
        "beam R={r} into {ranks} ranks: mfem partition ({} serial refinements, {} elements) {part:.3} s; assembly ({} rows, {} nonzeros) {assemble:.3} s; renumbering {renumber:.3} s",
        p.serial_refinements,
        p.element_part.len(),
        b.rows(),
        b.nnz()
    );
}
