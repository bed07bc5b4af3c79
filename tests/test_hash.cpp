// Hashing: the B-step objective and its flips against brute force, monotone DPCD B-steps, the
// DCC and DPCD fixed points, the W-step against its closed form (the dense helpers behind it
// are tested in test_util), reproducible sums,
// MAP and Precision@k against a direct implementation and a hand-checked example, the same
// codes and model on any number of ranks; the other B-step solvers of [DPCD]'s Table 4 (sgm, lp,
// l2box-admm, mpec-epm) against serial implementations written here and each lowering the SDH
// loss from the same start; FSDH's W-step and closed-form fixed point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <tuple>

#include "lsgl/hash/bstep_baselines.hpp"
#include "lsgl/hash/chunked.hpp"
#include "lsgl/hash/codes_problem.hpp"
#include "lsgl/hash/features.hpp"
#include "lsgl/hash/retrieval.hpp"
#include "lsgl/hash/train.hpp"
#include "lsgl/util/mpi.hpp"

using namespace lsgl;
using namespace lsgl::hash;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

Mat random_mat(std::int64_t r, std::int64_t c, std::mt19937_64& rng, double scale = 1.0) {
  std::normal_distribution<double> nd(0.0, scale);
  Mat m(r, c);
  for (auto& v : m.a) v = nd(rng);
  return m;
}

Mat gram_of(const Mat& W) {  // W W^T
  Mat A(W.rows, W.rows);
  for (std::int64_t k = 0; k < W.rows; ++k)
    for (std::int64_t l = 0; l < W.rows; ++l)
      for (std::int64_t j = 0; j < W.cols; ++j) A(k, l) += W(k, j) * W(l, j);
  return A;
}

// A small SDH B-step problem replicated on every rank: n samples, r bits, c classes.
struct SmallProblem {
  int r = 6, classes = 3;
  std::int64_t n = 40;
  Mat W, A;
  std::vector<double> c;         // n x r
  std::vector<std::int8_t> b0;   // n x r
  std::vector<double> c_local;   // this rank's rows of c (problem())
  explicit SmallProblem(std::uint64_t seed, int bits = 6, std::int64_t samples = 40)
      : r(bits), n(samples) {
    std::mt19937_64 rng(seed);
    W = random_mat(r, classes, rng);
    A = gram_of(W);
    c.resize(static_cast<std::size_t>(n * r));
    b0.resize(c.size());
    std::normal_distribution<double> nd(0.0, 0.05);
    for (std::int64_t s = 0; s < n; ++s)
      for (int k = 0; k < r; ++k) {
        c[s * r + k] = W(k, s % classes) + nd(rng);
        b0[s * r + k] = (rng() & 1) ? 1 : -1;
      }
  }
  // This rank's samples in blocks of `chunk`.
  SampleBlocks blocks(MPI_Comm comm, std::int64_t chunk = 4) const {
    return SampleBlocks{n, chunk, comm_size(comm)};
  }
  // The problem of this rank's samples; it reads c_local, which the next call overwrites.
  CodeProblem problem(MPI_Comm comm, const SampleBlocks& bl, const std::vector<std::int8_t>& b,
                      double f0 = 3.0) {
    const int rank = comm_rank(comm);
    const std::int64_t lo = bl.begin(rank), hi = bl.end(rank);
    c_local.assign(c.begin() + lo * r, c.begin() + hi * r);
    std::vector<std::int8_t> bl8(b.begin() + lo * r, b.begin() + hi * r);
    return CodeProblem(comm, n, lo, r, A, &W, c_local, bl8, f0);
  }
  double direct(const std::vector<std::int8_t>& b, double f0 = 3.0) const {
    return f0 + code_objective_local(A, c, b, r);
  }
  std::vector<std::int8_t> gather(MPI_Comm comm, const std::vector<std::int8_t>& local) const {
    return allgather_items(comm, local);
  }
  // This rank's rows of c and of the start codes b0.
  std::vector<double> local_c(MPI_Comm comm, const SampleBlocks& bl) const {
    const int rank = comm_rank(comm);
    return {c.begin() + bl.begin(rank) * r, c.begin() + bl.end(rank) * r};
  }
  std::vector<std::int8_t> local_b0(MPI_Comm comm, const SampleBlocks& bl) const {
    const int rank = comm_rank(comm);
    return {b0.begin() + bl.begin(rank) * r, b0.begin() + bl.end(rank) * r};
  }
};

