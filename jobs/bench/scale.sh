#!/usr/bin/env bash
# Benchmark of how `lsgl learn`'s cost per row grows with n (not a test; issue 27): the same
# generated blobs at several sizes, 2 ranks, `--k 5`, one full run per size. Prints each phase's
# time (the search split into cells, index and queries), its cost per row (per allowed edge for
# the theta phase, per edge and iteration for learning), the peak memory per rank and per row, and
# the growth of each per-row cost from the smallest size to the largest (1.00: flat in n).
#   usage: jobs/bench/scale.sh [SIZES...]   (default 1000000 4000000; 10000000 needs ~17 GB)
#   BASELINE=path/to/older/lsgl runs that binary too, right before this one at each size, and says
#   whether the two graphs are identical (same indices, weights equal or within 1e-12 relative:
#   a different node order sums in another order). RANKS=N (default 2). LSGL=path runs that
#   binary instead of build/lsgl.
# Data: `lsgl generate --kind blobs --n N --d 68 --latent-dim 8 --clusters 2000 --center-spread 10
# --noise 0.05 --seed 7` (issue 27's set; 1M rows fit the 260 MB cache of the development VM,
# 4M do not), generated once into $BENCH_DIR (default /tmp/lsgl-bench).
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
ranks=${RANKS:-2}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 4000000)
lsgl=${LSGL:-$PWD/build/lsgl}
py=/usr/bin/python3
echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $(free -g | awk '/Mem:/{print $2}') GB," \
     "load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)," \
     "$ranks ranks"

# One run: binary, label, n. Prints one block of lines.
run() {
  local bin=$1 label=$2 n=$3
  local log="$work/scale-$label-$n.log" out="$work/scale-$label-$n.h5"
  rm -f "$out"
  mpirun -n "$ranks" "$bin" learn --input "$work/blobs-$n.h5" --k 5 --output "$out" \
    --progress-every 0 > "$log" 2>&1 || { cat "$log"; return 1; }
  $py - "$out" "$log" "$label" "$ranks" <<'PY'
import h5py, re, sys
a = h5py.File(sys.argv[1], 'r')['graph'].attrs
log = open(sys.argv[2]).read()
n, m = float(a['n']), float(a['allowed_edges'])
mem = float(re.search(r'peak memory\s+([\d.]+) MB max per rank', log).group(1))
ms = float(re.search(r'learning\s+([\d.]+) ms per iteration', log).group(1))
search = re.search(r'search phases\s+projection ([\d.]+) s, cells ([\d.]+) s, index ([\d.]+) s, '
                   r'queries ([\d.]+) s', log)
total = float(re.search(r'total time\s+([\d.]+) s', log).group(1))
phases = dict(re.findall(r'(\w+) ([\d.]+) s', re.search(r'phases\s+(read.*)', log).group(1)))
rows = [('read', 'read'), ('order', 'order'), ('candidates', 'candidates'),
        ('  cells', None), ('  index', None), ('  queries', None), ('theta', 'theta'),
        ('learn', 'learn'), ('write', 'write')]
sub = {'  cells': float(search.group(2)), '  index': float(search.group(3)),
       '  queries': float(search.group(4))}
print(f"-- {sys.argv[3]}, n = {int(n):,}, allowed edges {int(m):,} ({m / n:.2f} per row), "
      f"cells {int(a['ann_cells'])}")
out = {}
for name, key in rows:
    t = float(phases[key]) if key else sub[name]
    out[name.strip()] = t / n * 1e6
    print(f"  {name:<12} {t:8.2f} s  {t / n * 1e6:8.3f} us/row")
print(f"  {'theta':<12} {1e9 * float(phases['theta']) / m:8.1f} ns per allowed edge")
print(f"  {'iteration':<12} {ms:8.2f} ms  {1e6 * ms / m:8.3f} ns per allowed edge")
print(f"  {'total':<12} {total:8.2f} s  {total / n * 1e6:8.3f} us/row")
print(f"  {'peak memory':<12} {mem:8.1f} MB per rank, {mem * 1e6 * float(sys.argv[4]) / n:.0f} B per row")
out['iteration'] = 1e6 * ms / m
out['total'] = total / n * 1e6
out['memory'] = mem * 1e6 / n
print("COSTS " + " ".join(f"{k}={v:.6g}" for k, v in out.items()))
PY
}

# Whether two graph files hold the same graph: the pattern (indptr, indices) and the distances
# identical; the weights and degrees, which a change of summation order moves by round-off,
# within the printed relative difference.
same_graph() {
  $py - "$1" "$2" <<'PY'
import h5py, numpy as np, sys
a, b = h5py.File(sys.argv[1], 'r')['graph'], h5py.File(sys.argv[2], 'r')['graph']
exact = [k for k in ('indptr', 'indices', 'distances') if k in a]
same_pattern = all(k in b and np.array_equal(a[k][()], b[k][()]) for k in exact)
def rel(k):
    x, y = a[k][()], b[k][()]
    return np.abs(x - y).max() / max(np.abs(x).max(), 1e-300) if x.shape == y.shape else np.inf
parts = []
for k in ('data', 'degree'):
    if k in a and k in b:
        d = rel(k)
        parts.append(f"{'weights' if k == 'data' else 'degrees'} "
                     + ("identical" if d == 0 else f"within {d:.2e} relative"))
print(f"  graphs: {'/'.join(exact)} {'identical' if same_pattern else 'DIFFERENT'}, "
      + ", ".join(parts))
PY
}

# Growth of each per-row cost from the first COSTS line of a label to its last one.
growth() {
  $py - "$1" "$work/scale.out" <<'PY'
import sys
label, costs = sys.argv[1], []
for line in open(sys.argv[2]):
    if line.startswith('-- '):
        current = line.split()[1].rstrip(',')
    elif line.startswith('COSTS') and current == label:
        costs.append(dict(kv.split('=') for kv in line.split()[1:]))
if len(costs) > 1:
    first, last = costs[0], costs[-1]
    print(f"== growth of the cost per row (per edge for iteration), {label}, first to last size: "
          + ", ".join(f"{k} {float(last[k]) / float(first[k]):.2f}" for k in first
                      if float(first[k]) > 0))
PY
}

: > "$work/scale.out"
for n in "${sizes[@]}"; do
  if [ ! -f "$work/blobs-$n.h5" ]; then
    mpirun -n "$ranks" "$lsgl" generate --kind blobs --n "$n" --d 68 --latent-dim 8 \
      --clusters 2000 --center-spread 10 --noise 0.05 --seed 7 --output "$work/blobs-$n.h5" \
      > /dev/null
  fi
  echo
  if [ -n "${BASELINE:-}" ]; then
    run "$BASELINE" baseline "$n" | tee -a "$work/scale.out" | grep -v '^COSTS'
  fi
  run "$lsgl" this "$n" | tee -a "$work/scale.out" | grep -v '^COSTS'
  if [ -n "${BASELINE:-}" ]; then
    same_graph "$work/scale-baseline-$n.h5" "$work/scale-this-$n.h5"
  fi
done
echo
if [ -n "${BASELINE:-}" ]; then growth baseline; fi
growth this
