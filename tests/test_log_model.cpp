// The log model's solvers (the primal-dual fbf reference and the dual fdpg) against an
// independent solver written here (exact cyclic coordinate descent on the same objective), their
// KKT conditions, the bound w <= delta = 1, fdpg against fbf at the default tolerances, fdpg on
// any number of ranks, warm starts and interrupts, the operators S and S^T of the distributed
// edge set against dense references (also with slots in community order), and its construction
// from repeated pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <map>
#include <random>
#include <string>
#include <tuple>

#include "lsgl/cli/choices.hpp"
#include "lsgl/graph/edgeset.hpp"
#include "lsgl/learn/solvers/log.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

using namespace lsgl;

namespace {

using Pair = std::pair<std::int64_t, std::int64_t>;

// A small random problem, identical on every rank: points in the plane, every pair within the
// 6 nearest of either endpoint allowed (some duplicates included).
struct Problem {
  std::int64_t n;
  std::map<Pair, double> z;  // allowed pairs i < j -> squared distance
};

Problem make_problem(std::int64_t n, int m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(2 * n);
  for (auto& v : x) v = g(rng);
  x[2 * 5] = x[2 * 4], x[2 * 5 + 1] = x[2 * 4 + 1];  // rows 4 and 5 identical
  Problem p{n, {}};
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::pair<double, std::int64_t>> d;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = x[2 * i] - x[2 * j], dy = x[2 * i + 1] - x[2 * j + 1];
      d.push_back({dx * dx + dy * dy, j});
    }
    std::sort(d.begin(), d.end());
    for (int c = 0; c < m; ++c)
      p.z[{std::min(i, d[c].second), std::max(i, d[c].second)}] = d[c].first;
  }
  return p;
}

// Every rank passes its share of the pairs (round robin) to test the routing.
EdgeSet distribute(const Problem& p, MPI_Comm comm = MPI_COMM_WORLD) {
  const int rank = comm_rank(comm), size = comm_size(comm);
  std::vector<EdgeEntry> mine;
  int c = 0;
  for (const auto& [ij, z] : p.z) {
    if (c++ % size != rank) continue;
    // Give some pairs reversed and some twice, as candidate lists do.
    mine.push_back({ij.second, ij.first, z});
    if (c % 3 == 0) mine.push_back({ij.first, ij.second, z});
  }
  return EdgeSet::from_pairs(comm, p.n, std::move(mine));
}

// All local edge values, keyed by global pair, gathered on every rank of e's communicator.
std::map<Pair, double> gather(const EdgeSet& e, const std::vector<double>& w) {
  const MPI_Comm comm = e.comm();
  std::vector<double> local;
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    local.insert(local.end(), {double(i), double(j), w[k]});
  }
  const int size = comm_size(comm);
  int count = static_cast<int>(local.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                 MPI_DOUBLE, comm);
  std::map<Pair, double> out;
  for (std::size_t t = 0; t < all.size(); t += 3)
    out[{std::int64_t(all[t]), std::int64_t(all[t + 1])}] = all[t + 2];
  return out;
}

// Independent solver: cyclic coordinate descent, each coordinate minimised exactly (bisection on
// the monotone derivative 2 z + 2 w - 1/(d_i + w) - 1/(d_j + w)).
std::map<Pair, double> coordinate_descent(const Problem& p, double theta) {
  std::map<Pair, double> w;
  std::vector<double> deg(p.n, 0.0);
  for (const auto& [ij, z] : p.z) {
    w[ij] = 0.1;
    deg[ij.first] += 0.1;
    deg[ij.second] += 0.1;
  }
  for (int sweep = 0; sweep < 20000; ++sweep) {
    double change = 0;
    for (const auto& [ij, z] : p.z) {
      double& we = w[ij];
      const double di = deg[ij.first] - we, dj = deg[ij.second] - we;
      auto grad = [&, z = z](double t) {  // z copied: lambdas capture bindings from C++20
        return 2 * theta * z + 2 * t - 1 / (di + t) - 1 / (dj + t);
      };
      double lo = 0, hi = 1;
      double nw;
      if ((di > 0 && dj > 0) && grad(0) >= 0) {
        nw = 0;
      } else {
        lo = (di > 0 && dj > 0) ? 0 : 1e-300;
        while (grad(hi) < 0) hi *= 2;
        for (int it = 0; it < 200; ++it) {
          const double mid = 0.5 * (lo + hi);
          (grad(mid) < 0 ? lo : hi) = mid;
        }
        nw = 0.5 * (lo + hi);
      }
      change = std::max(change, std::abs(nw - we));
      deg[ij.first] += nw - we;
      deg[ij.second] += nw - we;
      we = nw;
    }
    if (change < 1e-14) break;
  }
  return w;
}

