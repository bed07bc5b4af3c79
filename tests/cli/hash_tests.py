"""End-to-end tests of `lsgl hash` under mpirun (ctest cli_hash): train / encode / eval on 1, 2
and 3 ranks give the same bytes of codes and model; the MAP and Precision@k in the JSON equal a
NumPy Hamming ranking of the written codes.
Usage: hash_tests.py LSGL MPIEXEC
"""
import json

import h5py
import numpy as np

from harness import Suite, write_h5

T = Suite("lsgl-cli-hash-")
run, check, path = T.run, T.check, T.path
X, rng, _ = T.four_blobs_input()

# Train / encode / eval on 1, 2 and 3 ranks: the same bytes of codes and model; the MAP and
# Precision@k in the JSON equal a NumPy Hamming ranking of the written codes; codes unpack to
# the sign of the written projection.
Yh = np.repeat(np.arange(4), 150).astype(np.int64)
np.save(path("yh.npy"), Yh)
Q = (X[::7] + rng.normal(0, 0.5, size=X[::7].shape)).astype(np.float32)
write_h5(path("q.h5"), "X", Q)
np.save(path("yq.npy"), Yh[::7])
hashed = {}
for ranks in (1, 2, 3):
    m, qc, js = (path(f"{s}{ranks}.{e}") for s, e in
                 (("hm", "h5"), ("hq", "h5"), ("he", "json")))
    p1 = run("hash", "train", "--input", path("x.h5"), "--labels",
             path("yh.npy"), "--bits", 12, "--anchors", 50, "--chunk", 32,
             "--output", m, "--quiet", ranks=ranks)
    p2 = run("hash", "encode", "--model", m, "--input", path("q.h5"),
             "--labels", path("yq.npy"), "--output", qc, "--quiet", ranks=ranks)
    p3 = run("hash", "eval", "--queries", qc, "--database", m, "--top", 20, "--json", js,
             "--quiet", ranks=ranks)
    ok = all(p is not None and p.returncode == 0 for p in (p1, p2, p3))
    check(f"hash train/encode/eval on {ranks} ranks", ok,
          "" if ok else " | ".join((p.stderr[-300:] if p else "hang") for p in (p1, p2, p3)))
    if ok:
        with h5py.File(m, "r") as f, h5py.File(qc, "r") as g:
            hashed[ranks] = (f["hash/codes"][:], f["hash/P"][:], g["hash/codes"][:],
                             f["hash/labels"][:], g["hash/labels"][:])
            ga = g["hash"].attrs
            check(f"hash codes record their provenance on {ranks} ranks",
                  all(a in ga for a in ("lsgl_version", "git_commit", "command_line",
                                        "configuration", "ranks", "utc_time", "model", "input",
                                        "labels")) and ga["ranks"] == ranks, dict(ga))
        with open(js) as f:
            hashed[ranks] += (json.load(f),)
if len(hashed) == 3:
    same = all(all(np.array_equal(hashed[1][i], hashed[r][i]) for i in range(5)) for r in (2, 3))
    check("hash: same model and codes on 1, 2 and 3 ranks", same)
    db, P, qcodes, dl, ql, rep = hashed[2]
    unpack = lambda c: np.unpackbits(c, axis=1, bitorder="little")[:, :12].astype(np.int64)
    B, QB = unpack(db), unpack(qcodes)
    dist = (QB[:, None, :] != B[None, :, :]).sum(axis=2)
    aps, p20 = [], []
    for i in range(len(QB)):
        order = np.lexsort((np.arange(len(B)), dist[i]))
        rel = (dl[order] == ql[i]).astype(float)
        hits = np.cumsum(rel)
        aps.append((hits / np.arange(1, len(B) + 1))[rel > 0].sum() / max(rel.sum(), 1))
        p20.append(rel[:20].mean())
    check("hash eval: MAP equals a NumPy Hamming ranking", abs(rep["map"] - np.mean(aps)) < 1e-12,
          (rep["map"], np.mean(aps)))
    check("hash eval: Precision@20 equals NumPy", abs(rep["precision_at_20"] - np.mean(p20)) < 1e-12)
    check("hash eval: JSON keys", all(k in rep for k in ("map", "bits", "loss", "train_seconds",
                                                         "encode_seconds")) and rep["bits"] == 12)
    check("hash: supervised codes retrieve the right class", rep["map"] > 0.9, rep["map"])

T.finish()
