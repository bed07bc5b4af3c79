#pragma once
// Label propagation by the harmonic solution (Zhu, Ghahramani & Lafferty 2003): with the labels
// of a set of known nodes fixed, each class c gets the harmonic function f_c (L f_c = 0 on the
// unknown nodes, f_c = [label == c] on the known ones), i.e. L_uu f_u = -L_ul y_l; an unknown
// node takes the class of its largest f_c (ties: the smaller label). Nodes in components without
// a known node cannot be reached (the system is singular there): they are counted as
// `unreachable`, left out of the solve and counted as wrong in `accuracy`. Unlabelled nodes
// (labels.index -1) are never known and never scored: they take part in the solve only.
#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/eval/components.hpp"
#include "lsgl/eval/labels.hpp"
#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/graph/local_csr.hpp"

namespace lsgl {

// Collective. The known nodes: exactly max(1, round(fraction * n)) nodes (capped at n), those
// with the smallest keys mix(seed, global index) (a bijective 64-bit hash, so no ties): the
// choice depends on (n, fraction, seed) only, not on the number of ranks. Per local row of the
// block [begin, begin + count).
std::vector<char> select_known_nodes(MPI_Comm comm, std::int64_t n, std::int64_t begin,
                                     std::int64_t count, double fraction, std::uint64_t seed);

struct LabelPropagationParams {
  double fraction = 0.01;      // known share of the nodes
  std::uint64_t seed = 1;      // selects the known nodes
  double rtol = 1e-6;          // KSP relative tolerance per class
  int max_iterations = 10000;  // KSP iterations per class
  bool keep_scores = false;    // keep f_c of every local node (tests)
};

struct LabelPropagationResult {
  std::int64_t known = 0;         // nodes with a given label
  std::int64_t unknown = 0;       // labelled nodes not known (the scored ones)
  std::int64_t unreachable = 0;   // scored nodes in components without a known node
  std::int64_t correct = 0;       // unknown nodes predicted correctly
  double accuracy = 0;            // correct / unknown (unreachable nodes count as wrong)
  double accuracy_reachable = 0;  // correct / (unknown - unreachable)
  int solves = 0;                 // classes with at least one known node
  std::int64_t iterations_total = 0, iterations_max = 0;
  bool converged = true;         // every solve reached rtol
  std::string solver;            // KSP and PC types used
  std::vector<char> known_flag;  // per local row
  std::vector<std::int32_t>
      prediction;              // per local row: class index (known: its own; -1: unreachable)
  std::vector<double> scores;  // keep_scores: local rows x classes, row-major
};

// Collective. `known` must hold labelled nodes only.
// Solves one linear system per class with PETSc KSP (CG, Jacobi preconditioner;
// PETSc options with prefix -lp_, e.g. -lp_pc_type gamg, override) on the distributed matrix of
// laplacian_matrix with the known and unreachable nodes as identity rows.
LabelPropagationResult propagate_labels(const CsrGhosts& ghosts, const LocalCsr& m,
                                        const Components& components, const NodeLabels& labels,
                                        const std::vector<char>& known,
                                        const LabelPropagationParams& params);

}  // namespace lsgl
