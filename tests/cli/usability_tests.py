"""End-to-end tests of what a new user hits first (ctest cli_usability, issue 28): every output
is written in the format its name asks for or refused; `hash eval` refuses codes of different
models; a single-dash typo or an option PETSc did not use is an error; negative labels are
unknown in `eval`; edge-list ids that would make a huge graph are refused.
Usage: usability_tests.py LSGL MPIEXEC
"""
import json
import os

import h5py
import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.csgraph
import scipy.sparse.linalg  # noqa: F401 (sp.linalg)

from harness import Suite, error_lines, load_graph, write_h5

T = Suite("lsgl-cli-usability-")
run, check, path = T.run, T.check, T.path
X, rng, data = T.four_blobs_input()


def ok(p):
    return p is not None and p.returncode == 0


def same_matrix(a, b):
    d = (sp.csr_matrix(a) - sp.csr_matrix(b)).tocoo()
    scale = np.abs(b.data).max()
    return a.shape == b.shape and (d.nnz == 0 or np.abs(d.data).max() <= 1e-12 * scale)


def read_back(read, out):
    """scipy's reader on `out`, or the exception it raised (an HDF5 file under the name)."""
    try:
        return read(out)
    except Exception as e:  # noqa: BLE001 (any reader error is the failure being tested)
        return e


# 1. learn writes the format its --output name asks for: the same graph as the HDF5 one.
learn = ("learn", "--input", data, "--k", 6, "--quiet")
T.setup("learn .h5", run(*learn, "--output", path("g.h5")))
W, gattrs = load_graph(path("g.h5"))[:2]
p = run(*learn, "--output", path("g-json.h5"), "--json", path("learn.json"))
js = json.load(open(path("learn.json"))) if ok(p) else {}
check("learn --json: n, edges, average degree and iterations of the same graph",
      ok(p) and js["n"] == W.shape[0] == 600 and js["edges"] == W.nnz // 2
      and abs(js["average_degree"] - W.nnz / 600) < 1e-12
      and js["iterations"] == gattrs["iterations"] and js["output"] == path("g-json.h5"),
      p.stderr if p else js)
for ext, read in (("npz", sp.load_npz), ("mtx", scipy.io.mmread)):
    out = path(f"g.{ext}")
    p = run(*learn, "--output", out)
    got = read_back(read, out) if ok(p) else None
    check(f"learn --output g.{ext}: read back by scipy, the graph of g.h5",
          ok(p) and not isinstance(got, Exception) and same_matrix(got, W),
          got if isinstance(got, Exception) else (p.stderr if p else "hang"))
out = path("g.txt")
p = run(*learn, "--output", out)
e = read_back(lambda f: np.loadtxt(f, comments="#", ndmin=2), out) if ok(p) else None
if e is not None and not isinstance(e, Exception):
    E = sp.coo_matrix((e[:, 2], (e[:, 0].astype(int), e[:, 1].astype(int))), shape=W.shape)
    check("learn --output g.txt: an edge list of the graph of g.h5", same_matrix(E + E.T, W))
else:
    check("learn --output g.txt", False, e if e is not None else (p.stderr if p else "hang"))

# ... and refuses a name it cannot honour, before any work, on every rank.
bad = {"g.npy": ("learn", "--input", data, "--k", 6),
       "g.parquet": ("learn", "--input", data, "--k", 6),
       "g": ("learn", "--input", data, "--k", 6),
       "x.npy": ("generate", "--n", 50),
       "s.csv": ("densest", "--graph", path("g.h5"), "--size", 5),
       "m.npz": ("hash", "train", "--input", data, "--bits", 4, "--loss", "itq")}
for name, args in bad.items():
    out = path("bad-" + name)
    p = run(*args, "--output", out, ranks=2)
    T.check_refused(f"{args[0]} --output {name} refused", p, [out, out + ".partial"])
    if p is not None:
        check(f"{args[0]} --output {name}: the message names the extensions",
              "extension" in p.stderr, p.stderr)
out = path("bad-emb.npy")
p = run("eval", "--graph", path("g.h5"), "--embedding", out, ranks=2)
T.check_refused("eval --embedding x.npy refused", p, [out])

