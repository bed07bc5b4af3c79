// The locality order: a permutation, the same on any number of ranks, that puts neighbours on
// the same rank far more often than a random input order; renumbered candidate pairs are the
// input pairs under it; fetch_from_owners against the owners' values. The community order of a
// rank's slots: label propagation's rule on small graphs worked by hand, and scrambled cliques
// brought together.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/community_order.hpp"
#include "lsgl/graph/locality_order.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

// n points around `centres` centres in d dimensions, in random order; this rank's block.
LocalRows clustered(MPI_Comm comm, std::int64_t n, int d = 6, int centres = 12,
                    float spread = 20.0f) {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> c(centres * d);
  for (auto& v : c) v = spread * nd(rng);
  std::vector<float> all(static_cast<std::size_t>(n * d));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = static_cast<std::int64_t>(rng() % centres);
    for (int t = 0; t < d; ++t) all[i * d + t] = c[k * d + t] + nd(rng);
  }
  const Partition part(n, comm_size(comm));
  const int rank = comm_rank(comm);
  LocalRows rows;
  rows.n = n;
  rows.d = d;
  rows.begin = part.begin(rank);
  rows.values().assign(all.begin() + part.begin(rank) * d, all.begin() + part.end(rank) * d);
  return rows;
}

// The new order as one array over all ranks: new index -> input index.
std::vector<std::int64_t> gathered(MPI_Comm comm, const LocalityOrder& o) {
  return allgather_items(comm, o.input);
}

}  // namespace

// Cells of about equal width: a direction 2^j times narrower gets j bits fewer, a flat one none,
// as many levels as the bits allow; the key takes them coarse to fine.
TEST(LocalityOrder, KeysSplitEqualCellsCoarseToFine) {
  using V = std::vector<int>;
  EXPECT_EQ(cube_bits({2.0, 2.0, 2.0}, 63), (V{21, 21, 21}));
  EXPECT_EQ(cube_bits(std::vector<double>(8, 1.0), 63), V(8, 7));
  EXPECT_EQ(cube_bits({8.0, 2.0}, 63), (V{31, 29}));  // 31 levels at most
  EXPECT_EQ(cube_bits({1.0, 0.0, 1.0}, 63), (V{31, 0, 31}));
  EXPECT_EQ(cube_bits({3.0, 1.0}, 10), (V{5, 4}));  // 3 = 2^1.58: one bit fewer
  EXPECT_EQ(cube_bits({0.0, 0.0}, 63), (V{0, 0}));
  const auto key = [](std::vector<std::uint32_t> q, const V& bits) {
    return interleave_levels(q.data(), bits);
  };
  // bits {2, 1}: levels (q0 bit 1), (q0 bit 0, q1 bit 0).
  EXPECT_EQ(key({2, 1}, {2, 1}), 5u);
  EXPECT_EQ(key({1, 1}, {2, 1}), 3u);
  EXPECT_EQ(key({2, 0}, {2, 1}), 4u);
  EXPECT_EQ(key({1, 0}, {1, 1}), 2u);
  EXPECT_EQ(key({0, 1}, {1, 1}), 1u);
  const V three(3, 21);
  const std::uint32_t top = (1u << 21) - 1;
  EXPECT_EQ(key({top, top, top}, three), (std::uint64_t(1) << 63) - 1);
  for (std::uint32_t a = 0; a < 50; ++a)
    EXPECT_LT(key({a, 7, 3}, three), key({a + 1, 7, 3}, three));
}

