#!/usr/bin/env python3
"""The Python module lsgl (python/, docs/python.md) against the executable, in one plain python3
process. Usage: python_tests.py LSGL MPIEXEC, with the built package on PYTHONPATH (build/python).

- lsgl.learn equals the graph `lsgl learn` writes for the same data and options (read with h5py)
  to 1e-12 (log with fdpg, fbf and cosine; knn); symmetric; knn weights in (0, 1].
- every dtype/order/view of X gives the same graph; a C-contiguous float32 X is not copied
  (info x_copied) and stays unchanged with metric="cosine"; lsgl.theta equals `lsgl theta`.
- bad input raises ValueError with the command line's one-line message, and the interpreter
  goes on to the next call; read_graph/write_graph round trips; docs/python.md's example runs.
- learn(candidates=, checkpoint=, resume=) gives the graphs of --candidates, --checkpoint and
  --resume.
- lsgl.eval equals `lsgl eval --json` (every number but the times), its predictions and
  embedding the --predictions and --embedding files, with negative labels and a known mask.
- lsgl.densest equals the set `lsgl densest --output set.txt` writes, for several methods and
  options; lsgl.hash.train/encode/evaluate equal `lsgl hash train|encode|eval` (codes, MAP),
  and Model.save writes a model file `lsgl hash encode` reads (and load reads the CLI's).
"""
import functools
import json
import os
import re
import subprocess

import h5py
import numpy as np
import scipy.sparse as sp

import h5py

from harness import Suite, four_blobs, load_graph, write_h5

import lsgl

# MPI's singleton start in this process (lsgl's first call) sets OMPI_/PMIX_ variables in the C
# environment; the mpirun of the executable's runs gets Python's copy of the environment instead.
subprocess.run = functools.partial(subprocess.run, env=dict(os.environ))

suite = Suite("lsgl-python-", ranks=1, timeout=300)
X, _ = four_blobs()  # 600 x 5 float32, C order
path = suite.path("x.h5")
write_h5(path, "X", X.astype(np.float32))


def same_graph(A, B, tol=1e-12):
    """(equal pattern and values within tol, detail)."""
    A, B = sp.csr_array(A), sp.csr_array(B)
    A.sort_indices()
    B.sort_indices()
    if A.shape != B.shape or A.nnz != B.nnz:
        return False, f"shape/nnz {A.shape}/{A.nnz} vs {B.shape}/{B.nnz}"
    if not (np.array_equal(A.indptr, B.indptr) and np.array_equal(A.indices, B.indices)):
        return False, "different sparsity pattern"
    diff = np.max(np.abs(A.data - B.data)) if A.nnz else 0.0
    return diff <= tol, f"max |diff| = {diff:.3e}"


def cli_graph(name, *args):
    out = suite.path(f"{name}.h5")
    p = suite.run("learn", "--input", path, "--output", out, "--quiet", *args)
    suite.setup(f"lsgl learn {name}", p)
    return load_graph(out)


def learn_equals_cli():
    for name, kw, args in [
        ("log", dict(model="log"), ["--model", "log"]),
        ("knn", dict(model="knn"), ["--model", "knn"]),
        ("log-cosine", dict(metric="cosine", r=2), ["--metric", "cosine", "--r", "2"]),
        ("log-fbf", dict(solver="fbf", tol=1e-6), ["--solver", "fbf", "--tol", "1e-6"]),
    ]:
        W_cli, attrs_cli, _, _ = cli_graph(name, "--k", 6, "--ann", "exact", *args)
        W, info = lsgl.learn(X, 6, ann="exact", return_info=True, **kw)
        ok, detail = same_graph(W, W_cli)
        suite.check(f"learn {name}: the graph of `lsgl learn` (1e-12)", ok, detail)
        suite.check(f"learn {name}: csr_array float64 n x n",
                    isinstance(W, sp.csr_array) and W.dtype == np.float64 and W.shape == (600,) * 2)
        suite.check(f"learn {name}: symmetric", abs(W - W.T).max() == 0)
        text = lambda v: v.decode() if isinstance(v, bytes) else v  # h5py: fixed-length bytes
        same_attrs = [k for k in ("model", "nnz", "avg_degree", "candidates_per_node", "ann")
                      if info.get(k) != text(attrs_cli.get(k))]
        suite.check(f"learn {name}: info holds the /graph attributes", not same_attrs, same_attrs)
        if name == "knn":
            suite.check("knn: weights in (0, 1]", W.data.min() > 0 and W.data.max() <= 1.0,
                        f"{W.data.min()} {W.data.max()}")
    W = lsgl.knn_graph(X, 6, ann="exact")
    suite.check("knn_graph: the knn model of learn",
                same_graph(W, lsgl.learn(X, 6, model="knn", ann="exact"), 0)[0])
    suite.check("learn: the summary lines in info",
                any("average degree" in line for line in info["summary_lines"]))


