// --model hard and --model soft: Daitch, Kelner & Spielman 2009 as in [KP19] appendix C
// (eq. 22 and 23), on the node features (optionally randomly projected).
#include <cmath>
#include <cstdio>
#include <string>

#include "lsgl/learn/solvers/daitch.hpp"
#include "lsgl/learn/projection.hpp"
#include "lsgl/util/error.hpp"
#include "models.hpp"

namespace lsgl {

namespace {

class DaitchModel : public Model {
 public:
  DaitchModel(MPI_Comm comm, const LearnOptions& o) : Model(comm, o), soft_(o.model == ModelKind::kSoft) {
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

  void print_summary() const override {
    if (soft_) std::printf("  mu                 %.6g%s\n", mu_, o_.mu > 0 ? "" : " (default)");
    if (o_.project_dim > 0)
      std::printf("  features           projected to %d dimensions\n", o_.project_dim);
    std::printf("  iterations         %d (%s, rel. change %.2e, tol %.0e)\n", report_.iterations,
                report_.converged ? "converged" : "NOT converged", report_.rel_change_primal,
                o_.solver.tol);
  }

 private:
  bool soft_ = false;
  double mu_ = 0.0;
};

}  // namespace

std::unique_ptr<Model> make_daitch_model(MPI_Comm comm, const LearnOptions& o) {
  return std::make_unique<DaitchModel>(comm, o);
}

}  // namespace lsgl
