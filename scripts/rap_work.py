#!/usr/bin/env python3
"""Multiply-adds of the Galerkin product P^T A P in hypre's order (issue
50): a rank's own coarse rows merge R A before P; the rows it forms for
other ranks' coarse points (RAP_int) are an unmerged triple loop. Reads a
hierarchy saved with `amgcomm hierarchy ... --ranks P --save-levels DIR`
(A{l}.mtx, P{l}.mtx, C{l}.txt); level 0 is in P even blocks, a coarse row
on its C point's rank. Needs scipy.

    python3 scripts/rap_work.py DIR P
"""
import os
import sys

if len(sys.argv) != 3 or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
    print("usage: scripts/rap_work.py DIR P", file=sys.stderr)
    sys.exit(2)

import numpy as np  # noqa: E402
import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402
d, ranks = sys.argv[1], int(sys.argv[2])
owner = None
total_merged = total_int = 0.0
for lvl in range(64):
    if not os.path.exists(f"{d}/P{lvl}.mtx"):
        break
    A = sp.csr_matrix(scipy.io.mmread(f"{d}/A{lvl}.mtx"))
    P = sp.csr_matrix(scipy.io.mmread(f"{d}/P{lvl}.mtx"))
    n = A.shape[0]
    if owner is None:
        owner = np.searchsorted([(r * n) // ranks for r in range(1, ranks)], np.arange(n), side="right")
    coarse_owner = owner[np.loadtxt(f"{d}/C{lvl}.txt", dtype=np.int64)]
    p_len = np.diff(P.indptr).astype(float)
    pattern = A.copy()
    pattern.data = np.ones_like(pattern.data)
    # Per fine row i1: the multiply-adds of A's row i1 times P.
    per_row = pattern @ p_len
    c = P.tocoo()
    local = coarse_owner[c.col] == owner[c.row]
    rap_int = float(per_row[c.row[~local]].sum())
    mine = sp.csr_matrix((np.ones(local.sum()), (c.row[local], c.col[local])), shape=P.shape)
    ra = mine.T.tocsr() @ pattern
    ra.data = np.ones_like(ra.data)
    merged = float((ra @ p_len).sum())
    print(f"level {lvl}: {n} rows, RAP_int {rap_int / 1e6:.1f} M, own rows {merged / 1e6:.1f} M")
    total_merged += merged
    total_int += rap_int
    owner = coarse_owner
print(f"total {(total_merged + total_int) / 1e6:.1f} M multiply-adds (RAP_int {total_int / 1e6:.1f} M, own rows {total_merged / 1e6:.1f} M)")
