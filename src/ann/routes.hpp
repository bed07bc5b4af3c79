#pragma once
// Private to src/ann: the two ways the queries meet the indexes (see candidates.hpp).
#include <mpi.h>

#include "lsgl/ann/candidates.hpp"

namespace lsgl::ann {

// Collective. Every rank indexes its input block; query blocks travel around a ring of ranks.
Candidates ring_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p);

// Collective. Rows regrouped into k-means cells; each query searches its home rank's index and
// the ranks whose cells can still hold one of its m nearest (partition_route.cpp, cells.hpp).
Candidates partition_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p);

}  // namespace lsgl::ann
