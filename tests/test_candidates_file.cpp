// Candidate lists read from a file: brute-force lists written in the test (clean, with self
// entries, -1 padding, repeats and shuffled order, as a sparse CSR matrix) give the brute-force
// m nearest; the report counts what was dropped; bad files fail on every rank; the distance
// check names the likely right --candidates-distance.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "lsgl/graph/candidates_file.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

namespace {

namespace h5 = lsgl::h5;
using lsgl::Partition;
const MPI_Comm kWorld = MPI_COMM_WORLD;
constexpr std::int64_t kN = 37, kD = 3;
constexpr int kM = 5;

int rank() { return lsgl::comm_rank(kWorld); }
int nranks() { return lsgl::comm_size(kWorld); }

float value(std::int64_t g, std::int64_t j) {
  return static_cast<float>(std::sin(1.7 * static_cast<double>(g) + 2.3 * j) * (1.0 + 0.1 * j) +
                            0.01 * static_cast<double>(g));
}

// Squared distance of rows a and b (double, in the test).
double sq(std::int64_t a, std::int64_t b) {
  double s = 0;
  for (std::int64_t j = 0; j < kD; ++j) {
    const double t = static_cast<double>(value(a, j)) - value(b, j);
    s += t * t;
  }
  return s;
}

// Brute force: node i's other nodes sorted by (squared distance, id).
std::vector<std::pair<double, std::int64_t>> sorted_others(std::int64_t i) {
  std::vector<std::pair<double, std::int64_t>> v;
  for (std::int64_t j = 0; j < kN; ++j)
    if (j != i) v.emplace_back(sq(i, j), j);
  std::sort(v.begin(), v.end());
  return v;
}

lsgl::LocalRows my_data() {
  const Partition part(kN, nranks());
  lsgl::LocalRows r;
  r.n = kN;
  r.d = kD;
  r.begin = part.begin(rank());
  for (std::int64_t g = r.begin; g < part.end(rank()); ++g)
    for (std::int64_t j = 0; j < kD; ++j) r.values().push_back(value(g, j));
  return r;
}

// Writes rows built by `row(i, ids, dists)` (each of width `width`) as the lists layout.
template <class Row>
void write_lists(const std::string& file, std::int64_t width, Row row) {
  const Partition part(kN, nranks());
  std::vector<std::int64_t> ids;
  std::vector<double> dists;
  for (std::int64_t i = part.begin(rank()); i < part.end(rank()); ++i) {
    std::vector<std::int64_t> a;
    std::vector<double> b;
    row(i, a, b);
    a.resize(width, -1);
    b.resize(width, 0.0);
    ids.insert(ids.end(), a.begin(), a.end());
    dists.insert(dists.end(), b.begin(), b.end());
  }
  h5::File f = h5::create(kWorld, file);
  h5::write_2d(f, "/indices", ids, part.begin(rank()), kN, width);
  h5::write_2d(f, "/distances", dists, part.begin(rank()), kN, width);
}

// Expects the brute-force kM nearest of every local node, squared distances.
void expect_exact(const lsgl::Candidates& c) {
  const Partition part(kN, nranks());
  ASSERT_EQ(c.m, kM);
  ASSERT_EQ(c.begin, part.begin(rank()));
  ASSERT_EQ(c.local_rows(), part.count(rank()));
  for (std::int64_t r = 0; r < c.local_rows(); ++r) {
    const auto want = sorted_others(c.begin + r);
    for (int k = 0; k < kM; ++k) {
      EXPECT_EQ(c.idx[r * kM + k], want[k].second) << "node " << c.begin + r << " k " << k;
      EXPECT_NEAR(c.dist[r * kM + k], want[k].first, 1e-9 * (1 + want[k].first));
    }
  }
}

std::string collective_error(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const lsgl::CollectiveError& e) {
    return e.what();
  }
  return "(no CollectiveError)";
}

