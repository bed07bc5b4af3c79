// --model knn: the union of every node's k nearest candidates with Gaussian weights.
#include <cmath>

#include "lsgl/learn/models.hpp"
#include "lsgl/learn/solvers/knn.hpp"
#include "lsgl/util/format.hpp"

namespace lsgl {

namespace {

class KnnModel : public Model {
 public:
  KnnModel(const ModelContext& c, const KnnModelParams& p) : Model(c), p_(p) {}
  int candidates_per_node(std::int64_t) const override { return c_.k; }
  bool iterative() const override { return false; }

  void prepare(const Candidates& cand) override {
    sigma_ = p_.sigma > 0 ? p_.sigma : std::sqrt(knn_default_sigma2(c_.comm, cand, c_.k));
  }

  std::vector<double> learn(LearnInput in) override {
    report_.converged = true;
    return knn_weights(in.edges, sigma_ * sigma_);
  }

  // The whole k-NN pattern (weights that underflow to 0 are dropped).
  double threshold() const override { return 0.0; }

  void add_attributes(Attributes& a) const override {
    a.emplace_back("sigma", sigma_);
    a.emplace_back("sigma_default", static_cast<std::int64_t>(p_.sigma > 0 ? 0 : 1));
  }

  std::vector<std::string> summary_lines() const override {
    return {strprintf("  sigma              %.6g%s", sigma_, p_.sigma > 0 ? "" : " (default)")};
  }

 private:
  const KnnModelParams p_;
  double sigma_ = 0.0;
};

}  // namespace

std::unique_ptr<Model> make_knn_model(const ModelContext& c, const KnnModelParams& p) {
  return std::make_unique<KnnModel>(c, p);
}

}  // namespace lsgl
