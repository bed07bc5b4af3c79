#pragma once
// The options of `lsgl learn` and `lsgl theta`: the data, the candidate search and every model's
// parameters (set by the CLI, read by the pipeline and the models).
#include <cstdint>
#include <string>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/candidates_file.hpp"
#include "lsgl/learn/solver.hpp"

namespace lsgl {

// --support full: every pair is allowed (exact search of all n - 1 neighbours), O(n^2) memory and
// time, so it is refused above this many nodes.
constexpr std::int64_t kFullSupportMaxNodes = 5000;

struct LearnOptions {
  std::string model = "log";  // log, l2, hard, soft or knn
  std::string support = "ann";  // ann: each node's r*k (knn: k) candidates; full: all pairs
  std::string order = "locality";  // locality: rows renumbered internally (graph/locality_order); input
  double sigma = 0.0;    // knn: kernel width (0: sigma^2 = mean k-th neighbour squared distance)
  double mu = 0.0;       // soft: penalty weight (0: mean squared feature distance of allowed edges)
  int project_dim = 0;   // hard, soft: project the features to this many dimensions (0: keep)
  std::string input;
  std::string dataset = "/X";
  std::string metric = "euclidean";  // cosine: rows scaled to unit norm first (io/metric.hpp)
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
  double prune = 1e-4;     // weights <= prune (alpha = beta = 1 scale) are not written
  int progress_every = 50;
  bool quiet = false;
  std::string checkpoint;    // write the learning state here (atomically; previous kept .prev)
  int checkpoint_every = 0;  // iterations between checkpoints (0: only when interrupted)
  std::string resume;        // continue from this checkpoint (any number of ranks)
  // Provenance stored in the output file.
  std::string command_line;
  std::string configuration;
};

}  // namespace lsgl
