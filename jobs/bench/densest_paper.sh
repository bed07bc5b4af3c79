#!/usr/bin/env bash
# Benchmark (not a test): [DPCD]'s dense-subgraph comparison -- its Figure 2 (density at k = 200,
# 400, ..., 6400), Table 2 (seconds) and Table 3 (DPCD-0 against DPCD at k = 1600) -- on
# generated stand-ins of its four LAW graphs (not downloadable here), 2 ranks:
#   uk         uk-2007-05@100000:  100,000 nodes,  about 3.0 M edges
#   dblp       dblp-2010:          326,186 nodes,  about 0.81 M edges
#   eswiki     eswiki-2013:        972,933 nodes,  about 21 M edges
#   hollywood  hollywood-2009:   1,139,905 nodes,  about 57.5 M edges
# Each is a Chung-Lu power-law graph (`lsgl generate --kind powerlaw-graph`, exponent 2.3,
# largest expected degree sqrt(2 x samples), seed 7) plus planted communities of 200, 400, ...,
# 6400 nodes whose internal degree is twice the graph's average degree (edge probability
# 2 d_avg / (s - 1), at most 1); the edge samples were chosen so that the edge count after
# dropping loops and repeats is the target (the counts are printed).
# Methods: the paper's lp, ravi, l2box-admm, mpec-epm, mpec-adm; dpcd-0 and dpcd, each from the
# degree set alone (--init degree, DPCD's own contribution) and from its default initial sets.
# One case = one method on one graph at all six k (the graph read once), run under the shared
# heavy-work lock ($LSGL_LOCK, default /tmp/lsgl-heavy.lock) one case at a time, each under
# `timeout $CASE_TIMEOUT` (default 1200 s). Time = the
# method's own seconds (reading excluded). Per-case caps of the slow methods can be set with
# L2BOX_ARGS and MPEC_ARGS (defaults: the published iteration caps).
#   usage: jobs/bench/densest_paper.sh [RANKS] [GRAPHS]   (default 2 "uk dblp eswiki hollywood")
set -euo pipefail
cd "$(dirname "$0")/../.."
LSGL_BENCH_NO_BUILD=1 source jobs/bench/setup.sh "$@"
ranks=${1:-2}
graphs=${2:-uk dblp eswiki hollywood}
lsgl=${LSGL:-build/lsgl}
lock=${LSGL_LOCK:-/tmp/lsgl-heavy.lock}
heavy() { flock "$lock" timeout "${CASE_TIMEOUT:-1200}" "$@"; }
heavy cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
heavy cmake --build build -j 2 > /dev/null
sizes=200,400,800,1600,3200,6400
coms=200,400,800,1600,3200,6400
declare -A gen=(
  [uk]="--n 100000 --edges 2262000 --community-density 0.603,0.301,0.150,0.075,0.0375,0.01876"
  [dblp]="--n 326186 --edges 747000 --community-density 0.0497,0.0248,0.0124,0.0062,0.0031,0.00155"
  [eswiki]="--n 972933 --edges 20520000 --community-density 0.434,0.2165,0.108,0.054,0.027,0.0135"
  [hollywood]="--n 1139905 --edges 56450000 --community-density 1,0.506,0.253,0.126,0.0632,0.0316"
)
cases=("lp" "ravi" "l2box-admm ${L2BOX_ARGS:-}" "mpec-epm ${MPEC_ARGS:-}" "mpec-adm ${MPEC_ARGS:-}"
       "dpcd-0 --init degree" "dpcd --init degree" "dpcd-0" "dpcd")

echo "== machine: $(getconf _NPROCESSORS_ONLN) cores, $(free -g | awk '/Mem:/{print $2}') GB, $ranks ranks, $(date -u +%F), commit $(git rev-parse --short HEAD)"
for graph in $graphs; do
  file="$work/paper-$graph.h5"
  if [ ! -f "$file" ]; then
    heavy mpirun -n "$ranks" /usr/bin/time -f "   generate: peak %M KB on a rank, %e s" $lsgl generate \
      --kind powerlaw-graph ${gen[$graph]} --exponent 2.3 --communities $coms --seed 7 \
      --output "$file" > /dev/null
  fi
  log="$work/paper-$graph.log"
  : > "$log"
  for c in "${cases[@]}"; do
    set -- $c
    method=$1
    shift
    echo "## case $c" >> "$log"
    heavy mpirun -n "$ranks" /usr/bin/time -f "peak %M KB" $lsgl densest --graph "$file" \
      --size $sizes --method "$method" "$@" --quiet >> "$log" 2>&1 || { tail -5 "$log"; exit 1; }
  done
  echo
  echo "== $graph ($file)"
  /usr/bin/python3 - "$file" "$log" "$graph" <<'PY'
import re, sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    print(f"   {f.attrs['n']:,} nodes, {f.attrs['edges']:,} edges ({f.attrs['edge_samples']:,} samples)")
rows, case, peak = {}, None, {}
for line in open(sys.argv[2]):
    if line.startswith("## case "):
        case = line[8:].strip().replace(" --init degree", " (degree)")
        case = case.split(" --")[0]
    m = re.match(r"densest: method \S+(?: \(init (\w+)\))?, k (\d+), density ([\d.e+]+), "
                 r"edges inside (\d+), .*?, ([\d.]+) s", line)
    if m:
        rows.setdefault(int(m.group(2)), {})[case] = (float(m.group(3)), float(m.group(5)),
                                                       int(m.group(4)), m.group(1))
    m = re.match(r"peak (\d+) KB", line)
    if m:
        peak[case] = max(peak.get(case, 0), int(m.group(1)))
order = ["lp", "ravi", "l2box-admm", "mpec-epm", "mpec-adm", "dpcd-0 (degree)", "dpcd (degree)",
         "dpcd-0", "dpcd"]
print("| k | " + " | ".join(order) + " | dpcd >= every paper baseline? |")
print("|---|" + "---|" * (len(order) + 1))
paper = ["lp", "ravi", "l2box-admm", "mpec-epm", "mpec-adm"]
for k in sorted(rows):
    r = rows[k]
    cells = [f"{r[c][0]:.6g} ({r[c][1]:.2f} s)" if c in r else "-" for c in order]
    d = r["dpcd"][2]
    worse = [c for c in paper if c in r and r[c][2] > d]
    verdict = "yes" if not worse else "NO: " + ", ".join(worse)
    print(f"| {k} | " + " | ".join(cells) + f" | {verdict} |")
print("\nedges inside, exact (density = 2 edges / k):")
for k in sorted(rows):
    print(f"   k {k}: " + ", ".join(f"{c} {rows[k][c][2]}" for c in order if c in rows[k]))
print("peak memory per rank (MB): " + ", ".join(f"{c} {peak[c] / 1e3:.0f}" for c in order if c in peak))
k = 1600
if k in rows:
    print(f"\nTable 3 (k = {k}): x^T W x and seconds")
    print("| initial sets | dpcd-0 x^T W x | dpcd x^T W x | dpcd-0 s | dpcd s |")
    print("|---|---:|---:|---:|---:|")
    for tag, z, full in (("degree", "dpcd-0 (degree)", "dpcd (degree)"), ("default", "dpcd-0", "dpcd")):
        a, b = rows[k][z], rows[k][full]
        print(f"| {tag} | {2 * a[2]} | {2 * b[2]} | {a[1]:.2f} | {b[1]:.2f} |")
PY
done
