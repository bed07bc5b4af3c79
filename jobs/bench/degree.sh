#!/usr/bin/env bash
# Benchmark of the log model's degree correction (--degree-tol, issue 17), not a test: for each
# k, `lsgl learn --model log` once with --degree-tol 0 ([KP19] eq. 18's theta alone) and once
# with the default --degree-tol 0.05, on the first 10,000 Fashion-MNIST images and on the
# 64 x 64 manifold grid (`lsgl generate --kind manifold`, 1,920 signals). Prints per case: k,
# eq. 18's deviation of the average degree from k, the corrected deviation, the solves, whether
# the tolerance was reached, the extra cost as a ratio of iterations (iterations_total of the
# corrected run / iterations of the eq. 18 run, from /graph of the outputs: independent of the
# machine's load) and the learning seconds of both runs (noisy on a shared machine).
#   usage: jobs/bench/degree.sh [RANKS] [ANN]   (default 2 ranks, --ann hnsw; builds build/, or
#          set LSGL=path/to/lsgl)
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
source jobs/bench/lib.sh
ranks=${1:-2}
ann=${2:-hnsw}
lsgl=${LSGL:-build/lsgl}
echo "== $(date -u '+%F %T') UTC, commit $(git rev-parse --short HEAD), $ranks ranks, --ann $ann," \
  "$(getconf _NPROCESSORS_ONLN) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

[ -f "$work/fashion-10k.h5" ] || fashion_10k "$work/fashion-10k.h5"
if [ ! -f "$work/grid-64.h5" ]; then
  mpirun -n "$ranks" "$lsgl" generate --kind manifold --a 64 --b 64 --signals 1920 --seed 1 \
    --output "$work/grid-64.h5" > "$work/grid-64.log"
fi

learn() {  # output, then lsgl learn arguments
  local out=$1; shift
  mpirun -n "$ranks" "$lsgl" learn --model log --ann "$ann" --output "$out" --progress-every 0 \
    "$@" > "${out%.h5}.log" 2>&1 || { cat "${out%.h5}.log"; return 1; }
}

row() {  # data set name, eq. 18 output, corrected output
  /usr/bin/python3 - "$@" <<'PY'
import sys
import h5py
name, eq18, corr = sys.argv[1:]
with h5py.File(eq18) as f, h5py.File(corr) as g:
    a, b = f["graph"].attrs, g["graph"].attrs
    ratio = int(b["iterations_total"]) / max(1, int(a["iterations"]))
    print(f"| {name} | {int(b['k_requested'])} | {100 * a['degree_deviation']:+.1f}% "
          f"| {100 * b['degree_deviation']:+.1f}% | {int(b['degree_solves'])} "
          f"| {'yes' if int(b['degree_reached']) else 'no'} | {int(a['iterations'])} "
          f"| {int(b['iterations_total'])} | {ratio:.2f} | {a['seconds_learn']:.1f} "
          f"| {b['seconds_learn']:.1f} |")
PY
}

echo "| data | k | eq. 18 deviation | corrected deviation | solves | reached | iterations eq. 18 |" \
  "iterations corrected (total) | iteration ratio | learn s eq. 18 (noisy) | learn s corrected (noisy) |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"
for data in fashion-10k grid-64; do
  for k in 2 3 4 5 8 10 20 40; do
    eq18="$work/degree-$data-k$k-eq18.h5"
    corr="$work/degree-$data-k$k-corrected.h5"
    learn "$eq18" --input "$work/$data.h5" --k "$k" --degree-tol 0
    learn "$corr" --input "$work/$data.h5" --k "$k"
    row "$data" "$eq18" "$corr"
  done
done
