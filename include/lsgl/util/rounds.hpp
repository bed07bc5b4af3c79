#pragma once
// Items sent to the ranks that need them in rounds, through buffers reused from round to round.
// The all-to-alls of mpi.hpp take every item at once: a copy of all the items to send and one of
// all those received, which at 10^7 nodes on 2 ranks were 4.8 GB of fresh pages per rank in the
// edge set's build, half its time (the kernel zeroes a page on first touch).
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lsgl/util/mpi.hpp"

namespace lsgl {

// Items of trivially copyable T made on demand from `sources` numbered sources and sent to the
// ranks that receive them: make(first, count, out) sets `out` to the items of sources first ..
// first + count - 1 (any number of them, the same whenever asked); dest(item) is the rank that
// receives an item. keys() and items() send them in the same rounds: a round takes at most
// `round` sources and about an eighth of this rank's (its three buffers then add about three
// eighths of the items' size to the peak). A caller counts the items of each place from keys()
// (e.g. each row's entries) and fills the places from items(): no buffer holds all the items.
template <class T, class Make, class Dest>
class RoundExchange {
 public:
  // Collective (the number of rounds is agreed on).
  RoundExchange(MPI_Comm comm, std::int64_t sources, std::int64_t round, const Make& make,
                const Dest& dest)
      : comm_(comm),
        sources_(sources),
        per_(std::max<std::int64_t>(1, std::min(round, (sources + 7) / 8))),
        rounds_(allreduce_max(comm, (sources + per_ - 1) / per_)),
        make_(make),
        dest_(dest) {}

  // Collective. key(item), a 32-bit number (e.g. the item's row on its rank), of every item to
  // the item's rank, handed there to tally(key).
  template <class Key, class Tally>
  void keys(const Key& key, const Tally& tally) {
    std::vector<std::int32_t> keys, got;
    for (std::int64_t t = 0; t < rounds_; ++t) {
      const std::vector<std::size_t> count = made(t);
      keys.resize(batch_.size());
      for (std::size_t k = 0; k < batch_.size(); ++k) keys[k] = key(batch_[k]);
      alltoallv_into(comm_, keys, count, got);
      for (std::int32_t k : got) tally(k);
    }
  }

  // Collective. Every item to its rank, handed there to place(item).
  template <class Place>
  void items(const Place& place) {
    std::vector<T> got;
    for (std::int64_t t = 0; t < rounds_; ++t) {
      const std::vector<std::size_t> count = made(t);
      alltoallv_into(comm_, batch_, count, got);
      for (const T& x : got) place(x);
    }
  }

 private:
  // Local. Round t's items into batch_, grouped by destination (a counting sort from made_:
  // sequential reads and one write stream per rank); returns the group sizes.
  std::vector<std::size_t> made(std::int64_t t) {
    const std::int64_t first = std::min(sources_, t * per_);
    make_(first, std::min(sources_ - first, per_), made_);
    std::vector<std::size_t> count(static_cast<std::size_t>(comm_size(comm_)), 0);
    for (const T& x : made_) ++count[dest_(x)];
    std::vector<std::size_t> at(count.size(), 0);
    for (std::size_t p = 1; p < count.size(); ++p) at[p] = at[p - 1] + count[p - 1];
    batch_.resize(made_.size());
    for (const T& x : made_) batch_[at[dest_(x)]++] = x;
    return count;
  }

  MPI_Comm comm_;
  std::int64_t sources_, per_, rounds_;
  Make make_;
  Dest dest_;
  std::vector<T> made_, batch_;  // a round's items as made, then grouped by destination
};

// Collective. A RoundExchange of items T (the types of make and dest deduced).
template <class T, class Make, class Dest>
RoundExchange<T, Make, Dest> round_exchange(MPI_Comm comm, std::int64_t sources, std::int64_t round,
                                            const Make& make, const Dest& dest) {
  return RoundExchange<T, Make, Dest>(comm, sources, round, make, dest);
}

}  // namespace lsgl
