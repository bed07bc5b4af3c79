"""The Python module lsgl (python/, docs/python.md) against the executable, in one plain python3
process (ctest `python`; conftest.py says how to run it by hand).

- lsgl.learn equals the graph `lsgl learn` writes for the same data and options (read with h5py)
  to 1e-12 (log with fdpg, fbf and cosine; knn); symmetric; knn weights in (0, 1].
- every dtype/order/view of X gives the same graph; a C-contiguous float32 X is not copied
  (info x_copied) and stays unchanged with metric="cosine"; lsgl.theta equals `lsgl theta`.
- bad input raises ValueError with the command line's one-line message, and the interpreter
  goes on to the next call; read_graph/write_graph round trips; docs/python.md's examples run.
- learn(candidates=, checkpoint=, resume=) gives the graphs of --candidates, --checkpoint and
  --resume.
- lsgl.eval equals `lsgl eval --json` (every number but the times), its predictions and
  embedding the --predictions and --embedding files, with negative labels and a known mask.
- lsgl.densest equals the set `lsgl densest --output set.txt` writes, for several methods and
  options; lsgl.hash.train/encode/evaluate equal `lsgl hash train|encode|eval` (codes, MAP),
  and Model.save writes a model file `lsgl hash encode` reads (and load reads the CLI's).
"""
import json
import os
import re
import subprocess

import h5py
import numpy as np
import pytest
import scipy.sparse as sp

from harness import load_graph, write_h5  # tests/cli, on sys.path by conftest.py

import lsgl

K = 6
Y = np.repeat(np.arange(4), 150).astype(np.int64)
Y[::7] = -1  # unlabelled nodes: never known, never scored


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


def assert_same_graph(A, B, tol=1e-12):
    ok, detail = same_graph(A, B, tol)
    assert ok, detail


def raises_value_error(fn, message):
    """fn() raises ValueError whose text contains `message`; the text."""
    with pytest.raises(ValueError, match=re.escape(message)) as e:
        fn()
    return str(e.value)


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("lsgl-python")


@pytest.fixture(scope="module")
def run(lsgl_exe, mpiexec):
    """lsgl ARGS on one rank: the CompletedProcess (a hang fails after 300 s)."""
    def run_(*args):
        # MPI's singleton start in this process (lsgl's first call) sets OMPI_/PMIX_ variables
        # in the C environment; mpirun gets Python's copy of the environment instead.
        return subprocess.run([mpiexec, "-n", "1", lsgl_exe, *map(str, args)],
                              capture_output=True, text=True, timeout=300, env=dict(os.environ))
    return run_


def succeeded(p):
    assert p.returncode == 0, f"{' '.join(p.args)}: {p.stderr}"


@pytest.fixture(scope="module")
def x_h5(X, tmp):
    path = str(tmp / "x.h5")
    write_h5(path, "X", X.astype(np.float32))
    return path


@pytest.fixture(scope="module")
def cli_learn(run, x_h5, tmp):
    """learn(name, ARGS): `lsgl learn` on x.h5 with ARGS into NAME.h5, run once per name and
    ARGS: (the file, W, /graph attributes)."""
    done = {}

    def learn(name, *args):
        if (name, args) not in done:
            out = str(tmp / f"{name}.h5")
            succeeded(run("learn", "--input", x_h5, "--output", out, "--quiet", *args))
            W, attrs, _, _ = load_graph(out)
            done[name, args] = (out, W, attrs)
        return done[name, args]
    return learn


@pytest.fixture(scope="module")
def cli_log(cli_learn):
    """`lsgl learn --model log --ann exact --k 6`: (its file, W, /graph attributes)."""
    return cli_learn("log", "--k", K, "--ann", "exact", "--model", "log")


@pytest.fixture(scope="module")
def W_exact(X):
    """lsgl.learn(X, 6, ann="exact"), shared by the tests that need a learned graph."""
    return lsgl.learn(X, K, ann="exact")