// theta * z for the local edges.
std::vector<double> scaled_z(const EdgeSet& e, double theta) {
  std::vector<double> tz = e.z();
  for (auto& v : tz) v *= theta;
  return tz;
}

// sum |got - ref| / sum |ref| over the reference's pairs.
double relative_l1(const std::map<Pair, double>& got, const std::map<Pair, double>& ref) {
  double diff = 0, norm = 0;
  for (const auto& [ij, v] : ref) {
    diff += std::abs(got.at(ij) - v);
    norm += std::abs(v);
  }
  return diff / norm;
}

}  // namespace

TEST(EdgeSet, OperatorsMatchDenseReference) {
  const Problem p = make_problem(23, 4, 3);
  const EdgeSet e = distribute(p);
  EXPECT_EQ(e.global_edges(), static_cast<std::int64_t>(p.z.size()));
  // w_e = some function of the pair; S w vs dense.
  std::vector<double> w(e.local_edges());
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    w[k] = 1.0 + i + 0.01 * j;
    EXPECT_EQ(e.z()[k], p.z.at(pairs[k]));
  }
  auto out = e.make_node_vector(1);
  e.apply_S(w, *out);
  std::vector<double> ref(p.n, 0.0);
  for (const auto& [ij, z] : p.z) {
    const double v = 1.0 + ij.first + 0.01 * ij.second;
    ref[ij.first] += v;
    ref[ij.second] += v;
  }
  for (std::int64_t i = 0; i < e.local_nodes(); ++i)
    EXPECT_NEAR(out->values()[i], ref[e.global_id(i)], 1e-12);
  // S^T v with v_i = i^2 (slot s holds node global_id(s)).
  for (std::int64_t i = 0; i < e.local_nodes(); ++i)
    out->values()[i] = double(e.global_id(i) * e.global_id(i));
  std::vector<double> st;
  e.apply_St(*out, st);
  const auto g = gather(e, st);
  for (const auto& [ij, v] : g) EXPECT_EQ(v, double(ij.first * ij.first + ij.second * ij.second));
  // S S^T v in one pass: v_i = i^2 against the dense sums (exact in doubles), and bit for bit the
  // two-pass S (S^T v) with v_i = 1 / (i + 3) (sums rounded in the same order).
  auto sst = e.make_node_vector(1);
  e.apply_SSt(*out, *sst);
  std::vector<double> dense(p.n, 0.0);
  for (const auto& [ij, z] : p.z) {
    const double s = double(ij.first * ij.first + ij.second * ij.second);
    dense[ij.first] += s;
    dense[ij.second] += s;
  }
  for (std::int64_t i = 0; i < e.local_nodes(); ++i)
    EXPECT_EQ(sst->values()[i], dense[e.global_id(i)]) << "node " << e.global_id(i);
  for (std::int64_t i = 0; i < e.local_nodes(); ++i)
    out->values()[i] = 1.0 / double(e.global_id(i) + 3);
  e.apply_SSt(*out, *sst);
  auto two_pass = e.make_node_vector(1);
  e.apply_St(*out, st);
  e.apply_S(st, *two_pass);
  for (std::int64_t i = 0; i < e.local_nodes(); ++i)
    EXPECT_EQ(sst->values()[i], two_pass->values()[i]) << "node " << e.global_id(i);
  // ||S|| against a long dense power iteration on S S^T.
  std::vector<double> u(p.n, 1.0);
  double lambda = 0;
  for (int it = 0; it < 5000; ++it) {
    std::vector<double> t(p.n, 0.0);
    for (const auto& [ij, z] : p.z) {
      const double s = u[ij.first] + u[ij.second];
      t[ij.first] += s;
      t[ij.second] += s;
    }
    double nt = 0, nu = 0, dot = 0;
    for (std::int64_t i = 0; i < p.n; ++i) nt += t[i] * t[i], nu += u[i] * u[i], dot += u[i] * t[i];
    lambda = dot / nu;
    for (std::int64_t i = 0; i < p.n; ++i) u[i] = t[i] / std::sqrt(nt);
  }
  const double norm = e.norm_S(30);
  EXPECT_LE(norm, std::sqrt(lambda) * (1 + 1e-9));
  EXPECT_GT(norm, 0.95 * std::sqrt(lambda));
}

