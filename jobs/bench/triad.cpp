// STREAM-like triad a = b + s*c on every rank at once; prints the aggregate bandwidth (24 bytes
// per element, STREAM's convention) as the baseline for the learning iteration's bandwidth.
// usage: mpirun -n P lsgl_triad [MB per array, default 256]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long mb = argc > 1 ? std::atol(argv[1]) : 256;
  const std::size_t n = static_cast<std::size_t>(mb) * (1 << 20) / sizeof(double);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  double best = 1e30;
  for (int rep = 0; rep < 10; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    const double s = 3.0 + rep;
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
    MPI_Barrier(MPI_COMM_WORLD);
    best = std::min(best, MPI_Wtime() - t0);
  }
  double check = a[n / 2];
  MPI_Allreduce(MPI_IN_PLACE, &check, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("triad_bandwidth_GBps %.3f  (ranks %d, %ld MB per array, check %.1f)\n",
                24.0 * n * size / best / 1e9, size, mb, check);
  MPI_Finalize();
  return 0;
}
