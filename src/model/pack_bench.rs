//! Measure log3P's `l_mw` on this machine (Cameron, Ge and Sun 2007 build
//! their tables from measurements): the extra time to gather a message
//! of `s` bytes from `k` runs of a source array over copying `s`
//! contiguous bytes. The result is a [`PackTable`] for a machine file's
//! `params.pack_table`.

use std::time::Instant;

use crate::machine::PackTable;

/// Message sizes (bytes) of the table.
pub const SIZES: [f64; 7] = [64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0];
/// Run counts of the table.
pub const RUNS: [f64; 7] = [2.0, 8.0, 32.0, 128.0, 512.0, 2048.0, 8192.0];

/// `(start, len)` in 8-byte words of `runs` runs that total `words`,
/// starting at pseudo-random places of a `source`-word array, each run
/// at least one word away from the next so that no two join.
pub(crate) fn gather_runs(
    words: usize,
    runs: usize,
    source: usize,
    seed: u64,
) -> Vec<(usize, usize)> {
    let runs = runs.clamp(1, words);
    let mut x = seed | 1;
    let mut next = move || {
        // xorshift64
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // Runs sit in `runs` equal slots of the source, one per slot, so they
    // never touch; within its slot a run starts anywhere it fits.
    let slot = source / runs;
    (0..runs)
        .map(|i| {
            let len = words / runs + usize::from(i < words % runs);
            let room = slot.saturating_sub(len + 1);
            (i * slot + (next() as usize) % room.max(1), len)
        })
        .collect()
}

/// Runs over all gathers of one kind: each gather takes its own places of
/// the source, about a million runs in all, so that the source array's
/// size (not one gather's) decides what the caches hold.
const TOTAL_RUNS: usize = 1 << 20;

/// Seconds per gather of `words` from `runs` runs into `out`: the best of
/// five batches, each repeated until it takes about a millisecond.
fn time_gather(source: &[f64], words: usize, runs: usize, seed: u64, out: &mut [f64]) -> f64 {
    let sets: Vec<Vec<(usize, usize)>> = (0..(TOTAL_RUNS / runs.min(words)).max(1) as u64)
        .map(|i| gather_runs(words, runs, source.len(), seed + i * 0x9E37_79B9))
        .collect();
    let mut next = 0;
    let mut gather = |out: &mut [f64]| {
        let mut at = 0;
        for &(start, len) in &sets[next] {
            out[at..at + len].copy_from_slice(&source[start..start + len]);
            at += len;
        }
        next = (next + 1) % sets.len();
    };
    let mut reps = 1usize;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            gather(std::hint::black_box(&mut *out));
        }
        if t.elapsed().as_secs_f64() > 1e-3 || reps > 1 << 24 {
            break;
        }
        reps *= 4;
    }
    (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                gather(std::hint::black_box(&mut *out));
            }
            t.elapsed().as_secs_f64() / reps as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// The table over [`SIZES`] and [`RUNS`] from a source array of
/// `source_bytes`; run counts above a size's words are measured at one
/// word per run.
pub fn pack_table(source_bytes: usize) -> PackTable {
    let words = (source_bytes / 8).max(2 * SIZES[SIZES.len() - 1] as usize / 8);
    let source: Vec<f64> = (0..words).map(|i| i as f64).collect();
    let mut out = vec![0.0f64; SIZES[SIZES.len() - 1] as usize / 8];
    let seconds = SIZES
        .iter()
        .map(|&s| {
            let w = s as usize / 8;
            let out = &mut out[..w];
            let contiguous = time_gather(&source, w, 1, 1, out);
            RUNS.iter()
                .enumerate()
                .map(|(i, &k)| {
                    (time_gather(&source, w, k as usize, 7 + i as u64, out) - contiguous).max(0.0)
                })
                .collect()
        })
        .collect();
    PackTable {
        bytes: SIZES.to_vec(),
        runs: RUNS.to_vec(),
        seconds,
        source: format!(
            "measured by amgcomm machine calibrate-pack: gathers from a {source_bytes}-byte array, less a contiguous copy"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_runs_are_disjoint_and_cover_the_message() {
        for (words, runs) in [(8, 2), (100, 7), (512, 512), (32, 1000), (1, 1)] {
            let r = gather_runs(words, runs, 1 << 16, 3);
            assert_eq!(r.len(), runs.min(words));
            assert_eq!(r.iter().map(|x| x.1).sum::<usize>(), words);
            // Sorted, in range, and a gap before the next run: k runs.
            for w in r.windows(2) {
                assert!(w[0].0 + w[0].1 < w[1].0, "{w:?}");
            }
            let last = r[r.len() - 1];
            assert!(last.0 + last.1 <= 1 << 16);
        }
    }
}
