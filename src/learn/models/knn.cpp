// --model knn: the union of every node's k nearest candidates with Gaussian weights.
#include "lsgl/learn/solvers/knn.hpp"

#include <cmath>

#include "lsgl/util/format.hpp"
#include "models.hpp"

namespace lsgl {

namespace {

class KnnModel : public Model {
 public:
  KnnModel(MPI_Comm comm, const LearnOptions& o, Monitor& monitor) : Model(comm, o, monitor) {
    refuse_foreign_options({"sigma"});
  }
  int candidates_per_node(std::int64_t) const override { return o_.k; }
  bool iterative() const override { return false; }

  void prepare(const Candidates& cand) override {
    sigma_ = o_.sigma > 0 ? o_.sigma : std::sqrt(knn_default_sigma2(comm_, cand, o_.k));
  }

  std::vector<double> learn(LearnInput in) override {
    report_.converged = true;
    return knn_weights(in.edges, sigma_ * sigma_);
  }

  // The whole k-NN pattern (weights that underflow to 0 are dropped).
  double threshold() const override { return 0.0; }

  void add_attributes(Attributes& a) const override {
    a.emplace_back("sigma", sigma_);
    a.emplace_back("sigma_default", static_cast<std::int64_t>(o_.sigma > 0 ? 0 : 1));
  }

  std::vector<std::string> summary_lines() const override {
    return {strprintf("  sigma              %.6g%s", sigma_, o_.sigma > 0 ? "" : " (default)")};
  }

 private:
  double sigma_ = 0.0;
};

}  // namespace

std::unique_ptr<Model> make_knn_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor) {
  return std::make_unique<KnnModel>(comm, o, monitor);
}

}  // namespace lsgl
