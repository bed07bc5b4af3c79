#include "lsgl/learn/model.hpp"

#include <cmath>

#include "lsgl/util/error.hpp"

namespace lsgl {

int Model::candidates_per_node(std::int64_t n) const {
  if (c_.support == Support::kFull) return static_cast<int>(n - 1);
  return static_cast<int>(std::lround(c_.r * c_.k));
}

void Model::attach_data(const LocalRows&) {}

void Model::prepare(const Candidates&) {}

EdgeSet Model::resume(const std::string&, double*) {
  throw CollectiveError("--resume works with --model log only");
}

std::string Model::prepared_line(std::int64_t allowed_edges) const {
  return "model " + to_string(c_.kind) + ", " + std::to_string(allowed_edges) + " allowed edges";
}

}  // namespace lsgl
