#!/usr/bin/env bash
# Installs what is missing, builds, and learns a graph of the 60,000 Fashion-MNIST training
# images (k = 10) on 2 ranks, writing fashion-mnist-k10.h5 and printing a summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash jobs/install.sh
source jobs/env.sh
mpirun -n "${RANKS:-2}" build/lsgl learn --config configs/fashion-mnist.ini "$@"
