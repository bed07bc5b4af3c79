#!/usr/bin/python3
"""The tables of jobs/bench/hash_solvers.sh ([DPCD] Table 4 on Fashion-MNIST).

    hash_table4.py DIR SOLVER...

DIR holds, per solver, bits and seed, the model SOLVER-BITS-SEED.h5, its queries
q-SOLVER-BITS-SEED.h5 and `lsgl hash eval --json` output SOLVER-BITS-SEED.json (seeds 1, 2, ...
as far as they exist; solvers may have different numbers of seeds). Prints, per code length and
solver, the mean over its seeds of MAP and Precision@500 (± their sample standard deviation over
the seeds), training and B-step seconds and the final loss; then MAP(dpcd) - MAP(solver) over
the seeds both have: the mean with its 95% interval over the seeds (Student's t on the per-seed
differences, each paired by seed and query: the interval the bar is judged by), and per seed the
95% paired bootstrap interval over the queries (average precisions recomputed here, as
hash_paired_map.py does), summarised as the number of seeds whose interval lies above 0,
contains 0, or lies below 0.
"""
import json
import os
import sys

import h5py
import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hash_paired_map import average_precisions, read  # noqa: E402


def mean_std(v):
    """'mean ± sample standard deviation' (the mean alone for one value)."""
    if len(v) < 2:
        return f"{np.mean(v):.4f}"
    return f"{np.mean(v):.4f} ± {np.std(v, ddof=1):.4f}"


def main():
    out, solvers = sys.argv[1], sys.argv[2:]

    def seeds_of(s, bits):
        n = 0
        while os.path.exists(f"{out}/{s}-{bits}-{n + 1}.json"):
            n += 1
        return n

    print("| bits | solver | seeds | MAP | Precision@500 | train s | B-step s | B-step iterations | final loss |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    ap = {}
    for bits in (32, 64, 96):
        for s in solvers:
            if seeds_of(s, bits) == 0:
                continue
            m, p, t, b, it, loss = [], [], [], [], [], []
            for seed in range(1, seeds_of(s, bits) + 1):
                tag = f"{out}/{s}-{bits}-{seed}"
                with open(tag + ".json") as f:
                    j = json.load(f)
                m.append(j["map"])
                p.append(j["precision_at_500"])
                with h5py.File(tag + ".h5", "r") as f:
                    a = f["hash"].attrs
                    t.append(float(a["train_seconds"]))
                    b.append(float(a["bstep_seconds"]))
                    it.append(int(a["bstep_iterations"]))
                    loss.append(float(f["hash/objective"][-1]))
                q, ql, _ = read(f"{out}/q-{s}-{bits}-{seed}.h5")
                db, dl, _ = read(tag + ".h5")
                ap[(s, bits, seed)] = average_precisions(q, ql, db, dl)
            print(f"| {bits} | {s} | {len(m)} | {mean_std(m)} | {mean_std(p)} | {np.mean(t):.2f} | "
                  f"{np.mean(b):.3f} | {np.mean(it):.0f} | {np.mean(loss):.5g} |")
    if "dpcd" not in solvers:
        return
    print()
    print("MAP(dpcd) - MAP(solver), 1,000 queries: mean over the seeds; per-seed 95% paired "
          "bootstrap intervals (2,000 resamples)")
    print("| bits | solver | seeds | mean difference | 95% interval over the seeds | smallest, largest | "
          "seeds: interval > 0 / contains 0 / < 0 |")
    print("|---:|---|---:|---:|---|---|---|")
    rng = np.random.default_rng(1)
    for bits in (32, 64, 96):
        for s in solvers:
            if s == "dpcd" or min(seeds_of(s, bits), seeds_of("dpcd", bits)) == 0:
                continue
            diffs, above, within, below = [], 0, 0, 0
            for seed in range(1, min(seeds_of(s, bits), seeds_of("dpcd", bits)) + 1):
                d = ap[("dpcd", bits, seed)] - ap[(s, bits, seed)]
                boot = np.array([d[rng.integers(0, len(d), len(d))].mean() for _ in range(2000)])
                lo, hi = np.percentile(boot, [2.5, 97.5])
                diffs.append(d.mean())
                above += lo > 0
                below += hi < 0
                within += lo <= 0 <= hi
            interval = "(one seed)"
            if len(diffs) > 1:
                half = stats.t.ppf(0.975, len(diffs) - 1) * np.std(diffs, ddof=1) / np.sqrt(len(diffs))
                interval = f"[{np.mean(diffs) - half:+.4f}, {np.mean(diffs) + half:+.4f}]"
            print(f"| {bits} | {s} | {len(diffs)} | {np.mean(diffs):+.4f} | {interval} | "
                  f"{min(diffs):+.4f}, {max(diffs):+.4f} | {above} / {within} / {below} |")


if __name__ == "__main__":
    main()
