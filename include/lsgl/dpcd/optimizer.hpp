#pragma once
// DPCD: discrete principal coordinate descent ([DPCD] Alg. 1; the math is restated in
// docs/design.md, section "DPCD"). Minimises f(x) over x in {-1,+1}^n (Omega_{-1}) or over the
// x with a fixed number of +1 entries (Omega_r), for any problem that supplies f, its gradient
// and the effect of flips. Distributed: x and the gradient are partitioned in contiguous blocks of
// global indices across the ranks of the problem's communicator; selections and thresholds use
// collectives, ties are broken by global index and sums are taken in fixed point, so the
// iterates do not depend on the number of ranks.
//
// Every choice [DPCD] leaves open is an option below, with its default:
//  - thresholds: Lipschitz (L1 = L2 = L0 + eps, monotone by construction) or adaptive (seed
//    eq. 7: L1 = mean of the positive gradient entries, L2 = mean of |negative entries|);
//  - centre (Omega_r only, OPEN): the constant subtracted from g before eq. 7 (on Omega_r a
//    constant shift of g changes no exact move, but eq. 7 needs entries of both signs);
//  - scope (OPEN): which entries the eq. 7 means run over;
//  - fallback (OPEN): what to do when an adaptive update raised f;
//  - neighbourhood search: every T updates and at stagnation, among pools of candidates.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lsgl/util/names.hpp"