TEST(CodeProblem, ObjectiveGradientAndFlipModelMatchBruteForce) {
  SmallProblem sp(11, 6, 1000);  // more samples per rank than one block of the gradient's GEMM
  const SampleBlocks bl = sp.blocks(world());
  CodeProblem p = sp.problem(world(), bl, sp.b0);
  EXPECT_NEAR(p.objective(), sp.direct(sp.b0), 1e-9 * std::fabs(sp.direct(sp.b0)));
  // Gradient 2 (A b - c) of every local coordinate.
  const std::int64_t lo = p.begin();
  for (std::size_t i = 0; i < p.x().size(); ++i) {
    const std::int64_t gi = lo + static_cast<std::int64_t>(i), s = gi / sp.r;
    const int k = static_cast<int>(gi % sp.r);
    double ab = 0;
    for (int l = 0; l < sp.r; ++l) ab += sp.A(k, l) * sp.b0[s * sp.r + l];
    EXPECT_NEAR(p.gradient()[i], 2 * (ab - sp.c[gi]), 1e-12);
  }
  // The pairwise flip model is exact: every subset of a few coordinates (two in one code).
  const std::vector<std::int64_t> idx = {0, 3, 7, 20, 4 * sp.r + 1, 4 * sp.r + 3};
  std::vector<double> single, pair;
  p.flip_model(idx, single, pair);
  const int m = static_cast<int>(idx.size());
  for (int mask = 1; mask < (1 << m); ++mask) {
    std::vector<std::int8_t> b = sp.b0;
    double model = 0;
    for (int t = 0; t < m; ++t) {
      if (!(mask >> t & 1)) continue;
      b[idx[t]] = static_cast<std::int8_t>(-b[idx[t]]);
      model += single[t];
      for (int u = t + 1; u < m; ++u)
        if (mask >> u & 1) model += pair[t * m + u];
    }
    EXPECT_NEAR(model, sp.direct(b) - sp.direct(sp.b0), 1e-9) << "mask " << mask;
  }
  // flip() keeps f and g exact.
  std::vector<std::int64_t> mine;
  for (std::int64_t gi : {1, 2, 9, 20})
    if (gi >= lo && gi < lo + static_cast<std::int64_t>(p.x().size())) mine.push_back(gi - lo);
  p.flip(mine);
  std::vector<std::int8_t> b = sp.b0;
  for (std::int64_t gi : {1, 2, 9, 20}) b[gi] = static_cast<std::int8_t>(-b[gi]);
  EXPECT_NEAR(p.objective(), sp.direct(b), 1e-9 * std::fabs(sp.direct(b)));
  EXPECT_EQ(sp.gather(world(), p.x()), b);
}

// Problems built one after another on the same buffers (larger, then smaller, with and without
// the factor) have the gradient and objective of the direct evaluation.
TEST(CodeProblem, ReusedBuffersGiveExactProblems) {
  CodeBuffers buffers;
  for (const auto& [bits, samples, factored] :
       {std::tuple{8, 900, true}, std::tuple{5, 300, false}, std::tuple{8, 700, true}}) {
    SmallProblem sp(17 + bits + samples, bits, samples);
    const SampleBlocks bl = sp.blocks(world());
    const int rank = comm_rank(world());
    const std::int64_t lo = bl.begin(rank), hi = bl.end(rank);
    const std::vector<double> cl(sp.c.begin() + lo * sp.r, sp.c.begin() + hi * sp.r);
    std::vector<std::int8_t> codes(sp.b0.begin() + lo * sp.r, sp.b0.begin() + hi * sp.r);
    const CodeProblem p(world(), sp.n, lo, sp.r, sp.A, factored ? &sp.W : nullptr, cl, codes, 1.5,
                        &buffers);
    const double direct = sp.direct(sp.b0, 1.5);
    EXPECT_NEAR(p.objective(), direct, 1e-9 * std::fabs(direct)) << bits << " bits";
    for (std::size_t i = 0; i < p.x().size(); ++i) {
      const std::int64_t gi = lo * sp.r + static_cast<std::int64_t>(i), s = gi / sp.r;
      const int k = static_cast<int>(gi % sp.r);
      double ab = 0;
      for (int l = 0; l < sp.r; ++l) ab += sp.A(k, l) * sp.b0[s * sp.r + l];
      ASSERT_NEAR(p.gradient()[i], 2 * (ab - sp.c[gi]), 1e-12)
          << bits << " bits, coordinate " << gi;
    }
  }
}

TEST(CodeProblem, DpcdBStepNeverIncreasesTheLossWithoutSafeguard) {
  for (auto rule : {dpcd::ThresholdRule::kLipschitz, dpcd::ThresholdRule::kCoordinate}) {
    SmallProblem sp(5, 8, 60);
    const SampleBlocks bl = sp.blocks(world());
    CodeProblem p = sp.problem(world(), bl, sp.b0);
    dpcd::Options o;
    o.domain = dpcd::Domain::kFree;
    o.thresholds = rule;
    o.one_per_block = rule == dpcd::ThresholdRule::kCoordinate;
    o.fallback = dpcd::Fallback::kNone;  // no undo: the rule alone must not raise f
    o.ns_m = 0;
    o.max_iterations = 200;
    const dpcd::Report r = dpcd::minimize(p, o);
    ASSERT_GE(r.objective.size(), 2u);
    for (std::size_t i = 1; i < r.objective.size(); ++i)
      EXPECT_LE(r.objective[i], r.objective[i - 1]) << "rule " << lsgl::to_string(rule)
                                                   << " it " << i;
    EXPECT_LT(r.objective.back(), r.objective.front());
    EXPECT_EQ(r.rejected, 0);
    for (auto v : p.x()) EXPECT_TRUE(v == 1 || v == -1);
    EXPECT_NEAR(p.objective(), sp.direct(sp.gather(world(), p.x())),
                1e-9 * std::fabs(p.objective()));
  }
}

