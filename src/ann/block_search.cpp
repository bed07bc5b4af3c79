// The block search shared by the ring and the partition route: engine proposals become exact,
// ordered lists (every distance recomputed with squared_distance, ties broken by global index).
#include <mpi.h>

#include <algorithm>
#include <string>

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

Candidates to_candidates(std::int64_t begin, int m, const std::vector<Neighbor>& lists) {
  Candidates c;
  c.begin = begin;
  c.m = m;
  c.idx.resize(lists.size());
  c.dist.resize(lists.size());
  for (std::size_t i = 0; i < lists.size(); ++i) {
    c.idx[i] = lists[i].idx;
    c.dist[i] = lists[i].dist;
  }
  return c;
}

void stage_line(Monitor& monitor, const char* what) {
  monitor.message(MessageKind::kInfo, std::string("[candidates] ") + what);
}

void merge_into(Neighbor* list, std::int64_t* where, int m, const Neighbor* add,
                const std::int64_t* add_where, std::int64_t n,
                std::vector<std::pair<Neighbor, std::int64_t>>& scratch) {
  scratch.clear();
  std::int64_t i = 0, j = 0;
  while (static_cast<int>(scratch.size()) < m && (i < m || j < n)) {
    if (j >= n || (i < m && !(add[j] < list[i]))) {
      scratch.emplace_back(list[i], where ? where[i] : -1);
      ++i;
    } else {
      scratch.emplace_back(add[j], add_where ? add_where[j] : -1);
      ++j;
    }
  }
  for (std::size_t t = 0; t < scratch.size(); ++t) {
    list[t] = scratch[t].first;
    if (where) where[t] = scratch[t].second;
  }
}

namespace {

// Positions in q (0 .. q.rows - 1) of the own queries in the engine's own_order(), or empty
// (row order): an engine that groups its work by cell then sees whole cells in one chunk instead
// of kQueryChunk rows spread over every cell (at 5e6 rows per rank, 27 queries per cell).
std::vector<std::int64_t> own_positions(const Engine& engine, const Queries& q) {
  std::vector<std::int64_t> pos;
  const std::vector<std::int64_t>* order = engine.own_order();
  if (q.own_first < 0 || !order) return pos;
  pos.reserve(static_cast<std::size_t>(q.rows));
  for (const std::int64_t l : *order)
    if (l >= q.own_first && l < q.own_first + q.rows) pos.push_back(l - q.own_first);
  return pos;
}

}  // namespace

void search_block(const Engine& engine, const RowBlock& block, const Queries& q, int m,
                  int threads, Neighbor* lists, std::int64_t* where, Progress* progress) {
  const std::int64_t rows = block.rows, d = block.d;
  const bool own = q.own_first >= 0, leave_out = own || q.exclude;
  // Ask for one more where the query itself may come back.
  const int k = static_cast<int>(std::min<std::int64_t>(m + (leave_out ? 1 : 0), rows));
  const std::size_t wanted =
      static_cast<std::size_t>(std::min<std::int64_t>(m, rows - (leave_out ? 1 : 0)));
  const bool within = q.bound && engine.exact_within();
  std::vector<std::int64_t> found, own_rows;
  const std::vector<std::int64_t> order = own_positions(engine, q);
  for (std::int64_t c0 = 0; c0 < q.rows; c0 += kQueryChunk) {
    const std::int64_t nc = std::min(kQueryChunk, q.rows - c0);
    // Query i of the chunk is the query at position pos[i] of q.
    const std::int64_t* pos = order.empty() ? nullptr : order.data() + c0;
    found.resize(static_cast<std::size_t>(nc * k));
    if (own && pos) {
      own_rows.resize(static_cast<std::size_t>(nc));
      for (std::int64_t i = 0; i < nc; ++i) own_rows[i] = q.own_first + pos[i];
      engine.search_own_rows(own_rows.data(), nc, k, found.data());
    } else if (own) {
      engine.search_own(q.own_first + c0, nc, k, found.data());
    } else if (q.bound) {
      engine.search_within(q.x + c0 * d, nc, k, q.bound + c0, found.data());
    } else {
      engine.search(q.x + c0 * d, nc, k, found.data());
    }
#pragma omp parallel num_threads(threads)
    {
      std::vector<Neighbor> mine, scratch;
      std::vector<std::int64_t> mine_where;
      std::vector<std::pair<Neighbor, std::int64_t>> merged;
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < nc; ++i) {
        const std::int64_t at = pos ? pos[i] : c0 + i;
        const std::int64_t self =
            own ? block.id(q.own_first + at) : q.exclude ? q.exclude[at] : -1;
        const float* qv = own ? block.row(q.own_first + at) : q.x + at * d;
        std::int64_t* rows_found = found.data() + i * k;
        const auto collect = [&] {
          mine.clear();
          for (int j = 0; j < k; ++j) {
            const std::int64_t l = rows_found[j];
            if (l >= 0 && block.id(l) != self) {
              mine.push_back({squared_distance(qv, block.row(l), d), l});
            }
          }
        };
        collect();
        if (mine.size() < wanted && !within) {
          // the engine came up short: brute force this query
          exact_knn(qv, block.x, rows, d, k, -1, scratch, rows_found);
          collect();
        }
        std::sort(mine.begin(), mine.end(), [&](const Neighbor& a, const Neighbor& b) {
          return a.dist < b.dist || (a.dist == b.dist && block.id(a.idx) < block.id(b.idx));
        });
        mine_where.clear();
        for (Neighbor& nb : mine) {
          if (where) mine_where.push_back(where_of(block.rank, nb.idx));
          nb.idx = block.id(nb.idx);
        }
        merge_into(lists + at * m, where ? where + at * m : nullptr, m, mine.data(),
                   where ? mine_where.data() : nullptr, static_cast<std::int64_t>(mine.size()),
                   merged);
      }
    }
    if (progress) progress->add(nc);
  }
}

}  // namespace lsgl::ann
