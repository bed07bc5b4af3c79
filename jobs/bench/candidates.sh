#!/usr/bin/env bash
# Benchmark of the candidate search (not a test): configurations compared in one run, total CPU
# seconds of the phase (all ranks and threads), recall, bytes sent per rank and peak memory;
# pynndescent's all-kNN graph as an outside baseline, measured in the same run.
# Wall times are the candidate phase's without the recall estimate (`seconds_recall`, printed
# beside them), so that --recall-sample does not weigh on the ratios.
# Searches ("default", "projected", "certified", "partition", "ring", "voronoi" in the names): the
# default (--ann auto, partition route: the summary's engine column says what auto chose), the
# projected search (--ann projected), the same with --ann-certify, hnsw on the partition route,
# hnsw on the ring and the voronoi engine on the partition route.
#   usage: jobs/bench/candidates.sh [scaling|million|fmnist|fmnist-scaling|blobs256|threads|
#          baseline|all]
#   (default all)
#   REPS=N repeats the searches N times, alternating the configurations (the machine's speed
#   drifts: compare the medians); the scaling cases then also print the ratio of the mean CPU
#   seconds. SCALE_CONFIGS="default" limits scaling to some of default, ring, partition (all
#   three unset).
# Cases:
#   scaling         200,000 x 68 (first rows of the 1M set), --model knn --k 5, p = 1 2 4 8 16
#                   ranks of 1 thread (oversubscribed on small machines): CPU seconds and ratio
#                   to p = 1
#   million         1,000,000 x 68, 2 ranks, 15 candidates per node (k = 5, r = 3): both routes
#                   and pynndescent (Debian python3-pynndescent, 2 threads, numba compile
#                   included)
#   fmnist          Fashion-MNIST 60,000 x 784, 2 ranks, 30 candidates per node: the default,
#                   projected (certified), hnsw on both routes; recall on every row
#                   (--recall-sample 60000) and the time ratio default / hnsw (partition)
#   fmnist-scaling  Fashion-MNIST at p = 1 2 4 8 16 ranks of 1 thread, the default: CPU ratio to
#                   p = 1 (each rep's, their median and the ratio of the means), the median CPU
#                   seconds, and whether the lists (the k-NN graph's pattern) are identical to
#                   p = 1's; with BASELINE=path/to/older/lsgl that binary too, alternating
#   blobs256        1,000,000 x 256 (blobs on a 32-dimensional latent space, 1,000 clusters,
#                   noise 0.1), 2 ranks, 30 candidates per node: the default against pynndescent
#                   (2 threads, compile excluded), recall on 2,000 sampled rows
#   threads         200,000 x 68 and Fashion-MNIST: 1 rank x 2 threads against 2 ranks x 1 thread
#   baseline        with BASELINE=path/to/older/lsgl: that binary and this one, alternating, on
#                   1,000,000 x 68 (k = 5), the 256 x 256 manifold grid (40 signals, k = 4) and
#                   Fashion-MNIST (k = 10), the default search, full learn runs: candidate and
#                   total seconds, peak memory per rank, whether the graphs are identical
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
proj = ""
if eng == "projected":
    proj = (f"  p'={a['ann_projected_dims']} S={a['ann_shortlist']}"
            f" certified {100 * a['ann_certified_share']:.1f}%")
rec = a.get('seconds_recall', 0.0)
print(f"{sys.argv[5]:<26} p={sys.argv[3]:>2} t={sys.argv[4]} {eng:<9}"
      f" wall {a['seconds_candidates'] - rec:7.2f} s (+ recall {rec:6.2f} s)"
      f"  cpu {a['ann_cpu_seconds']:8.2f} s  recall {a['recall_estimate']:.4f}"
      f"  ranks/query 1|2|3+ {v[0]:.2f}|{v[1]:.2f}|{v[2]:.2f}"
      f"  sent/rank {a['ann_bytes_sent_max'] / 1e6:7.1f} MB  peak {mem:7.1f} MB{proj}")
