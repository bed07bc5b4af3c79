#!/usr/bin/python3
"""Stored entries per rank of an lsgl HDF5 graph under the contiguous node blocks of P ranks.

    graph_blocks.py GRAPH P...

For each P and two layouts -- "equal" (lsgl's Partition: the first n % P ranks get one more row)
and "balanced" (the blocks `lsgl densest` uses, src/graph/balance.cpp: block p starts at the
first row whose rows before it hold at least ceil(p W / P) of W = entries + rows) -- per rank:
its rows, its stored entries E (the entries of its rows: 2 x its edges) and the cross entries C
among them (column owned by another rank: the entries whose products need a ghost value). Reads
/graph/indices in chunks of 8 M entries, so its memory stays near 200 MB for any graph.
"""
import sys

import h5py
import numpy as np


def equal_blocks(ptr, p):
    q, rem = divmod(len(ptr) - 1, p)
    return [r * q + min(r, rem) for r in range(p + 1)]


def balanced_blocks(ptr, p):
    n = len(ptr) - 1
    work = ptr + np.arange(n + 1)  # entries plus rows before each row
    total = int(work[-1])
    targets = [-(-q * total // p) for q in range(1, p)]
    return [0] + [int(s) for s in np.searchsorted(work, targets, side="left")] + [n]


def main():
    path, counts = sys.argv[1], [int(a) for a in sys.argv[2:]]
    with h5py.File(path, "r") as f:
        ptr = f["graph/indptr"][:]
        idx = f["graph/indices"]
        n, nnz = len(ptr) - 1, int(ptr[-1])
        print(f"{path}: n = {n:,}, {nnz:,} stored entries")
        print("| ranks | layout | rank | rows | stored entries E | cross entries C | E / all |")
        print("|---:|---|---:|---:|---:|---:|---:|")
        for p in counts:
            for layout, blocks in (("equal", equal_blocks), ("balanced", balanced_blocks)):
                b = blocks(ptr, p)
                for r in range(p):
                    lo, hi = int(ptr[b[r]]), int(ptr[b[r + 1]])
                    cross = 0
                    for at in range(lo, hi, 1 << 23):
                        c = idx[at:min(hi, at + (1 << 23))]
                        cross += int(np.count_nonzero((c < b[r]) | (c >= b[r + 1])))
                    print(f"| {p} | {layout} | {r} | {b[r + 1] - b[r]:,} | {hi - lo:,} | "
                          f"{cross:,} | {(hi - lo) / nnz:.3f} |")


if __name__ == "__main__":
    main()
