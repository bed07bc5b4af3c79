// hnswlib HNSW graph (L2 on floats). hnswlib.h defines non-inline functions, so this must stay
// the only file of the program that includes it.
//
// With threads == 1 points are inserted in order and the graph is a function of the data and
// AnnParams::seed. With threads > 1 insertion is concurrent, the graph depends on thread timing,
// and the approximate lists may differ slightly between runs.
#include <hnswlib/hnswlib.h>

#include <algorithm>

#include "engines.hpp"

namespace lsgl::ann {
namespace {

class HnswEngine final : public Engine {
 public:
  HnswEngine(const AnnParams& p, const float* base, std::int64_t rows, std::int64_t d, int m)
      : d_(d),
        threads_(p.threads),
        space_(static_cast<std::size_t>(d)),
        index_(&space_, static_cast<std::size_t>(rows), static_cast<std::size_t>(p.hnsw_m),
               static_cast<std::size_t>(p.hnsw_ef_construction), static_cast<std::size_t>(p.seed)) {
    index_.setEf(static_cast<std::size_t>(std::max(p.hnsw_ef, m + 1)));
    if (threads_ == 1) {
      for (std::int64_t i = 0; i < rows; ++i) add(base, i);
    } else {
#pragma omp parallel for num_threads(threads_) schedule(dynamic, 64)
      for (std::int64_t i = 0; i < rows; ++i) add(base, i);
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

 private:
  void add(const float* base, std::int64_t i) {
    index_.addPoint(base + i * d_, static_cast<hnswlib::labeltype>(i));
  }

  std::int64_t d_;
  int threads_;
  hnswlib::L2Space space_;  // declared before index_, which keeps a pointer to it
  hnswlib::HierarchicalNSW<float> index_;
};

}  // namespace

std::unique_ptr<Engine> make_hnsw_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                         std::int64_t d, int m) {
  return std::make_unique<HnswEngine>(p, base, rows, d, m);
}

}  // namespace lsgl::ann
