// The learn pipeline through its model interface: `lsgl theta` and the log model start from the
// same [KP19] eq. 18 theta, computed here from brute-force neighbour lists; the knn model's graph
// equals the Gaussian k-NN graph built here; every model refuses the options of the others.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "lsgl/cli/choices.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/learn/checkpoint.hpp"
#include "lsgl/learn/model.hpp"
#include "lsgl/pipeline/learn.hpp"
#include "lsgl/util/error.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

constexpr std::int64_t kN = 60, kD = 3;

float value(std::int64_t i, std::int64_t j) {
  return static_cast<float>(std::sin(0.37 * i * (j + 1) + j) + 0.01 * ((i * 7 + j) % 5));
}

// Every rank: the n x n squared distances of the rows above (float rows, double sums).
std::vector<double> all_distances() {
  std::vector<double> z(kN * kN);
  for (std::int64_t a = 0; a < kN; ++a)
    for (std::int64_t b = 0; b < kN; ++b) {
      double s = 0;
      for (std::int64_t j = 0; j < kD; ++j) {
        const double t = static_cast<double>(value(a, j)) - static_cast<double>(value(b, j));
        s += t * t;
      }
      z[a * kN + b] = s;
    }
  return z;
}

// Every rank: the m nearest other rows of row a by (distance, index).
std::vector<std::pair<double, std::int64_t>> nearest(const std::vector<double>& z, std::int64_t a,
                                                     int m) {
  std::vector<std::pair<double, std::int64_t>> l;
  for (std::int64_t b = 0; b < kN; ++b)
    if (b != a) l.emplace_back(z[a * kN + b], b);
  std::sort(l.begin(), l.end());
  l.resize(m);
  return l;
}

// Collective. The data file, written once.
const std::string& data_file() {
  static const std::string path = [] {
    const std::string p = lsgl::test::shared_tmpdir("lsgl-learnpipe") + "/x.h5";
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::int64_t begin = kN * rank / size, end = kN * (rank + 1) / size;
    std::vector<float> x;
    for (std::int64_t i = begin; i < end; ++i)
      for (std::int64_t j = 0; j < kD; ++j) x.push_back(value(i, j));
    h5::File f = h5::create(MPI_COMM_WORLD, p);
    h5::write_2d(f, "/X", x, begin, kN, kD);
    f.close();
    return p;
  }();
  return path;
}

// The options of a run of `model` (parsed from its name as the command line does).
LearnOptions options(const std::string& model, const std::string& output) {
  LearnOptions o;
  o.model = cli::parse_choice<ModelKind>("model", model);
  o.input = data_file();
  o.output = output;
  o.k = 4;
  o.r = 3;
  o.ann.engine = lsgl::AnnEngine::kExact;
  o.recall_sample = 0;
  return o;
}

// Every rank: [KP19] eq. 18 written out: the geometric mean of the mean lower and mean upper
// bounds of every node's interval (Thm. 3) from its r*k nearest distances.
double eq18_theta(int k, int m) {
  const auto z = all_distances();
  double lo = 0, up = 0;
  int nlo = 0, nup = 0;
  for (std::int64_t a = 0; a < kN; ++a) {
    const auto l = nearest(z, a, m);
    double b = 0;
    for (int i = 0; i < k; ++i) b += l[i].first;
    const double zk1 = l[k].first, zk = l[k - 1].first;
    const double dl = k * zk1 * zk1 - b * zk1, du = k * zk * zk - b * zk;
    if (dl > 0) lo += 1 / std::sqrt(dl), ++nlo;
    if (du > 0) up += 1 / std::sqrt(du), ++nup;
  }
  return std::sqrt(lo / nlo * up / nup);
}

// Records what a run tells its monitor (on this rank); asks to stop once `stop_after`
// iterations were reported (-1: never).
class RecordingMonitor : public Monitor {
 public:
  void phase(const PhaseReport& r) override { phases.push_back(r.name); }
  void iteration(const IterationReport& r) override { iterations.push_back(r.iteration); }
  void message(MessageKind kind, const std::string& text) override {
    (kind == MessageKind::kSummary ? summary : info).push_back(text);
  }
  bool stop_requested() override {
    return stop_after >= 0 && static_cast<int>(iterations.size()) >= stop_after;
  }

  std::vector<std::string> phases, summary, info;
  std::vector<int> iterations;
  int stop_after = -1;
};

bool has_line(const std::vector<std::string>& lines, const std::string& start) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.rfind(start, 0) == 0; });
}

