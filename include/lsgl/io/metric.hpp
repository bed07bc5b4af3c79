#pragma once
// The distance between rows. lsgl measures squared Euclidean distances; --metric cosine divides
// every row by its Euclidean norm first, and then ||x/|x| - y/|y|||^2 = 2 (1 - cos(x, y)): the
// squared distance is twice the cosine distance, so neighbours and their order are those of
// cosine similarity (and of inner product on the normalised rows).
#include <mpi.h>

#include <string>

#include "lsgl/io/dataset.hpp"

namespace lsgl {

// Local. Throws std::invalid_argument unless `metric` is "euclidean" or "cosine".
void check_metric_name(const std::string& metric);

// Collective. Applies `metric` to the rows read: "euclidean" leaves them, "cosine" scales each
// row to unit norm (in double, stored as float). A zero row has no direction: CollectiveError
// on every rank naming the first such row.
void apply_metric(MPI_Comm comm, LocalRows& data, const std::string& metric);

}  // namespace lsgl