def layouts_same_graph():
    """A C-contiguous float32 X is read in place (info x_copied: not copied by the module nor the
    library); every other dtype/order/view is converted once and gives the identical graph. With
    metric="cosine" the library normalises a copy of the rows and leaves X unchanged."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    X64 = X32.astype(np.float64)  # the same values
    W, info = lsgl.learn(X32, 6, ann="exact", return_info=True)
    suite.check("learn: float32 C is read in place (x_copied False)", info["x_copied"] is False,
                info["x_copied"])
    wide = np.zeros((1200, 9))
    wide[::2, 2:7] = X64
    variants = {
        "float64 C": X64,
        "float64 Fortran": np.asfortranarray(X64),
        "float32 Fortran": np.asfortranarray(X32),
        "strided view": wide[::2, 2:7],
        "list of lists": X32.tolist(),
    }
    for name, V in variants.items():
        W_v, info = lsgl.learn(V, 6, ann="exact", return_info=True)
        ok, detail = same_graph(W_v, W, 0)
        suite.check(f"learn: {name} gives the graph of float32 C", ok, detail)
        suite.check(f"learn: {name} is copied (x_copied True)", info["x_copied"] is True,
                    info["x_copied"])
    before = X32.copy()
    W_c, info = lsgl.learn(X32, 6, ann="exact", metric="cosine", return_info=True)
    suite.check("learn cosine: X is left unchanged", np.array_equal(X32, before))
    suite.check("learn cosine: the rows are copied (x_copied True)", info["x_copied"] is True,
                info["x_copied"])
    ok, detail = same_graph(W_c, lsgl.learn(X64, 6, ann="exact", metric="cosine"), 0)
    suite.check("learn cosine: float32 C gives the graph of float64 C", ok, detail)


def theta_equals_cli():
    p = suite.run("theta", "--input", path, "--k", 6, "--ann", "exact")
    suite.setup("lsgl theta", p)
    expected = float(re.search(r"^theta = (\S+)", p.stdout, re.M).group(1))
    t = lsgl.theta(X, 6, ann="exact")
    suite.check("theta: `lsgl theta`'s value", abs(t["theta"] - expected) <= 1e-9 * expected,
                f"{t['theta']} vs {expected}")


def raises(name, fn, message):
    """fn() raises ValueError whose text contains `message`."""
    try:
        fn()
    except ValueError as e:
        suite.check(f"bad input: {name}", message in str(e), f"message {str(e)!r}")
        return str(e)
    except Exception as e:  # noqa: BLE001 - any other outcome is the failure reported
        suite.check(f"bad input: {name}", False, f"{type(e).__name__}: {e}")
        return None
    suite.check(f"bad input: {name}", False, "no exception")
    return None


def cli_error(*args):
    p = suite.run("learn", *args, "--output", suite.path("refused.h5"))
    lines = [l for l in p.stderr.splitlines() if l.startswith("lsgl: error: ")]
    return lines[0][len("lsgl: error: "):] if lines else None


def bad_inputs():
    nan = X.copy()
    nan[7, 3] = np.nan
    nan_path = write_h5(suite.path("nan.h5"), "X", nan) or suite.path("nan.h5")
    e = raises("NaN row", lambda: lsgl.learn(nan, 6),
               "input contains NaN or Inf values (first at row 7, column 3)")
    cli = cli_error("--input", nan_path)
    suite.check("NaN row: the CLI's message", e is not None and cli is not None
                and e.split(" in ")[0] == cli.split(" in ")[0], f"{e!r} vs {cli!r}")
    e = raises("k too large", lambda: lsgl.learn(X[:20], 10),
               "need more points than candidates per node")
    cli = cli_error("--input", write_h5(suite.path("x20.h5"), "X", X[:20]) or suite.path("x20.h5"),
                    "--k", "10")
    suite.check("k too large: the CLI's message", e == cli, f"{e!r} vs {cli!r}")
    e = raises("unknown model", lambda: lsgl.learn(X, 6, model="bogus"), "unknown --model 'bogus'")
    suite.check("unknown model: the CLI's message", e == cli_error("--input", path, "--model",
                                                                     "bogus"))
    raises("1-D array", lambda: lsgl.learn(X[:, 0], 6), "X must be a 2-D array")
    raises("object array", lambda: lsgl.learn(np.array([[1, "a"]], dtype=object), 6),
           "X must be a 2-D array of numbers")
    raises("empty array", lambda: lsgl.learn(np.zeros((0, 5)), 6),
           "X must have at least one row and one column")
    raises("k = 0", lambda: lsgl.learn(X, 0), "--k must be at least 1")
    raises("asymmetric W", lambda: lsgl.write_graph(suite.path("asym.h5"),
                                                    sp.csr_array(np.triu(np.ones((4, 4)), 1))),
           "not symmetric")
    suite.check("asymmetric W: nothing written", not os.path.exists(suite.path("asym.h5")))
    try:
        lsgl.read_graph(suite.path("missing.h5"))
        suite.check("read_graph: missing file raises FileNotFoundError", False)
    except FileNotFoundError:
        suite.check("read_graph: missing file raises FileNotFoundError", True)
    ok, detail = same_graph(lsgl.learn(X, 6, ann="exact"), cli_graph("after", "--k", 6, "--ann",
                                                                      "exact")[0])
    suite.check("the interpreter survives: the next call learns the graph", ok, detail)


def graph_files():
    W_cli = load_graph(suite.path("log.h5"))[0]
    ok, detail = same_graph(lsgl.read_graph(suite.path("log.h5")), W_cli, 0)
    suite.check("read_graph: the file's graph", ok, detail)
    out = suite.path("written.h5")
    lsgl.write_graph(out, W_cli)
    ok, detail = same_graph(load_graph(out)[0], W_cli, 0)
    suite.check("write_graph: h5py reads the same graph", ok, detail)
    p = suite.run("eval", "--graph", out)
    suite.check("write_graph: `lsgl eval` reads the file", p is not None and p.returncode == 0,
                p.stderr if p else "timeout")
    # The format the name asks for, as the commands write it, or a refusal.
    lsgl.write_graph(suite.path("written.npz"), W_cli)
    ok, detail = same_graph(sp.load_npz(suite.path("written.npz")), W_cli, 0)
    suite.check("write_graph: .npz loads with scipy.sparse.load_npz", ok, detail)
    lsgl.write_graph(suite.path("written.mtx"), W_cli)
    ok, detail = same_graph(lsgl.read_graph(suite.path("written.mtx")), W_cli, 1e-15)
    suite.check("read_graph: the Matrix Market file write_graph wrote", ok, detail)
    raises("an output name of no known format",
           lambda: lsgl.write_graph(suite.path("written.xyz"), W_cli), "written.xyz")
    suite.check("an output name of no known format: nothing written",
                not os.path.exists(suite.path("written.xyz")))


def edge_distances(W, rows):
    """||x_i - x_j|| of every stored entry of W (float32 rows as the library reads them, double
    sums), as a csr_array of W's pattern."""
    C = sp.coo_array(W)
    x = np.asarray(rows, dtype=np.float32).astype(np.float64)
    d = np.sqrt(((x[C.row] - x[C.col]) ** 2).sum(1))
    return sp.csr_array((d, (C.row, C.col)), shape=W.shape)


