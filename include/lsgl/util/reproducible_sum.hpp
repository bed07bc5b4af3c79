#pragma once
// Fixed-point summation, used by the DPCD optimiser and hashing: values are rounded to multiples
// of 2^-bits, where bits is chosen from a global bound on |value| and on the number of terms so
// that no int64 overflows; the per-rank partial sums are exact integers and integer addition is
// associative, so the result does not depend on the number of ranks (no floating-point
// reduction order can change it).
#include <mpi.h>

#include <cmath>
#include <cstdint>

namespace lsgl {

class ReproducibleSum {
 public:
  // Local. Every rank passes the same bound and term count (e.g. after an all-reduce).
  ReproducibleSum(double max_abs, std::int64_t max_terms);
  // Local. Rounds v to the nearest multiple of 2^-bits (ties to even) and adds it exactly.
  void add(double v) { acc_ += static_cast<std::int64_t>(std::nearbyint(v * scale_)); }
  // Collective. The global sum.
  double result(MPI_Comm comm) const;

 private:
  int bits_ = 0;
  double scale_ = 1.0;  // 2^bits_ (exact)
  std::int64_t acc_ = 0;
};

}  // namespace lsgl
