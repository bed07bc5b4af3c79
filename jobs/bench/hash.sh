#!/usr/bin/env bash
# Benchmark of `lsgl hash` (not a test): MAP, Precision@500, training time and B-step time of
#   dpcd-sdh  SDH loss, DPCD B-step          sdh  SDH loss, SDH's own B-step (DCC, bit by bit)
#   dpcd-itq  ITQ loss, DPCD B-step          itq  ITQ loss, ITQ's own B-step (sgn)
# for 32, 64 and 96 bits on Fashion-MNIST: the 60,000 training images are the training set and
# the database, 1,000 test images (100 per class, seed 1) the queries. SDH uses RBF features on
# 1,000 anchors (SDH's set-up), ITQ the raw pixels. Every method trains from the same seed.
# MAP is also measured with all 10,000 test images as queries (less noise than 1,000).
# Other jobs may share the cores: each training runs twice (interleaved) and the table keeps
# the smaller B-step and training times; codes and MAP are deterministic.
# The bar: DPCD-SDH's MAP at least SDH's at every length, its B-step time at most half of SDH's.
# After the table, the MAP difference DPCD-SDH - SDH with its 95% paired bootstrap interval over
# the queries (jobs/bench/hash_paired_map.py, which recomputes every query's AP independently).
#   usage: jobs/bench/hash.sh [RANKS]      (default 2; after jobs/install.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
ranks=${1:-2}
work=$work/hash
lsgl=${LSGL:-build/lsgl}
data=/usr/share/datasets/fashion-mnist
mkdir -p "$work"
echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $ranks ranks, OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-auto}, $(date -u +%F)"

declare -A args=(
  [dpcd-sdh]="--loss sdh --solver dpcd"
  [sdh]="--loss sdh --solver dcc"
  [dpcd-itq]="--loss itq --solver dpcd"
  [itq]="--loss itq --solver sign"
)
for bits in 32 64 96; do
  for round in 1 2; do
    for m in sdh dpcd-sdh itq dpcd-itq; do
      model="$work/$m-$bits-$round.h5"
      rm -f "$model"
      mpirun -n "$ranks" $lsgl hash train --input $data/train-images-idx3-ubyte.gz \
        --labels $data/train-labels-idx1-ubyte.gz --bits $bits ${args[$m]} --output "$model" \
        --quiet > "$work/$m-$bits-$round.log"
      sed -n '2,4p' "$work/$m-$bits-$round.log" | sed "s/^/   [$m $bits bits, run $round]/"
    done
  done
  for m in sdh dpcd-sdh itq dpcd-itq; do
    rm -f "$work/q-$m-$bits.h5" "$work/$m-$bits.json"
    mpirun -n "$ranks" $lsgl hash encode --model "$work/$m-$bits-1.h5" \
      --input $data/t10k-images-idx3-ubyte.gz --labels $data/t10k-labels-idx1-ubyte.gz \
      --per-class 100 --seed 1 --output "$work/q-$m-$bits.h5" --quiet > /dev/null
    mpirun -n "$ranks" $lsgl hash eval --queries "$work/q-$m-$bits.h5" \
      --database "$work/$m-$bits-1.h5" --json "$work/$m-$bits.json" --quiet
    rm -f "$work/qall-$m-$bits.h5" "$work/$m-$bits-all.json"
    mpirun -n "$ranks" $lsgl hash encode --model "$work/$m-$bits-1.h5" \
      --input $data/t10k-images-idx3-ubyte.gz --labels $data/t10k-labels-idx1-ubyte.gz \
      --output "$work/qall-$m-$bits.h5" --quiet > /dev/null
    mpirun -n "$ranks" $lsgl hash eval --queries "$work/qall-$m-$bits.h5" \
      --database "$work/$m-$bits-1.h5" --json "$work/$m-$bits-all.json" --quiet
  done
done

/usr/bin/python3 - "$work" <<'PY'
import json, sys
import h5py
work = sys.argv[1]
rows = []
print()
print("| bits | method | MAP | Precision@500 | MAP, 10,000 queries | train s | B-step s | B-step / baseline's | B-step updates (sweeps) | final loss |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for bits in (32, 64, 96):
    best = {}
    for m in ("dpcd-sdh", "sdh", "dpcd-itq", "itq"):
        t, b = [], []
        for r in (1, 2):
            with h5py.File(f"{work}/{m}-{bits}-{r}.h5", "r") as f:
                a = f["hash"].attrs
                t.append(float(a["train_seconds"])); b.append(float(a["bstep_seconds"]))
                its, loss = int(a["bstep_iterations"]), float(f["hash/objective"][-1])
        with open(f"{work}/{m}-{bits}.json") as f:
            j = json.load(f)
        with open(f"{work}/{m}-{bits}-all.json") as f:
            j["map_all"] = json.load(f)["map"]
        best[m] = (j, min(t), min(b), its, loss)
    for m in ("dpcd-sdh", "sdh", "dpcd-itq", "itq"):
        j, t, b, its, loss = best[m]
        base = best["sdh" if "sdh" in m else "itq"][2]
        print(f"| {bits} | {m} | {j['map']:.4f} | {j['precision_at_500']:.4f} | {j['map_all']:.4f} | {t:.2f} | {b:.3f} | "
              f"{b / base:.2f} | {its} | {loss:.6g} |")
PY

echo
echo "MAP(dpcd-sdh) - MAP(sdh), 95% paired bootstrap interval over the queries (jobs/bench/hash_paired_map.py):"
echo "| bits | queries | MAP sdh | MAP dpcd-sdh | difference | 95% interval | resamples with difference <= 0 |"
echo "|---:|---:|---:|---:|---:|---|---:|"
for bits in 32 64 96; do
  for q in q:1,000 qall:10,000; do
    read -r a b d lo hi p < <(/usr/bin/python3 jobs/bench/hash_paired_map.py "$work/${q%%:*}-sdh-$bits.h5" \
      "$work/sdh-$bits-1.h5" "$work/${q%%:*}-dpcd-sdh-$bits.h5" "$work/dpcd-sdh-$bits-1.h5")
    echo "| $bits | ${q#*:} | $a | $b | $d | [$lo, $hi] | $p |"
  done
done
