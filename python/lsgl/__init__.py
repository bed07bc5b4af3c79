"""lsgl from Python: learn a large sparse graph from a data matrix, NumPy in, SciPy sparse out.

The functions run the pipelines of the lsgl executable (`lsgl learn`, `lsgl theta`, `lsgl eval`,
`lsgl densest`, `lsgl hash`: lsgl.hash) in this process, with the same options and the same
messages (docs/python.md). In a plain python3 a call
is one MPI process; under `mpirun -n P python3 script.py` pass an mpi4py communicator as `comm=`:
every rank passes its block of rows (lsgl.block) and receives its rows of the graph.
"""
import json as _json
import logging
import os
import sys

import numpy as np
import scipy.sparse as sp

from . import _lsgl

__all__ = ["learn", "knn_graph", "theta", "neighbors", "eval", "densest", "read_graph",
           "write_graph", "block", "hash"]

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


def _path(value):
    return "" if value is None else os.fspath(value)


def learn(X, k=10, *, model="log", r=3.0, ann="auto", metric="euclidean", support="ann",
          solver="fdpg", theta=0.0, sigma=0.0, knn_mode="union", knn_weights="gaussian",
          tol=1e-5, max_iter=5000, degree_tol=0.05, prune=1e-4, seed=1, threads=1,
          recall_sample="auto", candidates=None, candidates_indices="/indices",
          candidates_distances="/distances", candidates_distance="squared", checkpoint=None,
          checkpoint_every=0, resume=None, comm=None, return_distances=False, return_info=False,
          progress=False, progress_every=50):
    """The graph `lsgl learn` writes for the rows of X, as a scipy.sparse.csr_array (float64,
    symmetric; with comm: this rank's rows, shape (rows, n)). The options are those of
    `lsgl learn` (docs/learn.md); candidates=PATH reads the neighbour lists from a file
    (--candidates), checkpoint=PATH / checkpoint_every / resume=PATH save and continue the
    learning state as --checkpoint, --checkpoint-every and --resume do. return_distances=True
    also returns D, a csr_array of the same pattern holding each edge's distance
    (/graph/distances: ||x_i - x_j||, or 1 - cos with metric="cosine"). return_info=True also
    returns a dict: the attributes of /graph and the run's summary (summary_lines: the lines the
    command line prints; x_copied: whether this rank's rows of X were copied, False for a
    C-contiguous float32 X with the euclidean metric). The result is W, (W, D), (W, info) or
    (W, D, info). Bad input raises ValueError with the command line's message. X must not change
    during the call (e.g. in a progress callback): the library reads it in place."""
    x = _rows(X, comm)
    if recall_sample == "auto":
        recall_sample = -1  # lsgl's kRecallSampleAuto
    elif isinstance(recall_sample, bool) or not isinstance(recall_sample, int) \
            or recall_sample < 0:
        raise ValueError(f"recall_sample must be 'auto' or a whole number >= 0 "
                         f"(got {recall_sample!r})")
    for name, value in (("candidates", candidates), ("resume", resume)):
        if value is not None and not os.path.exists(value):
            raise FileNotFoundError(f"{name}: no such file: '{os.fspath(value)}'")
    options = dict(k=k, model=model, r=r, ann=ann, metric=metric, support=support,
                   solver=solver, theta=theta, sigma=sigma, knn_mode=knn_mode,
                   knn_weights=knn_weights, tol=tol, max_iter=max_iter, degree_tol=degree_tol,
                   prune=prune, seed=seed, threads=threads, recall_sample=recall_sample,
                   candidates=_path(candidates), candidates_indices=candidates_indices,
                   candidates_distances=candidates_distances,
                   candidates_distance=candidates_distance, checkpoint=_path(checkpoint),
                   checkpoint_every=checkpoint_every, resume=_path(resume),
                   distances=bool(return_distances))
    indptr, indices, data, n, begin, attrs, summary, dist = _lsgl.learn(
        x, options, _handle(comm), _reporter(progress), progress_every)
    W = _csr(indptr, indices, data, n, begin)
    out = [W]
    if return_distances:
        out.append(_csr(indptr, indices, dist, n, begin))
    if return_info:
        info = dict(summary)
        in_place = isinstance(X, np.ndarray) and np.may_share_memory(x, X)
        info["x_copied"] = not (info.pop("rows_borrowed") and in_place)
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
                   recall_sample=0, candidates="", candidates_indices="/indices",
                   candidates_distances="/distances", candidates_distance="squared",
                   checkpoint="", checkpoint_every=0, resume="", distances=False)
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
    _lsgl.write_graph(os.fspath(path), *_graph_rows(W, comm), _handle(comm))


def _raise(message):
    raise ValueError(message)


def _graph_rows(W, comm):
    """(n, begin, indptr, indices, data) of this rank's rows of the sparse W (int64, float64):
    every rank passes its block of rows (lsgl.block), all of W without comm."""
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
        f"W has {m.shape[0]} rows here; with comm= each rank passes rows [{begin}, {end}) of "
        f"{n} (lsgl.block(n, comm))"))
    m.sort_indices()
    return (n, begin, m.indptr.astype(np.int64), m.indices.astype(np.int64),
            m.data.astype(np.float64))


# Options that are switches on the command line (no value).
_SWITCHES = {"renumber", "balanced", "quiet", "no_diameter"}


