// The eval measures against independent serial computations on small graphs built in the test
// (the same full graph on every rank, each rank taking its block of rows): ghost exchange,
// checks, degree statistics, components (BFS), label propagation (dense Gaussian elimination of
// the harmonic system), class connectivity (direct sums), hop diameter (BFS from every node; the
// double sweep against a serial double sweep), spectral embedding (Jacobi eigenvalue method).
// Every rank count must give the reference results, hence the same results on 1, 2 and 3 ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <queue>
#include <random>
#include <set>
#include <vector>

#include "lsgl/eval/class_connectivity.hpp"
#include "lsgl/eval/components.hpp"
#include "lsgl/eval/diameter.hpp"
#include "lsgl/eval/graph_stats.hpp"
#include "lsgl/eval/label_propagation.hpp"
#include "lsgl/eval/labels.hpp"
#include "lsgl/eval/spectral_embedding.hpp"
#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/graph/symmetry_check.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

using namespace lsgl;

namespace {

// A full symmetric graph, serial: adjacency maps.
struct Full {
  std::int64_t n = 0;
  std::vector<std::map<std::int64_t, double>> adj;
  explicit Full(std::int64_t n_) : n(n_), adj(n_) {}
  void add(std::int64_t i, std::int64_t j, double w) {
    if (i == j) return;
    adj[i][j] = w;
    adj[j][i] = w;
  }
  double degree(std::int64_t i) const {
    double d = 0;
    for (const auto& [j, w] : adj[i]) d += w;
    return d;
  }
};

// This rank's block of rows (lsgl::Partition).
LocalCsr block(const Full& g) {
  const Partition part(g.n, comm_size(MPI_COMM_WORLD));
  const int rank = comm_rank(MPI_COMM_WORLD);
  LocalCsr m;
  m.n = g.n;
  m.begin = part.begin(rank);
  for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i) {
    for (const auto& [j, w] : g.adj[i]) {
      m.indices.push_back(j);
      m.data.push_back(w);
    }
    m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
  }
  return m;
}

// Test graph: three communities (labels 0, 1, 2, interleaved over the index range so that every
// community spans every rank), a path of the nodes i = 4 (mod 5) visited in zig-zag order (label
// 3; it crosses the rank blocks many times), and isolated nodes i = 0 (mod 50).
constexpr std::int64_t kN = 200;

std::int64_t label_of(std::int64_t i) {
  if (i % 5 == 4) return 3;
  return (i * 7) % 3 == 0 ? 10 : (i * 7) % 3 == 1 ? 20 : 30;  // arbitrary label values
}

bool isolated_node(std::int64_t i) { return i % 50 == 0; }

Full test_graph() {
  Full g(kN);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t i = 0; i < kN; ++i)
    for (std::int64_t j = i + 1; j < kN; ++j) {
      if (isolated_node(i) || isolated_node(j) || i % 5 == 4 || j % 5 == 4) continue;
      const double p = label_of(i) == label_of(j) ? 0.08 : 0.006;
      const double r = u(rng), w = 0.1 + 0.9 * u(rng);
      if (r < p) g.add(i, j, w);
    }
  std::vector<std::int64_t> path;
  for (std::int64_t i = 4; i < kN; i += 5) path.push_back(i);
  std::vector<std::int64_t> zig;
  for (std::size_t a = 0, b = path.size() - 1; a <= b && b < path.size(); ++a, --b) {
    zig.push_back(path[a]);
    if (a != b) zig.push_back(path[b]);
  }
  for (std::size_t k = 0; k + 1 < zig.size(); ++k) g.add(zig[k], zig[k + 1], 0.5 + 0.01 * k);
  return g;
}

// Serial components: id = smallest node.
std::vector<std::int64_t> ref_components(const Full& g) {
  std::vector<std::int64_t> id(g.n, -1);
  for (std::int64_t s = 0; s < g.n; ++s) {
    if (id[s] >= 0) continue;
    std::queue<std::int64_t> q;
    q.push(s);
    id[s] = s;
    while (!q.empty()) {
      const std::int64_t u = q.front();
      q.pop();
      for (const auto& [v, w] : g.adj[u])
        if (id[v] < 0) {
          id[v] = s;
          q.push(v);
        }
    }
  }
  return id;
}

