// FLANN randomised kd-trees (flann::KDTreeIndex, L2 on floats). Compiled with OpenMP, which
// FLANN uses to search with SearchParams::cores threads.
//
// Randomness: FLANN picks split dimensions with std::rand, so the engine calls std::srand with a
// value derived from AnnParams::seed right before building (this resets the process-wide rand
// state). FLANN 1.9.2 also shuffles the points with a std::random_device-seeded generator before
// each tree, which cannot be seeded: FLANN's trees, and so its approximate lists, may differ
// slightly between runs.
#include <cstdlib>
#include <flann/flann.hpp>
#include <limits>

#include "engines.hpp"

namespace lsgl::ann {
namespace {

class FlannEngine final : public Engine {
 public:
  FlannEngine(const AnnParams& p, const float* base, std::int64_t rows, std::int64_t d)
      : Engine(base, d),
        index_(flann::Matrix<float>(const_cast<float*>(base), static_cast<std::size_t>(rows),
                                    static_cast<std::size_t>(d)),
               flann::KDTreeIndexParams(p.flann_trees)),
        params_(p.flann_checks) {
    params_.cores = p.threads;
    std::srand(static_cast<unsigned>(p.seed ^ (p.seed >> 32)));
    index_.buildIndex();
  }

  void search(const float* queries, std::int64_t nq, int k, std::int64_t* out) const override {
    constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();
    const std::size_t rows = static_cast<std::size_t>(nq), cols = static_cast<std::size_t>(k);
    std::vector<std::size_t> idx(rows * cols, kNone);
    std::vector<float> dist(rows * cols);
    flann::Matrix<float> q(const_cast<float*>(queries), rows, static_cast<std::size_t>(d_));
    flann::Matrix<std::size_t> mi(idx.data(), rows, cols);
    flann::Matrix<float> md(dist.data(), rows, cols);
    index_.knnSearch(q, mi, md, cols, params_);
    for (std::size_t i = 0; i < idx.size(); ++i) {
      out[i] = idx[i] == kNone ? -1 : static_cast<std::int64_t>(idx[i]);
    }
  }

 private:
  flann::Index<flann::L2<float>> index_;
  flann::SearchParams params_;
};

}  // namespace

std::unique_ptr<Engine> make_flann_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d) {
  return std::make_unique<FlannEngine>(p, base, rows, d);
}

}  // namespace lsgl::ann
