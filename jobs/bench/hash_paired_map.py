#!/usr/bin/python3
"""Paired comparison of two hashing models on the same queries (used by jobs/bench/hash*.sh).

    hash_paired_map.py QUERIES_A DATABASE_A QUERIES_B DATABASE_B [--resamples N] [--seed S]

Each QUERIES file is an `lsgl hash encode` output, each DATABASE a model or codes file (HDF5
/hash/codes, uint8 bits packed row by row, /hash/labels). The average precision of every query
is recomputed here, independently of `lsgl hash eval`: Hamming ranking of the whole database,
ties in database order (a stable sort, as SDH's evaluation code does). Prints one line:

    map_a map_b diff lo hi p_le0

diff = MAP(B) - MAP(A); [lo, hi] its 95% paired bootstrap interval (queries resampled with
replacement, the same resample for A and B); p_le0 the fraction of resamples with diff <= 0.
Both query files must hold the same rows (same input, --per-class and --seed).
"""
import argparse
import sys

import h5py
import numpy as np


def read(path):
    with h5py.File(path, "r") as f:
        codes = f["hash/codes"][:]
        labels = f["hash/labels"][:].astype(np.int64)
        rows = f["hash/rows"][:] if "rows" in f["hash"] else None
    return codes, labels, rows


def average_precisions(queries, qlabels, database, dlabels, batch=256):
    # Hamming distances from inner products of +-1 vectors (padding bits agree on both sides).
    signs = lambda c: np.unpackbits(c, axis=1).astype(np.float32) * 2 - 1
    db = signs(database)
    width = db.shape[1]
    ap = np.empty(len(qlabels))
    for b0 in range(0, len(qlabels), batch):
        dots = signs(queries[b0:b0 + batch]) @ db.T
        dists = np.rint((width - dots) / 2).astype(np.uint16)
        for i, dist in enumerate(dists):
            q = b0 + i
            rel = dlabels[np.argsort(dist, kind="stable")] == qlabels[q]  # radix sort, stable
            hits = np.cumsum(rel)
            total = hits[-1] if len(hits) else 0
            ap[q] = (hits[rel] / (np.flatnonzero(rel) + 1.0)).sum() / total if total else 0.0
    return ap


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("queries_a")
    p.add_argument("database_a")
    p.add_argument("queries_b")
    p.add_argument("database_b")
    p.add_argument("--resamples", type=int, default=10000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    qa, la, ra = read(a.queries_a)
    qb, lb, rb = read(a.queries_b)
    if not np.array_equal(la, lb) or (ra is not None and rb is not None and not np.array_equal(ra, rb)):
        sys.exit("hash_paired_map.py: error: the two query files do not hold the same rows")
    apa = average_precisions(qa, la, *read(a.database_a)[:2])
    apb = average_precisions(qb, lb, *read(a.database_b)[:2])
    d = apb - apa
    rng = np.random.default_rng(a.seed)
    boot = np.empty(a.resamples)
    for i in range(a.resamples):
        boot[i] = d[rng.integers(0, len(d), len(d))].mean()
    lo, hi = np.percentile(boot, [2.5, 97.5])
    print(f"{apa.mean():.6f} {apb.mean():.6f} {d.mean():+.6f} {lo:+.6f} {hi:+.6f} "
          f"{(boot <= 0).mean():.3f}")


if __name__ == "__main__":
    main()
