#include "lsgl/learn/degree_search.hpp"

#include <algorithm>
#include <cmath>

namespace lsgl {
namespace {

constexpr double kMaxStep = 1.3862943611198906;  // log 4: at most a factor 4 per secant step
constexpr double kInside = 0.1;                   // interpolation kept this far inside a bracket
constexpr double kCollapsed = 1e-4;               // bracket width (in log x) where the search ends

// log(degree / k), with an empty graph counted as a thousandth of k.
double log_ratio(const DegreeTrial& t, double k) {
  return std::log(std::max(t.degree, 1e-3 * k) / k);
}

}  // namespace

double next_degree_trial(const std::vector<DegreeTrial>& trials, const DegreeSearchParams& p) {
  const double sign = p.decreasing ? -1.0 : 1.0;  // sign of d log(degree) / d log(x)
  // Closest trials on each side: `low` has a degree below k, `high` above.
  const DegreeTrial *low = nullptr, *high = nullptr, *closest = &trials.front();
  for (const DegreeTrial& t : trials) {
    const double g = log_ratio(t, p.k);
    if (std::abs(g) < std::abs(log_ratio(*closest, p.k))) closest = &t;
    if (g < 0 && (!low || std::abs(g) < std::abs(log_ratio(*low, p.k)))) low = &t;
    if (g > 0 && (!high || g < log_ratio(*high, p.k))) high = &t;
  }
  if (low && high) {
    const double ul = std::log(low->x), uh = std::log(high->x);
    if (std::abs(uh - ul) < kCollapsed) return 0.0;
    const double gl = log_ratio(*low, p.k), gh = log_ratio(*high, p.k);
    const double t = std::clamp(gl / (gl - gh), kInside, 1.0 - kInside);
    return std::exp(ul + t * (uh - ul));
  }
  // One side only: a secant step from the closest trial.
  double slope = sign;
  for (const DegreeTrial& t : trials) {
    if (&t == closest || t.x == closest->x) continue;
    const double s = (log_ratio(*closest, p.k) - log_ratio(t, p.k)) /
                     (std::log(closest->x) - std::log(t.x));
    if (s * sign > 0) slope = s;
  }
  slope = sign * std::clamp(std::abs(slope), 0.25, 4.0);
  const double step = std::clamp(-log_ratio(*closest, p.k) / slope, -kMaxStep, kMaxStep);
  return closest->x * std::exp(step);
}

DegreeSearchResult search_degree(const DegreeSearchParams& p, double x0,
                                 const std::function<std::optional<DegreeTrial>(double)>& solve) {
  DegreeSearchResult r;
  const auto within = [&](const DegreeTrial& t) {
    return std::abs(t.degree - p.k) <= p.tolerance * p.k;
  };
  double x = x0;
  while (true) {
    const std::optional<DegreeTrial> t = solve(x);
    if (!t) {
      r.interrupted = true;
      break;
    }
    r.trials.push_back(*t);
    const DegreeTrial& best = r.trials[r.best];
    if (std::abs(t->degree - p.k) < std::abs(best.degree - p.k)) {
      r.best = static_cast<int>(r.trials.size()) - 1;
    }
    if (within(*t) || static_cast<int>(r.trials.size()) >= p.max_solves) break;
    x = next_degree_trial(r.trials, p);
    if (!(x > 0) || !std::isfinite(x)) break;
  }
  r.reached = !r.trials.empty() && within(r.trials[r.best]);
  return r;
}

}  // namespace lsgl