# densest: the name chooses text or HDF5; a contradicting --output-format is refused.
p = run("densest", "--graph", path("g.h5"), "--size", 10, "--output", path("s.txt"), "--quiet")
check("densest --output s.txt writes node ids as text",
      ok(p) and np.loadtxt(path("s.txt"), dtype=np.int64).shape == (10,), p.stderr if p else "")
p = run("densest", "--graph", path("g.h5"), "--size", 10, "--output", path("s2.h5"),
        "--output-format", "text", ranks=2)
T.check_refused("densest --output s.h5 --output-format text refused", p, [path("s2.h5")])
p = run("convert", "--graph", path("g.h5"), "--to", "npz", "--output", path("c.mtx"), ranks=2)
T.check_refused("convert --to npz --output c.mtx refused", p, [path("c.mtx")])

# 2. hash eval refuses queries and a database of different models.
y = np.repeat(np.arange(4), 150).astype(np.int64)
np.save(path("y.npy"), y)
models = {}
for loss in ("sdh", "itq"):
    models[loss] = path(f"m-{loss}.h5")
    T.setup(f"hash train {loss}", run("hash", "train", "--input", data, "--labels", path("y.npy"),
                                      "--bits", 4, "--loss", loss, "--anchors", 40,
                                      "--output", models[loss], "--quiet"))
q = {}
for loss in ("sdh", "itq"):
    q[loss] = path(f"q-{loss}.h5")
    T.setup(f"hash encode {loss}", run("hash", "encode", "--model", models[loss], "--input",
                                       data, "--labels", path("y.npy"), "--output", q[loss],
                                       "--quiet"))
p = run("hash", "eval", "--queries", q["sdh"], "--database", models["sdh"], "--quiet")
check("hash eval: codes of the same model accepted", ok(p), p.stderr if p else "hang")
T.check_refused("hash eval: SDH queries against an ITQ database refused",
                run("hash", "eval", "--queries", q["sdh"], "--database", models["itq"], ranks=2),
                [])
# Two models of the same loss, features and bits (another seed): only the digest differs.
other = path("m-sdh-seed2.h5")
T.setup("hash train seed 2", run("hash", "train", "--input", data, "--labels", path("y.npy"),
                                 "--bits", 4, "--anchors", 40, "--seed", 2, "--output", other,
                                 "--quiet"))
T.check_refused("hash eval: codes of another model with the same settings refused",
                run("hash", "eval", "--queries", q["sdh"], "--database", other, ranks=2), [])

# 3. A single-dash typo of an option, and any option PETSc did not use: an error, no output.
out = path("typo.h5")
p = run("learn", "--input", data, "-k", 5, "--output", out, ranks=2)
T.check_refused("learn -k 5 refused", p, [out])
check("learn -k 5: the message says 'did you mean --k?'",
      p is not None and "did you mean --k?" in p.stderr, p.stderr if p else "")
p = run("learn", "--input", data, "--k", 5, "-max_iter", 3, "--output", out, ranks=2)
check("learn -max_iter 3: did you mean --max-iter?",
      p is not None and p.returncode != 0 and "did you mean --max-iter?" in p.stderr
      and not os.path.exists(out), p.stderr if p else "hang")
p = run("learn", "--input", data, "--k", 5, "-ksp_tpye", "cg", "--output", out, "--quiet",
        ranks=2)
check("learn -ksp_tpye cg (unused by PETSc): non-zero exit naming the option",
      p is not None and p.returncode != 0 and len(error_lines(p)) == 1
      and "-ksp_tpye" in p.stderr, p.stderr if p else "hang")
p = run("learn", "--input", data, "--k", 5, "--output", path("logview.h5"), "--quiet",
        "-log_view", ":" + path("log.txt"), ranks=2)
check("learn -log_view (used by PETSc) still accepted", ok(p), p.stderr if p else "hang")

# 4. Negative labels are unlabelled: not a class, never known, never scored. Against a harmonic
# solution computed here (scipy) with the same --known mask.
n = W.shape[0]
lab = y.copy()
lab[::7] = -1
np.save(path("lab.npy"), lab)
known = np.zeros(n, dtype=np.int64)
known[1::10] = 1
known[lab < 0] = 0
np.save(path("known.npy"), known)
p = run("eval", "--graph", path("g.h5"), "--labels", path("lab.npy"), "--known", path("known.npy"),
        "--json", path("e.json"), "--predictions", path("pred.h5"), "--quiet")
