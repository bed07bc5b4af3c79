#include "lsgl/learn/projection.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace lsgl {

LocalRows random_projection(const LocalRows& data, int p, std::uint64_t seed) {
  // G row-major d x p, drawn in a fixed order from a fixed generator.
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::normal_distribution<double> normal(0.0, 1.0);
  const std::int64_t d = data.d;
  std::vector<double> G(static_cast<std::size_t>(d * p));
  for (auto& g : G) g = normal(rng);
  const double scale = 1.0 / std::sqrt(static_cast<double>(p));
  LocalRows out;
  out.n = data.n;
  out.d = p;
  out.begin = data.begin;
  const std::int64_t rows = data.local_rows();
  std::vector<float>& values = out.values();
  values.assign(static_cast<std::size_t>(rows * p), 0.0f);
  std::vector<double> acc(p);
  for (std::int64_t r = 0; r < rows; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0);
    const float* x = data.row(r);
    for (std::int64_t j = 0; j < d; ++j) {
      const double xj = x[j];
      if (xj == 0.0) continue;
      const double* g = G.data() + j * p;
      for (int c = 0; c < p; ++c) acc[c] += xj * g[c];
    }
    for (int c = 0; c < p; ++c) values[r * p + c] = static_cast<float>(acc[c] * scale);
  }
  return out;
}

}  // namespace lsgl
