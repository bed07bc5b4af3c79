"""End-to-end tests of issue 28's input and output formats under mpirun (ctest cli_formats):
CSV/TSV data matrices (header or not, gzip) give the graph of the same matrix in HDF5 on 1 and 2
ranks; scipy .npz graphs (csr, csc, coo; compressed or not, written by scipy.sparse.save_npz) give
the eval numbers and densest set of the Matrix Market file of the same graph, and serve as
`learn --candidates`; .mtx.gz and edge-list .gz outputs are read back by scipy.io.mmread and
gzip + NumPy; --input-format / --graph-format override the name; bad inputs are refused with one
`lsgl: error:` line on 2 ranks.
Usage: formats_tests.py LSGL MPIEXEC
"""
import gzip
import json
import os

import h5py
import numpy as np
import scipy.io
import scipy.sparse as sp

from harness import Suite, error_lines

T = Suite("lsgl-cli-formats-")
run, check, path = T.run, T.check, T.path
X, _, data = T.four_blobs_input()
n = X.shape[0]
LEARN = ("--k", 6, "--ann", "exact", "--recall-sample", 0, "--quiet")


def ok(name, p):
    good = p is not None and p.returncode == 0
    check(name, good, p.stderr if p else "timeout")
    return good


def load_graph(path):
    """W of an lsgl HDF5 graph (n from indptr: `convert` writes no attribute n)."""
    with h5py.File(path, "r") as f:
        g = f["graph"]
        n = len(g["indptr"]) - 1
        return (sp.csr_array((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n)),)


def same(A, B):
    """Two sparse matrices with the same pattern and the same values, bit for bit."""
    A, B = sp.csr_array(A), sp.csr_array(B)
    A.sort_indices()
    B.sort_indices()
    return (A.shape == B.shape and np.array_equal(A.indptr, B.indptr)
            and np.array_equal(A.indices, B.indices) and np.array_equal(A.data, B.data))


def refused(name, p, words, absent=()):
    T.check_refused(name, p, list(absent))
    lines = error_lines(p) if p is not None else []
    check(f"{name}: the message says {words!r}", bool(lines) and words in lines[0],
          lines[0] if lines else "")


# ----------------------------------------------------------------- CSV / TSV data matrices
# The reference on each rank count: sums of distances may differ in the last bit across counts.
for ranks in (1, 2):
    T.setup(f"learn from HDF5 on {ranks} ranks",
            run("learn", "--input", data, "--output", path(f"g_h5_{ranks}.h5"), *LEARN,
                ranks=ranks))
Wr = {r: load_graph(path(f"g_h5_{r}.h5"))[0] for r in (1, 2)}
W = Wr[1]
os.rename(path("g_h5_1.h5"), path("g.h5"))
texts = {"x.csv": dict(delimiter=",", header="a,b,c,d,e"),
         "x_noheader.csv": dict(delimiter=","),
         "x.tsv.gz": dict(delimiter="\t", header="\t".join("abcde")),
         "x.txt": dict(delimiter=" ")}
for name, kw in texts.items():
    np.savetxt(path(name), X, fmt="%.9g", comments="", **kw)  # %.9g: float32 round trip
for name in texts:
    for ranks in (1, 2):
        out = path(f"g_{name}_{ranks}.h5")
        if ok(f"learn --input {name} on {ranks} ranks", run("learn", "--input", path(name),
                                                           "--output", out, *LEARN,
                                                           ranks=ranks)):
            check(f"{name} on {ranks} ranks: the graph of x.h5", same(load_graph(out)[0],
                                                                      Wr[ranks]))
os.rename(path("x.csv"), path("x.dat"))
p = run("learn", "--input", path("x.dat"), "--input-format", "csv", "--output", path("g_dat.h5"),
        *LEARN, ranks=2)
if ok("learn --input x.dat --input-format csv", p):
    check("--input-format csv: the graph of x.h5", same(load_graph(path("g_dat.h5"))[0], Wr[2]))
refused("learn --input x.dat without --input-format",
        run("learn", "--input", path("x.dat"), "--output", path("none.h5"), *LEARN),
        "--input-format", [path("none.h5")])
