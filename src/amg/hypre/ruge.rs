//! `hypre_BoomerAMGCoarsenRuge` with coarsen type 10 (par_coarsen.c):
//! the Ruge-Stueben first pass on each rank alone, HMIS's first half.

use super::parcsr::{prefetch, Pattern};
use super::strength::LocalS;
use super::{C_PT, F_PT, SF_PT, UNDECIDED, Z_PT};

/// One point's state in the first pass, side by side (20 bytes): the
/// pass visits points far apart in the grid (a 3D front), and with each
/// field in its own array a visit took five cache lines.
#[derive(Clone, Copy)]
struct Point {
    measure: u32,
    next: u32,
    prev: u32,
    /// Where the point's row of `S^T` starts (its low 32 bits): only a
    /// hint of where to prefetch, never read as an index.
    st: u32,
    cf: i8,
    listed: bool,
}

/// The buckets of `CoarsenRuge`'s "list of lists": one FIFO list per
/// measure (points enter at the tail, the head of the largest measure's
/// list is taken first), kept as doubly linked arrays in the points.
struct Buckets<'s> {
    /// `S^T`, where [`Point::st`] points.
    st: &'s Pattern,
    head: Vec<u32>,
    tail: Vec<u32>,
    pts: Vec<Point>,
    top: usize,
}

const NONE: u32 = u32::MAX;

impl Buckets<'_> {
    fn enter(&mut self, i: usize) {
        let measure = self.pts[i].measure as usize;
        if measure >= self.head.len() {
            self.head.resize(measure + 1, NONE);
            self.tail.resize(measure + 1, NONE);
        }
        let t = self.tail[measure];
        let p = &mut self.pts[i];
        p.prev = t;
        p.next = NONE;
        p.listed = true;
        if t == NONE {
            // The head of a list at the top or above: likely the next C
            // point, whose row of S^T is then read (that read's cache miss
            // had two thirds of the pass's samples, 100^3 Laplacian).
            if measure >= self.top {
                prefetch(&self.st.indptr[i]);
                if let Some(x) = self.st.indices.get(self.pts[i].st as usize) {
                    prefetch(x);
                }
            }
            self.head[measure] = i as u32;
        } else {
            self.pts[t as usize].next = i as u32;
        }
        self.tail[measure] = i as u32;
        self.top = self.top.max(measure);
    }

    /// hypre_remove_point, from the list of the point's measure; a point
    /// on no list is left alone (hypre reports "No such list!" and goes
    /// on).
    fn remove(&mut self, i: usize) {
        let Point {
            measure,
            next: n,
            prev: p,
            listed,
            ..
        } = self.pts[i];
        let measure = measure as usize;
        if !listed || measure >= self.head.len() {
            return;
        }
        if p == NONE {
            self.head[measure] = n;
        } else {
            self.pts[p as usize].next = n;
        }
        if n == NONE {
            self.tail[measure] = p;
        } else {
            self.pts[n as usize].prev = p;
        }
        self.pts[i].listed = false;
    }

    /// The head of the largest measure's list.
    fn first(&mut self) -> Option<usize> {
        loop {
            if let Some(&h) = self.head.get(self.top) {
                if h != NONE {
                    return Some(h as usize);
                }
            }
            if self.top == 0 {
                return None;
            }
            self.top -= 1;
        }
    }

    /// An undecided point gains measure (moves to the next list's tail).
    fn bump(&mut self, k: usize) {
        if self.pts[k].cf == UNDECIDED {
            self.remove(k);
            self.pts[k].measure += 1;
            self.enter(k);
        }
    }

    /// Point `i` becomes an F point, and each undecided point it depends
    /// on (`sd.row(i)`) gains measure.
    fn make_f(&mut self, i: usize, sd: &Pattern) {
        self.pts[i].cf = F_PT;
        for &k in sd.row(i) {
            self.bump(k as usize);
        }
    }
}

/// The first pass on one rank: measures `|S^T_i|` of the rank's own
/// block (`S_diag` transposed), points with no strong connection at all
/// (diag or offd) `SF_PT`, points of measure 0 `Z_PT` for PMIS.
pub(crate) fn first_pass(s: &LocalS) -> Vec<i8> {
    let sd = &s.diag;
    let n = sd.rows();
    let st = sd.transpose(n);
    let point = |i: usize| Point {
        measure: st.len(i) as u32,
        st: st.indptr[i] as u32,
        next: NONE,
        prev: NONE,
        cf: UNDECIDED,
        listed: false,
    };
    let mut b = Buckets {
        st: &st,
        head: Vec::new(),
        tail: Vec::new(),
        pts: (0..n).map(point).collect(),
        top: 0,
    };
    let mut num_left = 0usize;
    for j in 0..n {
        if s.len(j) == 0 {
            b.pts[j].cf = SF_PT;
            b.pts[j].measure = 0;
        } else {
            num_left += 1;
        }
    }
    for j in 0..n {
        if b.pts[j].cf == SF_PT {
            continue;
        }
        if b.pts[j].measure > 0 {
            b.enter(j);
            continue;
        }
        b.pts[j].cf = Z_PT;
        for &k in sd.row(j) {
            let k = k as usize;
            if b.pts[k].cf == SF_PT {
                continue;
            }
            if k < j {
                if b.pts[k].measure > 0 {
                    b.remove(k);
                }
                b.pts[k].measure += 1;
                b.enter(k);
            } else {
                b.pts[k].measure += 1;
            }
        }
        num_left -= 1;
    }
    // The head of the largest measure's list becomes a C point, the
    // undecided points that depend on it F points; its undecided
    // dependencies lose measure (an F point at 0).
    while num_left > 0 {
        let Some(index) = b.first() else { break };
        b.remove(index);
        b.pts[index].cf = C_PT;
        b.pts[index].measure = 0;
        num_left -= 1;
        for &nabor in st.row(index) {
            let nabor = nabor as usize;
            if b.pts[nabor].cf == UNDECIDED {
                b.remove(nabor);
                num_left = num_left.saturating_sub(1);
                b.make_f(nabor, sd);
            }
        }
        for &nabor in sd.row(index) {
            let nabor = nabor as usize;
            if b.pts[nabor].cf != UNDECIDED {
                continue;
            }
            b.remove(nabor);
            let m = b.pts[nabor].measure.saturating_sub(1);
            b.pts[nabor].measure = m;
            if m > 0 {
                b.enter(nabor);
            } else {
                num_left = num_left.saturating_sub(1);
                b.make_f(nabor, sd);
            }
        }
    }
    b.pts.iter().map(|p| p.cf).collect()
}
