#!/usr/bin/env bash
# MAP of DPCD-SDH and SDH (DCC B-step) over several seeds (initial codes and anchors), on all
# 10,000 Fashion-MNIST test images as queries against the 60,000 training images: how large
# the difference between the two B-solvers is next to the spread between seeds. Not a test.
#   usage: jobs/bench_hash_seeds.sh [RANKS] [SEEDS]     (defaults 2 and 5)
set -euo pipefail
cd "$(dirname "$0")/.."
source jobs/env.sh
ranks=${1:-2}
seeds=${2:-5}
work=${BENCH_DIR:-/tmp/lsgl-bench}/hash-seeds
lsgl=${LSGL:-build/lsgl}
data=/usr/share/datasets/fashion-mnist
mkdir -p "$work"
echo "| bits | seed | SDH (DCC) MAP | DPCD-SDH MAP | difference |"
echo "|---:|---:|---:|---:|---:|"
for bits in 32 64 96; do
  for seed in $(seq 1 "$seeds"); do
    declare -A map=()
    for solver in dcc dpcd; do
      model="$work/$solver-$bits-$seed.h5" queries="$work/q-$solver-$bits-$seed.h5"
      rm -f "$model" "$queries" "$work/e.json"
      mpirun -n "$ranks" $lsgl hash train --input $data/train-images-idx3-ubyte.gz \
        --labels $data/train-labels-idx1-ubyte.gz --bits $bits --solver $solver --seed $seed \
        --output "$model" --quiet > /dev/null
      mpirun -n "$ranks" $lsgl hash encode --model "$model" --input $data/t10k-images-idx3-ubyte.gz \
        --labels $data/t10k-labels-idx1-ubyte.gz --output "$queries" --quiet > /dev/null
      mpirun -n "$ranks" $lsgl hash eval --queries "$queries" --database "$model" \
        --json "$work/e.json" --quiet
      map[$solver]=$(/usr/bin/python3 -c "import json; print(json.load(open('$work/e.json'))['map'])")
    done
    /usr/bin/python3 -c "a, b = ${map[dcc]}, ${map[dpcd]}; print(f'| $bits | $seed | {a:.4f} | {b:.4f} | {b - a:+.4f} |')"
  done
done
