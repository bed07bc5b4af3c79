"""lsgl from Python: learn a large sparse graph from a data matrix, NumPy in, SciPy sparse out.

The functions run the pipelines of the lsgl executable (`lsgl learn`, `lsgl theta`) in this
process, with the same options and the same messages (docs/python.md). In a plain python3 a call
is one MPI process; under `mpirun -n P python3 script.py` pass an mpi4py communicator as `comm=`:
every rank passes its block of rows (lsgl.block) and receives its rows of the graph.
"""
import logging
import os
import sys

import numpy as np
import scipy.sparse as sp

from . import _lsgl

__all__ = ["learn", "knn_graph", "theta", "neighbors", "read_graph", "write_graph", "block"]

_log = logging.getLogger("lsgl")


def block(n, comm=None):
    """(begin, end): the rows of n that this rank of `comm` passes and receives (the first
    n % size ranks hold one row more). Without comm: (0, n)."""
    rank, size = (0, 1) if comm is None else (comm.Get_rank(), comm.Get_size())
    q, rem = divmod(int(n), size)
    begin = rank * q + min(rank, rem)
    return begin, begin + q + (1 if rank < rem else 0)


def _handle(comm):
    return None if comm is None else comm.py2f()


def _collectively(comm, check):
    """Runs check() (which raises ValueError on bad input); with comm, every rank raises the
    lowest failing rank's message, so that no rank enters a collective call alone."""
    message = None
    try:
        check()
    except ValueError as e:
        message = str(e)
    if comm is not None and comm.Get_size() > 1:
        message = next((m for m in comm.allgather(message) if m is not None), None)
    if message is not None:
        raise ValueError(message)


def _rows(X, comm):
    """X as the float32 C-order rows the library reads (no copy when it already is)."""
    out = []

    def check():
        a = np.asarray(X)
        if a.dtype.kind not in "fiu":
            raise ValueError(f"X must be a 2-D array of numbers (float32 or float64), got dtype "
                             f"{a.dtype}")
        if a.ndim != 2:
            raise ValueError(f"X must be a 2-D array (one row per node), got shape {a.shape}")
        out.append(np.ascontiguousarray(a, dtype=np.float32))

    _collectively(comm, check)
    return out[0]


def _reporter(progress):
    """The monitor's Python end: warnings always go to the 'lsgl' logger; the other lines are
    printed on stderr with progress=True, or handed to progress(kind, line) when callable."""
    def report(kind, line):
        if kind == "warning":
            _log.warning(line)
        if callable(progress):
            progress(kind, line)
        elif progress and kind != "warning":
            print(line, file=sys.stderr, flush=True)
    return report


def _csr(indptr, indices, data, n, begin):
    return sp.csr_array((data, indices, indptr), shape=(len(indptr) - 1, n))


def learn(X, k=10, *, model="log", r=3.0, ann="auto", metric="euclidean", support="ann",
          solver="fdpg", theta=0.0, sigma=0.0, knn_mode="union", knn_weights="gaussian",
          tol=1e-5, max_iter=5000, degree_tol=0.05, prune=1e-4, seed=1, threads=1,
          recall_sample=300, comm=None, return_distances=False, return_info=False,
          progress=False, progress_every=50):
    """The graph `lsgl learn` writes for the rows of X, as a scipy.sparse.csr_array (float64,
    symmetric; with comm: this rank's rows, shape (rows, n)). The options are those of
    `lsgl learn` (docs/learn.md). return_distances=True also returns D, a csr_array of the same
    pattern holding each edge's distance (/graph/distances: ||x_i - x_j||, or 1 - cos with
    metric="cosine"). return_info=True also returns a dict: the attributes of /graph and the
    run's summary (summary_lines: the lines the command line prints). The result is W, (W, D),
    (W, info) or (W, D, info). Bad input raises ValueError with the command line's message."""
    x = _rows(X, comm)
    options = dict(k=k, model=model, r=r, ann=ann, metric=metric, support=support,
                   solver=solver, theta=theta, sigma=sigma, knn_mode=knn_mode,
                   knn_weights=knn_weights, tol=tol, max_iter=max_iter, degree_tol=degree_tol,
                   prune=prune, seed=seed, threads=threads, recall_sample=recall_sample,
                   distances=bool(return_distances))
    indptr, indices, data, n, begin, attrs, summary, dist = _lsgl.learn(
        x, options, _handle(comm), _reporter(progress), progress_every)
    W = _csr(indptr, indices, data, n, begin)
    out = [W]
    if return_distances:
        out.append(_csr(indptr, indices, dist, n, begin))
    if return_info:
        info = dict(summary)
        info.update(attrs)
        out.append(info)
    return out[0] if len(out) == 1 else tuple(out)