std::string error_of(const LearnOptions& o) {
  try {
    run_learn(MPI_COMM_WORLD, o);
  } catch (const CollectiveError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LearnPipeline, ThetaCommandAndLogModelStartFromEq18) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  LearnOptions o = options("log", dir + "/g.h5");
  o.degree_tol = 0;  // theta stays eq. 18's
  const double expected = eq18_theta(o.k, 12);
  const ThetaChoice t = run_theta(MPI_COMM_WORLD, o);
  EXPECT_NEAR(t.theta, expected, 1e-9 * expected);
  run_learn(MPI_COMM_WORLD, o);
  h5::File f = h5::open_read(MPI_COMM_WORLD, o.output);
  EXPECT_NEAR(h5::get_attr_double(f, "/graph", "theta"), expected, 1e-9 * expected);
  EXPECT_NEAR(h5::get_attr_double(f, "/graph", "theta_eq18"), expected, 1e-9 * expected);
  EXPECT_EQ(h5::get_attr_string(f, "/graph", "model"), "log");
}

// The recall estimate's wall time is reported apart, as part of the candidate phase's: in the
// summary and as /graph attribute seconds_recall. With exact lists the estimate is 1.
TEST(LearnPipeline, RecallEstimateIsTimedApart) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  LearnOptions o = options("log", dir + "/recall-timed.h5");
  o.recall_sample = 20;
  const LearnSummary s = run_learn(MPI_COMM_WORLD, o);
  EXPECT_EQ(s.recall, 1.0);
  EXPECT_GT(s.t_recall, 0.0);
  EXPECT_LE(s.t_recall, s.t_candidates);
  h5::File f = h5::open_read(MPI_COMM_WORLD, o.output);
  EXPECT_EQ(h5::get_attr_double(f, "/graph", "seconds_recall"), s.t_recall);
}

TEST(LearnPipeline, KnnModelIsTheGaussianKnnGraph) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  const LearnOptions o = options("knn", dir + "/knn.h5");
  run_learn(MPI_COMM_WORLD, o);
  const auto z = all_distances();
  double mean_k = 0;
  std::map<std::pair<std::int64_t, std::int64_t>, double> expected;
  for (std::int64_t a = 0; a < kN; ++a) mean_k += nearest(z, a, o.k).back().first / kN;
  for (std::int64_t a = 0; a < kN; ++a)
    for (const auto& [d, b] : nearest(z, a, o.k)) {
      expected[{a, b}] = expected[{b, a}] = std::exp(-d / mean_k);
    }
  const LocalCsr g = read_graph(MPI_COMM_WORLD, o.output);
  std::int64_t local_expected = 0, local_found = 0;
  for (std::int64_t r = 0; r < g.local_rows(); ++r) {
    const std::int64_t a = g.begin + r;
    for (std::int64_t e = g.indptr[r]; e < g.indptr[r + 1]; ++e) {
      const auto it = expected.find({a, g.indices[e]});
      ASSERT_NE(it, expected.end())
          << "edge " << a << "-" << g.indices[e] << " not in the k-NN graph";
      EXPECT_NEAR(g.data[e], it->second, 1e-6 * it->second);
      ++local_found;
    }
  }
  for (const auto& [ab, w] : expected)
    if (ab.first >= g.begin && ab.first < g.begin + g.local_rows()) ++local_expected;
  EXPECT_EQ(local_found, local_expected);
}

namespace {

// Every rank: the k-NN graph written out: (a, b) -> 1 or exp(-z/sigma^2) for the union of the
// lists or the pairs in both lists.
std::map<std::pair<std::int64_t, std::int64_t>, double> knn_graph(int k, bool mutual,
                                                                  bool binary) {
  const auto z = all_distances();
  double mean_k = 0;
  for (std::int64_t a = 0; a < kN; ++a) mean_k += nearest(z, a, k).back().first / kN;
  std::map<std::pair<std::int64_t, std::int64_t>, int> listed;
  for (std::int64_t a = 0; a < kN; ++a)
    for (const auto& nb : nearest(z, a, k))
      ++listed[{std::min(a, nb.second), std::max(a, nb.second)}];
  std::map<std::pair<std::int64_t, std::int64_t>, double> g;
  for (const auto& [ab, count] : listed) {
    if (mutual && count < 2) continue;
    const double w = binary ? 1.0 : std::exp(-z[ab.first * kN + ab.second] / mean_k);
    g[ab] = g[{ab.second, ab.first}] = w;
  }
  return g;
}

// Collective. This rank's rows of the graph file equal `expected` (pattern and weights).
void expect_graph(const std::string& path,
                  const std::map<std::pair<std::int64_t, std::int64_t>, double>& expected) {
  const LocalCsr g = read_graph(MPI_COMM_WORLD, path);
  std::int64_t local_expected = 0, local_found = 0;
  for (std::int64_t r = 0; r < g.local_rows(); ++r) {
    const std::int64_t a = g.begin + r;
    for (std::int64_t e = g.indptr[r]; e < g.indptr[r + 1]; ++e) {
      const auto it = expected.find({a, g.indices[e]});
      ASSERT_NE(it, expected.end()) << "edge " << a << "-" << g.indices[e] << " not expected";
      EXPECT_NEAR(g.data[e], it->second, 1e-6 * it->second);
      ++local_found;
    }
  }
  for (const auto& [ab, w] : expected)
    if (ab.first >= g.begin && ab.first < g.begin + g.local_rows()) ++local_expected;
  EXPECT_EQ(local_found, local_expected);
}

}  // namespace