PY
}

# pynndescent (a benchmark peer, never a build dependency) from Debian, when missing.
need_pynndescent() {
  if ! $py -c "import pynndescent" 2> /dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      python3-pynndescent > /dev/null
  fi
}

# lsgl options of a search configuration.
flags() {
  case $1 in
    default) echo "" ;;
    projected) echo "--ann projected" ;;
    certified) echo "--ann projected --ann-certify" ;;
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
  need_pynndescent
  NUMBA_NUM_THREADS=2 $py jobs/bench/pynndescent_knn.py "$work/latent-1m.h5" 15 300
fi

fmnist=/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
wall_of() { $py -c "import h5py, sys; a = h5py.File(sys.argv[1], 'r')['graph'].attrs
print(a['seconds_candidates'] - a.get('seconds_recall', 0.0))" "$work/$1.h5"; }

if [ "$what" = fmnist ] || [ "$what" = all ]; then
  echo; echo "== Fashion-MNIST 60,000 x 784, 30 candidates per node, 2 ranks, recall on every row"
  for rep in $(seq "$reps"); do
    for route in default partition ring certified; do
      search 2 1 "fmnist-$route-$rep" --input "$fmnist" --model knn --k 30 $(flags "$route") \
        --recall-sample 60000
    done
    echo "  wall default / hnsw (partition) = $($py -c "print(f'{$(wall_of "fmnist-default-$rep") / $(wall_of "fmnist-partition-$rep"):.2f}')")"
  done
fi

if [ "$what" = fmnist-scaling ] || [ "$what" = all ]; then
  echo; echo "== Fashion-MNIST scaling: default search, 30 candidates per node, 1 thread per rank"
  builds=this
  [ -n "${BASELINE:-}" ] && builds="base this"
  for rep in $(seq "$reps"); do
    for np in 1 2 4 8 16; do
      for b in $builds; do
        bin=$lsgl
        [ "$b" = base ] && bin=$BASELINE
        lsgl=$bin search "$np" 1 "fscale-$b-$np-$rep" --input "$fmnist" --model knn --k 30 \
          --recall-sample 1000
      done
    done
  done
  for b in $builds; do
    for np in 2 4 8 16; do
      p1=() pn=()
      for rep in $(seq "$reps"); do p1+=("$(cpu_of "fscale-$b-1-$rep")") pn+=("$(cpu_of "fscale-$b-$np-$rep")"); done
      same=$($py - "$work/fscale-this-1-1.h5" "$work/fscale-$b-$np-1.h5" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(f, 'r')['graph'] for f in sys.argv[1:3])
print('identical' if all(np.array_equal(a[k][:], b[k][:]) for k in ('indptr', 'indices')) else 'DIFFERENT')
PY
)
      echo "  $b: CPU at p = $np / CPU at p = 1 = $($py -c "import sys, statistics as st; a, b = sys.argv[1].split(), sys.argv[2].split()
r = sorted(float(y) / float(x) for x, y in zip(a, b))
print(' '.join(f'{x:.2f}' for x in r) + f' (median {st.median(r):.2f}, ratio of the means {sum(map(float, b)) / sum(map(float, a)):.2f})')" "${p1[*]}" "${pn[*]}"); lists (graph pattern) against this build's p = 1: $same"
    done
    echo "  $b: CPU s at p = 1 2 4 8 16, median of $reps: $(for np in 1 2 4 8 16; do
      c=(); for rep in $(seq "$reps"); do c+=("$(cpu_of "fscale-$b-$np-$rep")"); done
      $py -c "import sys, statistics as st; print(f'{st.median(map(float, sys.argv[1:])):.2f}', end=' ')" "${c[@]}"; done)"
  done
fi

