// The engine behind `--ann auto`: the exact voronoi engine where its cells prune the search,
// hnsw where they do not.
//
// The voronoi engine is built first (k-means within the rank and a grouped copy of the rows, a
// small part of its cost) and searches a sample of the rank's own rows, evenly spaced in the
// block. Its cost per query, in rows compared, is the sample's mean on its own rank times the
// indexes a query visits (1 plus the route's extra ranks for the sample, given their m-th
// distances); means over all ranks' samples. Measured on the benchmark sets (2 ranks, partition
// route): 1,000,000 x 68, 15 neighbours: 4,900 rows x 1.13 indexes = 5,600, where voronoi took
// 0.20x the time of hnsw; Fashion-MNIST 60,000 x 784, 30 neighbours: 21,000 rows x 1.87 indexes
// = 39,000 (the cell bound is weak in 784 dimensions), 1.50x. With voronoi's time proportional
// to the rows it compares, both put the break-even near 27,000 rows per query; above
// AnnParams::auto_rows_per_query (20,000) the voronoi engine is freed and hnsw is built. The
// counts do not depend on timing, so the choice is the same in every run with the same input,
// seed and number of ranks.
#include <algorithm>
#include <limits>

#include "engines.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::ann {
namespace {

constexpr std::int64_t kAutoSample = 128;  // own rows searched per rank to measure the cost

}  // namespace

std::unique_ptr<Engine> build_engine(MPI_Comm comm, const AnnParams& p, const float* base,
                                     std::int64_t rows, std::int64_t d, int m, int own_ef,
                                     const ExtraRanks& extra_ranks, SearchReport& report) {
  std::unique_ptr<Engine> engine;
  if (p.engine != AnnEngine::kAuto) {
    report.engine = p.engine;
    collectively(comm, [&] {
      if (rows > 0) engine = make_engine(p, base, rows, d, m, own_ef);
    });
    return engine;
  }
  AnnParams voronoi = p;
  voronoi.engine = AnnEngine::kVoronoi;
  double probe[3] = {0, 0, 0};  // rows compared, queries, extra ranks visited
  collectively(comm, [&] {
    if (rows == 0) return;
    std::unique_ptr<CountingEngine> probed = make_voronoi_engine(voronoi, base, rows, d);
    const std::int64_t nq = std::min(rows, kAutoSample);
    std::vector<std::int64_t> sampled(static_cast<std::size_t>(nq));
    std::vector<float> queries(static_cast<std::size_t>(nq * d));
    for (std::int64_t i = 0; i < nq; ++i) {
      sampled[i] = i * rows / nq;
      std::copy(base + sampled[i] * d, base + (sampled[i] + 1) * d, queries.begin() + i * d);
    }
    // m + 1: the query itself comes back first.
    const int k = static_cast<int>(std::min<std::int64_t>(m + 1, rows));
    std::vector<std::int64_t> found(static_cast<std::size_t>(nq * k));
    probe[0] = static_cast<double>(probed->search_counted(queries.data(), nq, k, found.data()));
    engine = std::move(probed);
    probe[1] = static_cast<double>(nq);
    // The m-th distance; with fewer than m + 1 rows every rank can hold a neighbour.
    std::vector<double> radius2(static_cast<std::size_t>(nq),
                                std::numeric_limits<double>::infinity());
    for (std::int64_t i = 0; i < nq && k == m + 1; ++i) {
      radius2[i] = squared_distance(queries.data() + i * d, base + found[i * k + k - 1] * d, d);
    }
    probe[2] = static_cast<double>(extra_ranks(sampled, radius2));
  });
  double total[3] = {0, 0, 0};
  MPI_Allreduce(probe, total, 3, MPI_DOUBLE, MPI_SUM, comm);
  report.auto_rows_per_query =
      total[1] > 0 ? total[0] / total[1] * (1.0 + total[2] / total[1]) : 0.0;
  report.auto_rows_limit = p.auto_rows_per_query;
  if (report.auto_rows_per_query <= p.auto_rows_per_query) {
    report.engine = AnnEngine::kVoronoi;
    return engine;
  }
  engine.reset();
  report.engine = AnnEngine::kHnsw;
  AnnParams hnsw = p;
  hnsw.engine = AnnEngine::kHnsw;
  collectively(comm, [&] {
    if (rows > 0) engine = make_engine(hnsw, base, rows, d, m, own_ef);
  });
  return engine;
}

}  // namespace lsgl::ann
