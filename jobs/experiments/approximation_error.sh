#!/bin/bash
# approximation_error.sh: relative L1 error between the A-NN restricted log model and the exact
# log model ([KP19] Fig. 3).
#
# For SUBSETS random subsets of N Fashion-MNIST training images and each k in KS: the exact
# model is learned with --support full --k k (theta from eq. 18 over all pairs); then, with the
# same theta, the restricted model with --support ann (default engine hnsw) and r in RS. The
# error is ||W_r - W_full||_1 / ||W_full||_1 over the written weights (pruned at 1e-4). Both
# solves use --tol TOL so that the solver's own error stays below the differences measured.
#
# Options: --out DIR (default /tmp/lsgl-experiments/approximation_error), --np N (default 2),
# --full (10 subsets, as the paper).
# Environment: N (1000, as the paper), SUBSETS (5; 10 with --full), KS ("5 10 20"),
# RS ("1 2 3 5"), TOL (1e-6), MAX_ITER (5000).
# Writes OUT/approximation_error.csv, OUT/approximation_error.png; prints the table.
EXP_NAME=approximation_error
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

N=${N:-1000}
if [ "$FULL" = 1 ]; then SUBSETS=${SUBSETS:-10}; else SUBSETS=${SUBSETS:-5}; fi
KS=${KS:-"5 10 20"}
RS=${RS:-"1 2 3 5"}
TOL=${TOL:-1e-6}
MAX_ITER=${MAX_ITER:-5000}
mkdir -p "$OUT/logs" "$OUT/graphs"
common=(--tol "$TOL" --max-iter "$MAX_ITER" --progress-every 0 --ann hnsw --ann-route ring)

for s in $(seq 1 "$SUBSETS"); do
  D=$(fmnist_subset "$N" "$s")
  X=$(fmnist_x "$D")
  for k in $KS; do
    gf=$OUT/graphs/full-s$s-k$k.h5
    lsgl_np "$OUT/logs/full-s$s-k$k.log" learn --input "$X" --support full --k "$k" "${common[@]}" --output "$gf"
    read -r theta deg_full conv_full < <("$PYTHON" -c "
import h5py; a = h5py.File('$gf')['graph'].attrs
print('%.17g' % a['theta'], a['avg_degree'], a['converged'])")
    for r in $RS; do
      g=$OUT/graphs/ann-s$s-k$k-r$r.h5
      log=$OUT/logs/ann-s$s-k$k-r$r.log
      lsgl_np "$log" learn --input "$X" --k "$k" --r "$r" --theta "$theta" --seed "$s" "${common[@]}" --output "$g"
      err=$(py l1err --exact "$gf" --approx "$g")
      py record --runs "$RUNS" --graph "$g" --log "$log" kind=approx subset="$s" r_factor="$r" \
        l1err="$err" theta_full="$theta" avg_degree_exact="$deg_full" converged_exact="$conv_full"
      printf '  subset %d  k %-3d r %-2d  theta %.4g  error %s\n' "$s" "$k" "$r" "$theta" "$err"
      rm -f "$g"
    done
    rm -f "$gf"
  done
done
finish
