//! Galerkin coarse operator `A_c = P^T A P`, computed as `(P^T A) P` with
//! SciPy's product (PyAMG's `R @ A @ P` with `R = P.T.tocsr()`): same
//! association, same summation order, exact zeros from cancellation dropped.

use super::raw::{spgemm, RawCsr};

pub fn galerkin(a: &RawCsr, p: &RawCsr) -> RawCsr {
    let r = p.transpose();
    let ra = spgemm(&r, a);
    spgemm(&ra, p)
}
