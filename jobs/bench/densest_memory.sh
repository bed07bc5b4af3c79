#!/usr/bin/env bash
# Benchmark (not a test): peak memory per rank of `lsgl densest` against the number of ranks, on
# one graph at one k -- by default the hollywood-2009 stand-in of jobs/bench/densest_paper.sh
# ($BENCH_DIR/paper-hollywood.h5: 1,139,905 nodes, 57.5 M edges) at k = 1600. First the stored
# entries E of each rank's rows and the cross entries C among them (column on another rank:
# jobs/bench/graph_blocks.py); then, for each rank count and case, one `lsgl densest` run with
# every rank under `/usr/bin/time` (its peak resident set, the "rank R peak" lines) and the
# summary line (the same set on every rank count). Cases ($CASES, ';'-separated method
# arguments): DPCD with its default initial sets (they include peeling, which gathers the graph's
# column indices on rank 0), DPCD from the degree set alone, and LP (the relaxations' product
# keeps a ghost slot per entry). Each run holds the shared heavy-work lock ($LSGL_LOCK, default
# /tmp/lsgl-heavy.lock) alone, under `timeout $CASE_TIMEOUT` (default 1200 s); more ranks than
# cores run oversubscribed (jobs/env.sh): memory, not time, is measured.
#   usage: jobs/bench/densest_memory.sh [GRAPH] [RANKS] [K]
#          (defaults $BENCH_DIR/paper-hollywood.h5, "1 2 3 4", 1600)
set -euo pipefail
cd "$(dirname "$0")/../.."
LSGL_BENCH_NO_BUILD=1 source jobs/bench/setup.sh "$@"
graph=${1:-$work/paper-hollywood.h5}
ranks=${2:-1 2 3 4}
k=${3:-1600}
IFS=';' read -r -a cases <<< "${CASES:-dpcd;dpcd --init degree;lp}"
lsgl=${LSGL:-build/lsgl}
lock=${LSGL_LOCK:-/tmp/lsgl-heavy.lock}
heavy() { flock "$lock" timeout "${CASE_TIMEOUT:-1200}" "$@"; }
heavy cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
heavy cmake --build build -j 2 --target lsgl > /dev/null
out="$work/memory"
mkdir -p "$out"
echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $(free -g | awk '/Mem:/ {print $2}') GB," \
  "$(date -u +%F), commit $(git rev-parse --short HEAD); graph $graph, k $k"
blocks="$out/blocks-${ranks// /_}.md"
# shellcheck disable=SC2086
[ -s "$blocks" ] || heavy /usr/bin/python3 jobs/bench/graph_blocks.py "$graph" $ranks > "$blocks"
cat "$blocks"
echo
echo "| ranks | case | peak MB per rank (rank 0, 1, ...) | summary |"
echo "|---:|---|---|---|"
for p in $ranks; do
  for c in "${cases[@]}"; do
    log="$out/$p-${c// /_}.log"
    # A log with every rank's peak is kept: the script resumes.
    if [ "$(grep -c '^rank [0-9]* peak' "$log" 2> /dev/null)" != "$p" ]; then
      # Each rank's /usr/bin/time line goes to its own file (lines written to one stream by
      # several ranks can interleave), appended to the log in rank order after the run.
      rm -f "$log".rank*
      # shellcheck disable=SC2016,SC2086  # $OMPI_COMM_WORLD_RANK per rank; $c split into words
      if ! heavy mpirun -n "$p" bash -c \
        '/usr/bin/time -o "$0.rank$OMPI_COMM_WORLD_RANK" \
          -f "rank $OMPI_COMM_WORLD_RANK peak %M KB %e s" "$@"' "$log" \
        "$lsgl" densest --graph "$graph" --size "$k" --method $c > "$log" 2>&1; then
        echo "| $p | $c | failed: $(grep -m1 -i 'error\|killed' "$log" || tail -n1 "$log") | |"
        continue
      fi
      for ((r = 0; r < p; r++)); do cat "$log.rank$r" >> "$log"; done
      rm -f "$log".rank*
    fi
    peaks=$(sed -n 's/^rank \([0-9]*\) peak \([0-9]*\) KB.*/\1 \2/p' "$log" | sort -n |
      awk '{printf "%s%.0f", (NR > 1 ? ", " : ""), $2 * 1024 / 1e6}')
    echo "| $p | $c | $peaks | $(grep -m1 '^densest:' "$log" | cut -d, -f3-6) |"
  done
done
