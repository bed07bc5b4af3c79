#pragma once
// Block partition of global indices over ranks and small MPI helpers.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lsgl {

// Contiguous block partition of [0, n) over `size` ranks: by default the first n % size ranks
// get one more; or blocks given by their starts (partition_of_blocks), e.g. rows balanced by
// their stored entries (lsgl/graph/balance.hpp).
struct Partition {
  std::int64_t n = 0;
  int size = 1;
  // size + 1 block starts (starts[0] = 0, starts[size] = n) for blocks other than the equal
  // ones; empty for the equal blocks.
  std::vector<std::int64_t> starts;

  Partition() = default;
  Partition(std::int64_t n_, int size_) : n(n_), size(size_) {}
  std::int64_t begin(int rank) const {
    if (!starts.empty()) return starts[rank];
    const std::int64_t q = n / size, rem = n % size;
    return rank * q + (rank < rem ? rank : rem);
  }
  std::int64_t end(int rank) const { return begin(rank + 1); }
  std::int64_t count(int rank) const { return end(rank) - begin(rank); }
  // Rank owning global index g (0 <= g < n). O(1) for equal blocks, O(log size) otherwise.
  int owner(std::int64_t g) const {
    if (!starts.empty())
      return static_cast<int>(std::upper_bound(starts.begin(), starts.end(), g) - starts.begin()) -
             1;
    const std::int64_t q = n / size, rem = n % size;
    const std::int64_t big = rem * (q + 1);
    if (g < big) return static_cast<int>(g / (q + 1));
    return static_cast<int>(rem + (g - big) / q);
  }
};

// Collective. The partition of [0, n) whose block on each rank starts at that rank's `begin`
// (ascending with the rank; each block ends where the next starts, the last at n). Equal to
// Partition(n, size) (no starts stored) when the blocks are the equal ones.
Partition partition_of_blocks(MPI_Comm comm, std::int64_t n, std::int64_t begin);

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// Collective. Exclusive prefix sum of a 64-bit count (0 on rank 0).
std::int64_t exscan_sum(MPI_Comm comm, std::int64_t local);
// Collective. Global sum / max of a 64-bit count.
std::int64_t allreduce_sum(MPI_Comm comm, std::int64_t local);
std::int64_t allreduce_max(MPI_Comm comm, std::int64_t local);
// Collective. Global maximum of a double.
double allreduce_max_double(MPI_Comm comm, double v);

// Collective. Personalised all-to-all of variable-length blocks of trivially copyable T:
// send[p] goes to rank p; returns what every rank sent to this one, concatenated by source rank.
template <class T>
std::vector<T> alltoallv(MPI_Comm comm, const std::vector<std::vector<T>>& send);
// Collective. The same from one buffer grouped by destination (the first count[0] items go to
// rank 0, the next count[1] to rank 1, and so on: no copy of the items per destination), into
// `out`, resized: called in rounds with one `out`, the rounds reuse its buffer (a fresh one per
// round would be pages the kernel zeroes each time).
template <class T>
void alltoallv_into(MPI_Comm comm, const std::vector<T>& items,
                    const std::vector<std::size_t>& count, std::vector<T>& out);

// Collective. Allgather of trivially copyable items (any number per rank), concatenated by
// rank, on every rank: the one all-gather of variable counts. Counts are MPI ints of items:
// more than 2^31 - 1 items in all throw CollectiveError on every rank (for small gathers:
// samples, label sets, selected keys).
template <class T>
std::vector<T> allgather_items(MPI_Comm comm, const std::vector<T>& local);

// Collective. For each id (0 <= id < part.n), the value its owner holds for it: on the rank
// owning the block [part.begin(p), part.end(p)) of `id`, owned[id - part.begin(p)].
std::vector<std::int64_t> fetch_from_owners(MPI_Comm comm, const Partition& part,
                                            const std::vector<std::int64_t>& ids,
                                            const std::vector<std::int64_t>& owned);

// Peak resident memory of this process in bytes (getrusage).
std::int64_t peak_rss_bytes();

}  // namespace lsgl

#include "lsgl/util/mpi_impl.hpp"
