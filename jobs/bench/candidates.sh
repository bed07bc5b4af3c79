#!/usr/bin/env bash
# Benchmark of the candidate search (not a test): the partition route against the ring in one
# run, total CPU seconds of the phase (all ranks and threads), recall, bytes sent per rank and
# peak memory; pynndescent's all-kNN graph as an outside baseline, measured in the same run.
# Searches ("default", "partition", "ring", "voronoi" in the names): the default (--ann auto, partition
# route: the summary's engine column says what auto chose), hnsw on the partition route, hnsw on the
# ring (the default before --ann auto) and the voronoi engine on the partition route.
#   usage: jobs/bench/candidates.sh [scaling|million|fmnist|threads|all]   (default all)
#   REPS=N repeats the searches N times, alternating the configurations (the machine's speed
#   drifts: compare the medians); scaling then also prints the ratio of the mean CPU seconds.
#   SCALE_CONFIGS="default" limits scaling to some of default, ring, partition (all three unset).
# Cases:
#   scaling  200,000 x 68 (first rows of the 1M set), --model knn --k 5, p = 1 2 4 8 16 ranks of
#            1 thread (oversubscribed on small machines): CPU seconds and ratio to p = 1
#   million  1,000,000 x 68, 2 ranks, 15 candidates per node (k = 5, r = 3): both routes and
#            pynndescent (Debian python3-pynndescent, 2 threads, numba compile included)
#   fmnist   Fashion-MNIST 60,000 x 784, 2 ranks, 30 candidates per node (k = 10, r = 3)
#   threads  200,000 x 68 partition: 1 rank x 2 threads against 2 ranks x 1 thread
set -euo pipefail
cd "$(dirname "$0")/../.."
source jobs/bench/setup.sh "$@"
what=${1:-all}
lsgl=$PWD/build/lsgl
py=/usr/bin/python3
echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $(free -g | awk '/Mem:/{print $2}') GB," \
     "load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD)"

if [ ! -f "$work/latent-1m.h5" ]; then
  mpirun -n 2 "$lsgl" generate --kind blobs --n 1000000 --d 68 --latent-dim 8 \
    --clusters 200 --cluster-std 1 --center-spread 10 --noise 0.05 --seed 7 \
    --output "$work/latent-1m.h5" > /dev/null
fi
if [ ! -f "$work/latent-200k.h5" ]; then
  $py -c "import h5py, sys; f = h5py.File(sys.argv[1], 'r'); g = h5py.File(sys.argv[2], 'w');
g['X'] = f['X'][:200000]" "$work/latent-1m.h5" "$work/latent-200k.h5"
fi

# One search: ranks, threads, name, then lsgl learn options. Prints one table row.
search() {
  local np=$1 threads=$2 name=$3; shift 3
  local out="$work/$name.h5" log="$work/$name.log"
  rm -f "$out"
  mpirun -n "$np" --bind-to none "$lsgl" learn "$@" --threads "$threads" --output "$out" \
    --progress-every 0 > "$log" 2>&1 || { cat "$log"; return 1; }
  $py - "$out" "$log" "$np" "$threads" "$name" <<'PY'
import h5py, re, sys
a = h5py.File(sys.argv[1], 'r')['graph'].attrs
log = open(sys.argv[2]).read()
mem = float(re.search(r'peak memory\s+([\d.]+) MB max per rank', log).group(1))
n = float(a['n'])
eng = a['ann_engine']
eng = eng.decode() if isinstance(eng, bytes) else str(eng)
v = [a['ann_queries_1_rank'] / n, a['ann_queries_2_ranks'] / n, a['ann_queries_3plus_ranks'] / n]
print(f"{sys.argv[5]:<26} p={sys.argv[3]:>2} t={sys.argv[4]} {eng:<7} wall {a['seconds_candidates']:7.2f} s"
      f"  cpu {a['ann_cpu_seconds']:8.2f} s  recall {a['recall_estimate']:.4f}"
      f"  ranks/query 1|2|3+ {v[0]:.2f}|{v[1]:.2f}|{v[2]:.2f}"
      f"  sent/rank {a['ann_bytes_sent_max'] / 1e6:7.1f} MB  peak {mem:7.1f} MB")
PY
}

# lsgl options of a search configuration.
flags() {
  case $1 in
    default) echo "" ;;
    ring) echo "--ann hnsw --ann-route ring" ;;
    partition) echo "--ann hnsw --ann-route partition" ;;
    voronoi) echo "--ann voronoi --ann-route partition" ;;
  esac
}
reps=${REPS:-1}

