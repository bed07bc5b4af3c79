// Brute-force engine: every query against every row of the block with lsgl::squared_distance.
// Deterministic; meant for small inputs and tests.
#include <algorithm>

#include "engines.hpp"

namespace lsgl::ann {

void exact_knn(const float* q, const float* base, std::int64_t rows, std::int64_t d, int k,
               std::int64_t exclude, std::vector<Neighbor>& scratch, std::int64_t* out) {
  scratch.clear();
  for (std::int64_t j = 0; j < rows; ++j) {
    if (j != exclude) scratch.push_back({squared_distance(q, base + j * d, d), j});
  }
  const std::size_t kept = std::min(scratch.size(), static_cast<std::size_t>(k));
  std::partial_sort(scratch.begin(), scratch.begin() + kept, scratch.end());
  for (int j = 0; j < k; ++j) out[j] = static_cast<std::size_t>(j) < kept ? scratch[j].idx : -1;
}

namespace {

class ExactEngine final : public Engine {
 public:
  ExactEngine(const float* base, std::int64_t rows, std::int64_t d, int threads)
      : Engine(base, d), rows_(rows), threads_(threads) {}

  void search(const float* queries, std::int64_t nq, int k, std::int64_t* out) const override {
#pragma omp parallel num_threads(threads_)
    {
      std::vector<Neighbor> scratch;
#pragma omp for schedule(dynamic, 16)
      for (std::int64_t i = 0; i < nq; ++i) {
        exact_knn(queries + i * d_, base_, rows_, d_, k, -1, scratch, out + i * k);
      }
    }
  }

 private:
  std::int64_t rows_;
  int threads_;
};

}  // namespace

std::unique_ptr<Engine> make_exact_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d) {
  return std::make_unique<ExactEngine>(base, rows, d, p.threads);
}

}  // namespace lsgl::ann
