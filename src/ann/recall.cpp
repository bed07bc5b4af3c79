// Recall of candidate lists against brute force on a sample of nodes.
//
// The sampled rows are gathered on every rank; each rank ranks its own rows for every sample
// with one SGEMM per chunk (|a|^2 + |b|^2 - 2ab in float), keeps the best 2m by that estimate,
// recomputes those with squared_distance and keeps m. An allreduce with a list-merging operator
// gives every rank the exact m-NN of every sample; the owners of the samples count the hits.
#include <cblas.h>

#include <algorithm>
#include <limits>

#include "engines.hpp"
#include "lsgl/ann/candidates.hpp"
#include "lsgl/io/float_range.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"
#include "lsgl/util/threads.hpp"

namespace lsgl {
namespace ann {
namespace {

constexpr std::int64_t kRowChunk = 2048;  // local rows per SGEMM

// MPI reduction over lists of m neighbours (the datatype is one list): keep the best m of both.
void merge_lists(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const std::size_t m = static_cast<std::size_t>(bytes) / sizeof(Neighbor);
  const auto* a = static_cast<const Neighbor*>(in);
  auto* b = static_cast<Neighbor*>(inout);
  std::vector<Neighbor> merged(2 * m);
  for (int l = 0; l < *len; ++l, a += m, b += m) {
    std::merge(a, a + m, b, b + m, merged.begin());
    std::copy(merged.begin(), merged.begin() + static_cast<std::ptrdiff_t>(m), b);
  }
}

// Exact m-NN (self excluded) of each sample among the local rows, sorted, padded with
// (inf, -1): samples x m.
std::vector<Neighbor> local_exact(const LocalRows& data, const std::vector<std::int64_t>& ids,
                                  const std::vector<float>& q, int m, int threads) {
  const std::int64_t d = data.d, rows = data.local_rows();
  const std::int64_t s_count = static_cast<std::int64_t>(ids.size());
  const std::size_t keep = 2 * static_cast<std::size_t>(m);  // margin for float rounding
  std::vector<float> qn(ids.size()), xn(kRowChunk), g(ids.size() * kRowChunk);
  for (std::int64_t s = 0; s < s_count; ++s) {
    qn[s] = cblas_sdot(static_cast<int>(d), q.data() + s * d, 1, q.data() + s * d, 1);
  }
  std::vector<std::vector<Neighbor>> heaps(ids.size());
  for (std::int64_t c0 = 0; c0 < rows; c0 += kRowChunk) {
    const std::int64_t nc = std::min(kRowChunk, rows - c0);
    const float* x = data.row(c0);
    for (std::int64_t j = 0; j < nc; ++j) {
      xn[j] = cblas_sdot(static_cast<int>(d), x + j * d, 1, x + j * d, 1);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(s_count),
                static_cast<int>(nc), static_cast<int>(d), 1.0f, q.data(), static_cast<int>(d), x,
                static_cast<int>(d), 0.0f, g.data(), static_cast<int>(nc));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t s = 0; s < s_count; ++s) {
      auto& heap = heaps[s];
      for (std::int64_t j = 0; j < nc; ++j) {
        const Neighbor c{qn[s] + xn[j] - 2.0 * g[s * nc + j], data.begin + c0 + j};
        if (c.idx == ids[s]) continue;
        if (heap.size() < keep) {
          heap.push_back(c);
          std::push_heap(heap.begin(), heap.end());
        } else if (c < heap.front()) {
          std::pop_heap(heap.begin(), heap.end());
          heap.back() = c;
          std::push_heap(heap.begin(), heap.end());
        }
      }
    }
  }
  const Neighbor none{std::numeric_limits<double>::infinity(), -1};
  std::vector<Neighbor> lists(ids.size() * static_cast<std::size_t>(m), none);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t s = 0; s < s_count; ++s) {
    auto& heap = heaps[s];
    for (auto& c : heap)
      c.dist = squared_distance(q.data() + s * d, data.row(c.idx - data.begin), d);
    std::sort(heap.begin(), heap.end());
    const std::size_t n = std::min(heap.size(), static_cast<std::size_t>(m));
    std::copy(heap.begin(), heap.begin() + static_cast<std::ptrdiff_t>(n), lists.begin() + s * m);
  }
  return lists;
}

}  // namespace