std::vector<std::int64_t> ref_bfs(const Full& g, std::int64_t s) {
  std::vector<std::int64_t> d(g.n, -1);
  std::queue<std::int64_t> q;
  q.push(s);
  d[s] = 0;
  while (!q.empty()) {
    const std::int64_t u = q.front();
    q.pop();
    for (const auto& [v, w] : g.adj[u])
      if (d[v] < 0) {
        d[v] = d[u] + 1;
        q.push(v);
      }
  }
  return d;
}

// Dense solve A x = b (Gaussian elimination, partial pivoting).
std::vector<double> dense_solve(std::vector<double> A, std::vector<double> b, std::size_t k) {
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < k; ++r)
      if (std::fabs(A[r * k + c]) > std::fabs(A[p * k + c])) p = r;
    for (std::size_t j = 0; j < k; ++j) std::swap(A[c * k + j], A[p * k + j]);
    std::swap(b[c], b[p]);
    for (std::size_t r = c + 1; r < k; ++r) {
      const double f = A[r * k + c] / A[c * k + c];
      for (std::size_t j = c; j < k; ++j) A[r * k + j] -= f * A[c * k + j];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(k);
  for (std::size_t c = k; c-- > 0;) {
    double s = b[c];
    for (std::size_t j = c + 1; j < k; ++j) s -= A[c * k + j] * x[j];
    x[c] = s / A[c * k + c];
  }
  return x;
}

// Symmetric eigenvalues and eigenvectors by the cyclic Jacobi method; returns ascending pairs.
void jacobi_eigen(std::vector<double> A, std::size_t k, std::vector<double>& values,
                  std::vector<std::vector<double>>& vectors) {
  std::vector<double> V(k * k, 0.0);
  for (std::size_t i = 0; i < k; ++i) V[i * k + i] = 1.0;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t q = p + 1; q < k; ++q) off += A[p * k + q] * A[p * k + q];
    if (off < 1e-26) break;
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t q = p + 1; q < k; ++q) {
        if (std::fabs(A[p * k + q]) < 1e-300) continue;
        const double theta = (A[q * k + q] - A[p * k + p]) / (2 * A[p * k + q]);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (std::size_t r = 0; r < k; ++r) {  // A <- A J
          const double a = A[r * k + p], b = A[r * k + q];
          A[r * k + p] = c * a - s * b;
          A[r * k + q] = s * a + c * b;
        }
        for (std::size_t r = 0; r < k; ++r) {  // A <- J^T A
          const double a = A[p * k + r], b = A[q * k + r];
          A[p * k + r] = c * a - s * b;
          A[q * k + r] = s * a + c * b;
        }
        for (std::size_t r = 0; r < k; ++r) {
          const double a = V[r * k + p], b = V[r * k + q];
          V[r * k + p] = c * a - s * b;
          V[r * k + q] = s * a + c * b;
        }
      }
  }
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return A[a * k + a] < A[b * k + b]; });
  values.clear();
  vectors.clear();
  for (const std::size_t o : order) {
    values.push_back(A[o * k + o]);
    std::vector<double> v(k);
    for (std::size_t r = 0; r < k; ++r) v[r] = V[r * k + o];
    vectors.push_back(v);
  }
}

std::vector<std::int64_t> local_labels(const LocalCsr& m) {
  std::vector<std::int64_t> v;
  for (std::int64_t r = 0; r < m.local_rows(); ++r) v.push_back(label_of(m.begin + r));
  return v;
}

// Gathers a per-local-row vector of the whole graph on every rank.
template <class T>
std::vector<T> gather_all(const std::vector<T>& local, MPI_Datatype type) {
  const int size = comm_size(MPI_COMM_WORLD);
  int count = static_cast<int>(local.size());
  std::vector<int> counts(size), displs(size + 1, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int p = 0; p < size; ++p) displs[p + 1] = displs[p] + counts[p];
  std::vector<T> all(displs[size]);
  MPI_Allgatherv(local.data(), count, type, all.data(), counts.data(), displs.data(), type,
                 MPI_COMM_WORLD);
  return all;
}

}  // namespace

