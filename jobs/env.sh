# Sourced by the job scripts: lets Open MPI run as root and with more ranks than cores (a
# workstation or CI container); harmless elsewhere.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# One BLAS thread per rank: ranks already fill the cores.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
