#pragma once
// One model of `lsgl learn`, between the candidate search and the write: the options it owns,
// the parameters it chooses from the candidates, its learning on the allowed edges, and what it
// records in the output and the summary. One class per model in src/learn/models/: log ([KP19]
// eq. 5, the default), l2 ([KP19] eq. 4), hard and soft (Daitch et al. 2009, [KP19] eq. 22, 23)
// and knn (Gaussian-weighted k-NN graph).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/edgeset.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/learn/options.hpp"
#include "lsgl/learn/solver.hpp"
#include "lsgl/util/monitor.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// The allowed edges with what the learning needs besides them.
struct LearnInput {
  const EdgeSet& edges;
  LocalRows features;   // this rank's rows in node order (models with needs_features() only)
  double recall = -1;   // candidate recall estimate (recorded in checkpoints)
};

class Model {
 public:
  Model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor);
  virtual ~Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  ModelKind kind() const { return o_.model; }
  // Local. Candidates per node of a search over n nodes: round(r * k), every other node with
  // --support full.
  virtual int candidates_per_node(std::int64_t n) const;
  // Local. The model needs the node features in node order (no locality renumbering).
  virtual bool needs_features() const { return false; }
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
  virtual double threshold() const { return o_.prune; }
  virtual double scale() const { return 1.0; }
  // Local. The model's attributes of /graph (appended to the common ones).
  virtual void add_attributes(Attributes& a) const = 0;
  // Local. One line after prepare(), and the model's lines of the summary.
  virtual std::string prepared_line(std::int64_t allowed_edges) const;
  virtual std::vector<std::string> summary_lines() const = 0;

  // What the learning did (iterations, convergence, bytes moved, interruption).
  const SolverReport& report() const { return report_; }

 protected:
  // Collective. Refuses the options of other models that are set (e.g. --sigma without
  // --model knn); `owned` lists the option names this model takes.
  void refuse_foreign_options(const std::vector<std::string>& owned) const;
  // Local. An information line for the monitor.
  void inform(const std::string& line) const { monitor_.message(MessageKind::kInfo, line); }

  MPI_Comm comm_;
  const LearnOptions& o_;
  Monitor& monitor_;
  SolverReport report_;
};

// Collective. The model named by o.model, its options checked (CollectiveError on every rank for
// an unknown model or a misplaced option).
std::unique_ptr<Model> make_model(MPI_Comm comm, const LearnOptions& o, Monitor& monitor);

}  // namespace lsgl
