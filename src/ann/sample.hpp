#pragma once
// Private to src/ann: the hashed row samples of the search (k-means cells, the voronoi engine's
// cells, the projection's principal components). A row is sampled when a hash of (seed, index)
// falls below a share of 2^64, so a sample of the global rows does not depend on the number of
// ranks, and a smaller share of the same hashes is a sub-sample.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/io/dataset.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl::ann {

constexpr std::int64_t kSamplePerCell = 64;  // k-means sample rows per cell

// Local. The hash of row `index` (global for the partition route, local for the voronoi engine)
// under `seed`.
inline std::uint64_t row_hash(std::uint64_t seed, std::int64_t index) {
  return splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(index)));
}

// Local. Whether a row whose hash is h falls in a sample of `share` (>= 1: every row).
inline bool in_share(std::uint64_t h, double share) {
  return share >= 1.0 || h < static_cast<std::uint64_t>(share * 0x1.0p64 - 1.0);
}

// Local. The local rows of `data` in a sample of about `want` of the n global rows, in order;
// `hash` gets the hash of each sampled row.
std::vector<float> hashed_sample(const LocalRows& data, std::int64_t want, std::uint64_t seed,
                                 std::vector<std::uint64_t>& hash);

// Collective. Every rank's `mine` (rows of floats) on rank 0, in rank order (empty elsewhere);
// CollectiveError on every rank above 2 GB.
std::vector<float> gather_on_root(MPI_Comm comm, const std::vector<float>& mine);

}  // namespace lsgl::ann