TEST(EvalGhosts, ExchangeDeliversOwnersValues) {
  const Full g = test_graph();
  const LocalCsr m = block(g);
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  std::vector<std::int64_t> mine(m.local_rows());
  for (std::int64_t r = 0; r < m.local_rows(); ++r) mine[r] = 1000 * (m.begin + r) + 7;
  const std::vector<std::int64_t> ext = gh.extended(mine);
  for (std::size_t e = 0; e < m.indices.size(); ++e)
    EXPECT_EQ(ext[gh.slot()[e]], 1000 * m.indices[e] + 7);
  for (const std::int64_t x : gh.ghosts())
    EXPECT_TRUE(x < m.begin || x >= m.begin + m.local_rows());
}

TEST(EvalGraph, StatsAgainstSerial) {
  const Full g = test_graph();
  LocalCsr m = block(g);
  const GraphCleaning c = check_and_clean_graph(MPI_COMM_WORLD, m, "test");
  EXPECT_EQ(c.self_loops, 0);
  EXPECT_EQ(c.zeros, 0);
  const GraphStats s = graph_stats(MPI_COMM_WORLD, m);
  std::int64_t nnz = 0, dmin = 1 << 30, dmax = 0, iso = 0;
  double total = 0, wmin = 1e300, wmax = 0;
  for (std::int64_t i = 0; i < g.n; ++i) {
    const std::int64_t d = static_cast<std::int64_t>(g.adj[i].size());
    nnz += d;
    dmin = std::min(dmin, d);
    dmax = std::max(dmax, d);
    iso += d == 0;
    wmin = std::min(wmin, g.degree(i));
    wmax = std::max(wmax, g.degree(i));
    total += g.degree(i);
  }
  EXPECT_EQ(s.n, kN);
  EXPECT_EQ(s.nnz, nnz);
  EXPECT_EQ(s.edges, nnz / 2);
  EXPECT_EQ(s.isolated, iso);
  EXPECT_EQ(iso, 4);
  EXPECT_EQ(s.degree_min, dmin);
  EXPECT_EQ(s.degree_max, dmax);
  EXPECT_DOUBLE_EQ(s.weighted_degree_min, wmin);
  EXPECT_DOUBLE_EQ(s.weighted_degree_max, wmax);
  EXPECT_NEAR(s.total_weight, total / 2, 1e-12 * total);
  EXPECT_NEAR(s.weighted_degree_mean, total / kN, 1e-12 * total);
  EXPECT_DOUBLE_EQ(s.avg_degree, double(nnz) / kN);
}

TEST(EvalGraph, CleaningDropsLoopsAndZeros) {
  Full g(30);
  for (std::int64_t i = 0; i + 1 < 30; ++i) g.add(i, i + 1, i % 4 == 0 ? 0.0 : 1.0);
  LocalCsr m = block(g);
  // A self loop on every local row.
  LocalCsr withloops;
  withloops.n = m.n;
  withloops.begin = m.begin;
  for (std::int64_t r = 0; r < m.local_rows(); ++r) {
    std::vector<std::pair<std::int64_t, double>> row;
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e)
      row.push_back({m.indices[e], m.data[e]});
    row.push_back({m.begin + r, 2.0});
    std::sort(row.begin(), row.end());
    for (const auto& [j, w] : row) {
      withloops.indices.push_back(j);
      withloops.data.push_back(w);
    }
    withloops.indptr.push_back(static_cast<std::int64_t>(withloops.indices.size()));
  }
  const GraphCleaning c = check_and_clean_graph(MPI_COMM_WORLD, withloops, "loops");
  EXPECT_EQ(c.self_loops, 30);
  EXPECT_EQ(c.zeros, 2 * 8);  // edges (0,1), (4,5), ..., (28,29), both directions
  const CsrGhosts gh(MPI_COMM_WORLD, withloops);
  const Components comp = connected_components(gh, withloops);
  EXPECT_EQ(comp.count, 9);  // the 8 zero edges cut the path into 9 pieces
}

