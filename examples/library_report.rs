//! `amgcomm analyze`'s report.json from a library call: a hypre IJ input
//! written by 4 ranks, and MFEM's partition of the beam with RAPtor's
//! 2018 settings (the goldens `hypre_ij` and `beam_mfem_raptor_2018`).
//!
//! cargo run --release --example library_report

use amgcomm::amg::Preset;
use amgcomm::analysis::{Input, Request};
use amgcomm::machine::Machine;
use amgcomm::partition::{methods::Method, Fine};
use amgcomm::report::json::Report;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let on = |nodes, ppn| Machine {
        nodes,
        ppn,
        ..Machine::bluewaters()
    };
    let matrix = |spec: &str| Input::Matrix {
        spec: spec.into(),
        permute: None,
    };
    // amgcomm analyze tests/data/hypre/A --nodes 2 --ppn 2
    let hypre = Request::new(matrix("tests/data/hypre/A"), on(2, 2));
    // amgcomm analyze gen:beam:2 --nodes 4 --ppn 4 --partition mfem --preset raptor-2018
    let mut beam = Request::new(matrix("gen:beam:2"), on(4, 4)).with_preset(Preset::Raptor2018);
    beam.partition = Some(Fine::Method(Method::Mfem));
    for request in [hypre, beam] {
        let run = request.run(request.check()?, &|_| {})?;
        println!("{}", Report::of_run(&run, &request).to_json());
    }
    Ok(())
}
