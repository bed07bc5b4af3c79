// `lsgl densest` pipeline: the output contract (HDF5 and text), the powerlaw-graph generator
// (same file on any number of ranks, planted communities recovered), bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "lsgl/cli/choices.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/pipeline/densest.hpp"
#include "lsgl/synth/generate.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

std::string tmpdir() {
  static const std::string dir = lsgl::test::shared_tmpdir("lsgl-densest");
  return dir;
}

bool exists(const std::string& p) { return access(p.c_str(), F_OK) == 0; }

PowerlawGraphParams small_params() {
  PowerlawGraphParams p;
  p.n = 4000;
  p.edges = 16000;
  p.exponent = 2.3;
  p.community_sizes = {25, 80};
  p.community_densities = {0.95, 0.1};  // the second is sparse: the 25 set is the optimum
  p.seed = 11;
  return p;
}

// The planted members of community c, read from /planted/community.
std::vector<std::int64_t> planted(const std::string& path, std::int64_t c) {
  h5::File f = h5::open_read(world(), path);
  const std::int64_t n = h5::length_1d(f, "/planted/community");
  const auto com = h5::read_1d<std::int64_t>(f, "/planted/community", 0, n);
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < n; ++i)
    if (com[i] == c) out.push_back(i);
  return out;
}

DensestOptions options(const std::string& graph, std::int64_t k, DensestMethod method) {
  DensestOptions o;
  o.graph = graph;
  o.sizes = {k};
  o.methods = {method};
  return o;
}

}  // namespace

