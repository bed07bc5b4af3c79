// --model hard and --model soft: Daitch, Kelner & Spielman 2009 as in [KP19] appendix C
// (eq. 22 and 23), on the node features (optionally randomly projected).
#include "lsgl/learn/solvers/daitch.hpp"

#include <cmath>
#include <string>

#include "lsgl/learn/projection.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/format.hpp"
#include "models.hpp"

namespace lsgl {

namespace {

class DaitchModel : public Model {
 public:
  DaitchModel(MPI_Comm comm, const LearnOptions& o, Monitor& monitor)
      : Model(comm, o, monitor), soft_(o.model == ModelKind::kSoft) {
    refuse_foreign_options(soft_ ? std::vector<std::string>{"mu", "project-dim"}
                                 : std::vector<std::string>{"project-dim"});
  }
  bool needs_features() const override { return true; }

  std::vector<double> learn(LearnInput in) override {
    LocalRows features = o_.project_dim > 0
                             ? random_projection(in.features, o_.project_dim, o_.seed)
                             : std::move(in.features);
    const DaitchOperator op(in.edges, features);
    features = LocalRows();
    DaitchParams dp;
    dp.tol = o_.solver.tol;
    dp.max_iterations = o_.solver.max_iterations;
    DaitchReport rep;
    std::vector<double> w;
    if (soft_) {
      mu_ = o_.mu > 0 ? o_.mu : op.mean_squared_distance();
      collective_check(comm_, mu_ > 0 && std::isfinite(mu_),
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
    a.emplace_back("project_dim", static_cast<std::int64_t>(o_.project_dim));
    a.emplace_back("iterations", static_cast<std::int64_t>(report_.iterations));
    a.emplace_back("converged", static_cast<std::int64_t>(report_.converged ? 1 : 0));
    a.emplace_back("rel_change_primal", report_.rel_change_primal);
    a.emplace_back("tol", o_.solver.tol);
    if (!soft_) a.emplace_back("rel_change_dual", report_.rel_change_dual);
  }

  std::vector<std::string> summary_lines() const override {
    std::vector<std::string> lines;
    if (soft_)
      lines.push_back(strprintf("  mu                 %.6g%s", mu_, o_.mu > 0 ? "" : " (default)"));
    if (o_.project_dim > 0)
      lines.push_back(strprintf("  features           projected to %d dimensions", o_.project_dim));
    lines.push_back(strprintf("  iterations         %d (%s, rel. change %.2e, tol %.0e)",
                              report_.iterations, report_.converged ? "converged" : "NOT converged",
                              report_.rel_change_primal, o_.solver.tol));
    return lines;
  }

 private:
  bool soft_ = false;
  double mu_ = 0.0;
};

}  // namespace

std::unique_ptr<Model> make_daitch_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor) {
  return std::make_unique<DaitchModel>(comm, o, monitor);
}

}  // namespace lsgl
