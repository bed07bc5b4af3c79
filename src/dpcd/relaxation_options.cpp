// Range checks of the relaxations' options (see relaxations.hpp).
#include <cmath>
#include <sstream>
#include <string>

#include "lsgl/dpcd/relaxations.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl::dpcd {

namespace {

std::string shown(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// `name` must be finite and above `lo` (or at least lo when `closed`), and at most hi.
void in_range(MPI_Comm comm, const char* name, double v, double lo, bool closed,
              double hi = HUGE_VAL) {
  const bool ok = std::isfinite(v) && (closed ? v >= lo : v > lo) && v <= hi;
  std::string range = std::string(closed ? ">= " : "> ") + shown(lo);
  if (hi < HUGE_VAL) range += " and <= " + shown(hi);
  collective_check(
      comm, ok,
      std::string(name) + " must be a finite number " + range + " (got " + shown(v) + ")");
}

void at_least(MPI_Comm comm, const char* name, std::int64_t v, std::int64_t lo) {
  collective_check(comm, v >= lo,
                   std::string(name) + " must be at least " + std::to_string(lo) + " (got " +
                       std::to_string(v) + ")");
}

}  // namespace

void check_options(MPI_Comm comm, const LpOptions& o) {
  at_least(comm, "--lp-max-iter", o.max_iterations, 1);
  in_range(comm, "--lp-tol", o.tol, 0.0, true);
}

void check_options(MPI_Comm comm, const L2boxOptions& o) {
  in_range(comm, "--l2box-rho", o.rho, 0.0, false);
  in_range(comm, "--l2box-rho-growth", o.rho_growth, 1.0, true);
  at_least(comm, "--l2box-rho-every", o.rho_every, 1);
  in_range(comm, "--l2box-gamma", o.gamma, 0.0, false);
  in_range(comm, "--l2box-gamma-factor", o.gamma_factor, 0.0, false, 1.0);
  at_least(comm, "--l2box-max-iter", o.max_iterations, 1);
  in_range(comm, "--l2box-stop", o.stop, 0.0, true);
  in_range(comm, "--l2box-std-tol", o.std_tol, 0.0, true);
  at_least(comm, "--l2box-history", o.history, 2);
  in_range(comm, "--l2box-cg-tol", o.cg_tol, 0.0, false);
  at_least(comm, "--l2box-cg-max-iter", o.cg_max_iterations, 1);
}

void check_options(MPI_Comm comm, const MpecOptions& o) {
  in_range(comm, "--mpec-rho", o.rho, 0.0, false);
  in_range(comm, "--mpec-growth", o.growth, 1.0, true);
  at_least(comm, "--mpec-every", o.every, 1);
  at_least(comm, "--mpec-max-iter", o.max_iterations, 1);
  at_least(comm, "--mpec-inner-iter", o.inner_iterations, 1);
  in_range(comm, "--mpec-inner-tol", o.inner_tol, 0.0, true);
  in_range(comm, "--mpec-tol", o.gap_tol, 0.0, true);
}

void check_size(const FixedPointGraph& g, std::int64_t k, const char* method) {
  collective_check(g.comm, k >= 1 && k <= g.n(),
                   std::string(method) + ": need 1 <= k <= n (k = " + std::to_string(k) +
                       ", n = " + std::to_string(g.n()) + ")");
}

}  // namespace lsgl::dpcd
