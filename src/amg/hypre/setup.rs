//! The levels as `hypre_BoomerAMGSetup` (par_amg_setup.c) builds them on
//! the ranks' row blocks, for HMIS and extended+i.

use rayon::prelude::*;

use super::interp::{self, Splitting};
use super::parcsr::ParCsr;
use super::{pmis, rap, ruge, strength};
use crate::amg::raw::RawCsr;
use crate::amg::{BuildError, Hierarchy, Level, LevelMatrix, Options, SetupTimes, Step, Stopwatch};

/// Hands the heap's free pages back to the system: glibc keeps what the
/// ranks' many small blocks of level 0 freed, while the coarse levels'
/// large arrays are new blocks that cannot reuse it (2.8 GB peak without
/// it on the paper-scale case, 2.6 GB with it). Called once, after the
/// finest level, whose blocks are the largest the setup frees: a coarse
/// level's freed blocks are reused by the levels after it, and handing
/// them back only has them faulted in again (on 2 ranks of the 100^3
/// Laplacian 239,000 page faults against 258,000; the paper-scale peak
/// unchanged).
fn release_free_memory() {
    // SAFETY: malloc_trim only returns free heap pages to the system.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The hierarchy BoomerAMG sets up for `a` on ranks owning the row
/// blocks `blocks` (rank `r`: rows `blocks[r]..blocks[r + 1]`): each
/// level's strength (hypre's signed rule, or the chosen one in stored
/// order), HMIS, extended+i, truncation and `P^T A P`, each rank's coarse
/// rows its own C points in order. Level 0 is always coarsened; the setup
/// stops when a splitting leaves no C point or no F point, at
/// `max_levels`, or once a coarse level has at most `max_coarse` rows.
/// `nf > 1` is hypre's unknown approach (`num_functions`): row `i` of
/// level 0 is function `i % nf`, a coarse row its C point's.
pub(crate) fn build(
    a: RawCsr,
    blocks: &[usize],
    o: &Options,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Hierarchy, BuildError> {
    build_from(a, blocks, o, false, progress)
}

/// [`build`], with CLJP from level 0 on when `cljp` (hypre's coarsen type
/// 0); HMIS (type 10) switches to it after a level that kept three
/// quarters of its rows, as hypre does.
pub(crate) fn build_from(
    a: RawCsr,
    blocks: &[usize],
    o: &Options,
    mut cljp: bool,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Hierarchy, BuildError> {
    let nf = o.strength.num_functions;
    let mut dof: Option<Vec<u8>> = (nf > 1).then(|| (0..a.nrows).map(|i| (i % nf) as u8).collect());
    let mut levels = Vec::new();
    let mut times = SetupTimes::default();
    let mut clock = Stopwatch::start();
    // Level 0 whole is the input when the split copied it and its rows
    // are sorted: kept, and its blocks freed once read.
    let (mut current, mut input) = ParCsr::split_owned(a, blocks);
    // Level 0's blocks: amgcomm's own work, counted with the gathers.
    times.add(0, Step::Gather, clock.split());
    // The current level's operator, as the hierarchy keeps it.
    let mut kept = |m: ParCsr| match input.take() {
        Some(a) => a.into(),
        None => LevelMatrix::of_blocks(m),
    };
    loop {
        let rows = current.global_rows();
        progress(levels.len(), rows);
        let coarsest =
            levels.len() + 1 >= o.max_levels || (!levels.is_empty() && rows <= o.max_coarse);
        if coarsest {
            clock.split();
            levels.push(Level::coarsest_of(kept(current)));
            times.add(levels.len() - 1, Step::Gather, clock.split());
            break;
        }
        clock.split();
        let comms = current.comms();
        let s = strength::of(&current, &o.strength, dof.as_deref());
        times.add(levels.len(), Step::Strength, clock.split());
        let cf = if cljp {
            super::cljp::cljp(&s, &comms, &current.rows)
        } else {
            let first: Vec<Vec<i8>> = s.par_iter().map(ruge::first_pass).collect();
            pmis::pmis(&s, &comms, Some(first))
        };
        times.add(levels.len(), Step::Coarsening, clock.split());
        // Each rank's C points, numbered on it.
        let mut coarse = vec![0usize; cf.len() + 1];
        for (r, c) in cf.iter().enumerate() {
            coarse[r + 1] = coarse[r] + c.iter().filter(|&&x| x == super::C_PT).count();
        }
        let total = coarse[cf.len()];
        if total == 0 || total == rows {
            clock.split();
            levels.push(Level::coarsest_of(kept(current)));
            times.add(levels.len() - 1, Step::Gather, clock.split());
            break;
        }
        // Every point's marker and global coarse index, by global index.
        let cf_all: Vec<i8> = cf.concat();
        let coarse_of = interp::coarse_index(&cf_all);
        let sp = Splitting {
            cf: &cf_all,
            coarse_of: &coarse_of,
            coarse: &coarse,
        };
        let p_ranks = interp::ext_pi(
            &current,
            &s,
            &sp,
            dof.as_deref(),
            o.trunc_factor,
            o.p_max_elmts,
        );
        drop(s);
        let p = ParCsr {
            rows: current.rows.clone(),
            cols: coarse.clone(),
            ranks: p_ranks,
        };
        times.add(levels.len(), Step::Interpolation, clock.split());
        let p_comms = p.comms();
        let next = rap::rap(&current, &p, &p_comms);
        times.add(levels.len(), Step::Rap, clock.split());
        let coarse_points: Vec<u32> = (cf.iter().enumerate())
            .flat_map(|(r, c)| {
                let first = current.rows[r];
                (c.iter().enumerate())
                    .filter(|&(_, &x)| x == super::C_PT)
                    .map(move |(i, _)| (first + i) as u32)
            })
            .collect();
        if let Some(d) = &dof {
            dof = Some(coarse_points.iter().map(|&i| d[i as usize]).collect());
        }
        // hypre's `coarse_size >= (HYPRE_BigInt) (.75 * fine_size)`.
        cljp |= total >= (rows as f64 * 0.75) as usize;
        clock.split();
        levels.push(Level {
            a: kept(std::mem::replace(&mut current, next)),
            p: Some(LevelMatrix::of_blocks(p)),
            coarse_points,
        });
        if levels.len() == 1 {
            release_free_memory();
        }
        times.add(levels.len() - 1, Step::Gather, clock.split());
    }
    Ok(Hierarchy {
        levels,
        setup_times: times,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::amg::Preset;

    /// `(rows, nnz)` per level of hypre's setup on `ranks` even blocks,
    /// CLJP from level 0 on when `cljp`.
    pub(crate) fn levels(
        a: &crate::matrix::Csr,
        nf: usize,
        ranks: usize,
        cljp: bool,
    ) -> Vec<(usize, usize)> {
        let n = a.rows();
        let blocks: Vec<usize> = (0..=ranks)
            .map(|r| r * (n / ranks) + r.min(n % ranks))
            .collect();
        let mut o = Preset::Hypre.options();
        o.strength.num_functions = nf;
        let h = build_from(RawCsr::from_csr(a), &blocks, &o, cljp, &mut |_, _| {}).unwrap();
        h.levels.iter().map(|l| (l.a.rows(), l.a.nnz())).collect()
    }

    /// hypre's CLJP (`HYPRE_BoomerAMGSetCoarsenType(0)`: the coarsening its
    /// setup switches to after a level that kept three quarters of its
    /// rows), recorded by `scripts/record_hypre_ranks.sh` in
    /// `tests/data/hypre/boomeramg_cljp.csv`: the same levels on 1 to 8
    /// ranks.
    #[test]
    fn cljp_builds_hypres_levels() {
        let table = std::fs::read_to_string("tests/data/hypre/boomeramg_cljp.csv").unwrap();
        let mut runs: std::collections::BTreeMap<(String, usize, usize), Vec<(usize, usize)>> =
            Default::default();
        for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            let key = (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            );
            runs.entry(key)
                .or_default()
                .push((f[5].parse().unwrap(), f[6].parse().unwrap()));
        }
        assert!(runs.len() >= 4);
        for ((spec, nf, ranks), hypre) in runs {
            let source = crate::matrix::source::Source::parse(&spec).unwrap();
            let m = source.load(None).unwrap();
            assert_eq!(
                levels(&m.csr, nf, ranks, true),
                hypre,
                "{spec} on {ranks} ranks"
            );
        }
    }
}
