# shellcheck shell=bash
# Sourced by the benchmark scripts of jobs/bench/ from the repository root, with their arguments:
# `--help` (or -h) prints the script's header comment and exits; otherwise it configures build/
# with the benchmark helpers (-DLSGL_BENCHMARKS=ON: lsgl_triad, lsgl_bench_solvers), builds (not
# when LSGL_BENCH_NO_BUILD=1: a script that builds under a lock itself), sets the run-time
# environment (jobs/env.sh) and creates `work`, the directory of the generated data and outputs
# ($BENCH_DIR, default /tmp/lsgl-bench). Needs what jobs/install.sh installs.
case "${1:-}" in
  -h | --help)
    sed -n '2,/^set -euo pipefail/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[1]}"
    exit 0
    ;;
esac
if [ "${LSGL_BENCH_NO_BUILD:-0}" != 1 ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLSGL_BENCHMARKS=ON > /dev/null
  cmake --build build -j "$(getconf _NPROCESSORS_ONLN)" > /dev/null
fi
source jobs/env.sh
work=${BENCH_DIR:-/tmp/lsgl-bench}
mkdir -p "$work"
