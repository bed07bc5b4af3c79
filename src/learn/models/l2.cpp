// --model l2: [KP19] eq. 4, alpha given or searched until the average degree is k.
#include <algorithm>

#include "lsgl/learn/models.hpp"
#include "lsgl/learn/solvers/l2.hpp"
#include "lsgl/util/format.hpp"

namespace lsgl {

namespace {

class L2Model : public Model {
 public:
  L2Model(const ModelContext& c, const L2ModelParams& p) : Model(c), p_(p) {}

  std::vector<double> learn(LearnInput in) override {
    L2Params lp;
    lp.tol = c_.solver.tol;
    lp.max_iterations = c_.solver.max_iterations;
    lp.monitor = c_.monitor;
    L2Report rep;
    std::vector<double> w;
    if (p_.alpha > 0) {
      alpha_ = p_.alpha;
      w = learn_l2(in.edges, p_.alpha, lp, rep);
      iterations_total_ = rep.iterations;
    } else {
      L2Search search;
      w = l2_to_degree(
          in.edges, c_.k, c_.prune, lp, c_.degree, search,
          [&](double alpha, double degree, const L2Report& r) { report_solve(alpha, degree, r); });
      rep = search.last;
      alpha_ = search.alpha;
      solves_ = search.solves;
      iterations_total_ = search.iterations;
      degree_reached_ = search.reached;
    }
    report_.iterations = rep.iterations;
    report_.iterations_run = iterations_total_;  // for the time per iteration
    report_.converged = rep.converged;
    report_.rel_change_primal = rep.rel_change;
    report_.norm_S = rep.norm_S;
    return w;
  }

  void add_attributes(Attributes& a) const override {
    a.emplace_back("alpha", alpha_);
    a.emplace_back("alpha_searched", static_cast<std::int64_t>(searched() ? 1 : 0));
    a.emplace_back("alpha_solves", static_cast<std::int64_t>(solves_));
    a.emplace_back("degree_tol", c_.degree.tol);
    a.emplace_back("degree_reached", static_cast<std::int64_t>(degree_reached_ ? 1 : 0));
    a.emplace_back("iterations_total", static_cast<std::int64_t>(iterations_total_));
    a.emplace_back("iterations", static_cast<std::int64_t>(report_.iterations));
    a.emplace_back("converged", static_cast<std::int64_t>(report_.converged ? 1 : 0));
    a.emplace_back("rel_change_primal", report_.rel_change_primal);
    a.emplace_back("tol", c_.solver.tol);
  }

  std::vector<std::string> summary_lines() const override {
    std::string alpha = strprintf("  alpha              %.6g (given)", alpha_);
    if (searched())
      alpha = strprintf("  alpha              %.6g (searched for k: %d solves, %d iterations%s)",
                        alpha_, solves_, iterations_total_,
                        degree_reached_ ? "" : "; NOT within --degree-tol, closest kept");
    else if (p_.alpha <= 0)
      alpha = strprintf("  alpha              %.6g (the mean distance of the allowed edges, "
                        "--degree-tol 0)",
                        alpha_);
    return {alpha,
            strprintf("  iterations         %d (%s, rel. change %.2e, tol %.0e)",
                      report_.iterations, report_.converged ? "converged" : "NOT converged",
                      report_.rel_change_primal, c_.solver.tol)};
  }

 private:
  // alpha was searched for k (not given, and --degree-tol > 0).
  bool searched() const { return p_.alpha <= 0 && c_.degree.tol > 0; }

  const L2ModelParams p_;

  void report_solve(double alpha, double degree, const L2Report& r) const {
    inform(
        strprintf("  alpha %.6g: average degree %.3f, %d iterations (%.1f projection steps "
                  "each)%s",
                  alpha, degree, r.iterations,
                  static_cast<double>(r.projection_steps) / std::max(1, r.iterations),
                  r.converged ? "" : " (NOT converged)"));
  }

  double alpha_ = 0.0;
  int solves_ = 0;  // solutions computed by the alpha search (0: alpha given)
  bool degree_reached_ = false;  // the search's closest solve is within --degree-tol
  int iterations_total_ = 0;
};

}  // namespace

std::unique_ptr<Model> make_l2_model(const ModelContext& c, const L2ModelParams& p) {
  return std::make_unique<L2Model>(c, p);
}

}  // namespace lsgl
