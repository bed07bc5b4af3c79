// The degree search: next_degree_trial and search_degree against synthetic degree curves with
// known answers (a power law, a curve with a jump, an increasing curve).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "lsgl/learn/degree_search.hpp"

namespace {

using lsgl::DegreeSearchParams;
using lsgl::DegreeTrial;

using lsgl::DegreeSolve;

// search_degree on degree(x), counting the solves.
lsgl::DegreeSearchResult run(const DegreeSearchParams& p, double x0, double (*degree)(double)) {
  return lsgl::search_degree(p, x0, [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
    return DegreeTrial{q.x, degree(q.x), 1};
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
  // Twice that width is still a bracket: the next trial lies inside it.
  const std::vector<DegreeTrial> narrow = {{1.0, 11, 1}, {std::exp(2e-4), 9, 1}};
  const double inside = lsgl::next_degree_trial(narrow, p);
  EXPECT_GT(inside, 1.0);
  EXPECT_LT(inside, std::exp(2e-4));
}

TEST(DegreeSearch, TheBracketIsTheNearestTrialOnEachSide) {
  DegreeSearchParams p;
  p.k = 10;
  // Nearest below k at theta 0.04 (degree 9), nearest above at 0.02 (degree 12): the next trial
  // interpolates between them, whatever the trials farther from k on either side.
  const std::vector<DegreeTrial> near = {{0.02, 12.0, 1}, {0.04, 9.0, 1}};
  const double x = lsgl::next_degree_trial(near, p);
  const double t = std::log(12.0 / 10) / std::log(12.0 / 9);  // log-linear zero crossing
  EXPECT_NEAR(x, 0.02 * std::exp(t * std::log(2.0)), 1e-12);
  for (const DegreeTrial far : {DegreeTrial{0.039, 1.0, 1}, DegreeTrial{0.021, 100.0, 1},
                                DegreeTrial{0.5, 0.5, 1}, DegreeTrial{0.001, 50.0, 1}}) {
    std::vector<DegreeTrial> more = near;
    more.insert(more.begin(), far);
    EXPECT_DOUBLE_EQ(lsgl::next_degree_trial(more, p), x) << far.x << " " << far.degree;
  }
}

TEST(DegreeSearch, SecantStepsFromOneSide) {
  DegreeSearchParams p;
  p.k = 10;
  // One trial, degree 20% too high, slope -1 assumed: theta grows by 1.2.
  EXPECT_NEAR(lsgl::next_degree_trial({{1.0, 12.0, 1}}, p), 1.2, 1e-12);
  // Far off: at most a factor 4 per step.
  EXPECT_NEAR(lsgl::next_degree_trial({{1.0, 1000.0, 1}}, p), 4.0, 1e-12);
  // Two trials on one side: their slope (-2 here) is used.
  const std::vector<DegreeTrial> t = {{1.0, 40.0, 1},
                                      {2.0, 10.0 * 1.1 * 1.1 * 1.1 * 1.1 / 1.21, 1}};
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
  const auto r =
      lsgl::search_degree(p, 0.013, [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
        if (++calls == 2) return std::nullopt;
        return DegreeTrial{q.x, power_law(q.x), 1};
      });
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.trials.size(), 1u);
  EXPECT_FALSE(r.reached);
}

// Degree curves c theta^(-s) with s != 1 (measured near k = 2: about 0.5 on Fashion-MNIST, 0.25
// on the grid). Given the slope s as p.first_slope, the first correction lands on k exactly;
// with the slope 1 assumed it covers only the share s of the way (in log degree).
TEST(DegreeSearch, FirstStepUsesTheGivenSlope) {
  for (double s : {0.25, 0.5, 2.0}) {
    DegreeSearchParams p;
    p.k = 2;
    const auto degree = [&](double theta) { return 2.0 * std::pow(theta / 0.3, -s); };
    const double x0 = 0.3 * std::pow(1.137, -1.0 / s);  // eq. 18 off by +13.7%
    ASSERT_NEAR(degree(x0), 2.0 * 1.137, 1e-12);
    p.first_slope = s;
    const double x1 = lsgl::next_degree_trial({{x0, degree(x0), 1}}, p);
    EXPECT_NEAR(x1, 0.3, 1e-12 * 0.3) << "s = " << s;
    const auto r =
        lsgl::search_degree(p, x0, [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
          return DegreeTrial{q.x, degree(q.x), 1};
        });
    EXPECT_TRUE(r.reached);
    EXPECT_EQ(r.trials.size(), 2u) << "s = " << s;  // one correction
    p.first_slope = 0;                              // the slope 1
    const double share =
        std::log(degree(x0) / degree(lsgl::next_degree_trial({{x0, degree(x0), 1}}, p))) /
        std::log(1.137);
    EXPECT_NEAR(share, s, 1e-9) << "s = " << s;
  }
}

// A trial continued to the final tolerance replaces the search's measurement at its x: the
// bracket between the two measurements of one x would otherwise collapse (and stop the search).
TEST(DegreeSearch, AContinuedTrialReplacesTheSearchOne) {
  DegreeSearchParams p;
  p.k = 10;
  std::vector<DegreeTrial> t = {{1.0, 10.4, 1, false}, {1.0, 9.0, 1, true}};
  EXPECT_NEAR(lsgl::next_degree_trial(t, p), 0.9, 1e-12);  // slope 1 from 9.0 alone
  t[1].full = false;                                       // two search measurements of one x
  EXPECT_EQ(lsgl::next_degree_trial(t, p), 0.0);
}

// The search's solves stop early and measure degree(x); solved to the final tolerance the degree
// is 6% lower (the grid at k = 10: -4.7% at the search tolerance, -5.4% at the final one). The
// closest search trial is continued, lands outside the tolerance and the search goes on at the
// final tolerance; the kept trial is a full one within the tolerance.
TEST(DegreeSearch, ContinuesWhenTheFinalToleranceLeavesIt) {
  const auto search = [](double x) { return 10.86 / x; };  // +8.6% at x = 1, slope 1
  const auto full = [&](double x) { return 0.94 * search(x); };
  DegreeSearchParams p;
  p.k = 10;
  p.continue_closest = true;
  std::vector<DegreeSolve> asked;
  const auto solver = [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
    asked.push_back(q);
    return DegreeTrial{q.x, q.full ? full(q.x) : search(q.x), 1};
  };
  auto r = lsgl::search_degree(p, 1.0, solver);
  ASSERT_EQ(asked.size(), 4u);
  EXPECT_FALSE(asked[0].full || asked[1].full);
  EXPECT_NEAR(r.trials[1].degree, 10.0, 1e-12);  // within at the search tolerance
  EXPECT_TRUE(asked[2].full && asked[2].continues && asked[2].x == asked[1].x);
  EXPECT_NEAR(r.trials[2].degree, 9.4, 1e-12);  // -6% at the final one
  EXPECT_TRUE(asked[3].full && !asked[3].continues);
  // Interpolated between 9.4 (full, x = 1.086) and 10.86 (search, x = 1).
  const double t = std::log(0.94) / (std::log(0.94) - std::log(1.086));  // from the low end
  EXPECT_NEAR(asked[3].x, std::exp((1 - t) * std::log(1.086)), 1e-12);
  EXPECT_EQ(r.best, 3);
  EXPECT_TRUE(r.reached && r.trials[3].full);
  EXPECT_LE(std::abs(r.trials[3].degree - 10), 0.05 * 10);
  EXPECT_LE(std::abs(r.trials[3].degree - 10), std::abs(r.trials[0].degree - 10));

  // No solve left after the continuation: it is kept (the only full trial), not reached.
  p.max_solves = 2;
  asked.clear();
  r = lsgl::search_degree(p, 1.0, solver);
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(r.best, 2);
  EXPECT_FALSE(r.reached);

  // A continuation within the tolerance ends the search: three solves.
  p.max_solves = 6;
  asked.clear();
  r = lsgl::search_degree(p, 1.0, [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
    asked.push_back(q);
    return DegreeTrial{q.x, q.full ? 0.99 * search(q.x) : search(q.x), 1};
  });
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_EQ(r.best, 2);
  EXPECT_TRUE(r.reached);
}

// Without continue_closest every solve is a full one and none is continued.
TEST(DegreeSearch, SearchAtTheFinalTolerance) {
  DegreeSearchParams p;
  p.k = 10;
  std::vector<DegreeSolve> asked;
  const auto r =
      lsgl::search_degree(p, 0.013, [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
        asked.push_back(q);
        return DegreeTrial{q.x, power_law(q.x), 1};
      });
  ASSERT_TRUE(r.reached);
  for (const DegreeSolve& q : asked) EXPECT_TRUE(q.full && !q.continues);
  EXPECT_EQ(asked.size(), r.trials.size());
}

}  // namespace
