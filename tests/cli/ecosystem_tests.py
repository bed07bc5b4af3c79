"""Issue 18 through the real executable at NP ranks: --candidates (brute-force lists written here,
clean and dirty, as lists and as a sparse matrix) against --ann exact, --metric cosine against rows
normalised here, AnnData .h5ad input written by python3-anndata, lsgl convert round trips, and the
loading snippets of docs/loading.md run on a learned graph with scipy, NetworkX, igraph and R's
Matrix (through hdf5r and readMM). Each run has a timeout; bad input must give one `lsgl: error`
line and exit code 1.
Usage: ecosystem_tests.py LSGL MPIEXEC NP (on the shared harness, tests/cli/harness.py)
"""
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import scipy.io
import scipy.sparse as sp

from harness import Suite, error_lines

NP = int(sys.argv[3])
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "loading.md")
TIMEOUT = 180
T = Suite("lsgl-ecosystem-", ranks=NP, timeout=TIMEOUT)
run, check = T.run, T.check


def ok_run(name, *args):
    p = run(*args)
    good = p is not None and p.returncode == 0
    check(name + " runs", good, "" if p is None else p.stdout[-2000:] + p.stderr[-2000:])
    return p if good else None


def expect_error(name, fragment, *args):
    p = run(*args)
    if p is None:
        check(name, False, "timed out (hang?)")
        return
    lines = error_lines(p)
    check(name, p.returncode == 1 and len(lines) == 1 and fragment in lines[0],
          f"rc {p.returncode}, error lines {lines}")


def load(path):
    with h5py.File(path, "r") as f:
        g = f["graph"]
        n = g["indptr"].shape[0] - 1
        return sp.csr_array((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))


def same_graph(name, a, b, rtol=1e-9):
    a, b = sp.csr_array(a), sp.csr_array(b)
    pattern = a.shape == b.shape and a.nnz == b.nnz and \
        (abs(a.sign() - b.sign()) if a.nnz else a).nnz == 0
    err = float(abs(a - b).max()) if a.shape == b.shape else float("inf")
    scale = float(abs(a).max()) if a.nnz else 1.0
    check(name, pattern and err <= rtol * scale,
          f"shapes {a.shape} {b.shape}, nnz {a.nnz} {b.nnz}, max diff {err:.3g}")


def brute_force(X):
    X = X.astype(np.float64)
    sq = (X * X).sum(1)
    D = np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0)
    return D