// At convergence no single bit flip lowers the loss, for DPCD (coordinate rule) and for DCC.
TEST(CodeProblem, DpcdAndDccStopAtSingleFlipMinima) {
  SmallProblem sp(21, 8, 50);
  const SampleBlocks bl = sp.blocks(world());
  CodeProblem p = sp.problem(world(), bl, sp.b0);
  dpcd::Options o;
  o.domain = dpcd::Domain::kFree;
  o.thresholds = dpcd::ThresholdRule::kCoordinate;
  o.one_per_block = true;
  o.max_iterations = 500;
  const dpcd::Report r = dpcd::minimize(p, o);
  EXPECT_TRUE(r.converged);
  std::vector<std::int8_t> dcc = sp.b0;
  const int sweeps = dcc_bstep(sp.A, sp.c, dcc, sp.r, 100);
  EXPECT_LT(sweeps, 100);
  for (const auto& b : {sp.gather(world(), p.x()), dcc}) {
    const double f = sp.direct(b);
    for (std::size_t i = 0; i < b.size(); ++i) {
      std::vector<std::int8_t> y = b;
      y[i] = static_cast<std::int8_t>(-y[i]);
      EXPECT_GE(sp.direct(y), f - 1e-9) << "coordinate " << i;
    }
    EXPECT_LT(f, sp.direct(sp.b0));
  }
}

// With A = 0 (the ITQ loss) the minimiser is sgn(c); DPCD reaches it.
TEST(CodeProblem, ItqBStepReachesTheSign) {
  SmallProblem sp(8);
  sp.A = Mat(sp.r, sp.r);
  const SampleBlocks bl = sp.blocks(world());
  const int rank = comm_rank(world());
  const std::int64_t lo = bl.begin(rank), hi = bl.end(rank);
  std::vector<double> cl(sp.c.begin() + lo * sp.r, sp.c.begin() + hi * sp.r);
  std::vector<std::int8_t> b(sp.b0.begin() + lo * sp.r, sp.b0.begin() + hi * sp.r);
  CodeProblem p(world(), sp.n, lo, sp.r, sp.A, nullptr, cl, b, 0.0);
  dpcd::Options o;
  o.domain = dpcd::Domain::kFree;
  o.thresholds = dpcd::ThresholdRule::kCoordinate;
  dpcd::minimize(p, o);
  std::vector<std::int8_t> s;
  sign_bstep(cl, s);
  EXPECT_EQ(p.x(), s);
}

TEST(Dense, WStepSatisfiesItsNormalEquations) {
  std::mt19937_64 rng(3);
  const int r = 7, c = 4, n = 50;
  Mat B(r, n), Y(c, n);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < r; ++k) B(k, i) = (rng() & 1) ? 1 : -1;
    Y(static_cast<int>(rng() % c), i) = 1;
  }
  Mat BBt(r, r), BYt(r, c);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < r; ++k) {
      for (int l = 0; l < r; ++l) BBt(k, l) += B(k, i) * B(l, i);
      for (int j = 0; j < c; ++j) BYt(k, j) += B(k, i) * Y(j, i);
    }
  }
  const double beta = 0.7;
  const Mat W = sdh_w_step(BBt, BYt, beta);
  // d/dW (||Y - W^T B||^2 + beta ||W||^2) = 2 B (B^T W - Y^T) + 2 beta W = 0 ([DPCD] eq. 18).
  for (int k = 0; k < r; ++k)
    for (int j = 0; j < c; ++j) {
      double g = beta * W(k, j);
      for (int i = 0; i < n; ++i) {
        double btw = 0;
        for (int l = 0; l < r; ++l) btw += B(l, i) * W(l, j);
        g += B(k, i) * (btw - Y(j, i));
      }
      EXPECT_NEAR(g, 0.0, 1e-10);
    }
}

TEST(Chunked, SumsMatchDirectSumsAndDoNotDependOnRanks) {
  const std::int64_t n = 103, p = 5, q = 3;
  std::mt19937_64 rng(17);
  std::normal_distribution<double> nd;
  std::vector<double> a(n * p), b(n * q);
  for (auto& v : a) v = nd(rng);
  for (auto& v : b) v = nd(rng);
  auto run = [&](MPI_Comm comm) {
    const SampleBlocks bl{n, 8, comm_size(comm)};
    const int rank = comm_rank(comm);
    const std::int64_t lo = bl.begin(rank), rows = bl.end(rank) - lo;
    const Mat ab = sample_cross(comm, bl, a.data() + lo * p, p, b.data() + lo * q, q, rows);
    const Mat aa = sample_cross(comm, bl, a.data() + lo * p, p, a.data() + lo * p, p, rows);
    std::vector<double> cs = sample_column_sums(comm, bl, a.data() + lo * p, p, rows);
    cs.insert(cs.end(), ab.a.begin(), ab.a.end());
    cs.insert(cs.end(), aa.a.begin(), aa.a.end());
    return cs;
  };
  const std::vector<double> all = run(world());
  // Direct sums.
  for (std::int64_t j = 0; j < p; ++j) {
    double s = 0;
    for (std::int64_t i = 0; i < n; ++i) s += a[i * p + j];
    EXPECT_NEAR(all[j], s, 1e-12);
  }
  for (std::int64_t k = 0; k < p; ++k)
    for (std::int64_t l = 0; l < q; ++l) {
      double s = 0;
      for (std::int64_t i = 0; i < n; ++i) s += a[i * p + k] * b[i * q + l];
      EXPECT_NEAR(all[p + k * q + l], s, 1e-11);
    }
  for (std::int64_t k = 0; k < p; ++k)
    for (std::int64_t l = 0; l < p; ++l)
      EXPECT_EQ(all[p + p * q + k * p + l], all[p + p * q + l * p + k]);
  if (comm_rank(world()) == 0) EXPECT_EQ(run(MPI_COMM_SELF), all);  // bit for bit
}