TEST(Generate, PowerlawGraphDoesNotDependOnRankCount) {
  const std::string path = tmpdir() + "/pl.h5", solo_path = tmpdir() + "/pl1.h5";
  generate_powerlaw_graph(world(), small_params(), path);
  MPI_Comm solo;
  MPI_Comm_split(world(), comm_rank(world()) == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  if (solo != MPI_COMM_NULL) {
    generate_powerlaw_graph(solo, small_params(), solo_path);
    MPI_Comm_free(&solo);
  }
  MPI_Barrier(world());
  h5::File a = h5::open_read(world(), path), b = h5::open_read(world(), solo_path);
  for (const char* name : {"/graph/indptr", "/graph/indices", "/planted/community"}) {
    const std::int64_t len = h5::length_1d(a, name);
    ASSERT_EQ(len, h5::length_1d(b, name)) << name;
    EXPECT_EQ(h5::read_1d<std::int64_t>(a, name, 0, len),
              h5::read_1d<std::int64_t>(b, name, 0, len))
        << name;
  }
  EXPECT_EQ(h5::get_attr_int(a, "/graph", "n"), 4000);
  EXPECT_EQ(planted(path, 0).size(), 25u);
  EXPECT_EQ(planted(path, 1).size(), 80u);
}

TEST(Densest, PlantedCommunityFoundAndOutputContract) {
  const std::string graph = tmpdir() + "/pl.h5";
  if (!exists(graph)) generate_powerlaw_graph(world(), small_params(), graph);
  MPI_Barrier(world());
  const auto want = planted(graph, 0);
  const std::string out = tmpdir() + "/sub.h5";
  DensestOptions o = options(graph, 25, DensestMethod::kDpcd);
  o.output = out;
  const auto res = run_densest(world(), o);
  ASSERT_EQ(res.size(), 1u);
  const auto& s = res[0];
  EXPECT_FALSE(s.init_used.empty());
  h5::File f = h5::open_read(world(), out);
  const auto nodes = h5::read_1d<std::int64_t>(f, "/subgraph/nodes", 0, 25);
  EXPECT_EQ(nodes, want);
  EXPECT_TRUE(std::is_sorted(nodes.begin(), nodes.end()));
  const std::int64_t hist = h5::length_1d(f, "/subgraph/objective");
  EXPECT_EQ(hist, static_cast<std::int64_t>(s.objective.size()));
  const auto obj = h5::read_1d<double>(f, "/subgraph/objective", 0, hist);
  for (std::int64_t t = 1; t < hist; ++t) EXPECT_GE(obj[t], obj[t - 1]);
  EXPECT_EQ(h5::get_attr_int(f, "/subgraph", "k"), 25);
  const std::int64_t inside = h5::get_attr_int(f, "/subgraph", "edges_inside");
  EXPECT_EQ(inside, s.stats.edges_inside);
  EXPECT_DOUBLE_EQ(h5::get_attr_double(f, "/subgraph", "weight_inside"), double(inside));
  EXPECT_DOUBLE_EQ(h5::get_attr_double(f, "/subgraph", "density"), 2.0 * inside / 25.0);
  EXPECT_DOUBLE_EQ(obj[hist - 1], 2.0 * inside);  // x^T W x counts each edge twice
  EXPECT_EQ(h5::get_attr_string(f, "/subgraph", "method"), "dpcd");
  EXPECT_GE(h5::get_attr_double(f, "/subgraph", "seconds"), 0.0);
  EXPECT_EQ(h5::get_attr_string(f, "/subgraph", "init"), s.init_used);
  EXPECT_DOUBLE_EQ(h5::get_attr_double(f, "/subgraph", "alpha1"), o.dpcd.dpcd.alpha1);
  EXPECT_EQ(h5::get_attr_int(f, "/", "ranks"), comm_size(world()));
  EXPECT_EQ(test::temporary_files(out), std::vector<std::string>{});

  // Text output: the run's members, one per line; dpcd and peel find the planted set here
  // (tpower, feige and ravi do not: they are checked against references in test_dpcd).
  for (const DensestMethod method : {DensestMethod::kDpcd, DensestMethod::kPeel,
                                     DensestMethod::kTpower, DensestMethod::kFeige,
                                     DensestMethod::kRavi}) {
    DensestOptions t = options(graph, 25, method);
    t.output = tmpdir() + "/sub.txt";
    t.output_format = SubgraphFormat::kText;
    const auto res = run_densest(world(), t);
    ASSERT_EQ(res.size(), 1u);
    std::vector<std::int64_t> ids;
    std::ifstream in(t.output);
    for (long long v; in >> v;) ids.push_back(v);
    std::vector<std::int64_t> members = allgather_items(world(), res[0].members);
    std::sort(members.begin(), members.end());
    EXPECT_EQ(ids, members) << name_of(method);
    EXPECT_EQ(ids.size(), 25u) << name_of(method);
    if (method == DensestMethod::kDpcd || method == DensestMethod::kPeel) {
      EXPECT_EQ(ids, want) << name_of(method);
    }
  }
}

TEST(Densest, SeveralSizesAndMethodsOnOneRead) {
  const std::string graph = tmpdir() + "/pl.h5";
  if (!exists(graph)) generate_powerlaw_graph(world(), small_params(), graph);
  MPI_Barrier(world());
  DensestOptions o = options(graph, 0, DensestMethod::kDpcd);
  o.sizes = {10, 60};
  o.methods = {DensestMethod::kPeel, DensestMethod::kRavi, DensestMethod::kFeige,
               DensestMethod::kTpower, DensestMethod::kDpcd};
  const auto res = run_densest(world(), o);
  ASSERT_EQ(res.size(), 10u);
  for (std::size_t i = 0; i < res.size(); ++i) {
    EXPECT_EQ(res[i].stats.k, o.sizes[i / 5]);
    EXPECT_EQ(res[i].method, o.methods[i % 5]);
  }
  // DPCD is at least as dense as every baseline on this graph.
  for (std::size_t b = 0; b < 2; ++b)
    for (std::size_t m = 0; m < 4; ++m)
      EXPECT_GE(res[b * 5 + 4].stats.density, res[b * 5 + m].stats.density)
          << name_of(o.methods[m]);
}

TEST(Densest, BadInputIsACollectiveError) {
  const std::string graph = tmpdir() + "/pl.h5";
  if (!exists(graph)) generate_powerlaw_graph(world(), small_params(), graph);
  MPI_Barrier(world());
  const std::string out = tmpdir() + "/bad.h5";
  auto expect_error = [&](DensestOptions o, const char* what) {
    o.output = out;
    EXPECT_THROW(run_densest(world(), o), CollectiveError) << what;
    EXPECT_FALSE(exists(out)) << what;
    EXPECT_EQ(test::temporary_files(out), std::vector<std::string>{}) << what;
  };
  expect_error(options(graph, 0, DensestMethod::kDpcd), "k = 0");
  expect_error(options(graph, 4001, DensestMethod::kDpcd), "k > n");
  expect_error(options(tmpdir() + "/missing.h5", 10, DensestMethod::kDpcd), "missing graph");
  // Unknown names are refused where the options are parsed, before any file is touched.
  EXPECT_THROW(cli::parse_choice<DensestMethod>("method", "magic"), std::invalid_argument);
  EXPECT_THROW(cli::parse_choice<SubgraphFormat>("output-format", "xml"), std::invalid_argument);
  EXPECT_THROW(cli::parse_choice_list<dpcd::InitialSet>("init", "degree,random"),
               std::invalid_argument);
  DensestOptions o = options(graph, 10, DensestMethod::kDpcd);
  o.output = "/nonexistent-lsgl-dir/x.h5";
  EXPECT_THROW(run_densest(world(), o), CollectiveError);
  o = options(graph, 10, DensestMethod::kDpcd);
  o.sizes = {10, 20};
  expect_error(o, "several sizes with --output");
}
