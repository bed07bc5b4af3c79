#!/usr/bin/env python3
"""lsgl.learn under `mpirun -n P python3 python_mpi_tests.py` with mpi4py (docs/python.md): each
rank passes its block of rows with comm= and receives its rows of the graph; the rows gathered
equal the graph of one process (the same call on MPI_COMM_SELF, which python_tests.py compares
with `lsgl learn`), for the log and knn models with exact search, so the graph is the same at
every rank count; a float32 C-contiguous block is read in place (x_copied). lsgl.eval,
lsgl.densest and lsgl.hash with comm= (each rank its rows of W, the labels, X) equal their
one-process results (python_tests.py compares those with the commands):
the eval numbers, the predictions and embedding gathered, the densest set, the hash codes and MAP.
Bad input on one rank raises the same ValueError on every rank (no hang).
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


W1 = lsgl.learn(X, 6, ann="exact")  # every rank: the graph of one process
_, info = lsgl.learn(X[begin:end], 6, ann="exact", comm=comm, return_info=True)  # float32 C
check("float32 C block: read in place (x_copied False)", info["x_copied"] is False,
      info["x_copied"])
Y = np.repeat(np.arange(4), 150).astype(np.int64)
Y[::7] = -1
for name, kw in [("fraction", dict(known_fraction=0.05)),
                 ("known mask", dict(known=(np.arange(600) % 9 == 1) & (Y >= 0))),
                 ("embedding", dict(embedding=True, eigenvectors=2))]:
    local = {k: (v[begin:end] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    r = lsgl.eval(W1[begin:end], Y[begin:end], comm=comm, **local)
    r1 = lsgl.eval(W1, Y, **kw)
    exact = ("n", "nnz", "edges", "components", "largest_component", "isolated", "diameter")
    lp = ("known", "unknown", "correct", "unreachable")
    ok = (all(r[k] == r1[k] for k in exact)
          and all(r["label_propagation"][k] == r1["label_propagation"][k] for k in lp)
          and abs(r["wrong_edge_share"] - r1["wrong_edge_share"]) <= 1e-12
          and abs(r["total_weight"] - r1["total_weight"]) <= 1e-12 * r1["total_weight"]
          and r["ranks"] == size)
    check(f"eval {name}: the numbers of one process", ok,
          {k: (r[k], r1[k]) for k in exact + ("wrong_edge_share",)})
    check(f"eval {name}: this rank's predictions and known nodes",
          np.array_equal(r["predictions"], r1["predictions"][begin:end])
          and np.array_equal(r["known"], r1["known"][begin:end]))
    if kw.get("embedding"):
        V = np.vstack(comm.allgather(r["embedding"]["vectors"]))
        V1 = r1["embedding"]["vectors"]
        check("eval embedding: the vectors of one process (1e-6)",
              V.shape == V1.shape and np.allclose(V, V1, atol=1e-6)
              and np.allclose(r["embedding"]["eigenvalues"], r1["embedding"]["eigenvalues"],
                              rtol=1e-6, atol=1e-9), np.max(np.abs(V - V1)))

for method in ("dpcd", "peel", "lp"):
    S = lsgl.densest(W1[begin:end], 40, method, comm=comm)
    S1 = lsgl.densest(W1, 40, method)
    check(f"densest {method}: the set of one process, on every rank", np.array_equal(S, S1),
          f"{len(set(S) ^ set(S1))} nodes differ")

Xh = X.astype(np.float32)
Yh = np.repeat(np.arange(4), 150).astype(np.int64)
m = lsgl.hash.train(Xh[begin:end], Yh[begin:end], 16, anchors=100, comm=comm)
m1 = lsgl.hash.train(Xh, Yh, 16, anchors=100)
C = m.encode(Xh[begin:end], comm=comm)
C1 = m1.encode(Xh)
check("hash: the codes of one process", np.array_equal(C, C1[begin:end]))
r = lsgl.hash.evaluate(C, Yh[begin:end], C1, Yh, bits=16, comm=comm)
r1 = lsgl.hash.evaluate(C1, Yh, C1, Yh, bits=16)
check("hash: evaluate's MAP of one process", abs(r["map"] - r1["map"]) <= 1e-12
      and r["queries"] == 600, f"{r} vs {r1}")


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
    raised_everywhere("eval: labels of the wrong length on one rank: ValueError on every rank",
                      lambda: lsgl.eval(W1[begin:end], Y[begin:end - 1] if rank == 1
                                        else Y[begin:end], comm=comm),
                      "labels must hold one entry per node")
    raised_everywhere("densest: rows not in blocks: ValueError on every rank",
                      lambda: lsgl.densest(W1[:10] if rank == 0 else W1[begin:end], 5,
                                           comm=comm), "each rank passes rows")
raised_everywhere("densest: size > n: ValueError on every rank",
                  lambda: lsgl.densest(W1[begin:end], 601, comm=comm), "exceeds the number")
raised_everywhere("hash: NaN on the last rank: ValueError on every rank",
                  lambda: m.encode(np.where(rank == size - 1, np.nan, Xh[begin:end]), comm=comm),
                  "NaN or Inf")
W_rows = lsgl.learn(X[begin:end], 6, ann="exact", comm=comm)
check("after the errors: every rank learns its rows", W_rows.shape[0] == end - begin)

if rank == 0:
    print(f"{passed} passed, {len(failures)} failed", flush=True)
sys.exit(1 if failures else 0)