class CandidatesFile : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = lsgl::test::shared_tmpdir("lsgl-candfile"); }
  void TearDown() override {
    MPI_Barrier(kWorld);
    if (rank() == 0) std::filesystem::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

TEST_F(CandidatesFile, CleanListsGiveTheBruteForceNearest) {
  // pynndescent style: the node itself first, then its neighbours, plain Euclidean distances.
  write_lists(path("clean.h5"), kM + 3, [](std::int64_t i, auto& ids, auto& d) {
    ids.push_back(i);
    d.push_back(0.0);
    for (const auto& [z, j] : sorted_others(i)) {
      if (static_cast<std::int64_t>(ids.size()) == kM + 3) break;
      ids.push_back(j);
      d.push_back(std::sqrt(z));
    }
  });
  lsgl::CandidatesFileOptions o;
  o.distance = lsgl::CandidateDistance::kEuclidean;
  o.max_m = kM;
  lsgl::CandidatesFileReport rep;
  expect_exact(lsgl::read_candidates_file(kWorld, path("clean.h5"), o, &rep));
  EXPECT_EQ(rep.layout, "lists");
  EXPECT_EQ(rep.entries, kN * (kM + 3));
  EXPECT_EQ(rep.self, kN);
  EXPECT_EQ(rep.padding, 0);
  EXPECT_EQ(rep.duplicates, 0);
  EXPECT_EQ(rep.beyond_m, kN * 2);
  EXPECT_EQ(lsgl::check_candidate_distances(
                kWorld, my_data(), lsgl::read_candidates_file(kWorld, path("clean.h5"), o, nullptr),
                lsgl::CandidateDistance::kEuclidean),
            "");
  o.distance = lsgl::CandidateDistance::kSquared;  // the wrong choice for these lists
  const lsgl::Candidates wrong = lsgl::read_candidates_file(kWorld, path("clean.h5"), o, nullptr);
  const std::string message = collective_error([&] {
    lsgl::check_candidate_distances(kWorld, my_data(), wrong, lsgl::CandidateDistance::kSquared);
  });
  EXPECT_NE(message.find("pass --candidates-distance euclidean"), std::string::npos) << message;
}

TEST_F(CandidatesFile, DirtyListsGiveTheSameAsClean) {
  // Shuffled, the node itself twice, -1 padding, each neighbour repeated (once with a larger
  // distance), squared distances; m from the fewest clean entries (kM on every row).
  write_lists(path("dirty.h5"), 4 * kM + 4, [](std::int64_t i, auto& ids, auto& d) {
    const auto others = sorted_others(i);
    for (int k = kM - 1; k >= 0; --k) {
      ids.insert(ids.end(), {others[k].second, -1, others[k].second});
      d.insert(d.end(), {others[k].first, 0.0, others[k].first * 3});
    }
    ids.insert(ids.end(), {i, -1, i});
    d.insert(d.end(), {0.0, 0.0, 0.5});
  });
  lsgl::CandidatesFileReport rep;
  expect_exact(lsgl::read_candidates_file(kWorld, path("dirty.h5"), {}, &rep));
  EXPECT_EQ(rep.self, 2 * kN);
  EXPECT_EQ(rep.padding, kN * (kM + 1) + kN * (4 * kM + 4 - 3 * kM - 3));
  EXPECT_EQ(rep.duplicates, kN * kM);
  EXPECT_EQ(rep.beyond_m, 0);
  EXPECT_NE(rep.note().find("repeated neighbours"), std::string::npos);
}

TEST_F(CandidatesFile, SparseDistanceMatrix) {
  // Rows of kM + (i % 3) nearest as /graph CSR (cosine-style distances: half the squared).
  const Partition part(kN, nranks());
  std::vector<std::int64_t> ptr, idx;
  std::vector<double> dist;
  std::int64_t before = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    const std::int64_t len = kM + i % 3;
    if (i >= part.begin(rank()) && i < part.end(rank())) {
      ptr.push_back(before);
      const auto others = sorted_others(i);
      for (std::int64_t k = len - 1; k >= 0; --k) {
        idx.push_back(others[k].second);
        dist.push_back(others[k].first / 2);
      }
    }
    before += len;
  }
  if (rank() == nranks() - 1) ptr.push_back(before);
  const std::int64_t offset = lsgl::exscan_sum(kWorld, static_cast<std::int64_t>(idx.size()));
  {
    h5::File f = h5::create(kWorld, path("csr.h5"));
    h5::write_1d(f, "/graph/indptr", ptr, part.begin(rank()), kN + 1);
    h5::write_1d(f, "/graph/indices", idx, offset, before);
    h5::write_1d(f, "/graph/data", dist, offset, before);
  }
  lsgl::CandidatesFileOptions o;
  o.distance = lsgl::CandidateDistance::kCosine;
  lsgl::CandidatesFileReport rep;
  expect_exact(lsgl::read_candidates_file(kWorld, path("csr.h5"), o, &rep));
  EXPECT_EQ(rep.layout, "csr");
  EXPECT_EQ(rep.beyond_m, before - kN * kM);
}

