// Chunk-aligned sample blocks and reproducible sums over samples.
#include "lsgl/hash/chunked.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "lsgl/util/mpi.hpp"

namespace lsgl::hash {

std::int64_t SampleBlocks::begin(int rank) const {
  const std::int64_t chunks = (n + chunk - 1) / chunk;
  return std::min(n, Partition(chunks, size).begin(rank) * chunk);
}
std::int64_t SampleBlocks::end(int rank) const { return begin(rank + 1); }

template <class T>
std::vector<T> to_sample_blocks(MPI_Comm comm, const T* local, std::size_t count,
                                std::int64_t from_begin, std::int64_t width,
                                const SampleBlocks& blocks) {
  const int size = comm_size(comm);
  const std::int64_t rows = width > 0 ? static_cast<std::int64_t>(count) / width : 0;
  std::vector<std::vector<T>> send(size);
  for (int p = 0; p < size; ++p) {
    const std::int64_t lo = std::max(from_begin, blocks.begin(p));
    const std::int64_t hi = std::min(from_begin + rows, blocks.end(p));
    if (lo < hi)
      send[p].assign(local + (lo - from_begin) * width, local + (hi - from_begin) * width);
  }
  return alltoallv(comm, send);
}

template std::vector<float> to_sample_blocks(MPI_Comm, const float*, std::size_t, std::int64_t,
                                             std::int64_t, const SampleBlocks&);
template std::vector<std::int64_t> to_sample_blocks(MPI_Comm, const std::int64_t*, std::size_t,
                                                    std::int64_t, std::int64_t,
                                                    const SampleBlocks&);

LocalRows to_sample_blocks(MPI_Comm comm, const LocalRows& rows, const SampleBlocks& blocks) {
  LocalRows out;
  out.n = rows.n;
  out.d = rows.d;
  out.begin = blocks.begin(comm_rank(comm));
  out.values() = to_sample_blocks(comm, rows.data(), rows.size(), rows.begin, rows.d, blocks);
  return out;
}

namespace {

// Adds chunk results in fixed point: values are multiples of 2^-bits, with bits chosen from a
// global bound on |chunk result| and the number of chunks so that no int64 overflows.
class FixedPointSum {
 public:
  FixedPointSum(MPI_Comm comm, double local_bound, std::int64_t chunks, std::size_t count)
      : acc_(count, 0) {
    const double bound = allreduce_max_double(comm, local_bound);
    if (bound > 0 && std::isfinite(bound)) {
      int e = 0;
      std::frexp(bound * static_cast<double>(std::max<std::int64_t>(chunks, 1)), &e);
      scale_ = std::ldexp(1.0, 61 - e);
    }
  }
  void add(const double* v) {
    if (scale_ == 0) return;
    for (std::size_t j = 0; j < acc_.size(); ++j)
      acc_[j] += static_cast<long long>(std::nearbyint(v[j] * scale_));
  }
  std::vector<double> result(MPI_Comm comm) {
    MPI_Allreduce(MPI_IN_PLACE, acc_.data(), static_cast<int>(acc_.size()), MPI_INT64_T, MPI_SUM,
                  comm);
    std::vector<double> out(acc_.size(), 0.0);
    if (scale_ != 0)
      for (std::size_t j = 0; j < acc_.size(); ++j) out[j] = static_cast<double>(acc_[j]) / scale_;
    return out;
  }

 private:
  std::vector<long long> acc_;
  double scale_ = 0.0;
};

double max_abs(const double* a, std::int64_t count) {
  double m = 0.0;
  for (std::int64_t i = 0; i < count; ++i) m = std::max(m, std::fabs(a[i]));
  return m;
}

}  // namespace

Mat sample_cross(MPI_Comm comm, const SampleBlocks& blocks, const double* a, std::int64_t p,
                 const double* b, std::int64_t q, std::int64_t local_rows) {
  const bool gram = a == b && p == q;
  const double amax = max_abs(a, local_rows * p), bmax = gram ? amax : max_abs(b, local_rows * q);
  const std::int64_t chunks = (blocks.n + blocks.chunk - 1) / blocks.chunk;
  FixedPointSum sum(comm, static_cast<double>(blocks.chunk) * amax * bmax, chunks,
                    static_cast<std::size_t>(p * q));
  std::vector<double> part(static_cast<std::size_t>(p * q));
  for (std::int64_t r0 = 0; r0 < local_rows; r0 += blocks.chunk) {
    const int rows = static_cast<int>(std::min(blocks.chunk, local_rows - r0));
    if (gram) {
      cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, static_cast<int>(p), rows, 1.0,
                  a + r0 * p, static_cast<int>(p), 0.0, part.data(), static_cast<int>(p));
      for (std::int64_t i = 0; i < p; ++i)
        for (std::int64_t j = 0; j < i; ++j) part[i * p + j] = part[j * p + i];
    } else {
      cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, static_cast<int>(p),
                  static_cast<int>(q), rows, 1.0, a + r0 * p, static_cast<int>(p), b + r0 * q,
                  static_cast<int>(q), 0.0, part.data(), static_cast<int>(q));
    }
    sum.add(part.data());
  }
  Mat out(p, q);
  out.a = sum.result(comm);
  return out;
}

std::vector<double> sample_column_sums(MPI_Comm comm, const SampleBlocks& blocks,
                                       const double* a, std::int64_t p, std::int64_t local_rows) {
  const std::int64_t chunks = (blocks.n + blocks.chunk - 1) / blocks.chunk;
  FixedPointSum sum(comm, static_cast<double>(blocks.chunk) * max_abs(a, local_rows * p), chunks,
                    static_cast<std::size_t>(p));
  std::vector<double> part(static_cast<std::size_t>(p));
  for (std::int64_t r0 = 0; r0 < local_rows; r0 += blocks.chunk) {
    const std::int64_t rows = std::min(blocks.chunk, local_rows - r0);
    std::fill(part.begin(), part.end(), 0.0);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < p; ++j) part[j] += a[(r0 + i) * p + j];
    sum.add(part.data());
  }
  return sum.result(comm);
}

}  // namespace lsgl::hash
