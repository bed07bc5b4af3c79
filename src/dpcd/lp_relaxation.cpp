// The LP relaxation baseline (see relaxations.hpp).
#include "lsgl/dpcd/continuous.hpp"
#include "lsgl/dpcd/relaxations.hpp"

namespace lsgl::dpcd {

RelaxationResult lp_relaxation(const FixedPointGraph& g, std::int64_t k, const LpOptions& o) {
  check_size(g, k, "lp");
  check_options(g.comm, o);
  GraphProduct W(g);
  AscentState s = ascent_start(g, W, k);
  RelaxationResult r;
  r.objective.push_back(s.xwx);
  for (; r.iterations < o.max_iterations && !r.converged; ++r.iterations) {
    r.converged = ascend(g, W, k, ScalarPenalty{}, 1, o.tol, s, nullptr);
    r.objective.push_back(s.xwx);
  }
  r.members = round_top_k(g, s.x, k, "lp");
  r.products = W.products();
  r.inner = r.iterations;
  return r;
}

}  // namespace lsgl::dpcd
