// --model hard and --model soft: Daitch, Kelner & Spielman 2009 as in [KP19] appendix C
// (eq. 22 and 23), on the node features (optionally randomly projected).
#include <cmath>
#include <string>

#include "lsgl/learn/models.hpp"
#include "lsgl/learn/projection.hpp"
#include "lsgl/learn/solvers/daitch.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/format.hpp"

namespace lsgl {

namespace {

class DaitchModel : public Model {
 public:
  DaitchModel(const ModelContext& c, const DaitchModelParams& p)
      : Model(c), p_(p), soft_(c.kind == ModelKind::kSoft) {}
  bool needs_features() const override { return true; }

  std::vector<double> learn(LearnInput in) override {
    LocalRows features = p_.project_dim > 0
                             ? random_projection(in.features, p_.project_dim, c_.seed)
                             : std::move(in.features);
    const DaitchOperator op(in.edges, features);
    features = LocalRows();
    DaitchParams dp;
    dp.tol = c_.solver.tol;
    dp.max_iterations = c_.solver.max_iterations;
    dp.monitor = c_.monitor;
    DaitchReport rep;
    std::vector<double> w;
    if (soft_) {
      mu_ = p_.mu > 0 ? p_.mu : op.mean_squared_distance();
      collective_check(c_.comm, mu_ > 0 && std::isfinite(mu_),
                       "the default --mu (the mean squared distance of the allowed edges) is " +
                           std::to_string(mu_) + " (identical rows?); give --mu explicitly");
      w = learn_soft(op, mu_, dp, rep);
    } else {
      w = learn_hard(op, dp, rep);
    }
    report_.iterations = report_.iterations_run = rep.iterations;
    report_.converged = rep.converged;
    report_.rel_change_primal = rep.rel_change_primal;
    report_.rel_change_dual = rep.rel_change_dual;
    report_.norm_S = rep.norm_S;
    return w;
  }

  void add_attributes(Attributes& a) const override {
    if (soft_) a.emplace_back("mu", mu_);
    a.emplace_back("project_dim", static_cast<std::int64_t>(p_.project_dim));
    a.emplace_back("iterations", static_cast<std::int64_t>(report_.iterations));
    a.emplace_back("converged", static_cast<std::int64_t>(report_.converged ? 1 : 0));
    a.emplace_back("rel_change_primal", report_.rel_change_primal);
    a.emplace_back("tol", c_.solver.tol);
    if (!soft_) a.emplace_back("rel_change_dual", report_.rel_change_dual);
  }

  std::vector<std::string> summary_lines() const override {
    std::vector<std::string> lines;
    if (soft_)
      lines.push_back(strprintf("  mu                 %.6g%s", mu_, p_.mu > 0 ? "" : " (default)"));
    if (p_.project_dim > 0)
      lines.push_back(strprintf("  features           projected to %d dimensions", p_.project_dim));
    lines.push_back(strprintf("  iterations         %d (%s, rel. change %.2e, tol %.0e)",
                              report_.iterations, report_.converged ? "converged" : "NOT converged",
                              report_.rel_change_primal, c_.solver.tol));
    return lines;
  }

 private:
  const DaitchModelParams p_;
  bool soft_ = false;
  double mu_ = 0.0;
};

}  // namespace

std::unique_ptr<Model> make_daitch_model(const ModelContext& c, const DaitchModelParams& p) {
  return std::make_unique<DaitchModel>(c, p);
}

}  // namespace lsgl
