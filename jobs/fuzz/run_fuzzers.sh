#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang 14, -DLSGL_FUZZ=ON, in the AddressSanitizer +
# UBSan + coverage build of jobs/sanitize.sh: WORK_DIR, default build-fuzz; CI passes build-asan,
# already built) and runs each for a bounded time, JOBS targets at a time (default 1).
# Usage: [JOBS=2] jobs/fuzz/run_fuzzers.sh SECONDS_PER_TARGET [WORK_DIR] [TARGET[=SECONDS]...]
#   WORK_DIR also holds the grown corpora (WORK_DIR/corpus/<target>) and the findings
#   (WORK_DIR/findings/<target>/crash-*, never committed; a finding that was fixed goes into the
#   seed corpus as regress-*). The seed corpus tests/fuzz/corpus/<target without fuzz_>/ is read,
#   not written. Prints per target the executions run, the time and the findings; exits 1 if any
#   target found something.
set -euo pipefail
seconds=${1:?usage: run_fuzzers.sh SECONDS_PER_TARGET [WORK_DIR] [TARGET[=SECONDS]...]}
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(realpath -m "${2:-$here/build-fuzz}")
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_npy_header fuzz_idx_header fuzz_graph_text
  fuzz_config_text fuzz_json fuzz_graph_file fuzz_candidates_file fuzz_checkpoint
  fuzz_hash_files fuzz_collect_table)
jobs=${JOBS:-1}
source "$here/jobs/env.sh"

bash "$here/jobs/sanitize.sh" configure asan "$work" -DLSGL_FUZZ=ON
cmake --build "$work" -j "$(getconf _NPROCESSORS_ONLN)" --target "${targets[@]%%=*}"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Open MPI's own allocations at MPI_Init are not freed before exit (see jobs/sanitize.sh).
export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
export LSAN_OPTIONS=suppressions=$here/tests/sanitizers/lsan.supp
export LD_PRELOAD=$work/liblsgl_keep_modules.so
# Open MPI's signal handlers would catch a target's abort before libFuzzer writes the input.
export OMPI_MCA_opal_signal=

# fuzz TARGET SECONDS: one run; its lines of results in WORK_DIR/TARGET.result.
fuzz() {
  local t=$1 s=$2 corpus="$work/corpus/$1" findings="$work/findings/$1" log="$work/$1.log"
  local t0=$SECONDS rc=0 execs n
  mkdir -p "$corpus" "$findings"
  "$work/tests/fuzz/$t" -max_total_time="$s" -print_final_stats=1 -rss_limit_mb=2048 \
    -timeout=20 -artifact_prefix="$findings/" "$corpus" "$here/tests/fuzz/corpus/${t#fuzz_}" \
    > "$log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  n=$(find "$findings" -type f | wc -l)
  echo "$t: $((SECONDS - t0)) s, $execs executions, exit code $rc, $n finding(s) in $findings" \
    > "$work/$t.result"
  if [ "$rc" != 0 ] || [ "$n" != 0 ]; then
    grep -m3 -E "ERROR|runtime error|Assertion|deadly signal|read with" "$log" \
      >> "$work/$t.result" || true
  fi
}

running=0
for spec in "${targets[@]}"; do
  t=${spec%%=*}
  s=$seconds
  [ "$spec" = "$t" ] || s=${spec#*=}
  if [ "$running" -ge "$jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz "$t" "$s" &
  running=$((running + 1))
done
wait
found=0
for spec in "${targets[@]}"; do
  t=${spec%%=*}
  cat "$work/$t.result"
  head -1 "$work/$t.result" | grep -q "exit code 0, 0 finding" || found=1
done
exit $found
