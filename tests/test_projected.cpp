// The projected search (src/ann/projected.cpp, projection.cpp): the principal components against
// an eigendecomposition written here (Jacobi), the same projection bits on any number of ranks,
// the lower bound with its rounding slack, certified lists equal to the brute force on data the
// projection loses much or nothing of (duplicates, identical rows, offsets, tiny scales), lists
// without certification equal to their definition computed here serially (so the same on any
// number of ranks), the shortlists too (with the bound the query's rank sends), the choice of
// --ann auto, and the refused options.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "ann/partition_search.hpp"
#include "ann/projection.hpp"
#include "ann/routes.hpp"
#include "candidates_data.hpp"
#include "lsgl/util/error.hpp"
#include "projected_reference.hpp"

namespace {

using namespace lsgl::test;
using lsgl::AnnParams;
using lsgl::ann::Projection;

// Rows z A + noise with latent z of `latent` independent normal coordinates of decreasing
// scales (6, 5, 4, ...), A a fixed d x latent matrix; noise 0 gives data of rank `latent`.
Data latent_data(std::int64_t n, std::int64_t d, int latent, double noise) {
  return {n, d, [d, latent, noise](std::int64_t g, float* row) {
            for (std::int64_t j = 0; j < d; ++j) {
              double v = noise * normal(31, g, j);
              for (int a = 0; a < latent; ++a) {
                v += normal(32, j, a) * (6.0 - a * 5.0 / latent) * normal(33, g, a);
              }
              row[j] = static_cast<float>(v);
            }
          }};
}

// The same rows times `scale`.
Data scaled(const Data& data, double scale) {
  return {data.n, data.d, [data, scale](std::int64_t g, float* row) {
            data.row(g, row);
            for (std::int64_t j = 0; j < data.d; ++j) row[j] = static_cast<float>(row[j] * scale);
          }};
}

// Cyclic Jacobi eigendecomposition of the symmetric n x n matrix a (destroyed): eigenvalues on
// its diagonal, eigenvectors in the columns of v.
void jacobi(std::vector<long double>& a, std::vector<long double>& v, int n) {
  v.assign(static_cast<std::size_t>(n) * n, 0.0L);
  for (int i = 0; i < n; ++i) v[i * n + i] = 1.0L;
  for (int sweep = 0; sweep < 100; ++sweep) {
    long double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (off < 1e-40L) return;
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        if (a[p * n + q] == 0) continue;
        const long double theta = (a[q * n + q] - a[p * n + p]) / (2 * a[p * n + q]);
        const long double t =
            (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const long double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q
          const long double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const long double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (int k = 0; k < n; ++k) {
          const long double vkp = v[k * n + p], vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
}

TEST(Projection, MatchesAnIndependentEigendecomposition) {
  const Data data = latent_data(3000, 12, 6, 0.3);  // fewer rows than the sample: all are used
  const std::vector<float> all = data.all();
  const int d = 12, dims = 5;
  const Projection p =
      lsgl::ann::fit_projection(MPI_COMM_WORLD, data.block(MPI_COMM_WORLD), dims, 1);
  std::vector<long double> mean(d, 0.0L), cov(d * d, 0.0L), v;
  for (std::int64_t g = 0; g < data.n; ++g)
    for (int j = 0; j < d; ++j) mean[j] += all[g * d + j];
  for (auto& x : mean) x /= data.n;
  for (std::int64_t g = 0; g < data.n; ++g)
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j)
        cov[i * d + j] += (all[g * d + i] - mean[i]) * (all[g * d + j] - mean[j]);
  for (auto& x : cov) x /= data.n;
  long double trace = 0;
  for (int i = 0; i < d; ++i) trace += cov[i * d + i];
  jacobi(cov, v, d);
  std::vector<int> order(d);
  for (int i = 0; i < d; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return cov[a * d + a] > cov[b * d + b]; });
  EXPECT_NEAR(p.total_variance, static_cast<double>(trace), 1e-10 * static_cast<double>(trace));
  for (int j = 0; j < d; ++j) EXPECT_NEAR(p.mean[j], static_cast<double>(mean[j]), 1e-12);
  for (int c = 0; c < dims; ++c) {
    const int e = order[c];
    const double want = static_cast<double>(cov[e * d + e]);
    EXPECT_NEAR(p.variance[c], want, 1e-9 * want) << "component " << c;
    long double dot = 0;
    for (int i = 0; i < d; ++i) dot += p.basis[i * dims + c] * v[i * d + e];
    EXPECT_NEAR(std::fabs(static_cast<double>(dot)), 1.0, 1e-9) << "component " << c;
  }
  long double kept = 0;
  for (int c = 0; c < dims; ++c) kept += cov[order[c] * d + order[c]];
  EXPECT_NEAR(p.explained(dims), static_cast<double>(kept / trace), 1e-9);
}

TEST(Projection, SameBitsOnAnyNumberOfRanksAndInAnyBlock) {
  // More rows than the sample, so the hashed sample decides which rows count.
  const Data data = latent_data(20000, 9, 4, 0.2);
  const Projection p =
      lsgl::ann::fit_projection(MPI_COMM_WORLD, data.block(MPI_COMM_WORLD), 6, 5);
  if (lsgl::comm_rank(MPI_COMM_WORLD) != 0) return;
  const Projection s = lsgl::ann::fit_projection(MPI_COMM_SELF, data.block(MPI_COMM_SELF), 6, 5);
  EXPECT_EQ(p.mean, s.mean);
  EXPECT_EQ(p.basis, s.basis);
  EXPECT_EQ(p.variance, s.variance);
  EXPECT_EQ(p.total_variance, s.total_variance);
  const std::vector<float> all = data.all();
  const std::int64_t rows = 37;
  std::vector<float> block(rows * 4), one(4);
  std::vector<double> slack(rows), one_slack(1);
  lsgl::ann::project_rows(p, 4, all.data() + 101 * data.d, rows, block.data(), slack.data());
  for (std::int64_t r = 0; r < rows; ++r) {
    lsgl::ann::project_rows(p, 4, all.data() + (101 + r) * data.d, 1, one.data(), one_slack.data());
    EXPECT_EQ(std::memcmp(one.data(), block.data() + r * 4, 4 * sizeof(float)), 0) << r;
    EXPECT_EQ(one_slack[0], slack[r]);
  }
}

TEST(Projection, LowerBoundWithItsSlack) {
  // Full rank (the bound loses much), rows 1e4 from the origin, and rank 3 (it loses nothing).
  for (const auto& [data, lossless] :
       {std::make_pair(latent_data(400, 30, 30, 0.0), false),
        std::make_pair(far_data(400), false), std::make_pair(latent_data(400, 30, 3, 0.0), true)}) {
    const std::vector<float> all = data.all();
    const int dims = 3;
    const Projection p =
        lsgl::ann::fit_projection(MPI_COMM_SELF, data.block(MPI_COMM_SELF), dims, 2);
    std::vector<float> y(data.n * dims);
    std::vector<double> slack(data.n);
    lsgl::ann::project_rows(p, dims, all.data(), data.n, y.data(), slack.data());
    double worst = 0;  // largest relative gap between the bound and the distance
    for (std::int64_t a = 0; a < data.n; a += 7) {
      for (std::int64_t b = 0; b < data.n; b += 3) {
        const double full = std::sqrt(lsgl::squared_distance(all.data() + a * data.d,
                                                             all.data() + b * data.d, data.d));
        const double low =
            std::sqrt(lsgl::squared_distance(y.data() + a * dims, y.data() + b * dims, dims));
        EXPECT_LE(low - slack[a] - slack[b], full) << a << " " << b;
        if (full > 0) worst = std::max(worst, (full - low) / full);
      }
    }
    if (lossless) {
      EXPECT_LT(worst, 1e-4);
    } else {
      EXPECT_GT(worst, 0.1);
    }
  }
}

// Certified projected lists are the brute force's lists (same distances, ties by index),
// whatever the projection keeps: isotropic noise projected on 3 of 24 dimensions, data of rank 3
// on 3 and 4, ties and duplicates, identical rows, rows 1e4 from the origin, tiny scales (1e-14,
// near the smallest the data check accepts); with the shortest allowed shortlist and the chosen
// one, 1 and 2 threads.
TEST(Projected, CertifiedListsAreExact) {
  struct Case {
    Data data;
    int m, dims;
  };
  const Case cases[] = {{gauss_data(500, 24), 10, 3},   {latent_data(500, 24, 3, 0.0), 10, 3},
                        {latent_data(500, 24, 3, 0.0), 10, 4}, {grid_data(300, 5), 12, 2},
                        {identical_data(60, 4), 7, 1},  {far_data(700), 9, 4},
                        {scaled(mixture_data(700), 1e-14), 9, 4}};
  for (const Case& c : cases) {
    SCOPED_TRACE("n " + std::to_string(c.data.n) + " d " + std::to_string(c.data.d) + " m " +
                 std::to_string(c.m) + " dims " + std::to_string(c.dims));
    const std::vector<float> all = c.data.all();
    const LocalRows rows = c.data.block(MPI_COMM_WORLD);
    for (int shortlist : {c.m, 0}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE("shortlist " + std::to_string(shortlist) + " threads " +
                     std::to_string(threads));
        AnnParams p;
        p.engine = lsgl::AnnEngine::kProjected;
        p.certify = true;
        p.project_dims = c.dims;
        p.shortlist = shortlist;
        p.threads = threads;
        p.cells_per_rank = 3;
        const Candidates got = lsgl::find_candidates(MPI_COMM_WORLD, rows, c.m, p);
        expect_valid(c.data, all, rows, got, c.m);
        expect_exact(c.data, all, rows, got, c.m);
        EXPECT_EQ(got.report.engine, lsgl::AnnEngine::kProjected);
        EXPECT_EQ(got.report.certified_rows, c.data.n);
      }
    }
  }
}

// The projected search on `dims` components with shortlists of `shortlist`.
AnnParams projected_params(int dims, int shortlist) {
  AnnParams p;
  p.engine = lsgl::AnnEngine::kProjected;
  p.project_dims = dims;
  p.shortlist = shortlist;
  return p;
}

// Every row's cell (on every rank, from the plan) and every row projected serially (the same
// bits as on any number of ranks: SameBitsOnAnyNumberOfRanksAndInAnyBlock), for the definitions
// of projected_reference.hpp.
struct Serial {
  std::vector<int> home;
  std::vector<float> y;
  ProjectedRows rows;
  Serial(const Data& data, const std::vector<float>& all, const LocalRows& local,
         const lsgl::ann::ProjectedPlan& plan, std::uint64_t seed)
      : home(data.n, 0), y(data.n * plan.dims) {
    for (std::int64_t l = 0; l < local.local_rows(); ++l) {
      home[local.begin + l] = plan.cells.home[l];
    }
    MPI_Allreduce(MPI_IN_PLACE, home.data(), static_cast<int>(data.n), MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    const Projection proj =
        lsgl::ann::fit_projection(MPI_COMM_SELF, data.block(MPI_COMM_SELF), plan.dims, seed);
    std::vector<double> slack(data.n);
    lsgl::ann::project_rows(proj, plan.dims, all.data(), data.n, y.data(), slack.data());
    rows = {y.data(), all.data(), data.n, plan.dims, data.d, home.data()};
  }
};

// Without certification a row's list is, by definition, the m nearest by (exact distance,
// index) among its S nearest by (projected distance, index) in its `probes` nearest cells (by
// (projected distance to the centroid, cell)): computed here serially from the serial projection
// (whose bits SameBitsOnAnyNumberOfRanksAndInAnyBlock checks) and the plan's cells for every
// local row, with the widest and the narrowest probe counts.
TEST(Projected, ListsAreTheirDefinitionOnAnyRankCount) {
  for (const Data& data : {mixture_data(2000), gauss_data(600, 20), grid_data(300, 5)}) {
    const int m = 8, dims = 3, shortlist = 20;
    const std::vector<float> all = data.all();
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    AnnParams p = projected_params(dims, shortlist);
    const lsgl::ann::ProjectedPlan plan = lsgl::ann::plan_projected(MPI_COMM_WORLD, rows, m, p);
    const lsgl::ann::CellLayout& lay = plan.cells.layout;
    ASSERT_EQ(lay.d, dims);
    const Candidates got = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
    expect_valid(data, all, rows, got, m);
    EXPECT_EQ(got.report.probes, plan.probes);
    const Serial serial(data, all, rows, plan, p.seed);
    const ProjectedRows& pr = serial.rows;
    const std::vector<int>& home = serial.home;
    std::int64_t outside = 0;  // shortlisted rows outside the row's nearest cell
    for (std::int64_t i = 0; i < rows.local_rows(); ++i) {
      const std::int64_t g = rows.begin + i;
      int own = 0;
      const List want = projected_definition(pr, lay, plan.probes, shortlist, g, &own);
      for (const auto& w : want) outside += home[w.second] != own;
      for (int t = 0; t < m; ++t) {
        ASSERT_EQ(got.idx[i * m + t], want[t].second) << "row " << g << " place " << t;
        ASSERT_EQ(got.dist[i * m + t], want[t].first) << "row " << g << " place " << t;
      }
    }
    // The probes matter: some shortlists reach beyond the row's own cell.
    MPI_Allreduce(MPI_IN_PLACE, &outside, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (lay.cells > 1) EXPECT_GT(outside, 0);
  }
}

// PartitionSearch::probe's shortlists are their definition (projected_shortlist: the S nearest
// by (projected distance, index), padded when fewer rows are probed) and their exact distances,
// for every held row, with the plan's probes and with every cell probed (every rank visited), in
// rounds of a few queries. On more than one rank the other ranks keep only rows within the k-th
// distance the query's rank sends (it must skip some here, or the test would not reach it); a
// bound too tight drops rows of the definition (0.9 times the distance: red at 2 and 3 ranks;
// one ulp below it is not caught: no row here ties the bound on another rank).
TEST(Projected, ShortlistsWithTheHomeBoundAreTheirDefinition) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (const Data& data : {mixture_data(2000), grid_data(300, 5)}) {
    const int m = 8, dims = 3, shortlist = 20;
    const std::vector<float> all = data.all();
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    AnnParams p = projected_params(dims, shortlist);
    p.round_bytes = std::int64_t{1} << 16;
    const lsgl::ann::ProjectedPlan plan = lsgl::ann::plan_projected(MPI_COMM_WORLD, rows, m, p);
    const lsgl::ann::CellLayout& lay = plan.cells.layout;
    const Serial serial(data, all, rows, plan, p.seed);
    const ProjectedRows& pr = serial.rows;
    for (int probes : {plan.probes, lay.cells}) {
      SCOPED_TRACE("n " + std::to_string(data.n) + " probes " + std::to_string(probes));
      lsgl::SearchReport report;
      lsgl::ann::PartitionSearch search(MPI_COMM_WORLD, plan.rows, &rows, plan.cells, p, report);
      std::vector<std::int64_t> held(static_cast<std::size_t>(search.held()));
      for (std::int64_t at = 0; at < search.held(); ++at) held[at] = at;
      std::vector<lsgl::ann::Neighbor> lists;
      std::vector<double> exact, outside;
      search.probe(held, shortlist, probes, lists, exact, outside, nullptr);
      for (std::int64_t at = 0; at < search.held(); ++at) {
        const std::int64_t g = search.id(at);
        int own = 0;
        const List want = projected_shortlist(pr, lay, probes, shortlist, g, &own);
        for (int t = 0; t < shortlist; ++t) {
          const lsgl::ann::Neighbor got = lists[at * shortlist + t];
          if (t >= static_cast<int>(want.size())) {
            ASSERT_EQ(got.idx, -1) << "row " << g << " place " << t;
            continue;
          }
          ASSERT_EQ(got.idx, want[t].second) << "row " << g << " place " << t;
          ASSERT_EQ(got.dist, want[t].first) << "row " << g << " place " << t;
          ASSERT_EQ(exact[at * shortlist + t],
                    lsgl::squared_distance(all.data() + g * data.d,
                                           all.data() + want[t].second * data.d, data.d));
        }
      }
      std::int64_t beyond = search.beyond_bound();
      MPI_Allreduce(MPI_IN_PLACE, &beyond, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      if (size > 1 && probes == lay.cells) EXPECT_GT(beyond, 0);
      if (size == 1) EXPECT_EQ(beyond, 0);
    }
  }
}

// The choice of the probes and S counts, for each pair of the ladders, the sampled rows' exact
// neighbours that their shortlists hold (shortlist_hits, from the rows ahead of each neighbour):
// the counts of the shortlists' definition (projected_shortlist) computed here serially for
// every pair, on clustered rows and on a grid of many equal distances and duplicated rows.
TEST(Projected, ChoiceCountsTheShortlistsOfTheirDefinition) {
  for (const Data& data : {mixture_data(2000), grid_data(2100, 5)}) {
    const int m = 8, dims = 3;
    const std::vector<float> all = data.all();
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    const AnnParams p = projected_params(dims, 20);
    const lsgl::ann::ProjectedPlan plan = lsgl::ann::plan_projected(MPI_COMM_WORLD, rows, m, p);
    const lsgl::ann::CellLayout& lay = plan.cells.layout;
    ASSERT_GT(lay.cells, 4);
    const Serial serial(data, all, rows, plan, p.seed);
    lsgl::ann::ChoiceSample q;
    for (std::int64_t g = 3; g < data.n; g += 47) {
      q.ids.push_back(g);
      q.projected.insert(q.projected.end(), serial.y.begin() + g * dims,
                         serial.y.begin() + (g + 1) * dims);
      for (const auto& [d2, j] : brute_force(data, all, g, m)) q.exact.push_back({d2, j});
    }
    const std::vector<int> ladder = {1, 2, 4, lay.cells}, lengths = {8, 11, 20, 45};
    const std::vector<std::int64_t> hits =
        lsgl::ann::shortlist_hits(MPI_COMM_WORLD, plan, q, ladder, lengths, m, 2);
    const std::int64_t all_hits = static_cast<std::int64_t>(q.ids.size()) * m;
    for (std::size_t li = 0; li < ladder.size(); ++li) {
      for (std::size_t t = 0; t < lengths.size(); ++t) {
        std::int64_t want = 0;
        for (std::size_t s = 0; s < q.ids.size(); ++s) {
          int own = 0;
          const List list =
              projected_shortlist(serial.rows, lay, ladder[li], lengths[t], q.ids[s], &own);
          for (int j = 0; j < m; ++j) {
            const std::int64_t e = q.exact[s * m + j].idx;
            want +=
                std::any_of(list.begin(), list.end(), [e](const auto& x) { return x.second == e; });
          }
        }
        EXPECT_EQ(hits[li * lengths.size() + t], want)
            << "n " << data.n << " probes " << ladder[li] << " S " << lengths[t];
      }
    }
    // The pairs differ: the narrowest misses neighbours, the widest holds more.
    EXPECT_LT(hits.front(), hits.back());
    EXPECT_LT(hits.front(), all_hits);
  }
}

// --ann auto above 100 dimensions: the projected search where its shortlist reaches the recall
// target on sampled rows in at most half the dimensions (data of rank 8 in 128 dimensions), the
// other engines where it does not (isotropic noise), and only exact searches with --ann-certify.
TEST(Projected, AutoChoosesByTheSampleRecall) {
  const int m = 10;
  {
    const Data data = latent_data(3000, 128, 8, 0.01);
    AnnParams p;
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, data.block(MPI_COMM_WORLD), m, p);
    EXPECT_EQ(c.report.engine, lsgl::AnnEngine::kProjected);
    EXPECT_GE(c.report.shortlist_recall, 0.997);
    EXPECT_GE(c.report.explained_variance, 0.85);
  }
  const Data noise = gauss_data(1500, 120);
  const std::vector<float> all = noise.all();
  const LocalRows rows = noise.block(MPI_COMM_WORLD);
  AnnParams p;
  const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
  EXPECT_NE(c.report.engine, lsgl::AnnEngine::kProjected);
  EXPECT_GT(2 * c.report.projected_dims, noise.d);  // the variance is spread over every axis
  p.certify = true;
  const Candidates e = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
  EXPECT_EQ(e.report.engine, lsgl::AnnEngine::kVoronoi);
  expect_exact(noise, all, rows, e, m);
}

TEST(Projected, RefusedOptions) {
  const Data data = gauss_data(40, 6);
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  AnnParams p;
  p.engine = lsgl::AnnEngine::kProjected;
  p.project_dims = 7;  // above d
  EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 5, p), lsgl::CollectiveError);
  p.project_dims = -1;
  EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 5, p), lsgl::CollectiveError);
  p.project_dims = 3;
  p.shortlist = 4;  // below m
  EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 5, p), lsgl::CollectiveError);
  p.shortlist = 0;
  p.engine = lsgl::AnnEngine::kHnsw;  // the projection's options belong to projected or auto
  EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 5, p), lsgl::CollectiveError);
  p.project_dims = 0;
  p.certify = true;  // hnsw is not exact
  EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 5, p), lsgl::CollectiveError);
}

}  // namespace
