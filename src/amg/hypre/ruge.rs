//! `hypre_BoomerAMGCoarsenRuge` with coarsen type 10 (par_coarsen.c):
//! the Ruge-Stueben first pass on each rank alone, HMIS's first half.

use super::strength::LocalS;
use super::{C_PT, F_PT, SF_PT, UNDECIDED, Z_PT};

/// The buckets of `CoarsenRuge`'s "list of lists": one FIFO list per
/// measure (points enter at the tail, the head of the largest measure's
/// list is taken first), kept as doubly linked arrays.
struct Buckets {
    head: Vec<u32>,
    tail: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    listed: Vec<bool>,
    top: usize,
}

const NONE: u32 = u32::MAX;

impl Buckets {
    fn new(n: usize) -> Buckets {
        Buckets {
            head: Vec::new(),
            tail: Vec::new(),
            next: vec![NONE; n],
            prev: vec![NONE; n],
            listed: vec![false; n],
            top: 0,
        }
    }

    fn enter(&mut self, measure: usize, i: usize) {
        if measure >= self.head.len() {
            self.head.resize(measure + 1, NONE);
            self.tail.resize(measure + 1, NONE);
        }
        let t = self.tail[measure];
        self.prev[i] = t;
        self.next[i] = NONE;
        if t == NONE {
            self.head[measure] = i as u32;
        } else {
            self.next[t as usize] = i as u32;
        }
        self.tail[measure] = i as u32;
        self.listed[i] = true;
        self.top = self.top.max(measure);
    }

    /// hypre_remove_point; a point on no list is left alone (hypre reports
    /// "No such list!" and goes on).
    fn remove(&mut self, measure: usize, i: usize) {
        if !self.listed[i] || measure >= self.head.len() {
            return;
        }
        let (p, n) = (self.prev[i], self.next[i]);
        if p == NONE {
            self.head[measure] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail[measure] = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.listed[i] = false;
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
}

/// The first pass on one rank: measures `|S^T_i|` of the rank's own
/// block (`S_diag` transposed), points with no strong connection at all
/// (diag or offd) `SF_PT`, points of measure 0 `Z_PT` for PMIS.
pub(crate) fn first_pass(s: &LocalS) -> Vec<i8> {
    let sd = &s.diag;
    let n = sd.rows();
    let st = sd.transpose(n);
    let mut measure: Vec<usize> = (0..n).map(|i| st.len(i)).collect();
    let mut cf = vec![UNDECIDED; n];
    let mut num_left = 0usize;
    for j in 0..n {
        if s.len(j) == 0 {
            cf[j] = SF_PT;
            measure[j] = 0;
        } else {
            num_left += 1;
        }
    }
    let mut lists = Buckets::new(n);
    for j in 0..n {
        if cf[j] == SF_PT {
            continue;
        }
        if measure[j] > 0 {
            lists.enter(measure[j], j);
            continue;
        }
        cf[j] = Z_PT;
        for &k in sd.row(j) {
            let k = k as usize;
            if cf[k] == SF_PT {
                continue;
            }
            if k < j {
                if measure[k] > 0 {
                    lists.remove(measure[k], k);
                }
                measure[k] += 1;
                lists.enter(measure[k], k);
            } else {
                measure[k] += 1;
            }
        }
        num_left -= 1;
    }
    // A point is undecided, then an F point gains measure for each of its
    // undecided dependencies.
    let bump = |k: usize, cf: &[i8], measure: &mut [usize], lists: &mut Buckets| {
        if cf[k] == UNDECIDED {
            lists.remove(measure[k], k);
            measure[k] += 1;
            lists.enter(measure[k], k);
        }
    };
    while num_left > 0 {
        let Some(index) = lists.first() else { break };
        cf[index] = C_PT;
        let m = measure[index];
        measure[index] = 0;
        num_left -= 1;
        lists.remove(m, index);
        for &nabor in st.row(index) {
            let nabor = nabor as usize;
            if cf[nabor] == UNDECIDED {
                cf[nabor] = F_PT;
                lists.remove(measure[nabor], nabor);
                num_left = num_left.saturating_sub(1);
                for &k in sd.row(nabor) {
                    bump(k as usize, &cf, &mut measure, &mut lists);
                }
            }
        }
        for &nabor in sd.row(index) {
            let nabor = nabor as usize;
            if cf[nabor] != UNDECIDED {
                continue;
            }
            let m = measure[nabor];
            lists.remove(m, nabor);
            let m = m.saturating_sub(1);
            measure[nabor] = m;
            if m > 0 {
                lists.enter(m, nabor);
            } else {
                cf[nabor] = F_PT;
                num_left = num_left.saturating_sub(1);
                for &k in sd.row(nabor) {
                    bump(k as usize, &cf, &mut measure, &mut lists);
                }
            }
        }
    }
    cf
}