if ok(p):
    r = json.load(open(path("e.json")))
    lp, cc = r["label_propagation"], r["class_connectivity"]
    check("eval: -1 is not a class", cc["labels"] == [0, 1, 2, 3], cc["labels"])
    check("eval: class node counts leave the unlabelled out",
          cc["nodes"] == [int(np.sum(lab == c)) for c in range(4)], cc["nodes"])
    K = known.astype(bool)
    Wm = sp.csr_matrix(W)
    # Nodes in components without a known node cannot be reached: left out, predicted -1.
    _, comp = scipy.sparse.csgraph.connected_components(Wm, directed=False)
    reach = np.isin(comp, comp[K])
    U = ~K & reach
    L = sp.csr_matrix(sp.diags(np.asarray(Wm.sum(axis=1)).ravel()) - Wm)
    F = np.zeros((n, 4))
    for c in range(4):
        rhs = -L[U][:, K] @ (lab[K] == c).astype(float)
        F[U, c] = sp.linalg.spsolve(L[U][:, U].tocsc(), rhs)
    scored = ~K & (lab >= 0)
    pred_here = np.where(reach, F.argmax(axis=1), -1)
    correct = int(np.sum(pred_here[scored] == lab[scored]))
    check("eval --known: known and unknown counts",
          lp["known"] == int(K.sum()) and lp["unknown"] == int(scored.sum())
          and lp["unlabelled"] == int(np.sum(lab < 0)), lp)
    check("eval --known: correct predictions as the harmonic solution computed here",
          abs(lp["correct"] - correct) <= 1, f"{lp['correct']} vs {correct}")
    with h5py.File(path("pred.h5"), "r") as f:
        pred, given = f["/predictions"][:], f["/known"][:]
    expect = np.where(K, lab, pred_here)
    check("eval --predictions: known nodes keep their label, the others the harmonic argmax",
          np.array_equal(given, known) and np.sum(pred != expect) <= 1,
          f"{np.sum(pred != expect)} differ")
else:
    check("eval with -1 labels and --known", False, p.stderr if p else "hang")
bad_known = known.copy()
bad_known[0] = 1  # node 0 is unlabelled
np.save(path("bad-known.npy"), bad_known)
T.check_refused("eval --known marking an unlabelled node refused",
                run("eval", "--graph", path("g.h5"), "--labels", path("lab.npy"), "--known",
                    path("bad-known.npy"), ranks=2), [])
np.save(path("short-known.npy"), known[:-1])
T.check_refused("eval --known of the wrong length refused",
                run("eval", "--graph", path("g.h5"), "--labels", path("lab.npy"), "--known",
                    path("short-known.npy"), ranks=2), [])

# 7. A file of the wrong kind given as a graph: the message names what it is and what to do.
np.save(path("x.npy"), X)
for name, f, says in (("a data file", data, "lsgl learn --input"),
                      ("a .npy array", path("x.npy"), "NumPy array")):
    p = run("eval", "--graph", f, ranks=2)
    T.check_refused(f"eval --graph {name} refused", p, [])
    check(f"eval --graph {name}: the message says what the file is and what to do",
          p is not None and says in p.stderr, p.stderr if p else "")

# 5. Edge-list ids are positions: a huge id range or named ids are refused with a hint to
# --renumber (tests/cli/renumber_tests.py tests it and header lines).
for name, text, hint in (("huge ids", "10000000 2 1.0\n", "--renumber"),
                         ("named ids", "a b 1.0\nb c 2.0\n", "--renumber")):
    f = T.write(name.replace(" ", "-") + ".txt", text.encode())
    out = path("e-" + name.replace(" ", "-") + ".h5")
    p = run("convert", "--graph", f, "--output", out, ranks=2)
    T.check_refused(f"edge list with {name} refused", p, [out])
    check(f"edge list with {name}: the message says what to do", p is not None and hint in p.stderr,
          p.stderr if p else "")
f = T.write("small-ids.txt", b"0 5 1.0\n5 100 2.0\n")
p = run("convert", "--graph", f, "--output", path("small.npz"), ranks=2)
check("edge list with a modest id range still read (n = largest id + 1)",
      ok(p) and sp.load_npz(path("small.npz")).shape == (101, 101), p.stderr if p else "hang")

T.finish()