p1 = run("theta", "--input", data, "--k", 6, ranks=2)
p2 = run("theta", "--input", path("x_noheader.csv"), "--k", 6, ranks=2)
if ok("theta --input x.h5", p1) and ok("theta --input x_noheader.csv", p2):
    check("theta: the same numbers from CSV", p1.stdout == p2.stdout, p2.stdout)

rows = [",".join(f"{v:.9g}" for v in r) for r in X[:40]]
bad_csv = {"ragged": (rows[:30] + ["1,2,3"] + rows[30:], "line 31: 3 values"),
           "text cell": (rows[:5] + ["1,2,abc,4,5"], "line 6: column 3: 'abc' is not a number"),
           "NaN": (["a,b,c,d,e"] + rows + ["1,nan,3,4,5"], "line 42: column 2: NaN")}
for name, (lines, words) in bad_csv.items():
    f = T.write(f"bad_{name.replace(' ', '_')}.csv", ("\n".join(lines) + "\n").encode())
    refused(f"learn --input CSV with a {name}",
            run("learn", "--input", f, "--output", path("none.h5"), *LEARN, ranks=2), words,
            [path("none.h5")])

# ----------------------------------------------------------------- scipy .npz graphs
scipy.io.mmwrite(path("g.mtx"), W, precision=17)  # 17 digits: the same doubles
npz = {}
for layout in ("csr", "csc", "coo"):
    for compressed in (False, True):
        name = f"g_{layout}{'_z' if compressed else ''}.npz"
        sp.save_npz(path(name), getattr(sp, f"{layout}_matrix")(W), compressed=compressed)
        npz[name] = path(name)
y = np.repeat(np.arange(4), 150).astype(np.int64)
np.save(path("y.npy"), y)
KEYS = ("n", "nnz", "components", "isolated", "avg_degree", "label_propagation",
        "wrong_edge_share", "diameter", "total_weight", "class_connectivity")


def eval_numbers(graph, ranks, *extra):
    js = path(f"eval_{os.path.basename(graph)}_{ranks}.json")
    p = run("eval", "--graph", graph, "--labels", path("y.npy"), "--known-fraction", 0.05,
            "--json", js, *extra, ranks=ranks)
    if not ok(f"eval --graph {os.path.basename(graph)} on {ranks} ranks", p):
        return None
    with open(js) as f:
        r = json.load(f)
    return {k: r.get(k) for k in KEYS}


def densest_set(graph, ranks, *extra):
    out = path(f"s_{os.path.basename(graph)}_{ranks}.txt")
    p = run("densest", "--graph", graph, "--size", 20, "--output", out, *extra, ranks=ranks)
    return np.loadtxt(out, dtype=np.int64) if ok(f"densest --graph {os.path.basename(graph)}",
                                                   p) else None


# Sums run in another order on another rank count: compare on the same count.
reference = {r: eval_numbers(path("g.mtx"), r) for r in (1, 2)}
dense_ref = densest_set(path("g.mtx"), 2)
for name, f in npz.items():
    ranks = 2 if "csr" not in name else 1
    check(f"eval: {name} on {ranks} ranks gives the numbers of g.mtx",
          reference[ranks] is not None and eval_numbers(f, ranks) == reference[ranks])
    s = densest_set(f, 2)
    check(f"densest: {name} gives the set of g.mtx", s is not None and dense_ref is not None
          and np.array_equal(np.sort(s), np.sort(dense_ref)))
for name in ("g_csc_z.npz", "g_coo.npz"):
    out = path(f"conv_{name}.h5")
    if ok(f"convert --graph {name}", run("convert", "--graph", npz[name], "--output", out)):
        check(f"convert {name}: W", same(load_graph(out)[0], W))
os.rename(npz["g_coo_z.npz"], path("g_coo_z.dat"))
check("eval --graph-format npz on a .dat name",
      reference[2] is not None
      and eval_numbers(path("g_coo_z.dat"), 2, "--graph-format", "npz") == reference[2])
check("eval --format npz (the former name)",
      reference[2] is not None
      and eval_numbers(path("g_coo_z.dat"), 2, "--format", "npz") == reference[2])
