#!/usr/bin/python3
"""Stored entries per rank of an lsgl HDF5 graph under the contiguous node blocks of P ranks.

    graph_blocks.py GRAPH P...

For each P: per rank, its rows (lsgl's Partition: the first n % P ranks get one more), its stored
entries E (the entries of its rows: 2 x its edges) and the cross entries C among them (column
owned by another rank: the entries whose products need a ghost value). Reads
/graph/indices in chunks of 8 M entries, so its memory stays near 200 MB for any graph.
"""
import sys

import h5py
import numpy as np


def blocks(n, p):
    q, rem = divmod(n, p)
    return [r * q + min(r, rem) for r in range(p + 1)]


def main():
    path, counts = sys.argv[1], [int(a) for a in sys.argv[2:]]
    with h5py.File(path, "r") as f:
        ptr = f["graph/indptr"][:]
        idx = f["graph/indices"]
        n, nnz = len(ptr) - 1, int(ptr[-1])
        print(f"{path}: n = {n:,}, {nnz:,} stored entries")
        print("| ranks | rank | rows | stored entries E | cross entries C | E / all |")
        print("|---:|---:|---:|---:|---:|---:|")
        for p in counts:
            b = blocks(n, p)
            for r in range(p):
                lo, hi = int(ptr[b[r]]), int(ptr[b[r + 1]])
                cross = 0
                for at in range(lo, hi, 1 << 23):
                    c = idx[at:min(hi, at + (1 << 23))]
                    cross += int(np.count_nonzero((c < b[r]) | (c >= b[r + 1])))
                print(f"| {p} | {r} | {b[r + 1] - b[r]:,} | {hi - lo:,} | {cross:,} | "
                      f"{(hi - lo) / nnz:.3f} |")


if __name__ == "__main__":
    main()
