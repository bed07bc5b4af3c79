// Rows balanced by stored entries (lsgl/graph/balance.hpp): the blocks against the test's own
// computation from the global row lengths, whatever layout the rows arrive in; every row intact
// on its new owner; the owners of lsgl::Partition with given starts (empty blocks too); and the
// densest methods finding the same sets on balanced blocks as on equal ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/dpcd/dense_subgraph.hpp"
#include "lsgl/dpcd/relaxations.hpp"
#include "lsgl/graph/balance.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

// A symmetric weighted graph as rows of (column, weight), columns sorted.
using Rows = std::vector<std::map<std::int64_t, double>>;

// Hubs 0..hubs-1 linked to every node (weight 1 + (i + j) % 5), a path through the other nodes
// (weight 2) and a triangle among three of them: the hubs' rows hold most of the entries, as the
// low ids of the powerlaw-graph generator do.
Rows hub_graph(std::int64_t n, std::int64_t hubs) {
  Rows g(static_cast<std::size_t>(n));
  auto link = [&](std::int64_t i, std::int64_t j, double w) {
    g[i][j] = w;
    g[j][i] = w;
  };
  for (std::int64_t i = 0; i < hubs; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) link(i, j, 1.0 + static_cast<double>((i + j) % 5));
  for (std::int64_t i = hubs; i + 1 < n; ++i) link(i, i + 1, 2.0);
  link(n - 1, n - 3, 4.0);
  return g;
}

// Rows [lo, hi) of g.
LocalCsr block(const Rows& g, std::int64_t lo, std::int64_t hi) {
  LocalCsr m;
  m.n = static_cast<std::int64_t>(g.size());
  m.begin = lo;
  for (std::int64_t i = lo; i < hi; ++i) {
    for (const auto& [j, w] : g[i]) {
      m.indices.push_back(j);
      m.data.push_back(w);
    }
    m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
  }
  return m;
}

std::int64_t work(const Rows& g, std::int64_t i) {
  return static_cast<std::int64_t>(g[i].size()) + 1;
}

