# shellcheck shell=bash
# Site set-up for jobs/learn.sbatch and jobs/sweep.sbatch: edit this file for your cluster.
# It is sourced (bash) at the start of every job, before lsgl runs, on a cluster and on a
# workstation alike. Keep it small: modules, paths, and how to launch MPI.

# 1. Modules providing the MPI, PETSc and HDF5 that lsgl was built with, e.g.:
# module purge
# module load gcc/12 openmpi/4.1 petsc/3.18 hdf5/1.10-openmpi

# 2. Where the lsgl executable is (default: build/lsgl of this repository).
# export LSGL=$HOME/lsgl/build/lsgl

# 3. How ranks are started inside a SLURM job. Default: srun with the site's default MPI plugin
#    (MpiDefault in slurm.conf). If plain srun cannot start MPI programs on your cluster, name the
#    plugin ('srun --mpi=list' shows them) or use mpirun inside the allocation instead:
# export LSGL_SRUN_FLAGS="--mpi=pmix"
# export LSGL_LAUNCHER=mpirun

# 4. Outside SLURM (a workstation): ranks for mpirun (default 2) and extra mpirun flags.
# export RANKS=4
# export LSGL_MPIRUN_FLAGS="--bind-to core"