@pytest.fixture(scope="module")
def graph_file(W_exact, tmp):
    path = str(tmp / "eval-g.h5")
    lsgl.write_graph(path, W_exact)
    return path


# --- learn, knn_graph and theta against the executable ------------------------------------------

LEARN_CASES = [
    ("log", dict(model="log"), ["--model", "log"]),
    ("knn", dict(model="knn"), ["--model", "knn"]),
    ("log-cosine", dict(metric="cosine", r=2), ["--metric", "cosine", "--r", "2"]),
    ("log-fbf", dict(solver="fbf", tol=1e-6), ["--solver", "fbf", "--tol", "1e-6"]),
]


@pytest.fixture(scope="module", params=LEARN_CASES, ids=[c[0] for c in LEARN_CASES])
def learned(request, X, cli_learn):
    """(name, W and info of lsgl.learn, W and /graph attributes of `lsgl learn`)."""
    name, kw, args = request.param
    _, W_cli, attrs_cli = cli_learn(name, "--k", K, "--ann", "exact", *args)
    W, info = lsgl.learn(X, K, ann="exact", return_info=True, **kw)
    return name, W, info, W_cli, attrs_cli


def test_learn_equals_cli(learned):
    _, W, _, W_cli, _ = learned
    assert_same_graph(W, W_cli)


def test_learn_csr_array_float64(learned):
    W = learned[1]
    assert isinstance(W, sp.csr_array) and W.dtype == np.float64 and W.shape == (600, 600)


def test_learn_symmetric(learned):
    W = learned[1]
    assert abs(W - W.T).max() == 0


def test_learn_info_holds_graph_attributes(learned):
    _, _, info, _, attrs_cli = learned
    text = lambda v: v.decode() if isinstance(v, bytes) else v  # h5py: fixed-length bytes
    differ = [k for k in ("model", "nnz", "avg_degree", "candidates_per_node", "ann")
              if info.get(k) != text(attrs_cli.get(k))]
    assert not differ, {k: (info.get(k), attrs_cli.get(k)) for k in differ}


def test_learn_summary_lines_in_info(learned):
    info = learned[2]
    assert any("average degree" in line for line in info["summary_lines"])


def test_knn_weights_in_0_1(X):
    W = lsgl.learn(X, K, model="knn", ann="exact")
    assert W.data.min() > 0 and W.data.max() <= 1.0, (W.data.min(), W.data.max())


def test_knn_graph_is_the_knn_model_of_learn(X):
    assert_same_graph(lsgl.knn_graph(X, K, ann="exact"),
                      lsgl.learn(X, K, model="knn", ann="exact"), 0)


def test_theta_equals_cli(X, run, x_h5):
    p = run("theta", "--input", x_h5, "--k", K, "--ann", "exact")
    succeeded(p)
    expected = float(re.search(r"^theta = (\S+)", p.stdout, re.M).group(1))
    t = lsgl.theta(X, K, ann="exact")
    assert abs(t["theta"] - expected) <= 1e-9 * expected, (t["theta"], expected)


# --- learn with candidates=, checkpoint=, resume= -----------------------------------------------

@pytest.fixture(scope="module")
def candidates_file(X, tmp):
    """The 18 nearest rows but the nearest (not the search's lists) with their distances."""
    from scipy.spatial.distance import cdist
    D = cdist(X, X, "sqeuclidean")
    np.fill_diagonal(D, np.inf)
    ids = np.argsort(D, axis=1, kind="stable")[:, 1:19]
    path = str(tmp / "cand-lists.h5")
    with h5py.File(path, "w") as f:
        f["indices"] = ids.astype(np.int64)
        f["distances"] = np.take_along_axis(D, ids, axis=1)
    return path


def test_learn_candidates_equals_cli(X, cli_learn, candidates_file):
    W_cli = cli_learn("cand", "--k", K, "--candidates", candidates_file)[1]
    assert_same_graph(lsgl.learn(X, K, candidates=candidates_file), W_cli)