TEST_F(CandidatesFile, BadFilesFailOnEveryRank) {
  const std::int64_t last = kN - 1;  // on the last rank only
  auto lists = [&](const std::string& name, std::int64_t bad_id, double bad_dist) {
    write_lists(path(name), kM, [&](std::int64_t i, auto& ids, auto& d) {
      for (const auto& [z, j] : sorted_others(i)) {
        if (static_cast<int>(ids.size()) == kM) break;
        ids.push_back(j);
        d.push_back(z);
      }
      if (i == last) {
        ids[2] = bad_id < 0 ? ids[2] : bad_id;
        d[2] = std::isnan(bad_dist) || bad_dist != 0 ? bad_dist : d[2];
      }
    });
    return collective_error([&] { lsgl::read_candidates_file(kWorld, path(name), {}, nullptr); });
  };
  EXPECT_NE(lists("range.h5", kN, 0).find("candidate 2 of node 36 has id 37, outside [0, 37)"),
            std::string::npos);
  lsgl::CandidatesFileOptions other_n;
  other_n.n = kN + 1;
  EXPECT_NE(collective_error([&] {
              lsgl::read_candidates_file(kWorld, path("range.h5"), other_n, nullptr);
            }).find("has lists for 37 nodes, the data has 38 rows"),
            std::string::npos);
  EXPECT_NE(lists("neg.h5", -1, -0.5).find("candidate 2 of node 36 has the negative distance"),
            std::string::npos);
  EXPECT_NE(lists("nan.h5", -1, std::numeric_limits<double>::quiet_NaN())
                .find("candidate 2 of node 36 has a NaN or infinite distance"),
            std::string::npos);
  {
    const Partition part(kN, nranks());
    h5::File f = h5::create(kWorld, path("shape.h5"));
    h5::write_2d(f, "/indices", std::vector<std::int64_t>(part.count(rank()) * 4, 1),
                 part.begin(rank()), kN, 4);
    h5::write_2d(f, "/distances", std::vector<double>(part.count(rank()) * 3, 1.0),
                 part.begin(rank()), kN, 3);
  }
  EXPECT_NE(collective_error([&] {
              lsgl::read_candidates_file(kWorld, path("shape.h5"), {}, nullptr);
            }).find("must have the same shape n x m"),
            std::string::npos);
  write_lists(path("empty_row.h5"), 2, [&](std::int64_t i, auto& ids, auto& d) {
    ids = {i == last ? i : (i + 1) % kN, -1};
    d = {0.0, 0.0};
  });
  EXPECT_NE(collective_error([&] {
              lsgl::read_candidates_file(kWorld, path("empty_row.h5"), {}, nullptr);
            }).find("node 36 has no candidate left"),
            std::string::npos);
}

}  // namespace
