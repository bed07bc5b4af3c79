"""End-to-end tests of `lsgl densest` under mpirun (ctest cli_densest) on a generated power-law
graph with a planted community: the planted set found, the written numbers against scipy, the
same node set on 1, 2 and 3 ranks for every method, the same answer from an edge list and from
Matrix Market, and bad input (one error line, non-zero exit, no output file, no hang).
Usage: densest_tests.py LSGL MPIEXEC
"""
import gzip

import h5py
import numpy as np
import scipy.sparse as sp

from harness import Suite

T = Suite("lsgl-cli-densest-")
run, check, path = T.run, T.check, T.path

# The graph of the generate test (tests/cli/generate_tests.py).
pl = path("pl.h5")
T.setup("generate powerlaw-graph",
        run("generate", "--kind", "powerlaw-graph", "--n", 3000, "--edges", 12000,
            "--communities", "20,80", "--community-density", "0.95,0.1", "--seed", 5,
            "--output", pl, ranks=2))
with h5py.File(pl, "r") as f:
    planted = np.flatnonzero(f["planted/community"][:] == 0)
    g = f["graph"]
    Wpl = sp.csr_array((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(g.attrs["n"],) * 2)

sub = path("sub.h5")
p = run("densest", "--graph", pl, "--size", 20, "--output", sub, ranks=2)
ok = p is not None and p.returncode == 0
check("densest dpcd exits 0", ok, p.stderr if p else "timeout")
if ok:
    summary = [l for l in p.stdout.splitlines() if l.startswith("densest:")]
    check("one summary line", len(summary) == 1 and "init" in summary[0], p.stdout)
    with h5py.File(sub, "r") as f:
        s = f["subgraph"]
        nodes = s["nodes"][:]
        a = dict(s.attrs)
        check("planted subgraph found", np.array_equal(nodes, planted), (nodes, planted))
        check("nodes int64 sorted", nodes.dtype == np.int64 and np.all(np.diff(nodes) > 0))
        inside = Wpl[nodes][:, nodes]
        check("density = x^T W x / k", abs(a["density"] - inside.sum() / 20) < 1e-9,
              (a["density"], inside.sum() / 20))
        check("edges and weight inside", a["edges_inside"] == inside.nnz // 2 and
              abs(a["weight_inside"] - inside.sum() / 2) < 1e-9)
        check("subgraph attributes", all(x in a for x in ("k", "density", "edges_inside",
                                                          "weight_inside", "method", "seconds",
                                                          "init", "alpha1", "alpha2", "centre")))
        check("objective history non-decreasing", np.all(np.diff(s["objective"][:]) >= 0))

# Same node set on 1, 2 and 3 ranks, for every method, through the text output.
for method in ("dpcd", "dpcd-0", "peel", "ravi", "feige", "tpower", "lp", "l2box-admm",
               "mpec-epm", "mpec-adm"):
    sets = []
    for ranks in (1, 2, 3):
        out = path(f"sub-{method}-{ranks}.txt")
        p = run("densest", "--graph", pl, "--size", 35, "--method", method,
                "--output", out, "--output-format", "text", "--quiet", ranks=ranks)
        sets.append(open(out).read() if p is not None and p.returncode == 0 else None)
    check(f"densest {method}: same nodes on 1, 2, 3 ranks",
          sets[0] is not None and sets[0] == sets[1] == sets[2] and len(sets[0].split()) == 35)

# Edge list (gzip, asymmetric: each edge once) and Matrix Market give the same answer.
coo = sp.triu(Wpl, k=1).tocoo()
el = path("pl.txt.gz")
with gzip.open(el, "wt") as f:
    f.write("# SNAP-style edge list\n")
    for u, v in zip(coo.row, coo.col):
        f.write(f"{u}\t{v}\n")
mtx = path("pl.mtx")
with open(mtx, "w") as f:
    f.write(f"%%MatrixMarket matrix coordinate pattern symmetric\n{Wpl.shape[0]} {Wpl.shape[0]} {coo.nnz}\n")
    for u, v in zip(coo.row, coo.col):
        f.write(f"{v + 1} {u + 1}\n")
for name, graph_file in (("edge list .gz", el), ("Matrix Market", mtx)):
    out = path("sub-in.txt")
    p = run("densest", "--graph", graph_file, "--size", 20, "--output", out, "--output-format",
            "text", ranks=2)
    ok = p is not None and p.returncode == 0
    got = np.loadtxt(out, dtype=np.int64) if ok else None
    check(f"densest from {name}", ok and np.array_equal(got, planted), p.stderr if p else "timeout")
    if name == "edge list .gz" and ok:
        check("note on asymmetric input", "not symmetric" in p.stdout, p.stdout)

# Several sizes and methods in one run (one summary line each).
p = run("densest", "--graph", pl, "--size", "10,20", "--method", "peel,dpcd", "--quiet", ranks=2)
check("several sizes and methods", p is not None and p.returncode == 0 and
      sum(l.startswith("densest:") for l in p.stdout.splitlines()) == 4, p.stdout if p else "timeout")

# Bad input: one error line, non-zero exit, no output file, no hang.
with open(path("bad.txt"), "w") as f:
    f.write("0 1\n1 two\n")
with open(path("neg.txt"), "w") as f:
    f.write("0 1 1\n1 2 -0.5\n")
bad = {
    "missing graph": ["--graph", path("nope.txt"), "--size", 5],
    "malformed edge list": ["--graph", path("bad.txt"), "--size", 1],
    "negative weight": ["--graph", path("neg.txt"), "--size", 1],
    "k < 1": ["--graph", pl, "--size", 0],
    "k > n": ["--graph", pl, "--size", 3001],
    "k not a number": ["--graph", pl, "--size", "ten"],
    "no --size": ["--graph", pl],
    "unknown method": ["--graph", pl, "--size", 5, "--method", "magic"],
    "unknown initial set": ["--graph", pl, "--size", 5, "--init", "peel,magic"],
    "tpower init with 0 iterations": ["--graph", pl, "--size", 5, "--init", "tpower",
                                      "--init-tpower-iter", 0],
    "unknown format": ["--graph", pl, "--size", 5, "--format", "xml"],
    "unwritable output": ["--graph", pl, "--size", 5, "--output", "/nonexistent-dir/s.h5"],
    "graph is not HDF5": ["--graph", path("bad.txt"), "--size", 5, "--format", "hdf5"],
}
T.check_bad_inputs("densest", bad, path("bad-out.h5"), "densest bad input: ")

T.finish()
