// The degree search: next_degree_trial and search_degree against synthetic degree curves with
// known answers (a power law, a curve with a jump, an increasing curve).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "lsgl/learn/degree_search.hpp"

namespace {

using lsgl::DegreeSearchParams;
using lsgl::DegreeTrial;

// search_degree on degree(x), counting the solves.
lsgl::DegreeSearchResult run(const DegreeSearchParams& p, double x0, double (*degree)(double)) {
  return lsgl::search_degree(p, x0, [&](double x) -> std::optional<DegreeTrial> {
    return DegreeTrial{x, degree(x), 1};
  });
}

double power_law(double theta) { return 10.0 * std::pow(theta / 0.02, -1.3); }
double steps(double theta) { return theta < 0.01 ? 4.6 : 3.7; }  // a lattice: no 4 within 5%
double increasing(double alpha) { return 3.0 * std::sqrt(alpha); }

TEST(DegreeSearch, InterpolatesInsideABracket) {
  DegreeSearchParams p;
  p.k = 10;
  // Exact on a power law: the log-log interpolation between two sides hits theta = 0.02.
  const std::vector<DegreeTrial> t = {{0.01, power_law(0.01), 1}, {0.04, power_law(0.04), 1}};
  EXPECT_NEAR(lsgl::next_degree_trial(t, p), 0.02, 1e-12);
  // Kept 10% inside the bracket (in log x) when the interpolation lands at an end.
  const std::vector<DegreeTrial> edge = {{1.0, 10.0001, 1}, {2.0, 1.0, 1}};
  EXPECT_NEAR(std::log(lsgl::next_degree_trial(edge, p)), 0.1 * std::log(2.0), 1e-12);
  // A bracket narrower than 1e-4 in log x: nothing left to try.
  const std::vector<DegreeTrial> tight = {{1.0, 11, 1}, {1.00001, 9, 1}};
  EXPECT_EQ(lsgl::next_degree_trial(tight, p), 0.0);
}

TEST(DegreeSearch, SecantStepsFromOneSide) {
  DegreeSearchParams p;
  p.k = 10;
  // One trial, degree 20% too high, slope -1 assumed: theta grows by 1.2.
  EXPECT_NEAR(lsgl::next_degree_trial({{1.0, 12.0, 1}}, p), 1.2, 1e-12);
  // Far off: at most a factor 4 per step.
  EXPECT_NEAR(lsgl::next_degree_trial({{1.0, 1000.0, 1}}, p), 4.0, 1e-12);
  // Two trials on one side: their slope (-2 here) is used.
  const std::vector<DegreeTrial> t = {{1.0, 40.0, 1}, {2.0, 10.0 * 1.1 * 1.1 * 1.1 * 1.1 / 1.21, 1}};
  const double slope = std::log(t[1].degree / t[0].degree) / std::log(2.0);
  EXPECT_NEAR(lsgl::next_degree_trial(t, p), 2.0 * std::exp(-std::log(t[1].degree / 10) / slope),
              1e-12);
  // Increasing curves step the other way.
  p.decreasing = false;
  EXPECT_NEAR(lsgl::next_degree_trial({{1.0, 12.0, 1}}, p), 1.0 / 1.2, 1e-12);
}

TEST(DegreeSearch, ReachesThePowerLaw) {
  DegreeSearchParams p;
  p.k = 10;
  p.tolerance = 0.02;
  const auto r = run(p, 0.013, power_law);  // eq. 18 off by +75%
  ASSERT_TRUE(r.reached);
  EXPECT_LE(r.trials.size(), 4u);
  EXPECT_LE(std::abs(r.trials[r.best].degree - 10) / 10, 0.02);
  // Already within the tolerance: one solve.
  EXPECT_EQ(run(p, 0.0201, power_law).trials.size(), 1u);
}

TEST(DegreeSearch, IncreasingCurve) {
  DegreeSearchParams p;
  p.k = 6;
  p.decreasing = false;
  const auto r = run(p, 1.0, increasing);
  ASSERT_TRUE(r.reached);
  EXPECT_NEAR(r.trials[r.best].x, 4.0, 4.0 * 2 * 0.05);
}

TEST(DegreeSearch, AJumpKeepsTheClosestAndNeverWorsens) {
  DegreeSearchParams p;
  p.k = 4;
  const auto r = run(p, 0.02, steps);  // 3.7: -7.5%
  EXPECT_FALSE(r.reached);
  EXPECT_LE(static_cast<int>(r.trials.size()), p.max_solves);
  EXPECT_LE(std::abs(r.trials[r.best].degree - 4), std::abs(r.trials[0].degree - 4));
  for (const DegreeTrial& t : r.trials) {
    EXPECT_GE(std::abs(t.degree - 4), std::abs(r.trials[r.best].degree - 4));
  }
}

TEST(DegreeSearch, StopsWhenASolveIsInterrupted) {
  DegreeSearchParams p;
  p.k = 10;
  int calls = 0;
  const auto r = lsgl::search_degree(p, 0.013, [&](double x) -> std::optional<DegreeTrial> {
    if (++calls == 2) return std::nullopt;
    return DegreeTrial{x, power_law(x), 1};
  });
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.trials.size(), 1u);
  EXPECT_FALSE(r.reached);
}

}  // namespace