namespace lsgl::dpcd {

enum class Domain { kFree, kFixedCount };            // Omega_{-1}, Omega_r
// L0 + eps, [DPCD] eq. 7, or (our addition) coordinate-wise constants L_i + eps from the problem
// (Problem::coordinate_lipschitz): coordinate i is principal when flipping it alone lowers f.
enum class ThresholdRule { kLipschitz, kAdaptive, kCoordinate };
inline constexpr Named<ThresholdRule> kThresholdRuleNames[] = {
    {ThresholdRule::kAdaptive, "adaptive"},
    {ThresholdRule::kLipschitz, "lipschitz"},
    {ThresholdRule::kCoordinate, "coordinate"}};
constexpr const auto& names(ThresholdRule) { return kThresholdRuleNames; }
// Omega_r: c subtracted from g before eq. 7. kSplit: midway between the r-th and (r+1)-th
// smallest entries of g (r = number of +1 entries), i.e. the value that separates the r
// coordinates the linear surrogate wants at +1 from the others.
enum class Centre { kNone, kMean, kMedian, kSplit };
inline constexpr Named<Centre> kCentreNames[] = {{Centre::kNone, "none"},
                                                 {Centre::kMean, "mean"},
                                                 {Centre::kMedian, "median"},
                                                 {Centre::kSplit, "split"}};
constexpr const auto& names(Centre) { return kCentreNames; }
// kAll: eq. 7 over all n entries ([DPCD]'s wording). kEligible: L1 over the positive centred
// entries at x = +1 only, L2 over the negative ones at x = -1 only (the entries that can move).
enum class Scope { kAll, kEligible };
inline constexpr Named<Scope> kScopeNames[] = {{Scope::kAll, "all"},
                                               {Scope::kEligible, "eligible"}};
constexpr const auto& names(Scope) { return kScopeNames; }
// After an adaptive update that raised f (or, with strict, did not lower it): undo it, then
// kHalve: retry with the half of the flips (pairs on Omega_r) of largest |g|, until f decreases
// or nothing is left; kLipschitz: retry once with L0 + eps thresholds (needs L0; else halve);
// kNone: keep the update anyway (no safeguard).
enum class Fallback { kHalve, kLipschitz, kNone };
inline constexpr Named<Fallback> kFallbackNames[] = {{Fallback::kHalve, "halve"},
                                                     {Fallback::kLipschitz, "lipschitz"},
                                                     {Fallback::kNone, "none"}};
constexpr const auto& names(Fallback) { return kFallbackNames; }

struct Options {
  Domain domain = Domain::kFixedCount;
  ThresholdRule thresholds = ThresholdRule::kAdaptive;
  double eps = 1e-6;       // Lipschitz rule: L = L0 + eps * max(L0, 1)
  double alpha1 = 0.5;     // S+ = {x = +1, g~ > alpha1 L1}   (adaptive rule; 1 with L0 + eps)
  double alpha2 = 0.5;     // S- = {x = -1, g~ < -alpha2 L2}  (seed range [0.1, 10])
  Centre centre = Centre::kSplit;
  Scope scope = Scope::kEligible;
  Fallback fallback = Fallback::kHalve;
  int max_iterations = 100;       // principal-coordinate updates ([DPCD]: 100 for subgraphs)
  std::int64_t max_flips = 0;  // at most this many flips (pairs on Omega_r) per update; 0: no cap
  // Omega_{-1} only (our addition, for problems made of independent blocks, see
  // Problem::block_size): flip at most one coordinate per block per update, the eligible one of
  // largest margin. With coordinate thresholds every such update lowers f.
  bool one_per_block = false;
  int ns_every = 10;              // T: neighbourhood search after every T updates (0: never)
  bool ns_at_stagnation = true;   // and whenever an update moved nothing
  int ns_m = 5;                   // m: at most m flips (Omega_{-1}) or m pair swaps (Omega_r)
  int ns_pool = 8;                // candidates per side (Omega_r) or in all (Omega_{-1})
  std::int64_t ns_exhaustive_limit = 20000;  // enumerate all moves when there are at most this many
  int ns_samples = 2000;  // otherwise: all single moves, a greedy chain, and this many samples
  // When the search finds no improving move but one that leaves f unchanged, take it (at most
  // this many times per run); the coordinates it moved are then left out of later pools, so
  // plateau moves cannot cycle. 0: only improving moves.
  int ns_plateau = 0;
  std::uint64_t seed = 1;         // sampling in the neighbourhood search
};

// A problem for the optimiser. Coordinates are partitioned in contiguous blocks: this rank holds
// global indices [begin(), begin() + x().size()), and the blocks of ranks 0, 1, ... follow each
// other. f and the gradient are the problem's; flips are exact updates.
class Problem {
 public:
  virtual ~Problem() = default;
  virtual MPI_Comm comm() const = 0;
  virtual std::int64_t n() const = 0;
  virtual std::int64_t begin() const = 0;
  // This rank's entries of x, each -1 or +1.
  virtual const std::vector<std::int8_t>& x() const = 0;
  // This rank's entries of grad f(x).
  virtual const std::vector<double>& gradient() const = 0;
  // f(x), identical on every rank.
  virtual double objective() const = 0;
  // Collective. Flips x at the given local positions (each rank its own list, possibly empty)
  // and updates f and the gradient.
  virtual void flip(const std::vector<std::int64_t>& local) = 0;
  // Collective. A Lipschitz constant of grad f on [-1,1]^n, or <= 0 when unknown.
  virtual double lipschitz() { return 0.0; }
  // Local. Coordinate-wise constants of this rank's coordinates: flipping coordinate i alone
  // changes f by at most -2 x_i g_i + 2 L_i (exact for quadratic f with L_i = d^2f/dx_i^2).
  // Either one per local coordinate or, when they repeat from block to block, block_size()
  // values (L of global index i = value[i % block_size()]). Empty when unknown.
  virtual std::vector<double> coordinate_lipschitz() { return {}; }
  // Coordinates interact only inside consecutive groups of this many global indices (e.g. the
  // bits of one sample's code); 0 when there is no such structure. The same on every rank.
  virtual std::int64_t block_size() const { return 0; }
  // Collective; every rank passes the same global indices. The exact change of f when the
  // coordinates of any subset T of `global` are flipped, in the pairwise form
  //   delta f(T) = sum_{i in T} single[i] + sum_{i < j in T} pair[i * s + j]   (s = size),
  // exact for quadratic f (for others a model, checked after the move).
  virtual void flip_model(const std::vector<std::int64_t>& global, std::vector<double>& single,
                          std::vector<double>& pair) = 0;
};

struct Report {
  int iterations = 0;           // principal-coordinate updates made (the cap counts these)
  std::int64_t flips = 0;       // coordinates flipped in total (kept moves)
  int rejected = 0;             // updates undone by the safeguard
  int ns_runs = 0;              // neighbourhood searches
  int ns_moves = 0;             // ... that moved (improving)
  int plateau_moves = 0;        // ... that moved along a plateau (f unchanged)
  bool converged = false;       // stopped because nothing moved (not by the cap)
  std::vector<double> objective;  // f before the first and after every iteration
  double seconds = 0.0;
};

// Called after every iteration with (iteration, f); every rank calls it.
using IterationHook = std::function<void(int, double)>;

// Collective. Runs DPCD from the problem's current x. On Omega_r the number of +1 entries is
// kept. Throws CollectiveError on invalid options.
Report minimize(Problem& p, const Options& o, const IterationHook& hook = {});

// The exact minimiser of the linear surrogate plus (L/2)||y - x||^2 (docs/design.md,
// "Identities used by the code and the tests"): on Omega_{-1}, y_i = sgn(L x_i - g_i) (ties
// keep x_i); on Omega_r, +1 entries sorted by g descending and -1 entries by g ascending are
// swapped in pairs while g_i - g_j > 2L. Local, serial; for tests and small problems.
std::vector<std::int8_t> surrogate_minimizer(const std::vector<std::int8_t>& x,
                                             const std::vector<double>& g, double L,
                                             Domain domain);

}  // namespace lsgl::dpcd
