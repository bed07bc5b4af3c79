#!/usr/bin/env python3
"""lsgl.learn under `mpirun -n P python3 python_mpi_tests.py` with mpi4py (docs/python.md): each
rank passes its block of rows with comm= and receives its rows of the graph; the rows gathered
equal the graph of one process (the same call on MPI_COMM_SELF, which python_tests.py compares
with `lsgl learn`), for the log and knn models with exact search, so the graph is the same at
every rank count. Bad input on one rank raises the same ValueError on every rank (no hang).
Rank 0 prints PASS/FAIL lines and `N passed, N failed`; every rank exits 1 on a failure.
"""
import sys

import numpy as np
import scipy.sparse as sp
from mpi4py import MPI

from harness import four_blobs

import lsgl

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failures, passed = [], 0


def check(name, ok, detail=""):
    global passed
    ok = all(comm.allgather(bool(ok)))
    if ok:
        passed += 1
    else:
        failures.append(name)
    if rank == 0:
        print(f"{'PASS' if ok else 'FAIL'} {name} (np={size}) {'' if ok else detail}", flush=True)


def gathered(W_local):
    """The full graph on rank 0 from every rank's rows (None elsewhere)."""
    parts = comm.gather(sp.csr_array(W_local), root=0)
    return sp.vstack(parts, format="csr") if rank == 0 else None


X, _ = four_blobs()
begin, end = lsgl.block(len(X), comm)
for model in ("log", "knn"):
    W_rows = lsgl.learn(X[begin:end], 6, model=model, ann="exact", comm=comm)
    check(f"{model}: this rank's rows", W_rows.shape == (end - begin, len(X)), W_rows.shape)
    W = gathered(W_rows)
    ok, detail = True, ""
    if rank == 0:
        W1 = lsgl.learn(X, 6, model=model, ann="exact")  # one process: MPI_COMM_SELF
        W.sort_indices()
        W1.sort_indices()
        same_pattern = (np.array_equal(W.indptr, W1.indptr)
                        and np.array_equal(W.indices, W1.indices))
        diff = np.max(np.abs(W.data - W1.data)) if same_pattern else np.inf
        ok, detail = same_pattern and diff <= 1e-12, f"max |diff| {diff}"
    check(f"{model}: the graph of one process (1e-12)", ok, detail)
    ok, detail = True, ""
    if rank == 0:  # the gathered rows form a symmetric graph with positive weights, no loops
        asym = abs(W - W.T).max() if W.nnz else np.inf
        ok = W.nnz > 0 and asym == 0 and W.data.min() > 0 and W.diagonal().max() == 0
        detail = f"nnz {W.nnz}, max |W - W^T| {asym}"
    check(f"{model}: symmetric, positive, no self loops", ok, detail)

t = lsgl.theta(X[begin:end], 6, ann="exact", comm=comm)["theta"]
t1 = lsgl.theta(X, 6, ann="exact")["theta"]
check("theta: the value of one process", abs(t - t1) <= 1e-12 * t1, f"{t} vs {t1}")


def raised_everywhere(name, fn, message):
    try:
        fn()
        got = None
    except ValueError as e:
        got = str(e)
    messages = comm.allgather(got)
    check(name, all(m is not None and message in m for m in messages) and len(set(messages)) == 1,
          messages)


bad = X[begin:end].copy()
if rank == size - 1:
    bad[0, 1] = np.inf
raised_everywhere("Inf on the last rank: ValueError on every rank",
                  lambda: lsgl.learn(bad, 6, comm=comm), "input contains NaN or Inf values")
if size > 1:
    raised_everywhere("rows not in blocks: ValueError on every rank",
                      lambda: lsgl.learn(X[:10] if rank == 0 else X[begin:end], 6, comm=comm),
                      "each rank passes its block")
    raised_everywhere("1-D on one rank: ValueError on every rank",
                      lambda: lsgl.learn(X[begin:end, 0] if rank == 1 else X[begin:end], 6,
                                         comm=comm), "X must be a 2-D array")
W_rows = lsgl.learn(X[begin:end], 6, ann="exact", comm=comm)
check("after the errors: every rank learns its rows", W_rows.shape[0] == end - begin)

if rank == 0:
    print(f"{passed} passed, {len(failures)} failed", flush=True)
sys.exit(1 if failures else 0)