def test_learn_candidates_not_the_graph_of_the_search(X, cli_learn, candidates_file):
    W_cli = cli_learn("cand", "--k", K, "--candidates", candidates_file)[1]
    assert not same_graph(W_cli, lsgl.learn(X, K))[0]


@pytest.fixture(scope="module")
def checkpoints(X, cli_learn, tmp):
    """(the CLI's checkpoint file and graph, lsgl.learn's checkpoint file and graph)."""
    ck_cli, ck_py = str(tmp / "ck-cli.h5"), str(tmp / "ck-py.h5")
    W_cli = cli_learn("ck", "--k", K, "--ann", "exact", "--checkpoint", ck_cli,
                      "--checkpoint-every", 20)[1]
    W = lsgl.learn(X, K, ann="exact", checkpoint=ck_py, checkpoint_every=20)
    return ck_cli, W_cli, ck_py, W


def test_learn_checkpoint_equals_cli(checkpoints):
    _, W_cli, _, W = checkpoints
    assert_same_graph(W, W_cli)


def test_learn_checkpoint_file_of_the_cli_layout(checkpoints):
    ck_cli, _, ck_py, _ = checkpoints
    with h5py.File(ck_cli, "r") as a, h5py.File(ck_py, "r") as b:
        assert sorted(a.keys()) == sorted(b.keys()) and len(a.keys()) > 0


def test_learn_resume_equals_cli(X, cli_learn, checkpoints):
    ck_cli, _, ck_py, _ = checkpoints
    W_cli = cli_learn("resumed", "--k", K, "--ann", "exact", "--resume", ck_cli)[1]
    assert_same_graph(lsgl.learn(X, K, ann="exact", resume=ck_py), W_cli)


def test_learn_candidates_missing_file(X, tmp):
    with pytest.raises(FileNotFoundError):
        lsgl.learn(X, K, candidates=str(tmp / "none.h5"))


# --- eval ---------------------------------------------------------------------------------------

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


KNOWN = (np.arange(600) % 9 == 1) & (Y >= 0)
EVAL_CASES = [
    ("fraction", dict(known_fraction=0.05, seed=3), ["--known-fraction", "0.05", "--seed", 3]),
    ("known mask", dict(known=KNOWN), ["--known", "{known}"]),
    ("normalized embedding", dict(embedding=True, eigenvectors=3, laplacian="normalized"),
     ["--embedding", "{emb}", "--eigenvectors", 3, "--laplacian", "normalized"]),
]


@pytest.fixture(scope="module")
def eval_files(graph_file, tmp):
    """{graph, labels (Y), known (KNOWN as int64)}: the files of `lsgl eval`."""
    files = dict(graph=graph_file, labels=str(tmp / "eval-y.h5"), known=str(tmp / "known.h5"))
    write_h5(files["labels"], "labels", Y)
    write_h5(files["known"], "known", KNOWN.astype(np.int64))
    return files


