#!/usr/bin/env bash
# Tests of jobs/learn.sbatch, jobs/sweep.sbatch and `lsgl collect` against a real SLURM: starts a
# single-node cluster on this machine (munged, slurmctld, slurmd, everything under a temporary
# directory, ports of its own), submits a learning job, a 3-task sweep array and a job that
# receives SIGUSR1 mid-iteration (checkpoint, exit 75, requeue, resume), checks their outputs
# against direct runs, and stops the daemons by their process ids.
#
#   usage: tests/slurm/run_slurm_tests.sh [LSGL]       (default: build/lsgl; as root)
#
# Registered in ctest as the test `slurm` (label slurm: `ctest -L slurm` in build/). Needs Debian's
# slurm-wlm and munge (jobs/install-slurm.sh) and root. Without them the test is skipped (exit
# code 77, which ctest reports as skipped), except with LSGL_REQUIRE_SLURM=1 (CI), where it fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
lsgl=$(realpath "${1:-$root/build/lsgl}")
py=/usr/bin/python3
t_start=$(date +%s)

fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
elapsed() { echo $(($(date +%s) - t_start)); }

missing=()
for c in munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol scancel srun; do
  command -v "$c" > /dev/null || missing+=("$c")
done
[ "$(id -u)" = 0 ] || missing+=("root")
if ((${#missing[@]})); then
  if [ "${LSGL_REQUIRE_SLURM:-}" = 1 ]; then
    echo "FAIL: the SLURM test needs ${missing[*]} (bash jobs/install-slurm.sh, as root)"
    exit 1
  fi
  echo "SKIP: the SLURM test needs ${missing[*]} (bash jobs/install-slurm.sh, as root)"
  exit 77
fi
if [ ! -x "$lsgl" ]; then
  echo "FAIL: no executable '$lsgl' (build first)"
  exit 1
fi

tmp=$(mktemp -d /tmp/lsgl-slurm.XXXXXX)
work=$tmp/work
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log" "$work"
chmod 700 "$tmp/munge"
export SLURM_CONF=$tmp/slurm.conf

pids=()
cleanup() {
  # Jobs first (their steps belong to slurmd), then the daemons, by process id.
  if [ -f "$SLURM_CONF" ] && [ -f "$tmp/slurmctld.pid" ]; then
    scancel --quiet --user=root 2> /dev/null
    for _ in $(seq 20); do
      [ -z "$(squeue -h 2> /dev/null)" ] && break
      sleep 0.5
    done
  fi
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    [ -f "$tmp/$f" ] && pids+=("$(cat "$tmp/$f")")
  done
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$p" 2> /dev/null || break
      sleep 0.1
    done
    kill -0 "$p" 2> /dev/null && kill -9 "$p" 2> /dev/null
  done
  if [ "$fails" = 0 ] && [ "${KEEP:-0}" != 1 ]; then
    rm -rf "$tmp"
  else
    echo "files kept in $tmp"
  fi
}
trap cleanup EXIT

# --- the cluster --------------------------------------------------------------------------------
host=$(hostname -s)
cpus=$(getconf _NPROCESSORS_ONLN)  # not nproc: it follows OMP_NUM_THREADS, which jobs/env.sh sets to 1
port=$((20000 + RANDOM % 20000))
mungekey -c -k "$tmp/munge/munge.key" || { echo "FAIL: mungekey"; exit 1; }
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" \
  --seed-file="$tmp/munge/munged.seed" || { echo "FAIL: munged does not start"; exit 1; }
# cred_expire: a requeued job may start this many seconds after its requeue (default 120).
cat > "$SLURM_CONF" << EOF
ClusterName=lsgltest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket,cred_expire=10
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmix
ReturnToService=2
SlurmdTimeout=60
SlurmctldTimeout=60
InactiveLimit=0
KillWait=10
MinJobAge=600
MailProg=/bin/true
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -c -f "$SLURM_CONF" || { echo "FAIL: slurmctld does not start"; exit 1; }
slurmd -f "$SLURM_CONF" || { echo "FAIL: slurmd does not start"; exit 1; }
state=
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2> /dev/null)
  [ "$state" = idle ] && break
  sleep 1
done
if [ "$state" != idle ]; then
  echo "FAIL: the node is not idle after 60 s (state '$state')"
  tail -20 "$tmp/log/slurmctld.log" "$tmp/log/slurmd.log"
  exit 1
fi
echo "cluster up: $(sinfo -h -o '%P %D %c %T %N') ($(elapsed) s)"

# --- helpers ------------------------------------------------------------------------------------
# wait_jobs TIMEOUT ID...: until none of the jobs is in the queue (requeued ones stay in it).
wait_jobs() {
  local timeout=$1 t=0
  shift
  while [ -n "$(squeue -h -j "$(IFS=,; echo "$*")" 2> /dev/null)" ]; do
    if [ "$t" -ge "$timeout" ]; then
      echo "jobs $* still queued after $timeout s:"
      squeue
      return 1
    fi
    sleep 1
    t=$((t + 1))
  done
}
# last_exit LOG: the code of its last "lsgl-job: exit code N" line.
last_exit() { sed -n 's/^lsgl-job: exit code //p' "$1" | tail -1; }

source "$root/jobs/env.sh"
export LSGL_ROOT=$root LSGL=$lsgl
cd "$work" || exit 1
"$lsgl" generate --kind blobs --n 3000 --d 10 --clusters 10 --seed 5 --output small.h5 > /dev/null ||
  { echo "FAIL: lsgl generate"; exit 1; }
cat > sweep.csv << EOF
# test sweep: one task per row
k,model,r,seed
4,log,3,1
6,log,2,2
8,log,3,3
EOF
printf 'k,model,r\n5,log,3\n5,magic,3\n' > sweep-bad.csv

# --- one learning job, a 3-task array and the signal test, submitted together ------------------
learn=$(sbatch --parsable --ntasks=2 --cpus-per-task=1 "$root/jobs/learn.sbatch" \
  --input small.h5 --k 5 --ann exact --quiet) || { echo "FAIL: sbatch learn.sbatch"; exit 1; }
sweep=$(sbatch --parsable --array=0-2 --ntasks=1 "$root/jobs/sweep.sbatch" sweep.csv \
  --input small.h5 --ann exact --quiet) || { echo "FAIL: sbatch sweep.sbatch"; exit 1; }
bad=$(sbatch --parsable --array=1 --ntasks=1 "$root/jobs/sweep.sbatch" sweep-bad.csv \
  --input small.h5 --ann exact --quiet) || { echo "FAIL: sbatch sweep.sbatch (failing task)"; exit 1; }
# --degree-tol 0: an exact resume of the solver (a resume during the degree correction continues
# it from the checkpoint's theta and need not match the uninterrupted run bit for bit). The
# iteration count keeps the run going for some seconds (fdpg: about 0.05 ms per iteration on
# this set), so that the signal arrives while it iterates.
sig_iter=100000
sig_args=(--input small.h5 --k 5 --ann exact --tol 1e-300 --max-iter "$sig_iter"
          --progress-every 100 --degree-tol 0)
sig=$(sbatch --parsable --ntasks=2 "$root/jobs/learn.sbatch" "${sig_args[@]}") ||
  { echo "FAIL: sbatch the signal job"; exit 1; }
echo "submitted learn $learn, sweep $sweep (3 tasks), failing task $bad, signal test $sig"

# The signal: SIGUSR1 to the batch shell (as --signal=B:USR1@120 does) after the first progress
# line, then the job requeues itself and resumes from its checkpoint.
log=lsgl-learn-$sig.log
for _ in $(seq 600); do
  grep -q "^  iteration" "$log" 2> /dev/null && break
  sleep 0.2
done
if grep -q "^  iteration" "$log" 2> /dev/null; then
  scancel --batch --signal=USR1 "$sig"
  echo "sent SIGUSR1 to job $sig ($(elapsed) s)"
else
  fail "signal job $sig did not start iterating within 120 s"
fi

# Meanwhile, the uninterrupted reference run with the same options (outside SLURM).
mpirun -n 2 "$lsgl" learn "${sig_args[@]}" --quiet --output reference.h5 > reference.log 2>&1 ||
  fail "reference run: $(cat reference.log)"

wait_jobs 240 "$learn" "$sweep" "$bad" "$sig" || fail "jobs did not end in time"
echo "jobs done ($(elapsed) s)"

# --- checks -------------------------------------------------------------------------------------
out=lsgl-learn-$learn.h5
if [ "$(last_exit "lsgl-learn-$learn.log")" = 0 ] && [ -f "$out" ]; then
  pass "learn.sbatch: exit code 0, $out"
else
  fail "learn.sbatch: $(cat "lsgl-learn-$learn.log")"
fi
if "$py" - "$out" << 'EOF'; then pass "learn.sbatch: 2 ranks from --ntasks, threads from --cpus-per-task, configuration stored"; else fail "learn.sbatch output attributes"; fi
import sys, h5py
f = h5py.File(sys.argv[1], "r")
g = f["graph"].attrs
conf = f.attrs["configuration"]
conf = conf.decode() if isinstance(conf, bytes) else conf
assert f.attrs["ranks"] == 2, f.attrs["ranks"]
assert g["n"] == 3000 and 4 < g["avg_degree"] < 6 and g["converged"] == 1, dict(g)
assert "threads = 1" in conf and f"output = {sys.argv[1]}" in conf, conf
EOF
[ ! -e "$out.ckpt" ] && pass "learn.sbatch: its checkpoint removed after success" ||
  fail "learn.sbatch: checkpoint left behind"

for i in 0 1 2; do
  l=sweep-$sweep-$i.log
  if [ "$(last_exit "$l")" = 0 ] && [ -f "sweep-$sweep-$i.h5" ]; then
    pass "sweep task $i: exit code 0, sweep-$sweep-$i.h5"
  else
    fail "sweep task $i: $(cat "$l" 2> /dev/null)"
  fi
done
"$lsgl" collect --table sweep.csv --outputs "sweep-$sweep-*.h5" --logs "sweep-$sweep-*.log" \
  --csv collected.csv
rc=$?
[ "$rc" = 0 ] && pass "lsgl collect: exit code 0" || fail "lsgl collect: exit code $rc"
if "$py" - collected.csv << 'EOF'; then pass "collected CSV: 3 rows, all ok, k and r of each row"; else fail "collected CSV: $(cat collected.csv)"; fi
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3, len(rows)
for i, (row, k, r, seed) in enumerate(zip(rows, (4, 6, 8), (3, 2, 3), (1, 2, 3))):
    assert row["task"] == str(i) and row["status"] == "ok" and row["exit_code"] == "0", row
    assert row["sweep.model"] == "log" and row["model"] == "log", row
    assert int(row["k_requested"]) == k and float(row["r"]) == r, row
    assert row["config.seed"] == str(seed) and row["config.k"] == str(k), row
    assert k - 1 < float(row["avg_degree"]) < k + 1 and row["converged"] == "1", row
EOF
"$lsgl" collect --outputs "sweep-$sweep-*.h5" --logs "sweep-$sweep-*.log" --expect 4 \
  --csv expect4.csv > expect4.out
rc=$?
if [ "$rc" = 2 ] && grep -q "^3,missing," expect4.csv && grep -q "task 3: missing" expect4.out; then
  pass "lsgl collect --expect 4: task 3 listed as missing, exit code 2"
else
  fail "lsgl collect --expect 4: rc=$rc $(cat expect4.out expect4.csv)"
fi

"$lsgl" collect --table sweep-bad.csv --outputs "sweep-$bad-*.h5" --logs "sweep-$bad-*.log" \
  --csv bad.csv > bad.out
rc=$?
if [ "$rc" = 2 ] && grep -q "^0,missing," bad.csv && grep -q "^1,failed,1,.*unknown --model 'magic'" bad.csv &&
   grep -q "task 1: failed (exit code 1)" bad.out; then
  pass "lsgl collect: a failed task (unknown model) and a task never run listed, exit code 2"
else
  fail "lsgl collect of the failing sweep: rc=$rc $(cat bad.out bad.csv)"
fi

log=lsgl-learn-$sig.log
at=$(sed -n 's/.*checkpoint written at iteration \([0-9]*\).*/\1/p' "$log" | head -1)
if grep -q "lsgl-job: SIGUSR1" "$log" && grep -q "^lsgl-job: exit code 75" "$log" &&
   grep -q "requeueing job $sig" "$log" && grep -q "resuming from checkpoint" "$log" &&
   grep -q "restart 1" "$log" && [ "$(last_exit "$log")" = 0 ] && [ -n "$at" ] &&
   [ "$at" -lt "$sig_iter" ]; then
  pass "SIGUSR1: checkpoint at iteration $at of $sig_iter, exit 75, requeued, resumed, exit code 0"
else
  fail "SIGUSR1 test log: $(cat "$log")"
fi
if "$py" - "lsgl-learn-$sig.h5" reference.h5 "$sig_iter" << 'EOF'; then pass "resumed run matches the uninterrupted run (relative L1 < 1e-10)"; else fail "resumed run differs from the uninterrupted run"; fi
import sys, h5py, numpy as np
def load(p):
    g = h5py.File(p, "r")["graph"]
    return g["indptr"][:], g["indices"][:], g["data"][:], dict(g.attrs)
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a[3]["iterations"] == b[3]["iterations"] == int(sys.argv[3]), (a[3]["iterations"], b[3]["iterations"])
assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), "different sparsity patterns"
rel = np.abs(a[2] - b[2]).sum() / np.abs(b[2]).sum()
print(f"  relative L1 difference {rel:.3g}")
assert rel < 1e-10, rel
EOF

echo "$fails failed, $(elapsed) s"
[ "$fails" = 0 ]