// Slots follow communities of the local graph: nodes of a clique given in scrambled order sit in
// consecutive slots; S and S^T (through PETSc's ghost indices, the owners' slots) still match the
// dense reference by global id; per-node values go between slot and node order and back.
TEST(EdgeSet, SlotsGroupCommunitiesAndKeepTheOperators) {
  const int cliques = 12, size_of = 7;
  const std::int64_t n = cliques * size_of;
  std::vector<std::int64_t> id(static_cast<std::size_t>(n));  // member c * size_of + t -> node
  for (std::int64_t t = 0; t < n; ++t) id[t] = (t * 37) % n;  // 37 and n coprime: scrambled
  Problem p{n, {}};
  for (int c = 0; c < cliques; ++c)
    for (int a = 0; a < size_of; ++a)
      for (int b = a + 1; b < size_of; ++b) {
        const std::int64_t i = id[c * size_of + a], j = id[c * size_of + b];
        p.z[{std::min(i, j), std::max(i, j)}] = 1.0 + a + b;
      }
  for (int c = 0; c + 1 < cliques; ++c) {  // one edge to the next clique
    const std::int64_t i = id[c * size_of], j = id[(c + 1) * size_of + 1];
    p.z[{std::min(i, j), std::max(i, j)}] = 50.0;
  }
  const EdgeSet e = distribute(p);
  const std::int64_t nl = e.local_nodes(), lo = e.first_node();
  std::vector<std::int64_t> slot_of(static_cast<std::size_t>(n), -1);
  bool moved = false;
  for (std::int64_t s = 0; s < nl; ++s) {
    slot_of[e.global_id(s)] = s;
    moved = moved || e.global_id(s) != lo + s;
  }
  // The slots of a clique's local members are consecutive when all of it is on this rank.
  for (int c = 0; c < cliques; ++c) {
    std::int64_t first = n, last = -1, here = 0;
    for (int a = 0; a < size_of; ++a) {
      const std::int64_t s = slot_of[id[c * size_of + a]];
      if (s < 0) continue;
      ++here, first = std::min(first, s), last = std::max(last, s);
    }
    if (here == size_of) EXPECT_EQ(last - first, size_of - 1) << "clique " << c;
  }
  int any_moved = moved;
  MPI_Allreduce(MPI_IN_PLACE, &any_moved, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  EXPECT_TRUE(any_moved) << "the scrambled cliques should not stay in node order";
  // S^T v, v_i = i^2, by global id; S w against the dense sums.
  auto v = e.make_node_vector(1);
  for (std::int64_t s = 0; s < nl; ++s) v->values()[s] = double(e.global_id(s) * e.global_id(s));
  std::vector<double> st;
  e.apply_St(*v, st);
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    EXPECT_EQ(st[k], double(i * i + j * j));
    EXPECT_EQ(e.z()[k], p.z.at(pairs[k]));
  }
  std::vector<double> ones(e.local_edges(), 1.0);
  e.apply_S(ones, *v);
  std::vector<double> degree(static_cast<std::size_t>(n), 0.0);
  for (const auto& [ij, z] : p.z) degree[ij.first] += 1, degree[ij.second] += 1;
  for (std::int64_t s = 0; s < nl; ++s) EXPECT_EQ(v->values()[s], degree[e.global_id(s)]);
  const std::vector<double> counts = e.edge_counts();
  ASSERT_EQ(static_cast<std::int64_t>(counts.size()), nl);
  for (std::int64_t s = 0; s < nl; ++s) EXPECT_EQ(counts[s], degree[e.global_id(s)]);
  // Node order: index global id - first_node(); and back.
  std::vector<double> by_slot(static_cast<std::size_t>(nl));
  for (std::int64_t s = 0; s < nl; ++s) by_slot[s] = double(e.global_id(s));
  const std::vector<double> by_node = e.to_node_order(by_slot);
  for (std::int64_t i = 0; i < nl; ++i) EXPECT_EQ(by_node[i], double(lo + i));
  EXPECT_EQ(e.to_slot_order(by_node), by_slot);
}

