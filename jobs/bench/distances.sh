#!/usr/bin/env bash
# Benchmark of the edge distances `lsgl learn` stores with the graph (/graph/distances, issue
# 28), not a test: the same run with and without --no-distances, alternated REPS times, on
# Fashion-MNIST 60,000 x 784 (k = 10): the write phase, the total wall time, the largest peak
# memory per rank and the output's size of each, and their ratios (with / without, medians).
#   usage: jobs/bench/distances.sh [RANKS] [REPS]   (defaults 2 and 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
ranks=${1:-2}
reps=${2:-3}
input=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz

echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $ranks ranks, $(date -u +%F), commit $(git rev-parse --short HEAD)"
table="$work/distances.tsv"
: > "$table"
for rep in $(seq "$reps"); do
  for mode in with without; do
    flag=""
    [ "$mode" = without ] && flag=--no-distances
    out="$work/distances-$mode.h5"
    log="$work/distances-$mode.log"
    # shellcheck disable=SC2086
    mpirun -n "$ranks" build/lsgl learn --input "$input" --k 10 --output "$out" \
      --progress-every 0 $flag > "$log" 2>&1 || { cat "$log"; exit 1; }
    awk -v mode="$mode" -v size="$(stat -c %s "$out")" '
      /^  phases/ { for (i = 1; i <= NF; ++i) if ($i == "write") write = $(i + 1) }
      /^  peak memory/ { peak = $3 }
      /^  total time/ { total = $3 }
      END { printf "%s\t%s\t%s\t%s\t%s\n", mode, write, total, peak, size / 1e6 }' "$log" \
      >> "$table"
  done
done
/usr/bin/python3 - "$table" <<'PY'
import sys, statistics as st
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
cols = ("write s", "total s", "peak MB/rank", "file MB")
med = {m: [st.median(float(r[i + 1]) for r in rows if r[0] == m) for i in range(4)]
       for m in ("with", "without")}
print(f"{'':24}" + "".join(f"{c:>14}" for c in cols))
for m in ("with", "without"):
    print(f"{m + ' distances (median)':24}" + "".join(f"{v:14.2f}" for v in med[m]))
print(f"{'ratio with / without':24}" + "".join(
    f"{a / b:14.3f}" for a, b in zip(med["with"], med["without"])))
print("runs:", len(rows) // 2, "each; every run:", [(r[0], r[1], r[2], r[3]) for r in rows])
PY