TEST(EvalGraph, BadGraphsThrowOnEveryRank) {
  const Full g = test_graph();
  const int last = comm_size(MPI_COMM_WORLD) - 1;
  // Refused on every rank with the message of the check that names the property.
  const auto refused = [](LocalCsr m, const std::string& text) {
    try {
      check_and_clean_graph(MPI_COMM_WORLD, m, "bad");
    } catch (const CollectiveError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
      return;
    }
    ADD_FAILURE() << "not refused: " << text;
  };
  {
    LocalCsr m = block(g);  // asymmetric weight on the last rank's last stored entry
    if (comm_rank(MPI_COMM_WORLD) == last) m.data.back() *= 1.5;
    refused(m, "W is not symmetric");
  }
  {
    LocalCsr m = block(g);  // index out of range on the last rank
    if (comm_rank(MPI_COMM_WORLD) == last) m.indices.back() = kN + 3;
    refused(m, "outside [0, ");
  }
  {
    Full h = g;  // a negative weight in both directions, on the last rank: symmetric, so only
    h.add(kN - 2, kN - 1, -1.0);  // the sign check can refuse it
    refused(block(h), "weights must be finite and >= 0");
  }
  {
    Full h(12);  // a missing mirror entry: (0, 11) only
    for (std::int64_t i = 0; i + 1 < 12; ++i) h.add(i, i + 1, 1.0);
    h.adj[0][11] = 1.0;
    refused(block(h), "W is not symmetric");
  }
}

TEST(EvalComponents, AgainstSerialBfs) {
  const Full g = test_graph();
  LocalCsr m = block(g);
  check_and_clean_graph(MPI_COMM_WORLD, m, "test");
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  const Components c = connected_components(gh, m);
  const std::vector<std::int64_t> ref = ref_components(g);
  for (std::int64_t r = 0; r < m.local_rows(); ++r) EXPECT_EQ(c.id[r], ref[m.begin + r]);
  std::map<std::int64_t, std::int64_t> size;
  for (const std::int64_t id : ref) ++size[id];
  std::int64_t largest = 0, largest_id = -1, singles = 0;
  for (const auto& [id, s] : size) {
    if (s > largest) {
      largest = s;
      largest_id = id;
    }
    singles += s == 1;
  }
  EXPECT_EQ(c.count, static_cast<std::int64_t>(size.size()));
  EXPECT_EQ(c.largest_size, largest);
  EXPECT_EQ(c.largest_id, largest_id);
  EXPECT_EQ(c.singletons, singles);
  EXPECT_GE(singles, 4);
  EXPECT_EQ(size[4], 40);  // the zig-zag path
  // component_sums: size of each node's component.
  const std::vector<std::int64_t> ones(m.local_rows(), 1);
  const std::vector<std::int64_t> sums = component_sums(gh, c, ones);
  for (std::int64_t r = 0; r < m.local_rows(); ++r) EXPECT_EQ(sums[r], size[ref[m.begin + r]]);
}

TEST(EvalLabels, KnownSelectionIsExactAndRankIndependent) {
  const std::int64_t n = 1001;
  const Partition part(n, comm_size(MPI_COMM_WORLD));
  const int rank = comm_rank(MPI_COMM_WORLD);
  for (const double f : {0.01, 0.1, 0.5, 1.0}) {
    const std::vector<char> known =
        select_known_nodes(MPI_COMM_WORLD, n, part.begin(rank), part.count(rank), f, 5);
    std::vector<std::int64_t> mine;
    for (std::int64_t r = 0; r < part.count(rank); ++r)
      if (known[r]) mine.push_back(part.begin(rank) + r);
    const std::vector<std::int64_t> all = gather_all(mine, MPI_INT64_T);
    EXPECT_EQ(static_cast<std::int64_t>(all.size()), std::llround(f * n));
    // The same set as a serial selection with one "rank".
    const std::vector<char> serial = select_known_nodes(MPI_COMM_SELF, n, 0, n, f, 5);
    std::vector<std::int64_t> ref;
    for (std::int64_t i = 0; i < n; ++i)
      if (serial[i]) ref.push_back(i);
    EXPECT_EQ(all, ref);
  }
  // Another seed, another set.
  const std::vector<char> a = select_known_nodes(MPI_COMM_SELF, n, 0, n, 0.1, 5);
  const std::vector<char> b = select_known_nodes(MPI_COMM_SELF, n, 0, n, 0.1, 6);
  EXPECT_NE(a, b);
}