// from_pairs merges the repeats of a pair, given on any rank in either orientation, into one
// edge with the smallest distance and that copy's carried value; drops loops; gives every local
// node one row, its edges ascending by the other end's global id. The same from a PairSource
// read in rounds of 1, 3 and 5 pairs (ranks with fewer pairs take part in empty rounds).
class FromPairs : public testing::TestWithParam<std::int64_t> {};

TEST_P(FromPairs, KeepsTheNearestRepeat) {
  const std::int64_t n = 37;
  const int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
  std::map<Pair, double> want_z, want_value;
  std::vector<EdgeEntry> mine;
  int c = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (c++ % size == rank) mine.push_back({i, i, 0.0, -7.0});  // a loop
    for (std::int64_t j = i + 1; j < n; ++j) {
      if ((i * 5 + j * 3) % 4 == 0) continue;
      const double z0 = 0.25 * static_cast<double>(1 + (i * 3 + j) % 11);
      want_z[{i, j}] = z0;
      want_value[{i, j}] = 1000.0 * static_cast<double>(i) + static_cast<double>(j);
      // Copy t at distance z0 + t (the nearest given last), odd copies reversed.
      for (int t = static_cast<int>((i + j) % 3); t >= 0; --t) {
        const double value = t == 0 ? want_value[{i, j}] : -1.0 - t;
        if (c++ % size != rank) continue;
        mine.push_back(t % 2 ? EdgeEntry{j, i, z0 + t, value} : EdgeEntry{i, j, z0 + t, value});
      }
    }
  }
  std::vector<double> values;
  const PairSource source{static_cast<std::int64_t>(mine.size()),
                          [&](std::int64_t first, std::int64_t count, EdgeEntry* out) {
                            ASSERT_LE(first + count, static_cast<std::int64_t>(mine.size()));
                            ASSERT_LE(count, GetParam());
                            std::copy_n(mine.begin() + first, count, out);
                          },
                          GetParam()};
  const EdgeSet e = GetParam() == 0 ? EdgeSet::from_pairs(MPI_COMM_WORLD, n, mine, &values)
                                    : EdgeSet::from_pairs(MPI_COMM_WORLD, n, source, &values);
  ASSERT_EQ(static_cast<std::int64_t>(values.size()), e.local_edges());
  EXPECT_EQ(e.global_edges(), static_cast<std::int64_t>(want_z.size()));
  EXPECT_EQ(gather(e, e.z()), want_z);
  EXPECT_EQ(gather(e, values), want_value);
  std::vector<int> rows_at(static_cast<std::size_t>(e.local_nodes()), 0);
  for (std::int64_t r = 0; r < e.local_nodes(); ++r) {
    ++rows_at[e.local_node(r)];
    for (std::int64_t k = e.row_ptr()[r] + 1; k < e.row_ptr()[r + 1]; ++k)
      EXPECT_LT(e.global_id(e.other()[k - 1]), e.global_id(e.other()[k]));
  }
  EXPECT_EQ(rows_at, std::vector<int>(static_cast<std::size_t>(e.local_nodes()), 1));
}

// 0: the vector overload; then rounds of 1, 3 and 5 pairs.
INSTANTIATE_TEST_SUITE_P(Rounds, FromPairs, testing::Values(0, 1, 3, 5));

class LogModelScaled : public testing::TestWithParam<std::pair<SolverKind, double>> {};

