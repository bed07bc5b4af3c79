// Candidate neighbours: the distance, the settings line, the checks, and the choice of search
// (projected.cpp, ring.cpp, partition_route.cpp).
//
// Engine results are only proposals: each kept neighbour's distance is recomputed with
// squared_distance and lists are ordered by (dist, global index). Merging is exact under that
// order, so the exact engine gives the true m-NN on any number of ranks.
#include "lsgl/ann/candidates.hpp"

#include <ctime>
#include <sstream>
#include <string>
#include <utility>

#include "routes.hpp"
#include "lsgl/io/float_range.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/threads.hpp"

namespace lsgl {

double squared_distance(const float* a, const float* b, std::int64_t d) {
  // kLanes independent partial sums (the compiler keeps them in vector registers) combined
  // pairwise in a fixed order; (a_i - b_i)^2 is exact in double and symmetric, so the result is
  // the same for (a, b) and (b, a).
  constexpr int kLanes = 16;
  double s[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= d; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const double t = static_cast<double>(a[i + l]) - static_cast<double>(b[i + l]);
      s[l] += t * t;
    }
  }
  for (; i < d; ++i) {
    const double t = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    s[0] += t * t;
  }
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) s[l] += s[l + w];
  }
  return s[0];
}

std::string SearchReport::route_name() const {
  return source == CandidateSource::kSearch ? to_string(route) : to_string(source);
}

std::string SearchReport::engine_name() const {
  return source == CandidateSource::kSearch ? to_string(engine) : to_string(source);
}

bool SearchReport::exact(std::int64_t n) const {
  if (source != CandidateSource::kSearch) return false;
  return exact_engine(engine) || (engine == AnnEngine::kProjected && certified_rows == n);
}

std::string AnnParams::describe() const {
  std::ostringstream out;
  if (engine == AnnEngine::kHnsw) {
    out << "hnsw M=" << hnsw_m << " ef_construction=" << hnsw_ef_construction << " ef=" << hnsw_ef
        << " threads=" << threads;
  } else if (engine == AnnEngine::kFlann) {
    out << "flann kdtree trees=" << flann_trees << " checks=" << flann_checks
        << " threads=" << threads;
  } else if (engine == AnnEngine::kVoronoi) {
    out << "voronoi cell_rows=" << cell_rows << " threads=" << threads;
  } else if (engine == AnnEngine::kProjected) {
    out << "projected dims=" << (project_dims > 0 ? std::to_string(project_dims) : "auto")
        << " shortlist=" << (shortlist > 0 ? std::to_string(shortlist) : "auto")
        << (certify ? " certified" : "") << " threads=" << threads;
  } else if (engine == AnnEngine::kAuto) {
    out << "auto rows=" << auto_rows_per_query << ": projected dims="
        << (project_dims > 0 ? std::to_string(project_dims) : "auto")
        << " shortlist=" << (shortlist > 0 ? std::to_string(shortlist) : "auto")
        << (certify ? " certified" : "") << ", voronoi cell_rows=" << cell_rows
        << (certify ? "" : " or hnsw M=" + std::to_string(hnsw_m) + " ef_construction=" +
                               std::to_string(hnsw_ef_construction) +
                               " ef=" + std::to_string(hnsw_ef))
        << " threads=" << threads;
  } else {
    out << to_string(engine);
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
  const bool projects = p.engine == AnnEngine::kProjected || p.engine == AnnEngine::kAuto;
  collective_check(comm, projects || (p.project_dims == 0 && p.shortlist == 0),
                   "candidates: --ann-dims and --ann-shortlist belong to --ann projected or auto");
  collective_check(comm,
                   projects || p.engine == AnnEngine::kVoronoi || p.engine == AnnEngine::kExact ||
                       !p.certify,
                   "candidates: --ann-certify needs an exact search: --ann projected, auto, "
                   "voronoi or exact");
  collective_check(comm, p.project_dims >= 0 && p.project_dims <= data.d,
                   "candidates: --ann-dims must be between 1 and the data's " +
                       std::to_string(data.d) + " dimensions (got " +
                       std::to_string(p.project_dims) + ")");
  collective_check(comm, p.shortlist == 0 || p.shortlist >= m,
                   "candidates: --ann-shortlist must be at least the " + std::to_string(m) +
                       " candidates per node (got " + std::to_string(p.shortlist) + ")");
  if (p.engine == AnnEngine::kFlann) {
    collective_check(comm, p.flann_trees > 0 && p.flann_checks > 0,
                     "candidates: flann trees and checks must be positive");
  } else if (p.engine == AnnEngine::kHnsw || p.engine == AnnEngine::kAuto) {
    collective_check(comm, p.hnsw_m > 1 && p.hnsw_ef_construction > 0 && p.hnsw_ef > 0,
                     "candidates: need hnsw M > 1, ef_construction > 0 and ef > 0");
  }
}

}  // namespace

Candidates find_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  validate(comm, data, m, p);
  if (p.threads > 1) check_threads_fit(comm, p.threads, *p.monitor);
  const double cpu0 = process_cpu_seconds();
  Candidates c;
  ann::ProjectedPlan plan;
  const bool tried = p.engine == AnnEngine::kProjected ||
                     (p.engine == AnnEngine::kAuto && data.d > ann::kProjectFirstDims);
  if (tried) plan = ann::plan_projected(comm, data, m, p);
  // auto keeps the projection where it reaches the recall target in at most half the dimensions
  if (tried && (p.engine == AnnEngine::kProjected || (plan.reached && 2 * plan.dims <= data.d))) {
    c = ann::projected_candidates(comm, data, m, p, std::move(plan));
  } else {
    AnnParams q = p;
    if (q.engine == AnnEngine::kAuto && q.certify) q.engine = AnnEngine::kVoronoi;  // exact
    c = q.route == AnnRoute::kRing ? ann::ring_candidates(comm, data, m, q)
                                   : ann::partition_candidates(comm, data, m, q);
    if (tried) ann::report_plan(plan, c.report);  // auto tried the projection: say why not kept
  }
  const double cpu = process_cpu_seconds() - cpu0;
  MPI_Allreduce(&cpu, &c.report.cpu_seconds, 1, MPI_DOUBLE, MPI_SUM, comm);
  c.report.seconds_projection = allreduce_max_double(comm, c.report.seconds_projection);
  return c;
}

}  // namespace lsgl
