#pragma once
// Template implementations for lsgl/util/mpi.hpp.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

namespace lsgl {

namespace detail {
// Collective. Byte-level all-to-all with 64-bit counts; messages are split into chunks below
// 2^30 bytes so that no MPI int count overflows. The bytes received land, by sender, in the
// buffer that receive_buffer(total bytes) returns (so the caller's vector is the only copy).
void alltoallv_bytes_into(MPI_Comm comm, const std::vector<const char*>& data,
                          const std::vector<std::int64_t>& bytes,
                          const std::function<char*(std::int64_t)>& receive_buffer);

// Collective. Blocks of trivially copyable T, data[p] with bytes[p] bytes to rank p; `out`
// becomes what every rank sent to this one, concatenated by source rank (resized: a buffer large
// enough already is reused).
template <class T>
void alltoallv_blocks(MPI_Comm comm, const std::vector<const char*>& data,
                      const std::vector<std::int64_t>& bytes, std::vector<T>& out) {
  static_assert(std::is_trivially_copyable<T>::value, "alltoallv needs trivially copyable T");
  alltoallv_bytes_into(comm, data, bytes, [&](std::int64_t total) {
    out.resize(static_cast<std::size_t>(total) / sizeof(T));
    return reinterpret_cast<char*>(out.data());
  });
}

// Collective. Every rank's item count (`counts`) and where its items start (`displs`); throws
// CollectiveError on every rank when the total does not fit an MPI int. Returns the total.
int allgather_layout(MPI_Comm comm, std::int64_t count, std::vector<int>& counts,
                     std::vector<int>& displs);

// Collective. MPI_Allgatherv of items of `item_bytes` bytes each (one contiguous datatype).
void allgatherv_items_raw(MPI_Comm comm, const void* local, int count, void* out,
                          const std::vector<int>& counts, const std::vector<int>& displs,
                          std::size_t item_bytes);
}  // namespace detail

template <class T>
std::vector<T> allgather_items(MPI_Comm comm, const std::vector<T>& local) {
  static_assert(std::is_trivially_copyable<T>::value, "allgather_items needs trivially copyable T");
  std::vector<int> counts, displs;
  const int total =
      detail::allgather_layout(comm, static_cast<std::int64_t>(local.size()), counts, displs);
  std::vector<T> out(static_cast<std::size_t>(total));
  detail::allgatherv_items_raw(comm, local.data(), static_cast<int>(local.size()), out.data(),
                               counts, displs, sizeof(T));
  return out;
}

template <class T>
std::vector<T> alltoallv(MPI_Comm comm, const std::vector<std::vector<T>>& send) {
  std::vector<const char*> data(send.size());
  std::vector<std::int64_t> bytes(send.size());
  for (std::size_t p = 0; p < send.size(); ++p) {
    data[p] = reinterpret_cast<const char*>(send[p].data());
    bytes[p] = static_cast<std::int64_t>(send[p].size() * sizeof(T));
  }
  std::vector<T> out;
  detail::alltoallv_blocks<T>(comm, data, bytes, out);
  return out;
}

template <class T>
void alltoallv_into(MPI_Comm comm, const std::vector<T>& items,
                    const std::vector<std::size_t>& count, std::vector<T>& out) {
  std::vector<const char*> data(count.size());
  std::vector<std::int64_t> bytes(count.size());
  std::size_t first = 0;
  for (std::size_t p = 0; p < count.size(); ++p) {
    data[p] = reinterpret_cast<const char*>(items.data() + first);
    bytes[p] = static_cast<std::int64_t>(count[p] * sizeof(T));
    first += count[p];
  }
  detail::alltoallv_blocks<T>(comm, data, bytes, out);
}

}  // namespace lsgl
