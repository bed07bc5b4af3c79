#pragma once
// Correcting a model parameter until the learned graph has the average degree asked for.
//
// [KP19] eq. 18 predicts theta from k; the learned degree lands near k, not on it (measured:
// +8% on 1,000 Fashion-MNIST images, -8% and +14% on the 64 x 64 manifold grid). The search
// below re-solves at corrected parameters x (theta for the log model, where the degree falls as
// theta grows; alpha for l2, where it grows), interpolating log(degree) against log(x), until
// the degree is within a relative tolerance of k or a cap on solves is reached, and reports the
// closest solve.
#include <functional>
#include <optional>
#include <vector>

namespace lsgl {

// What a user asks of the search (--degree-tol, --max-solves, --degree-search-tol).
struct DegreeTarget {
  double tol = 0.05;         // relative tolerance on the average degree (0: no search)
  int max_solves = 6;        // at most this many solves at a new parameter
  double search_tol = 3e-4;  // solver tolerance of the solves that only measure the degree
};

struct DegreeSearchParams {
  double k = 10.0;           // average degree asked for
  double tolerance = 0.05;   // |degree - k| / k accepted
  int max_solves = 6;        // solves at a new x, the first included (continuations not counted)
  bool decreasing = true;    // the degree falls as x grows (theta); false: it grows (alpha)
  double first_slope = 0.0;  // |d log degree / d log x| assumed by the first step (0: 1)
  // The search's solves stop at a looser tolerance than the final one: the closest is then
  // continued to the final tolerance, and while that leaves the tolerance on the degree the
  // search goes on with solves to the final tolerance.
  bool continue_closest = false;
};

struct DegreeTrial {
  double x = 0.0;       // parameter solved at
  double degree = 0.0;  // average degree of the learned graph
  int iterations = 0;   // of that solve
  bool full = true;     // solved to the final tolerance (false: to the search's)
};

// What search_degree asks `solve` for.
struct DegreeSolve {
  double x = 0.0;
  bool full = true;        // to the final tolerance
  bool continues = false;  // continue the closest trial's solve (at its x) rather than start anew
};

struct DegreeSearchResult {
  std::vector<DegreeTrial> trials;  // in the order solved
  int best = 0;                     // the trial kept: the closest to k among the full ones
  bool reached = false;             // best is within the tolerance
  bool interrupted = false;         // a solve was interrupted (the search stopped there)
};

// Local. The next parameter to try after `trials` (at least one): interpolation of log(degree)
// in log(x) between the closest trials on each side of k (kept 10% inside the bracket), or,
// while all trials lie on one side, a secant step (slope of log degree in log x clamped to
// [0.25, 4] in magnitude; with one trial p.first_slope, or 1) of at most a factor 4. A trial to
// the search's tolerance is left out when its x was solved to the final tolerance too. Returns 0
// when the bracket has shrunk below a relative width of 1e-4 (the degree jumps there: lattice
// data).
double next_degree_trial(const std::vector<DegreeTrial>& trials, const DegreeSearchParams& p);

// Collective when `solve` is. Solves at x0, then at next_degree_trial(...) until a trial is
// within the tolerance, max_solves are done, the bracket collapses or `solve` returns nothing
// (interrupted); with p.continue_closest the closest is then continued to the final tolerance
// and, while that is outside the tolerance and solves remain, the search goes on at the final
// tolerance. `solve(q)` learns at q.x (warm-started by the caller: from the closest trial's
// state when q.continues, else from the last solve's) and returns its trial.
DegreeSearchResult search_degree(
    const DegreeSearchParams& p, double x0,
    const std::function<std::optional<DegreeTrial>(const DegreeSolve&)>& solve);

}  // namespace lsgl
