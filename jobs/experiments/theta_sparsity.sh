#!/bin/bash
# theta_sparsity.sh: predicted theta interval ([KP19] eq. 18, `lsgl theta`) vs the measured average
# degree of the exact log model over a sweep of theta ([KP19] Fig. 2, middle).
#
# Data: N Fashion-MNIST training images (random subset, seed 1). For k = 1..KMAX, `lsgl theta
# --ann exact` prints the interval of eq. 18 from exact neighbour distances. Then the log model
# is learned with --support full (every pair allowed, the exact model of Kalofolias 2016) at
# STEPS values of theta, log-spaced across the predicted intervals, and its average degree
# (nnz / n of the written graph, weights > 1e-4) is recorded.
#
# Options: --out DIR (default /tmp/lsgl-experiments/theta_sparsity), --np N (default 2).
# Environment: N (default 1000, as the paper), KMAX (20), STEPS (30), MAX_ITER (3000).
# Writes OUT/theta_sparsity.csv, OUT/theta_sparsity.png; prints both tables.
EXP_NAME=theta_sparsity
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N=${N:-1000}
KMAX=${KMAX:-20}
STEPS=${STEPS:-30}
MAX_ITER=${MAX_ITER:-3000}

D=$(fmnist_subset "$N" 1)
X=$(fmnist_x "$D")
mkdir -p "$OUT/logs" "$OUT/graphs"

echo "predicted intervals, k = 1..$KMAX"
for k in $(seq 1 "$KMAX"); do
  log=$OUT/logs/theta-k$k.log
  lsgl_np "$log" theta --input "$X" --k "$k" --r 3 --ann exact --recall-sample 0
  read -r lo up th < <(py theta --log "$log")
  py record --runs "$RUNS" kind=predicted k="$k" lower="$lo" upper="$up" theta="$th" n="$N"
done

# Sweep from below the k = KMAX interval to above the k = 2 interval (k = 1 has no upper bound).
read -r TMIN TMAX < <("$PYTHON" - "$RUNS" <<'EOF'
import json, sys
p = {r["k"]: r for r in map(json.loads, open(sys.argv[1]))}
kmax = max(p)
print(0.8 * p[kmax]["lower"], 1.5 * p[min(2, kmax)]["upper"])
EOF
)
echo "learning the exact log model at $STEPS values of theta in [$TMIN, $TMAX]"
for theta in $("$PYTHON" -c "import numpy as np; print(' '.join('%.6g' % t for t in np.geomspace($TMIN, $TMAX, $STEPS)))"); do
  g=$OUT/graphs/theta-$theta.h5
  log=$OUT/logs/learn-theta-$theta.log
  lsgl_np "$log" learn --input "$X" --support full --theta "$theta" --k 10 \
    --max-iter "$MAX_ITER" --progress-every 0 --output "$g"
  py record --runs "$RUNS" --graph "$g" --log "$log" kind=measured theta="$theta"
  rm -f "$g"
done
finish
