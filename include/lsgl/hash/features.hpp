#pragma once
// Feature maps of the hashing models: raw features or the RBF map of SDH (Shen et al. 2015),
// phi_j(x) = exp(-||x - a_j||^2 / (2 sigma^2)) over m anchors a_j drawn from the training set;
// either way centred by the training mean.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/hash/chunked.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/util/dense.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl::hash {

enum class FeatureKind { kRaw, kRbf };
inline constexpr Named<FeatureKind> kFeatureKindNames[] = {{FeatureKind::kRaw, "raw"},
                                                           {FeatureKind::kRbf, "rbf"}};
constexpr const auto& names(FeatureKind) { return kFeatureKindNames; }

struct FeatureMap {
  FeatureKind kind = FeatureKind::kRbf;
  std::int64_t input_dim = 0;
  Mat anchors;                // m x input_dim (rbf)
  double sigma = 0.0;         // rbf width
  std::vector<double> mean;   // training mean of the mapped features
  std::int64_t dim() const { return kind == FeatureKind::kRaw ? input_dim : anchors.rows; }
  // Local. Centred features of `rows` input rows (row-major float): rows x dim().
  std::vector<double> apply(const float* x, std::int64_t rows) const;
};

// Collective. Fits the map on the training rows (this rank's rows of its sample block): for rbf,
// `anchors` distinct training rows drawn with `seed` and sigma = the mean distance between
// training samples and anchors (SDH's choice); then the training mean. Throws CollectiveError
// when anchors < 1 or > n. With `features`, also returns the centred features of the rows
// (local x dim()), computed once.
FeatureMap fit_features(MPI_Comm comm, const SampleBlocks& blocks, const LocalRows& rows,
                        FeatureKind kind, std::int64_t anchors, std::uint64_t seed,
                        std::vector<double>* features = nullptr);

// Local. `count` distinct integers of [0, n), sorted, drawn from `seed` (Floyd's algorithm on
// splitmix64; the same on every rank).
std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t count, std::uint64_t seed);

}  // namespace lsgl::hash
