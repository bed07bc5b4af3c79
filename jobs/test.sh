#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (MPI tests at 1, 2 and 3 ranks).
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install.sh --test
source jobs/env.sh
cd build
ctest --output-on-failure --timeout 900 "$@"
