#include "lsgl/learn/solver.hpp"

#include "lsgl/util/mpi.hpp"

namespace lsgl {

double average_degree(const EdgeSet& edges, const std::vector<double>& w, double threshold) {
  std::int64_t kept = 0;
  for (double v : w) kept += v > threshold ? 1 : 0;
  return 2.0 * static_cast<double>(allreduce_sum(edges.comm(), kept)) /
         static_cast<double>(edges.n());
}

}  // namespace lsgl
