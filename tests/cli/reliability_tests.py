"""Issue 15, "nothing lost, nothing silent": the lsgl executable under `mpirun -n RANKS`.

Classes: (1) two runs writing one output (each output is one complete run's, no temporary file
left behind); (2) an output or checkpoint naming an input (refused, the input byte-identical);
(3) truncated or mislabelled text input; (4) headers claiming more than the file holds, node ids
needing more memory than the machine has, values beyond single-precision distances; (5) numeric
options out of range or not finite; (6) smaller ones (--config a directory, `lsgl collect` and
temporary files or repeated task numbers, an HDF5 file with a user block, `densest --quiet`);
(7) `eval`, `hash` and `generate`: option ranges, sizes beyond the node's memory or int, and no
NaN/Inf in a model, codes or embedding. Every failure: exit code 1, exactly one `lsgl: error:`
line, no hang (each run has a timeout), no temporary file, inputs unchanged. The bad part of an
input is at its end, so that the last rank finds it.
Usage: reliability_tests.py LSGL MPIEXEC RANKS
"""
import glob
import gzip
import os
import shutil
import struct
import subprocess
import sys
import functools

import h5py
import numpy as np

from harness import Suite, blobs, digest, error_lines

RANKS = int(sys.argv[3])
T = Suite(f"lsgl-rel-np{RANKS}-", ranks=RANKS, timeout=300)
run, check, path, write, command, tmp = T.run, T.check, T.path, T.write, T.command, T.tmp
temporaries = T.temporaries
error_lines = functools.partial(error_lines, prefix="lsgl: error:")


def expect_failure(name, p, mention=None, unchanged=None):
    """Exit 1, one error line (mentioning `mention`), no temporary file, `unchanged` files
    byte-identical (a dict path -> digest)."""
    if p is None:
        check(name, False, "hang (timeout)")
        return
    lines = error_lines(p)
    changed = [f for f, d in (unchanged or {}).items() if not os.path.exists(f) or digest(f) != d]
    ok = (p.returncode == 1 and len(lines) == 1 and (mention is None or mention in lines[0])
          and not temporaries() and not changed)
    check(name, ok, f"rc={p.returncode} changed={changed} temporaries={temporaries()} "
                    f"stderr={p.stderr[-600:]!r}")
    if lines:
        print(f"    {lines[0]}")


def expect_success(name, p, extra=True, detail=""):
    ok = p is not None and p.returncode == 0 and not temporaries() and extra
    check(name, ok, detail + (f" rc={p.returncode} stderr={p.stderr[-600:]!r}" if p else " hang"))


X, rng = blobs(15, (0, 5, 10), 60, 4)
data = path("x.h5")
with h5py.File(data, "w") as f:
    f["X"] = X
base = ["learn", "--ann", "exact", "--quiet", "--recall-sample", 0]
learn = [*base, "--k", 5]

# --- (1) two runs on one output ---------------------------------------------------------------
gen = ["generate", "--kind", "blobs", "--n", 20000, "--d", 16]
solo = {}
for seed in (1, 2):
    out = path(f"solo-{seed}.h5")
    run(*gen, "--seed", seed, "--output", out)
    with h5py.File(out, "r") as f:
        solo[seed] = (f["X"][:], int(f.attrs["seed"]))


def one_run(out, seeds):
    """The file is exactly the solo output of one of `seeds`: attributes and arrays agree."""
    try:
        with h5py.File(out, "r") as f:
            seed = int(f.attrs["seed"])
            return seed in seeds and np.array_equal(f["X"][:], solo[seed][0])
    except (OSError, KeyError):
        return False


def pair_verdict(results, kept_ok):
    """Two runs on one output: each exits 0, or 1 with one error line (the other won); at least
    one wins; the file is the whole output of a winner (of the only winner when one failed)."""
    clean = all(rc == 0 or (rc == 1 and sum(l.startswith("lsgl: error:")
                                            for l in err.splitlines()) == 1)
                for err, rc in results)
    winners = [i for i, (_, rc) in enumerate(results) if rc == 0]
    return clean and winners and kept_ok(winners) and not temporaries()


