//! 3D linear elasticity, trilinear (Q1) hexahedra on the unit cube.
//!
//! `N x N x N` elements of side `h = 1/N`; nodes `(x, y, z)` in `0..=N`;
//! the face `x = 0` is clamped (its unknowns removed). Free node
//! `(x, y, z)` has id `(z (N+1) + y) N + x - 1` and unknowns `3 id + c`,
//! `c` = displacement component (interleaved, hypre's `num_functions = 3`).
//!
//! Bilinear form: `a(u, v) = int lambda div u div v + 2 mu eps(u):eps(v)`, so
//!
//! `K[(a,i),(b,j)] = int lambda d_i phi_a d_j phi_b + mu (delta_ij grad phi_a . grad phi_b + d_j phi_a d_i phi_b)`.
//!
//! On a cube `int d_p phi_a d_q phi_b = h G_pq(a,b)` with `216 G` integer:
//! products of the 1D integrals 1/3, 1/6, 1/2 and 1, with signs. So the
//! assembled entries are integer sums scaled once: exactly symmetric, and
//! entries that vanish in exact arithmetic are exactly zero. They are
//! stored: the pattern is the full 3 x 3 block of every pair of nodes that
//! share an element, 81 entries in an interior row, as finite element
//! assemblers store it.

use super::{csr, Csr};

/// `G[a][b][p][q] * 216`, local node `a = ax + 2 ay + 4 az`.
fn gradient_integrals() -> [[[[i64; 3]; 3]; 8]; 8] {
    // 6 x the 1D integral of (f_a or f_a') (f_b or f_b'), f_0 = 1 - t, f_1 = t.
    let one_d = |a: usize, b: usize, da: bool, db: bool| -> i64 {
        let s = |k: usize| if k == 1 { 1 } else { -1 };
        match (da, db) {
            (false, false) => {
                if a == b {
                    2
                } else {
                    1
                }
            }
            (true, true) => 6 * s(a) * s(b),
            (true, false) => 3 * s(a),
            (false, true) => 3 * s(b),
        }
    };
    let mut g = [[[[0i64; 3]; 3]; 8]; 8];
    for a in 0..8 {
        for b in 0..8 {
            for p in 0..3 {
                for q in 0..3 {
                    g[a][b][p][q] = (0..3)
                        .map(|d| one_d((a >> d) & 1, (b >> d) & 1, d == p, d == q))
                        .product();
                }
            }
        }
    }
    g
}

/// Lame parameters from Young's modulus and Poisson's ratio.
pub fn lame(young: f64, nu: f64) -> (f64, f64) {
    let lambda = young * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
    let mu = young / (2.0 * (1.0 + nu));
    (lambda, mu)
}

/// The 24 x 24 element stiffness matrix, unknown `3 a + i`.
pub fn element_matrix(h: f64, young: f64, nu: f64) -> Vec<Vec<f64>> {
    let (lambda, mu) = lame(young, nu);
    let g = gradient_integrals();
    let mut k = vec![vec![0.0; 24]; 24];
    for a in 0..8 {
        for b in 0..8 {
            for i in 0..3 {
                for j in 0..3 {
                    let (l, m) = lambda_mu_parts(&g, &[(a, b)], i, j);
                    k[3 * a + i][3 * b + j] = scale(h, lambda, mu, l, m);
                }
            }
        }
    }
    k
}

/// Integer coefficients of lambda and mu for `K[(a,i),(b,j)]` summed over
/// the element-local node pairs `pairs`.
fn lambda_mu_parts(
    g: &[[[[i64; 3]; 3]; 8]; 8],
    pairs: &[(usize, usize)],
    i: usize,
    j: usize,
) -> (i64, i64) {
    let mut l = 0;
    let mut m = 0;
    for &(a, b) in pairs {
        let gab = &g[a][b];
        l += gab[i][j];
        m += gab[j][i]
            + if i == j {
                gab[0][0] + gab[1][1] + gab[2][2]
            } else {
                0
            };
    }
    (l, m)
}