TEST(EvalLabelPropagation, AgainstDenseHarmonicSolve) {
  const Full g = test_graph();
  LocalCsr m = block(g);
  check_and_clean_graph(MPI_COMM_WORLD, m, "test");
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  const Components comp = connected_components(gh, m);
  const NodeLabels labels = make_node_labels(MPI_COMM_WORLD, local_labels(m), 256);
  ASSERT_EQ(labels.classes, (std::vector<std::int64_t>{3, 10, 20, 30}));
  LabelPropagationParams p;
  p.fraction = 0.05;
  p.seed = 3;
  p.rtol = 1e-12;
  p.keep_scores = true;
  const std::vector<char> known =
      select_known_nodes(MPI_COMM_WORLD, m.n, m.begin, m.local_rows(), p.fraction, p.seed);
  const LabelPropagationResult res = propagate_labels(gh, m, comp, labels, known, p);
  EXPECT_TRUE(res.converged);
  EXPECT_EQ(res.known, 10);

  // Reference: the known set on every rank, then the dense harmonic system on the nodes of
  // components that hold a known node.
  std::vector<char> known_all = gather_all(known, MPI_CHAR);
  const std::vector<std::int64_t> comp_ref = ref_components(g);
  std::set<std::int64_t> labelled_components;
  for (std::int64_t i = 0; i < kN; ++i)
    if (known_all[i]) labelled_components.insert(comp_ref[i]);
  std::vector<std::int64_t> unknown;  // reachable unknown nodes
  std::int64_t unreachable = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    if (known_all[i]) continue;
    if (labelled_components.count(comp_ref[i]))
      unknown.push_back(i);
    else
      ++unreachable;
  }
  const std::size_t k = unknown.size();
  std::map<std::int64_t, std::size_t> pos;
  for (std::size_t a = 0; a < k; ++a) pos[unknown[a]] = a;
  std::vector<double> Luu(k * k, 0.0);
  for (std::size_t a = 0; a < k; ++a) {
    Luu[a * k + a] = g.degree(unknown[a]);
    for (const auto& [j, w] : g.adj[unknown[a]])
      if (pos.count(j)) Luu[a * k + pos[j]] -= w;
  }
  const std::vector<std::int64_t> cls = {3, 10, 20, 30};
  std::vector<std::vector<double>> f(cls.size());
  for (std::size_t c = 0; c < cls.size(); ++c) {
    std::vector<double> b(k, 0.0);  // -L_ul y_l = W_ul y_l
    for (std::size_t a = 0; a < k; ++a)
      for (const auto& [j, w] : g.adj[unknown[a]])
        if (known_all[j] && label_of(j) == cls[c]) b[a] += w;
    f[c] = dense_solve(Luu, b, k);
  }
  std::int64_t correct = 0;
  std::map<std::int64_t, int> ref_pred;
  for (std::size_t a = 0; a < k; ++a) {
    int best = 0;
    for (std::size_t c = 1; c < cls.size(); ++c)
      if (f[c][a] > f[best][a]) best = static_cast<int>(c);
    ref_pred[unknown[a]] = best;
    correct += cls[best] == label_of(unknown[a]);
  }
  EXPECT_EQ(res.unreachable, unreachable);
  EXPECT_GT(unreachable, 0);
  EXPECT_EQ(res.unknown, kN - 10);
  EXPECT_EQ(res.correct, correct);
  EXPECT_DOUBLE_EQ(res.accuracy, double(correct) / double(kN - 10));
  EXPECT_DOUBLE_EQ(res.accuracy_reachable, double(correct) / double(k));
  EXPECT_GT(res.accuracy_reachable, 0.8);
  const int C = labels.num_classes();
  for (std::int64_t r = 0; r < m.local_rows(); ++r) {
    const std::int64_t i = m.begin + r;
    if (known_all[i]) {
      EXPECT_EQ(labels.classes[res.prediction[r]], label_of(i));
    } else if (pos.count(i)) {
      for (int c = 0; c < C; ++c) EXPECT_NEAR(res.scores[r * C + c], f[c][pos[i]], 1e-8);
      EXPECT_EQ(res.prediction[r], ref_pred[i]);
    } else {
      EXPECT_EQ(res.prediction[r], -1);
    }
  }
}

