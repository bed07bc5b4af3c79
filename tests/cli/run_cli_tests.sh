#!/usr/bin/env bash
# End-to-end tests of the lsgl executable under mpirun: usage: run_cli_tests.sh LSGL MPIEXEC
set -euo pipefail
exec /usr/bin/python3 "$(dirname "$0")/cli_tests.py" "$@"
