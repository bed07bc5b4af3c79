"""Issue 28: `lsgl learn --write-anndata` at NP ranks, read back by python3-anndata.

- the copy of the .h5ad input holds obsp connectivities equal to the .h5 graph (pattern and
  weights, bit for bit) and obsp distances equal to /graph/distances and to the Euclidean
  distances of the learned rows computed here; uns neighbors as scanpy's pp.neighbors lays it
  out (connectivities_key, distances_key, params); obs names, X, obsm and the input's own uns
  kept; the input untouched;
- --anndata-key K: obsp K_connectivities and K_distances, uns K, the entries of a first run kept;
- the input itself only with --anndata-in-place; refused: a non-.h5ad name, an input that is no
  AnnData file, --no-distances, --anndata-in-place naming another file; nothing written then.
Usage: anndata_tests.py LSGL MPIEXEC NP (on the shared harness, tests/cli/harness.py)
"""
import os
import sys

import h5py
import numpy as np
import scipy.sparse as sp

from harness import Suite, digest, load_graph, four_blobs, write_h5

NP = int(sys.argv[3])
T = Suite("lsgl-anndata-", ranks=NP, timeout=180)
check = T.check

try:
    import anndata
except ImportError:
    check("python3-anndata installed (jobs/install.sh --test installs it)", False)
    T.finish()

X, rng = four_blobs()
n = len(X)
a = anndata.AnnData(X=rng.normal(size=(n, 8)).astype(np.float32))
a.obs_names = [f"cell{i:04d}" for i in range(n)]
a.obsm["X_pca"] = X
a.uns["kept"] = {"note": "the input's own entry"}
cells = T.path("cells.h5ad")
a.write_h5ad(cells)
before = digest(cells)


def learn(*args, ranks=None):
    return T.run("learn", "--input", cells, "--dataset", "/obsm/X_pca", "--k", 6, "--ann",
                 "exact", "--quiet", *args, ranks=ranks)


def same(A, B):
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    A.sort_indices()
    B.sort_indices()
    return (A.shape == B.shape and np.array_equal(A.indptr, B.indptr)
            and np.array_equal(A.indices, B.indices) and np.array_equal(A.data, B.data))


def edge_distances(W, rows):
    """||x_i - x_j|| of every stored entry of W, in W's order (float32 rows, double sums)."""
    C = sp.coo_matrix(W)
    x = rows.astype(np.float64)
    d = np.sqrt(((x[C.row] - x[C.col]) ** 2).sum(1))
    return sp.csr_matrix((d, (C.row, C.col)), shape=W.shape)


out, graph = T.path("out.h5ad"), T.path("graph.h5")
T.setup("learn --write-anndata", learn("--output", graph, "--write-anndata", out))
W, _, _, _ = load_graph(graph)
with h5py.File(graph, "r") as f:
    g = f["graph"]
    D_h5 = sp.csr_matrix((g["distances"][:], g["indices"][:], g["indptr"][:]), shape=W.shape)
b = anndata.read_h5ad(out)
check("the input is untouched", digest(cells) == before)
check("obsp connectivities: the .h5 graph", same(b.obsp["connectivities"], W))
check("obsp distances: /graph/distances", same(b.obsp["distances"], D_h5))
D = edge_distances(b.obsp["connectivities"], X)
diff = abs(sp.csr_matrix(b.obsp["distances"]) - D).max()
check("obsp distances: ||x_i - x_j|| of each edge (1e-12 relative)",
      same(b.obsp["distances"] != 0, D != 0) and diff <= 1e-12 * D.max(), f"max diff {diff}")
with h5py.File(out, "r") as f:
    enc = {k: f["obsp/connectivities"].attrs[k] for k in ("encoding-type", "encoding-version")}
check("obsp groups in anndata's csr_matrix layout",
      {k: v.decode() if isinstance(v, bytes) else v for k, v in enc.items()}
      == {"encoding-type": "csr_matrix", "encoding-version": "0.1.0"}, enc)
u = b.uns.get("neighbors", {})
params = u.get("params", {})
check("uns neighbors: scanpy's keys",
      u.get("connectivities_key") == "connectivities" and u.get("distances_key") == "distances"
      and params.get("n_neighbors") == 6 and params.get("method") == "lsgl"
      and params.get("metric") == "euclidean" and params.get("model") == "log"
      and params.get("use_rep") == "X_pca", u)
check("obs names, X, obsm and uns of the input kept",
      list(b.obs_names) == list(a.obs_names) and np.array_equal(b.X, a.X)
      and np.array_equal(b.obsm["X_pca"], X)
      and b.uns.get("kept") == {"note": "the input's own entry"})

# Only the .h5ad: --output left out; a key of its own beside the first run's entries.
keyed = T.path("keyed.h5ad")
p = learn("--write-anndata", keyed, "--anndata-key", "lsgl", "--model", "knn")
check("--write-anndata without --output runs", p is not None and p.returncode == 0,
      p.stderr if p else "timeout")
if p is not None and p.returncode == 0:
    c = anndata.read_h5ad(keyed)
    u = c.uns.get("lsgl", {})
    check("--anndata-key: obsp lsgl_connectivities, lsgl_distances, uns lsgl",
          "lsgl_connectivities" in c.obsp and "lsgl_distances" in c.obsp
          and u.get("connectivities_key") == "lsgl_connectivities"
          and u.get("distances_key") == "lsgl_distances"
          and u.get("params", {}).get("model") == "knn")

# In place: only on request.
copy = T.path("inplace.h5ad")
with open(cells, "rb") as src, open(copy, "wb") as dst:
    dst.write(src.read())
own = digest(copy)
p = T.run("learn", "--input", copy, "--dataset", "/obsm/X_pca", "--k", 6, "--quiet",
          "--write-anndata", copy)
T.check_refused("the input named without --anndata-in-place: refused", p, [])
check("... and the input untouched", digest(copy) == own)
p = T.run("learn", "--input", copy, "--dataset", "/obsm/X_pca", "--k", 6, "--ann", "exact",
          "--quiet", "--write-anndata", copy, "--anndata-in-place")
check("--anndata-in-place runs", p is not None and p.returncode == 0, p.stderr if p else "")
if p is not None and p.returncode == 0:
    check("--anndata-in-place: the input holds the graph",
          same(anndata.read_h5ad(copy).obsp["connectivities"], W))

plain = T.path("plain.h5")
write_h5(plain, "X", X)
refusals = {
    "a name that is not .h5ad": (["--write-anndata", T.path("x.h5")], cells, "must end in .h5ad"),
    "an input that is no AnnData file": (["--write-anndata", T.path("y.h5ad")], plain,
                                         "is not an AnnData file"),
    "--no-distances": (["--write-anndata", T.path("z.h5ad"), "--no-distances"], cells,
                       "drop --no-distances"),
    "--anndata-in-place naming another file": (
        ["--write-anndata", T.path("w.h5ad"), "--anndata-in-place"], cells,
        "--anndata-in-place needs --write-anndata naming the --input file"),
}
for name, (args, data, message) in refusals.items():
    dataset = "/obsm/X_pca" if data == cells else "/X"
    p = T.run("learn", "--input", data, "--dataset", dataset, "--k", 6, "--quiet", *args)
    T.check_refused(f"refused: {name}", p, [args[1]])
    check(f"refused: {name}: the message", p is not None and message in p.stderr, p and p.stderr)
T.finish()
