// The output contract: assembled symmetric CSR rows against a dense reference, and the HDF5
// round trip through write_graph / read_graph at any rank count.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <string>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/learn/solver.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/error.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

std::string shared_tmpdir() { return lsgl::test::shared_tmpdir("lsgl-graphio"); }

const double kThreshold = 1e-4;

// Weight of pair i < j in the test graph (at most kThreshold: pruned).
double weight(std::int64_t i, std::int64_t j) {
  if ((i * 7 + j * 3) % 5 == 0) return kThreshold;  // allowed but pruned: at the threshold
  if ((i * 7 + j * 3) % 5 == 1) return 0.0;
  return 0.5 + 0.001 * i + 0.0001 * j;
}

}  // namespace

TEST(GraphIo, AssembleWriteReadRoundTrip) {
  const std::int64_t n = 31;
  const int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
  std::vector<EdgeEntry> given;
  int c = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + 1; j < n; ++j)
      if ((i + 2 * j) % 4 == 1 && c++ % size == rank) given.push_back({j, i, double(i + j)});
  const EdgeSet e = EdgeSet::from_pairs(MPI_COMM_WORLD, n, given);
  std::vector<double> w(e.local_edges());
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    w[k] = weight(i, j);
  }
  const double scale = 2.0;
  const LocalCsr rows = assemble_rows(e, w, kThreshold, scale);
  // The degree the learners report counts the weights the writer keeps (> the threshold).
  EXPECT_DOUBLE_EQ(average_degree(e, w, kThreshold),
                   double(allreduce_sum(MPI_COMM_WORLD, rows.indptr.back())) / double(n));

  // Dense reference of this rank's rows.
  for (std::int64_t r = 0; r < rows.local_rows(); ++r) {
    const std::int64_t i = rows.begin + r;
    std::map<std::int64_t, double> ref;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i || (std::min(i, j) + 2 * std::max(i, j)) % 4 != 1) continue;
      const double v = weight(std::min(i, j), std::max(i, j));
      if (v > kThreshold) ref[j] = v * scale;
    }
    ASSERT_EQ(rows.indptr[r + 1] - rows.indptr[r], static_cast<std::int64_t>(ref.size()));
    std::int64_t k = rows.indptr[r];
    for (const auto& [j, v] : ref) {
      EXPECT_EQ(rows.indices[k], j);
      EXPECT_DOUBLE_EQ(rows.data[k], v);
      ++k;
    }
  }
  // With distances from z (here z = i + j): the same rows, and each entry's distance aligned.
  std::vector<double> distances;
  const LocalCsr with = assemble_rows(
      e, w, kThreshold, scale, nullptr, [](double z) { return 0.5 * z + 1.0; }, &distances);
  EXPECT_EQ(with.indptr, rows.indptr);
  EXPECT_EQ(with.indices, rows.indices);
  EXPECT_EQ(with.data, rows.data);
  ASSERT_EQ(distances.size(), rows.indices.size());
  for (std::int64_t r = 0; r < rows.local_rows(); ++r)
    for (std::int64_t k = rows.indptr[r]; k < rows.indptr[r + 1]; ++k)
      EXPECT_EQ(distances[k], 0.5 * double(rows.begin + r + rows.indices[k]) + 1.0);

  const std::string dir = shared_tmpdir();
  ASSERT_FALSE(dir.empty());
  const std::string path = dir + "/g.h5";
  write_graph(MPI_COMM_WORLD, path, rows, {{"model", std::string("log")}, {"n", n}, {"theta", 0.5}},
              {{"ranks", std::int64_t(size)}});
  EXPECT_NE(access(path.c_str(), F_OK), -1);
  EXPECT_EQ(test::temporary_files(path), std::vector<std::string>{});
  const LocalCsr back = read_graph(MPI_COMM_WORLD, path);
  EXPECT_EQ(back.n, n);
  EXPECT_EQ(back.begin, rows.begin);
  EXPECT_EQ(back.indptr, rows.indptr);
  EXPECT_EQ(back.indices, rows.indices);
  EXPECT_EQ(back.data, rows.data);
  {
    h5::File f = h5::open_read(MPI_COMM_WORLD, path);
    EXPECT_EQ(h5::get_attr_string(f, "/graph", "model"), "log");
    EXPECT_EQ(h5::get_attr_int(f, "/graph", "n"), n);
    EXPECT_EQ(h5::get_attr_double(f, "/graph", "theta"), 0.5);
    EXPECT_EQ(h5::get_attr_int(f, "/", "ranks"), size);
    const auto deg = h5::read_1d<double>(f, "/graph/degree", rows.begin, rows.local_rows());
    const auto sums = row_sums(rows);
    for (std::size_t r = 0; r < sums.size(); ++r) EXPECT_DOUBLE_EQ(deg[r], sums[r]);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::remove(path.c_str());
    rmdir(dir.c_str());
  }
}

TEST(GraphIo, UnwritableDirectoryIsACollectiveError) {
  EXPECT_THROW(check_writable(MPI_COMM_WORLD, "/nonexistent-lsgl-dir/g.h5"), CollectiveError);
}
