#!/usr/bin/env python3
"""One timed lsgl.learn run for jobs/bench/python.sh (not a test): reads the IDX images as
`lsgl learn --input` does (pixels as float32 divided by 255), each rank its block of rows, and
learns the graph with the command's defaults. Prints one JSON line on rank 0: the seconds of the
call, of the whole script, the library's own phase times, and the peak RSS of each rank (getrusage)
next to the library's peak_rss_max.
   usage: [mpirun -n P] python3 python_learn.py IMAGES.gz K
"""
import gzip
import json
import resource
import sys
import time

t_start = time.perf_counter()
import numpy as np  # noqa: E402

import lsgl  # noqa: E402

path, k = sys.argv[1], int(sys.argv[2])
comm = None
try:
    from mpi4py import MPI
    if MPI.COMM_WORLD.Get_size() > 1:
        comm = MPI.COMM_WORLD
except ImportError:
    pass

t_read = time.perf_counter()
with gzip.open(path) as f:
    raw = f.read()
n = int.from_bytes(raw[4:8], "big")
d = int.from_bytes(raw[8:12], "big") * int.from_bytes(raw[12:16], "big")
begin, end = lsgl.block(n, comm)
pixels = np.frombuffer(raw, dtype=np.uint8, offset=16 + begin * d, count=(end - begin) * d)
X = pixels.reshape(end - begin, d).astype(np.float32)
X /= np.float32(255)
del raw, pixels
t_read = time.perf_counter() - t_read

t_call = time.perf_counter()
W, info = lsgl.learn(X, k, comm=comm, return_info=True)
t_call = time.perf_counter() - t_call
nnz = W.nnz if comm is None else comm.allreduce(W.nnz)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
rss_all = [rss] if comm is None else comm.allgather(rss)
if comm is None or comm.Get_rank() == 0:
    print(json.dumps({
        "seconds_call": t_call, "seconds_read_numpy": t_read,
        "seconds_script": time.perf_counter() - t_start,
        "seconds_library_total": info["seconds_total"],
        "seconds_candidates": info.get("seconds_candidates"),
        "seconds_learn": info.get("seconds_learn"),
        "iterations": info["iterations"], "nnz": nnz, "engine": info.get("ann_engine"),
        "peak_rss_per_rank": rss_all, "peak_rss_max_library": info["peak_rss_max"]}),
        flush=True)