// For the reference iteration (dual scale 1), a scaled one, and the dual FISTA solver.
TEST_P(LogModelScaled, MatchesCoordinateDescentAndKKT) {
  const Problem p = make_problem(40, 5, 5);
  const double theta = 0.7;
  const EdgeSet e = distribute(p);
  const std::vector<double> tz = scaled_z(e, theta);
  SolverParams sp;
  sp.solver = GetParam().first;
  sp.dual_scale = GetParam().second;
  sp.tol = 1e-9;
  sp.max_iterations = 200000;
  SolverReport rep;
  const std::vector<double> w = learn_log(e, tz, sp, rep);
  EXPECT_TRUE(rep.converged);
  const auto got = gather(e, w);
  const auto ref = coordinate_descent(p, theta);
  EXPECT_LT(relative_l1(got, ref), 1e-4);
  // KKT: grad_e = 2 theta z + 2 w - 1/d_i - 1/d_j is 0 where w > 0 and >= 0 where w = 0.
  std::vector<double> deg(p.n, 0.0);
  for (const auto& [ij, v] : got) deg[ij.first] += v, deg[ij.second] += v;
  int positive = 0;
  for (const auto& [ij, v] : got) {
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);  // [KP19] Thm. 1: w <= delta = 1 with alpha = beta = 1
    const double grad = 2 * theta * p.z.at(ij) + 2 * v - 1 / deg[ij.first] - 1 / deg[ij.second];
    if (v > 1e-6) {
      EXPECT_NEAR(grad, 0.0, 1e-5);
      ++positive;
    } else {
      EXPECT_GT(grad, -1e-5);
    }
  }
  EXPECT_GT(positive, 10);
  EXPECT_LT(positive, static_cast<int>(p.z.size()));  // the problem is sparse at this theta
  // The objective of the solution is not above that of the reference.
  std::vector<double> wr(e.local_edges());
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    wr[k] = ref.at(pairs[k]);
  }
  EXPECT_LE(log_objective(e, tz, w), log_objective(e, tz, wr) + 1e-8);
}

INSTANTIATE_TEST_SUITE_P(DualScale, LogModelScaled,
                         testing::Values(std::make_pair(SolverKind::kFbf, 1.0),
                                         std::make_pair(SolverKind::kFbf, 0.3),
                                         std::make_pair(SolverKind::kFdpg, 1.0)));

TEST(LogModel, DefaultToleranceIsCloseToTheSolution) {
  const Problem p = make_problem(60, 6, 9);
  const double theta = 0.5;
  const EdgeSet e = distribute(p);
  const std::vector<double> tz = scaled_z(e, theta);
  SolverReport rep;
  const auto got = gather(e, learn_log(e, tz, SolverParams{}, rep));
  EXPECT_TRUE(rep.converged);
  EXPECT_LT(relative_l1(got, coordinate_descent(p, theta)), 1e-3);
}

// fdpg at the default tolerance gives the graph of fbf at its default tolerance.
TEST(LogModelFdpg, DefaultToleranceMatchesFbf) {
  for (const auto& [n, m, seed, theta] :
       {std::make_tuple(60, 6, 9, 0.5), std::make_tuple(40, 5, 5, 0.7),
        std::make_tuple(80, 3, 11, 0.3)}) {
    const Problem p = make_problem(n, m, seed);
    const EdgeSet e = distribute(p);
    const std::vector<double> tz = scaled_z(e, theta);
    SolverParams fdpg;
    fdpg.solver = SolverKind::kFdpg;
    SolverReport rf, rd;
    const auto ref = gather(e, learn_log(e, tz, SolverParams{}, rf));
    const auto got = gather(e, learn_log(e, tz, fdpg, rd));
    EXPECT_TRUE(rf.converged && rd.converged);
    EXPECT_LT(relative_l1(got, ref), 1e-4) << "n = " << n;
    EXPECT_GT(rd.gamma, 0.0);
    EXPECT_GT(rd.bytes_moved_per_iteration, 0);
  }
}

namespace {

// Runs fdpg at tol 1e-10 on the first `ranks` ranks of the world (the others get an empty map).
std::map<Pair, double> fdpg_on_ranks(const Problem& p, double theta, int ranks) {
  const int rank = comm_rank(MPI_COMM_WORLD);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank < ranks ? 0 : MPI_UNDEFINED, rank, &sub);
  std::map<Pair, double> got;
  if (sub != MPI_COMM_NULL) {
    const EdgeSet e = distribute(p, sub);
    SolverParams sp;
    sp.solver = SolverKind::kFdpg;
    sp.tol = 1e-10;
    sp.max_iterations = 100000;
    SolverReport rep;
    got = gather(e, learn_log(e, scaled_z(e, theta), sp, rep));
    EXPECT_TRUE(rep.converged);
  }
  if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
  return got;
}

}  // namespace