TEST(EvalConnectivity, AgainstDirectSums) {
  const Full g = test_graph();
  LocalCsr m = block(g);
  check_and_clean_graph(MPI_COMM_WORLD, m, "test");
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  const NodeLabels labels = make_node_labels(MPI_COMM_WORLD, local_labels(m), 256);
  const ClassConnectivity c = class_connectivity(gh, m, labels);
  const std::vector<std::int64_t> cls = {3, 10, 20, 30};
  ASSERT_EQ(c.classes, cls);
  std::map<std::pair<std::int64_t, std::int64_t>, double> sum;
  std::map<std::int64_t, std::int64_t> nodes;
  double total = 0, wrong = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    ++nodes[label_of(i)];
    for (const auto& [j, w] : g.adj[i]) {
      sum[{label_of(i), label_of(j)}] += w;
      total += w;
      if (label_of(i) != label_of(j)) wrong += w;
    }
  }
  EXPECT_NEAR(c.total, total, 1e-12 * total);
  EXPECT_NEAR(c.wrong_share, wrong / total, 1e-12);
  EXPECT_GT(c.wrong_share, 0.0);
  double all = 0;
  for (std::size_t a = 0; a < cls.size(); ++a) {
    EXPECT_EQ(c.nodes[a], nodes[cls[a]]);
    for (std::size_t b = 0; b < cls.size(); ++b) {
      const double ref = sum[std::make_pair(cls[a], cls[b])] / total;
      EXPECT_NEAR(c.share[a * cls.size() + b], ref, 1e-12);
      EXPECT_DOUBLE_EQ(c.share[a * cls.size() + b], c.share[b * cls.size() + a]);
      all += c.share[a * cls.size() + b];
    }
  }
  EXPECT_NEAR(all, 1.0, 1e-12);
}

TEST(EvalLabels, TooManyClassesThrows) {
  std::vector<std::int64_t> v;
  const int rank = comm_rank(MPI_COMM_WORLD);
  for (int k = 0; k < 4; ++k) v.push_back(10 * rank + k);  // 4 per rank, 4 * size in all
  const int size = comm_size(MPI_COMM_WORLD);
  EXPECT_NO_THROW(make_node_labels(MPI_COMM_WORLD, v, 4 * size));
  EXPECT_THROW(make_node_labels(MPI_COMM_WORLD, v, 4 * size - 1), CollectiveError);
}

namespace {

// Serial iterated double sweep with the same rules as hop_diameter (start at the component's
// smallest node, next start = farthest node with the smallest index).
std::pair<std::int64_t, std::int64_t> ref_double_sweep(const Full& g, std::int64_t start,
                                                       int runs) {
  std::int64_t lower = 0, upper = -1;
  for (int k = 0; k < runs; ++k) {
    const std::vector<std::int64_t> d = ref_bfs(g, start);
    const std::int64_t ecc = *std::max_element(d.begin(), d.end());
    lower = std::max(lower, ecc);
    upper = upper < 0 ? 2 * ecc : std::min(upper, 2 * ecc);
    start = std::find(d.begin(), d.end(), ecc) - d.begin();
  }
  return {lower, upper};
}

std::int64_t ref_diameter(const Full& g, std::int64_t component,
                          const std::vector<std::int64_t>& comp) {
  std::int64_t best = 0;
  for (std::int64_t s = 0; s < g.n; ++s) {
    if (comp[s] != component) continue;
    const std::vector<std::int64_t> d = ref_bfs(g, s);
    best = std::max(best, *std::max_element(d.begin(), d.end()));
  }
  return best;
}

}  // namespace

