#include "lsgl/io/metric.hpp"

#include <cmath>

#include "lsgl/util/error.hpp"

namespace lsgl {

void apply_metric(MPI_Comm comm, LocalRows& data, Metric metric) {
  if (metric == Metric::kEuclidean) return;
  std::int64_t zero_row = -1;
  float* values = data.values().data();  // borrowed rows are copied here (copy-on-write)
  for (std::int64_t r = 0; r < data.local_rows(); ++r) {
    float* x = values + r * data.d;
    double sum = 0.0;
    for (std::int64_t c = 0; c < data.d; ++c) sum += static_cast<double>(x[c]) * x[c];
    if (sum == 0.0) {
      if (zero_row < 0) zero_row = data.begin + r;
      continue;
    }
    const double inv = 1.0 / std::sqrt(sum);
    for (std::int64_t c = 0; c < data.d; ++c) x[c] = static_cast<float>(x[c] * inv);
  }
  collective_check(comm, zero_row < 0,
                   "--metric cosine: row " + std::to_string(zero_row) +
                       " is all zeros and has no direction (drop it or use --metric euclidean)");
}

double metric_distance(Metric metric, double z) {
  return metric == Metric::kCosine ? 0.5 * z : std::sqrt(z);
}

}  // namespace lsgl
