# Sourced by the experiment scripts in this directory (not run on its own).
#
# Common options of every script:
#   --out DIR   output directory (default /tmp/lsgl-experiments/<name>; or env OUT)
#   --np N      MPI ranks (default 2; or env NP)
#   --full      the paper-scale version where the default is reduced
# Environment: LSGL (the lsgl binary, default build/lsgl of this checkout), PYTHON
# (default /usr/bin/python3: numpy, scipy, h5py, matplotlib), FMNIST_DIR.
set -euo pipefail

EXP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$EXP_DIR/../.." && pwd)
# shellcheck source=../env.sh
source "$REPO/jobs/env.sh"

LSGL=${LSGL:-$REPO/build/lsgl}
PYTHON=${PYTHON:-/usr/bin/python3}
FMNIST_DIR=${FMNIST_DIR:-/usr/share/datasets/fashion-mnist}
NP=${NP:-2}
FULL=0
OUT=${OUT:-/tmp/lsgl-experiments/$EXP_NAME}

while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --full) FULL=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "$EXP_NAME: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if [ ! -x "$LSGL" ]; then
  echo "$EXP_NAME: no lsgl binary at '$LSGL' (build it, or set LSGL=path/to/lsgl)" >&2
  exit 1
fi
if ! "$PYTHON" -c "import matplotlib" 2>/dev/null; then
  echo "$EXP_NAME: installing python3-matplotlib (Debian) for the plots"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-matplotlib > /dev/null
fi
mkdir -p "$OUT"
RUNS=$OUT/runs.jsonl
: > "$RUNS"
T_START=$(date +%s)

py() { "$PYTHON" "$EXP_DIR/plot.py" "$@"; }

# lsgl on NP ranks; the command's output goes to the log file given first.
lsgl_np() {
  local log=$1
  shift
  if ! mpirun -n "$NP" "$LSGL" "$@" > "$log" 2>&1; then
    echo "$EXP_NAME: failed: mpirun -n $NP $LSGL $*" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
}

# Fashion-MNIST training subset of n images (seed s) as OUT/data/fmnist-n<n>-s<s>.{x,y}.npy;
# prints the prefix. n = 60000 uses the IDX files directly.
fmnist_subset() {
  local n=$1 s=${2:-1}
  if [ "$n" -ge 60000 ]; then
    echo "FULL"
    return
  fi
  local prefix=$OUT/data/fmnist-n$n-s$s
  mkdir -p "$OUT/data"
  [ -f "$prefix.x.npy" ] || py subset --n "$n" --seed "$s" --out-x "$prefix.x.npy" --out-y "$prefix.y.npy" \
      --images "$FMNIST_DIR/train-images-idx3-ubyte.gz" --labels "$FMNIST_DIR/train-labels-idx1-ubyte.gz"
  echo "$prefix"
}
fmnist_x() { if [ "$1" = FULL ]; then echo "$FMNIST_DIR/train-images-idx3-ubyte.gz"; else echo "$1.x.npy"; fi; }
fmnist_y() { if [ "$1" = FULL ]; then echo "$FMNIST_DIR/train-labels-idx1-ubyte.gz"; else echo "$1.y.npy"; fi; }

finish() {
  py report "$EXP_NAME" --runs "$RUNS" --outdir "$OUT"
  echo "$EXP_NAME: $(( $(date +%s) - T_START )) s on $NP ranks (lsgl: $LSGL)"
}