fn scale(h: f64, lambda: f64, mu: f64, l: i64, m: i64) -> f64 {
    h / 216.0 * (lambda * l as f64 + mu * m as f64)
}

/// Assemble the clamped elasticity matrix on `n^3` elements.
pub fn assemble(n: usize, young: f64, nu: f64) -> Csr {
    let (lambda, mu) = lame(young, nu);
    let h = 1.0 / n as f64;
    let g = gradient_integrals();

    // A node's entries depend only on, per dimension, whether it is on the
    // low boundary (0), inside (1) or on the high boundary (2), and on the
    // offset to its neighbour. Table: [node type][offset][i][j].
    let mut table = vec![[[0.0f64; 3]; 3]; 27 * 27];
    for t in 0..27 {
        let types = [t % 3, (t / 3) % 3, t / 9];
        for o in 0..27 {
            let offs = [o % 3, (o / 3) % 3, o / 9].map(|d| d as i64 - 1);
            // Per dimension, the local coordinates (of a, of b) in each
            // element shared by the node and its neighbour.
            let per_dim: Vec<Vec<(usize, usize)>> = (0..3)
                .map(|d| {
                    let mut v = Vec::new();
                    // Element below the node: node is its local 1.
                    if types[d] != 0 && offs[d] <= 0 {
                        v.push((1, (1 + offs[d]) as usize));
                    }
                    // Element above the node: node is its local 0.
                    if types[d] != 2 && offs[d] >= 0 {
                        v.push((0, offs[d] as usize));
                    }
                    v
                })
                .collect();
            let mut pairs = Vec::new();
            for &(ax, bx) in &per_dim[0] {
                for &(ay, by) in &per_dim[1] {
                    for &(az, bz) in &per_dim[2] {
                        pairs.push((ax + 2 * ay + 4 * az, bx + 2 * by + 4 * bz));
                    }
                }
            }
            for i in 0..3 {
                for j in 0..3 {
                    let (l, m) = lambda_mu_parts(&g, &pairs, i, j);
                    table[t * 27 + o][i][j] = scale(h, lambda, mu, l, m);
                }
            }
        }
    }

    let np = n + 1;
    let nodes = n * np * np;
    let coords = move |id: usize| (id % n + 1, (id / n) % np, id / (n * np));
    let kind = move |c: usize| {
        if c == 0 {
            0
        } else if c == n {
            2
        } else {
            1
        }
    };
    // Number of neighbours (itself included) along one dimension.
    let span = move |c: usize, lo: usize| 1 + usize::from(c > lo) + usize::from(c < n);
    csr::from_rows(
        3 * nodes,
        3 * nodes,
        |r| {
            let (x, y, z) = coords(r / 3);
            3 * span(x, 1) * span(y, 0) * span(z, 0)
        },
        |r, cols, vals| {
            let (x, y, z) = coords(r / 3);
            let i = r % 3;
            let t = kind(x) + 3 * kind(y) + 9 * kind(z);
            let mut k = 0;
            for dz in 0..3 {
                let Some(zz) = (z + dz).checked_sub(1).filter(|&c| c <= n) else {
                    continue;
                };
                for dy in 0..3 {
                    let Some(yy) = (y + dy).checked_sub(1).filter(|&c| c <= n) else {
                        continue;
                    };
                    for dx in 0..3 {
                        let Some(xx) = (x + dx).checked_sub(1).filter(|&c| c >= 1 && c <= n) else {
                            continue;
                        };
                        let id = (zz * np + yy) * n + xx - 1;
                        let entry = &table[t * 27 + dx + 3 * dy + 9 * dz][i];
                        for j in 0..3 {
                            cols[k] = (3 * id + j) as u32;
                            vals[k] = entry[j];
                            k += 1;
                        }
                    }
                }
            }
        },
    )
}