def knn_graph(X, k=10, *, mode="union", weights="gaussian", **options):
    """The k-nearest-neighbour graph of `lsgl learn --model knn`: the union of the k-NN lists
    (mode="mutual": only pairs each in the other's list) with weights exp(-d^2/sigma^2)
    (weights="binary": 1); the other options of learn."""
    return learn(X, k, model="knn", knn_mode=mode, knn_weights=weights, **options)


def theta(X, k=10, *, r=3.0, ann="auto", metric="euclidean", seed=1, threads=1, comm=None):
    """What `lsgl theta` prints: the theta of [KP19] eq. 18 that gives an average degree k, with
    the mean lower and upper bounds of the per-node intervals, as a dict."""
    options = dict(k=k, model="log", r=r, ann=ann, metric=metric, support="ann", solver="fdpg",
                   theta=0.0, sigma=0.0, knn_mode="union", knn_weights="gaussian", tol=1e-5,
                   max_iter=5000, degree_tol=0.05, prune=1e-4, seed=seed, threads=threads,
                   recall_sample=0)
    return _lsgl.theta(_rows(X, comm), options, _handle(comm))


def neighbors(adata, k=10, use_rep="X_pca", key_added=None, **options):
    """Learns the graph of adata.obsm[use_rep] (use_rep="X": adata.X, dense) with lsgl.learn and
    stores it as scanpy's pp.neighbors does, so that sc.tl.umap, sc.tl.leiden and squidpy use
    it: adata.obsp["connectivities"] (the weights) and adata.obsp["distances"] (each edge's
    distance, the same pattern) as scipy.sparse.csr_matrix, and adata.uns["neighbors"] =
    {"connectivities_key", "distances_key", "params": {n_neighbors, method="lsgl", model,
    metric, use_rep, random_state}}. With key_added=K: obsp "K_connectivities",
    "K_distances" and uns K. The options are those of learn (one process: no comm).
    Modifies adata; returns None."""
    if "comm" in options:
        raise ValueError("lsgl.neighbors runs on one process (an AnnData holds every row); "
                         "under mpirun use lsgl.learn with comm=")
    for name in ("return_distances", "return_info"):
        options.pop(name, None)
    if use_rep == "X":
        X = adata.X
        if sp.issparse(X):
            raise ValueError("adata.X is sparse: learn from a dense embedding (use_rep='X_pca', "
                             "sc.pp.pca) or densify it")
    elif use_rep in adata.obsm:
        X = adata.obsm[use_rep]
    else:
        raise ValueError(f"adata.obsm has no '{use_rep}' (it has {sorted(adata.obsm.keys())}); "
                         f"pass use_rep= an obsm key or 'X'")
    W, D = learn(np.asarray(X), k, return_distances=True, **options)
    key = "neighbors" if key_added is None else key_added
    conn = "connectivities" if key_added is None else f"{key_added}_connectivities"
    dist = "distances" if key_added is None else f"{key_added}_distances"
    adata.obsp[conn] = sp.csr_matrix(W)
    adata.obsp[dist] = sp.csr_matrix(D)
    adata.uns[key] = {
        "connectivities_key": conn,
        "distances_key": dist,
        "params": {"n_neighbors": int(k), "method": "lsgl",
                   "model": options.get("model", "log"),
                   "metric": options.get("metric", "euclidean"), "use_rep": use_rep,
                   "random_state": int(options.get("seed", 1))},
    }


def read_graph(path, comm=None):
    """The graph of a graph file the commands read (lsgl's HDF5, Matrix Market, edge list,
    scipy's .npz; the format from the file's first bytes) as a csr_array (with comm: this rank's rows)."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: '{path}'")
    return _csr(*_lsgl.read_graph(path, _handle(comm)))


def write_graph(path, W, comm=None):
    """Writes W (scipy sparse, symmetric, non-negative; with comm: this rank's rows of the block
    partition) in the format the name asks for (.h5/.hdf5, .npz, .mtx, or an edge list: .txt,
    .edges, .edgelist, .tsv; .mtx and edge lists also gzipped with .gz; any other name raises
    ValueError before any work); written to a
    temporary name, then renamed. Self loops and stored zeros are dropped."""
    holder = []

    def check():
        if not sp.issparse(W) or W.ndim != 2:
            raise ValueError("W must be a 2-D scipy sparse matrix or array")
        holder.append(sp.csr_array(W))

    _collectively(comm, check)
    m = holder[0]
    n = m.shape[1]
    begin, end = block(n, comm)
    _collectively(comm, lambda: None if m.shape[0] == end - begin else _raise(
        f"W has {m.shape[0]} rows here; this rank writes rows [{begin}, {end}) of {n}"))
    m.sort_indices()
    _lsgl.write_graph(os.fspath(path), n, begin, m.indptr.astype(np.int64),
                      m.indices.astype(np.int64), m.data.astype(np.float64), _handle(comm))


def _raise(message):
    raise ValueError(message)
