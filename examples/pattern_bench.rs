//! Reading saved patterns back (issue 15's "millions of messages, in
//! seconds") and a replaying rank's part of them (issue 18: no rank loads
//! the whole pattern): `cargo run --release --example pattern_bench --
//! DIR` reads every `.amgpat` file of a `--save-patterns` folder whole,
//! then, for 64 ranks spread over the layout, only each rank's own
//! records (`PatternIndex::sent_by`, as `amgcomm replay` does), and prints
//! messages, bytes and seconds of both. Used by `scripts/bench.sh
//! patterns`.
use std::time::Instant;

use amgcomm::comm::pattern_file;
use amgcomm::measure::replay::RankPart;

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
        let p = pattern_file::read(f).unwrap_or_else(|e| panic!("{e}"));
        messages += p.steps.iter().map(|(_, s)| s.messages.len()).sum::<usize>();
        bytes += std::fs::metadata(f).map_or(0, |m| m.len());
    }
    println!(
        "read {} files whole: {messages} messages, {:.1} MB in {:.3} s",
        files.len(),
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    // A replaying rank: the headers, then its own records of every file.
    let index: Vec<pattern_file::PatternIndex> = files
        .iter()
        .map(|f| pattern_file::open(f).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let ranks = index[0].ranks();
    let sample: Vec<u32> = (0..64).map(|k| (k * ranks / 64) as u32).collect();
    let t = Instant::now();
    let (mut most, mut held) = (0u64, 0u64);
    for &r in &sample {
        let parts: Vec<RankPart> = index
            .iter()
            .map(|f| RankPart::read(f, r).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let m: u64 = parts.iter().map(|p| p.messages()).sum();
        most = most.max(m);
        held += m;
    }
    let per_rank = t.elapsed().as_secs_f64() / sample.len() as f64;
    println!(
        "one rank's part of all {} files ({} ranks, 64 sampled): {:.2} ms per rank, at most {most} messages ({:.1} KB as 12-byte (to, bytes) pairs; mean {:.0} messages), against {messages} in the files",
        files.len(),
        ranks,
        per_rank * 1e3,
        most as f64 * 12.0 / 1e3,
        held as f64 / sample.len() as f64
    );
}
