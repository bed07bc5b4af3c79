#include "lsgl/learn/model.hpp"

#include <algorithm>
#include <cmath>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "models.hpp"

namespace lsgl {

namespace {

// The options that belong to some models only, and the message when another model gets them.
struct ModelOption {
  const char* name;
  bool (*given)(const LearnOptions&);
  const char* message;
};

const ModelOption kModelOptions[] = {
    {"theta", [](const LearnOptions& o) { return o.theta != 0; },
     "--theta and --beta belong to --model log"},
    {"beta", [](const LearnOptions& o) { return o.beta != 0; },
     "--theta and --beta belong to --model log"},
    {"alpha", [](const LearnOptions& o) { return o.alpha != 0; },
     "--alpha belongs to --model log or l2"},
    {"checkpoint", [](const LearnOptions& o) { return !o.checkpoint.empty(); },
     "--checkpoint and --resume work with --model log only"},
    {"resume", [](const LearnOptions& o) { return !o.resume.empty(); },
     "--checkpoint and --resume work with --model log only"},
    {"sigma", [](const LearnOptions& o) { return o.sigma != 0; },
     "--sigma must be positive and belongs to --model knn"},
    {"mu", [](const LearnOptions& o) { return o.mu != 0; },
     "--mu must be positive and belongs to --model soft"},
    {"project-dim", [](const LearnOptions& o) { return o.project_dim != 0; },
     "--project-dim must be positive and belongs to --model hard or soft"},
};

}  // namespace

Model::Model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor)
    : comm_(comm), o_(o), monitor_(monitor) {}

int Model::candidates_per_node(std::int64_t n) const {
  if (o_.support == Support::kFull) return static_cast<int>(n - 1);
  return static_cast<int>(std::lround(o_.r * o_.k));
}

void Model::attach_data(const LocalRows&) {}

void Model::prepare(const Candidates&) {}

EdgeSet Model::resume(const std::string&, double*) {
  throw CollectiveError("--resume works with --model log only");
}

std::string Model::prepared_line(std::int64_t allowed_edges) const {
  return "model " + to_string(o_.model) + ", " + std::to_string(allowed_edges) + " allowed edges";
}

void Model::refuse_foreign_options(const std::vector<std::string>& owned) const {
  for (const ModelOption& opt : kModelOptions) {
    const bool mine = std::find(owned.begin(), owned.end(), opt.name) != owned.end();
    collective_check(comm_, mine || !opt.given(o_), opt.message);
  }
}

std::unique_ptr<Model> make_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor) {
  switch (o.model) {
    case ModelKind::kLog:
      return make_log_model(comm, o, monitor);
    case ModelKind::kL2:
      return make_l2_model(comm, o, monitor);
    case ModelKind::kKnn:
      return make_knn_model(comm, o, monitor);
    case ModelKind::kHard:
    case ModelKind::kSoft: break;
  }
  return make_daitch_model(comm, o, monitor);
}

}  // namespace lsgl
