#pragma once
// Allocations sized from input files or options, checked before they are made; the allocator's
// settings.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace lsgl {

// Blocks of at least this many bytes are mapped on their own by glibc under lsgl's settings
// (restore_allocator_release) and are the ones advised for huge pages (advise_huge_pages).
constexpr std::size_t kLargeBlockBytes = std::size_t{4} << 20;

// Local. Gives large freed blocks back to the system again. Debian's libsuperlu_dist (loaded
// with PETSc) turns off glibc's mmap and heap trimming in a static initialiser
// (mallopt(M_MMAP_MAX, 0), mallopt(M_TRIM_THRESHOLD, -1)), so every freed buffer stayed in the
// process: on the 1,000,000-row benchmark the learning phase reached 1.4 GB per rank where 0.8 GB
// are needed. Blocks of at least 4 MB are mapped and unmapped on their own again, and the top of
// the heap is trimmed beyond 32 MB. A setting the user gave in GLIBC_TUNABLES
// (glibc.malloc.mmap_max, mmap_threshold, trim_threshold) is applied instead of lsgl's (the
// library's initialiser had overridden it too). Call once at start-up, before the buffers are
// allocated.
void restore_allocator_release();

// Local. Asks the kernel to back the pages of [p, p + bytes) with transparent huge pages
// (madvise MADV_HUGEPAGE) when they are first touched, unless the environment variable
// LSGL_HUGE_PAGES is 0. On a virtual machine a fresh 4 KB page can cost a fault in the guest and
// one in the host: first writes to 2 GB of fresh memory took 6-9 s with 4 KB pages and 0.4-1.8 s
// with huge pages here (docs/benchmarks.md). Advice only: the contents do not change, and a
// kernel without transparent huge pages ignores it (returns false then, or when disabled).
bool advise_huge_pages(void* p, std::size_t bytes);

// Local. Physical memory of this machine in bytes.
std::int64_t physical_memory_bytes();

// Local. Size of the last-level (L3, else L2) cache in bytes as the system reports it; 0 when
// it does not.
std::int64_t last_level_cache_bytes();

// Collective. The ranks of `comm` that share this rank's node (MPI_COMM_TYPE_SHARED), and the
// sum of their `bytes` (+Inf when any is negative or NaN: an overflowed size).
struct NodeShare {
  int ranks = 1;
  double bytes = 0;
};
NodeShare node_share(MPI_Comm comm, double bytes);

// Collective. Throws CollectiveError on every rank, with one message naming `what` and the
// sizes, when on some node the ranks' `bytes` (what each rank will allocate; a double, so that
// products of large sizes do not overflow) add up to more than that node's physical memory.
void check_allocation(MPI_Comm comm, double bytes, const std::string& what);

}  // namespace lsgl