if [ "$what" = blobs256 ] || [ "$what" = all ]; then
  echo; echo "== 1,000,000 x 256 (latent 32, 1,000 clusters, noise 0.1), 30 candidates per node, 2 ranks"
  if [ ! -f "$work/blobs-256.h5" ]; then
    mpirun -n 2 "$lsgl" generate --kind blobs --n 1000000 --d 256 --latent-dim 32 \
      --clusters 1000 --noise 0.1 --seed 7 --output "$work/blobs-256.h5" > /dev/null
  fi
  for rep in $(seq "$reps"); do
    search 2 1 "blobs256-default-$rep" --input "$work/blobs-256.h5" --model knn --k 30 \
      --recall-sample 2000
  done
  need_pynndescent
  NUMBA_NUM_THREADS=2 $py jobs/bench/pynndescent_knn.py "$work/blobs-256.h5" 30 2000 \
    --compile-first
fi

if [ "$what" = threads ] || [ "$what" = all ]; then
  echo; echo "== threads: 1 rank x 2 threads against 2 ranks x 1 thread"
  for route in default partition; do
    search 1 2 "threads-$route-1x2" --input "$work/latent-200k.h5" --model knn --k 5 $(flags "$route")
    search 2 1 "threads-$route-2x1" --input "$work/latent-200k.h5" --model knn --k 5 $(flags "$route")
    echo "  200,000 x 68 $route: wall 1x2 / 2x1 = $($py -c "print(f'{$(wall_of "threads-$route-1x2") / $(wall_of "threads-$route-2x1"):.2f}')")"
  done
  search 1 2 "threads-fmnist-1x2" --input "$fmnist" --model knn --k 30
  search 2 1 "threads-fmnist-2x1" --input "$fmnist" --model knn --k 30
  echo "  Fashion-MNIST default: wall 1x2 / 2x1 = $($py -c "print(f'{$(wall_of threads-fmnist-1x2) / $(wall_of threads-fmnist-2x1):.2f}')")"
fi

if [ "$what" = baseline ] || { [ "$what" = all ] && [ -n "${BASELINE:-}" ]; }; then
  echo; echo "== this build against $BASELINE, default search, full learn runs, 2 ranks"
  if [ ! -f "$work/grid-256.h5" ]; then
    mpirun -n 2 "$lsgl" generate --kind manifold --a 256 --b 256 --signals 40 \
      --output "$work/grid-256.h5" > /dev/null
  fi
  run() {  # binary tag data k
    local out="$work/base-$2-$3.h5" log="$work/base-$2-$3.log"
    rm -f "$out"
    mpirun -n 2 --bind-to none "$1" learn --input "$4" --k "$5" --output "$out" \
      --progress-every 0 > "$log" 2>&1 || { cat "$log"; return 1; }
    $py - "$out" "$log" "$2" "$3" <<'PY'
import h5py, re, sys
a = h5py.File(sys.argv[1], 'r')['graph'].attrs
log = open(sys.argv[2]).read()
mem = float(re.search(r'peak memory\s+([\d.]+) MB max per rank', log).group(1))
total = float(re.search(r'total time\s+([\d.]+) s', log).group(1))
print(f"  {sys.argv[4]:<8} {sys.argv[3]:<9} candidates {a['seconds_candidates']:7.2f} s"
      f"  total {total:7.2f} s  peak {mem:7.1f} MB per rank")
PY
  }
  for data in million:latent-1m.h5:5 grid:grid-256.h5:4 fmnist:$fmnist:10; do
    IFS=: read -r name file k <<< "$data"
    [ "${file#/}" = "$file" ] && file="$work/$file"
    run "$BASELINE" before "$name" "$file" "$k"
    run "$lsgl" after "$name" "$file" "$k"
    $py - "$work/base-before-$name.h5" "$work/base-after-$name.h5" "$name" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(f, 'r')['graph'] for f in sys.argv[1:3])
same = all(np.array_equal(a[k][:], b[k][:]) for k in ('indptr', 'indices', 'data'))
print(f"  {sys.argv[3]}: graphs {'identical' if same else 'differ'}")
PY
  done
fi
