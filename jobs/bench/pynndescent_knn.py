"""pynndescent's all-kNN graph of an HDF5 data set (/X), for jobs/bench/candidates.sh.

usage: pynndescent_knn.py FILE M SAMPLE [--compile-first]
Prints one line: wall seconds of the graph (import, read and, with --compile-first, numba's
compilation on 2,000 rows excluded), recall of the M nearest on SAMPLE sampled rows against
brute force, and peak memory. Threads: NUMBA_NUM_THREADS (the caller sets 2).
"""
import resource
import sys
import time

import h5py
import numpy as np
from pynndescent import NNDescent

path, m, sample_size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0 = time.time()
X = np.ascontiguousarray(h5py.File(path, "r")["X"][:], dtype=np.float32)
if "--compile-first" in sys.argv:
    NNDescent(X[:2000], n_neighbors=m + 1, n_jobs=2, random_state=1).neighbor_graph
t1 = time.time()
idx, _ = NNDescent(X, n_neighbors=m + 1, n_jobs=2, random_state=1).neighbor_graph
t2 = time.time()
rng = np.random.default_rng(1)
hits = 0
sample = rng.choice(len(X), sample_size, replace=False)
for q in sample:
    d = ((X - X[q]) ** 2).sum(1)
    d[q] = np.inf
    kth = np.partition(d, m - 1)[m - 1]
    got = [j for j in idx[q] if j != q][:m]
    hits += sum(d[j] <= kth for j in got)
what = "compile excluded" if "--compile-first" in sys.argv else "compile included"
print(f"pynndescent                 2 threads wall {t2 - t1:7.2f} s ({what}, "
      f"+{t1 - t0:.1f} s read)  recall {hits / (m * len(sample)):.4f}"
      f"  peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.1f} MB")
