#!/usr/bin/env bash
# Sanitizer runs with clang 14, each in its own build directory (ignored by git), for CI and by
# hand. Prints the time of each stage; exits non-zero on any finding or failed test.
#
#   jobs/sanitize.sh asan [BUILD_DIR]   AddressSanitizer + UndefinedBehaviorSanitizer (default
#       build-asan), also instrumented for libFuzzer's coverage so that jobs/fuzz/run_fuzzers.sh
#       builds its targets in the same tree. Runs every unit test at 1 and 3 ranks (the one-rank
#       branches, and several peers with uneven blocks; the normal build also runs 2) and the CLI
#       reliability tests at 2 ranks (cli_reliability_np2).
#   jobs/sanitize.sh tsan [BUILD_DIR]   ThreadSanitizer (default build-tsan) with LLVM's OpenMP
#       runtime and its Archer tool (libarcher.so, which tells TSan about OpenMP's
#       synchronisation): test_candidates at 1 and 2 ranks, whose searches run with --threads 1
#       and 2 (exact, voronoi, flann, hnsw, the partition route's cells).
#   jobs/sanitize.sh configure asan|tsan BUILD_DIR [cmake args]   the configure step alone.
#
# What is suppressed and why is in tests/sanitizers/ (Open MPI's own leaks, an hnswlib prefetch
# read past a list, libraries that are not instrumented); detection itself is never turned off.
# Left out of these runs (GTEST_FILTER): Memory.FreedLargeBlocksLeaveTheProcess and
# Memory.AllocatorSettingsFromGlibcTunablesAreKept, which check glibc's release of freed blocks
# (the sanitizers replace glibc's allocator); the recall bars of
# the approximate engines on larger data (search quality, asserted by the normal build; their
# code paths run here on the exact tests' data): 4.6 of the 9 minutes of the unit tests under
# ASan; and the two comparisons of the densest methods' sets across block layouts and rank
# counts on larger graphs (Balance.DensestMethods..., DenseSubgraph.SameSetsAsOnOneRank: the
# same code runs here in test_densest and test_dpcd's other cases), 75 of 558 s on 2026-12-04.
# The Python module is not built here (LSGL_PYTHON=OFF): no test of this run loads it.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: sanitize.sh asan|tsan [BUILD_DIR] | configure asan|tsan BUILD_DIR}

configure() {  # configure MODE DIR [cmake args]
  local kind=$1 dir=$2
  shift 2
  local flags=fuzzer-no-link,address,undefined
  [ "$kind" = tsan ] && flags=thread
  cmake -S "$here" -B "$dir" -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DLSGL_NATIVE=OFF -DLSGL_PYTHON=OFF \
    -DLSGL_SANITIZE="$flags" "$@" \
    > "$dir.cmake.log"
}

stage() {  # stage NAME COMMAND...: runs it and prints its wall time
  local t0=$SECONDS
  "${@:2}"
  echo "sanitize: $1 took $((SECONDS - t0)) s"
}

if [ "$mode" = configure ]; then
  configure "${2:?}" "${3:?}" "${@:4}"
  exit 0
fi
build=$(realpath -m "${2:-$here/build-$mode}")
source "$here/jobs/env.sh"
supp=$here/tests/sanitizers
export GTEST_FILTER=-Memory.FreedLargeBlocksLeaveTheProcess:\
Memory.AllocatorSettingsFromGlibcTunablesAreKept:Candidates.ApproximateEnginesRecall:\
Candidates.PartitionRouteRecallOfDefaults:Candidates.HnswRecallOnGridOrderedManifold:RecallImages.*:\
Balance.DensestMethodsFindTheSameSetsOnBalancedAndEqualBlocks:DenseSubgraph.SameSetsAsOnOneRank

if [ "$mode" = asan ]; then
  stage configure configure asan "$build" -DLSGL_FUZZ=ON
  stage build cmake --build "$build" -j "$(getconf _NPROCESSORS_ONLN)"
  # Open MPI unloads its components at MPI_Finalize; keep them mapped so that the leak report
  # names them (lsan.supp).
  export LD_PRELOAD=$build/liblsgl_keep_modules.so
  export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0
  export LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  cd "$build"
  stage "unit tests (1 and 3 ranks)" ctest --output-on-failure --timeout 900 -R '^test_.*_np[13]$'
  stage "CLI reliability tests (2 ranks)" ctest --output-on-failure --timeout 1800 \
    -R '^cli_reliability_np2$'
elif [ "$mode" = tsan ]; then
  stage configure configure tsan "$build"
  stage build cmake --build "$build" -j "$(getconf _NPROCESSORS_ONLN)" --target test_candidates
  export OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so
  export TSAN_OPTIONS="suppressions=$supp/tsan.supp halt_on_error=1 second_deadlock_stack=1 \
    ignore_noninstrumented_modules=1"
  cd "$build"
  stage "test_candidates (1 and 2 ranks, threads 1 and 2)" ctest --output-on-failure \
    --timeout 1800 -R '^test_candidates_np[12]$'
else
  echo "unknown mode '$mode'" >&2
  exit 2
fi