def candidates_tests(tmp, X, data):
    k, m = 5, 15
    D = brute_force(X)
    n = len(X)
    np.fill_diagonal(D, np.inf)
    order = np.argsort(D, axis=1, kind="stable")[:, :m]
    near = np.take_along_axis(D, order, 1)
    exact = os.path.join(tmp, "exact.h5")
    if not ok_run("learn --ann exact", "learn", "--input", data, "--k", k, "--ann", "exact",
                  "--output", exact, "--quiet"):
        return
    want = load(exact)

    clean = os.path.join(tmp, "clean.h5")
    with h5py.File(clean, "w") as f:
        f["indices"], f["distances"] = order, near
    out = os.path.join(tmp, "from_clean.h5")
    p = ok_run("learn --candidates clean", "learn", "--input", data, "--k", k, "--candidates",
               clean, "--output", out)
    if p:
        same_graph("clean lists give the --ann exact graph", load(out), want)
        check("summary names the file", "15 candidates per node from" in p.stdout, p.stdout)
        listed = {(i, j) for i in range(n) for j in order[i]}
        one_way = sum((j, i) not in listed for i, j in listed)
        pairs = len({(min(i, j), max(i, j)) for i, j in listed})
        check("summary counts the pairs listed one way",
              f"{one_way} of {pairs} allowed pairs are listed by one of their nodes only"
              in p.stdout, p.stdout)

    # pynndescent-like: self first, plain distances, -1 padding, repeats, shuffled, int32 ids.
    rng = np.random.default_rng(5)
    width = 2 * m + 4
    ids = -np.ones((n, width), np.int32)
    dist = np.zeros((n, width))
    for i in range(n):
        row = [(i, 0.0)] + [(j, np.sqrt(z)) for j, z in zip(order[i], near[i])]
        row += [(j, np.sqrt(z) * 2) for j, z in zip(order[i][:m // 2], near[i][:m // 2])]
        row += [(-1, 0.0)] * (width - len(row))
        rng.shuffle(row)
        ids[i] = [r[0] for r in row]
        dist[i] = [r[1] for r in row]
    dirty = os.path.join(tmp, "dirty.h5")
    with h5py.File(dirty, "w") as f:
        f["nbr/ids"], f["nbr/dist"] = ids, dist
    out = os.path.join(tmp, "from_dirty.h5")
    p = ok_run("learn --candidates dirty", "learn", "--input", data, "--k", k, "--candidates",
               dirty, "--candidates-indices", "/nbr/ids", "--candidates-distances", "/nbr/dist",
               "--candidates-distance", "euclidean", "--output", out)
    if p:
        same_graph("dirty lists give the clean graph", load(out), want)
        pad = int((ids == -1).sum())
        note = f"candidates dropped: {pad} padding entries (-1), {n} self entries, " \
               f"{n * (m // 2)} repeated neighbours"
        check("summary says what was dropped", note in p.stdout, p.stdout)

    # A sparse distance matrix in the /graph layout (rows of m + 3 neighbours, squared).
    more = np.argsort(D, axis=1, kind="stable")[:, :m + 3]
    rows = np.repeat(np.arange(n), m + 3)
    S = sp.csr_array((np.take_along_axis(D, more, 1).ravel(), (rows, more.ravel())), shape=(n, n))
    csr = os.path.join(tmp, "csr.h5")
    with h5py.File(csr, "w") as f:
        f["graph/indptr"], f["graph/indices"], f["graph/data"] = S.indptr, S.indices, S.data
    out = os.path.join(tmp, "from_csr.h5")
    if ok_run("learn --candidates csr", "learn", "--input", data, "--k", k, "--candidates", csr,
              "--output", out, "--quiet"):
        same_graph("a sparse distance matrix gives the --ann exact graph", load(out), want)

    t_exact = run("theta", "--input", data, "--k", k, "--ann", "exact")
    t_file = run("theta", "--input", data, "--k", k, "--candidates", clean)
    check("theta --candidates equals theta --ann exact",
          t_exact and t_file and t_exact.returncode == 0 and t_exact.stdout == t_file.stdout,
          "" if not (t_exact and t_file) else t_exact.stdout + t_file.stdout)

    expect_error("wrong distance choice is named", "pass --candidates-distance euclidean",
                 "learn", "--input", data, "--k", k, "--candidates", dirty,
                 "--candidates-indices", "/nbr/ids", "--candidates-distances", "/nbr/dist",
                 "--output", os.path.join(tmp, "x.h5"))
    bad = [("rows", order[:-1], near[:-1], "has lists for 299 nodes, the data has 300 rows"),
           ("range", np.where(np.arange(n)[:, None] == n - 1, n + 4, order), near,
            f"of node {n - 1} has id {n + 4}, outside [0, {n})"),
           ("negative", order, np.where(np.arange(n)[:, None] == n - 2, -1.0, near),
            f"of node {n - 2} has the negative distance -1"),
           ("nan", order, np.where(np.arange(n)[:, None] == n - 1, np.nan, near),
            "has a NaN or infinite distance"),
           ("shape", order, near[:, :-1], "must have the same shape n x m")]
    for name, a, b, fragment in bad:
        path = os.path.join(tmp, f"bad_{name}.h5")
        with h5py.File(path, "w") as f:
            f["indices"], f["distances"] = a, b
        expect_error(f"bad candidates ({name})", fragment, "learn", "--input", data, "--k", k,
                     "--candidates", path, "--output", os.path.join(tmp, "x.h5"))


def cosine_tests(tmp, X, data):
    # Normalised here as the C++ does it: the sum of squares column by column in double, then
    # each value times 1/norm, rounded to float32; so the runs below must agree exactly.
    X64 = X.astype(np.float64)
    sq = np.zeros(len(X))
    for c in range(X.shape[1]):
        sq += X64[:, c] * X64[:, c]
    Xn = X64 * (1.0 / np.sqrt(sq))[:, None]
    normed = os.path.join(tmp, "normed.h5")
    with h5py.File(normed, "w") as f:
        f["X"] = Xn.astype(np.float32)
    for engine in ["exact", "hnsw"]:
        a, b = os.path.join(tmp, f"cos_{engine}.h5"), os.path.join(tmp, f"nrm_{engine}.h5")
        if ok_run(f"learn --metric cosine --ann {engine}", "learn", "--input", data, "--k", 5,
                  "--ann", engine, "--metric", "cosine", "--output", a, "--quiet") and \
                ok_run(f"learn normalised --ann {engine}", "learn", "--input", normed, "--k", 5,
                       "--ann", engine, "--output", b, "--quiet"):
            same_graph(f"cosine ({engine}) equals Euclidean on rows normalised in the test",
                       load(a), load(b), rtol=0)
            with h5py.File(a, "r") as f:
                metric = f["graph"].attrs["metric"]
            check("metric attribute", (metric.decode() if isinstance(metric, bytes) else metric)
                  == "cosine")
    # FLANN is not repeatable (random trees): its lists must be the cosine neighbours, which the
    # recall estimate measures against brute force on the normalised rows.
    p = ok_run("learn --metric cosine --ann flann", "learn", "--input", data, "--k", 5, "--ann",
               "flann", "--metric", "cosine", "--output", os.path.join(tmp, "cos_flann.h5"))
    if p:
        recall = float(re.search(r"estimated recall (\S+)", p.stdout).group(1))
        check("flann with cosine finds the cosine neighbours (recall >= 0.99)", recall >= 0.99,
              str(recall))
    # hnswlib 'cosine' / pynndescent style lists: 1 - cos in double from the raw rows.
    U = X64 / np.linalg.norm(X64, axis=1)[:, None]
    C = 1 - U @ U.T
    np.fill_diagonal(C, np.inf)
    order = np.argsort(C, axis=1, kind="stable")[:, :15]
    lists = os.path.join(tmp, "cosine_lists.h5")
    with h5py.File(lists, "w") as f:
        f["indices"], f["distances"] = order, np.take_along_axis(C, order, 1)
    a, b = os.path.join(tmp, "cos_lists.h5"), os.path.join(tmp, "cos_exact.h5")
    if ok_run("learn --metric cosine --candidates (1 - cos)", "learn", "--input", data, "--k", 5,
              "--metric", "cosine", "--candidates", lists, "--candidates-distance", "cosine",
              "--output", a, "--quiet"):
        same_graph("cosine lists give the --metric cosine --ann exact graph", load(a),
                   load(os.path.join(tmp, "cos_exact.h5")), rtol=1e-5)
    hash_cosine_tests(tmp, data, normed)
    ta = run("theta", "--input", data, "--k", 5, "--ann", "exact", "--metric", "cosine")
    tb = run("theta", "--input", normed, "--k", 5, "--ann", "exact")
    num = lambda p: float(re.search(r"theta = (\S+)", p.stdout).group(1))
    check("theta --metric cosine equals theta on normalised rows",
          ta and tb and ta.returncode == 0 and tb.returncode == 0 and
          abs(num(ta) - num(tb)) <= 1e-6 * num(tb))
    zero = os.path.join(tmp, "zero.h5")
    with h5py.File(zero, "w") as f:
        Z = X.copy()
        Z[len(X) - 1] = 0
        f["X"] = Z
    expect_error("cosine refuses a zero row", f"row {len(X) - 1} is all zeros", "learn",
                 "--input", zero, "--k", 5, "--metric", "cosine", "--output",
                 os.path.join(tmp, "x.h5"))


def hash_cosine_tests(tmp, data, normed):
    models = [os.path.join(tmp, f"hash_{k}.h5") for k in ("cos", "nrm")]
    codes = [os.path.join(tmp, f"codes_{k}.h5") for k in ("cos", "nrm")]
    if not (ok_run("hash train --metric cosine", "hash", "train", "--input", data, "--loss", "itq",
                   "--bits", 4, "--metric", "cosine", "--output", models[0], "--quiet") and
            ok_run("hash train on normalised rows", "hash", "train", "--input", normed, "--loss",
                   "itq", "--bits", 4, "--output", models[1], "--quiet") and
            ok_run("hash encode, cosine model", "hash", "encode", "--model", models[0], "--input",
                   data, "--output", codes[0], "--quiet") and
            ok_run("hash encode, normalised", "hash", "encode", "--model", models[1], "--input",
                   normed, "--output", codes[1], "--quiet")):
        return
    with h5py.File(models[0], "r") as a, h5py.File(models[1], "r") as b:
        check("hash train --metric cosine equals training on normalised rows",
              np.array_equal(a["hash/P"][:], b["hash/P"][:]) and
              np.array_equal(a["hash/codes"][:], b["hash/codes"][:]))
    with h5py.File(codes[0], "r") as a, h5py.File(codes[1], "r") as b:
        check("hash encode applies the model's metric",
              np.array_equal(a["hash/codes"][:], b["hash/codes"][:]))


def anndata_tests(tmp, X):
    try:
        import anndata
    except ImportError:
        check("python3-anndata installed (jobs/test.sh installs it)", False)
        return
    rng = np.random.default_rng(2)
    counts = sp.random(len(X), 40, density=0.1, format="csr", random_state=3, dtype=np.float32)
    a = anndata.AnnData(X=counts)
    a.obsm["X_pca"] = X
    a.obsm["X_umap"] = rng.normal(size=(len(X), 2))
    h5ad = os.path.join(tmp, "cells.h5ad")
    a.write_h5ad(h5ad)
    plain = os.path.join(tmp, "plain.h5")
    with h5py.File(plain, "w") as f:
        f["X"] = X
    a_out, b_out = os.path.join(tmp, "h5ad_graph.h5"), os.path.join(tmp, "plain_graph.h5")
    if ok_run("learn --dataset /obsm/X_pca on .h5ad", "learn", "--input", h5ad, "--dataset",
              "/obsm/X_pca", "--k", 5, "--output", a_out, "--quiet") and \
            ok_run("learn on the same matrix in .h5", "learn", "--input", plain, "--k", 5,
                   "--output", b_out, "--quiet"):
        same_graph("the .h5ad embedding gives the same graph", load(a_out), load(b_out), 0)
    expect_error("sparse /X refused, dense datasets named",
                 "is a sparse matrix (AnnData 'csr_matrix' group), which lsgl does not read; "
                 f"its dense 2-D float datasets: /obsm/X_pca ({len(X)} x {X.shape[1]}), "
                 f"/obsm/X_umap ({len(X)} x 2)", "learn", "--input", h5ad, "--k", 5,
                 "--output", os.path.join(tmp, "x.h5"))


def convert_tests(tmp, data):
    graph = os.path.join(tmp, "graph.h5")
    if not ok_run("learn a graph", "learn", "--input", data, "--k", 6, "--output", graph,
                  "--quiet"):
        return None
    W = load(graph)
    files = {}
    for to, ext in [("mtx", "mtx"), ("edgelist", "txt"), ("npz", "npz")]:
        out = os.path.join(tmp, f"graph.{ext}")
        p = ok_run(f"convert --to {to}", "convert", "--graph", graph, "--to", to, "--output", out)
        files[to] = out
        if p:
            check(f"convert {to} summary", f"n {W.shape[0]}, {W.nnz // 2} edges" in p.stdout,
                  p.stdout)
    same_graph("npz: scipy.sparse.load_npz", sp.load_npz(files["npz"]), W, 0)
    same_graph("mtx: scipy.io.mmread", scipy.io.mmread(files["mtx"]), W, 0)
    for to in ["mtx", "edgelist"]:  # lsgl's own reader back to the HDF5 graph
        back = os.path.join(tmp, f"back_{to}.h5")
        if ok_run(f"convert {to} back", "convert", "--graph", files[to], "--output", back):
            same_graph(f"{to} read back by lsgl", load(back), W, 0)
    E = np.loadtxt(files["edgelist"], comments="#", ndmin=2)
    check("edge list: each edge once, u < v", len(E) == W.nnz // 2 and (E[:, 0] < E[:, 1]).all())
    expect_error("convert: unknown --to", "unknown --to 'csv'", "convert", "--graph", graph,
                 "--to", "csv", "--output", os.path.join(tmp, "x.csv"))
    expect_error("convert: no format from the name", "--output-format is needed", "convert",
                 "--graph", graph, "--output", os.path.join(tmp, "x.dat"))
    expect_error("convert: output is the input", "same file", "convert", "--graph", graph,
                 "--to", "hdf5", "--output", graph)
    return graph, W, files


def snippet_tests(tmp, graph, W, files):
    text = open(DOCS).read()
    blocks = re.findall(r"```(python|r)\n(.*?)```", text, re.S)
    py = [b for lang, b in blocks if lang == "python"]
    r_blocks = [b for lang, b in blocks if lang == "r"]
    ns = {}
    exec(py[0].replace('"graph.h5"', repr(graph)), ns)
    same_graph("docs: the scipy snippet", ns["W"], W, 0)
    try:
        import networkx  # noqa: F401
        exec(next(b for b in py if "networkx" in b), ns)
        G = ns["G"]
        weights = sorted(d["weight"] for _, _, d in G.edges(data=True))
        check("docs: NetworkX snippet, edges and weights",
              G.number_of_edges() == W.nnz // 2 and G.number_of_nodes() == W.shape[0] and
              np.array_equal(weights, np.sort(sp.triu(W, k=1).data)))
        import networkx as nx
        H = nx.read_weighted_edgelist(files["edgelist"], nodetype=int)
        check("NetworkX reads the edge list", H.number_of_edges() == W.nnz // 2 and all(
            H[u][v]["weight"] == W[u, v] for u, v in H.edges()))
    except ImportError:
        check("python3-networkx installed (jobs/test.sh installs it)", False)
    try:
        import igraph  # noqa: F401
        exec(next(b for b in py if "igraph" in b), ns)
        G = ns["G"]
        check("docs: igraph snippet, edges and weights",
              G.ecount() == W.nnz // 2 and G.vcount() == W.shape[0] and
              all(G.es[G.get_eid(u, v)]["weight"] == W[u, v]
                  for u, v in zip(*sp.triu(W, k=1).nonzero())))
    except ImportError:
        check("python3-igraph installed (jobs/test.sh installs it)", False)
    rscript = shutil.which("Rscript")
    if rscript is None:
        check("Rscript installed (jobs/install.sh --test installs r-base-core)", False)
        return
    sources = {"R hdf5r": ('"graph.h5"', graph), "R Matrix::readMM": ('"graph.mtx"', files["mtx"])}
    for (name, (placeholder, path)), block in zip(sources.items(), r_blocks):
        out = os.path.join(tmp, "from_r.txt")
        code = block.replace(placeholder, '"' + path + '"') + \
            'T <- summary(as(W, "generalMatrix"))\n' \
            f'write.table(format(as.data.frame(T), digits = 17), "{out}", row.names = FALSE, ' \
            'col.names = FALSE, quote = FALSE)\n'
        p = subprocess.run([rscript, "-e", code], capture_output=True, text=True, timeout=TIMEOUT)
        if p.returncode != 0:
            check(f"docs: {name} snippet runs", False, p.stderr[-1500:])
            continue
        T = np.loadtxt(out, ndmin=2)
        R = sp.csr_array((T[:, 2], (T[:, 0].astype(int) - 1, T[:, 1].astype(int) - 1)),
                         shape=W.shape)
        check(f"docs: {name} snippet prints the edge count",
              p.stdout.strip() == f"{W.nnz // 2} undirected edges", p.stdout)
        same_graph(f"docs: {name}, edges and weights", R, W, 1e-15)


def main():
    tmp = T.tmp
    rng = np.random.default_rng(7)
    X = (rng.normal(size=(300, 6)) + rng.integers(0, 4, size=(300, 1)) * 3 + 1).astype(np.float32)
    data = os.path.join(tmp, "data.h5")
    with h5py.File(data, "w") as f:
        f["X"] = X
    candidates_tests(tmp, X, data)
    cosine_tests(tmp, X, data)
    anndata_tests(tmp, X)
    converted = convert_tests(tmp, data)
    if converted:
        snippet_tests(tmp, *converted)
    T.finish()


main()
