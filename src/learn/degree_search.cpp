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

double next_degree_trial(const std::vector<DegreeTrial>& all, const DegreeSearchParams& p) {
  // A solve continued to the final tolerance replaces the search's measurement at its x.
  std::vector<DegreeTrial> trials;
  for (const DegreeTrial& t : all) {
    const auto continued = [&](const DegreeTrial& u) { return u.full && u.x == t.x; };
    if (t.full || std::none_of(all.begin(), all.end(), continued)) trials.push_back(t);
  }
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
  double slope = sign * (p.first_slope > 0 ? p.first_slope : 1.0);
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

namespace {

// The trial closest to k among those solved to the final tolerance (among all when none is).
int closest_trial(const std::vector<DegreeTrial>& trials, double k) {
  const bool any_full =
      std::any_of(trials.begin(), trials.end(), [](const DegreeTrial& t) { return t.full; });
  int best = -1;
  for (int i = 0; i < static_cast<int>(trials.size()); ++i) {
    if (any_full && !trials[i].full) continue;
    if (best < 0 || std::abs(trials[i].degree - k) < std::abs(trials[best].degree - k)) best = i;
  }
  return std::max(best, 0);
}

}  // namespace

DegreeSearchResult search_degree(
    const DegreeSearchParams& p, double x0,
    const std::function<std::optional<DegreeTrial>(const DegreeSolve&)>& solve) {
  DegreeSearchResult r;
  const auto within = [&](const DegreeTrial& t) {
    return std::abs(t.degree - p.k) <= p.tolerance * p.k;
  };
  int fresh = 0;  // solves at a new x
  std::optional<DegreeSolve> q = DegreeSolve{x0, !p.continue_closest, false};
  while (q) {
    std::optional<DegreeTrial> t = solve(*q);
    if (!t) {
      r.interrupted = true;
      break;
    }
    t->full = q->full;
    r.trials.push_back(*t);
    if (!q->continues) ++fresh;
    const bool full = q->full;
    q.reset();
    if (!within(*t) && fresh < p.max_solves) {
      const double x = next_degree_trial(r.trials, p);
      if (x > 0 && std::isfinite(x)) q = DegreeSolve{x, full, false};
    }
    if (!q && !full) {  // the search at its tolerance is over: the closest to the final one
      q = DegreeSolve{r.trials[closest_trial(r.trials, p.k)].x, true, true};
    }
  }
  r.best = closest_trial(r.trials, p.k);
  r.reached = !r.trials.empty() && r.trials[r.best].full && within(r.trials[r.best]);
  return r;
}

}  // namespace lsgl
