#pragma once
// Random Gaussian projection of the features, as [KP19] does for the Daitch models (appendix
// C: d = 300 projected to 20): x -> G^T x / sqrt(p) with G a d x p matrix of independent
// standard normal entries drawn from a seed, identical on every rank, so the projected rows do
// not depend on the number of ranks. Squared distances are preserved in expectation.
#include <cstdint>

#include "lsgl/io/dataset.hpp"

namespace lsgl {

// Local (every rank draws the same G). The rows of `data` projected to p dimensions (p >= 1).
LocalRows random_projection(const LocalRows& data, int p, std::uint64_t seed);

}  // namespace lsgl