def brute_knn(rows, k):
    """The directed k-NN adjacency (0/1, row i: the k nearest other rows by (distance, index))."""
    x = np.asarray(rows, dtype=np.float32).astype(np.float64)
    D = ((x[:, None, :] - x[None, :, :]) ** 2).sum(2)
    np.fill_diagonal(D, np.inf)
    order = np.lexsort((np.broadcast_to(np.arange(len(x)), D.shape), D), axis=1)[:, :k]
    A = np.zeros(D.shape, dtype=bool)
    A[np.arange(len(x))[:, None], order] = True
    return A


def distances_and_knn_variants():
    W, D = lsgl.learn(X, 6, ann="exact", return_distances=True)
    ok, detail = same_graph(D, edge_distances(W, X), 1e-12 * D.max())
    suite.check("learn return_distances: ||x_i - x_j|| of each edge, W's pattern", ok, detail)
    with h5py.File(suite.path("log.h5"), "r") as f:
        g = f["graph"]
        D_cli = sp.csr_array((g["distances"][:], g["indices"][:], g["indptr"][:]), shape=W.shape)
    ok, detail = same_graph(D, D_cli, 0)
    suite.check("learn return_distances: /graph/distances of `lsgl learn`", ok, detail)
    W2, D2, info = lsgl.learn(X, 6, ann="exact", return_distances=True, return_info=True)
    suite.check("learn: (W, D, info) with both", same_graph(W2, W, 0)[0] and "nnz" in info)
    A = brute_knn(X, 6)
    for mode, weights, pattern in [("mutual", "binary", A & A.T), ("union", "binary", A | A.T),
                                   ("mutual", "gaussian", A & A.T)]:
        G = lsgl.knn_graph(X, 6, mode=mode, weights=weights, ann="exact")
        name = f"knn_graph mode={mode} weights={weights}"
        suite.check(f"{name}: the brute-force pattern",
                    np.array_equal(G.toarray() != 0, pattern), f"nnz {G.nnz} vs {pattern.sum()}")
        if weights == "binary":
            suite.check(f"{name}: every weight 1", G.nnz > 0 and np.all(G.data == 1.0))
        W_cli = cli_graph(f"knn-{mode}-{weights}", "--k", 6, "--ann", "exact", "--model", "knn",
                          "--knn-mode", mode, "--knn-weights", weights)[0]
        ok, detail = same_graph(G, W_cli, 0)
        suite.check(f"{name}: the graph of `lsgl learn`", ok, detail)
    suite.check("knn: the mutual graph is a strict part of the union",
                (A & A.T).sum() < (A | A.T).sum())


