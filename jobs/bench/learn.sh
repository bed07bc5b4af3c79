#!/usr/bin/env bash
# Benchmark of `lsgl learn` (not a test): per-phase wall times, iterations, peak memory, edges,
# average degree, the learning iteration's effective bandwidth next to a STREAM-like triad
# measured in the same run (right before and right after each case: the host's memory speed
# drifts over minutes, so each case is compared with the mean of its own two measurements), and
# the bytes each rank sends per iteration.
#   usage: jobs/bench/learn.sh [RANKS]      (default 2; run from anywhere after jobs/install.sh)
# Cases: Fashion-MNIST 60,000 x 784 (k = 10); a generated 1,000,000 x 68 set (k = 5, clusters
# on an 8-dimensional latent space mapped linearly to 68 features plus noise, rows in random
# order); a 256 x 256 grid seen through 40 smooth signals (k = 4, rows in grid order, so few
# edges cross ranks: the bytes sent per iteration follow the crossing edges, not n).
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
ranks=${1:-2}
lsgl=build/lsgl

echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $(free -g | awk '/Mem:/{print $2}') GB, $ranks ranks, $(date -u +%F)"
triad() { mpirun -n "$ranks" build/lsgl_triad 256 | awk '{print $2}'; }

if [ ! -f "$work/latent-1m.h5" ]; then
  mpirun -n "$ranks" $lsgl generate --kind blobs --n 1000000 --d 68 --latent-dim 8 \
    --clusters 200 --cluster-std 1 --center-spread 10 --noise 0.05 --seed 7 \
    --output "$work/latent-1m.h5"
fi

if [ ! -f "$work/grid-256.h5" ]; then
  mpirun -n "$ranks" $lsgl generate --kind manifold --a 256 --b 256 --signals 40 \
    --output "$work/grid-256.h5"
fi

run_case() {  # name, then lsgl learn arguments
  local name=$1; shift
  local log="$work/$name.log" before after bw
  before=$(triad)
  mpirun -n "$ranks" $lsgl learn "$@" --output "$work/$name-graph.h5" \
    --progress-every 0 > "$log" 2>&1 || { cat "$log"; return 1; }
  after=$(triad)
  sed -n '/^summary/,$p' "$log"
  bw=$(awk '/^  learning/{print $6}' "$log")
  awk -v a="$bw" -v t0="$before" -v t1="$after" 'BEGIN{
    printf "  triad bandwidth    %.1f GB/s before, %.1f GB/s after (all ranks)\n", t0, t1
    printf "  bandwidth ratio    %.2f of the mean triad\n", a / ((t0 + t1) / 2) }'
}

echo; echo "== Fashion-MNIST 60,000 x 784, k = 10"
run_case fashion-mnist --input /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz --k 10
echo; echo "== generated 1,000,000 x 68 (latent dimension 8), k = 5"
run_case latent-1m --input "$work/latent-1m.h5" --k 5
echo; echo "== manifold 256 x 256 grid, 40 signals, k = 4"
run_case grid-256 --input "$work/grid-256.h5" --k 4
