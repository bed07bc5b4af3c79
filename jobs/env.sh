# Sourced by the job scripts: lets Open MPI run as root and with more ranks than cores (a
# workstation or CI container); harmless elsewhere.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# One BLAS thread per rank: ranks already fill the cores.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# OpenBLAS picks its kernels from the CPU model; on virtual machines that report a generic
# "Intel Xeon Processor" it falls back to the SSE3 (Prescott) kernels, 3-6x slower (measured
# here: DGEMM 17 GFLOP/s vs 108 with the SkylakeX kernels). Choose from the CPU flags instead.
if [ -z "${OPENBLAS_CORETYPE:-}" ] && [ -r /proc/cpuinfo ]; then
  if grep -q -m1 -w avx512f /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=SkylakeX
  elif grep -q -m1 -w avx2 /proc/cpuinfo; then
    export OPENBLAS_CORETYPE=Haswell
  fi
fi
