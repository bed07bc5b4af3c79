// `lsgl eval` end to end through files: the graph written with write_graph, labels as HDF5; the
// report's numbers against serial computations, the JSON keys, the embedding file, and bad
// inputs (labels of the wrong length, missing graph or labels, unwritable output, asymmetric
// graph) raising CollectiveError on every rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <queue>
#include <random>
#include <sstream>
#include <string>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/pipeline/eval.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

std::string shared_tmpdir() { return lsgl::test::shared_tmpdir("lsgl-eval"); }

// Two noisy clusters of 60 nodes on a ring-like structure each, joined by a few wrong edges,
// plus 3 isolated nodes: n = 123. Labels 0 and 1 alternate in index order.
constexpr std::int64_t kN = 123;
std::int64_t label_of(std::int64_t i) { return i % 2; }

std::vector<std::map<std::int64_t, double>> full_graph() {
  std::vector<std::map<std::int64_t, double>> adj(kN);
  auto add = [&](std::int64_t i, std::int64_t j, double w) {
    adj[i][j] = w;
    adj[j][i] = w;
  };
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int c = 0; c < 2; ++c) {
    std::vector<std::int64_t> nodes;
    for (std::int64_t i = c; i < 120; i += 2) nodes.push_back(i);
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      add(nodes[k], nodes[(k + 1) % nodes.size()], 0.5 + 0.5 * u(rng));
      add(nodes[k], nodes[(k + 3) % nodes.size()], 0.2 + 0.5 * u(rng));
    }
  }
  for (std::int64_t i = 0; i < 10; ++i) add(6 * i, 6 * i + 7, 0.05);  // wrong edges
  return adj;
}

LocalCsr block(const std::vector<std::map<std::int64_t, double>>& adj) {
  const Partition part(kN, comm_size(MPI_COMM_WORLD));
  const int rank = comm_rank(MPI_COMM_WORLD);
  LocalCsr m;
  m.n = kN;
  m.begin = part.begin(rank);
  for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i) {
    for (const auto& [j, w] : adj[i]) {
      m.indices.push_back(j);
      m.data.push_back(w);
    }
    m.indptr.push_back(static_cast<std::int64_t>(m.indices.size()));
  }
  return m;
}

void write_labels(const std::string& path, std::int64_t n) {
  const Partition part(n, comm_size(MPI_COMM_WORLD));
  const int rank = comm_rank(MPI_COMM_WORLD);
  std::vector<std::int64_t> v;
  for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i) v.push_back(label_of(i));
  h5::File f = h5::create(MPI_COMM_WORLD, path);
  h5::write_1d(f, "/labels", v, part.begin(rank), n);
  f.close();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Files {
  std::string dir, graph, labels, short_labels, asym;
};

const Files& files() {
  static Files f = [] {
    Files x;
    x.dir = shared_tmpdir();
    x.graph = x.dir + "/g.h5";
    x.labels = x.dir + "/labels.h5";
    x.short_labels = x.dir + "/short.h5";
    x.asym = x.dir + "/asym.h5";
    const auto adj = full_graph();
    write_graph(MPI_COMM_WORLD, x.graph, block(adj), {{"n", kN}}, {});
    write_labels(x.labels, kN);
    write_labels(x.short_labels, kN - 1);
    auto bad = adj;
    bad[100][101] = 3.0;  // no mirror (101, 100)
    write_graph(MPI_COMM_WORLD, x.asym, block(bad), {{"n", kN}}, {});
    return x;
  }();
  return f;
}

EvalOptions base_options() {
  EvalOptions o;
  o.graph = files().graph;
  o.labels = files().labels;
  o.lp.fraction = 0.05;
  return o;
}

}  // namespace

