#!/usr/bin/env bash
# Benchmark of the Python module against the command line (not a test; issue 29's bar): on
# Fashion-MNIST 60,000 x 784, k = 10, with the defaults of `lsgl learn`, `lsgl.learn` called from
# Python (jobs/bench/python_learn.py; under mpirun with mpi4py, each rank its block of rows)
# against `lsgl learn --input train-images-idx3-ubyte.gz` on the same number of ranks. Per rank
# count, REPS alternating runs of each; prints the medians of
#   wall       the whole process, start to exit (CLI: read the .gz, learn, write the graph;
#              Python: import, read the .gz with NumPy, learn; no file written)
#   library    the pipeline's own time (CLI: the JSON summary's total minus its write phase;
#              Python: the lsgl.learn call)
#   peak RSS   the largest peak RSS over the ranks (getrusage in each process; Python's includes
#              the interpreter, NumPy and the caller's float32 copy of the rows)
# and the ratios Python / CLI.
#   usage: jobs/bench/python.sh [RANKS...]    (default: 1 2; REPS=3 runs of each, medians)
# Run it under the heavy-work lock: flock /tmp/lsgl-heavy.lock timeout 1800 jobs/bench/python.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
reps=${REPS:-3}
images=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
ranks_list=${*:-1 2}
export PYTHONPATH=$PWD/build/python${PYTHONPATH:+:$PYTHONPATH}

echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $(free -g | awk '/Mem:/{print $2}') GB," \
  "$(date -u '+%F %H:%M UTC'), commit $(git rev-parse --short HEAD), REPS=$reps"
echo "== Fashion-MNIST 60,000 x 784, k = 10, lsgl learn's defaults"

for ranks in $ranks_list; do
  results=$work/python-bench-$ranks.jsonl
  : > "$results"
  for rep in $(seq "$reps"); do
    t0=$(date +%s.%N)
    mpirun -n "$ranks" build/lsgl learn --input "$images" --k 10 --quiet \
      --output "$work/python-bench-cli.h5" --json "$work/python-bench-cli.json"
    t1=$(date +%s.%N)
    /usr/bin/python3 - "$work/python-bench-cli.json" "$t0" "$t1" >> "$results" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
s = j["seconds"]
print(json.dumps({"who": "cli", "wall": float(sys.argv[3]) - float(sys.argv[2]),
                  "library": s["total"] - s["write"], "rss": j["peak_rss_max_bytes"],
                  "iterations": j["iterations"], "nnz": 2 * j["edges"],
                  "engine": j["ann_engine"]}))
PY
    t0=$(date +%s.%N)
    line=$(mpirun -n "$ranks" /usr/bin/python3 jobs/bench/python_learn.py "$images" 10)
    t1=$(date +%s.%N)
    /usr/bin/python3 - "$line" "$t0" "$t1" >> "$results" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
print(json.dumps({"who": "python", "wall": float(sys.argv[3]) - float(sys.argv[2]),
                  "library": j["seconds_call"], "rss": max(j["peak_rss_per_rank"]),
                  "rss_library": j["peak_rss_max_library"], "iterations": j["iterations"],
                  "nnz": j["nnz"], "engine": j["engine"], "numpy_read": j["seconds_read_numpy"]}))
PY
  done
  /usr/bin/python3 - "$results" "$ranks" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
med = lambda who, key: statistics.median(r[key] for r in runs if r["who"] == who)
each = lambda who, key, f: " ".join(f % r[key] for r in runs if r["who"] == who)
print(f"\n-- {sys.argv[2]} rank(s), medians of {sum(r['who'] == 'cli' for r in runs)} runs")
print(f"  {'':10} {'wall s':>8} {'library s':>10} {'peak RSS/rank':>14}   runs (wall)")
for who in ("cli", "python"):
    print(f"  {who:10} {med(who, 'wall'):8.2f} {med(who, 'library'):10.2f} "
          f"{med(who, 'rss') / 2**20:11.0f} MB   {each(who, 'wall', '%.2f')}")
print(f"  ratio      {med('python', 'wall') / med('cli', 'wall'):8.3f} "
      f"{med('python', 'library') / med('cli', 'library'):10.3f} "
      f"{med('python', 'rss') / med('cli', 'rss'):14.2f}")
py = [r for r in runs if r["who"] == "python"]
cli = [r for r in runs if r["who"] == "cli"]
print(f"  python: NumPy read {statistics.median(r['numpy_read'] for r in py):.2f} s; library's "
      f"own peak_rss_max {statistics.median(r['rss_library'] for r in py) / 2**20:.0f} MB")
same = {(r["nnz"], r["iterations"], r["engine"]) for r in runs}
print(f"  graphs: nnz, iterations, engine {sorted(same)}"
      f" ({'the same in every run' if len(same) == 1 else 'DIFFER'})")
PY
done
