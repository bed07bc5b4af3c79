#!/usr/bin/env bash
# Benchmark (not a test): [DPCD]'s Table 4 on Fashion-MNIST -- every B-step solver on the same
# SDH loss (RBF features on 1,000 anchors, 5 alternations): dpcd, dcc (SDH's own), sgm, lp,
# l2box-admm and mpec-epm, at 32, 64 and 96 bits, for training seeds 1..SEEDS (the initial codes
# and the anchors). Per model: MAP and Precision@500 of `lsgl hash eval` with 1,000 test queries
# (100 per class, --per-class 100 --seed 1), the training and B-step seconds; per seed and
# solver: MAP(dpcd) - MAP(solver) with its 95% paired bootstrap interval over the queries
# (jobs/bench/hash_table4.py, which recomputes every average precision from the code files as
# jobs/bench/hash_paired_map.py does). Each model's training, encoding and evaluation is one
# case under the shared heavy-work lock ($LSGL_LOCK, default /tmp/lsgl-heavy.lock), taken and
# released per case (one solver, bits and seed: 5-70 s) so that other jobs interleave; do not run
# the script inside a hold of that lock. Each case runs under `timeout $CASE_TIMEOUT` (default
# 1200 s). Seeds are the outer loop: a sweep stopped early leaves whole seeds (every solver and
# length). Models already evaluated in $BENCH_DIR/table4 are kept (a run can be resumed or
# extended with more seeds or solvers).
#   usage: jobs/bench/hash_solvers.sh [RANKS] [SEEDS] [SOLVERS]
#          (defaults 2, 10, "dpcd dcc sgm lp l2box-admm mpec-epm")
set -euo pipefail
cd "$(dirname "$0")/../.."
LSGL_BENCH_NO_BUILD=1 source jobs/bench/setup.sh "$@"
ranks=${1:-2}
seeds=${2:-10}
solvers=${3:-dpcd dcc sgm lp l2box-admm mpec-epm}
lsgl=${LSGL:-build/lsgl}
lock=${LSGL_LOCK:-/tmp/lsgl-heavy.lock}
heavy() { flock "$lock" timeout "${CASE_TIMEOUT:-1200}" "$@"; }
heavy cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
heavy cmake --build build -j 2 --target lsgl > /dev/null
data=/usr/share/datasets/fashion-mnist
out="$work/table4"
mkdir -p "$out"
echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $ranks ranks, $(date -u +%F), commit $(git rev-parse --short HEAD)"
for seed in $(seq 1 "$seeds"); do
  for bits in 32 64 96; do
    for solver in $solvers; do
      tag="$solver-$bits-$seed"
      [ -f "$out/$tag.json" ] && continue  # done by an earlier run
      rm -f "$out/$tag.h5" "$out/q-$tag.h5"  # the json is written last: its presence marks a done case
      # One case: train, encode the queries, evaluate (under the lock together).
      heavy bash -c "mpirun -n $ranks $lsgl hash train --input $data/train-images-idx3-ubyte.gz \
        --labels $data/train-labels-idx1-ubyte.gz --bits $bits --loss sdh --solver $solver \
        --seed $seed --output $out/$tag.h5 --quiet > $out/$tag.log &&
        mpirun -n $ranks $lsgl hash encode --model $out/$tag.h5 \
          --input $data/t10k-images-idx3-ubyte.gz --labels $data/t10k-labels-idx1-ubyte.gz \
          --per-class 100 --seed 1 --output $out/q-$tag.h5 --quiet > /dev/null &&
        mpirun -n $ranks $lsgl hash eval --queries $out/q-$tag.h5 --database $out/$tag.h5 \
          --json $out/$tag.json --quiet"
    done
  done
done
# The tables cover every solver with files in $out (earlier runs with other SOLVERS or SEEDS too).
heavy /usr/bin/python3 jobs/bench/hash_table4.py "$out" dpcd dcc sgm lp l2box-admm mpec-epm
