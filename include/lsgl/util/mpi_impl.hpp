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
}  // namespace detail

template <class T>
std::vector<T> alltoallv(MPI_Comm comm, const std::vector<std::vector<T>>& send) {
  static_assert(std::is_trivially_copyable<T>::value, "alltoallv needs trivially copyable T");
  std::vector<const char*> data(send.size());
  std::vector<std::int64_t> bytes(send.size());
  for (std::size_t p = 0; p < send.size(); ++p) {
    data[p] = reinterpret_cast<const char*>(send[p].data());
    bytes[p] = static_cast<std::int64_t>(send[p].size() * sizeof(T));
  }
  std::vector<T> out;
  detail::alltoallv_bytes_into(comm, data, bytes, [&](std::int64_t total) {
    out.resize(static_cast<std::size_t>(total) / sizeof(T));
    return reinterpret_cast<char*>(out.data());
  });
  return out;
}

}  // namespace lsgl
