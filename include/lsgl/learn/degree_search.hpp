#pragma once
// Correcting a model parameter until the learned graph has the average degree asked for.
//
// [KP19] eq. 18 predicts theta from k; the learned degree lands near k, not on it (measured:
// +8% on 1,000 Fashion-MNIST images, -8% and +14% on the 64 x 64 manifold grid). The search
// below re-solves at corrected parameters x (theta for the log model, where the degree falls as
// theta grows), interpolating log(degree) against log(x), until the degree is within a relative
// tolerance of k or a cap on solves is reached, and reports the closest solve.
#include <functional>
#include <optional>
#include <vector>

namespace lsgl {

struct DegreeSearchParams {
  double k = 10.0;           // average degree asked for
  double tolerance = 0.05;   // |degree - k| / k accepted
  int max_solves = 6;        // solves in all, the first included
  bool decreasing = true;    // the degree falls as x grows (theta); false: it grows (alpha)
};

struct DegreeTrial {
  double x = 0.0;       // parameter solved at
  double degree = 0.0;  // average degree of the learned graph
  int iterations = 0;   // of that solve
};

struct DegreeSearchResult {
  std::vector<DegreeTrial> trials;  // in the order solved
  int best = 0;                     // index of the trial closest to k
  bool reached = false;             // best is within the tolerance
  bool interrupted = false;         // a solve was interrupted (the search stopped there)
};

// Local. The next parameter to try after `trials` (at least one): interpolation of log(degree)
// in log(x) between the closest trials on each side of k (kept 10% inside the bracket), or,
// while all trials lie on one side, a secant step (slope of log degree in log x clamped to
// [0.25, 4] in magnitude, -1 or +1 with one trial) of at most a factor 4. Returns 0 when the
// bracket has shrunk below a relative width of 1e-4 (the degree jumps there: lattice data).
double next_degree_trial(const std::vector<DegreeTrial>& trials, const DegreeSearchParams& p);

// Collective when `solve` is. Solves at x0, then at next_degree_trial(...) until a trial is
// within the tolerance, max_solves are done, the bracket collapses or `solve` returns nothing
// (interrupted). `solve(x)` learns at x (warm-started by the caller) and returns its trial.
DegreeSearchResult search_degree(const DegreeSearchParams& p, double x0,
                                 const std::function<std::optional<DegreeTrial>(double)>& solve);

}  // namespace lsgl
