//! Reading saved patterns back (issue 15's "millions of messages, in
//! seconds"): `cargo run --release --example pattern_bench -- DIR` reads
//! every `.amgpat` file of a `--save-patterns` folder and prints messages,
//! bytes on disk and seconds. Used by `scripts/bench.sh patterns`.
use std::time::Instant;

fn main() {
    let dir = std::env::args().nth(1).expect("usage: pattern_bench DIR");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("a folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "amgpat"))
        .collect();
    files.sort();
    let (mut messages, mut bytes) = (0usize, 0u64);
    let t = Instant::now();
    for f in &files {
        let p = amgcomm::comm::io::read(f).unwrap_or_else(|e| panic!("{e}"));
        messages += p.steps.iter().map(|(_, s)| s.messages.len()).sum::<usize>();
        bytes += std::fs::metadata(f).map_or(0, |m| m.len());
    }
    println!(
        "read {} files, {messages} messages, {:.1} MB in {:.3} s",
        files.len(),
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
}
