#pragma once
// One model of `lsgl learn`, between the candidate search and the write: the parameters it
// chooses from the candidates, its learning on the allowed edges, and what it records in the
// output and the summary. One class per model in src/learn/models/ (models.hpp lists them with
// their own parameters): log ([KP19] eq. 5, the default), l2 ([KP19] eq. 4), hard and soft
// (Daitch et al. 2009, [KP19] eq. 22, 23) and knn (Gaussian-weighted k-NN graph). A model is
// given a ModelContext (what every model shares) and its own parameters, never the command's
// options; it reports to the context's monitor and never prints.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/edgeset.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/learn/degree_search.hpp"
#include "lsgl/learn/solver.hpp"
#include "lsgl/util/monitor.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// --model: log ([KP19] eq. 5, the default), l2 ([KP19] eq. 4), hard and soft (Daitch et al.
// 2009, [KP19] eq. 22, 23) or knn (Gaussian-weighted k-NN graph).
enum class ModelKind { kLog, kL2, kHard, kSoft, kKnn };
inline constexpr Named<ModelKind> kModelKindNames[] = {{ModelKind::kLog, "log"},
                                                       {ModelKind::kL2, "l2"},
                                                       {ModelKind::kHard, "hard"},
                                                       {ModelKind::kSoft, "soft"},
                                                       {ModelKind::kKnn, "knn"}};
constexpr const auto& names(ModelKind) { return kModelKindNames; }

// --support: ann (each node's round(r*k) candidates, knn: k) or full (every pair).
enum class Support { kAnn, kFull };
inline constexpr Named<Support> kSupportNames[] = {{Support::kAnn, "ann"},
                                                   {Support::kFull, "full"}};
constexpr const auto& names(Support) { return kSupportNames; }

// What every model is given besides its own parameters.
struct ModelContext {
  MPI_Comm comm = MPI_COMM_WORLD;
  Monitor* monitor = &null_monitor();  // never null
  ModelKind kind = ModelKind::kLog;
  int k = 10;                        // desired average number of neighbours
  double r = 3.0;                    // candidates per node = round(r * k)
  Support support = Support::kAnn;
  double prune = 1e-4;               // weights <= prune (alpha = beta = 1 scale) are not written
  std::uint64_t seed = 1;
  SolverParams solver;               // tol and max_iterations: every iterative model
  DegreeTarget degree;               // the models that search a parameter for k (log, l2)
};

// The allowed edges with what the learning needs besides them.
struct LearnInput {
  const EdgeSet& edges;
  LocalRows features;   // this rank's rows in node order (models with needs_features() only)
  double recall = -1;   // candidate recall estimate (recorded in checkpoints)
  // Models with needs_listings() only: how many of each local edge's two nodes list the other
  // among their candidates (1 or 2), in edge order.
  const std::vector<double>* listings = nullptr;
};

class Model {
 public:
  explicit Model(const ModelContext& c) : c_(c) {}
  virtual ~Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  ModelKind kind() const { return c_.kind; }
  // Local. Candidates per node of a search over n nodes: round(r * k), every other node with
  // --support full.
  virtual int candidates_per_node(std::int64_t n) const;
  // Local. The model needs the node features in node order (no locality renumbering).
  virtual bool needs_features() const { return false; }
  // Local. The model needs to know which edges both their nodes list (LearnInput::listings).
  virtual bool needs_listings() const { return false; }
  // Local. The model iterates (every model but knn).
  virtual bool iterative() const { return true; }
  // Local. Name of the phase that turns candidates into the allowed edges and parameters.
  virtual const char* prepare_phase() const { return "edges"; }

  // Collective. Called once with the data as read (the log model keys its checkpoints on it).
  virtual void attach_data(const LocalRows& data);
  // Collective. The parameters chosen from the candidate lists (theta, sigma, ...).
  virtual void prepare(const Candidates& cand);
  // Collective. Continues from the checkpoint `path` instead of a search and prepare(): returns
  // its allowed edges and sets *recall. Only models with checkpoints (log) support it.
  virtual EdgeSet resume(const std::string& path, double* recall);
  // Collective. The weight of every local allowed edge; fills report().
  virtual std::vector<double> learn(LearnInput in) = 0;

  // Local. Weights <= threshold() are not written; the others are multiplied by scale().
  virtual double threshold() const { return c_.prune; }
  virtual double scale() const { return 1.0; }
  // Local. The model's attributes of /graph (appended to the common ones).
  virtual void add_attributes(Attributes& a) const = 0;
  // Local. One line after prepare(), and the model's lines of the summary.
  virtual std::string prepared_line(std::int64_t allowed_edges) const;
  virtual std::vector<std::string> summary_lines() const = 0;

  // What the learning did (iterations, convergence, bytes moved, interruption).
  const SolverReport& report() const { return report_; }

 protected:
  // Local. An information line for the monitor.
  void inform(const std::string& line) const { c_.monitor->message(MessageKind::kInfo, line); }

  const ModelContext c_;
  SolverReport report_;
};

}  // namespace lsgl