/// Lame parameters of MFEM's beam by element attribute, as RAPtor's
/// `mfem_linear_elasticity.cpp` sets them: `lambda = mu = 1`, and 50 on
/// attribute 1, the elements with `x < 4`.
pub const BEAM_STIFF: f64 = 50.0;

/// MFEM's beam problem (RAPtor's `mfem_linear_elasticity`, the EuroMPI'18
/// study): `data/beam-hex.mesh`, 8 hexahedra on `[0,8] x [0,1] x [0,1]`,
/// refined `r` times (elements of side `h = 2^-r`); Q1 elasticity with 3
/// unknowns per node, x, y and z consecutive (`Ordering::byVDIM`);
/// `lambda = mu = 50` where `x < 4` (attribute 1), 1 elsewhere; the face
/// `x = 0` (boundary attribute 1) clamped as MFEM 2018's
/// `FormLinearSystem` with static condensation does it
/// (`hypre_ParCSRMatrixEliminateAAe`): those rows and columns keep their
/// entries as stored zeros and the diagonal becomes 1. Every node has
/// rows, numbered lexicographically (x fastest): `3 ((z (m+1) + y) (8m+1)
/// + x) + c` with `m = 2^r`.
///
/// With `lambda = mu` per element, an entry is `h / 216 sum_e c_e (l_e +
/// m_e)` over the elements `e` both nodes share (`c_e` = 50 or 1, `l_e`
/// and `m_e` the integers of [`element_matrix`]'s construction): an exact
/// integer sum scaled once, so the matrix is symmetric bit for bit.
pub fn assemble_beam(r: u32) -> Csr {
    let m = 1usize << r;
    let (nx, ny) = (8 * m, m);
    let h = 1.0 / m as f64;
    let g = gradient_integrals();
    let (px, py) = (nx + 1, ny + 1);
    // The element at (ex, ey, ez): its coefficient.
    let material = |ex: usize| if ex < 4 * m { BEAM_STIFF } else { 1.0 };
    let coords = move |node: usize| (node % px, (node / px) % py, node / (px * py));
    let span = move |c: usize, n: usize| 1 + usize::from(c > 0) + usize::from(c < n);
    // Per dimension of a node at c (of n elements) and a neighbour at
    // offset d: the shared elements' index and the two local coordinates.
    let shared = move |c: usize, d: i64, n: usize| {
        let mut v: Vec<(usize, usize, usize)> = Vec::with_capacity(2);
        // Element below (index c - 1): the node is its local 1.
        if c > 0 && d <= 0 {
            v.push((c - 1, 1, (1 + d) as usize));
        }
        // Element above (index c): the node is its local 0.
        if c < n && d >= 0 {
            v.push((c, 0, d as usize));
        }
        v
    };
    csr::from_rows(
        3 * px * py * py,
        3 * px * py * py,
        |row| {
            let (x, y, z) = coords(row / 3);
            3 * span(x, nx) * span(y, ny) * span(z, ny)
        },
        |row, cols, vals| {
            let node = row / 3;
            let (x, y, z) = coords(node);
            let i = row % 3;
            let clamped = |n: usize| n.is_multiple_of(px);
            let mut k = 0;
            for dz in -1i64..=1 {
                let Some(zz) = z.checked_add_signed(dz as isize).filter(|&c| c <= ny) else {
                    continue;
                };
                for dy in -1i64..=1 {
                    let Some(yy) = y.checked_add_signed(dy as isize).filter(|&c| c <= ny) else {
                        continue;
                    };
                    for dx in -1i64..=1 {
                        let Some(xx) = x.checked_add_signed(dx as isize).filter(|&c| c <= nx)
                        else {
                            continue;
                        };
                        let other = (zz * py + yy) * px + xx;
                        // sum_e c_e (l_e + m_e), per component j.
                        let mut sum = [0.0f64; 3];
                        for &(ex, ax, bx) in &shared(x, dx, nx) {
                            for &(_, ay, by) in &shared(y, dy, ny) {
                                for &(_, az, bz) in &shared(z, dz, ny) {
                                    let pair = [(ax + 2 * ay + 4 * az, bx + 2 * by + 4 * bz)];
                                    for (j, s) in sum.iter_mut().enumerate() {
                                        let (l, mu) = lambda_mu_parts(&g, &pair, i, j);
                                        *s += material(ex) * (l + mu) as f64;
                                    }
                                }
                            }
                        }
                        for (j, s) in sum.iter().enumerate() {
                            let col = 3 * other + j;
                            cols[k] = col as u32;
                            vals[k] = if clamped(node) || clamped(other) {
                                if col == row {
                                    1.0
                                } else {
                                    0.0
                                }
                            } else {
                                h / 216.0 * s
                            };
                            k += 1;
                        }
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Textbook element matrix: 2x2x2 Gauss quadrature of B^T D B in Voigt
    /// notation, independent of the integer construction above.
    fn gauss_element(h: f64, young: f64, nu: f64) -> Vec<Vec<f64>> {
        let (lambda, mu) = lame(young, nu);
        let mut d = [[0.0; 6]; 6];
        for i in 0..3 {
            for j in 0..3 {
                d[i][j] = lambda + if i == j { 2.0 * mu } else { 0.0 };
            }
            d[i + 3][i + 3] = mu;
        }
        let gp = [0.5 - 0.5 / 3f64.sqrt(), 0.5 + 0.5 / 3f64.sqrt()];
        let mut k = vec![vec![0.0; 24]; 24];
        for &px in &gp {
            for &py in &gp {
                for &pz in &gp {
                    let p = [px, py, pz];
                    let mut b = [[0.0; 24]; 6];
                    for a in 0..8 {
                        let bits = [a & 1, (a >> 1) & 1, (a >> 2) & 1];
                        let f = |d: usize| if bits[d] == 1 { p[d] } else { 1.0 - p[d] };
                        let df = |d: usize| if bits[d] == 1 { 1.0 } else { -1.0 };
                        let grad = [
                            df(0) * f(1) * f(2) / h,
                            f(0) * df(1) * f(2) / h,
                            f(0) * f(1) * df(2) / h,
                        ];
                        for c in 0..3 {
                            b[c][3 * a + c] = grad[c];
                        }
                        // Shear strains yz, xz, xy (engineering).
                        b[3][3 * a + 1] = grad[2];
                        b[3][3 * a + 2] = grad[1];
                        b[4][3 * a] = grad[2];
                        b[4][3 * a + 2] = grad[0];
                        b[5][3 * a] = grad[1];
                        b[5][3 * a + 1] = grad[0];
                    }
                    let w = h * h * h / 8.0;
                    for r in 0..24 {
                        for c in 0..24 {
                            let mut s = 0.0;
                            for u in 0..6 {
                                for v in 0..6 {
                                    s += b[u][r] * d[u][v] * b[v][c];
                                }
                            }
                            k[r][c] += w * s;
                        }
                    }
                }
            }
        }
        k
    }

    #[test]
    fn element_matrix_matches_gauss_quadrature() {
        for &(h, e, nu) in &[(1.0, 1.0, 0.3), (0.25, 210.0, 0.1)] {
            let exact = element_matrix(h, e, nu);
            let gauss = gauss_element(h, e, nu);
            for r in 0..24 {
                for c in 0..24 {
                    assert!((exact[r][c] - gauss[r][c]).abs() < 1e-12 * e, "{r} {c}");
                    assert_eq!(exact[r][c], exact[c][r]);
                }
            }
        }
    }

    /// Brute-force assembly element by element with the Gauss matrices.
    #[test]
    fn assembly_matches_element_by_element_sum() {
        let n = 3;
        let (e, nu) = (1.0, 0.3);
        let a = assemble(n, e, nu);
        let ke = gauss_element(1.0 / n as f64, e, nu);
        let np = n + 1;
        let dof = |x: usize, y: usize, z: usize, c: usize| -> Option<usize> {
            (x > 0).then(|| 3 * ((z * np + y) * n + x - 1) + c)
        };
        let size = 3 * n * np * np;
        let mut dense = vec![vec![0.0; size]; size];
        let mut pattern = vec![vec![false; size]; size];
        for ez in 0..n {
            for ey in 0..n {
                for ex in 0..n {
                    let node = |l: usize| (ex + (l & 1), ey + ((l >> 1) & 1), ez + (l >> 2));
                    for la in 0..8 {
                        for lb in 0..8 {
                            let (xa, ya, za) = node(la);
                            let (xb, yb, zb) = node(lb);
                            for i in 0..3 {
                                for j in 0..3 {
                                    if let (Some(r), Some(c)) =
                                        (dof(xa, ya, za, i), dof(xb, yb, zb, j))
                                    {
                                        dense[r][c] += ke[3 * la + i][3 * lb + j];
                                        pattern[r][c] = true;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let stored: usize = pattern.iter().flatten().filter(|&&p| p).count();
        assert_eq!(a.nnz(), stored);
        for (v, (r, c)) in a.iter() {
            let (r, c) = (r as usize, c as usize);
            assert!(pattern[r][c]);
            assert!(
                (v - dense[r][c]).abs() < 1e-13,
                "({r}, {c}): {v} vs {}",
                dense[r][c]
            );
        }
    }

    #[test]
    fn one_element_is_the_free_block_of_the_element_matrix() {
        let a = assemble(1, 1.0, 0.3);
        let ke = element_matrix(1.0, 1.0, 0.3);
        // Free local nodes are those with x = 1: 1, 3, 5, 7, ids 0..4.
        assert_eq!((a.rows(), a.nnz()), (12, 144));
        for (v, (r, c)) in a.iter() {
            let (r, c) = (r as usize, c as usize);
            let (la, lb) = (2 * (r / 3) + 1, 2 * (c / 3) + 1);
            assert_eq!(*v, ke[3 * la + r % 3][3 * lb + c % 3]);
        }
    }

    /// `gen:beam:r` assembled element by element from the textbook Gauss
    /// element (`lambda = mu = c` is `E = 2.5 c`, `nu = 0.25`), then the
    /// clamp applied as MFEM does: clamped rows and columns zero, their
    /// diagonal 1, the pattern kept.
    fn beam_by_elements(r: u32) -> (usize, Vec<Vec<f64>>, Vec<Vec<bool>>) {
        let m = 1usize << r;
        let (nx, ny) = (8 * m, m);
        let h = 1.0 / m as f64;
        let (px, py) = (nx + 1, ny + 1);
        let rows = 3 * px * py * py;
        let mut dense = vec![vec![0.0; rows]; rows];
        let mut pattern = vec![vec![false; rows]; rows];
        let stiff = gauss_element(h, 2.5 * BEAM_STIFF, 0.25);
        let soft = gauss_element(h, 2.5, 0.25);
        for ez in 0..ny {
            for ey in 0..ny {
                for ex in 0..nx {
                    // Attribute 1 where the element's centre has x < 4.
                    let ke = if (ex as f64 + 0.5) * h < 4.0 {
                        &stiff
                    } else {
                        &soft
                    };
                    let node =
                        |l: usize| ((ez + (l >> 2)) * py + ey + ((l >> 1) & 1)) * px + ex + (l & 1);
                    for la in 0..8 {
                        for lb in 0..8 {
                            for i in 0..3 {
                                for j in 0..3 {
                                    let (r, c) = (3 * node(la) + i, 3 * node(lb) + j);
                                    dense[r][c] += ke[3 * la + i][3 * lb + j];
                                    pattern[r][c] = true;
                                }
                            }
                        }
                    }
                }
            }
        }
        for row in 0..rows {
            for col in 0..rows {
                if (row / 3) % px == 0 || (col / 3) % px == 0 {
                    dense[row][col] = if row == col { 1.0 } else { 0.0 };
                }
            }
        }
        (rows, dense, pattern)
    }

    #[test]
    fn beam_equals_an_element_by_element_gauss_assembly() {
        let a = assemble_beam(1);
        let (rows, dense, pattern) = beam_by_elements(1);
        assert_eq!(a.rows(), rows);
        assert_eq!(rows, 3 * 17 * 3 * 3);
        let stored: usize = pattern.iter().flatten().filter(|&&p| p).count();
        assert_eq!(a.nnz(), stored);
        let scale = dense.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        for (v, (r, c)) in a.iter() {
            let (r, c) = (r as usize, c as usize);
            assert!(pattern[r][c]);
            assert!(
                (v - dense[r][c]).abs() < 1e-13 * scale,
                "({r}, {c}): {v} vs {}",
                dense[r][c]
            );
        }
    }

    #[test]
    fn beam_clamp_material_and_counts() {
        let r = 2;
        let a = assemble_beam(r);
        let (m, px, py) = (4usize, 33usize, 5usize);
        assert_eq!(a.rows(), 3 * px * py * py);
        assert!(crate::matrix::csr::is_symmetric(&a));
        let row_of = |x: usize, y: usize, z: usize, c: usize| 3 * ((z * py + y) * px + x) + c;
        // A clamped row keeps its 3 x (2 x 3 x 3) stored entries, one of
        // them nonzero: the diagonal, 1.
        let clamped = row_of(0, 2, 2, 1);
        let view = a.outer_view(clamped).unwrap();
        assert_eq!(view.nnz(), 3 * 2 * 3 * 3);
        let nonzero: Vec<(usize, f64)> = view
            .iter()
            .filter(|e| *e.1 != 0.0)
            .map(|(c, &v)| (c, v))
            .collect();
        assert_eq!(nonzero, [(clamped, 1.0)]);
        // Its neighbour at x = 1 stores the clamped columns, as zeros.
        let next = row_of(1, 2, 2, 1);
        assert_eq!(a.get(next, clamped), Some(&0.0));
        assert!(*a.get(next, next).unwrap() > 0.0);
        // The material jump at x = 4: a node inside attribute 1 (x = 1)
        // against one inside attribute 2 (x = 4m + 2), same y and z: every
        // element around each is of one material, so the rows differ by
        // exactly 50; a node on x = 4 has 4 elements of each: 25.5.
        let (y, z) = (2, 2);
        let d = |x: usize| *a.get(row_of(x, y, z, 0), row_of(x, y, z, 0)).unwrap();
        // (Each is one rounding of an exact integer sum: equal to 1e-15.)
        let ratio = |p: f64, q: f64, want: f64| assert!((p / q - want).abs() < 1e-14, "{p} / {q}");
        ratio(d(1), d(4 * m + 2), 50.0);
        ratio(d(4 * m), d(4 * m + 2), 25.5);
        let off = |x: usize| {
            *a.get(row_of(x, y, z, 0), row_of(x + 1, y + 1, z, 1))
                .unwrap()
        };
        ratio(off(1), off(4 * m + 2), 50.0);
    }

    #[test]
    fn beam_paper_counts_without_building() {
        // R = 5: 257 x 33 x 33 nodes, 3 unknowns: 839,619 rows; nnz = 9
        // times, per dimension, the sum over nodes of the neighbours in
        // that dimension (3 (n + 1) - 2).
        assert_eq!(crate::matrix::gen::Kind::Beam.rows(5), 839_619);
        let s = |n: usize| 3 * (n + 1) - 2;
        assert_eq!(9 * s(256) * s(32) * s(32), 65_119_689);
        let small = assemble_beam(2);
        assert_eq!(small.nnz(), 9 * s(32) * s(4) * s(4));
    }
}
