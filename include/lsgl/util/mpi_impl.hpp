#pragma once
// Template implementations for lsgl/util/mpi.hpp.
#include <algorithm>
#include <cstring>
#include <type_traits>

namespace lsgl {

namespace detail {
// Collective. Byte-level all-to-all with 64-bit counts; messages are split into chunks below
// 2^30 bytes so that no MPI int count overflows.
std::vector<char> alltoallv_bytes_raw(MPI_Comm comm, const std::vector<const char*>& data,
                                      const std::vector<std::int64_t>& bytes);
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
  std::vector<char> raw = detail::alltoallv_bytes_raw(comm, data, bytes);
  std::vector<T> out(raw.size() / sizeof(T));
  if (!raw.empty()) std::memcpy(out.data(), raw.data(), raw.size());
  return out;
}

}  // namespace lsgl
