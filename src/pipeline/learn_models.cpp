// The table of the models of `lsgl learn`: one line per model.
#include "learn_models.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "lsgl/learn/models.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl {

namespace {

// The options that belong to some models only.
enum class Own {
  kTheta, kBeta, kAlpha, kCheckpoint, kResume, kSigma, kKnnMode, kKnnWeights, kMu, kProjectDim
};

// A model: its --model value, the options of its own (besides those every model takes) and how
// it is made from the options.
struct ModelEntry {
  ModelKind kind;
  std::vector<Own> owned;
  std::unique_ptr<Model> (*make)(const ModelContext& c, const LearnOptions& o);
};

const ModelEntry kModels[] = {
    {ModelKind::kLog, {Own::kTheta, Own::kBeta, Own::kAlpha, Own::kCheckpoint, Own::kResume},
     [](const ModelContext& c, const LearnOptions& o) {
       return make_log_model(
           c, {o.theta, o.alpha, o.beta, o.checkpoint, o.checkpoint_every, checkpoint_key(o)});
     }},
    {ModelKind::kL2, {Own::kAlpha},
     [](const ModelContext& c, const LearnOptions& o) { return make_l2_model(c, {o.alpha}); }},
    {ModelKind::kHard, {Own::kProjectDim},
     [](const ModelContext& c, const LearnOptions& o) {
       return make_daitch_model(c, {o.mu, o.project_dim});
     }},
    {ModelKind::kSoft, {Own::kMu, Own::kProjectDim},
     [](const ModelContext& c, const LearnOptions& o) {
       return make_daitch_model(c, {o.mu, o.project_dim});
     }},
    {ModelKind::kKnn, {Own::kSigma, Own::kKnnMode, Own::kKnnWeights},
     [](const ModelContext& c, const LearnOptions& o) {
       return make_knn_model(c, {o.sigma, o.knn_mode, o.knn_weights});
     }},
};

// Whether an option of some models only is given, and the message when another model gets it.
struct OwnOption {
  Own option;
  bool (*given)(const LearnOptions&);
  const char* message;
};

const OwnOption kOwnOptions[] = {
    {Own::kTheta, [](const LearnOptions& o) { return o.theta != 0; },
     "--theta and --beta belong to --model log"},
    {Own::kBeta, [](const LearnOptions& o) { return o.beta != 0; },
     "--theta and --beta belong to --model log"},
    {Own::kAlpha, [](const LearnOptions& o) { return o.alpha != 0; },
     "--alpha belongs to --model log or l2"},
    {Own::kCheckpoint, [](const LearnOptions& o) { return !o.checkpoint.empty(); },
     "--checkpoint and --resume work with --model log only"},
    {Own::kResume, [](const LearnOptions& o) { return !o.resume.empty(); },
     "--checkpoint and --resume work with --model log only"},
    {Own::kSigma, [](const LearnOptions& o) { return o.sigma != 0; },
     "--sigma must be positive and belongs to --model knn"},
    {Own::kKnnMode, [](const LearnOptions& o) { return o.knn_mode != KnnMode::kUnion; },
     "--knn-mode belongs to --model knn"},
    {Own::kKnnWeights,
     [](const LearnOptions& o) { return o.knn_weights != KnnWeights::kGaussian; },
     "--knn-weights belongs to --model knn"},
    {Own::kMu, [](const LearnOptions& o) { return o.mu != 0; },
     "--mu must be positive and belongs to --model soft"},
    {Own::kProjectDim, [](const LearnOptions& o) { return o.project_dim != 0; },
     "--project-dim must be positive and belongs to --model hard or soft"},
};

ModelContext model_context(MPI_Comm comm, const LearnOptions& o, Monitor& monitor) {
  ModelContext c;
  c.comm = comm;
  c.monitor = &monitor;
  c.kind = o.model;
  c.k = o.k;
  c.r = o.r;
  c.support = o.support;
  c.prune = o.prune;
  c.seed = o.seed;
  c.solver = o.solver;
  c.degree = {o.degree_tol, o.max_solves, o.degree_search_tol};
  return c;
}

}  // namespace

std::unique_ptr<Model> make_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor) {
  const ModelEntry& entry = *std::find_if(std::begin(kModels), std::end(kModels),
                                          [&](const ModelEntry& e) { return e.kind == o.model; });
  for (const OwnOption& opt : kOwnOptions) {
    const bool mine =
        std::find(entry.owned.begin(), entry.owned.end(), opt.option) != entry.owned.end();
    collective_check(comm, mine || !opt.given(o), opt.message);
  }
  return entry.make(model_context(comm, o, monitor), o);
}

std::string checkpoint_key(const LearnOptions& o) {
  AnnParams ann = o.ann;
  ann.threads = 1;
  std::ostringstream k;
  k.precision(12);
  k << " k=" << o.k << " r=" << o.r << " theta=" << o.theta << " alpha=" << o.alpha
    << " beta=" << o.beta << " ann=[" << ann.describe() << "] seed=" << o.seed
    << " step=" << o.solver.step << " dual_scale=" << o.solver.dual_scale
    << " balance_every=" << o.solver.balance_every;
  // absent from older checkpoints; the node ids of the checkpoint; the meaning of the duals
  if (o.support != Support::kAnn) k << " support=" << name_of(o.support);
  if (o.order != NodeOrder::kInput) k << " order=" << name_of(o.order);
  if (o.solver.solver != SolverKind::kFbf) k << " solver=" << name_of(o.solver.solver);
  return k.str();
}

}  // namespace lsgl