refused("eval --format mtx --graph-format npz",
        run("eval", "--graph", npz["g_csr.npz"], "--format", "mtx", "--graph-format", "npz"),
        "differ")

# learn --candidates: the neighbour lists as a csr distance matrix in .npz and as HDF5 lists.
D = ((X[:, None, :].astype(np.float64) - X[None, :, :]) ** 2).sum(-1)
np.fill_diagonal(D, np.inf)
nearest = np.argsort(D, axis=1, kind="stable")[:, :20]
dist = np.sqrt(np.take_along_axis(D, nearest, 1))
with h5py.File(path("cand.h5"), "w") as f:
    f["indices"], f["distances"] = nearest, dist
C = sp.csr_matrix((dist.ravel(), nearest.ravel(), np.arange(0, 20 * n + 1, 20)), shape=(n, n))
sp.save_npz(path("cand.npz"), C)
outs = {}
for cand in ("cand.h5", "cand.npz"):
    out = path(f"g_{cand}.h5")
    if ok(f"learn --candidates {cand}",
          run("learn", "--input", data, "--candidates", path(cand), "--candidates-distance",
              "euclidean", "--output", out, "--k", 6, "--quiet", ranks=2)):
        outs[cand] = load_graph(out)[0]
check("learn --candidates cand.npz: the graph of the same lists in HDF5",
      len(outs) == 2 and same(outs["cand.h5"], outs["cand.npz"]))

whole = open(npz["g_csr_z.npz"], "rb").read()
bad_npz = {"truncated ZIP": (whole[: len(whole) // 2], "not a complete ZIP archive"),
           "dense array": (None, "not a scipy sparse matrix"),
           "non-square": (None, "a graph is a square")}
np.savez(path("bad_dense_array.npz"), X)
sp.save_npz(path("bad_non-square.npz"), sp.random(5, 7, 0.3, format="csr"))
T.write("bad_truncated_ZIP.npz", bad_npz["truncated ZIP"][0])
for name, (_, words) in bad_npz.items():
    f = path(f"bad_{name.replace(' ', '_')}.npz")
    refused(f"eval --graph .npz: {name}", run("eval", "--graph", f, ranks=2), words)
    refused(f"convert --graph .npz: {name}",
            run("convert", "--graph", f, "--output", path("c_none.mtx"), ranks=2), words,
            [path("c_none.mtx")])

# ----------------------------------------------------------------- gzip outputs
for ranks in (1, 2):
    out = path(f"g{ranks}.mtx.gz")
    if ok(f"learn --output g.mtx.gz on {ranks} ranks",
          run("learn", "--input", data, "--output", out, *LEARN, ranks=ranks)):
        with open(out, "rb") as f:
            magic = f.read(2)
        check(f"g.mtx.gz on {ranks} ranks is gzip read by scipy.io.mmread as the .h5 output",
              magic == b"\x1f\x8b" and same(scipy.io.mmread(out), Wr[ranks]))
    out = path(f"g{ranks}.txt.gz")
    if ok(f"convert --output g.txt.gz on {ranks} ranks",
          run("convert", "--graph", path("g.h5"), "--output", out, ranks=ranks)):
        with gzip.open(out, "rt") as f:
            E = np.loadtxt(f, comments="#", ndmin=2)
        U = sp.coo_matrix(sp.triu(W, 1))
        got = sp.coo_matrix((E[:, 2], (E[:, 0].astype(int), E[:, 1].astype(int))), shape=W.shape)
        check(f"g.txt.gz on {ranks} ranks: each edge once, W's upper triangle",
              len(E) == U.nnz and same(got, U))
    back = path(f"back{ranks}.h5")
    if ok("convert --graph g.mtx.gz", run("convert", "--graph", path(f"g{ranks}.mtx.gz"),
                                          "--output", back, ranks=2)):
        check(f"g{ranks}.mtx.gz read back by lsgl", same(load_graph(back)[0], Wr[ranks]))
for name, words in (("g.npz.gz", "own compression"), ("g.h5.gz", "compresses its own")):
    refused(f"learn --output {name}", run("learn", "--input", data, "--output", path(name),
                                          *LEARN, ranks=2), words, [path(name)])
T.finish()
