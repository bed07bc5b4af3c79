#pragma once
// Private to src/learn/solvers: small scalar kernels shared by the solvers (fbf, fdpg, daitch).
// Local.
#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lsgl::learn_kernels {

// max(0, t) without a branch: the sign of t is unpredictable in the edge passes (most allowed
// edges end at zero), and compilers emit a conditional jump for std::max there.
inline double positive_part(double t) {
#if defined(__SSE2__)
  return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(t), _mm_setzero_pd()));
#else
  return std::max(0.0, t);
#endif
}

// Relative change ||diff|| / ||prev|| from their squares, without dividing by zero.
inline double relative(double diff2, double prev2) {
  if (prev2 > 0.0) return std::sqrt(diff2 / prev2);
  return diff2 > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
}

}  // namespace lsgl::learn_kernels