TEST(LocalityOrder, PermutationIndependentOfTheNumberOfRanks) {
  const std::int64_t n = 1500;
  const LocalRows rows = clustered(world(), n);
  const LocalityOrder o = locality_order(world(), rows);
  ASSERT_GT(o.score.locality, 1.25 * o.score.input);  // clustered rows in random order
  const Partition part(n, comm_size(world()));
  ASSERT_EQ(static_cast<std::int64_t>(o.input.size()), part.count(comm_rank(world())));
  const std::vector<std::int64_t> all = gathered(world(), o);
  std::vector<std::int64_t> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int64_t> iota(n);
  std::iota(iota.begin(), iota.end(), 0);
  ASSERT_EQ(sorted, iota);
  for (std::int64_t r = 0; r < rows.local_rows(); ++r)
    EXPECT_EQ(all[o.position[r]], rows.begin + r);
  MPI_Comm solo;
  MPI_Comm_split(world(), comm_rank(world()) == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  if (solo != MPI_COMM_NULL) {
    const LocalityOrder one = locality_order(solo, clustered(solo, n));
    EXPECT_EQ(one.input, all);
    MPI_Comm_free(&solo);
  }
}

TEST(LocalityOrder, NeighboursShareARankMoreOftenAndPairsAreRenumbered) {
  const std::int64_t n = 2400;
  const int m = 8, size = comm_size(world());
  const LocalRows rows = clustered(world(), n);
  AnnParams p;
  p.engine = lsgl::AnnEngine::kExact;
  const Candidates cand = find_candidates(world(), rows, m, p);
  const LocalityOrder o = locality_order(world(), rows);
  const PairSource source = renumbered_pairs(world(), n, cand, o);
  std::vector<EdgeEntry> renumbered(static_cast<std::size_t>(source.size));
  source.fill(0, source.size, renumbered.data());
  const std::vector<std::int64_t> all = gathered(world(), o);
  const Partition part(n, size);
  std::int64_t cross[2] = {0, 0};  // input order, new order
  ASSERT_EQ(renumbered.size(), cand.idx.size());
  for (std::int64_t r = 0; r < cand.local_rows(); ++r)
    for (int c = 0; c < m; ++c) {
      const std::int64_t u = cand.begin + r, v = cand.idx[r * m + c];
      const EdgeEntry& e = renumbered[r * m + c];
      // The renumbered pair is the input pair under the order, with its distance.
      EXPECT_EQ(std::minmax(all[e.i], all[e.j]), std::minmax(u, v));
      EXPECT_EQ(e.z, cand.dist[r * m + c]);
      EXPECT_LT(e.i, e.j);
      cross[0] += part.owner(u) != part.owner(v);
      cross[1] += part.owner(e.i) != part.owner(e.j);
    }
  MPI_Allreduce(MPI_IN_PLACE, cross, 2, MPI_INT64_T, MPI_SUM, world());
  if (size > 1) EXPECT_LT(4 * cross[1], cross[0]) << cross[1] << " vs " << cross[0];
}

// 512 clusters of about 16 rows in 8 dimensions, close enough that three directions mix them
// up: a row's nearest neighbour comes within 16 places of it in the order (in cache, not only
// on the same rank) for more than half of the rows (59%; the three-direction key of earlier
// releases: 44%).
TEST(LocalityOrder, NearestNeighboursAreNearInTheOrder) {
  const std::int64_t n = 8192;
  const int d = 8;
  const LocalRows rows = clustered(world(), n, d, 512, 5.0f);
  const LocalityOrder o = locality_order(world(), rows);
  ASSERT_FALSE(o.input.empty());
  const std::vector<float> all = allgather_items(
      world(), std::vector<float>(rows.data(), rows.data() + rows.local_rows() * d));
  std::vector<std::int64_t> place(static_cast<std::size_t>(n));
  const std::vector<std::int64_t> order = gathered(world(), o);
  for (std::int64_t t = 0; t < n; ++t) place[order[t]] = t;
  std::int64_t near = 0;
  for (std::int64_t r = 0; r < rows.local_rows(); ++r) {
    const std::int64_t i = rows.begin + r;
    double best = INFINITY;
    std::int64_t nn = -1;
    for (std::int64_t j = 0; j < n; ++j) {
      const double z = j == i ? INFINITY : squared_distance(&all[i * d], &all[j * d], d);
      if (z < best) best = z, nn = j;
    }
    near += std::abs(place[i] - place[nn]) <= 16;
  }
  MPI_Allreduce(MPI_IN_PLACE, &near, 1, MPI_INT64_T, MPI_SUM, world());
  EXPECT_GT(near, n / 2) << near << " of " << n;
}

TEST(LocalityOrder, InputAlreadyInOrderIsKept) {
  // Points along a curve, in curve order: the input order is already local.
  const std::int64_t n = 3000;
  const Partition part(n, comm_size(world()));
  const int rank = comm_rank(world());
  LocalRows rows;
  rows.n = n;
  rows.d = 4;
  rows.begin = part.begin(rank);
  for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i) {
    const float t = 0.01f * static_cast<float>(i);
    for (float v : {t, std::sin(t), std::cos(t), 0.5f * t}) rows.values().push_back(v);
  }
  const LocalityOrder o = locality_order(world(), rows);
  EXPECT_TRUE(o.input.empty());
  EXPECT_GT(o.score.input, 0.9);
}