TEST(EvalDiameter, ExactAndDoubleSweepAgainstSerial) {
  const Full g = test_graph();
  LocalCsr m = block(g);
  check_and_clean_graph(MPI_COMM_WORLD, m, "test");
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  const Components c = connected_components(gh, m);
  const std::vector<std::int64_t> comp = ref_components(g);
  const std::int64_t exact = ref_diameter(g, c.largest_id, comp);
  DiameterParams p;
  const DiameterResult e = hop_diameter(gh, m, c, p);
  EXPECT_TRUE(e.exact);
  EXPECT_EQ(e.diameter, exact);
  EXPECT_EQ(e.upper_bound, exact);
  EXPECT_EQ(e.component_nodes, c.largest_size);
  p.exact_max_nodes = 0;  // force the distributed double sweep
  for (const int runs : {1, 2, 4}) {
    p.bfs_runs = runs;
    const DiameterResult d = hop_diameter(gh, m, c, p);
    const auto [lower, upper] = ref_double_sweep(g, c.largest_id, runs);
    EXPECT_EQ(d.diameter, lower);
    EXPECT_EQ(d.upper_bound, upper);
    EXPECT_LE(d.diameter, exact);
    EXPECT_GE(d.upper_bound, exact);
    EXPECT_EQ(d.bfs_runs, runs);
  }
  // The BFS itself against the serial one, from a node of the zig-zag path.
  const BfsResult b = bfs_hops(gh, m, 9);
  const std::vector<std::int64_t> d = ref_bfs(g, 9);
  for (std::int64_t r = 0; r < m.local_rows(); ++r) EXPECT_EQ(b.hops[r], d[m.begin + r]);
  EXPECT_EQ(b.eccentricity, *std::max_element(d.begin(), d.end()));
  EXPECT_EQ(b.reached, 40);
}

TEST(EvalDiameter, GridHasManhattanDiameter) {
  // The seed's manifold check: an a x b grid with 4 neighbours has diameter a + b - 2.
  const std::int64_t a = 13, b = 9;
  Full g(a * b);
  for (std::int64_t x = 0; x < a; ++x)
    for (std::int64_t y = 0; y < b; ++y) {
      if (x + 1 < a) g.add(x * b + y, (x + 1) * b + y, 1.0);
      if (y + 1 < b) g.add(x * b + y, x * b + y + 1, 1.0);
    }
  LocalCsr m = block(g);
  check_and_clean_graph(MPI_COMM_WORLD, m, "grid");
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  const Components c = connected_components(gh, m);
  EXPECT_EQ(c.count, 1);
  DiameterParams p;
  EXPECT_EQ(hop_diameter(gh, m, c, p).diameter, a + b - 2);
  p.exact_max_nodes = 10;
  p.bfs_runs = 2;
  const DiameterResult d = hop_diameter(gh, m, c, p);
  EXPECT_EQ(d.diameter, a + b - 2);  // a double sweep is exact on a grid
  EXPECT_FALSE(d.exact && d.bfs_runs == 0);
}

namespace {

// A connected weighted graph with distinct Laplacian eigenvalues: a ring plus random chords.
Full embedding_graph(std::int64_t n) {
  Full g(n);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) g.add(i, (i + 1) % n, 0.5 + u(rng));
  for (int k = 0; k < n / 2; ++k) {
    const std::int64_t i = static_cast<std::int64_t>(u(rng) * n),
                       j = static_cast<std::int64_t>(u(rng) * n);
    if (i != j && !g.adj[i].count(j)) g.add(i, j, 0.2 + u(rng));
  }
  return g;
}

}  // namespace

