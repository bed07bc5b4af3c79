"""lsgl under `mpirun -n P python3 -m pytest tests/python/test_lsgl_mpi.py` with mpi4py
(docs/python.md; ctest python_mpi_np1..3): each rank passes its block of rows with comm= and
receives its rows of the graph; the rows gathered equal the graph of one process (the same call on
MPI_COMM_SELF, which test_lsgl.py compares with `lsgl learn`), for the log and knn models with
exact search, so the graph is the same at every rank count; a float32 C-contiguous block is read
in place (x_copied). lsgl.eval, lsgl.densest and lsgl.hash with comm= (each rank its rows of W,
the labels, X) equal their one-process results (test_lsgl.py compares those with the commands):
the eval numbers, the predictions and embedding gathered, the densest set, the hash codes and MAP.
Bad input on one rank raises the same ValueError on every rank (no hang).

Every rank runs every test in the same order, and every assertion is collective (`everywhere`:
true on every rank), so a test passes or fails on all ranks together; what one rank computes alone
(`on_root`) turns an exception into a failed assertion rather than leaving the others waiting.
A failure on one rank only ends the job (conftest.py: the rank stops and calls MPI_Abort).
"""
import numpy as np
import pytest
import scipy.sparse as sp
from mpi4py import MPI

import lsgl

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
K = 6
Y = np.repeat(np.arange(4), 150).astype(np.int64)
Y[::7] = -1


def everywhere(ok):
    """ok on every rank (collective)."""
    return all(comm.allgather(bool(ok)))


def on_root(fn):
    """fn() -> (ok, detail) on rank 0, an exception there a failure; (True, "") elsewhere."""
    if rank != 0:
        return True, ""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - reported as the failure, on every rank
        return False, f"{type(e).__name__}: {e}"


def gathered(W_local):
    """The full graph on rank 0 from every rank's rows (None elsewhere)."""
    parts = comm.gather(sp.csr_array(W_local), root=0)
    return sp.vstack(parts, format="csr") if rank == 0 else None


@pytest.fixture(scope="module")
def block(X):
    return lsgl.block(len(X), comm)


@pytest.fixture(scope="module")
def W1(X):
    """Every rank: lsgl.learn(X, 6, ann="exact") on one process."""
    return lsgl.learn(X, K, ann="exact")


@pytest.mark.parametrize("model", ["log", "knn"])
def test_learn_rows_form_the_graph_of_one_process(model, X, block):
    begin, end = block
    W_rows = lsgl.learn(X[begin:end], K, model=model, ann="exact", comm=comm)
    assert everywhere(W_rows.shape == (end - begin, len(X))), W_rows.shape
    W = gathered(W_rows)

    def same_as_one_process():
        W1 = lsgl.learn(X, K, model=model, ann="exact")  # one process: MPI_COMM_SELF
        W.sort_indices()
        W1.sort_indices()
        same_pattern = (np.array_equal(W.indptr, W1.indptr)
                        and np.array_equal(W.indices, W1.indices))
        diff = np.max(np.abs(W.data - W1.data)) if same_pattern else np.inf
        return same_pattern and diff <= 1e-12, f"max |diff| {diff}"

    ok, detail = on_root(same_as_one_process)
    assert everywhere(ok), detail

    def symmetric_positive_no_loops():
        asym = abs(W - W.T).max() if W.nnz else np.inf
        return (W.nnz > 0 and asym == 0 and W.data.min() > 0 and W.diagonal().max() == 0,
                f"nnz {W.nnz}, max |W - W^T| {asym}")

    ok, detail = on_root(symmetric_positive_no_loops)
    assert everywhere(ok), detail


def test_theta_of_one_process(X, block):
    begin, end = block
    t = lsgl.theta(X[begin:end], K, ann="exact", comm=comm)["theta"]
    t1 = lsgl.theta(X, K, ann="exact")["theta"]
    assert everywhere(abs(t - t1) <= 1e-12 * t1), (t, t1)


def test_float32_c_block_read_in_place(X, block):
    begin, end = block
    _, info = lsgl.learn(X[begin:end], K, ann="exact", comm=comm, return_info=True)
    assert everywhere(info["x_copied"] is False), info["x_copied"]


EVAL_CASES = [("fraction", dict(known_fraction=0.05)),
              ("known mask", dict(known=(np.arange(600) % 9 == 1) & (Y >= 0))),
              ("embedding", dict(embedding=True, eigenvectors=2))]