// --knn-mode mutual keeps the pairs that both lists name; --knn-weights binary gives them 1.
TEST(LearnPipeline, KnnVariantsAreTheBruteForceGraphs) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  for (const bool mutual : {false, true})
    for (const bool binary : {false, true}) {
      SCOPED_TRACE(std::string(mutual ? "mutual" : "union") + (binary ? " binary" : " gaussian"));
      LearnOptions o = options("knn", dir + "/knn-variant.h5");
      o.knn_mode = mutual ? KnnMode::kMutual : KnnMode::kUnion;
      o.knn_weights = binary ? KnnWeights::kBinary : KnnWeights::kGaussian;
      for (const NodeOrder order : {NodeOrder::kInput, NodeOrder::kLocality}) {
        o.order = order;
        run_learn(MPI_COMM_WORLD, o);
        expect_graph(o.output, knn_graph(o.k, mutual, binary));
        h5::File f = h5::open_read(MPI_COMM_WORLD, o.output);
        EXPECT_EQ(h5::get_attr_string(f, "/graph", "knn_mode"), mutual ? "mutual" : "union");
        EXPECT_EQ(h5::get_attr_string(f, "/graph", "knn_weights"),
                  binary ? "binary" : "gaussian");
      }
    }
  // The mutual graph of these rows is a strict part of the union (else the test shows nothing).
  EXPECT_LT(knn_graph(4, true, false).size(), knn_graph(4, false, false).size());
  LearnOptions o = options("knn", dir + "/refused.h5");
  o.knn_weights = KnnWeights::kBinary;
  o.sigma = 1;
  EXPECT_NE(error_of(o).find("--sigma sets the Gaussian weights"), std::string::npos);
  o = options("log", dir + "/refused.h5");
  o.knn_mode = KnnMode::kMutual;
  EXPECT_NE(error_of(o).find("--knn-mode belongs to --model knn"), std::string::npos);
}

namespace {

// Collective. This rank's rows of the graph file with /graph/distances aligned with the
// weights, and the attribute `metric` of the distances.
std::pair<LocalCsr, std::vector<double>> graph_with_distances(const std::string& path,
                                                              std::string* metric) {
  LocalCsr g = read_graph(MPI_COMM_WORLD, path);
  h5::File f = h5::open_read(MPI_COMM_WORLD, path);
  const std::int64_t start = h5::read_1d<std::int64_t>(f, "/graph/indptr", g.begin, 1)[0];
  const std::vector<double> d =
      h5::read_1d<double>(f, "/graph/distances", start, g.indptr.back());
  *metric = h5::get_attr_string(f, "/graph/distances", "metric");
  return {std::move(g), d};
}

}  // namespace

// /graph/distances holds each stored edge's distance ||x_a - x_b|| (cosine: 1 - cos) computed
// here from the rows, for every model and both node orders.
TEST(LearnPipeline, GraphStoresEachEdgesDistance) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  const auto z = all_distances();
  for (const std::string model : {"log", "knn", "l2"})
    for (const NodeOrder order : {NodeOrder::kInput, NodeOrder::kLocality}) {
      SCOPED_TRACE(model);
      LearnOptions o = options(model, dir + "/distances.h5");
      o.order = order;
      run_learn(MPI_COMM_WORLD, o);
      std::string metric;
      const auto [g, d] = graph_with_distances(o.output, &metric);
      EXPECT_EQ(metric, "euclidean");
      ASSERT_EQ(d.size(), g.data.size());
      for (std::int64_t r = 0; r < g.local_rows(); ++r)
        for (std::int64_t e = g.indptr[r]; e < g.indptr[r + 1]; ++e) {
          const double expected = std::sqrt(z[(g.begin + r) * kN + g.indices[e]]);
          EXPECT_NEAR(d[e], expected, 1e-12 * expected) << g.begin + r << "-" << g.indices[e];
        }
    }
  LearnOptions o = options("log", dir + "/cosine.h5");
  o.metric = Metric::kCosine;
  run_learn(MPI_COMM_WORLD, o);
  std::string metric;
  const auto [g, d] = graph_with_distances(o.output, &metric);
  EXPECT_EQ(metric, "cosine");
  ASSERT_EQ(d.size(), g.data.size());
  for (std::int64_t r = 0; r < g.local_rows(); ++r)
    for (std::int64_t e = g.indptr[r]; e < g.indptr[r + 1]; ++e) {
      double ab = 0, aa = 0, bb = 0;
      for (std::int64_t j = 0; j < kD; ++j) {
        const double x = value(g.begin + r, j), y = value(g.indices[e], j);
        ab += x * y, aa += x * x, bb += y * y;
      }
      EXPECT_NEAR(d[e], 1 - ab / std::sqrt(aa * bb), 1e-6);
    }
  o = options("log", dir + "/no-distances.h5");
  o.distances = false;
  run_learn(MPI_COMM_WORLD, o);
  h5::File f = h5::open_read(MPI_COMM_WORLD, o.output);
  EXPECT_EQ(h5::object_kind(f, "/graph/distances"), h5::ObjectKind::kMissing);
}

