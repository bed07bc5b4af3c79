#pragma once
// Dense k-subgraph with DPCD ([DPCD], "dense subgraph discovery"; docs/design.md,
// "Dense k-subgraph"):
//   maximise x^T W x over x in {0,1}^n with sum x = k,
// solved as min f(y) = -(y + 1)^T W (y + 1) over y in Omega_r (x = (y + 1) / 2), with
// grad f = -2 W (y + 1) = -4 W x. (W x)_i is the weight node i sends into the current set.
//
// Arithmetic: weights are held in fixed point (int64 multiples of 2^-bits, bits chosen from the
// largest weight and the number of stored entries so that no sum can overflow), so W x,
// x^T W x and every gain are exact integers: the iterates of every method do not depend on the
// order of additions, hence not on the number of ranks. Reported weights and densities are
// converted back to double (relative error below 2^-bits / smallest weight).
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/dpcd/optimizer.hpp"
#include "lsgl/graph/local_csr.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::dpcd {

// The symmetric graph with fixed-point weights; rows in contiguous blocks in rank order (the
// blocks of its LocalCsr, equal or balanced by entries: lsgl/graph/balance.hpp).
struct FixedPointGraph {
  MPI_Comm comm = MPI_COMM_NULL;
  Partition part;
  LocalCsr rows;                     // as read (double weights)
  std::vector<std::int64_t> q;       // per stored entry: round(w * 2^bits)
  std::vector<std::int64_t> degree;  // local weighted degrees (fixed point)
  int bits = 0;
  bool unit_weights = false;         // every stored weight is the same
  std::int64_t nnz = 0;              // stored entries, all ranks (2 x edges)
  std::int64_t max_degree = 0;       // largest weighted degree (fixed point), all ranks
  std::int64_t n() const { return rows.n; }
  std::int64_t begin() const { return rows.begin; }
  std::int64_t local_rows() const { return rows.local_rows(); }
  double to_double(std::int64_t v) const { return std::ldexp(static_cast<double>(v), -bits); }
};

// Collective. Builds the fixed-point weights (bits = 60 - ceil(log2(max weight * nnz))).
FixedPointGraph make_fixed_point(MPI_Comm comm, LocalCsr rows);

// Collective. (W x)_i for this rank's nodes, x the indicator of the members (each rank passes
// its own members, global ids): by pushing the members' rows to the owners of their neighbours,
// or, when those rows hold more than 1/8 of the entries, by scanning the local rows against the
// all-gathered member ids (k ids on every rank).
std::vector<std::int64_t> weight_into(const FixedPointGraph& g,
                                      const std::vector<std::int64_t>& members);

// The metric every method is judged by.
struct SubgraphStats {
  std::int64_t k = 0;
  std::int64_t edges_inside = 0;   // undirected edges with both ends in the set
  double weight_inside = 0.0;      // their total weight
  std::int64_t xwx = 0;            // x^T W x in fixed point (= 2 * weight inside)
  double density = 0.0;            // x^T W x / k = 2 * weight_inside / k
};

// Collective. Stats of the set given by each rank's members (global ids, local nodes only).
// The k member ids are all-gathered (O(k) on every rank); no matrix entries travel.
SubgraphStats evaluate_subgraph(const FixedPointGraph& g, const std::vector<std::int64_t>& members);

// The dense-subgraph problem for the optimiser (Problem interface; see optimizer.hpp).
// flip() updates W x incrementally: a node entering (leaving) the set adds (subtracts) its row
// to (from) W x at its neighbours only, sent to the neighbours' owners.
class DenseSubgraphProblem : public Problem {
 public:
  // Collective. Starts from the set given by each rank's members.
  DenseSubgraphProblem(const FixedPointGraph& g, const std::vector<std::int64_t>& members);
  MPI_Comm comm() const override { return g_.comm; }
  std::int64_t n() const override { return g_.n(); }
  std::int64_t begin() const override { return g_.begin(); }
  const std::vector<std::int8_t>& x() const override { return y_; }
  const std::vector<double>& gradient() const override { return grad_; }
  // f(y) = -(y+1)^T W (y+1) = -4 x^T W x.
  double objective() const override { return -4.0 * g_.to_double(xwx_); }
  void flip(const std::vector<std::int64_t>& local) override;
  // 2 ||W||_2 <= 2 * largest weighted degree (Gershgorin; W >= 0, symmetric).
  double lipschitz() override { return 2.0 * g_.to_double(g_.max_degree); }
  void flip_model(const std::vector<std::int64_t>& global, std::vector<double>& single,
                  std::vector<double>& pair) override;