void allreduce_lists(MPI_Comm comm, std::vector<Neighbor>& lists, int m) {
  const int count = static_cast<int>(lists.size() / static_cast<std::size_t>(m));
  MPI_Datatype list_type;
  MPI_Op op;
  MPI_Op_create(&merge_lists, 1, &op);
  MPI_Type_contiguous(m * static_cast<int>(sizeof(Neighbor)), MPI_BYTE, &list_type);
  MPI_Type_commit(&list_type);
  MPI_Allreduce(MPI_IN_PLACE, lists.data(), count, list_type, op, comm);
  MPI_Type_free(&list_type);
  MPI_Op_free(&op);
}

std::vector<float> gather_rows(MPI_Comm comm, const LocalRows& data,
                               const std::vector<std::int64_t>& all_ids,
                               std::vector<std::int64_t>& ids) {
  const auto lo = std::lower_bound(all_ids.begin(), all_ids.end(), data.begin);
  const auto hi = std::lower_bound(lo, all_ids.end(), data.begin + data.local_rows());
  std::vector<float> mine;
  for (auto it = lo; it != hi; ++it) {
    const float* r = data.row(*it - data.begin);
    mine.insert(mine.end(), r, r + data.d);
  }
  ids = allgather_items(comm, std::vector<std::int64_t>(lo, hi));
  return allgather_items(comm, mine);
}

std::vector<Neighbor> exact_neighbours(MPI_Comm comm, const LocalRows& data,
                                       const std::vector<std::int64_t>& ids,
                                       const std::vector<float>& q, int m, int threads) {
  const auto scope = ThreadScope::blas(threads);
  std::vector<Neighbor> exact = local_exact(data, ids, q, m, threads);
  allreduce_lists(comm, exact, m);
  return exact;
}

}  // namespace ann

using ann::Neighbor;

double estimate_recall(MPI_Comm comm, const LocalRows& data, const Candidates& cand, int sample,
                       std::uint64_t seed, int threads) {
  if (sample <= 0) return -1.0;
  const int m = cand.m;
  const std::int64_t rows = data.local_rows();
  collective_check(
      comm,
      m > 0 && m < data.n && threads > 0 && cand.begin == data.begin && cand.local_rows() == rows,
      "estimate_recall: candidate lists do not match the data");
  check_single_precision_range(comm, data, "recall estimate");

  // Sampled ids and their rows, gathered on every rank; their exact lists on every rank.
  SplitMix64 rng(seed);
  std::vector<std::int64_t> ids;
  const std::vector<float> q =
      ann::gather_rows(comm, data, sample_distinct(data.n, sample, rng), ids);
  const std::vector<Neighbor> exact = ann::exact_neighbours(comm, data, ids, q, m, threads);

  // A candidate counts when it is an exact neighbour or ties the exact m-th distance (so that
  // duplicates are not misses). Candidate distances are taken as stored by find_candidates.
  std::int64_t hits = 0;
  for (std::size_t s = 0; s < ids.size(); ++s) {
    if (ids[s] < data.begin || ids[s] >= data.begin + rows) continue;
    const Neighbor* e = exact.data() + s * m;
    const double bound = e[m - 1].dist * (1.0 + 1e-6);
    const std::int64_t row = ids[s] - data.begin;
    for (int j = 0; j < m; ++j) {
      const std::int64_t c = cand.idx[row * m + j];
      const bool listed = std::any_of(e, e + m, [c](const Neighbor& x) { return x.idx == c; });
      if (listed || cand.dist[row * m + j] <= bound) ++hits;
    }
  }
  return static_cast<double>(allreduce_sum(comm, hits)) / (static_cast<double>(ids.size()) * m);
}

}  // namespace lsgl
