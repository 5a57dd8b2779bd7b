//! The C library's `srand`/`rand` as glibc implements them (the
//! additive feedback generator `r_i = r_{i-3} + r_{i-31}`, "TYPE_3"),
//! bit for bit. RAPtor 2018 draws its PMIS/HMIS weights with it:
//! `srand(2448422 + first_local_row); w_i = rand() / RAND_MAX`
//! (`raptor/multilevel/par_multilevel.hpp`, `form_rand_weights`), so the
//! same numbers reproduce its coarsening on Linux.

/// glibc's `RAND_MAX`.
pub const RAND_MAX: u32 = 2_147_483_647;

/// A `rand()` stream after `srand(seed)`.
#[derive(Clone, Debug)]
pub struct GlibcRand {
    r: [u32; 34],
    /// Position of the next output in the ring (`r[k % 34]` is `r_k`).
    k: usize,
}

impl GlibcRand {
    /// `srand(seed)`: the seed spread by `16807 x mod (2^31 - 1)` into 31
    /// words, then 310 outputs discarded, as glibc's `srandom_r` does.
    pub fn new(seed: u32) -> GlibcRand {
        let mut init = [0i64; 344];
        init[0] = i64::from(if seed == 0 { 1 } else { seed as i32 });
        for i in 1..31 {
            // 16807 * r mod (2^31 - 1) by Schrage's method, as glibc.
            let hi = init[i - 1] / 127_773;
            let lo = init[i - 1] % 127_773;
            let mut w = 16_807 * lo - 2_836 * hi;
            if w < 0 {
                w += 2_147_483_647;
            }
            init[i] = w;
        }
        let mut r = [0u32; 34];
        let mut all = vec![0u32; 344];
        for i in 0..31 {
            all[i] = init[i] as u32;
        }
        for i in 31..34 {
            all[i] = all[i - 31];
        }
        for i in 34..344 {
            all[i] = all[i - 31].wrapping_add(all[i - 3]);
        }
        for i in 0..34 {
            r[(310 + i) % 34] = all[310 + i];
        }
        GlibcRand { r, k: 344 }
    }

    /// `rand()`: in `[0, RAND_MAX]`.
    pub fn next_u31(&mut self) -> u32 {
        let k = self.k;
        let v = self.r[(k - 31) % 34].wrapping_add(self.r[(k - 3) % 34]);
        self.r[k % 34] = v;
        self.k += 1;
        v >> 1
    }

    /// `(double) rand() / RAND_MAX`, in `[0, 1]`.
    pub fn next_unit(&mut self) -> f64 {
        f64::from(self.next_u31()) / f64::from(RAND_MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_glibc() {
        // Printed by a C program compiled with gcc on Debian 12 (glibc 2.36).
        let mut g = GlibcRand::new(1);
        assert_eq!(
            [g.next_u31(), g.next_u31(), g.next_u31()],
            [1_804_289_383, 846_930_886, 1_681_692_777]
        );
        let mut g = GlibcRand::new(2_448_422 + 4096);
        assert_eq!(
            [g.next_u31(), g.next_u31(), g.next_u31()],
            [1_441_662_866, 1_329_485_037, 2_069_214_499]
        );
        let mut g = GlibcRand::new(2_448_422);
        let last = (0..1000).map(|_| g.next_u31()).last().unwrap();
        assert_eq!(last, 1_321_325_700);
        assert!((0.0..=1.0).contains(&GlibcRand::new(7).next_unit()));
    }
}