  std::int64_t xwx() const { return xwx_; }  // x^T W x, fixed point, global
  const std::vector<std::int64_t>& wx() const { return wx_; }
  std::vector<std::int64_t> members() const;  // this rank's members, sorted global ids

 private:
  const FixedPointGraph& g_;
  std::vector<std::int8_t> y_;
  std::vector<std::int64_t> wx_;
  std::vector<double> grad_;
  std::int64_t inside_local_ = 0;  // sum of (W x)_i over local members
  std::int64_t xwx_ = 0;
};

// Exact change of x^T W x when member i leaves and non-member j enters (docs/design.md,
// "Dense k-subgraph"):
//   delta = 2 * ((W x)_j - (W x)_i - W_ij).
inline std::int64_t swap_gain(std::int64_t wx_i, std::int64_t wx_j, std::int64_t w_ij) {
  return 2 * (wx_j - wx_i - w_ij);
}

// An initial set of DPCD for dense subgraphs: degree (top k by weighted degree), feige, peel, or
// tpower (the truncated power method from the degree set).
enum class InitialSet { kDegree, kFeige, kPeel, kTpower };
inline constexpr Named<InitialSet> kInitialSetNames[] = {{InitialSet::kDegree, "degree"},
                                                         {InitialSet::kFeige, "feige"},
                                                         {InitialSet::kPeel, "peel"},
                                                         {InitialSet::kTpower, "tpower"}};
constexpr const auto& names(InitialSet) { return kInitialSetNames; }

// Options of `lsgl densest --method dpcd`.
struct DensestDpcdOptions {
  // The neighbourhood search looks at 16 candidates per side and may take up to 10 zero-gain
  // swaps: dense-subgraph optima sit on plateaus of equal x^T W x (on the benchmark's power-law
  // graph the 8-candidate search without plateau moves stopped 5 edges short at k = 3200).
  DensestDpcdOptions() {
    dpcd.ns_pool = 16;
    dpcd.ns_plateau = 10;
  }
  Options dpcd;
  // Initial sets tried, best x^T W x kept (ties: first listed).
  std::vector<InitialSet> init = {InitialSet::kDegree, InitialSet::kFeige, InitialSet::kPeel,
                                  InitialSet::kTpower};
  // Iterations of the truncated power method (from the top-k by degree) for the tpower set.
  int tpower_iterations = 20;
  // false: DPCD from the densest initial set only; true: DPCD from each, the densest result kept
  // (ties: the first listed).
  bool from_each = false;
};

struct DensestDpcdResult {
  std::vector<std::int64_t> members;  // this rank's members, sorted
  Report report;
  std::string init_used;       // the name of the initial set kept
  double init_density = 0.0;
  double init_seconds = 0.0;   // computing and comparing the initial sets
  double dpcd_seconds = 0.0;   // the DPCD iterations
};

// Collective. The best of the initial sets `sets` (see initial_set) by x^T W x; ties: the
// first listed. Sets *used to its name and *density to its density.
std::vector<std::int64_t> best_initial_set(const FixedPointGraph& g, std::int64_t k,
                                           const std::vector<InitialSet>& sets,
                                           int tpower_iterations, std::string* used,
                                           double* density);

// Collective. DPCD from `init` (each rank its members); history = x^T W x per iteration.
DensestDpcdResult dpcd_from(const FixedPointGraph& g, const std::vector<std::int64_t>& init,
                            const Options& o);

// Collective. The initial set `set` (tpower: `tpower_iterations` iterations at most).
std::vector<std::int64_t> initial_set(const FixedPointGraph& g, std::int64_t k, InitialSet set,
                                      int tpower_iterations);

// Collective. best_initial_set then dpcd_from, or (from_each) dpcd_from every initial set.
DensestDpcdResult dpcd_densest(const FixedPointGraph& g, std::int64_t k,
                               const DensestDpcdOptions& o);

}  // namespace lsgl::dpcd