TEST(Features, RbfTrainingFeaturesEqualTheMapAndSigmaIsTheMeanDistance) {
  const std::int64_t n = 150, d = 5, anchors = 12;
  std::mt19937_64 rng(3);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> all(static_cast<std::size_t>(n * d));
  for (auto& v : all) v = nd(rng);
  const SampleBlocks bl{n, 16, comm_size(world())};
  const int rank = comm_rank(world());
  LocalRows rows;
  rows.n = n;
  rows.d = d;
  rows.begin = bl.begin(rank);
  rows.values().assign(all.begin() + bl.begin(rank) * d, all.begin() + bl.end(rank) * d);
  std::vector<double> phi;
  const FeatureMap f = fit_features(world(), bl, rows, FeatureKind::kRbf, anchors, 9, &phi);
  // sigma: the mean over all samples and anchors of the distance, computed directly.
  double total = 0.0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < anchors; ++j) {
      double s = 0.0;
      for (std::int64_t t = 0; t < d; ++t) {
        const double u = all[i * d + t] - f.anchors(j, t);
        s += u * u;
      }
      total += std::sqrt(s);
    }
  EXPECT_NEAR(f.sigma, total / static_cast<double>(n * anchors), 1e-12 * f.sigma);
  // The returned training features are the map applied to the same rows (centred), exactly.
  const std::vector<double> again = f.apply(rows.data(), rows.local_rows());
  EXPECT_EQ(phi, again);
}

TEST(Retrieval, HandCheckedExample) {
  // 4-bit codes. Query 0000, label 1. Database (index: code, label):
  //   0: 0011 l1 (d 2)   1: 0001 l0 (d 1)   2: 0000 l1 (d 0)   3: 1111 l1 (d 4)   4: 0010 l0 (d 1)
  // Ranking by (distance, index): 2 (rel), 1, 4, 0 (rel), 3 (rel).
  // AP = (1/1 + 2/4 + 3/5) / 3 = 0.7; P@2 = 1/2; P@4 = 2/4.
  auto code = [](int bits) {
    std::vector<std::int8_t> c(4);
    for (int k = 0; k < 4; ++k) c[k] = (bits >> k & 1) ? 1 : -1;
    return c;
  };
  std::vector<std::int8_t> db;
  for (int v : {0b1100, 0b1000, 0b0000, 0b1111, 0b0100}) {
    const auto c = code(v);
    db.insert(db.end(), c.begin(), c.end());
  }
  const std::vector<std::uint8_t> packed = pack_codes(db, 4);
  const std::vector<std::uint8_t> q = pack_codes(code(0), 4);
  const std::vector<std::int32_t> labels = {1, 0, 1, 1, 0};
  double ap = 0, p2 = 0, p4 = 0;
  rank_query(q.data(), 1, packed, labels, 4, 2, &ap, &p2);
  EXPECT_NEAR(ap, 0.7, 1e-15);
  EXPECT_NEAR(p2, 0.5, 1e-15);
  rank_query(q.data(), 1, packed, labels, 4, 4, &ap, &p4);
  EXPECT_NEAR(p4, 0.5, 1e-15);
  rank_query(q.data(), 7, packed, labels, 4, 4, &ap, &p4);  // no relevant item
  EXPECT_EQ(ap, 0.0);
  EXPECT_EQ(unpack_codes(packed, 4), db);
}

TEST(Retrieval, MatchesADirectImplementation) {
  std::mt19937_64 rng(9);
  const int bits = 13;
  const std::int64_t ndb = 300, nq = 37, k = 25;
  auto random_codes = [&](std::int64_t rows) {
    std::vector<std::int8_t> c(rows * bits);
    for (auto& v : c) v = (rng() % 3 == 0) ? 1 : -1;  // skewed: many distance ties
    return c;
  };
  const auto db = random_codes(ndb), qs = random_codes(nq);
  std::vector<std::int32_t> dl(ndb), ql(nq);
  for (auto& v : dl) v = static_cast<std::int32_t>(rng() % 4);
  for (auto& v : ql) v = static_cast<std::int32_t>(rng() % 5);  // label 4: none relevant
  // Direct: sort by (distance, index), then the textbook formulas.
  double map = 0, prec = 0;
  std::int64_t none = 0;
  for (std::int64_t q = 0; q < nq; ++q) {
    std::vector<std::pair<int, std::int64_t>> order;
    for (std::int64_t i = 0; i < ndb; ++i) {
      int d = 0;
      for (int t = 0; t < bits; ++t) d += db[i * bits + t] != qs[q * bits + t];
      order.push_back({d, i});
    }
    std::sort(order.begin(), order.end());
    double hits = 0, ap = 0, at_k = 0;
    for (std::int64_t j = 0; j < ndb; ++j)
      if (dl[order[j].second] == ql[q]) {
        ++hits;
        ap += hits / static_cast<double>(j + 1);
        if (j < k) ++at_k;
      }
    map += hits > 0 ? ap / hits : 0.0;
    none += hits == 0;
    prec += at_k / static_cast<double>(k);
  }
  // Distributed: each rank its block of queries.
  const Partition part(nq, comm_size(world()));
  const int rank = comm_rank(world());
  const std::int64_t lo = part.begin(rank), hi = part.end(rank);
  const std::vector<std::int8_t> mine(qs.begin() + lo * bits, qs.begin() + hi * bits);
  const std::vector<std::int32_t> my_labels(ql.begin() + lo, ql.begin() + hi);
  const RetrievalScore s = evaluate_retrieval(world(), pack_codes(mine, bits), my_labels,
                                              pack_codes(db, bits), dl, bits, k);
  EXPECT_EQ(s.queries, nq);
  EXPECT_NEAR(s.map, map / nq, 1e-12);
  EXPECT_NEAR(s.precision_at_k, prec / nq, 1e-12);
  EXPECT_EQ(s.no_relevant, none);
  EXPECT_GT(none, 0);
}

