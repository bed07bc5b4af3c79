#!/usr/bin/env bash
# Installs lsgl's build and run dependencies from Debian packages (idempotent; needs root) and
# builds lsgl into ./build. Used by the README's commands and by CI.
# Usage: install.sh [--test | --sanitizers]
set -euo pipefail
cd "$(dirname "$0")/.."

# pybind11-dev, python3-dev and python3-mpi4py: the Python module lsgl (docs/python.md), built
# with the rest.
packages=(build-essential cmake pkg-config git openmpi-bin libopenmpi-dev petsc-dev slepc-dev
          libflann-dev liblz4-dev libhnswlib-dev libfaiss-dev libhdf5-openmpi-dev
          libboost-program-options-dev libgtest-dev libopenblas-dev zlib1g-dev pybind11-dev
          python3-dev dataset-fashion-mnist python3 python3-h5py python3-scipy python3-numpy
          python3-mpi4py)
# --test (jobs/test.sh): also the test-only packages, the tools whose loaders the tests check on
# learned graphs (cli_ecosystem: AnnData input, NetworkX, igraph, R's Matrix and hdf5r) and pytest
# for the Python module's tests (tests/python/).
if [[ "${1:-}" == "--test" ]]; then
  packages+=(python3-anndata python3-networkx python3-igraph r-base-core r-cran-matrix
             r-cran-hdf5r python3-pytest)
fi
# --sanitizers (CI, jobs/sanitize.sh, jobs/fuzz/run_fuzzers.sh): clang 14 with its sanitizer and
# libFuzzer runtimes, LLVM's OpenMP runtime with the Archer tool (ThreadSanitizer) and
# llvm-symbolizer for the reports' stacks.
if [[ "${1:-}" == "--sanitizers" ]]; then
  packages+=(clang-14 libclang-rt-14-dev libomp-14-dev llvm-14)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(getconf _NPROCESSORS_ONLN)"