@pytest.mark.parametrize("name,kw,args", EVAL_CASES, ids=[c[0] for c in EVAL_CASES])
def test_eval_equals_cli(name, kw, args, W_exact, eval_files, run, tmp):
    out, pred, emb = str(tmp / "eval.json"), str(tmp / "pred.h5"), str(tmp / "emb.h5")
    args = [a.format(known=eval_files["known"], emb=emb) if isinstance(a, str) else a
            for a in args]
    succeeded(run("eval", "--graph", eval_files["graph"], "--labels", eval_files["labels"],
                  "--json", out, "--quiet", "--predictions", pred, *args))
    with open(out) as f:
        cli = json.load(f)
    r = lsgl.eval(W_exact, Y, **kw)
    a, b = numbers(r), numbers(cli)
    differ = {k: (a.get(k), b.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
    assert not differ and len(b) > 30, differ  # every number of `lsgl eval --json`
    with h5py.File(pred, "r") as f:
        assert np.array_equal(r["predictions"], f["predictions"][:])
        assert np.array_equal(r["known"], f["known"][:] == 1)
    if kw.get("embedding"):
        with h5py.File(emb, "r") as f:
            V, values = f["embedding/vectors"][:], f["embedding/values"][:]
        vectors = r["embedding"]["vectors"]
        assert vectors.shape == (600, 3)
        diff = np.max(np.abs(vectors - V))
        assert diff <= 1e-12, f"max |diff| {diff}"
        assert np.array_equal(r["embedding"]["eigenvalues"], values)


def test_eval_without_labels(W_exact):
    r = lsgl.eval(W_exact, diameter=False)
    assert "predictions" not in r and r["diameter"] is None and r["components"] >= 1


@pytest.mark.parametrize("fn,message", [
    (lambda W: lsgl.eval(W, Y[:10]), "labels must hold one entry per node"),
    (lambda W: lsgl.eval(W, Y, known=np.ones(600, bool)), "but its label is negative"),
    (lambda W: lsgl.eval(W, laplacian="bogus"), "unknown --laplacian 'bogus'"),
    (lambda W: lsgl.eval(W, Y.astype(float)), "labels must be a 1-D array of integers"),
    (lambda W: lsgl.eval(sp.csr_array(np.triu(np.ones((4, 4)), 1))), "not symmetric"),
], ids=["labels of the wrong length", "a known node without a label", "an unknown option value",
        "float labels", "an asymmetric W"])
def test_eval_bad_input(fn, message, W_exact):
    raises_value_error(lambda: fn(W_exact), message)


# --- densest ------------------------------------------------------------------------------------

DENSEST_CASES = [
    ("dpcd", {}, []),
    ("dpcd", dict(init="degree,peel", ns_m=3, init_mode="each"),
     ["--init", "degree,peel", "--ns-m", 3, "--init-mode", "each"]),
    ("peel", {}, []), ("tpower", {}, []), ("lp", dict(lp_max_iter=50), ["--lp-max-iter", 50]),
    ("l2box-admm", {}, []),
]


@pytest.mark.parametrize("method,kw,args", DENSEST_CASES,
                         ids=[" ".join([c[0], *map(str, c[2])]) for c in DENSEST_CASES])
def test_densest_equals_cli(method, kw, args, W_exact, graph_file, run, tmp):
    out = str(tmp / "set.txt")
    succeeded(run("densest", "--graph", graph_file, "--size", 40, "--method", method,
                  "--output", out, "--quiet", *args))
    cli = np.sort(np.loadtxt(out, dtype=np.int64))
    S, info = lsgl.densest(W_exact, 40, method, return_info=True, **kw)
    assert np.array_equal(S, cli), f"{len(set(S) ^ set(cli))} nodes differ"
    inside = W_exact[S][:, S].sum()  # density = x^T W x / k
    assert S.dtype == np.int64 and abs(info["density"] - inside / 40) <= 1e-9 * inside, (
        info["density"], inside / 40)


@pytest.mark.parametrize("fn,message", [
    (lambda W: lsgl.densest(W, 601), "exceeds the number of nodes"),
    (lambda W: lsgl.densest(W, 10, "bogus"), "unknown --method 'bogus'"),
    (lambda W: lsgl.densest(W, 10, "peel", ns_m=3), "ns-m"),
    (lambda W: lsgl.densest(W, 10, bogus_option=1), "bogus-option"),
    (lambda W: lsgl.densest(-W, 10), "weights must be finite and >= 0"),
], ids=["size > n", "unknown method", "an option of another method", "an unknown option",
        "negative weights"])
def test_densest_bad_input(fn, message, W_exact):
    raises_value_error(lambda: fn(W_exact), message)


# --- hash ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hash_data(X, tmp):
    """(Xh float32, yh the 4 blob labels, their files)."""
    Xh, yh = X.astype(np.float32), np.repeat(np.arange(4), 150).astype(np.int64)
    x, y = str(tmp / "hx.h5"), str(tmp / "hy.h5")
    write_h5(x, "X", Xh)
    write_h5(y, "labels", yh)
    return Xh, yh, x, y


HASH_CASES = [
    ("sdh", 16, dict(anchors=100), ["--anchors", 100]),
    ("itq cosine", 4, dict(loss="itq", metric="cosine"), ["--loss", "itq", "--metric", "cosine"]),
]


@pytest.mark.parametrize("name,bits,kw,args", HASH_CASES, ids=[c[0] for c in HASH_CASES])
def test_hash_equals_cli(name, bits, kw, args, hash_data, run, tmp):
    Xh, yh, x, y = hash_data
    model, codes, out = str(tmp / "model.h5"), str(tmp / "codes.h5"), str(tmp / "h.json")
    # itq ignores the labels in training; hash eval needs them
    succeeded(run("hash", "train", "--input", x, "--labels", y, "--bits", bits, "--output", model,
                  "--quiet", *args))
    succeeded(run("hash", "encode", "--model", model, "--input", x, "--labels", y, "--output",
                  codes, "--quiet"))
    succeeded(run("hash", "eval", "--queries", codes, "--database", model, "--json", out,
                  "--quiet"))
    with h5py.File(codes, "r") as f:
        cli_codes = f["hash/codes"][:]
    with open(out) as f:
        cli = json.load(f)
    m = lsgl.hash.train(Xh, yh, bits, **kw)
    C = m.encode(Xh)
    # encode gives the codes of `lsgl hash encode`
    assert C.dtype == np.uint8 and C.shape == (600, (bits + 7) // 8)
    assert np.array_equal(C, cli_codes)
    # evaluate's MAP and Precision@500 of `lsgl hash eval`
    r = lsgl.hash.evaluate(C, yh, C, yh, bits=m.bits)
    assert r["map"] == cli["map"] and r["precision_at_500"] == cli["precision_at_500"], (r, cli)
    # Model.save writes a model `lsgl hash encode` reads
    saved, saved_codes = str(tmp / "model-py.h5"), str(tmp / "codes-py.h5")
    m.save(saved)
    succeeded(run("hash", "encode", "--model", saved, "--input", x, "--output", saved_codes,
                  "--quiet"))
    with h5py.File(saved_codes, "r") as f:
        assert np.array_equal(f["hash/codes"][:], cli_codes)
    # load reads the CLI's model (same codes, metric)
    loaded = lsgl.hash.load(model)
    assert np.array_equal(loaded.encode(Xh), cli_codes)
    assert loaded.metric == m.metric and loaded.bits == bits


@pytest.fixture(scope="module")
def sdh_model(hash_data):
    Xh, yh, _, _ = hash_data
    return lsgl.hash.train(Xh, yh, 16, anchors=100)


@pytest.mark.parametrize("fn,message", [
    (lambda Xh, yh, m: lsgl.hash.train(Xh, bits=8), "is supervised"),
    (lambda Xh, yh, m: lsgl.hash.train(Xh, yh, 0), "bits"),
    (lambda Xh, yh, m: lsgl.hash.train(Xh, yh, loss="bogus"), "unknown --loss 'bogus'"),
    (lambda Xh, yh, m: m.encode(Xh[:, :3]), "the model expects 5"),
    (lambda Xh, yh, m: m.encode(np.full((2, 5), np.nan, np.float32)), "NaN or Inf"),
    (lambda Xh, yh, m: lsgl.hash.evaluate(m.encode(Xh), yh[:5], m.encode(Xh), yh),
     "one label per code"),
], ids=["sdh without labels", "bits = 0", "an unknown loss", "encode with other columns",
        "NaN rows", "evaluate labels of the wrong length"])
def test_hash_bad_input(fn, message, hash_data, sdh_model):
    Xh, yh, _, _ = hash_data
    raises_value_error(lambda: fn(Xh, yh, sdh_model), message)


# --- layouts of X -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def learned_float32_c(X):
    """lsgl.learn on a C-contiguous float32 X: (X32, W, info)."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    W, info = lsgl.learn(X32, K, ann="exact", return_info=True)
    return X32, W, info


def test_float32_c_read_in_place(learned_float32_c):
    assert learned_float32_c[2]["x_copied"] is False


def _wide_view(X64):
    wide = np.zeros((1200, 9))
    wide[::2, 2:7] = X64
    return wide[::2, 2:7]


LAYOUTS = {
    "float64 C": lambda X32: X32.astype(np.float64),
    "float64 Fortran": lambda X32: np.asfortranarray(X32.astype(np.float64)),
    "float32 Fortran": np.asfortranarray,
    "strided view": lambda X32: _wide_view(X32.astype(np.float64)),
    "list of lists": lambda X32: X32.tolist(),
}


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_layout_gives_the_graph_of_float32_c_and_is_copied(layout, learned_float32_c):
    X32, W, _ = learned_float32_c
    W_v, info = lsgl.learn(layout(X32), K, ann="exact", return_info=True)
    assert_same_graph(W_v, W, 0)
    assert info["x_copied"] is True


def test_cosine_leaves_x_unchanged_and_copies_the_rows(learned_float32_c):
    """With metric="cosine" the library normalises a copy of the rows and leaves X unchanged."""
    X32 = learned_float32_c[0]
    before = X32.copy()
    W_c, info = lsgl.learn(X32, K, ann="exact", metric="cosine", return_info=True)
    assert np.array_equal(X32, before)
    assert info["x_copied"] is True
    assert_same_graph(W_c, lsgl.learn(X32.astype(np.float64), K, ann="exact", metric="cosine"), 0)


# --- bad input ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cli_error(run, tmp):
    """The text after `lsgl: error: ` of a refused `lsgl learn ARGS` (None without one)."""
    def error(*args):
        p = run("learn", *args, "--output", str(tmp / "refused.h5"))
        lines = [l for l in p.stderr.splitlines() if l.startswith("lsgl: error: ")]
        return lines[0][len("lsgl: error: "):] if lines else None
    return error


def test_nan_row(X, cli_error, tmp):
    nan = X.copy()
    nan[7, 3] = np.nan
    nan_path = str(tmp / "nan.h5")
    write_h5(nan_path, "X", nan)
    e = raises_value_error(lambda: lsgl.learn(nan, K),
                           "input contains NaN or Inf values (first at row 7, column 3)")
    cli = cli_error("--input", nan_path)
    assert cli is not None and e.split(" in ")[0] == cli.split(" in ")[0], (e, cli)


def test_k_too_large(X, cli_error, tmp):
    e = raises_value_error(lambda: lsgl.learn(X[:20], 10),
                           "need more points than candidates per node")
    x20 = str(tmp / "x20.h5")
    write_h5(x20, "X", X[:20])
    cli = cli_error("--input", x20, "--k", "10")
    assert e == cli


def test_unknown_model(X, cli_error, x_h5):
    e = raises_value_error(lambda: lsgl.learn(X, K, model="bogus"), "unknown --model 'bogus'")
    assert e == cli_error("--input", x_h5, "--model", "bogus")


@pytest.mark.parametrize("fn,message", [
    (lambda X: lsgl.learn(X[:, 0], K), "X must be a 2-D array"),
    (lambda X: lsgl.learn(np.array([[1, "a"]], dtype=object), K),
     "X must be a 2-D array of numbers"),
    (lambda X: lsgl.learn(np.zeros((0, 5)), K), "X must have at least one row and one column"),
    (lambda X: lsgl.learn(X, 0), "--k must be at least 1"),
    (lambda X: lsgl.learn(X, K, recall_sample="some"),
     "recall_sample must be 'auto' or a whole number >= 0"),
    (lambda X: lsgl.learn(X, K, recall_sample=-1),
     "recall_sample must be 'auto' or a whole number >= 0"),
], ids=["1-D array", "object array", "empty array", "k = 0", "recall_sample some",
        "recall_sample -1"])
def test_learn_bad_input(fn, message, X):
    raises_value_error(lambda: fn(X), message)


@pytest.mark.parametrize("ann,estimated", [("exact", False), ("hnsw", True)])
def test_recall_sample_auto(ann, estimated, X):
    """recall_sample="auto" (the default) estimates the recall of an approximate search only."""
    _, info = lsgl.learn(X, K, ann=ann, return_info=True)
    assert (0.9 <= info["recall"] <= 1.0) if estimated else info["recall"] == -1.0, info["recall"]


def test_write_graph_asymmetric_w_nothing_written(tmp):
    out = str(tmp / "asym.h5")
    raises_value_error(lambda: lsgl.write_graph(out, sp.csr_array(np.triu(np.ones((4, 4)), 1))),
                       "not symmetric")
    assert not os.path.exists(out)


def test_read_graph_missing_file(tmp):
    with pytest.raises(FileNotFoundError):
        lsgl.read_graph(str(tmp / "missing.h5"))


def test_interpreter_survives_bad_input(X, cli_learn):
    """After the errors above (and one more here), the next call learns the graph."""
    with pytest.raises(ValueError):
        lsgl.learn(X[:, 0], K)
    W_cli = cli_learn("after", "--k", K, "--ann", "exact")[1]
    assert_same_graph(lsgl.learn(X, K, ann="exact"), W_cli)


# --- graph files --------------------------------------------------------------------------------

def test_read_graph(cli_log):
    path, W_cli, _ = cli_log
    assert_same_graph(lsgl.read_graph(path), W_cli, 0)


def test_write_graph_h5_read_by_h5py_and_lsgl_eval(cli_log, run, tmp):
    W_cli = cli_log[1]
    out = str(tmp / "written.h5")
    lsgl.write_graph(out, W_cli)
    assert_same_graph(load_graph(out)[0], W_cli, 0)
    succeeded(run("eval", "--graph", out))


def test_write_graph_npz_loads_with_scipy(cli_log, tmp):
    W_cli = cli_log[1]
    out = str(tmp / "written.npz")
    lsgl.write_graph(out, W_cli)
    assert_same_graph(sp.load_npz(out), W_cli, 0)


def test_write_graph_matrix_market_read_graph(cli_log, tmp):
    W_cli = cli_log[1]
    out = str(tmp / "written.mtx")
    lsgl.write_graph(out, W_cli)
    assert_same_graph(lsgl.read_graph(out), W_cli, 1e-15)


def test_write_graph_name_of_no_known_format_refused(cli_log, tmp):
    out = str(tmp / "written.xyz")
    raises_value_error(lambda: lsgl.write_graph(out, cli_log[1]), "written.xyz")
    assert not os.path.exists(out)


# --- distances and the knn variants -------------------------------------------------------------

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


@pytest.fixture(scope="module")
def learned_distances(X):
    return lsgl.learn(X, K, ann="exact", return_distances=True)


def test_return_distances_are_edge_lengths(learned_distances, X):
    W, D = learned_distances
    assert_same_graph(D, edge_distances(W, X), 1e-12 * D.max())


def test_return_distances_equal_cli(learned_distances, cli_log):
    W, D = learned_distances
    with h5py.File(cli_log[0], "r") as f:
        g = f["graph"]
        D_cli = sp.csr_array((g["distances"][:], g["indices"][:], g["indptr"][:]), shape=W.shape)
    assert_same_graph(D, D_cli, 0)


def test_return_distances_and_info(learned_distances, X):
    W2, D2, info = lsgl.learn(X, K, ann="exact", return_distances=True, return_info=True)
    assert same_graph(W2, learned_distances[0], 0)[0] and "nnz" in info


@pytest.fixture(scope="module")
def A_knn(X):
    return brute_knn(X, K)


KNN_VARIANTS = [("mutual", "binary", lambda A: A & A.T), ("union", "binary", lambda A: A | A.T),
                ("mutual", "gaussian", lambda A: A & A.T)]


@pytest.mark.parametrize("mode,weights,pattern", KNN_VARIANTS,
                         ids=[f"{m}-{w}" for m, w, _ in KNN_VARIANTS])
def test_knn_graph_variant(mode, weights, pattern, X, A_knn, cli_learn):
    G = lsgl.knn_graph(X, K, mode=mode, weights=weights, ann="exact")
    P = pattern(A_knn)
    assert np.array_equal(G.toarray() != 0, P), f"nnz {G.nnz} vs {P.sum()} (brute force)"
    if weights == "binary":
        assert G.nnz > 0 and np.all(G.data == 1.0)
    W_cli = cli_learn(f"knn-{mode}-{weights}", "--k", K, "--ann", "exact", "--model", "knn",
                      "--knn-mode", mode, "--knn-weights", weights)[1]
    assert_same_graph(G, W_cli, 0)


def test_knn_mutual_strict_part_of_union(A_knn):
    assert (A_knn & A_knn.T).sum() < (A_knn | A_knn.T).sum()


# --- lsgl.neighbors and AnnData -----------------------------------------------------------------

@pytest.fixture(scope="module")
def adata(X):
    """An AnnData with obsm X_pca = X after lsgl.neighbors(k=6) and (key_added="knn",
    model="knn"); python3-anndata comes from jobs/install.sh --test (missing: a failure)."""
    import anndata
    a = anndata.AnnData(X=np.zeros((len(X), 3), dtype=np.float32))
    a.obs_names = [f"c{i}" for i in range(len(X))]
    a.obsm["X_pca"] = X
    lsgl.neighbors(a, k=K, ann="exact")
    lsgl.neighbors(a, k=K, ann="exact", key_added="knn", model="knn")
    return a


def test_neighbors_connectivities_are_the_graph_of_learn(adata, W_exact):
    conn = adata.obsp.get("connectivities")
    assert conn is not None and same_graph(conn, W_exact, 0)[0]


def test_neighbors_distances_are_edge_lengths(adata, W_exact, X):
    dist = adata.obsp.get("distances")
    assert dist is not None, "no obsp distances"
    assert_same_graph(dist, edge_distances(W_exact, X), 1e-12 * float(dist.max()))


def test_neighbors_uns_as_scanpy(adata):
    u = adata.uns.get("neighbors", {})
    params = u.get("params", {})
    assert (u.get("connectivities_key") == "connectivities"
            and u.get("distances_key") == "distances" and params.get("n_neighbors") == K
            and params.get("method") == "lsgl" and params.get("use_rep") == "X_pca"
            and params.get("metric") == "euclidean"), u


def test_neighbors_key_added(adata, W_exact):
    u = adata.uns.get("knn", {})
    assert ("knn_connectivities" in adata.obsp and "knn_distances" in adata.obsp
            and u.get("connectivities_key") == "knn_connectivities"
            and u.get("distances_key") == "knn_distances"
            and u.get("params", {}).get("model") == "knn"
            and same_graph(adata.obsp["connectivities"], W_exact, 0)[0])


def test_neighbors_h5ad_round_trip(adata, tmp):
    import anndata
    path = str(tmp / "cells.h5ad")
    adata.write_h5ad(path)
    b = anndata.read_h5ad(path)
    assert (all(same_graph(b.obsp[k], adata.obsp[k], 0)[0] for k in adata.obsp.keys())
            and b.uns["neighbors"]["params"]["method"] == "lsgl"
            and b.uns["knn"]["distances_key"] == "knn_distances"
            and list(b.obs_names) == list(adata.obs_names))


def test_neighbors_missing_use_rep(adata):
    raises_value_error(lambda: lsgl.neighbors(adata, use_rep="X_umap"),
                       "adata.obsm has no 'X_umap'")


# --- docs/python.md -----------------------------------------------------------------------------

with open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")) as f:
    DOC_BLOCKS = re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_docs_have_examples():
    assert len(DOC_BLOCKS) > 0


# The mpirun example (mpi4py) is the pattern test_lsgl_mpi.py runs.
@pytest.mark.parametrize("i", [i for i, code in enumerate(DOC_BLOCKS) if "mpi4py" not in code])
def test_docs_example_runs(i, tmp, monkeypatch):
    monkeypatch.chdir(tmp)
    exec(compile(DOC_BLOCKS[i], f"docs/python.md block {i}", "exec"), {})
