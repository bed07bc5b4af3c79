// Candidate neighbours: the distance, the settings line, the checks, and the choice of route
// (ring.cpp, routes.cpp).
//
// Engine results are only proposals: each kept neighbour's distance is recomputed with
// squared_distance and lists are ordered by (dist, global index). Merging is exact under that
// order, so the exact engine gives the true m-NN on any number of ranks.
#include "lsgl/ann/candidates.hpp"

#include <ctime>
#include <sstream>

#include "routes.hpp"
#include "lsgl/io/float_range.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/threads.hpp"

namespace lsgl {

double squared_distance(const float* a, const float* b, std::int64_t d) {
  // Four independent partial sums combined in a fixed order; (a_i - b_i)^2 is exact in double
  // and symmetric, so the result is the same for (a, b) and (b, a).
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  std::int64_t i = 0;
  for (; i + 4 <= d; i += 4) {
    for (int l = 0; l < 4; ++l) {
      const double t = static_cast<double>(a[i + l]) - static_cast<double>(b[i + l]);
      s[l] += t * t;
    }
  }
  for (; i < d; ++i) {
    const double t = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    s[0] += t * t;
  }
  return (s[0] + s[1]) + (s[2] + s[3]);
}

std::string AnnParams::describe() const {
  std::ostringstream out;
  if (engine == "hnsw") {
    out << "hnsw M=" << hnsw_m << " ef_construction=" << hnsw_ef_construction << " ef=" << hnsw_ef
        << " threads=" << threads;
  } else if (engine == "flann") {
    out << "flann kdtree trees=" << flann_trees << " checks=" << flann_checks
        << " threads=" << threads;
  } else if (engine == "voronoi") {
    out << "voronoi cell_rows=" << cell_rows << " threads=" << threads;
  } else if (engine == "auto") {
    out << "auto rows=" << auto_rows_per_query << ": voronoi cell_rows=" << cell_rows
        << " or hnsw M=" << hnsw_m
        << " ef_construction=" << hnsw_ef_construction << " ef=" << hnsw_ef
        << " threads=" << threads;
  } else {
    out << engine;
  }
  return out.str();
}

namespace {

// CPU time of this process (all its threads) in seconds.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

void validate(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  collective_check(comm, p.engine == "hnsw" || p.engine == "flann" || p.engine == "voronoi" ||
                             p.engine == "exact" || p.engine == "auto",
                   "candidates: unknown engine '" + p.engine +
                       "' (expected auto, hnsw, flann, voronoi or exact)");
  collective_check(comm, p.route == "partition" || p.route == "ring",
                   "candidates: unknown route '" + p.route + "' (expected partition or ring)");
  collective_check(comm, m > 0, "candidates: m must be positive, got " + std::to_string(m));
  collective_check(comm, m < data.n,
                   "candidates: need more than m points: m = " + std::to_string(m) +
                       ", n = " + std::to_string(data.n));
  collective_check(comm, p.threads > 0, "candidates: threads must be positive");
  // Before any float distance: out of range they overflow (Faiss's k-means aborts) or underflow.
  check_single_precision_range(comm, data, "candidates");
  collective_check(comm, p.cells_per_rank > 0 && p.cells_per_rank <= 4096,
                   "candidates: cells per rank must be in [1, 4096]");
  collective_check(comm, p.cell_rows > 0, "candidates: voronoi cell rows must be positive");
  collective_check(comm, p.auto_rows_per_query > 0,
                   "candidates: the auto engine's rows per query must be positive");
  if (p.engine == "flann") {
    collective_check(comm, p.flann_trees > 0 && p.flann_checks > 0,
                     "candidates: flann trees and checks must be positive");
  } else if (p.engine == "hnsw" || p.engine == "auto") {
    collective_check(comm, p.hnsw_m > 1 && p.hnsw_ef_construction > 0 && p.hnsw_ef > 0,
                     "candidates: need hnsw M > 1, ef_construction > 0 and ef > 0");
  }
}

}  // namespace

Candidates find_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  validate(comm, data, m, p);
  if (p.threads > 1) check_threads_fit(comm, p.threads);
  const double cpu0 = process_cpu_seconds();
  Candidates c = p.route == "ring" ? ann::ring_candidates(comm, data, m, p)
                                   : ann::partition_candidates(comm, data, m, p);
  const double cpu = process_cpu_seconds() - cpu0;
  MPI_Allreduce(&cpu, &c.report.cpu_seconds, 1, MPI_DOUBLE, MPI_SUM, comm);
  return c;
}

}  // namespace lsgl
