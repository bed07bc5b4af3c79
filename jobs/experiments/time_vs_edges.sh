#!/bin/bash
# time_vs_edges.sh: time of the log model vs the number of allowed edges ([KP19] Fig. 15: 60,000
# MNIST images, time linear in the number of variables, i.e. in the average degree).
#
# For each n in NS (Fashion-MNIST training subsets, seed 1) and k in KS (r = 3, so each node has
# round(3k) candidates): one `lsgl learn`; the table gives the allowed edges (graph attribute),
# iterations and convergence (graph attributes), and the times of the neighbour search
# ("candidates") and of the learning iteration, parsed from the learn summary (the graph file
# holds no times). Time per iteration and per allowed edge shows the linearity independent of
# the iteration count.
#
# Default: NS = "10000 20000", KS = "5 10 20 30 40"; --full: NS = 60000 (the paper's size; the
# IDX file is read directly), KS = "5 10 15 20 30 40" (about 10-15 minutes here).
#
# Options: --out DIR (default /tmp/lsgl-experiments/time_vs_edges), --np N (default 2), --full.
# Environment: NS, KS, R (3), TOL (1e-5; the paper used 1e-4).
# Writes OUT/time_vs_edges.csv, OUT/time_vs_edges.png; prints the table.
EXP_NAME=time_vs_edges
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ "$FULL" = 1 ]; then
  NS=${NS:-60000}
  KS=${KS:-"5 10 15 20 30 40"}
else
  NS=${NS:-"10000 20000"}
  KS=${KS:-"5 10 20 30 40"}
fi
R=${R:-3}
TOL=${TOL:-1e-5}
mkdir -p "$OUT/logs" "$OUT/graphs"

for n in $NS; do
  D=$(fmnist_subset "$n" 1)
  X=$(fmnist_x "$D")
  for k in $KS; do
    g=$OUT/graphs/n$n-k$k.h5
    log=$OUT/logs/n$n-k$k.log
    lsgl_np "$log" learn --input "$X" --k "$k" --r "$R" --tol "$TOL" --ann hnsw --ann-route ring --progress-every 0 --output "$g"
    py record --runs "$RUNS" --graph "$g" --log "$log" kind=time
    echo "  n $n k $k: $(grep -E 'edges  |iterations |phases' "$log" | tr -s ' ' | tr '\n' ';')"
    rm -f "$g"
  done
done
finish
