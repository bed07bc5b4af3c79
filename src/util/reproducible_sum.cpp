// Fixed-point summation (see reproducible_sum.hpp).
#include "lsgl/util/reproducible_sum.hpp"

#include <algorithm>

#include "lsgl/util/mpi.hpp"

namespace lsgl {

ReproducibleSum::ReproducibleSum(double max_abs, std::int64_t max_terms) {
  // Choose bits so that max_terms * max_abs * 2^bits < 2^62.
  const double t = static_cast<double>(std::max<std::int64_t>(max_terms, 1));
  if (!(max_abs > 0) || !std::isfinite(max_abs)) {
    bits_ = 0;
    return;
  }
  const int e = std::ilogb(max_abs) + 1 + std::ilogb(t) + 1;  // max_abs * t < 2^e
  bits_ = 62 - e;
  scale_ = std::ldexp(1.0, bits_);
}

double ReproducibleSum::result(MPI_Comm comm) const {
  const std::int64_t s = allreduce_sum(comm, acc_);
  return std::ldexp(static_cast<double>(s), -bits_);
}

}  // namespace lsgl
