#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, -DLSGL_FUZZ=ON, in their own build
# directory) and runs each for a bounded time, one at a time.
# Usage: jobs/fuzz/run_fuzzers.sh SECONDS_PER_TARGET [WORK_DIR] [TARGET...]
#   WORK_DIR (default build-fuzz) holds the build, the grown corpora (WORK_DIR/corpus/<target>)
#   and the findings (WORK_DIR/findings/<target>/crash-*, never committed). The seed corpus
#   tests/fuzz/corpus/<target>/ is read, not written. Prints per target the executions run and
#   the findings; exits 1 if any target found something.
set -euo pipefail
seconds=${1:?usage: run_fuzzers.sh SECONDS_PER_TARGET [WORK_DIR] [TARGET...]}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${2:-$here/build-fuzz}")
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_npy_header fuzz_idx_header fuzz_graph_text fuzz_config_text)
source "$here/jobs/env.sh"

cmake -S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DLSGL_FUZZ=ON -DBUILD_TESTING=OFF -DLSGL_NATIVE=OFF > "$work.cmake.log"
cmake --build "$work/build" -j2 --target "${targets[@]}"

found=0
for t in "${targets[@]}"; do
  corpus="$work/corpus/$t" findings="$work/findings/$t"
  mkdir -p "$corpus" "$findings"
  log="$work/$t.log"
  set +e
  "$work/build/tests/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" "$corpus" "$here/tests/fuzz/corpus/${t#fuzz_}" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  n=$(find "$findings" -type f | wc -l)
  echo "$t: ${seconds} s, $execs executions, exit code $rc, $n finding(s) in $findings"
  [ "$rc" = 0 ] && [ "$n" = 0 ] || found=1
done
exit $found