// Block p starts at the first row r whose rows before it hold at least ceil(p W / P) of the
// total work W (entries plus rows): by a scan of the whole graph.
std::vector<std::int64_t> expected_starts(const Rows& g, int size) {
  const auto n = static_cast<std::int64_t>(g.size());
  std::vector<std::int64_t> prefix(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + work(g, i);
  std::vector<std::int64_t> starts{0};
  for (int p = 1; p < size; ++p) {
    const std::int64_t target = (p * prefix[n] + size - 1) / size;
    std::int64_t r = 0;
    while (r < n && prefix[r] < target) ++r;
    starts.push_back(r);
  }
  starts.push_back(n);
  return starts;
}

// The input layouts: equal blocks, and every row on the last rank.
std::pair<std::int64_t, std::int64_t> layout(int which, std::int64_t n) {
  const int size = comm_size(world()), rank = comm_rank(world());
  if (which == 0) {
    const Partition part(n, size);
    return {part.begin(rank), part.end(rank)};
  }
  return {0, rank == size - 1 ? n : 0};
}

std::vector<std::int64_t> all_members(const std::vector<std::int64_t>& mine) {
  std::vector<std::int64_t> all = allgather_items(world(), mine);
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

TEST(Balance, RowsMoveToBlocksOfEqualWorkWhateverTheirLayout) {
  const int size = comm_size(world()), rank = comm_rank(world());
  const std::int64_t n = 301;
  const Rows g = hub_graph(n, 3);
  const std::vector<std::int64_t> want = expected_starts(g, size);
  std::int64_t total = 0, widest = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    total += work(g, i);
    widest = std::max(widest, work(g, i));
  }
  for (int which : {0, 1}) {
    SCOPED_TRACE("layout " + std::to_string(which));
    const auto [lo, hi] = layout(which, n);
    const LocalCsr m = block(g, lo, hi);
    EXPECT_EQ(balanced_starts(world(), m), want);
    const LocalCsr out = balance_rows(world(), m);
    const LocalCsr expected = block(g, want[rank], want[rank + 1]);
    EXPECT_EQ(out.n, n);
    EXPECT_EQ(out.begin, want[rank]);
    EXPECT_EQ(out.indptr, expected.indptr);
    EXPECT_EQ(out.indices, expected.indices);
    EXPECT_EQ(out.data, expected.data);
    // Each block holds at most its share plus one row.
    std::int64_t mine = 0;
    for (std::int64_t i = want[rank]; i < want[rank + 1]; ++i) mine += work(g, i);
    EXPECT_LE(mine, (total + size - 1) / size + widest);
    const Partition part = partition_of_blocks(world(), n, out.begin);
    for (std::int64_t i = 0; i < n; ++i) {
      const int owner =
          static_cast<int>(std::upper_bound(want.begin(), want.end(), i) - want.begin()) - 1;
      ASSERT_EQ(part.owner(i), owner) << "node " << i;
    }
    for (int p = 0; p < size; ++p) EXPECT_EQ(part.begin(p), want[p]);
  }
  // The hubs' rows (0-2) make the first block at most 2/3 of the equal one.
  if (size > 1) EXPECT_LT(want[1], Partition(n, size).end(0) * 2 / 3);
}

TEST(Balance, ReadersPlaceRowsInBalancedBlocks) {
  const int size = comm_size(world()), rank = comm_rank(world());
  const std::int64_t n = 301;
  const Rows g = hub_graph(n, 3);
  const std::vector<std::int64_t> want = expected_starts(g, size);
  const LocalCsr expected = block(g, want[rank], want[rank + 1]);
  const std::string dir = test::shared_tmpdir("lsgl-balance");
  const Partition equal(n, size);
  const std::string h5 = dir + "/hub.h5";
  write_graph(world(), h5, block(g, equal.begin(rank), equal.end(rank)), {}, {});
  std::string text;
  for (std::int64_t i = 0; i < n; ++i)
    for (const auto& [j, w] : g[i])
      if (i < j)
        text += std::to_string(i) + " " + std::to_string(j) + " " + std::to_string(w) + "\n";
  const std::string edges = test::write_shared_file(dir, "hub.txt", text);
  GraphInputOptions opt;
  opt.blocks = RowBlocks::kBalanced;
  for (const LocalCsr& m :
       {read_graph(world(), h5, RowBlocks::kBalanced), read_graph_input(world(), h5, opt, nullptr),
        read_graph_input(world(), edges, opt, nullptr)}) {
    EXPECT_EQ(m.begin, want[rank]);
    EXPECT_EQ(m.indptr, expected.indptr);
    EXPECT_EQ(m.indices, expected.indices);
    EXPECT_EQ(m.data, expected.data);
  }
  // The default stays the equal blocks.
  EXPECT_EQ(read_graph(world(), h5).begin, equal.begin(rank));
}

TEST(Balance, EmptyBlocksOwnNothing) {
  const int size = comm_size(world()), rank = comm_rank(world());
  // One edge: on 3 ranks the last block is empty.
  Rows g(2);
  g[0][1] = g[1][0] = 1.5;
  const Partition equal(2, size);
  const LocalCsr out = balance_rows(world(), block(g, equal.begin(rank), equal.end(rank)));
  const std::vector<std::int64_t> want = expected_starts(g, size);
  EXPECT_EQ(out.begin, want[rank]);
  EXPECT_EQ(out.local_rows(), want[rank + 1] - want[rank]);
  if (size == 3) EXPECT_EQ(want, (std::vector<std::int64_t>{0, 1, 2, 2}));
  // Blocks given by their starts, the middle one empty on 3 ranks: 0-3 | 4-3 | 4-9.
  const std::int64_t begin = rank == 0 ? 0 : 4;
  const Partition part = partition_of_blocks(world(), 10, begin);
  for (std::int64_t i = 0; i < 10; ++i)
    EXPECT_EQ(part.owner(i), i < 4 ? 0 : size - 1) << "node " << i;
  EXPECT_EQ(part.count(0), size == 1 ? 10 : 4);
  if (size == 3) EXPECT_EQ(part.count(1), 0);
  // The equal blocks are recognised as such (no starts stored).
  const Partition same = partition_of_blocks(world(), 10, Partition(10, size).begin(rank));
  EXPECT_TRUE(same.starts.empty());
}

TEST(Balance, DensestMethodsFindTheSameSetsOnBalancedAndEqualBlocks) {
  const int size = comm_size(world()), rank = comm_rank(world());
  const std::int64_t n = 120;
  const Rows rows = hub_graph(n, 4);
  const Partition equal(n, size);
  const dpcd::FixedPointGraph a =
      dpcd::make_fixed_point(world(), block(rows, equal.begin(rank), equal.end(rank)));
  const dpcd::FixedPointGraph b = dpcd::make_fixed_point(
      world(), balance_rows(world(), block(rows, equal.begin(rank), equal.end(rank))));
  if (size > 1) EXPECT_FALSE(b.part.starts.empty());  // the hubs moved the first block's end
  for (const std::int64_t k : {3, 10, 40}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    using Method = std::vector<std::int64_t> (*)(const dpcd::FixedPointGraph&, std::int64_t);
    for (const auto& [name, method] :
         std::vector<std::pair<std::string, Method>>{{"peel", dpcd::peel},
                                                     {"ravi", dpcd::ravi},
                                                     {"feige", dpcd::feige},
                                                     {"degree", dpcd::top_degree}}) {
      EXPECT_EQ(all_members(method(a, k)), all_members(method(b, k))) << name;
    }
    int iterations = 0;
    EXPECT_EQ(all_members(dpcd::tpower(a, k, dpcd::top_degree(a, k), 20, nullptr, &iterations)),
              all_members(dpcd::tpower(b, k, dpcd::top_degree(b, k), 20, nullptr, &iterations)));
    const dpcd::DensestDpcdOptions d;
    const auto da = dpcd::dpcd_densest(a, k, d), db = dpcd::dpcd_densest(b, k, d);
    EXPECT_EQ(all_members(da.members), all_members(db.members)) << "dpcd";
    EXPECT_EQ(da.report.objective, db.report.objective) << "dpcd";
    EXPECT_EQ(dpcd::evaluate_subgraph(a, da.members).xwx,
              dpcd::evaluate_subgraph(b, db.members).xwx);
    using G = dpcd::FixedPointGraph;
    using Relaxation = std::function<dpcd::RelaxationResult(const G&)>;
    for (const auto& [name, solve] : std::vector<std::pair<std::string, Relaxation>>{
             {"lp", [&](const G& g) { return dpcd::lp_relaxation(g, k, {}); }},
             {"l2box-admm", [&](const G& g) { return dpcd::l2box_admm(g, k, {}); }},
             {"mpec-epm", [&](const G& g) { return dpcd::mpec_epm(g, k, {}); }},
             {"mpec-adm", [&](const G& g) { return dpcd::mpec_adm(g, k, {}); }}}) {
      EXPECT_EQ(all_members(solve(a).members), all_members(solve(b).members)) << name;
    }
  }
}
