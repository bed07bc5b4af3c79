// Memory checks (see memory.hpp).
#include "lsgl/util/memory.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

std::string gigabytes(double bytes) {
  if (!std::isfinite(bytes)) return "more bytes than an int64 counts (the sizes overflow)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

}  // namespace

void restore_allocator_release() {
  struct Setting {
    const char* tunable;
    int param;
    int value;  // lsgl's
  };
  const Setting settings[] = {
      {"glibc.malloc.mmap_max", M_MMAP_MAX, 65536},  // glibc's default
      {"glibc.malloc.mmap_threshold", M_MMAP_THRESHOLD, static_cast<int>(kLargeBlockBytes)},
      {"glibc.malloc.trim_threshold", M_TRIM_THRESHOLD, 32 << 20}};
  const char* env = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = env ? std::string(":") + env + ":" : std::string();
  for (const Setting& s : settings) {
    const std::size_t at = tunables.find(std::string(":") + s.tunable + "=");
    if (at == std::string::npos) {
      mallopt(s.param, s.value);
      continue;
    }
    // The user's value, read as glibc reads it (decimal, or hex with 0x); above INT_MAX, -1:
    // mallopt takes an int, which glibc widens to size_t (-1: the largest).
    const unsigned long long v =
        std::strtoull(tunables.c_str() + at + std::strlen(s.tunable) + 2, nullptr, 0);
    mallopt(s.param, v > static_cast<unsigned long long>(INT_MAX) ? -1 : static_cast<int>(v));
  }
}

bool advise_huge_pages(void* p, std::size_t bytes) {
  const char* env = std::getenv("LSGL_HUGE_PAGES");
  if (bytes == 0 || (env && std::strcmp(env, "0") == 0)) return false;
  // madvise takes a page-aligned start: from the page holding p (for a block glibc mapped on its
  // own, the mapping's start, where glibc's header lies) to the end of the block.
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const auto end = reinterpret_cast<std::uintptr_t>(p) + bytes;
  return madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) == 0;
}

std::int64_t physical_memory_bytes() {
  return static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
}

std::int64_t last_level_cache_bytes() {
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return l3 > 0 ? l3 : l2 > 0 ? l2 : 0;
}

NodeShare node_share(MPI_Comm comm, double bytes) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, comm_rank(comm), MPI_INFO_NULL, &node);
  NodeShare s;
  s.bytes = bytes >= 0 ? bytes : std::numeric_limits<double>::infinity();  // NaN too
  MPI_Allreduce(MPI_IN_PLACE, &s.bytes, 1, MPI_DOUBLE, MPI_SUM, node);
  MPI_Comm_size(node, &s.ranks);
  MPI_Comm_free(&node);
  return s;
}

void check_allocation(MPI_Comm comm, double bytes, const std::string& what) {
  const NodeShare node = node_share(comm, bytes);
  const auto have = static_cast<double>(physical_memory_bytes());
  collective_check(comm, node.bytes <= have,
                   what + " need " + gigabytes(bytes >= 0 ? bytes : node.bytes) + " on one rank, " +
                       gigabytes(node.bytes) + " for the " + std::to_string(node.ranks) +
                       " rank(s) on its node, more than the node's memory (" + gigabytes(have) +
                       ")");
}

}  // namespace lsgl