def neighbors_anndata():
    try:
        import anndata
    except ImportError:
        suite.check("python3-anndata installed (jobs/install.sh --test installs it)", False)
        return
    a = anndata.AnnData(X=np.zeros((len(X), 3), dtype=np.float32))
    a.obs_names = [f"c{i}" for i in range(len(X))]
    a.obsm["X_pca"] = X
    lsgl.neighbors(a, k=6, ann="exact")
    W = lsgl.learn(X, 6, ann="exact")
    conn, dist = a.obsp.get("connectivities"), a.obsp.get("distances")
    suite.check("neighbors: obsp connectivities = learn's graph",
                conn is not None and same_graph(conn, W, 0)[0])
    ok, detail = (same_graph(dist, edge_distances(W, X), 1e-12 * float(dist.max()))
                  if dist is not None else (False, "no obsp distances"))
    suite.check("neighbors: obsp distances = ||x_i - x_j|| of each edge", ok, detail)
    u = a.uns.get("neighbors", {})
    params = u.get("params", {})
    suite.check("neighbors: uns as scanpy's pp.neighbors",
                u.get("connectivities_key") == "connectivities"
                and u.get("distances_key") == "distances" and params.get("n_neighbors") == 6
                and params.get("method") == "lsgl" and params.get("use_rep") == "X_pca"
                and params.get("metric") == "euclidean", u)
    lsgl.neighbors(a, k=6, ann="exact", key_added="knn", model="knn")
    u = a.uns.get("knn", {})
    suite.check("neighbors key_added: obsp knn_connectivities, knn_distances, uns knn",
                "knn_connectivities" in a.obsp and "knn_distances" in a.obsp
                and u.get("connectivities_key") == "knn_connectivities"
                and u.get("distances_key") == "knn_distances"
                and u.get("params", {}).get("model") == "knn"
                and same_graph(a.obsp["connectivities"], W, 0)[0])
    path_ = suite.path("cells.h5ad")
    a.write_h5ad(path_)
    b = anndata.read_h5ad(path_)
    suite.check("neighbors: write_h5ad + read_h5ad keep obsp and uns",
                all(same_graph(b.obsp[k], a.obsp[k], 0)[0] for k in a.obsp.keys())
                and b.uns["neighbors"]["params"]["method"] == "lsgl"
                and b.uns["knn"]["distances_key"] == "knn_distances"
                and list(b.obs_names) == list(a.obs_names))
    raises("neighbors: a missing use_rep", lambda: lsgl.neighbors(a, use_rep="X_umap"),
           "adata.obsm has no 'X_umap'")