@pytest.mark.parametrize("name,kw", EVAL_CASES, ids=[c[0] for c in EVAL_CASES])
def test_eval_of_one_process(name, kw, W1, block):
    begin, end = block
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
    assert everywhere(ok), {k: (r[k], r1[k]) for k in exact + ("wrong_edge_share",)}
    assert everywhere(np.array_equal(r["predictions"], r1["predictions"][begin:end])
                      and np.array_equal(r["known"], r1["known"][begin:end]))
    if kw.get("embedding"):
        V = np.vstack(comm.allgather(r["embedding"]["vectors"]))
        V1 = r1["embedding"]["vectors"]
        ok = (V.shape == V1.shape and np.allclose(V, V1, atol=1e-6)
              and np.allclose(r["embedding"]["eigenvalues"], r1["embedding"]["eigenvalues"],
                              rtol=1e-6, atol=1e-9))
        assert everywhere(ok), np.max(np.abs(V - V1)) if V.shape == V1.shape else V.shape


@pytest.mark.parametrize("method", ["dpcd", "peel", "lp"])
def test_densest_set_of_one_process_on_every_rank(method, W1, block):
    begin, end = block
    S = lsgl.densest(W1[begin:end], 40, method, comm=comm)
    S1 = lsgl.densest(W1, 40, method)
    assert everywhere(np.array_equal(S, S1)), f"{len(set(S) ^ set(S1))} nodes differ"


@pytest.fixture(scope="module")
def hashed(X, block):
    """(Xh, Yh, the model trained on the blocks, its codes of this block, the model and codes of
    one process)."""
    begin, end = block
    Xh = X.astype(np.float32)
    Yh = np.repeat(np.arange(4), 150).astype(np.int64)
    m = lsgl.hash.train(Xh[begin:end], Yh[begin:end], 16, anchors=100, comm=comm)
    m1 = lsgl.hash.train(Xh, Yh, 16, anchors=100)
    return Xh, Yh, m, m.encode(Xh[begin:end], comm=comm), m1, m1.encode(Xh)


def test_hash_codes_of_one_process(hashed, block):
    begin, end = block
    _, _, _, C, _, C1 = hashed
    assert everywhere(np.array_equal(C, C1[begin:end]))


def test_hash_evaluate_map_of_one_process(hashed, block):
    begin, end = block
    _, Yh, _, C, _, C1 = hashed
    r = lsgl.hash.evaluate(C, Yh[begin:end], C1, Yh, bits=16, comm=comm)
    r1 = lsgl.hash.evaluate(C1, Yh, C1, Yh, bits=16)
    assert everywhere(abs(r["map"] - r1["map"]) <= 1e-12 and r["queries"] == 600), (r, r1)


def raises_everywhere(fn, message):
    """fn() raises on every rank a ValueError with the same text, which contains `message`."""
    try:
        fn()
        got = None
    except Exception as e:  # noqa: BLE001 - any other exception is the failure reported
        got = (type(e).__name__, str(e))
    raised = comm.allgather(got)
    assert (all(g is not None and g[0] == "ValueError" and message in g[1] for g in raised)
            and len(set(raised)) == 1), raised


def test_inf_on_the_last_rank(X, block):
    begin, end = block
    bad = X[begin:end].copy()
    if rank == size - 1:
        bad[0, 1] = np.inf
    raises_everywhere(lambda: lsgl.learn(bad, K, comm=comm), "input contains NaN or Inf values")


several_ranks = pytest.mark.skipif(size == 1, reason="one rank: no other rank's rows")


@several_ranks
def test_rows_not_in_blocks(X, block):
    begin, end = block
    raises_everywhere(lambda: lsgl.learn(X[:10] if rank == 0 else X[begin:end], K, comm=comm),
                      "each rank passes its block")


@several_ranks
def test_1d_on_one_rank(X, block):
    begin, end = block
    raises_everywhere(lambda: lsgl.learn(X[begin:end, 0] if rank == 1 else X[begin:end], K,
                                         comm=comm), "X must be a 2-D array")


@several_ranks
def test_eval_labels_of_the_wrong_length_on_one_rank(W1, block):
    begin, end = block
    raises_everywhere(lambda: lsgl.eval(W1[begin:end], Y[begin:end - 1] if rank == 1
                                        else Y[begin:end], comm=comm),
                      "labels must hold one entry per node")


@several_ranks
def test_densest_rows_not_in_blocks(W1, block):
    begin, end = block
    raises_everywhere(lambda: lsgl.densest(W1[:10] if rank == 0 else W1[begin:end], 5,
                                           comm=comm), "each rank passes rows")


def test_densest_size_larger_than_n(W1, block):
    begin, end = block
    raises_everywhere(lambda: lsgl.densest(W1[begin:end], 601, comm=comm), "exceeds the number")


def test_hash_nan_on_the_last_rank(hashed, block):
    begin, end = block
    Xh, _, m, _, _, _ = hashed
    raises_everywhere(lambda: m.encode(np.where(rank == size - 1, np.nan, Xh[begin:end]),
                                       comm=comm), "NaN or Inf")


def test_after_the_errors_every_rank_learns_its_rows(X, block):
    begin, end = block
    W_rows = lsgl.learn(X[begin:end], K, ann="exact", comm=comm)
    assert everywhere(W_rows.shape[0] == end - begin)