// A labelled data set: three Gaussian classes in 10 dimensions.
LocalRows labelled_rows(MPI_Comm comm, const SampleBlocks& bl, std::vector<std::int32_t>* labels) {
  const std::int64_t n = bl.n, d = 10;
  std::mt19937_64 rng(123);
  std::normal_distribution<double> nd;
  std::vector<float> x(n * d);
  std::vector<std::int32_t> y(n);
  for (std::int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<std::int32_t>(rng() % 3);
    for (std::int64_t t = 0; t < d; ++t)
      x[i * d + t] = static_cast<float>(nd(rng) + (t % 3 == y[i] ? 2.5 : 0.0));
  }
  const int rank = comm_rank(comm);
  LocalRows rows;
  rows.n = n;
  rows.d = d;
  rows.begin = bl.begin(rank);
  rows.values().assign(x.begin() + rows.begin * d, x.begin() + bl.end(rank) * d);
  labels->assign(y.begin() + rows.begin, y.begin() + bl.end(rank));
  return rows;
}

struct Trained {
  Model model;
  std::vector<std::int8_t> learned, encoded;  // all samples
  std::vector<double> objective;
};

Trained train_on(MPI_Comm comm, TrainOptions o) {
  const SampleBlocks bl{240, 16, comm_size(comm)};
  std::vector<std::int32_t> labels;
  const LocalRows rows = labelled_rows(comm, bl, &labels);
  TrainReport rep;
  Trained t;
  t.model = train(comm, bl, rows, labels, 3, o, &rep);
  t.learned = allgather_items(comm, rep.codes);
  t.encoded = allgather_items(comm, encode(comm, t.model, rows.data(), rows.local_rows()));
  t.objective = rep.objective;
  return t;
}