cpu_of() { $py -c "import h5py, sys; print(h5py.File(sys.argv[1], 'r')['graph'].attrs['ann_cpu_seconds'])" "$work/$1.h5"; }

if [ "$what" = scaling ] || [ "$what" = all ]; then
  echo; echo "== scaling: 200,000 x 68, knn k = 5, 1 thread per rank"
  for route in ${SCALE_CONFIGS:-default ring partition}; do
    for rep in $(seq "$reps"); do
      for np in 1 2 4 8 16; do
        search "$np" 1 "scale-$route-$np-$rep" --input "$work/latent-200k.h5" --model knn --k 5 \
          $(flags "$route") --recall-sample 1000
      done
    done
    for np in 2 4 8 16; do
      ratios=() p1=() pn=()
      for rep in $(seq "$reps"); do
        p1+=("$(cpu_of "scale-$route-1-$rep")") pn+=("$(cpu_of "scale-$route-$np-$rep")")
        ratios+=("$($py -c "print(f'{${pn[-1]} / ${p1[-1]}:.2f}')")")
      done
      mean=$($py -c "import sys; a, b = sys.argv[1].split(), sys.argv[2].split();
print(f'{sum(map(float, b)) / sum(map(float, a)):.2f}')" "${p1[*]}" "${pn[*]}")
      echo "  $route: CPU at p = $np / CPU at p = 1 = ${ratios[*]} (ratio of the means $mean)"
    done
  done
fi

if [ "$what" = million ] || [ "$what" = all ]; then
  echo; echo "== 1,000,000 x 68, 15 candidates per node, 2 ranks"
  for rep in $(seq "$reps"); do
    for route in default partition ring; do
      search 2 1 "million-$route-$rep" --input "$work/latent-1m.h5" --model knn --k 15 \
        $(flags "$route") --recall-sample 1000
    done
  done
  if ! $py -c "import pynndescent" 2> /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      python3-pynndescent > /dev/null
  fi
  NUMBA_NUM_THREADS=2 $py - "$work/latent-1m.h5" <<'PY'
import sys, time, h5py, numpy as np, resource
t0 = time.time()
from pynndescent import NNDescent
X = np.ascontiguousarray(h5py.File(sys.argv[1], 'r')['X'][:], dtype=np.float32)
t1 = time.time()
idx, _ = NNDescent(X, n_neighbors=16, n_jobs=2, random_state=1).neighbor_graph
t2 = time.time()
rng = np.random.default_rng(1)
hits = 0
sample = rng.choice(len(X), 300, replace=False)
for q in sample:
    d = ((X - X[q]) ** 2).sum(1)
    d[q] = np.inf
    kth = np.partition(d, 14)[14]
    got = [j for j in idx[q] if j != q][:15]
    hits += sum(d[j] <= kth for j in got)
print(f"pynndescent                 2 threads wall {t2 - t1:7.2f} s (+{t1 - t0:.1f} s import and read)"
      f"  recall {hits / (15 * len(sample)):.4f}"
      f"  peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.1f} MB")
PY
fi

if [ "$what" = fmnist ] || [ "$what" = all ]; then
  echo; echo "== Fashion-MNIST 60,000 x 784, 30 candidates per node, 2 ranks"
  for rep in $(seq "$reps"); do
    for route in default ring voronoi; do
      search 2 1 "fmnist-$route-$rep" --input /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz \
        --model knn --k 30 $(flags "$route") --recall-sample 1000
    done
  done
fi

if [ "$what" = threads ] || [ "$what" = all ]; then
  echo; echo "== threads: 200,000 x 68, knn k = 5, 1 rank x 2 threads against 2 ranks x 1 thread"
  for route in default partition; do
    search 1 2 "threads-$route-1x2" --input "$work/latent-200k.h5" --model knn --k 5 $(flags "$route")
    search 2 1 "threads-$route-2x1" --input "$work/latent-200k.h5" --model knn --k 5 $(flags "$route")
    echo "  $route: wall 1x2 / 2x1 = $($py -c "import h5py; w = lambda n: h5py.File('$work/' + n + '.h5', 'r')['graph'].attrs['seconds_candidates']; print(f'{w(\"threads-$route-1x2\") / w(\"threads-$route-2x1\"):.2f}')")"
  done
fi