def _words(options):
    """The command-line words of keyword options (name_with_underscores=value ->
    --name-with-underscores value; a switch when True; None and False switches left out)."""
    words = []
    for key, value in options.items():
        if value is None or (key in _SWITCHES and value is False):
            continue
        word = "--" + key.replace("_", "-")
        if key in _SWITCHES:
            words.append(word)
        elif isinstance(value, bool):
            words.append(f"{word}={'true' if value else 'false'}")
        elif isinstance(value, (list, tuple)):
            words += [word, ",".join(str(v) for v in value)]
        else:
            words += [word, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return words


def _refuse(options, names, function):
    bad = sorted(set(options) & set(names))
    if bad:
        raise TypeError(f"{function}() got keyword(s) that name files of the command line, not "
                        f"options here: {', '.join(bad)} (pass the arrays as arguments)")


def _int_vector(values, name, comm, kinds="iub"):
    """values as an int64 NumPy vector (None stays None); ValueError on every rank otherwise."""
    out = []

    def check():
        if values is None:
            out.append(None)
            return
        a = np.asarray(values)
        if a.ndim != 1 or a.dtype.kind not in kinds:
            raise ValueError(f"{name} must be a 1-D array of integers (or booleans), got "
                             f"{a.dtype} of shape {a.shape}")
        out.append(np.ascontiguousarray(a, dtype=np.int64))

    _collectively(comm, check)
    return out[0]


_FILE_OPTIONS = ("graph", "format", "duplicates", "symmetry", "renumber", "labels_dataset",
                 "help", "config")


def eval(W, labels=None, known=None, *, known_fraction=0.01, seed=1, lp_rtol=1e-6,
         lp_max_iter=10000, max_classes=256, diameter=True, diameter_exact_max=5000,
         diameter_bfs=4, embedding=False, eigenvectors=2, laplacian="combinatorial",
         eig_tol=1e-8, predictions=None, json=None, comm=None, progress=False):
    """The measures `lsgl eval` reports for the symmetric sparse W, as the dict that
    `lsgl eval --json` writes (n, edges, degree, components, diameter, label_propagation,
    class_connectivity, wrong_edge_share, embedding, seconds, ...), with NumPy arrays of this
    rank's rows: "predictions" (with labels: the label of every node, given or predicted, -1
    when unreachable), "known" (bool: the label was given) and, with embedding=True, the
    spectral embedding that --embedding writes in out["embedding"]["vectors"] (rows x
    eigenvectors) beside its eigenvalues. labels: one integer
    per node, negative = unlabelled; known: a boolean mask of the nodes whose label is given
    (default: the seeded known_fraction). predictions=PATH and json=PATH also write the
    command's files. With comm: each rank passes its block of rows of W, labels and known."""
    n, begin, indptr, indices, data = _graph_rows(W, comm)
    y = _int_vector(labels, "labels", comm)
    mask = _int_vector(known, "known", comm)
    options = dict(known_fraction=known_fraction, seed=seed, lp_rtol=lp_rtol,
                   lp_max_iter=lp_max_iter, max_classes=max_classes,
                   no_diameter=not diameter, diameter_exact_max=diameter_exact_max,
                   diameter_bfs=diameter_bfs, eigenvectors=eigenvectors, laplacian=laplacian,
                   eig_tol=eig_tol, predictions=predictions, json=json, quiet=False)
    report, predicted, given, vectors = _lsgl.eval(
        n, begin, indptr, indices, data, y, mask, bool(embedding), _words(options),
        _handle(comm), _reporter(progress))
    out = _json.loads(report)
    if y is not None:
        out["predictions"] = predicted
        out["known"] = given.astype(bool)
    if embedding:
        out["embedding"]["vectors"] = vectors
    return out


def densest(W, size, method="dpcd", *, seed=None, output=None, comm=None, return_info=False,
            progress=False, **options):
    """The `size` nodes `lsgl densest --size SIZE --method METHOD` finds in the symmetric,
    non-negative sparse W (a large x^T W x), as a sorted int64 NumPy array of node indices (on
    every rank, with comm). method: dpcd, dpcd-0, peel, ravi, feige, tpower, lp, l2box-admm,
    mpec-epm or mpec-adm; every other option of `lsgl densest` is a keyword with underscores
    (init="degree,peel", ns_m=3, l2box_rho=0.1, ...), with its default and checks.
    output=PATH also writes the command's file. return_info=True also returns a dict: k,
    density (x^T W x / k), edges_inside, weight_inside, init, iterations, converged,
    objective (after each iteration), seconds. With comm: each rank passes its block of rows."""
    _refuse(options, _FILE_OPTIONS, "densest")
    _collectively(comm, lambda: None if isinstance(size, (int, np.integer)) and isinstance(
        method, str) and "," not in method else _raise(
        "size must be one integer and method one name (run one call per size and method)"))
    n, begin, indptr, indices, data = _graph_rows(W, comm)
    words = _words(dict(size=size, method=method, seed=seed, output=output, **options))
    (members, info), = _lsgl.densest(n, begin, indptr, indices, data, words, _handle(comm),
                                     _reporter(progress))
    if comm is not None and comm.Get_size() > 1:
        members = np.concatenate(comm.allgather(members))
    members = np.sort(members)
    return (members, info) if return_info else members


from . import hash  # noqa: E402  (the lsgl.hash functions use the helpers above)