TEST(LearnPipeline, ModelsRefuseTheOptionsOfOtherModels) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  LearnOptions o = options("log", dir + "/refused.h5");
  o.sigma = 1;
  EXPECT_NE(error_of(o).find("--sigma must be positive and belongs to --model knn"),
            std::string::npos);
  o = options("knn", dir + "/refused.h5");
  o.theta = 2;
  EXPECT_NE(error_of(o).find("--theta and --beta belong to --model log"), std::string::npos);
  o = options("hard", dir + "/refused.h5");
  o.mu = 1;
  EXPECT_NE(error_of(o).find("--mu must be positive and belongs to --model soft"),
            std::string::npos);
  o = options("l2", dir + "/refused.h5");
  o.checkpoint = dir + "/ck.h5";
  EXPECT_NE(error_of(o).find("--checkpoint and --resume work with --model log only"),
            std::string::npos);
  o = options("soft", dir + "/refused.h5");
  o.project_dim = 2;
  o.mu = 1;
  EXPECT_EQ(error_of(o), "");  // both belong to soft
  std::string unknown;
  try {
    options("tree", dir + "/refused.h5");
  } catch (const std::invalid_argument& e) {
    unknown = e.what();
  }
  EXPECT_NE(unknown.find("unknown --model 'tree'"), std::string::npos);
}

// The run tells its monitor each phase in order, every iteration (numbered from 1) and the
// summary; the default monitor is silent.
TEST(LearnPipeline, MonitorIsToldThePhasesIterationsAndSummary) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  LearnOptions o = options("log", dir + "/monitored.h5");
  o.degree_tol = 0;  // one solve
  RecordingMonitor m;
  const LearnSummary s = run_learn(MPI_COMM_WORLD, o, m);
  EXPECT_EQ(m.phases,
            (std::vector<std::string>{"read", "order", "candidates", "theta", "learn", "write"}));
  ASSERT_EQ(static_cast<int>(m.iterations.size()), s.solver.iterations);
  for (std::size_t i = 0; i < m.iterations.size(); ++i)
    EXPECT_EQ(m.iterations[i], static_cast<int>(i) + 1);
  EXPECT_TRUE(has_line(m.info, "  n = 60, d = 3"));
  EXPECT_TRUE(has_line(m.summary, "summary"));
  EXPECT_TRUE(has_line(m.summary, "  model              log"));
  EXPECT_TRUE(has_line(m.summary, "  edges              " + std::to_string(s.edges) + " of "));
}

// A monitor's stop request on one rank stops the iteration on every rank after the same
// iteration (folded into the iteration's all-reduce), with the checkpoint written there.
TEST(LearnPipeline, MonitorStopsTheIterationOnEveryRank) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-learnpipe");
  LearnOptions o = options("log", dir + "/stopped.h5");
  o.degree_tol = 0;
  o.checkpoint = dir + "/stopped.ckpt";
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  RecordingMonitor m;
  if (rank == size - 1) m.stop_after = 5;  // asked on the last rank only
  const LearnSummary s = run_learn(MPI_COMM_WORLD, o, m);
  EXPECT_TRUE(s.interrupted);
  EXPECT_TRUE(s.solver.interrupted);
  EXPECT_EQ(s.solver.iterations, 6);  // the request polled before iteration 6's all-reduce
  EXPECT_EQ(m.iterations.size(), 6u);
  EXPECT_EQ(read_checkpoint(MPI_COMM_WORLD, o.checkpoint).state.iteration, 6);
}
