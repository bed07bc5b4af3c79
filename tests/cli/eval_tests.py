"""End-to-end tests of `lsgl eval` under mpirun (ctest cli_eval) on a graph learned from four
blobs with labels (.npy and IDX): the same report on 1, 2 and 3 ranks, the keys of the JSON
report, its numbers against scipy, and bad input under mpirun -n 2.
Usage: eval_tests.py LSGL MPIEXEC
"""
import json
import os
import struct

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from harness import Suite, load_graph as load

T = Suite("lsgl-cli-eval-")
run, check, path = T.run, T.check, T.path
_, _, data = T.four_blobs_input()
# The graph of the learn test on 1 rank (tests/cli/learn_tests.py).
T.setup("learn the graph to evaluate",
        run("learn", "--input", data, "--output", path("g1.h5"), "--k", 6, "--ann", "exact",
            "--recall-sample", 50, "--quiet", ranks=1))
graphs = {1: load(path("g1.h5"))}

y = np.repeat(np.arange(4), 150).astype(np.int64)
np.save(path("y.npy"), y)
with open(path("y-idx1-ubyte"), "wb") as f:
    f.write(struct.pack(">II", 0x00000801, len(y)) + y.astype(np.uint8).tobytes())
reports = {}
if 1 in graphs:
    for ranks in (1, 2, 3):
        js = path(f"eval{ranks}.json")
        labels = "y.npy" if ranks != 2 else "y-idx1-ubyte"
        p = run("eval", "--graph", path("g1.h5"), "--labels",
                path(labels), "--known-fraction", 0.05, "--json", js,
                "--embedding", path(f"emb{ranks}.h5"), "--eigenvectors", 2, ranks=ranks)
        ok = p is not None and p.returncode == 0 and os.path.exists(js)
        check(f"eval on {ranks} ranks exits 0 with a JSON report", ok, p.stderr if p else "timeout")
        if ok:
            with open(js) as f:
                reports[ranks] = json.load(f)
            if ranks == 1:
                check("eval prints the table on rank 0 once",
                      p.stdout.count("label propagation") == 1 and "wrong edge share" in p.stdout,
                      p.stdout)
if 1 in reports:
    r = reports[1]
    keys = ("n", "nnz", "components", "isolated", "avg_degree", "label_propagation",
            "wrong_edge_share", "diameter", "diameter_exact", "seconds", "class_connectivity",
            "embedding", "total_weight")
    check("eval JSON keys", all(k in r for k in keys) and
          all(k in r["label_propagation"] for k in ("fraction", "accuracy", "unreachable")) and
          all(k in r["seconds"] for k in ("components", "label_propagation", "diameter", "total")),
          sorted(r))
    W = graphs[1][0]
    ncomp, lab = csgraph.connected_components(W, directed=False)
    check("eval components and isolated nodes as scipy",
          r["components"] == ncomp and r["isolated"] == int((np.diff(W.indptr) == 0).sum()) and
          r["nnz"] == W.nnz and r["n"] == W.shape[0], (r["components"], ncomp))
    big = np.argmax(np.bincount(lab))
    sub = W[lab == big][:, lab == big]
    hops = csgraph.shortest_path(sub, unweighted=True, directed=False)
    check("eval diameter exact as scipy", r["diameter_exact"] and r["diameter"] == int(hops.max()),
          (r["diameter"], hops.max()))
    Wc = W.tocoo()
    wrong = Wc.data[y[Wc.row] != y[Wc.col]].sum() / Wc.data.sum()
    check("eval wrong-edge share as scipy", abs(r["wrong_edge_share"] - wrong) < 1e-12,
          (r["wrong_edge_share"], wrong))
    check("eval label propagation is accurate on blobs",
          r["label_propagation"]["accuracy"] > 0.95 and r["label_propagation"]["known"] == 30,
          r["label_propagation"])
    with h5py.File(path("emb1.h5"), "r") as f:
        check("eval embedding file", f["embedding/vectors"].shape == (W.shape[0], 2) and
              f["embedding/values"].shape == (2,))
        check("eval embedding file records its provenance",
              all(a in f.attrs for a in ("lsgl_version", "git_commit", "command_line",
                                         "configuration", "ranks", "utc_time", "input"))
              and f.attrs["ranks"] == 1, dict(f.attrs))
    for ranks in (2, 3):
        if ranks in reports:
            q = reports[ranks]
            same = all(q[k] == r[k] for k in ("n", "nnz", "components", "isolated", "diameter",
                                              "largest_component")) and \
                q["label_propagation"]["correct"] == r["label_propagation"]["correct"] and \
                abs(q["wrong_edge_share"] - r["wrong_edge_share"]) < 1e-12 and \
                np.allclose(q["embedding"]["eigenvalues"], r["embedding"]["eigenvalues"],
                            rtol=1e-6, atol=1e-9)
            check(f"eval: same report on 1 and {ranks} ranks", same)

    short = path("short.npy")
    np.save(short, y[:-1])
    bad_eval = {
        "labels of the wrong length": ["--graph", path("g1.h5"), "--labels", short],
        "missing graph": ["--graph", path("nope.h5")],
        "missing labels": ["--graph", path("g1.h5"), "--labels",
                           path("nope.npy")],
        "graph that is not a graph": ["--graph", data],
        "known fraction 0": ["--graph", path("g1.h5"), "--labels",
                             path("y.npy"), "--known-fraction", 0],
        "bad laplacian": ["--graph", path("g1.h5"), "--laplacian", "magic"],
    }
    for name, args in bad_eval.items():
        js = path("bad.json")
        p = run("eval", *args, "--json", js, ranks=2)
        T.check_refused(f"eval bad input: {name}", p, [js])


