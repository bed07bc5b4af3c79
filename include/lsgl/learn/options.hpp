#pragma once
// The options of `lsgl learn` and `lsgl theta`: the data, the candidate search and every model's
// parameters (set by the CLI, read by the pipeline and the models).
#include <cstdint>
#include <string>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/candidates_file.hpp"
#include "lsgl/graph/locality_order.hpp"
#include "lsgl/io/metric.hpp"
#include "lsgl/learn/solver.hpp"
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
inline constexpr Named<Support> kSupportNames[] = {{Support::kAnn, "ann"}, {Support::kFull, "full"}};
constexpr const auto& names(Support) { return kSupportNames; }

// --support full: every pair is allowed (exact search of all n - 1 neighbours), O(n^2) memory and
// time, so it is refused above this many nodes.
constexpr std::int64_t kFullSupportMaxNodes = 5000;

struct LearnOptions {
  ModelKind model = ModelKind::kLog;
  Support support = Support::kAnn;
  NodeOrder order = NodeOrder::kLocality;  // locality: rows renumbered internally
  double sigma = 0.0;    // knn: kernel width (0: sigma^2 = mean k-th neighbour squared distance)
  double mu = 0.0;       // soft: penalty weight (0: mean squared feature distance of allowed edges)
  int project_dim = 0;   // hard, soft: project the features to this many dimensions (0: keep)
  std::string input;
  std::string dataset = "/X";
  Metric metric = Metric::kEuclidean;  // cosine: rows scaled to unit norm first
  // --candidates: neighbour lists read from this file instead of searched (max_m is set to the
  // candidates per node of the model).
  std::string candidates;
  CandidatesFileOptions candidates_file;
  std::string output;
  int k = 10;            // desired average number of neighbours
  double r = 3.0;        // candidates per node = round(r * k)
  double theta = 0.0;    // > 0: use this theta instead of eq. 18
  double alpha = 0.0;    // log: with beta > 0, use them (theta = 1/sqrt(alpha beta));
                         // l2: this alpha instead of the search for k
  double beta = 0.0;
  AnnParams ann;
  int recall_sample = 300;
  std::uint64_t seed = 1;
  SolverParams solver;
  // log model, theta from [KP19] eq. 18: theta is corrected until the average degree is within
  // this relative tolerance of k (0: no correction), in at most max_solves solves.
  double degree_tol = 0.05;
  int max_solves = 6;
  // Tolerance of the solves that only measure the degree while theta is corrected; the theta
  // kept is then solved to --tol, continuing from its state.
  double degree_search_tol = 3e-4;
  double prune = 1e-4;       // weights <= prune (alpha = beta = 1 scale) are not written
  std::string checkpoint;    // write the learning state here (atomically; previous kept .prev)
  int checkpoint_every = 0;  // iterations between checkpoints (0: only when interrupted)
  std::string resume;        // continue from this checkpoint (any number of ranks)
  // Provenance stored in the output file.
  std::string command_line;
  std::string configuration;
};

}  // namespace lsgl
