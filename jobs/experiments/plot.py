#!/usr/bin/python3
"""Helpers of the experiment scripts in jobs/experiments/ (data preparation, records, CSV, plots).

  plot.py subset  --n N --seed S --out-x X.npy --out-y Y.npy [--images IDX.gz --labels IDX.gz]
  plot.py record  --runs runs.jsonl [--graph g.h5] [--log learn.log] [--eval e.json] [key=value ...]
  plot.py l1err   --exact g_full.h5 --approx g_ann.h5           (prints ||Wa - Wf||_1 / ||Wf||_1)
  plot.py theta   --log theta.log                               (prints "lower upper theta")
  plot.py report  EXPERIMENT --runs runs.jsonl --outdir DIR     (writes DIR/EXPERIMENT.csv,
                                                                 DIR/EXPERIMENT.png, prints a table)

Each run of an experiment appends one JSON object to runs.jsonl: the graph's /graph attributes,
the timings parsed from the learn summary (the graph file holds no times), the eval JSON's
measures, and the script's own key=value fields. `report` turns those records into the
experiment's CSV, plot and table.
"""
import argparse
import csv
import gzip
import json
import math
import re
import sys

import numpy as np

FMNIST = "/usr/share/datasets/fashion-mnist"


# ---------------------------------------------------------------- data
def read_idx(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def cmd_subset(a):
    X = read_idx(a.images)
    y = read_idx(a.labels)
    X = X.reshape(X.shape[0], -1)
    rng = np.random.default_rng(a.seed)
    idx = np.sort(rng.choice(X.shape[0], size=a.n, replace=False)) if a.n < X.shape[0] \
        else np.arange(X.shape[0])
    # lsgl scales IDX pixels to [0,1]; do the same so subsets and the full file agree.
    np.save(a.out_x, np.ascontiguousarray(X[idx].astype(np.float32) / 255.0))
    np.save(a.out_y, y[idx].astype(np.int64))


# ---------------------------------------------------------------- records
def h5_attrs(path):
    import h5py
    out = {}
    with h5py.File(path, "r") as f:
        for key, v in f["graph"].attrs.items():
            if isinstance(v, bytes):
                v = v.decode()
            elif isinstance(v, np.generic):
                v = v.item()
            out[key] = v
    return out


def parse_learn_log(path):
    """Timings and status from the summary that rank 0 prints at the end of `lsgl learn`."""
    out = {}
    text = open(path, errors="replace").read()
    m = re.search(r"phases\s+read ([\d.]+) s, (?:order ([\d.]+) s, )?candidates ([\d.]+) s, "
                  r"(?:theta|edges) ([\d.]+) s, learn ([\d.]+) s, write ([\d.]+) s", text)
    if m:
        names = ("t_read", "t_order", "t_candidates", "t_prepare", "t_learn", "t_write")
        for name, v in zip(names, m.groups()):
            if v is not None:
                out[name] = float(v)
    m = re.search(r"total time\s+([\d.]+) s", text)
    if m:
        out["t_total"] = float(m.group(1))
    m = re.search(r"([\d.]+) ms per iteration", text)
    if m:
        out["ms_per_iteration"] = float(m.group(1))
    m = re.search(r"searched for k: (\d+) solves, (\d+) iterations", text)
    if m:
        out["l2_solves"], out["l2_iterations_total"] = int(m.group(1)), int(m.group(2))
    return out


def flatten_eval(e):
    out = {}
    for key in ("components", "isolated", "diameter", "diameter_exact", "diameter_upper_bound",
                "wrong_edge_share"):
        if key in e:
            out[key] = e[key]
    lp = e.get("label_propagation")
    if isinstance(lp, dict):
        for key in ("accuracy", "accuracy_reachable", "unreachable", "fraction"):
            if key in lp:
                out["lp_" + key] = lp[key]
    cc = e.get("class_connectivity")
    if isinstance(cc, dict):
        out["class_within"] = cc.get("within")
        out["class_nodes"] = cc.get("nodes")
    if "largest_component" in e:
        out["largest_component"] = e["largest_component"]
    return out


def convert(v):
    for f in (int, float):
        try:
            return f(v)
        except ValueError:
            pass
    return v


def cmd_record(a):
    rec = {}
    if a.graph:
        rec.update(h5_attrs(a.graph))
    if a.log:
        rec.update(parse_learn_log(a.log))
    if a.eval:
        rec.update(flatten_eval(json.load(open(a.eval))))
    for kv in a.fields:
        k, v = kv.split("=", 1)
        rec[k] = convert(v)
    with open(a.runs, "a") as f:
        f.write(json.dumps(rec) + "\n")


def load_w(path):
    import h5py
    import scipy.sparse as sp
    with h5py.File(path, "r") as f:
        g = f["graph"]
        n = int(g.attrs["n"])
        return sp.csr_array((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(n, n))


def cmd_l1err(a):
    wf = load_w(a.exact)
    wa = load_w(a.approx)
    print("%.6g" % (abs(wa - wf).sum() / abs(wf).sum()))


def cmd_theta(a):
    text = open(a.log, errors="replace").read()
    lo = re.search(r"lower[^\d]*([\d.eE+-]+)", text)
    up = re.search(r"upper[^\d]*([\d.eE+-]+|inf)", text)
    th = re.search(r"theta\s*[=:]?\s*([\d.eE+-]+)", text)
    if not (lo and up and th):
        sys.exit("plot.py theta: cannot parse the output of lsgl theta:\n" + text)
    upper = float(up.group(1))
    # lsgl theta prints 0 when every node's upper bound is infinite (k = 1, or ties).
    print(lo.group(1), upper if upper > 0 else "inf", th.group(1))


# ---------------------------------------------------------------- reports
def load_runs(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def write_csv(path, rows, cols):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([fmt(r.get(c)) for c in cols])


def fmt(v, digits=4):
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            return str(v)
        return "%.*g" % (digits, v)
    return str(v)


def print_table(rows, cols, headers=None):
    headers = headers or cols
    cells = [[fmt(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for c in cells:
        print("| " + " | ".join(x.ljust(w) for x, w in zip(c, widths)) + " |")


def plt_module():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


MODEL_STYLE = {"log": ("tab:red", "o"), "l2": ("tab:blue", "s"), "knn": ("tab:green", "^"),
               "hard": ("tab:purple", "v"), "soft": ("tab:orange", "D")}


def report_theta_sparsity(runs, outdir):
    preds = sorted((r for r in runs if r.get("kind") == "predicted"), key=lambda r: r["k"])
    meas = sorted((r for r in runs if r.get("kind") == "measured"), key=lambda r: r["theta"])
    # For each measured theta: the k whose predicted interval (lower, upper] contains it.
    for m in meas:
        m["k_predicted"] = ",".join(str(p["k"]) for p in preds
                                    if p["lower"] < m["theta"] <= p["upper"]) or "-"
    cols = ["theta", "avg_degree", "k_predicted", "iterations", "converged"]
    write_csv(outdir + "/theta_sparsity.csv",
              [dict(kind="predicted", k=p["k"], lower=p["lower"], upper=p["upper"],
                    theta=p["theta"]) for p in preds] +
              [dict(kind="measured", **{c: m.get(c) for c in cols}) for m in meas],
              ["kind", "k", "lower", "upper", "theta", "avg_degree", "k_predicted",
               "iterations", "converged"])
    print("\npredicted intervals (eq. 18, exact candidates):")
    print_table(preds, ["k", "lower", "upper", "theta"])
    print("\nmeasured average degree of the exact log model (--support full) vs theta:")
    print_table(meas, cols)
    plt = plt_module()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for p in preds:
        up = p["upper"] if math.isfinite(p["upper"]) else p["lower"] * 3
        ax.plot([p["lower"], up], [p["k"], p["k"]], color="tab:blue", lw=2.5,
                label="predicted interval (eq. 18)" if p is preds[0] else None)
        ax.plot([p["theta"]], [p["k"]], "|", color="k", ms=8,
                label="theta(k), geometric mean" if p is preds[0] else None)
    ax.plot([m["theta"] for m in meas], [m["avg_degree"] for m in meas], "-o", color="tab:red",
            ms=3, label="measured average degree")
    ax.set_xscale("log")
    ax.set_xlabel("theta")
    ax.set_ylabel("average degree (edges per node)")
    n = meas[0].get("n") if meas else "?"
    ax.set_title("Fashion-MNIST, %s images: predicted vs measured sparsity" % n)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(outdir + "/theta_sparsity.png", dpi=120)


def report_approximation_error(runs, outdir):
    groups = {}
    for r in runs:
        if r.get("kind") != "approx":
            continue
        groups.setdefault((r["k_requested"], r["r_factor"]), []).append(r)
    rows = []
    for (k, rr), g in sorted(groups.items()):
        errs = np.array([x["l1err"] for x in g])
        rows.append(dict(k=k, r=rr, subsets=len(g), l1err_mean=errs.mean(),
                         l1err_std=errs.std(), l1err_min=errs.min(), l1err_max=errs.max(),
                         avg_degree_exact=np.mean([x["avg_degree_exact"] for x in g]),
                         avg_degree=np.mean([x["avg_degree"] for x in g]),
                         recall=np.mean([x.get("recall_estimate", float("nan")) for x in g]),
                         all_converged=int(all(x.get("converged", 0) and x.get("converged_exact", 0)
                                               for x in g))))
    cols = ["k", "r", "subsets", "l1err_mean", "l1err_std", "l1err_min", "l1err_max",
            "avg_degree_exact", "avg_degree", "recall", "all_converged"]
    write_csv(outdir + "/approximation_error.csv", rows, cols)
    print("\nrelative L1 error ||W_r - W_full||_1 / ||W_full||_1 (same theta), mean over subsets:")
    print_table(rows, cols)
    plt = plt_module()
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ks = sorted({r["k"] for r in rows})
    for k in ks:
        sel = [r for r in rows if r["k"] == k]
        ax.errorbar([r["r"] for r in sel], [r["l1err_mean"] for r in sel],
                    yerr=[r["l1err_std"] for r in sel], marker="o", capsize=3, label="k = %d" % k)
    ax.set_yscale("log")
    ax.set_xlabel("r (each node may connect to its r*k approximate nearest neighbours)")
    ax.set_ylabel("relative L1 error vs the exact log model")
    ax.set_title("A-NN restricted vs exact log model (Fashion-MNIST subsets)")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    fig.tight_layout()
    fig.savefig(outdir + "/approximation_error.png", dpi=120)


def report_models_fmnist(runs, outdir):
    rows = sorted((r for r in runs if r.get("kind") == "model"),
                  key=lambda r: (list(MODEL_STYLE).index(r["model"]), r["k_requested"]))
    for r in rows:
        if "converged" not in r:
            r["converged"] = "n/a"
        r["iters"] = r.get("iterations_total", r.get("iterations", ""))
        within = r.get("class_within")
        if isinstance(within, list) and within:
            r["min_class_share"] = min(within)
            r["max_class_share"] = max(within)
    cols = ["model", "k_requested", "avg_degree", "components", "isolated", "wrong_edge_share",
            "lp_accuracy", "lp_accuracy_reachable", "lp_unreachable", "min_class_share",
            "max_class_share", "converged", "iters", "t_learn", "t_total"]
    write_csv(outdir + "/models_fmnist.csv", rows, cols)
    print("\nFashion-MNIST (%s images): models vs average degree" %
          (rows[0].get("n") if rows else "?"))
    print_table(rows, cols, ["model", "k", "avg deg", "comps", "isol", "wrong share", "LP acc",
                             "LP acc reach", "unreach", "min class", "max class", "conv", "iters",
                             "learn s", "total s"])
    plt = plt_module()
    fig, axs = plt.subplots(1, 3, figsize=(15, 4.5))
    for model, (col, mk) in MODEL_STYLE.items():
        sel = sorted((r for r in rows if r["model"] == model), key=lambda r: r["avg_degree"])
        if not sel:
            continue
        x = [r["avg_degree"] for r in sel]
        axs[0].plot(x, [r.get("wrong_edge_share") for r in sel], "-" + mk, color=col, label=model)
        axs[1].plot(x, [r.get("lp_accuracy") for r in sel], "-" + mk, color=col, label=model)
        axs[2].plot(x, [r.get("lp_unreachable") for r in sel], "--" + mk, color=col, label=model)
    axs[0].set_ylabel("share of weight on wrong edges")
    axs[1].set_ylabel("label propagation accuracy (1% labels)")
    axs[2].set_ylabel("nodes in components without a known label")
    axs[2].set_yscale("symlog", linthresh=1)
    for ax in axs:
        ax.set_xlabel("average degree")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("Fashion-MNIST, %s images (cf. [KP19] Fig. 6)" % (rows[0].get("n") if rows else "?"))
    fig.tight_layout()
    fig.savefig(outdir + "/models_fmnist.png", dpi=120)
    # Connectivity per class (cf. [KP19] Fig. 5), one panel per model, bars per k.
    if any(isinstance(r.get("class_within"), list) for r in rows):
        plot_class_connectivity(rows, outdir + "/models_fmnist_classes.png", plt)


def plot_class_connectivity(rows, path, plt):
    models = [m for m in MODEL_STYLE if any(r["model"] == m for r in rows)]
    fig, axs = plt.subplots(1, len(models), figsize=(4 * len(models), 3.8), sharey=True)
    if len(models) == 1:
        axs = [axs]
    for ax, model in zip(axs, models):
        sel = sorted((r for r in rows if r["model"] == model), key=lambda r: r["k_requested"])
        width = 0.8 / max(1, len(sel))
        for j, r in enumerate(sel):
            within = r.get("class_within")
            if not isinstance(within, list):
                continue
            vals = list(within) + [r.get("wrong_edge_share") or 0.0]
            ax.bar(np.arange(len(vals)) + j * width, vals, width,
                   label="k=%d (deg %.1f)" % (r["k_requested"], r["avg_degree"]))
        ax.set_title(model)
        ax.set_xticks(np.arange(11) + 0.4)
        ax.set_xticklabels([str(i) for i in range(10)] + ["wrong"], fontsize=7)
        ax.legend(fontsize=7)
    axs[0].set_ylabel("share of ||W||_1,1")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def report_manifold(runs, outdir):
    rows = sorted((r for r in runs if r.get("kind") == "manifold"),
                  key=lambda r: (-r["signals"], list(MODEL_STYLE).index(r["model"]),
                                 r.get("label", r["model"]), r["k_requested"]))
    for r in rows:
        r.setdefault("label", r["model"])
    cols = ["signals", "label", "engine", "k_requested", "avg_degree", "components", "isolated",
            "diameter", "diameter_exact", "recall_estimate", "converged", "iterations"]
    write_csv(outdir + "/manifold.csv", rows, cols)
    print("\n64x64 grid seen through smooth signals: hop diameter of the largest component")
    print_table(rows, cols)
    plt = plt_module()
    sigs = sorted({r["signals"] for r in rows}, reverse=True)
    fig, axs = plt.subplots(1, len(sigs), figsize=(6 * len(sigs), 4.5), squeeze=False)
    for ax, s in zip(axs[0], sigs):
        for label in sorted({r["label"] for r in rows}, key=lambda l: (len(l), l)):
            sel = sorted((r for r in rows if r["signals"] == s and r["label"] == label),
                         key=lambda r: r["avg_degree"])
            if sel:
                col, mk = MODEL_STYLE[sel[0]["model"]]
                ax.plot([r["avg_degree"] for r in sel], [r["diameter"] for r in sel],
                        ("--" if label != sel[0]["model"] else "-") + mk,
                        color=col if label == sel[0]["model"] else "tab:gray", label=label)
        ax.axhline(126, color="grey", ls=":", lw=1)
        ax.axhline(63, color="grey", ls=":", lw=1)
        ax.text(ax.get_xlim()[1], 126, " 4-grid 126", va="center", fontsize=7)
        ax.text(ax.get_xlim()[1], 63, " 8-grid 63", va="center", fontsize=7)
        ax.set_title("%d signals" % s)
        ax.set_xlabel("average degree")
        ax.set_ylabel("diameter (hops, largest component)")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(outdir + "/manifold.png", dpi=120)


def report_time_vs_edges(runs, outdir):
    rows = sorted((r for r in runs if r.get("kind") == "time"),
                  key=lambda r: (r["n"], r["allowed_edges"]))
    for r in rows:
        r["us_per_edge_iter"] = (1e3 * r["ms_per_iteration"] / r["allowed_edges"]
                                 if r.get("ms_per_iteration") else None)
    cols = ["n", "k_requested", "r", "allowed_edges", "avg_degree", "iterations", "converged",
            "t_candidates", "t_learn", "ms_per_iteration", "us_per_edge_iter", "t_total"]
    write_csv(outdir + "/time_vs_edges.csv", rows, cols)
    print("\nlog model: learning time vs allowed edges (2 ranks)")
    print_table(rows, cols)
    plt = plt_module()
    fig, axs = plt.subplots(1, 2, figsize=(12, 4.5))
    for i, n in enumerate(sorted({r["n"] for r in rows})):
        sel = [r for r in rows if r["n"] == n]
        x = [r["allowed_edges"] for r in sel]
        c = "C%d" % i
        axs[0].plot(x, [r["t_learn"] for r in sel], "-o", color=c, label="learn, n = %d" % n)
        axs[0].plot(x, [r["t_candidates"] for r in sel], ":x", color=c,
                    label="neighbour search, n = %d" % n)
        axs[1].plot(x, [r["ms_per_iteration"] for r in sel], "-o", color=c, label="n = %d" % n)
    axs[0].set_ylabel("seconds")
    axs[1].set_ylabel("ms per iteration")
    for ax in axs:
        ax.set_xlabel("allowed edges (r*k candidates per node, union)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Fashion-MNIST, log model: time vs size of the allowed edge set (cf. [KP19] Fig. 15)")
    fig.tight_layout()
    fig.savefig(outdir + "/time_vs_edges.png", dpi=120)


REPORTS = {"theta_sparsity": report_theta_sparsity,
           "approximation_error": report_approximation_error,
           "models_fmnist": report_models_fmnist, "manifold": report_manifold,
           "time_vs_edges": report_time_vs_edges}


def cmd_report(a):
    REPORTS[a.experiment](load_runs(a.runs), a.outdir)
    print("\nCSV: %s/%s.csv  plot: %s/%s.png" % (a.outdir, a.experiment, a.outdir, a.experiment))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("subset")
    s.add_argument("--images", default=FMNIST + "/train-images-idx3-ubyte.gz")
    s.add_argument("--labels", default=FMNIST + "/train-labels-idx1-ubyte.gz")
    s.add_argument("--n", type=int, required=True)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--out-x", required=True)
    s.add_argument("--out-y", required=True)
    s.set_defaults(f=cmd_subset)
    s = sub.add_parser("record")
    s.add_argument("--runs", required=True)
    s.add_argument("--graph")
    s.add_argument("--log")
    s.add_argument("--eval")
    s.add_argument("fields", nargs="*")
    s.set_defaults(f=cmd_record)
    s = sub.add_parser("l1err")
    s.add_argument("--exact", required=True)
    s.add_argument("--approx", required=True)
    s.set_defaults(f=cmd_l1err)
    s = sub.add_parser("theta")
    s.add_argument("--log", required=True)
    s.set_defaults(f=cmd_theta)
    s = sub.add_parser("report")
    s.add_argument("experiment", choices=sorted(REPORTS))
    s.add_argument("--runs", required=True)
    s.add_argument("--outdir", required=True)
    s.set_defaults(f=cmd_report)
    a = p.parse_args()
    a.f(a)


if __name__ == "__main__":
    main()