# One reader for every command: eval reads the learned graph as HDF5, as an edge list (each edge
# once, weights printed exactly) and as Matrix Market (symmetric, lower triangle) and reports
# the same numbers for all three on 2 and 3 ranks; a text graph listing a pair both ways with two
# weights is refused under eval's default --symmetry require.
if 1 in graphs:
    W = graphs[1][0]
    n_w = W.shape[0]
    upper = sp.triu(W, k=1).tocoo()
    el = path("g1.txt")
    with open(el, "w") as f:
        f.write("# the learned graph, each edge once\n")
        for u, v, w in zip(upper.row, upper.col, upper.data):
            f.write(f"{u} {v} {float(w)!r}\n")
        # n of an edge list is its largest id + 1: keep an isolated last node with a zero weight
        f.write(f"0 {n_w - 1} 0\n")
    lower = sp.tril(W, k=-1).tocoo()
    mt = path("g1.mtx")
    with open(mt, "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate real symmetric\n{n_w} {n_w} {lower.nnz}\n")
        for u, v, w in zip(lower.row, lower.col, lower.data):
            f.write(f"{u + 1} {v + 1} {float(w)!r}\n")
    skip = ("graph", "format", "seconds", "zero_weights_dropped")
    for ranks in (2, 3):
        got = {}
        for fmt, graph in (("hdf5", path("g1.h5")), ("edgelist", el), ("mtx", mt)):
            js = path(f"eval-{fmt}-{ranks}.json")
            p = run("eval", "--graph", graph, "--labels", path("y.npy"),
                    "--known-fraction", 0.05, "--json", js, "--quiet", ranks=ranks)
            ok = p is not None and p.returncode == 0 and os.path.exists(js)
            check(f"eval reads the {fmt} graph on {ranks} ranks", ok, p.stderr if p else "timeout")
            if ok:
                with open(js) as f:
                    got[fmt] = json.load(f)
        if len(got) == 3:
            h = got["hdf5"]
            check(f"eval: the same measures from HDF5, edge list and Matrix Market on {ranks} "
                  "ranks", all({k: v for k, v in got[fmt].items() if k not in skip} ==
                               {k: v for k, v in h.items() if k not in skip}
                               for fmt in ("edgelist", "mtx")) and
                  [got[f]["format"] for f in ("hdf5", "edgelist", "mtx")] ==
                  ["hdf5", "edgelist", "mtx"] and h["n"] == n_w and h["nnz"] == W.nnz,
                  {f: (r["n"], r["nnz"], r["total_weight"], r["components"]) for f, r in got.items()})
    clash = path("clash.txt")
    with open(clash, "w") as f:
        f.write("0 1 1\n1 2 1\n2 1 3\n")
    js = path("clash.json")
    p = run("eval", "--graph", clash, "--json", js, ranks=2)
    lines = [l for l in p.stderr.splitlines() if l.startswith("lsgl: error")] if p else []
    check("eval refuses a text graph listing a pair with two weights (--symmetry require)",
          p is not None and p.returncode != 0 and len(lines) == 1 and "(1, 2)" in lines[0] and
          not os.path.exists(js), p.stderr if p else "timeout")
    p = run("eval", "--graph", clash, "--symmetry", "symmetrise", "--json", js, "--quiet",
            ranks=2)
    ok = p is not None and p.returncode == 0 and os.path.exists(js)
    if ok:
        with open(js) as f:
            r = json.load(f)
        ok = r["n"] == 3 and r["edges"] == 2 and r["total_weight"] == 4.0
    check("eval --symmetry symmetrise reads it with W_12 = max(1, 3)", ok,
          p.stderr if p else "timeout")


T.finish()