TEST(Train, SameModelAndCodesOnAnyNumberOfRanks) {
  MPI_Comm solo = MPI_COMM_NULL;
  MPI_Comm_split(world(), comm_rank(world()) == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  for (auto [loss, solver, features] :
       {std::tuple{Loss::kSdh, BSolver::kDpcd, FeatureKind::kRbf},
        std::tuple{Loss::kSdh, BSolver::kDcc, FeatureKind::kRaw},
        std::tuple{Loss::kItq, BSolver::kDpcd, FeatureKind::kRaw},
        std::tuple{Loss::kItq, BSolver::kSign, FeatureKind::kRbf}}) {
    TrainOptions o;
    o.bits = 9;
    o.loss = loss;
    o.solver = solver;
    o.features = features;
    o.anchors = 30;
    o.itq_iterations = 10;
    o.chunk = 16;
    const Trained all = train_on(world(), o);
    for (auto v : all.learned) ASSERT_TRUE(v == 1 || v == -1);
    // The loss decreases over the alternations (SDH) / never rises (ITQ, the B-step and
    // rotation are both exact minimisations).
    for (std::size_t i = 1; i < all.objective.size(); ++i)
      EXPECT_LE(all.objective[i], all.objective[i - 1] * (1 + 1e-12) + 1e-9);
    if (solo != MPI_COMM_NULL) {
      const Trained one = train_on(solo, o);
      EXPECT_EQ(one.learned, all.learned) << to_string(loss) << " " << to_string(solver);
      EXPECT_EQ(one.encoded, all.encoded);
      EXPECT_EQ(one.model.P.a, all.model.P.a);
      EXPECT_EQ(one.objective, all.objective);
    }
  }
  if (solo != MPI_COMM_NULL) MPI_Comm_free(&solo);
}

// Balanced codes: exactly floor(n r / 2) of the learned bits are +1, on any number of ranks,
// and the loss still falls.
TEST(Train, BalancedCodesKeepHalfTheBitsPositive) {
  TrainOptions o;
  o.bits = 7;
  o.features = FeatureKind::kRaw;
  o.balanced = true;
  o.chunk = 16;
  const Trained t = train_on(world(), o);
  const auto plus = std::count(t.learned.begin(), t.learned.end(), std::int8_t{1});
  EXPECT_EQ(plus, 240 * 7 / 2);
  EXPECT_LT(t.objective.back(), t.objective.front());
  MPI_Comm solo = MPI_COMM_NULL;
  MPI_Comm_split(world(), comm_rank(world()) == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  if (solo != MPI_COMM_NULL) {
    EXPECT_EQ(train_on(solo, o).learned, t.learned);
    MPI_Comm_free(&solo);
  }
}

// The supervised codes separate the classes: same-class training samples are nearer in Hamming
// distance than samples of different classes, on average.
TEST(Train, SupervisedCodesSeparateTheClasses) {
  TrainOptions o;
  o.bits = 16;
  o.features = FeatureKind::kRbf;
  o.anchors = 40;
  o.chunk = 16;
  const Trained t = train_on(world(), o);
  const SampleBlocks bl{240, 16, 1};
  std::vector<std::int32_t> labels;
  labelled_rows(MPI_COMM_SELF, bl, &labels);
  double same = 0, diff = 0, ns = 0, nd = 0;
  for (std::int64_t i = 0; i < 240; ++i)
    for (std::int64_t j = i + 1; j < 240; ++j) {
      int d = 0;
      for (int k = 0; k < 16; ++k) d += t.encoded[i * 16 + k] != t.encoded[j * 16 + k];
      (labels[i] == labels[j] ? same : diff) += d;
      (labels[i] == labels[j] ? ns : nd) += 1;
    }
  EXPECT_LT(same / ns, 0.5 * (diff / nd));
}

// ------------------------------------------------------------------ the baselines' B-steps

// Serial implementations of the B-step baselines, written from bstep_baselines.hpp with plain
// loops and sums over all samples in order (the library uses BLAS and reproducible sums).
struct SerialBSteps {
  const SmallProblem& sp;
  double ab(const std::vector<double>& x, std::int64_t s, int k) const {
    double v = 0;
    for (int l = 0; l < sp.r; ++l) v += sp.A(k, l) * x[s * sp.r + l];
    return v;
  }
  double value(const std::vector<double>& x) const {  // sum x^T A x - 2 c^T x
    double f = 0;
    for (std::int64_t s = 0; s < sp.n; ++s)
      for (int k = 0; k < sp.r; ++k) f += x[s * sp.r + k] * (ab(x, s, k) - 2 * sp.c[s * sp.r + k]);
    return f;
  }
  double lambda_max() const {  // power iteration on A (positive semidefinite)
    std::vector<double> v(sp.r, 1.0), w(sp.r);
    double lam = 0;
    for (int it = 0; it < 3000; ++it) {
      double norm = 0;
      for (int k = 0; k < sp.r; ++k) {
        w[k] = 0;
        for (int l = 0; l < sp.r; ++l) w[k] += sp.A(k, l) * v[l];
        norm += w[k] * w[k];
      }
      norm = std::sqrt(norm);
      lam = norm;
      for (int k = 0; k < sp.r; ++k) v[k] = w[k] / norm;
    }
    return lam;
  }
  static std::int8_t sgn(double v, std::int8_t old) { return v > 0 ? 1 : v < 0 ? -1 : old; }
  std::vector<std::int8_t> sgm(std::vector<std::int8_t> b, int iterations) const {
    for (int it = 0; it < iterations; ++it) {
      const std::vector<double> x(b.begin(), b.end());
      for (std::int64_t s = 0; s < sp.n; ++s)
        for (int k = 0; k < sp.r; ++k)
          b[s * sp.r + k] = sgn(sp.c[s * sp.r + k] - ab(x, s, k), b[s * sp.r + k]);
    }
    return b;
  }
  std::vector<std::int8_t> lp(std::vector<std::int8_t> b, int iterations, double tol) const {
    const double L = 2 * lambda_max();
    std::vector<double> x(b.begin(), b.end());
    double f = value(x);
    for (int it = 0; it < iterations; ++it) {
      const std::vector<double> y = x;
      for (std::int64_t s = 0; s < sp.n; ++s)
        for (int k = 0; k < sp.r; ++k) {
          const std::int64_t e = s * sp.r + k;
          x[e] = std::clamp(y[e] - 2 * (ab(y, s, k) - sp.c[e]) / L, -1.0, 1.0);
        }
      const double next = value(x);
      const bool done = !(f - next > tol * std::fabs(next));
      f = next;
      if (done) break;
    }
    for (std::size_t e = 0; e < b.size(); ++e) b[e] = sgn(x[e], b[e]);
    return b;
  }
  std::vector<std::int8_t> mpec(std::vector<std::int8_t> b, const dpcd::MpecOptions& o) const {
    const double L = 2 * lambda_max(), N = static_cast<double>(sp.n * sp.r);
    std::vector<double> x(b.size(), 0.0), v(b.size(), 0.0);
    double rho = o.rho;
    for (int it = 1; it <= o.max_iterations; ++it) {
      for (int t = 0; t < o.inner_iterations; ++t) {
        const std::vector<double> y = x;
        for (std::int64_t s = 0; s < sp.n; ++s)
          for (int k = 0; k < sp.r; ++k) {
            const std::int64_t e = s * sp.r + k;
            x[e] = std::clamp(y[e] - (2 * (ab(y, s, k) - sp.c[e]) - rho * v[e]) / L, -1.0, 1.0);
          }
      }
      double nn = 0;
      for (double a : x) nn += a * a;
      for (std::size_t e = 0; e < x.size(); ++e) v[e] = std::sqrt(N / nn) * x[e];
      if (N - std::sqrt(N * nn) <= o.gap_tol) break;
      if (it % o.every == 0) rho *= o.growth;
    }
    for (std::size_t e = 0; e < b.size(); ++e) b[e] = sgn(x[e], b[e]);
    return b;
  }
};

SmallProblem baseline_problem() {
  SmallProblem sp(31, 8, 64);
  // Scale the loss up so that the penalties' defaults (rho = 0.01 and 25) act within a few
  // dozen iterations on this small problem.
  for (auto& v : sp.W.a) v *= 3;
  sp.A = gram_of(sp.W);
  for (std::int64_t s = 0; s < sp.n; ++s)
    for (int k = 0; k < sp.r; ++k) sp.c[s * sp.r + k] *= 3;
  return sp;
}

// lp, l2box-admm and mpec-epm lower the loss from the same random start; sgm does not.
TEST(BStepBaselines, EachLowersTheSdhLossFromTheSameStart) {
  const SmallProblem sp = baseline_problem();
  const SampleBlocks bl = sp.blocks(world());
  const std::vector<double> cl = sp.local_c(world(), bl);
  const CodeObjective f{world(), &bl, sp.r, &sp.A, &sp.W, &cl};
  const double start = sp.direct(sp.b0);
  for (BSolver solver : {BSolver::kSgm, BSolver::kLp, BSolver::kL2box, BSolver::kMpecEpm}) {
    std::vector<std::int8_t> b = sp.local_b0(world(), bl);
    int its = 0;
    if (solver == BSolver::kSgm) its = sgm_bstep(f, b, 20);
    if (solver == BSolver::kLp) its = lp_bstep(f, b, dpcd::LpOptions{});
    if (solver == BSolver::kL2box) {
      dpcd::L2boxOptions o;
      o.std_tol = 1e-5;
      its = l2box_bstep(f, b, o);
    }
    if (solver == BSolver::kMpecEpm) its = mpec_epm_bstep(f, b, dpcd::MpecOptions{});
    const std::vector<std::int8_t> all = sp.gather(world(), b);
    for (auto v : all) ASSERT_TRUE(v == 1 || v == -1);
    EXPECT_GE(its, 1) << to_string(solver);
    if (solver == BSolver::kSgm) {
      // [DPCD] Lemma 1: flipping every bit the linear surrogate wants is not a descent method
      // for this loss (A = W W^T couples the bits); here it ends above the start. Kept as
      // published, and reported as such in docs/hash.md.
      EXPECT_GT(sp.direct(all), start) << "sgm became monotone: update docs/hash.md";
    } else {
      EXPECT_LT(sp.direct(all), start - 1.0) << to_string(solver);
    }
  }
}

TEST(BStepBaselines, MatchSerialImplementations) {
  const SmallProblem sp = baseline_problem();
  const SerialBSteps ref{sp};
  const SampleBlocks bl = sp.blocks(world());
  const std::vector<double> cl = sp.local_c(world(), bl);
  auto local = [&] { return sp.local_b0(world(), bl); };
  // With and without the factor W of A = W W^T.
  for (const Mat* factor : {&sp.W, static_cast<const Mat*>(nullptr)}) {
    const CodeObjective f{world(), &bl, sp.r, &sp.A, factor, &cl};
    std::vector<std::int8_t> b = local();
    const int its = sgm_bstep(f, b, 7);
    EXPECT_EQ(sp.gather(world(), b), ref.sgm(sp.b0, its));
    b = local();
    dpcd::LpOptions lp;
    lp.max_iterations = 40;
    lp_bstep(f, b, lp);
    EXPECT_EQ(sp.gather(world(), b), ref.lp(sp.b0, 40, lp.tol));
    b = local();
    dpcd::MpecOptions mp;
    mp.max_iterations = 25;
    mpec_epm_bstep(f, b, mp);
    EXPECT_EQ(sp.gather(world(), b), ref.mpec(sp.b0, mp));
  }
}

TEST(BStepBaselines, L2boxKeepsTheBestBinaryPointAndMatchesItsAdmmSteps) {
  // From the centre, the first x-update solves (8A + 2 rho I) x = 2 rho / 2 + 4 (A 1 + c): the
  // binary point x >= 1/2 of that is kept when it beats the start; a run of one iteration
  // returns exactly it or the start.
  const SmallProblem sp = baseline_problem();
  const SampleBlocks bl = sp.blocks(world());
  const std::vector<double> cl = sp.local_c(world(), bl);
  const CodeObjective f{world(), &bl, sp.r, &sp.A, &sp.W, &cl};
  dpcd::L2boxOptions o;
  o.max_iterations = 1;
  std::vector<std::int8_t> b = sp.local_b0(world(), bl);
  l2box_bstep(f, b, o);
  // The serial first step: y1 = y2 = 1/2, z = 0, so x = (8A + 2 rho I)^{-1} (rho + 4 (A 1 + c)).
  const int r = sp.r;
  Mat M(r, r);
  for (int k = 0; k < r; ++k)
    for (int l = 0; l < r; ++l) M(k, l) = 8 * sp.A(k, l) + (k == l ? 2 * o.rho : 0.0);
  std::vector<std::int8_t> want(sp.b0.size());
  for (std::int64_t s = 0; s < sp.n; ++s) {
    // Gaussian elimination with partial pivoting on [M | rhs].
    Mat aug(r, r + 1);
    for (int k = 0; k < r; ++k) {
      double a1 = 0;
      for (int l = 0; l < r; ++l) a1 += sp.A(k, l);
      for (int l = 0; l < r; ++l) aug(k, l) = M(k, l);
      aug(k, r) = o.rho + 4 * (a1 + sp.c[s * r + k]);
    }
    for (int col = 0; col < r; ++col) {
      int piv = col;
      for (int row = col + 1; row < r; ++row)
        if (std::fabs(aug(row, col)) > std::fabs(aug(piv, col))) piv = row;
      for (int j = 0; j <= r; ++j) std::swap(aug(col, j), aug(piv, j));
      for (int row = col + 1; row < r; ++row) {
        const double m = aug(row, col) / aug(col, col);
        for (int j = col; j <= r; ++j) aug(row, j) -= m * aug(col, j);
      }
    }
    std::vector<double> x(r);
    for (int k = r - 1; k >= 0; --k) {
      double v = aug(k, r);
      for (int j = k + 1; j < r; ++j) v -= aug(k, j) * x[j];
      x[k] = v / aug(k, k);
    }
    for (int k = 0; k < r; ++k) want[s * r + k] = x[k] >= 0.5 ? 1 : -1;
  }
  const std::vector<std::int8_t> got = sp.gather(world(), b);
  if (sp.direct(want) <= sp.direct(sp.b0)) {
    EXPECT_EQ(got, want);
  } else {
    EXPECT_EQ(got, sp.b0);
  }
}

TEST(BStepBaselines, TrainingGivesTheSameCodesOnAnyNumberOfRanks) {
  MPI_Comm solo = MPI_COMM_NULL;
  MPI_Comm_split(world(), comm_rank(world()) == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  for (auto [loss, solver] :
       {std::pair{Loss::kSdh, BSolver::kSgm}, std::pair{Loss::kSdh, BSolver::kLp},
        std::pair{Loss::kSdh, BSolver::kL2box}, std::pair{Loss::kSdh, BSolver::kMpecEpm},
        std::pair{Loss::kFsdh, BSolver::kDpcd}, std::pair{Loss::kFsdh, BSolver::kSign}}) {
    TrainOptions o;
    o.bits = 9;
    o.loss = loss;
    o.solver = solver;
    o.features = FeatureKind::kRaw;
    o.alternations = 3;
    o.l2box.max_iterations = 60;
    o.mpec.max_iterations = 40;
    o.chunk = 16;
    const Trained all = train_on(world(), o);
    for (auto v : all.learned) ASSERT_TRUE(v == 1 || v == -1);
    if (solo != MPI_COMM_NULL) {
      const Trained one = train_on(solo, o);
      EXPECT_EQ(one.learned, all.learned) << to_string(loss) << " " << to_string(solver);
      EXPECT_EQ(one.model.P.a, all.model.P.a) << to_string(solver);
      EXPECT_EQ(one.objective, all.objective) << to_string(solver);
    }
  }
  if (solo != MPI_COMM_NULL) MPI_Comm_free(&solo);
}

TEST(Fsdh, WStepSolvesItsNormalEquations) {
  // (Y Y^T + lambda I) W = Y B^T for one-hot Y (c x n) and random codes B (r x n).
  const int classes = 4, r = 5;
  const std::int64_t n = 50;
  std::mt19937_64 rng(7);
  std::vector<int> y(n);
  Mat B(r, n);
  for (std::int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<int>(rng() % classes);
    for (int k = 0; k < r; ++k) B(k, i) = (rng() & 1) ? 1.0 : -1.0;
  }
  std::vector<std::int64_t> counts(classes, 0);
  Mat YBt(classes, r);
  for (std::int64_t i = 0; i < n; ++i) {
    ++counts[y[i]];
    for (int k = 0; k < r; ++k) YBt(y[i], k) += B(k, i);
  }
  const double lambda = 0.7;
  const Mat W = fsdh_w_step(counts, YBt, lambda);
  ASSERT_EQ(W.rows, classes);
  ASSERT_EQ(W.cols, r);
  // Residual of the normal equations, with Y Y^T formed from the samples.
  for (int j = 0; j < classes; ++j)
    for (int k = 0; k < r; ++k) {
      double lhs = lambda * W(j, k), rhs = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        if (y[i] != j) continue;
        for (int jj = 0; jj < classes; ++jj) lhs += (y[i] == jj ? 1.0 : 0.0) * W(jj, k);
        rhs += B(k, i);
      }
      EXPECT_NEAR(lhs, rhs, 1e-12);
    }
}

TEST(Fsdh, ClosedFormFixedPoint) {
  // With nu = 0 the closed-form B-step is b_i = sgn(W^T y_i) (a zero gives +1): after it the
  // codes are one per class, the next W-step gives W_j = n_j / (n_j + lambda) b_j, and the loss
  // is sum_j r n_j lambda / (n_j + lambda), whatever the start. (DPCD reaches sgn(c) wherever
  // c != 0, ItqBStepReachesTheSign; where a class's random start codes sum to 0 it keeps them.)
  TrainOptions o;
  o.bits = 7;
  o.loss = Loss::kFsdh;
  o.solver = BSolver::kSign;
  o.features = FeatureKind::kRaw;
  o.nu = 0.0;
  o.beta = 2.0;
  o.alternations = 3;
  o.chunk = 16;
  const Trained t = train_on(world(), o);
  const SampleBlocks bl{240, 16, 1};
  std::vector<std::int32_t> labels;
  labelled_rows(MPI_COMM_SELF, bl, &labels);
  std::vector<double> count(3, 0.0);
  for (auto l : labels) count[l] += 1;
  double want = 0;
  for (double nj : count) want += o.bits * nj * o.beta / (nj + o.beta);
  ASSERT_EQ(t.objective.size(), 3u);
  EXPECT_NEAR(t.objective[1], want, 1e-9 * want);
  EXPECT_NEAR(t.objective[2], want, 1e-9 * want);
  for (std::int64_t i = 0; i < 240; ++i)
    for (std::int64_t j = 0; j < 240; ++j)
      if (labels[i] == labels[j])
        for (int k = 0; k < o.bits; ++k)
          ASSERT_EQ(t.learned[i * o.bits + k], t.learned[j * o.bits + k]);
}

}  // namespace
