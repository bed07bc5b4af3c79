#pragma once
// The distance between rows. lsgl measures squared Euclidean distances; --metric cosine divides
// every row by its Euclidean norm first, and then ||x/|x| - y/|y|||^2 = 2 (1 - cos(x, y)): the
// squared distance is twice the cosine distance, so neighbours and their order are those of
// cosine similarity (and of inner product on the normalised rows).
#include <mpi.h>

#include "lsgl/io/dataset.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

enum class Metric { kEuclidean, kCosine };
inline constexpr Named<Metric> kMetricNames[] = {{Metric::kEuclidean, "euclidean"},
                                                 {Metric::kCosine, "cosine"}};
constexpr const auto& names(Metric) { return kMetricNames; }

// Collective. Applies `metric` to the rows read: euclidean leaves them, cosine scales each row
// to unit norm (in double, stored as float). A zero row has no direction: CollectiveError on
// every rank naming the first such row.
void apply_metric(MPI_Comm comm, LocalRows& data, Metric metric);

// Local. The distance of `metric` between two rows from the squared Euclidean distance z of the
// rows as apply_metric left them: euclidean ||x - y|| = sqrt(z) (not squared); cosine
// 1 - cos(x, y) = z / 2 (what scikit-learn and scanpy call the cosine distance).
double metric_distance(Metric metric, double z);

}  // namespace lsgl
