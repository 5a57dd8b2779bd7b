//! Galerkin coarse operator `A_c = P^T A P`, computed as `(P^T A) P` with
//! SciPy's product (PyAMG's `R @ A @ P` with `R = P.T.tocsr()`): same
//! association, same summation order, exact zeros from cancellation dropped.

use super::raw::{spgemm, RawCsr};

pub fn galerkin(a: &RawCsr, p: &RawCsr) -> RawCsr {
    let r = p.transpose();
    let ra = spgemm(&r, a);
    spgemm(&ra, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn galerkin_product_by_hand() {
        // A = 1D Laplacian on 3 points, P = linear interpolation from the
        // end points. A P = [[1.5, -0.5], [0, 0], [-0.5, 1.5]] (the middle
        // row cancels exactly), P^T (A P) = [[1.5, -0.5], [-0.5, 1.5]].
        use crate::amg::raw::test_util::{from_lists, laplace_1d};
        let a = laplace_1d(3, true);
        let p = from_lists(2, &[&[(0, 1.0)], &[(0, 0.5), (1, 0.5)], &[(1, 1.0)]]);
        let ac = galerkin(&a, &p).to_csr();
        assert_eq!(
            ac.to_dense().into_raw_vec_and_offset().0,
            vec![1.5, -0.5, -0.5, 1.5]
        );
        // The middle row of A P cancels to exact zeros, which are dropped.
        let ap = spgemm(&a, &p);
        assert_eq!(ap.row(1).0.len(), 0);
    }
}
