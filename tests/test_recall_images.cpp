// Recall on 784-dimensional images: the 10,000 Fashion-MNIST test images (Debian package
// dataset-fashion-mnist), 30 candidates per node, against a brute force written here on a sample
// of nodes, for the default search (--ann auto, partition route: the projected search there)
// and for hnsw on either route. Bars: >= 0.995 for the default, >= 0.99 for hnsw. The default's
// lists are also checked against their definition computed here, row by row, from the serial
// projection: the same lists on any number of ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ann/projection.hpp"
#include "ann/routes.hpp"
#include "projected_reference.hpp"
#include "lsgl/ann/candidates.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/util/mpi.hpp"

using namespace lsgl;

namespace {

double sampled_recall(const LocalRows& data, const Candidates& cand, int m) {
  // Every 50th node (200 nodes): the exact m-NN from all rows, gathered on every rank.
  const int size = comm_size(MPI_COMM_WORLD);
  std::vector<float> all(static_cast<std::size_t>(data.n * data.d));
  std::vector<int> counts(size), displs(size);
  const Partition part(data.n, size);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>(part.count(r) * data.d);
    displs[r] = static_cast<int>(part.begin(r) * data.d);
  }
  MPI_Allgatherv(data.data(), static_cast<int>(data.size()), MPI_FLOAT, all.data(), counts.data(),
                 displs.data(), MPI_FLOAT, MPI_COMM_WORLD);
  double hits = 0;
  int sampled = 0;
  for (std::int64_t r = 0; r < cand.local_rows(); ++r) {
    const std::int64_t g = cand.begin + r;
    if (g % 50 != 0) continue;
    std::vector<double> dist(static_cast<std::size_t>(data.n));
    for (std::int64_t j = 0; j < data.n; ++j) {
      double s = 0;
      for (std::int64_t t = 0; t < data.d; ++t) {
        const double diff = double(all[g * data.d + t]) - all[j * data.d + t];
        s += diff * diff;
      }
      dist[j] = s;
    }
    std::vector<double> others(dist);
    others.erase(others.begin() + g);
    std::nth_element(others.begin(), others.begin() + (m - 1), others.end());
    const double kth = others[m - 1];
    // A hit: a distinct candidate other than the node whose distance, computed here, is within
    // the exact m-th; the reported distance must be that distance.
    std::set<std::int64_t> seen;
    for (int c = 0; c < m; ++c) {
      const std::int64_t j = cand.idx[r * m + c];
      const bool valid = j >= 0 && j < data.n && j != g && seen.insert(j).second;
      EXPECT_TRUE(valid) << "node " << g << " candidate " << j;
      if (!valid) continue;
      EXPECT_NEAR(cand.dist[r * m + c], dist[j], 1e-12 * dist[j]) << g << " " << j;
      hits += dist[j] <= kth * (1 + 1e-9) ? 1 : 0;
    }
    ++sampled;
  }
  double sums[2] = {hits, double(sampled) * m};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sums[0] / sums[1];
}

}  // namespace

TEST(RecallImages, DefaultAndHnswOnFashionMnist) {
  const std::string path = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  const LocalRows data = read_dataset(MPI_COMM_WORLD, path, "");
  ASSERT_EQ(data.n, 10000);
  ASSERT_EQ(data.d, 784);
  const int m = 30;
  AnnParams hnsw_partition, hnsw_ring;
  hnsw_partition.engine = hnsw_ring.engine = lsgl::AnnEngine::kHnsw;
  hnsw_ring.route = lsgl::AnnRoute::kRing;
  for (const AnnParams& p : {AnnParams{}, hnsw_partition, hnsw_ring}) {
    const Candidates cand = find_candidates(MPI_COMM_WORLD, data, m, p);
    const double recall = sampled_recall(data, cand, m);
    if (comm_rank(MPI_COMM_WORLD) == 0) {
      std::printf("recall on 784-dim images, %s, %s (%s): %.4f\n", p.describe().c_str(),
                  lsgl::name_of(p.route), lsgl::name_of(cand.report.engine), recall);
    }
    EXPECT_GE(recall, p.engine == lsgl::AnnEngine::kAuto ? 0.995 : 0.99)
        << p.describe() << " " << lsgl::name_of(p.route);
    if (p.engine == lsgl::AnnEngine::kAuto) EXPECT_EQ(cand.report.engine, AnnEngine::kProjected);
  }
}

TEST(RecallImages, ProjectedListsAreTheirDefinition) {
  const std::string path = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
  const LocalRows data = read_dataset(MPI_COMM_WORLD, path, "");
  const LocalRows whole = read_dataset(MPI_COMM_SELF, path, "");
  const int m = 30;
  AnnParams p;
  p.engine = AnnEngine::kProjected;
  const ann::ProjectedPlan plan = ann::plan_projected(MPI_COMM_WORLD, data, m, p);
  std::vector<int> home(static_cast<std::size_t>(whole.n), 0);  // every row's cell
  for (std::int64_t l = 0; l < data.local_rows(); ++l) home[data.begin + l] = plan.cells.home[l];
  MPI_Allreduce(MPI_IN_PLACE, home.data(), static_cast<int>(whole.n), MPI_INT, MPI_SUM,
                MPI_COMM_WORLD);
  const Candidates cand = find_candidates(MPI_COMM_WORLD, data, m, p);
  const int dims = cand.report.projected_dims, shortlist = cand.report.shortlist;
  ASSERT_EQ(dims, plan.dims);
  ASSERT_EQ(cand.report.probes, plan.probes);
  ASSERT_GE(shortlist, m);
  const ann::Projection proj = ann::fit_projection(MPI_COMM_SELF, whole, dims, p.seed);
  std::vector<float> y(static_cast<std::size_t>(whole.n * dims));
  std::vector<double> slack(static_cast<std::size_t>(whole.n));
  ann::project_rows(proj, dims, whole.data(), whole.n, y.data(), slack.data());
  const test::ProjectedRows pr{y.data(), whole.data(), whole.n, dims, whole.d, home.data()};
  for (std::int64_t i = 0; i < cand.local_rows(); i += 7) {  // every 7th local row
    const std::int64_t g = cand.begin + i;
    int own = 0;
    const auto want = test::projected_definition(pr, plan.cells.layout, plan.probes, shortlist,
                                                 g, &own);
    for (int t = 0; t < m; ++t) {
      ASSERT_EQ(cand.idx[i * m + t], want[t].second) << "row " << g << " place " << t;
      ASSERT_EQ(cand.dist[i * m + t], want[t].first) << "row " << g << " place " << t;
    }
  }
}