def docs_example():
    docs = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
    with open(docs) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    cwd = os.getcwd()
    os.chdir(suite.tmp)
    try:
        for i, code in enumerate(blocks):
            if "mpi4py" in code:
                continue  # the mpirun example runs in python_mpi_tests.py
            try:
                exec(compile(code, f"docs/python.md block {i}", "exec"), {})
                suite.check(f"docs/python.md: example {i} runs", True)
            except Exception as e:  # noqa: BLE001 - reported as the failure
                suite.check(f"docs/python.md: example {i} runs", False, f"{type(e).__name__}: {e}")
    finally:
        os.chdir(cwd)
    suite.check("docs/python.md: has examples", len(blocks) > 0)


def learn_files_equal_cli():
    """candidates=, checkpoint=, checkpoint_every=, resume=: the CLI's graphs."""
    from scipy.spatial.distance import cdist
    D = cdist(X, X, "sqeuclidean")
    np.fill_diagonal(D, np.inf)
    ids = np.argsort(D, axis=1, kind="stable")[:, 1:19]  # not the search's: nearest left out
    cand = suite.path("cand-lists.h5")
    with h5py.File(cand, "w") as f:
        f["indices"] = ids.astype(np.int64)
        f["distances"] = np.take_along_axis(D, ids, axis=1)
    W_cli = cli_graph("cand", "--k", 6, "--candidates", cand)[0]
    ok, detail = same_graph(lsgl.learn(X, 6, candidates=cand), W_cli)
    suite.check("learn candidates=: the graph of --candidates (1e-12)", ok, detail)
    suite.check("learn candidates=: not the graph of the search",
                not same_graph(W_cli, lsgl.learn(X, 6))[0])
    ck_cli, ck_py = suite.path("ck-cli.h5"), suite.path("ck-py.h5")
    W_cli = cli_graph("ck", "--k", 6, "--ann", "exact", "--checkpoint", ck_cli,
                      "--checkpoint-every", 20)[0]
    W = lsgl.learn(X, 6, ann="exact", checkpoint=ck_py, checkpoint_every=20)
    ok, detail = same_graph(W, W_cli)
    suite.check("learn checkpoint=: the graph of --checkpoint", ok, detail)
    with h5py.File(ck_cli, "r") as a, h5py.File(ck_py, "r") as b:
        same = sorted(a.keys()) == sorted(b.keys()) and len(a.keys()) > 0
    suite.check("learn checkpoint=: a checkpoint file of the CLI's layout", same)
    W_cli = cli_graph("resumed", "--k", 6, "--ann", "exact", "--resume", ck_cli)[0]
    ok, detail = same_graph(lsgl.learn(X, 6, ann="exact", resume=ck_py), W_cli)
    suite.check("learn resume=: the graph of --resume", ok, detail)
    try:
        lsgl.learn(X, 6, candidates=suite.path("none.h5"))
        suite.check("learn candidates=: a missing file raises FileNotFoundError", False)
    except FileNotFoundError:
        suite.check("learn candidates=: a missing file raises FileNotFoundError", True)


Y = np.repeat(np.arange(4), 150).astype(np.int64)
Y[::7] = -1  # unlabelled nodes: never known, never scored


