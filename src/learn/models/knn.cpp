// --model knn: every node's k nearest candidates, their union or the mutual pairs, with Gaussian
// or binary (0/1) weights.
#include <cmath>

#include "lsgl/learn/models.hpp"
#include "lsgl/learn/solvers/knn.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/format.hpp"

namespace lsgl {

namespace {

class KnnModel : public Model {
 public:
  KnnModel(const ModelContext& c, const KnnModelParams& p) : Model(c), p_(p) {
    collective_check(c.comm, p.weights == KnnWeights::kGaussian || p.sigma == 0,
                     "--sigma sets the Gaussian weights; it means nothing with --knn-weights "
                     "binary");
  }
  int candidates_per_node(std::int64_t) const override { return c_.k; }
  bool iterative() const override { return false; }
  bool needs_listings() const override { return p_.mode == KnnMode::kMutual; }

  void prepare(const Candidates& cand) override {
    if (p_.weights == KnnWeights::kBinary) return;
    sigma_ = p_.sigma > 0 ? p_.sigma : std::sqrt(knn_default_sigma2(c_.comm, cand, c_.k));
  }

  std::vector<double> learn(LearnInput in) override {
    report_.converged = true;
    std::vector<double> w = p_.weights == KnnWeights::kBinary
                                ? std::vector<double>(in.edges.local_edges(), 1.0)
                                : knn_weights(in.edges, sigma_ * sigma_);
    if (p_.mode == KnnMode::kMutual) keep_mutual(*in.listings, w);
    return w;
  }

  // The whole k-NN pattern (weights that underflow to 0 and edges of one list only when mutual
  // are dropped).
  double threshold() const override { return 0.0; }

  void add_attributes(Attributes& a) const override {
    a.emplace_back("knn_mode", to_string(p_.mode));
    a.emplace_back("knn_weights", to_string(p_.weights));
    if (p_.weights == KnnWeights::kBinary) return;
    a.emplace_back("sigma", sigma_);
    a.emplace_back("sigma_default", static_cast<std::int64_t>(p_.sigma > 0 ? 0 : 1));
  }

  std::vector<std::string> summary_lines() const override {
    std::vector<std::string> lines = {strprintf("  k-NN graph         %s of the lists, %s weights",
                                                name_of(p_.mode), name_of(p_.weights))};
    if (p_.weights == KnnWeights::kGaussian)
      lines.push_back(
          strprintf("  sigma              %.6g%s", sigma_, p_.sigma > 0 ? "" : " (default)"));
    return lines;
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