TEST(EvalEmbedding, AgainstJacobiEigenvectorsOfTheLargestComponent) {
  // Nodes 0..47: the connected ring with chords; 48, 49 isolated; 50-51 a separate edge.
  const std::int64_t k = 48, n = 52;
  const Full ring = embedding_graph(k);
  Full g(n);
  for (std::int64_t i = 0; i < k; ++i)
    for (const auto& [j, w] : ring.adj[i]) g.add(i, j, w);
  g.add(50, 51, 3.0);
  LocalCsr m = block(g);
  check_and_clean_graph(MPI_COMM_WORLD, m, "ring");
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  const Components c = connected_components(gh, m);
  ASSERT_EQ(c.largest_size, k);
  for (const LaplacianKind kind : {LaplacianKind::kCombinatorial, LaplacianKind::kNormalized}) {
    std::vector<double> L(k * k, 0.0);  // the component's Laplacian, dense
    for (std::int64_t i = 0; i < k; ++i)
      for (const auto& [j, w] : g.adj[i]) {
        if (kind == LaplacianKind::kCombinatorial) {
          L[i * k + j] = -w;
          L[i * k + i] += w;
        } else {
          L[i * k + j] = -w / std::sqrt(g.degree(i) * g.degree(j));
          L[i * k + i] = 1.0;
        }
      }
    std::vector<double> values;
    std::vector<std::vector<double>> vectors;
    jacobi_eigen(L, k, values, vectors);
    EXPECT_NEAR(values[0], 0.0, 1e-10);
    EmbeddingParams p;
    p.vectors = 4;
    p.kind = kind;
    p.tol = 1e-12;
    const Embedding e = spectral_embedding(gh, m, c, p);
    ASSERT_EQ(e.m, 4);
    EXPECT_EQ(e.component_nodes, k);
    for (int q = 0; q < 4; ++q) {
      EXPECT_NEAR(e.values[q], values[q + 1], 1e-9 * values.back());
      ASSERT_GT(values[q + 2] - values[q + 1], 1e-6);  // distinct: vectors comparable
      std::vector<double> v = vectors[q + 1];
      // The sign convention: entry of largest magnitude (smallest index on ties) positive.
      std::size_t big = 0;
      for (std::size_t i = 1; i < v.size(); ++i)
        if (std::fabs(v[i]) > std::fabs(v[big])) big = i;
      if (v[big] < 0)
        for (auto& x : v) x = -x;
      for (std::int64_t r = 0; r < m.local_rows(); ++r) {
        const std::int64_t i = m.begin + r;
        EXPECT_NEAR(e.vectors[r * 4 + q], i < k ? v[i] : 0.0, 1e-7);
      }
    }
  }
}

TEST(EvalEmbedding, MultipleEigenvalueGivesAnEigenvector) {
  // Two rings, 24 and 16 nodes: the embedding is the 24-ring's; its first non-trivial
  // eigenvalue 2 - 2 cos(2 pi / 24) has multiplicity 2, any unit vector of the eigenspace will do.
  Full g(40);
  for (std::int64_t i = 0; i < 24; ++i) g.add(i, (i + 1) % 24, 1.0);
  for (std::int64_t i = 0; i < 16; ++i) g.add(24 + i, 24 + (i + 1) % 16, 1.0);
  LocalCsr m = block(g);
  check_and_clean_graph(MPI_COMM_WORLD, m, "rings");
  const CsrGhosts gh(MPI_COMM_WORLD, m);
  const Components c = connected_components(gh, m);
  EmbeddingParams p;
  p.vectors = 1;
  p.tol = 1e-12;
  const Embedding e = spectral_embedding(gh, m, c, p);
  const double lambda = 2 - 2 * std::cos(2 * M_PI / 24);
  EXPECT_NEAR(e.values[0], lambda, 1e-9);
  std::vector<double> v = gather_all(e.vectors, MPI_DOUBLE);
  for (std::int64_t i = 0; i < 40; ++i) {
    double Lv = 0;
    for (const auto& [j, w] : g.adj[i]) Lv += w * (v[i] - v[j]);
    EXPECT_NEAR(Lv, lambda * v[i], 1e-8);
    if (i >= 24) EXPECT_EQ(v[i], 0.0);
  }
  // A unit vector (an all-zero one satisfies L v = lambda v) orthogonal to the constant one.
  double norm2 = 0, sum = 0;
  for (std::int64_t i = 0; i < 24; ++i) norm2 += v[i] * v[i], sum += v[i];
  EXPECT_NEAR(norm2, 1.0, 1e-9);
  EXPECT_NEAR(sum, 0.0, 1e-9);
  EmbeddingParams bad = p;
  bad.vectors = 24;
  EXPECT_THROW(spectral_embedding(gh, m, c, bad), CollectiveError);
}