def numbers(d, prefix=""):
    """The values of an eval report, flattened: times, file names and the arrays lsgl.eval adds
    (predictions, known, embedding.vectors) left out."""
    out = {}
    for key, value in d.items():
        if key in ("seconds", "graph", "format", "known_file", "path", "vectors") or (
                not prefix and key in ("predictions", "known")):
            continue
        if isinstance(value, dict):
            out.update(numbers(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value
    return out


def eval_equals_cli():
    W = lsgl.learn(X, 6, ann="exact")
    graph, labels, mask = suite.path("eval-g.h5"), suite.path("eval-y.h5"), suite.path("known.h5")
    lsgl.write_graph(graph, W)
    write_h5(labels, "labels", Y)
    known = (np.arange(600) % 9 == 1) & (Y >= 0)
    write_h5(mask, "known", known.astype(np.int64))
    for name, kw, args in [
        ("fraction", dict(known_fraction=0.05, seed=3), ["--known-fraction", "0.05", "--seed", 3]),
        ("known mask", dict(known=known), ["--known", mask]),
        ("normalized embedding", dict(embedding=True, eigenvectors=3, laplacian="normalized"),
         ["--embedding", suite.path("emb.h5"), "--eigenvectors", 3, "--laplacian", "normalized"]),
    ]:
        out = suite.path("eval.json")
        p = suite.run("eval", "--graph", graph, "--labels", labels, "--json", out, "--quiet",
                      "--predictions", suite.path("pred.h5"), *args)
        suite.setup(f"lsgl eval {name}", p)
        with open(out) as f:
            cli = json.load(f)
        r = lsgl.eval(W, Y, **kw)
        a, b = numbers(r), numbers(cli)
        differ = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
        suite.check(f"eval {name}: every number of `lsgl eval --json`", not differ and len(b) > 30,
                    differ)
        with h5py.File(suite.path("pred.h5"), "r") as f:
            ok = (np.array_equal(r["predictions"], f["predictions"][:])
                  and np.array_equal(r["known"], f["known"][:] == 1))
        suite.check(f"eval {name}: predictions and known of --predictions", ok)
        if kw.get("embedding"):
            with h5py.File(suite.path("emb.h5"), "r") as f:
                V, values = f["embedding/vectors"][:], f["embedding/values"][:]
            vectors = r["embedding"]["vectors"]
            diff = np.max(np.abs(vectors - V))
            suite.check("eval embedding=True: the vectors of --embedding (1e-12)",
                        vectors.shape == (600, 3) and diff <= 1e-12, f"max |diff| {diff}")
            suite.check("eval embedding=True: the eigenvalues of --embedding",
                        np.array_equal(r["embedding"]["eigenvalues"], values))
    r = lsgl.eval(W, diameter=False)
    suite.check("eval without labels: no predictions, no diameter",
                "predictions" not in r and r["diameter"] is None and r["components"] >= 1)
    raises("eval: labels of the wrong length", lambda: lsgl.eval(W, Y[:10]),
           "labels must hold one entry per node")
    raises("eval: a known node without a label",
           lambda: lsgl.eval(W, Y, known=np.ones(600, bool)), "but its label is negative")
    raises("eval: an unknown option value", lambda: lsgl.eval(W, laplacian="bogus"),
           "unknown --laplacian 'bogus'")
    raises("eval: float labels", lambda: lsgl.eval(W, Y.astype(float)),
           "labels must be a 1-D array of integers")
    raises("eval: an asymmetric W", lambda: lsgl.eval(sp.csr_array(np.triu(np.ones((4, 4)), 1))),
           "not symmetric")


def densest_equals_cli():
    W = lsgl.learn(X, 6, ann="exact")
    graph = suite.path("eval-g.h5")
    for method, kw, args in [
        ("dpcd", {}, []),
        ("dpcd", dict(init="degree,peel", ns_m=3, init_mode="each"),
         ["--init", "degree,peel", "--ns-m", 3, "--init-mode", "each"]),
        ("peel", {}, []), ("tpower", {}, []), ("lp", dict(lp_max_iter=50), ["--lp-max-iter", 50]),
        ("l2box-admm", {}, []),
    ]:
        out = suite.path("set.txt")
        p = suite.run("densest", "--graph", graph, "--size", 40, "--method", method, "--output",
                      out, "--quiet", *args)
        suite.setup(f"lsgl densest {method}", p)
        cli = np.sort(np.loadtxt(out, dtype=np.int64))
        S, info = lsgl.densest(W, 40, method, return_info=True, **kw)
        label = f"densest {method} {' '.join(map(str, args))}".strip()
        suite.check(f"{label}: the set of `lsgl densest`", np.array_equal(S, cli),
                    f"{len(set(S) ^ set(cli))} nodes differ")
        inside = W[S][:, S].sum()
        suite.check(f"{label}: density = x^T W x / k",
                    S.dtype == np.int64 and abs(info["density"] - inside / 40) <= 1e-9 * inside,
                    f"{info['density']} vs {inside / 40}")
    raises("densest: size > n", lambda: lsgl.densest(W, 601), "exceeds the number of nodes")
    raises("densest: unknown method", lambda: lsgl.densest(W, 10, "bogus"),
           "unknown --method 'bogus'")
    raises("densest: an option of another method", lambda: lsgl.densest(W, 10, "peel", ns_m=3),
           "ns-m")
    raises("densest: an unknown option", lambda: lsgl.densest(W, 10, bogus_option=1),
           "bogus-option")
    raises("densest: negative weights", lambda: lsgl.densest(-W, 10),
           "weights must be finite and >= 0")


def hash_equals_cli():
    Xh, yh = X.astype(np.float32), np.repeat(np.arange(4), 150).astype(np.int64)
    x, y = suite.path("hx.h5"), suite.path("hy.h5")
    write_h5(x, "X", Xh)
    write_h5(y, "labels", yh)
    for name, bits, kw, args in [
        ("sdh", 16, dict(anchors=100), ["--anchors", 100]),
        ("itq cosine", 4, dict(loss="itq", metric="cosine"),
         ["--loss", "itq", "--metric", "cosine"]),
    ]:
        model, codes, out = suite.path("model.h5"), suite.path("codes.h5"), suite.path("h.json")
        lab = ["--labels", y]  # itq ignores them in training; hash eval needs them
        suite.setup(f"lsgl hash train {name}",
                    suite.run("hash", "train", "--input", x, *lab, "--bits", bits, "--output",
                              model, "--quiet", *args))
        suite.setup(f"lsgl hash encode {name}",
                    suite.run("hash", "encode", "--model", model, "--input", x, "--labels", y,
                              "--output", codes, "--quiet"))
        suite.setup(f"lsgl hash eval {name}",
                    suite.run("hash", "eval", "--queries", codes, "--database", model,
                              "--json", out, "--quiet"))
        with h5py.File(codes, "r") as f:
            cli_codes = f["hash/codes"][:]
        with open(out) as f:
            cli = json.load(f)
        m = lsgl.hash.train(Xh, yh, bits, **kw)
        C = m.encode(Xh)
        suite.check(f"hash {name}: encode gives the codes of `lsgl hash encode`",
                    C.dtype == np.uint8 and C.shape == (600, (bits + 7) // 8)
                    and np.array_equal(C, cli_codes))
        r = lsgl.hash.evaluate(C, yh, C, yh, bits=m.bits)
        suite.check(f"hash {name}: evaluate's MAP and Precision@500 of `lsgl hash eval`",
                    r["map"] == cli["map"] and r["precision_at_500"] == cli["precision_at_500"],
                    f"{r} vs {cli}")
        saved = suite.path("model-py.h5")
        m.save(saved)
        suite.setup("lsgl hash encode with the saved model",
                    suite.run("hash", "encode", "--model", saved, "--input", x, "--output",
                              suite.path("codes-py.h5"), "--quiet"))
        with h5py.File(suite.path("codes-py.h5"), "r") as f:
            suite.check(f"hash {name}: Model.save writes a model `lsgl hash encode` reads",
                        np.array_equal(f["hash/codes"][:], cli_codes))
        loaded = lsgl.hash.load(model)
        suite.check(f"hash {name}: load reads the CLI's model (same codes, metric)",
                    np.array_equal(loaded.encode(Xh), cli_codes) and loaded.metric == m.metric
                    and loaded.bits == bits)
    raises("hash: sdh without labels", lambda: lsgl.hash.train(Xh, bits=8), "is supervised")
    raises("hash: bits = 0", lambda: lsgl.hash.train(Xh, yh, 0), "bits")
    raises("hash: an unknown loss", lambda: lsgl.hash.train(Xh, yh, loss="bogus"),
           "unknown --loss 'bogus'")
    m = lsgl.hash.train(Xh, yh, 16, anchors=100)
    C = m.encode(Xh)
    raises("hash: encode with other columns", lambda: m.encode(Xh[:, :3]),
           "the model expects 5")
    raises("hash: NaN rows", lambda: m.encode(np.full((2, 5), np.nan, np.float32)),
           "NaN or Inf")
    raises("hash: evaluate labels of the wrong length",
           lambda: lsgl.hash.evaluate(C, yh[:5], C, yh), "one label per code")


learn_equals_cli()
learn_files_equal_cli()
eval_equals_cli()
densest_equals_cli()
hash_equals_cli()
layouts_same_graph()
theta_equals_cli()
bad_inputs()
graph_files()
distances_and_knn_variants()
neighbors_anndata()
docs_example()
suite.finish()
