#!/usr/bin/env bash
# Installs Debian's SLURM and MUNGE packages (idempotent; needs root) for the SLURM tests
# (tests/slurm/run_slurm_tests.sh), which start their own single-node cluster. Not needed to use
# lsgl on a cluster. On a machine with systemd the packages may also enable their services; the
# tests do not use them (their daemons have their own configuration, socket and ports).
set -euo pipefail
packages=(slurm-wlm munge)
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
