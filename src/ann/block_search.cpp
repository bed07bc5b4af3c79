// The block search shared by the ring and the partition route: engine proposals become exact,
// ordered lists (every distance recomputed with squared_distance, ties broken by global index).
#include <mpi.h>

#include <algorithm>

#include "engines.hpp"

namespace lsgl::ann {
namespace {
constexpr std::int64_t kQueryChunk = 65536;  // queries handed to an engine at once
}  // namespace

std::unique_ptr<Engine> make_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                    std::int64_t d, int m, int own_ef) {
  if (p.engine == AnnEngine::kFlann) return make_flann_engine(p, base, rows, d);
  if (p.engine == AnnEngine::kHnsw) return make_hnsw_engine(p, base, rows, d, m, own_ef);
  if (p.engine == AnnEngine::kVoronoi) return make_voronoi_engine(p, base, rows, d);
  return make_exact_engine(p, base, rows, d);
}

Progress::Progress(Monitor& monitor, std::int64_t total, const char* what)
    : monitor_(monitor), start_(MPI_Wtime()), total_(total), what_(what) {
  monitor_.progress({"candidates", what_, 0, total_, 0.0});
}

void Progress::add(std::int64_t done) {
  done_ += done;
  monitor_.progress({"candidates", what_, done_, total_, MPI_Wtime() - start_});
}

void search_block(const Engine& engine, const RowBlock& block, const float* qx, std::int64_t qrows,
                  bool own, int m, int threads, Neighbor* lists, Progress* progress,
                  const double* bound) {
  const std::int64_t rows = block.rows, d = block.d;
  // Ask for one more on the own block, where the query itself may come back.
  const int k = static_cast<int>(std::min<std::int64_t>(m + (own ? 1 : 0), rows));
  const std::size_t wanted =
      static_cast<std::size_t>(std::min<std::int64_t>(m, rows - (own ? 1 : 0)));
  std::vector<std::int64_t> found;
  for (std::int64_t c0 = 0; c0 < qrows; c0 += kQueryChunk) {
    const std::int64_t nc = std::min(kQueryChunk, qrows - c0);
    found.resize(static_cast<std::size_t>(nc * k));
    if (own) {
      engine.search_own(c0, nc, k, found.data());
    } else if (bound) {
      engine.search_within(qx + c0 * d, nc, k, bound + c0, found.data());
    } else {
      engine.search(qx + c0 * d, nc, k, found.data());
    }
#pragma omp parallel num_threads(threads)
    {
      std::vector<Neighbor> mine, merged, scratch;
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < nc; ++i) {
        const std::int64_t q = c0 + i, self = own ? q : -1;
        const float* qv = qx + q * d;
        std::int64_t* rows_found = found.data() + i * k;
        const auto collect = [&] {
          mine.clear();
          for (int j = 0; j < k; ++j) {
            const std::int64_t l = rows_found[j];
            if (l >= 0 && l != self) {
              mine.push_back({squared_distance(qv, block.row(l), d), block.id(l)});
            }
          }
        };
        collect();
        if (mine.size() < wanted && !(bound && engine.exact_within())) {
          // the engine came up short: brute force this query
          exact_knn(qv, block.x, rows, d, k, self, scratch, rows_found);
          collect();
        }
        std::sort(mine.begin(), mine.end());
        Neighbor* list = lists + q * m;
        merged.resize(static_cast<std::size_t>(m) + mine.size());
        std::merge(list, list + m, mine.begin(), mine.end(), merged.begin());
        std::copy(merged.begin(), merged.begin() + m, list);
      }
    }
    if (progress) progress->add(nc);
  }
}

}  // namespace lsgl::ann
