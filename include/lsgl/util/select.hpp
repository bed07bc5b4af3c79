#pragma once
// Distributed selection, used by the DPCD optimiser, the dense-subgraph methods and hashing.
// Every result is independent of the number of ranks: candidates are ordered by a key with the
// global index as the last word, so ties are broken the same way on any number of ranks.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <vector>

#include "lsgl/util/mpi.hpp"

namespace lsgl {

// A total order on candidates: words compared lexicographically, larger is better. Word 2 holds
// ~global_index, so among equal values the smaller global index wins.
struct SelectKey {
  std::array<std::uint64_t, 3> w{0, 0, 0};
  bool operator<(const SelectKey& o) const { return w < o.w; }
  bool operator==(const SelectKey& o) const { return w == o.w; }
  std::int64_t index() const { return static_cast<std::int64_t>(~w[2]); }
};

// Local. Order-preserving encodings of a double (-0.0 treated as 0.0, NaN not allowed) and of
// an int64.
std::uint64_t encode_double(double v);
double decode_double(std::uint64_t k);
inline std::uint64_t encode_int(std::int64_t v) {
  return static_cast<std::uint64_t>(v) ^ (std::uint64_t(1) << 63);
}
inline std::int64_t decode_int(std::uint64_t k) {
  return static_cast<std::int64_t>(k ^ (std::uint64_t(1) << 63));
}
// Local. Key of (primary, secondary, index): larger primary first, then larger secondary, then
// smaller index.
inline SelectKey make_key(std::uint64_t primary, std::uint64_t secondary, std::int64_t index) {
  return SelectKey{{primary, secondary, ~static_cast<std::uint64_t>(index)}};
}

// Collective. Marks the candidates among the global `m` largest keys (exactly min(m, total)
// candidates are marked over all ranks; keys must be globally unique, which the index word
// guarantees). Radix selection, 8 bits per round: one all-reduce of 256 counts per round, and
// each round scans only the candidates still tied with the threshold; leading bytes of a word
// that all remaining candidates share cost one all-reduce of their range, not a round each.
// Returns the smallest selected key (the m-th largest) in *threshold when m >= 1 and some
// candidate exists.
std::vector<char> select_top(MPI_Comm comm, const std::vector<SelectKey>& keys, std::int64_t m,
                             SelectKey* threshold = nullptr);

// Collective. The r-th and (r+1)-th smallest of the values held by all ranks (1 <= r < total
// count; NaN not allowed), as plain values (ties need no order). Each rank keeps its own r+1
// smallest (the global r+1 smallest lie in their union), then radix selection on the encoded
// values, 8 bits per round, with one all-reduce of 256 counts per round.
std::array<double, 2> smallest_pair_at(MPI_Comm comm, const std::vector<double>& values,
                                       std::int64_t r);

// Collective. The selected keys of all ranks, largest first (identical on every rank). For
// small selections (pools of the neighbourhood search, the k-th element).
std::vector<SelectKey> allgather_keys(MPI_Comm comm, const std::vector<SelectKey>& local);

}  // namespace lsgl
