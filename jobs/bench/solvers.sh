#!/usr/bin/env bash
# Benchmark of the log model's solvers (fbf, the reference, and fdpg), not a test: for each case
# the edge set is fixed once (`lsgl learn --max-iter 1` writes a checkpoint with the allowed
# edges, theta and the dual scale), then build/lsgl_bench_solvers runs the reference (fbf at
# tol 1e-9) and each solver on those edges in one process, printing the iterations and seconds
# until the weights are within 1e-3 relative L1 of the reference, and at the default tol.
#   usage: jobs/bench/solvers.sh [RANKS [CASE...]]   (default 2 ranks, all cases)
# Cases: fashion-60k, Fashion-MNIST 60,000 x 784 (k = 10); latent-1m, the generated
# 1,000,000 x 68 set of jobs/bench/learn.sh (k = 5); fashion-10k-k2, a sparse case, k = 2 on the
# first 10,000 Fashion-MNIST images.
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
source jobs/bench/lib.sh
ranks=${1:-2}
cases=("${@:2}")
[ ${#cases[@]} -gt 0 ] || cases=(fashion-60k fashion-10k-k2 latent-1m)
fashion=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
echo "== $(date -u '+%F %T') UTC, commit $(git rev-parse --short HEAD), $ranks ranks, $(getconf _NPROCESSORS_ONLN) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"

if [ ! -f "$work/latent-1m.h5" ]; then
  mpirun -n "$ranks" build/lsgl generate --kind blobs --n 1000000 --d 68 --latent-dim 8 \
    --clusters 200 --cluster-std 1 --center-spread 10 --noise 0.05 --seed 7 \
    --output "$work/latent-1m.h5"
fi
[ -f "$work/fashion-10k.h5" ] || fashion_10k "$work/fashion-10k.h5"

case_() {  # name, then lsgl learn arguments
  local name=$1; shift
  [[ " ${cases[*]} " == *" $name "* ]] || return 0
  local ckpt="$work/$name-solvers-ckpt.h5"
  if [ ! -f "$ckpt" ]; then
    mpirun -n "$ranks" build/lsgl learn "$@" --max-iter 1 --checkpoint-every 1 \
      --checkpoint "$ckpt" --output "$work/$name-solvers-it1.h5" --progress-every 0 \
      > "$work/$name-solvers-ckpt.log" 2>&1 || { cat "$work/$name-solvers-ckpt.log"; return 1; }
  fi
  echo; echo "== $name ($*)"
  mpirun -n "$ranks" build/lsgl_bench_solvers "$ckpt" 1e-3 1e-9 20000
}

case_ fashion-60k --input "$fashion" --k 10
case_ fashion-10k-k2 --input "$work/fashion-10k.h5" --k 2
case_ latent-1m --input "$work/latent-1m.h5" --k 5
