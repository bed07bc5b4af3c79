#!/usr/bin/env bash
# MAP of DPCD-SDH and SDH (DCC B-step) over several seeds (initial codes and anchors), on all
# 10,000 Fashion-MNIST test images as queries against the 60,000 training images: how large
# the difference between the two B-solvers is next to the spread between seeds. Not a test.
# Per seed: the difference DPCD-SDH - SDH with its 95% paired bootstrap interval over the queries
# (jobs/bench/hash_paired_map.py: the variation that comes from the queries, for these two models);
# per length: the mean, smallest and largest difference over the seeds (the variation that comes
# from training).
#   usage: jobs/bench/hash_seeds.sh [RANKS] [SEEDS]     (defaults 2 and 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
ranks=${1:-2}
seeds=${2:-5}
work=$work/hash-seeds
lsgl=${LSGL:-build/lsgl}
data=/usr/share/datasets/fashion-mnist
mkdir -p "$work"
echo "| bits | seed | SDH (DCC) MAP | DPCD-SDH MAP | difference | 95% interval over the queries |"
echo "|---:|---:|---:|---:|---:|---|"
for bits in 32 64 96; do
  diffs=()
  for seed in $(seq 1 "$seeds"); do
    for solver in dcc dpcd; do
      model="$work/$solver-$bits-$seed.h5" queries="$work/q-$solver-$bits-$seed.h5"
      rm -f "$model" "$queries"
      mpirun -n "$ranks" $lsgl hash train --input $data/train-images-idx3-ubyte.gz \
        --labels $data/train-labels-idx1-ubyte.gz --bits $bits --solver $solver --seed $seed \
        --output "$model" --quiet > /dev/null
      mpirun -n "$ranks" $lsgl hash encode --model "$model" --input $data/t10k-images-idx3-ubyte.gz \
        --labels $data/t10k-labels-idx1-ubyte.gz --output "$queries" --quiet > /dev/null
    done
    read -r a b d lo hi p < <(/usr/bin/python3 jobs/bench/hash_paired_map.py \
      "$work/q-dcc-$bits-$seed.h5" "$work/dcc-$bits-$seed.h5" \
      "$work/q-dpcd-$bits-$seed.h5" "$work/dpcd-$bits-$seed.h5" --resamples 2000)
    diffs+=("$d")
    printf '| %s | %s | %.4f | %.4f | %+.4f | [%+.4f, %+.4f] |\n' "$bits" "$seed" "$a" "$b" "$d" "$lo" "$hi"
  done
  /usr/bin/python3 -c "
d = [float(v) for v in '${diffs[*]}'.split()]
print(f'| $bits | mean of {len(d)} | | | {sum(d) / len(d):+.5f} | seeds: smallest {min(d):+.4f}, largest {max(d):+.4f}, '
      f'DPCD >= SDH for {sum(v >= 0 for v in d)} |')"
done
