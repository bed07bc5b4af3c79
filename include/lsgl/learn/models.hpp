#pragma once
// The models of `lsgl learn` (model.hpp), one file each in src/learn/models/, with the
// parameters that belong to each alone. Collective: each factory checks its parameters
// (CollectiveError on every rank). A new model is a file in src/learn/models/ (its class and
// factory, declared here with its parameters), its solver in src/learn/solvers/ if it needs one,
// and one line in the pipeline's table of models (src/pipeline/learn_models.cpp).
#include <memory>
#include <string>

#include "lsgl/learn/model.hpp"

namespace lsgl {

// --model log ([KP19] eq. 5): theta from [KP19] eq. 18, corrected until the average degree is
// k (c.degree), solved by c.solver.solver; checkpoints and resume.
struct LogModelParams {
  double theta = 0.0;  // > 0: this theta instead of eq. 18
  // Both > 0: the model's alpha and beta (theta = 1/sqrt(alpha beta), weights scaled by
  // sqrt(alpha/beta)); given together or not at all, and not with theta.
  double alpha = 0.0, beta = 0.0;
  std::string checkpoint;    // write the learning state here (atomically; previous kept .prev)
  int checkpoint_every = 0;  // iterations between checkpoints (0: only when interrupted)
  // What a checkpoint must match besides the data (n, d and the data's fingerprint come first):
  // every option that changes the learned graph, as the caller writes it.
  std::string checkpoint_key;
};
std::unique_ptr<Model> make_log_model(const ModelContext& c, const LogModelParams& p);

// --model l2 ([KP19] eq. 4): alpha given, or searched until the average degree is k (c.degree).
struct L2ModelParams {
  double alpha = 0.0;  // > 0: this alpha instead of the search
};
std::unique_ptr<Model> make_l2_model(const ModelContext& c, const L2ModelParams& p);

// --model hard or soft (c.kind; Daitch et al. 2009, [KP19] eq. 22, 23) on the node features.
struct DaitchModelParams {
  double mu = 0.0;      // soft: penalty weight (0: mean squared feature distance of the edges)
  int project_dim = 0;  // project the features to this many dimensions (0: keep), seed c.seed
};
std::unique_ptr<Model> make_daitch_model(const ModelContext& c, const DaitchModelParams& p);

// --knn-mode: union (an edge where either node is among the other's k nearest) or mutual
// (where each is among the other's k nearest).
enum class KnnMode { kUnion, kMutual };
inline constexpr Named<KnnMode> kKnnModeNames[] = {{KnnMode::kUnion, "union"},
                                                   {KnnMode::kMutual, "mutual"}};
constexpr const auto& names(KnnMode) { return kKnnModeNames; }

// --knn-weights: gaussian (exp(-z / sigma^2)) or binary (every edge 1: 0/1 connectivity).
enum class KnnWeights { kGaussian, kBinary };
inline constexpr Named<KnnWeights> kKnnWeightsNames[] = {{KnnWeights::kGaussian, "gaussian"},
                                                         {KnnWeights::kBinary, "binary"}};
constexpr const auto& names(KnnWeights) { return kKnnWeightsNames; }

// --model knn: every node's k nearest candidates (their union or the mutual pairs) with weights
// exp(-z / sigma^2) or 1.
struct KnnModelParams {
  double sigma = 0.0;  // kernel width (0: sigma^2 = mean squared distance to the k-th neighbour)
  KnnMode mode = KnnMode::kUnion;
  KnnWeights weights = KnnWeights::kGaussian;  // binary: sigma must not be given
};
std::unique_ptr<Model> make_knn_model(const ModelContext& c, const KnnModelParams& p);

}  // namespace lsgl