bad_pairs, outcomes = [], []
for i in range(10):
    out = path("shared.h5")
    if os.path.exists(out):
        os.remove(out)
    seeds = (1, 2)
    procs = [subprocess.Popen(command(*gen, "--seed", s, "--output", out), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for s in seeds]
    results = [(p.communicate(timeout=T.timeout)[1], p.returncode) for p in procs]
    outcomes.append(tuple(rc for _, rc in results))
    if not pair_verdict(results, lambda w: one_run(out, [seeds[j] for j in w])):
        bad_pairs.append((i, results, temporaries()))
print(f"    exit codes of the pairs: {outcomes}")
check("concurrent: 10 pairs of `generate` on one output, each file one winner's whole output, "
      "the other run failed clearly or finished first, no temporary left", not bad_pairs,
      bad_pairs)

solo_graph = {}
for k in (4, 6):
    out = path(f"solo-k{k}.h5")
    run(*base, "--k", k, "--input", data, "--output", out)
    with h5py.File(out, "r") as f:
        solo_graph[k] = f["graph/data"][:]
def one_graph(out, ks):
    try:
        with h5py.File(out, "r") as f:
            k = int(f["graph"].attrs["k_requested"])
            return k in ks and np.array_equal(f["graph/data"][:], solo_graph[k])
    except (OSError, KeyError):
        return False


bad_pairs, outcomes = [], []
for i in range(3):
    out = path("shared-graph.h5")
    if os.path.exists(out):
        os.remove(out)
    ks = (4, 6)
    procs = [subprocess.Popen(command(*base, "--k", k, "--input", data, "--output", out),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k in ks]
    results = [(p.communicate(timeout=T.timeout)[1], p.returncode) for p in procs]
    outcomes.append(tuple(rc for _, rc in results))
    if not pair_verdict(results, lambda w: one_graph(out, [ks[j] for j in w])):
        bad_pairs.append((i, results, temporaries()))
print(f"    exit codes of the pairs: {outcomes}")
check("concurrent: 3 pairs of `learn` on one output, each file one winner's whole graph",
      not bad_pairs, bad_pairs)

Xn = X.copy()
Xn[-1, 0] = np.nan  # read by the last rank
with h5py.File(path("nan.h5"), "w") as f:
    f["X"] = Xn
shutil.copy(path("solo-k4.h5"), path("kept.h5"))
expect_failure("failed run: existing output unchanged, no temporary file",
               run(*learn, "--input", path("nan.h5"), "--output", path("kept.h5")), "NaN",
               {path("kept.h5"): digest(path("kept.h5"))})

# --- (2) outputs naming inputs ----------------------------------------------------------------
inputs = {data: digest(data)}
os.symlink(data, path("link.h5"))
os.mkdir(path("sub"))
expect_failure("identity: learn --output ./x.h5 with --input x.h5",
               run(*learn, "--input", "x.h5", "--output", "./x.h5", cwd=tmp), "same file", inputs)
expect_failure("identity: learn --output a symlink to the input",
               run(*learn, "--input", data, "--output", path("link.h5")), "same file", inputs)
expect_failure("identity: learn --checkpoint the input (another spelling)",
               run(*learn, "--input", data, "--output", path("o.h5"), "--checkpoint",
                   path("sub/../x.h5"), "--checkpoint-every", 5), "same file", inputs)
expect_failure("identity: learn --checkpoint the same file as --output",
               run(*learn, "--input", data, "--output", path("o.h5"), "--checkpoint",
                   "./o.h5", "--checkpoint-every", 5, cwd=tmp), "same file", inputs)
edges = "".join(f"{i} {(i * 7 + 1) % 50}\n" for i in range(50))
g_txt = write("g.txt", edges.encode())
expect_failure("identity: densest --output its --graph",
               run("densest", "--graph", g_txt, "--size", 5, "--output", "./g.txt",
                   "--output-format", "text", cwd=tmp), "same file", {g_txt: digest(g_txt)})
graph = path("solo-k4.h5")
expect_failure("identity: eval --json the graph",
               run("eval", "--graph", graph, "--json", "./solo-k4.h5", "--no-diameter", "--quiet",
                   cwd=tmp), "same file", {graph: digest(graph)})
expect_failure("identity: eval --json and --embedding one file",
               run("eval", "--graph", graph, "--json", path("e.out"), "--embedding",
                   "./e.out", "--no-diameter", "--quiet", cwd=tmp), "same file",
               {graph: digest(graph)})
labels = path("labels.npy")
np.save(labels, (np.arange(len(X)) // 60).astype(np.int64))
model = path("model.h5")
p = run("hash", "train", "--input", data, "--labels", labels, "--bits", 8, "--features", "raw",
        "--quiet", "--output", model)
expect_success("hash: a model is trained", p)
expect_failure("identity: hash encode --output the model",
               run("hash", "encode", "--model", model, "--input", data, "--output",
                   "./model.h5", cwd=tmp), "same file", {model: digest(model)})
expect_failure("identity: hash train --output the labels",
               run("hash", "train", "--input", data, "--labels", labels, "--bits", 8,
                   "--features", "raw", "--output", "./labels.npy", cwd=tmp), "same file",
               {labels: digest(labels)})
expect_failure("identity: collect --csv one of its --outputs",
               run("collect", "--outputs", path("solo-k*.h5"), "--csv", "./solo-k4.h5", ranks=1,
                   cwd=tmp), "same file", {graph: digest(graph)})

# --- (3) truncated or mislabelled text input --------------------------------------------------
big_edges = "".join(f"{i} {(i * 31 + 7) % 4000} 1.5\n" for i in range(4000)).encode()
gz = gzip.compress(big_edges)
for name, cut in (("in the middle", len(gz) // 2), ("in the trailer", len(gz) - 4)):
    bad = write(f"cut-{len(gz) - cut}.txt.gz", gz[:cut])
    expect_failure(f"text: a .gz edge list cut {name}",
                   run("densest", "--graph", bad, "--size", 5, "--quiet"), "truncated",
                   {bad: digest(bad)})
mtx = "%%MatrixMarkt matrix coordinate real general\n4 4 3\n1 2 1\n2 3 1\n3 4 1\n"
bad = write("typo.mtx", mtx.encode())
expect_failure("text: a misspelt Matrix Market banner",
               run("densest", "--graph", bad, "--size", 2, "--quiet"), "Matrix Market banner")
bad = write("one-percent.txt", mtx.replace("%%MatrixMarkt", "%MatrixMarket").encode())
expect_failure("text: a Matrix Market banner with one '%' is not an edge-list comment",
               run("densest", "--graph", bad, "--size", 2, "--quiet"), "Matrix Market banner")

# --- (4) sizes from headers, ids from text ------------------------------------------------------
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 4), }"
header = header.encode() + b" " * (64 - (10 + len(header) + 1) % 64) + b"\n"
npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + X.tobytes()
bad = write("huge.npy", npy)
expect_failure("alloc: .npy header claiming 10^12 rows",
               run(*learn, "--input", bad, "--output", path("o.h5")), "truncated")
bad = write("huge.npy.gz", gzip.compress(npy))
expect_failure("alloc: .npy.gz header claiming 10^12 rows",
               run(*learn, "--input", bad, "--output", path("o.h5")), "truncated")
idx = bytes([0, 0, 8, 3]) + struct.pack(">III", 0xFFFFFFFF, 28, 28) + bytes(784 * 10)
bad = write("huge-idx3-ubyte", idx)
expect_failure("alloc: IDX header claiming 2^32 images",
               run(*learn, "--input", bad, "--output", path("o.h5")), "truncated")
bad = write("bigid.txt", (edges + "3 8000000000\n").encode())
expect_failure("alloc: an edge list with node id 8e9 (last line)",
               run("densest", "--graph", bad, "--size", 5, "--quiet"), "node ids up to")
X64 = X.astype(np.float64)
X64[-1, 2] = 1e300
np.save(path("big64.npy"), X64)
expect_failure("alloc: a float64 value beyond the float32 range named as such",
               run(*learn, "--input", path("big64.npy"), "--output", path("o.h5")),
               "float32 range")
with h5py.File(path("big64.h5"), "w") as f:
    f["X"] = X64
expect_failure("alloc: a float64 HDF5 value beyond the float32 range named as such",
               run(*learn, "--input", path("big64.h5"), "--output", path("o.h5")),
               "float32 range")

# Values whose squared distances leave float range (Faiss's k-means aborted on them) or whose
# squares underflow: refused before any search, with the rescaling to do.
for scale, todo in ((1e19, "divide it by 1e"), (1e30, "divide it by 1e"),
                    (1e-25, "multiply it by 1e")):
    np.save(path("scaled.npy"), (X * scale).astype(np.float32))
    for args in (["--ann", "exact"], ["--ann", "hnsw", "--ann-route", "ring"]):
        expect_failure(f"values: learn on data times {scale:g} ({' '.join(args)})",
                       run("learn", "--quiet", "--k", 5, "--input", path("scaled.npy"),
                           "--output", path("o.h5"), *args), todo)

# --- (5) numeric options ------------------------------------------------------------------------
for name, args, mention in (
        ("--theta inf", ["--theta", "inf"], "--theta must be a finite number"),
        ("--alpha 1e308 --beta 1e-308", ["--alpha", 1e308, "--beta", 1e-308], "--alpha and --beta"),
        ("--prune nan", ["--prune", "nan"], "--prune must be a finite number"),
        ("--prune 1e9 (log: weights <= 1)", ["--prune", 1e9], "at or above 1"),
        ("--prune 1 (log: the bound itself)", ["--prune", 1], "at or above 1"),
        ("--prune 0.999 (above every weight)", ["--prune", 0.999], "no edges"),
        ("--prune 0.999 (l2: above every weight)", ["--model", "l2", "--prune", 0.999],
         "no edges"),
        ("--r 1e9 (r*k overflows int)", ["--r", 1e9], "--r times --k"),
        ("--tol inf", ["--tol", "inf"], "--tol must be a finite number"),
        ("--mu nan (soft)", ["--model", "soft", "--mu", "nan"], "--mu must be a finite number")):
    expect_failure(f"options: learn {name}",
                   run(*learn, "--input", data, "--output", path("o.h5"), *args), mention)
expect_failure("options: theta --r 1e9",
               run("theta", "--input", data, "--k", 5, "--ann", "exact", "--r", 1e9), "--r")
expect_failure("options: densest --eps nan",
               run("densest", "--graph", g_txt, "--size", 5, "--eps", "nan"), "finite")
same = path("same.h5")
with h5py.File(same, "w") as f:
    f["X"] = np.ones((40, 3), dtype=np.float32)
expect_failure("options: soft model, default mu 0 on identical rows",
               run(*learn, "--model", "soft", "--input", same, "--output", path("o.h5")),
               "give --mu")
members = {}
scales = (1.0, 2.0 ** -996, 2.0 ** 1010)  # exact powers of two: about 1.5e-300 and 1.1e304


def weighted_graph(scale):
    return write(f"w{scale:.3g}.txt", "".join(
        f"{i} {j} {scale * (1 + (i + j) % 3)!r}\n"
        for i in range(40) for j in range(i + 1, 40) if (i * j) % 7 < 3).encode())


for scale in scales:
    out = path(f"dens-{scale:.3g}.txt")
    p = run("densest", "--graph", weighted_graph(scale), "--size", 8, "--method", "peel",
            "--output", out, "--output-format", "text", "--quiet")
    members[scale] = open(out).read() if p is not None and p.returncode == 0 else None
    expect_success(f"densest: weights scaled by {scale:.3g} accepted", p)
check("densest: fixed-point weights near 1e-300 and 1e304 give the members of unit scale (peel)",
      len(set(members.values())) == 1 and members[1.0], members)
expect_failure("densest: a subgraph weight past DBL_MAX is not written as Inf",
               run("densest", "--graph", weighted_graph(2.0 ** 1020), "--size", 8, "--method",
                   "peel", "--output", path("dens-inf.h5"), "--quiet"), "not a finite double")

# --- (6) smaller --------------------------------------------------------------------------------
conf = write("learn.conf", b"k = 5\n")
expect_failure("identity: --output the --config file",
               run(*base, "--input", data, "--config", conf, "--output", "./learn.conf", cwd=tmp),
               "same file", {conf: digest(conf)})
expect_failure("config: --config naming a directory",
               run(*learn, "--input", data, "--output", path("o.h5"), "--config", path("sub")),
               "not a regular file")
os.mkdir(path("sweep"))
shutil.copy(graph, path("sweep/g-1.h5"))
shutil.copy(graph, path("sweep/g-2.h5.partial.123.abc"))
shutil.copy(graph, path("sweep/g-3.h5.partial"))
p = run("collect", "--outputs", path("sweep/g-*"), "--csv", path("sweep.csv"), ranks=1)
rows = open(path("sweep.csv")).read().splitlines() if os.path.exists(path("sweep.csv")) else []
for f in glob.glob(path("sweep/*.partial*")):
    os.remove(f)
check("collect: temporary files are not finished tasks",
      p is not None and p.returncode == 0 and len(rows) == 2, rows)
shutil.copy(graph, path("sweep/g-01.h5"))
expect_failure("collect: one task under two names (-1 and -01)",
               run("collect", "--outputs", path("sweep/g-*.h5"), "--csv", path("sweep2.csv"),
                   ranks=1), "two outputs")
ub = path("userblock.h5")
with h5py.File(ub, "w", userblock_size=512) as f:
    with h5py.File(graph, "r") as g:
        for key in ("indptr", "indices", "data"):
            f[f"graph/{key}"] = g[f"graph/{key}"][:]
p = run("densest", "--graph", ub, "--size", 5, "--quiet")
expect_success("densest: an HDF5 graph with a user block is read as HDF5", p)
one_way = write("oneway.txt", "".join(f"{i} {i + 1}\n" for i in range(30)).encode())
p = run("densest", "--graph", one_way, "--size", 4, "--quiet")
expect_success("densest --quiet prints no note", p, p is not None and "note" not in p.stdout,
               repr(p.stdout) if p else "")

# --- (7) eval, hash, generate: option ranges, sizes, no NaN/Inf written -------------------------
for name, args, mention in (
        ("blobs: 10^12 x 10^6 points", ["--n", 10**12, "--d", 10**6], "node's memory"),
        ("blobs: 4e18 clusters (size products overflow)", ["--n", 100, "--clusters", 4 * 10**18],
         "node's memory"),
        ("manifold: a 1e10 x 1e10 grid (a*b overflows)",
         ["--kind", "manifold", "--a", 10**10, "--b", 10**10], "node's memory"),
        ("manifold: --smoothness 1e300", ["--kind", "manifold", "--a", 8, "--b", 8,
                                          "--smoothness", 1e300], "--smoothness"),
        ("powerlaw-graph: --edges 0 and no community (an empty graph)",
         ["--kind", "powerlaw-graph", "--n", 100, "--edges", 0], "without edges"),
        ("powerlaw-graph: a community of 10^6 nodes at density 1",
         ["--kind", "powerlaw-graph", "--n", 10**6, "--edges", 10, "--communities", 10**6,
          "--community-density", 1], "node's memory"),
        ("powerlaw-graph: community sizes summing past int64",
         ["--kind", "powerlaw-graph", "--n", 100, "--communities", f"{9 * 10**18},{9 * 10**18}"],
         "fit in n")):
    expect_failure(f"generate: {name}", run("generate", *args, "--output", path("gen.h5")),
                   mention)
    check(f"generate: {name}: no output", not os.path.exists(path("gen.h5")))
hash_train = ["hash", "train", "--input", data, "--labels", labels, "--bits", 8, "--quiet"]
for name, args, mention in (
        ("--anchors 50000 (Gram matrix beyond int)", ["--anchors", 50000], "at most 46340"),
        ("--chunk 3e9", ["--chunk", 3 * 10**9], "--chunk"),
        ("--ns-every -1", ["--anchors", 50, "--ns-every", -1], "--ns-every")):
    expect_failure(f"options: hash train {name}",
                   run(*hash_train, *args, "--output", path("m.h5")), mention)
expect_failure("options: eval --max-classes 50000",
               run("eval", "--graph", graph, "--labels", labels, "--max-classes", 50000,
                   "--quiet"), "--max-classes")
kept = path("kept-model.h5")
shutil.copy(model, kept)
expect_failure("non-finite: hash train --nu 1e308 (the loss overflows): no model written",
               run(*hash_train, "--anchors", 50, "--nu", 1e308, "--output", kept),
               "hash model not written", {kept: digest(kept)})
# A model whose projection row of input column 0 is 1e308: only the last input row, whose
# column 0 is 1e10, overflows (read by the last rank).
huge = path("huge-model.h5")
shutil.copy(model, huge)
with h5py.File(huge, "r+") as f:
    f["hash/P"][0, :] = 1e308
    f["hash/mean"][0] = 0.0
Xh = X.copy()
Xh[:, 0] = 0.0
Xh[-1, 0] = 1e10
with h5py.File(path("xh.h5"), "w") as f:
    f["X"] = Xh
expect_failure("non-finite: hash encode whose last row's projection overflows: no codes file",
               run("hash", "encode", "--model", huge, "--input", path("xh.h5"), "--output",
                   path("codes.h5")), "codes not computed", {huge: digest(huge)})
check("non-finite: hash encode: no codes file", not os.path.exists(path("codes.h5")))
p = run("hash", "encode", "--model", model, "--input", data, "--labels", labels, "--output",
        path("codes.h5"))
expect_success("hash: codes are encoded", p)
with h5py.File(path("codes.h5"), "r+") as f:
    f["hash"].attrs["bits"] = 0
expect_failure("files: hash eval of a codes file whose bits attribute is 0",
               run("hash", "eval", "--queries", path("codes.h5"), "--database", model),
               "bits attribute")
heavy = path("heavy.h5")
shutil.copy(graph, heavy)
with h5py.File(heavy, "r+") as f:  # the last node's edges, both directions, weigh about 1e300
    ip, ind, w = f["graph/indptr"][:], f["graph/indices"][:], f["graph/data"][:]
    last = len(ip) - 2
    w[(ind == last) | (np.arange(len(w)) >= ip[last])] *= 1e300
    f["graph/data"][:] = w
    f["graph/degree"][:] = np.add.reduceat(w, ip[:-1])
expect_failure("non-finite: eval --embedding of a graph whose last node's weights are 1e300",
               run("eval", "--graph", heavy, "--embedding", path("emb.h5"), "--no-diameter",
                   "--quiet"), "embedding not written", {heavy: digest(heavy)})
check("non-finite: eval --embedding: no embedding file", not os.path.exists(path("emb.h5")))

T.finish()
