// hnswlib HNSW graph (L2 on floats). hnswlib.h defines non-inline functions, so this must stay
// the only file of the program that includes it.
//
// Rows are inserted in an order shuffled by a hash of (seed, row): HNSW assumes a random
// insertion order, and rows sorted along the data (a grid read in grid order, rows regrouped by
// locality) otherwise give a poor graph (measured: 4-NN recall 0.963 instead of 0.99+ on the
// 64 x 64 manifold grid). With threads == 1 the graph is a function of the data and
// AnnParams::seed. An indexed row is searched from its own node of the base layer rather than
// from the top entry point: a greedy descent from the top can end in a far region of data on a
// low-dimensional manifold (far nodes in the lists, a shorter graph diameter), a search that
// starts at the row itself cannot. With threads > 1 insertion is concurrent, the graph depends on
// thread timing, and the approximate lists may differ slightly between runs.
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "engines.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl::ann {
namespace {

class HnswEngine final : public Engine {
 public:
  HnswEngine(const AnnParams& p, const float* base, std::int64_t rows, std::int64_t d, int m,
             int own_ef)
      : Engine(base, d),
        threads_(p.threads),
        ef_(static_cast<std::size_t>(std::max(p.hnsw_ef, m + 1))),
        own_ef_(std::max(ef_, static_cast<std::size_t>(std::max(own_ef, 0)))),
        space_(static_cast<std::size_t>(d)),
        index_(&space_, static_cast<std::size_t>(rows), static_cast<std::size_t>(p.hnsw_m),
               static_cast<std::size_t>(p.hnsw_ef_construction), static_cast<std::size_t>(p.seed)) {
    index_.setEf(ef_);
    const std::vector<std::int64_t> order = shuffled(rows, p.seed);
    if (threads_ == 1) {
      for (std::int64_t i : order) add(base, i);
    } else {
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 64)
      for (std::int64_t t = 0; t < rows; ++t) add(base, order[t]);
    }
  }

  void search(const float* queries, std::int64_t nq, int k, std::int64_t* out) const override {
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 64)
    for (std::int64_t i = 0; i < nq; ++i) {
      auto found = index_.searchKnn(queries + i * d_, static_cast<std::size_t>(k));
      std::int64_t* o = out + i * k;
      std::fill(o, o + k, -1);
      for (int j = 0; !found.empty(); ++j, found.pop()) {
        o[j] = static_cast<std::int64_t>(found.top().second);
      }
    }
  }

  void search_own(std::int64_t first, std::int64_t nq, int k, std::int64_t* out) const override {
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 64)
    for (std::int64_t i = 0; i < nq; ++i) {
      const auto label = static_cast<hnswlib::labeltype>(first + i);
      const hnswlib::tableint self = index_.label_lookup_.at(label);
      auto found = index_.searchBaseLayerST<false>(self, base_ + (first + i) * d_,
                                                   std::max(own_ef_, static_cast<std::size_t>(k)));
      while (found.size() > static_cast<std::size_t>(k)) found.pop();
      std::int64_t* o = out + i * k;
      std::fill(o, o + k, -1);
      for (int j = 0; !found.empty(); ++j, found.pop()) {
        o[j] = static_cast<std::int64_t>(index_.getExternalLabel(found.top().second));
      }
    }
  }

 private:
  // 0, ..., rows - 1 ordered by a hash of (seed, row).
  static std::vector<std::int64_t> shuffled(std::int64_t rows, std::uint64_t seed) {
    std::vector<std::pair<std::uint64_t, std::int64_t>> keyed(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i) {
      keyed[i] = {splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(i))), i};
    }
    std::sort(keyed.begin(), keyed.end());
    std::vector<std::int64_t> order(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows; ++i) order[i] = keyed[i].second;
    return order;
  }

  void add(const float* base, std::int64_t i) {
    index_.addPoint(base + i * d_, static_cast<hnswlib::labeltype>(i));
  }

  int threads_;
  std::size_t ef_;      // search list of search()
  std::size_t own_ef_;  // search list of search_own()
  hnswlib::L2Space space_;  // declared before index_, which keeps a pointer to it
  hnswlib::HierarchicalNSW<float> index_;
};

}  // namespace

std::unique_ptr<Engine> make_hnsw_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                         std::int64_t d, int m, int own_ef) {
  return std::make_unique<HnswEngine>(p, base, rows, d, m, own_ef);
}

}  // namespace lsgl::ann
