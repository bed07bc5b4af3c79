// The range of data values single-precision distances handle (see float_range.hpp).
#include "lsgl/io/float_range.hpp"

#include <cfloat>
#include <cmath>
#include <cstdio>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

double single_precision_max_abs(std::int64_t d) {
  const double bound = static_cast<double>(FLT_EPSILON) * static_cast<double>(FLT_MAX);
  return std::sqrt(bound / (4.0 * static_cast<double>(d > 0 ? d : 1)));
}

double single_precision_min_abs() {
  return std::sqrt(static_cast<double>(FLT_MIN) / static_cast<double>(FLT_EPSILON));
}

void check_single_precision_range(MPI_Comm comm, const LocalRows& data, const std::string& what) {
  double s = 0.0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    const float v = data.data()[i];
    const double a = std::fabs(static_cast<double>(v));
    if (!(a <= s)) s = std::isnan(a) ? HUGE_VAL : a;
  }
  s = allreduce_max_double(comm, s);
  const double hi = single_precision_max_abs(data.d), lo = single_precision_min_abs();
  const bool ok = s == 0.0 || (s >= lo && s <= hi);
  char text[400] = "";
  if (!ok) {
    // Dividing by 10^e (multiplying for small data) brings s into (0.1, 1], inside the range
    // for any d.
    const int e = std::isfinite(s) ? static_cast<int>(std::ceil(std::log10(s))) : 0;
    char todo[80] = "rescale the data";
    if (std::isfinite(s))
      std::snprintf(todo, sizeof todo, "rescale the data, e.g. %s it by 1e%d",
                    s > hi ? "divide" : "multiply", s > hi ? e : -e);
    std::snprintf(text, sizeof text,
                  "%s: the data's largest absolute value %.3g is too %s for single-precision "
                  "distances in %lld dimensions (accepted: %.2g to %.2g): %s",
                  what.c_str(), s, s > hi ? "large" : "small", static_cast<long long>(data.d), lo,
                  hi, todo);
  }
  collective_check(comm, ok, text);
}

}  // namespace lsgl