TEST(LogModelFdpg, SameGraphOnEveryNumberOfRanks) {
  const Problem p = make_problem(50, 5, 21);
  const auto all = fdpg_on_ranks(p, 0.6, comm_size(MPI_COMM_WORLD));
  for (int ranks = 1; ranks < comm_size(MPI_COMM_WORLD); ++ranks) {
    const auto part = fdpg_on_ranks(p, 0.6, ranks);
    if (!part.empty()) EXPECT_LT(relative_l1(part, all), 1e-7) << ranks << " ranks";
  }
}

// A run stopped at iteration 40 and continued from the captured state (lambda, w*(lambda))
// ends at the graph of an uninterrupted run; the captured w is w*(lambda) >= 0; a capture
// without w continues to the same weights.
TEST(LogModelFdpg, WarmStartFromCapturedState) {
  const Problem p = make_problem(60, 6, 9);
  const EdgeSet e = distribute(p);
  const std::vector<double> tz = scaled_z(e, 0.5);
  SolverParams sp;
  sp.solver = SolverKind::kFdpg;
  sp.tol = 1e-10;
  sp.max_iterations = 100000;
  SolverReport full, first, second;
  const auto ref = gather(e, learn_log(e, tz, sp, full));
  SolverState state;
  SolverState without_w;
  learn_log(e, tz, sp, first,
            [&](const IterationInfo& it, const std::function<SolverState(bool)>& c) {
              if (it.iteration < 40) return false;
              state = c(true);
              without_w = c(false);
              return true;
            });
  EXPECT_EQ(first.iterations, 40);
  EXPECT_FALSE(first.converged);
  EXPECT_EQ(state.iteration, 40);
  EXPECT_EQ(static_cast<std::int64_t>(state.v.size()), e.local_nodes());
  for (double x : state.v) EXPECT_GT(x, 0.0);
  for (double x : state.w) EXPECT_GE(x, 0.0);
  const auto resumed = gather(e, learn_log(e, tz, sp, second, nullptr, &state));
  EXPECT_TRUE(second.converged);
  EXPECT_EQ(second.iterations, 40 + second.iterations_run);
  EXPECT_LT(relative_l1(resumed, ref), 1e-7);
  // The state without w continues the same sequence: the same weights bit for bit.
  EXPECT_TRUE(without_w.w.empty());
  SolverReport third;
  EXPECT_EQ(gather(e, learn_log(e, tz, sp, third, nullptr, &without_w)), resumed);
  EXPECT_EQ(third.iterations, second.iterations);
}

// A flag raised on the last rank only stops every rank at the same iteration.
TEST(LogModelFdpg, InterruptStopsEveryRankAtTheSameIteration) {
  const Problem p = make_problem(60, 6, 9);
  const EdgeSet e = distribute(p);
  volatile std::sig_atomic_t flag = 0;
  SolverParams sp;
  sp.solver = SolverKind::kFdpg;
  sp.tol = 1e-12;
  sp.interrupt = &flag;
  const bool last = comm_rank(MPI_COMM_WORLD) == comm_size(MPI_COMM_WORLD) - 1;
  SolverReport rep;
  learn_log(e, scaled_z(e, 0.5), sp, rep,
            [&](const IterationInfo& it, const std::function<SolverState(bool)>&) {
              if (last && it.iteration == 20) flag = 1;
              return it.interrupted;
            });
  EXPECT_TRUE(rep.interrupted);
  EXPECT_EQ(rep.iterations, 21);
  int lo = rep.iterations, hi = rep.iterations;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi);
}

TEST(LogModelFdpg, UnknownSolverIsRefused) {
  const Problem p = make_problem(20, 3, 1);
  const EdgeSet e = distribute(p);
  // An unknown solver is refused where --solver is parsed; every SolverKind solves.
  EXPECT_THROW(cli::parse_choice<SolverKind>("solver", "newton"), std::invalid_argument);
  for (const SolverKind kind : {SolverKind::kFbf, SolverKind::kFdpg}) {
    SolverParams sp;
    sp.solver = kind;
    SolverReport rep;
    EXPECT_NO_THROW(learn_log(e, scaled_z(e, 0.5), sp, rep)) << name_of(kind);
  }
}