TEST(EvalPipeline, ReportJsonAndEmbedding) {
  EvalOptions o = base_options();
  o.json = files().dir + "/report.json";
  o.embedding = files().dir + "/emb.h5";
  o.embedding_params.vectors = 3;
  const EvalReport r = run_eval(MPI_COMM_WORLD, o);

  const auto adj = full_graph();
  std::int64_t nnz = 0, isolated = 0;
  double total = 0, wrong = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    nnz += static_cast<std::int64_t>(adj[i].size());
    isolated += adj[i].empty();
    for (const auto& [j, w] : adj[i]) {
      total += w;
      if (label_of(i) != label_of(j)) wrong += w;
    }
  }
  EXPECT_EQ(r.stats.n, kN);
  EXPECT_EQ(r.stats.nnz, nnz);
  EXPECT_EQ(r.stats.isolated, isolated);
  EXPECT_EQ(isolated, 3);
  EXPECT_EQ(r.components, 1 + 3);  // the wrong edges join the two clusters
  EXPECT_EQ(r.largest_component, 120);
  EXPECT_NEAR(r.connectivity.wrong_share, wrong / total, 1e-12);
  EXPECT_EQ(r.lp.known, 6);
  EXPECT_GE(r.lp.unreachable, 2);  // isolated nodes (unless chosen as known)
  EXPECT_GT(r.lp.accuracy_reachable, 0.75);
  EXPECT_TRUE(r.diameter.exact);
  // Diameter of the 120-node component by BFS from every node.
  std::int64_t diameter = 0;
  for (std::int64_t s = 0; s < 120; ++s) {
    std::vector<std::int64_t> d(kN, -1);
    std::queue<std::int64_t> q;
    q.push(s);
    d[s] = 0;
    while (!q.empty()) {
      const std::int64_t u = q.front();
      q.pop();
      for (const auto& [v, w] : adj[u])
        if (d[v] < 0) {
          d[v] = d[u] + 1;
          diameter = std::max(diameter, d[v]);
          q.push(v);
        }
    }
  }
  EXPECT_EQ(r.diameter.diameter, diameter);
  ASSERT_EQ(r.eigenvalues.size(), 3u);
  EXPECT_EQ(r.embedding_component_nodes, 120);  // the largest component, isolated nodes left out
  EXPECT_GT(r.eigenvalues[0], 1e-4);
  EXPECT_LE(r.eigenvalues[0], r.eigenvalues[1]);
  EXPECT_LE(r.eigenvalues[1], r.eigenvalues[2]);

  // Every measure's seconds and the keys of the issue.
  for (const char* name : {"read", "degrees", "components", "label_propagation",
                           "class_connectivity", "diameter", "embedding", "total"}) {
    bool found = false;
    for (const auto& [key, t] : r.seconds) found = found || (key == name && t >= 0);
    EXPECT_TRUE(found) << name;
  }
  const std::string json = slurp(o.json);
  for (const char* key :
       {"n", "nnz", "components", "isolated", "avg_degree", "label_propagation", "fraction",
        "accuracy", "unreachable", "wrong_edge_share", "diameter", "diameter_exact", "seconds",
        "class_connectivity", "embedding", "total_weight"})
    EXPECT_NE(json.find("\"" + std::string(key) + "\": "), std::string::npos) << key;
  EXPECT_NE(json.find("\"diameter_exact\": true"), std::string::npos);
  EXPECT_NE(json.find("\"n\": 123,"), std::string::npos);
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.substr(json.size() - 2), "}\n");

  // The embedding file: shape, values, unit columns.
  h5::File f = h5::open_read(MPI_COMM_WORLD, o.embedding);
  const h5::DatasetInfo info = h5::dataset_info(f, "/embedding/vectors");
  EXPECT_EQ(info.dims, (std::vector<std::int64_t>{kN, 3}));
  const std::vector<double> values = h5::read_1d<double>(f, "/embedding/values", 0, 3);
  for (int k = 0; k < 3; ++k) EXPECT_DOUBLE_EQ(values[k], r.eigenvalues[k]);
  const std::vector<double> v = h5::read_2d<double>(f, "/embedding/vectors", 0, kN);
  for (int k = 0; k < 3; ++k) {
    double s = 0, Lv2 = 0;
    for (std::int64_t i = 0; i < kN; ++i) {
      s += v[i * 3 + k] * v[i * 3 + k];
      double Lv = 0;  // (L v)_i, L of the whole graph (v = 0 off the component)
      for (const auto& [j, w] : adj[i]) Lv += w * (v[i * 3 + k] - v[j * 3 + k]);
      Lv2 += (Lv - values[k] * v[i * 3 + k]) * (Lv - values[k] * v[i * 3 + k]);
    }
    EXPECT_NEAR(s, 1.0, 1e-10);
    EXPECT_LT(std::sqrt(Lv2), 1e-6);  // an eigenpair of L
  }
  for (std::int64_t i = 120; i < kN; ++i) EXPECT_EQ(v[i * 3], 0.0);
  EXPECT_EQ(h5::get_attr_string(f, "/embedding", "laplacian"), "combinatorial");
}

TEST(EvalPipeline, WithoutLabelsTheLabelKeysAreNull) {
  EvalOptions o = base_options();
  o.labels.clear();
  o.json = files().dir + "/nolabels.json";
  const EvalReport r = run_eval(MPI_COMM_WORLD, o);
  EXPECT_FALSE(r.has_labels);
  const std::string json = slurp(o.json);
  EXPECT_NE(json.find("\"label_propagation\": null"), std::string::npos);
  EXPECT_NE(json.find("\"wrong_edge_share\": null"), std::string::npos);
  EXPECT_NE(json.find("\"embedding\": null"), std::string::npos);
}

TEST(EvalPipeline, BadInputsThrowOnEveryRank) {
  {
    EvalOptions o = base_options();
    o.labels = files().short_labels;
    try {
      run_eval(MPI_COMM_WORLD, o);
      ADD_FAILURE() << "labels of the wrong length accepted";
    } catch (const CollectiveError& e) {
      EXPECT_NE(std::string(e.what()).find("122 entries"), std::string::npos) << e.what();
    }
  }
  {
    EvalOptions o = base_options();
    o.graph = files().dir + "/missing.h5";
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
  }
  {
    EvalOptions o = base_options();
    o.labels = files().dir + "/missing-labels.h5";
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
  }
  {
    EvalOptions o = base_options();
    o.labels_dataset = "/nope";
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
  }
  {
    EvalOptions o = base_options();
    o.graph = files().asym;
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
  }
  {
    EvalOptions o = base_options();
    o.json = "/nonexistent-dir/r.json";
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
  }
  {
    EvalOptions o = base_options();
    o.lp.fraction = 0;
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
  }
  {
    EvalOptions o = base_options();
    o.embedding = files().dir + "/e.h5";
    o.embedding_params.vectors = static_cast<int>(kN);
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_NE(access(o.embedding.c_str(), F_OK), 0);  // nothing left behind
    EXPECT_EQ(test::temporary_files(o.embedding), std::vector<std::string>{});
  }
  {
    EvalOptions o = base_options();
    o.max_classes = 1;
    EXPECT_THROW(run_eval(MPI_COMM_WORLD, o), CollectiveError);
  }
}
