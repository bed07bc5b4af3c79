// Recall on 784-dimensional images: the 10,000 Fashion-MNIST test images (Debian package
// dataset-fashion-mnist), 30 candidates per node, against a brute force written here on a sample
// of nodes, for the default search (--ann auto, partition route) and for hnsw on either route.
// Bar: >= 0.99.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

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
  MPI_Allgatherv(data.x.data(), static_cast<int>(data.x.size()), MPI_FLOAT, all.data(),
                 counts.data(), displs.data(), MPI_FLOAT, MPI_COMM_WORLD);
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
  hnsw_partition.engine = hnsw_ring.engine = "hnsw";
  hnsw_ring.route = "ring";
  for (const AnnParams& p : {AnnParams{}, hnsw_partition, hnsw_ring}) {
    const Candidates cand = find_candidates(MPI_COMM_WORLD, data, m, p);
    const double recall = sampled_recall(data, cand, m);
    if (comm_rank(MPI_COMM_WORLD) == 0) {
      std::printf("recall on 784-dim images, %s, %s (%s): %.4f\n", p.describe().c_str(),
                  p.route.c_str(), cand.report.engine.c_str(), recall);
    }
    EXPECT_GE(recall, 0.99) << p.describe() << " " << p.route;
  }
}