TEST(FetchFromOwners, ReturnsTheOwnersValues) {
  const std::int64_t n = 997;
  const int rank = comm_rank(world());
  const Partition part(n, comm_size(world()));
  std::vector<std::int64_t> owned;
  for (std::int64_t g = part.begin(rank); g < part.end(rank); ++g) owned.push_back(3 * g + 1);
  std::mt19937_64 rng(rank + 5);
  std::vector<std::int64_t> ids(300 + 17 * rank);
  for (auto& id : ids) id = static_cast<std::int64_t>(rng() % n);
  const std::vector<std::int64_t> got = fetch_from_owners(world(), part, ids, owned);
  ASSERT_EQ(got.size(), ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(got[k], 3 * ids[k] + 1);
}

namespace {

// CSR adjacency (both directions) of an undirected edge list over `nodes` nodes.
void adjacency(std::int64_t nodes, const std::vector<std::pair<int, int>>& edges,
               std::vector<std::int64_t>& ptr, std::vector<std::int32_t>& adj) {
  ptr.assign(nodes + 1, 0);
  for (const auto& [a, b] : edges) ++ptr[a + 1], ++ptr[b + 1];
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  adj.resize(ptr[nodes]);
  std::vector<std::int64_t> at(ptr.begin(), ptr.end() - 1);
  for (const auto& [a, b] : edges) adj[at[a]++] = b, adj[at[b]++] = a;
}

}  // namespace

// Cliques of 9 nodes at scrambled indices, each tied to the next by one edge: one label per
// clique, and the order puts every clique's nodes next to each other, members ascending;
// isolated nodes keep their own label.
TEST(CommunityOrder, PutsEachCliqueTogether) {
  const int cliques = 40, size_of = 9, isolated = 5;
  const std::int64_t n = cliques * size_of + isolated;
  std::vector<int> id(static_cast<std::size_t>(cliques * size_of));
  std::iota(id.begin(), id.end(), 0);
  std::shuffle(id.begin(), id.end(), std::mt19937_64(5));
  std::vector<std::pair<int, int>> edges;
  for (int c = 0; c < cliques; ++c) {
    for (int a = 0; a < size_of; ++a)
      for (int b = a + 1; b < size_of; ++b)
        edges.push_back({id[c * size_of + a], id[c * size_of + b]});
    if (c + 1 < cliques) edges.push_back({id[c * size_of], id[(c + 1) * size_of + 2]});
  }
  std::vector<std::int64_t> ptr;
  std::vector<std::int32_t> adj;
  adjacency(n, edges, ptr, adj);
  const std::vector<std::int32_t> order = community_order(ptr, adj);
  ASSERT_EQ(static_cast<std::int64_t>(order.size()), n);
  std::vector<std::int64_t> pos(static_cast<std::size_t>(n), -1);
  for (std::int64_t t = 0; t < n; ++t) pos[order[t]] = t;
  for (std::int64_t i = 0; i < n; ++i) ASSERT_GE(pos[i], 0) << "not a permutation";
  for (int c = 0; c < cliques; ++c) {
    std::vector<std::int64_t> at;
    for (int a = 0; a < size_of; ++a) at.push_back(pos[id[c * size_of + a]]);
    std::sort(at.begin(), at.end());
    EXPECT_EQ(at.back() - at.front(), size_of - 1) << "clique " << c;
    for (int a = 1; a < size_of; ++a) {  // members ascending
      const std::int64_t prev = order[at[a - 1]], next = order[at[a]];
      EXPECT_LT(prev, next);
    }
  }
  // The labels: one per clique, none shared between cliques; isolated nodes their own.
  const std::vector<std::int32_t> label = propagate_labels(ptr, adj);
  std::set<std::int32_t> distinct;
  for (int c = 0; c < cliques; ++c) {
    for (int a = 1; a < size_of; ++a)
      EXPECT_EQ(label[id[c * size_of + a]], label[id[c * size_of]]) << "clique " << c;
    distinct.insert(label[id[c * size_of]]);
  }
  EXPECT_EQ(static_cast<int>(distinct.size()), cliques);
  for (std::int64_t i = cliques * size_of; i < n; ++i) EXPECT_EQ(label[i], i);
}

// A node takes the most frequent label of its neighbours, keeps its own on a tie with the best,
// else the tied label of the smallest hash with the node: a star's leaves (one neighbour each)
// take the centre's label in the first round; on a path 0-1-2-3 node 2's tie goes by the hash.
TEST(CommunityOrder, MajorityWithDeterministicTies) {
  std::vector<std::int64_t> ptr;
  std::vector<std::int32_t> adj;
  adjacency(6, {{3, 0}, {3, 1}, {3, 2}, {3, 4}, {3, 5}}, ptr, adj);
  // Round 1: 0, 1 and 2 take 3; the centre sees 3 three times and keeps it; 4 and 5 take 3.
  EXPECT_EQ(propagate_labels(ptr, adj), std::vector<std::int32_t>(6, 3));
  adjacency(4, {{0, 1}, {1, 2}, {2, 3}}, ptr, adj);
  // Round 1: 0 sees {1}: 1; 1 sees {1, 2}, a tie with its own: keeps 1; 2 sees {1, 3}, a tie
  // without its own: the label of the smaller hash with node 2; 3 sees that label and takes it
  // (3 keeps its own on the tie). Round 2: nothing changes.
  auto hash = [](std::int64_t i, std::int32_t l) {
    return mix64(static_cast<std::uint64_t>(i) * kSplitMixGamma ^ static_cast<std::uint64_t>(l));
  };
  const std::int32_t two = hash(2, 1) < hash(2, 3) ? 1 : 3;
  EXPECT_EQ(propagate_labels(ptr, adj), (std::vector<std::int32_t>{1, 1, two, two}));
  EXPECT_EQ(propagate_labels(ptr, adj, 0), (std::vector<std::int32_t>{0, 1, 2, 3}));
}

// The label propagation against a plain reference (a count per label in a map, the hash of
// every candidate label): the same labels on random graphs of few labels per neighbourhood,
// where ties with and without a node's own label are frequent.
TEST(CommunityOrder, MatchesReferencePropagation) {
  const auto reference = [](const std::vector<std::int64_t>& ptr,
                            const std::vector<std::int32_t>& adj, int rounds) {
    const std::int64_t nodes = static_cast<std::int64_t>(ptr.size()) - 1;
    std::vector<std::int32_t> label(static_cast<std::size_t>(nodes));
    std::iota(label.begin(), label.end(), 0);
    for (int round = 0; round < rounds; ++round) {
      std::int64_t changed = 0;
      for (std::int64_t i = 0; i < nodes; ++i) {
        std::map<std::int32_t, int> count;
        for (std::int64_t k = ptr[i]; k < ptr[i + 1]; ++k) ++count[label[adj[k]]];
        if (count.empty()) continue;
        int most = 0;
        for (const auto& [l, c] : count) most = std::max(most, c);
        std::int32_t next = -1;
        std::uint64_t next_hash = 0;
        for (const auto& [l, c] : count) {
          const std::uint64_t h =
              mix64(static_cast<std::uint64_t>(i) * kSplitMixGamma ^ static_cast<std::uint64_t>(l));
          if (c == most && (next < 0 || h < next_hash)) next = l, next_hash = h;
        }
        const auto own = count.find(label[i]);
        if (own != count.end() && own->second == most) next = label[i];
        changed += next != label[i];
        label[i] = next;
      }
      if (changed * 1000 < nodes) break;
    }
    return label;
  };
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const std::int64_t n = 50 + 40 * trial;
    std::vector<std::pair<int, int>> edges;
    std::uniform_int_distribution<int> node(0, static_cast<int>(n) - 1), near(1, 6);
    for (std::int64_t e = 0; e < 3 * n; ++e) {
      const int a = node(rng), b = static_cast<int>((a + near(rng)) % n);
      edges.push_back({a, b});
    }
    std::vector<std::int64_t> ptr;
    std::vector<std::int32_t> adj;
    adjacency(n, edges, ptr, adj);
    for (int rounds : {1, 2, kCommunityRounds})
      EXPECT_EQ(propagate_labels(ptr, adj, rounds), reference(ptr, adj, rounds))
          << "trial " << trial << ", " << rounds << " rounds";
  }
}
