// Issue 15 at the function level: write_atomically (unique temporary files, the commit refusing
// an output replaced by another run), check_writable leaving other runs' files alone,
// same_file / check_distinct_files, the pure parsers (raw headers, graph text), and the
// memory check against the memory of each node shared by its ranks, the data range of
// single-precision distances.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/text_graph.hpp"
#include "lsgl/io/float_range.hpp"
#include "lsgl/io/raw_header.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

const MPI_Comm kWorld = MPI_COMM_WORLD;

std::string dir() {
  static const std::string d = lsgl::test::shared_tmpdir("lsgl-reliability");
  return d;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The number of temporary files of PATH (any run's).
std::size_t temporaries(const std::string& path) { return test::temporary_files(path).size(); }

void write_on_root(const std::string& path, const std::string& text) {
  write_atomically(kWorld, path, [&](const std::string& tmp) {
    if (comm_rank(kWorld) == 0) write_text(tmp, text, path);
  });
}

}  // namespace

TEST(AtomicFile, WritesThroughAUniqueTemporaryAndLeavesNone) {
  const std::string out = dir() + "/a.txt";
  check_writable(kWorld, out);
  write_on_root(out, "one\n");
  EXPECT_EQ(slurp(out), "one\n");
  EXPECT_EQ(temporaries(out), 0u);
}

TEST(AtomicFile, FailureOnTheLastRankKeepsTheOutputAndRemovesOnlyItsTemporary) {
  const std::string out = dir() + "/b.txt";
  put(out, "before\n");
  // Another run's temporary file of the same output: it must survive.
  const std::string other = temporary_name(out);
  if (comm_rank(kWorld) == 0) put(other, "other run\n");
  MPI_Barrier(kWorld);
  check_writable(kWorld, out);
  EXPECT_THROW(write_atomically(kWorld, out,
                                [&](const std::string&) {
                                  if (comm_rank(kWorld) == comm_size(kWorld) - 1)
                                    throw std::runtime_error("disk on fire");
                                }),
               CollectiveError);
  MPI_Barrier(kWorld);  // rank 0 removes its temporary file after the collective failure
  EXPECT_EQ(slurp(out), "before\n");
  EXPECT_EQ(slurp(other), "other run\n");
  EXPECT_EQ(temporaries(out), 1u);
  MPI_Barrier(kWorld);
  if (comm_rank(kWorld) == 0) std::remove(other.c_str());
}

TEST(AtomicFile, AFailedLocalWriteKeepsTheOutputAndRemovesItsTemporary) {
  // Each rank writes its own file (write_atomically_local is not collective).
  const std::string out = dir() + "/local" + std::to_string(comm_rank(kWorld)) + ".txt";
  put(out, "before\n");
  EXPECT_THROW(write_atomically_local(out,
                                      [&](const std::string& tmp) {
                                        put(tmp, "half");
                                        throw std::runtime_error("disk on fire");
                                      }),
               std::runtime_error);
  EXPECT_EQ(slurp(out), "before\n");
  EXPECT_EQ(temporaries(out), 0u);
}

TEST(AtomicFile, AnOutputReplacedByAnotherRunIsKept) {
  const std::string out = dir() + "/c.txt";
  check_writable(kWorld, out);
  MPI_Barrier(kWorld);
  if (comm_rank(kWorld) == 0) put(out, "the other run's\n");  // committed meanwhile
  MPI_Barrier(kWorld);
  EXPECT_THROW(write_on_root(out, "mine\n"), CollectiveError);
  MPI_Barrier(kWorld);
  EXPECT_EQ(slurp(out), "the other run's\n");
  EXPECT_EQ(temporaries(out), 0u);
  MPI_Barrier(kWorld);  // before rank 0 creates the probe of check_writable
  // A run's own earlier commits do not count as another run's (checkpoints).
  check_writable(kWorld, out);
  write_on_root(out, "first\n");
  write_on_root(out, "second\n");
  EXPECT_EQ(slurp(out), "second\n");
}

TEST(FileIdentity, SameFileByInodeOrResolvedPath) {
  const std::string a = dir() + "/x.h5";
  if (comm_rank(kWorld) == 0) {
    put(a, "x");
    EXPECT_EQ(symlink(a.c_str(), (dir() + "/link.h5").c_str()), 0);
    mkdir((dir() + "/sub").c_str(), 0755);
  }
  MPI_Barrier(kWorld);
  EXPECT_TRUE(same_file(a, dir() + "/sub/../x.h5"));
  EXPECT_TRUE(same_file(a, dir() + "/link.h5"));
  EXPECT_TRUE(same_file(dir() + "/new.h5", dir() + "/sub/../new.h5"));
  EXPECT_FALSE(same_file(a, dir() + "/new.h5"));
  EXPECT_THROW(check_distinct_files(kWorld, {{"--input", a}}, {{"--output", dir() + "/link.h5"}}),
               CollectiveError);
  EXPECT_NO_THROW(check_distinct_files(kWorld, {{"--input", a}, {"--resume", ""}},
                                       {{"--output", dir() + "/new.h5"}, {"--json", ""}}));
}

TEST(Parsers, MatrixMarketBannerTypoIsAnError) {
  EXPECT_THROW(
      parse_graph_text("%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 2 1\n", true),
      std::runtime_error);
  const auto e =
      parse_graph_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 3\n", true);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].u, 0);
  EXPECT_EQ(e[0].v, 1);
  EXPECT_EQ(e[0].w, 3.0);
  EXPECT_THROW(parse_graph_text("0 1\n2 x\n", false), std::runtime_error);
}

TEST(Parsers, AFirstPercentLineNamingMatrixMarketIsABanner) {
  EXPECT_TRUE(names_matrix_market("%%MatrixMarket matrix coordinate real general\n"));
  EXPECT_TRUE(names_matrix_market("%MatrixMarket matrix coordinate real general\n3 3 1\n"));
  EXPECT_TRUE(names_matrix_market("% MATRIXMARKET\n"));
  EXPECT_TRUE(names_matrix_market("%%MatrixMarkt matrix coordinate real general\n"));
  EXPECT_FALSE(names_matrix_market("% a comment\n% MatrixMarket on the second line\n"));
  EXPECT_FALSE(names_matrix_market("# MatrixMarket\n"));
  EXPECT_FALSE(names_matrix_market(""));
  EXPECT_THROW(parse_graph_text("%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n",
                                true),
               std::runtime_error);
}

TEST(Parsers, RawHeadersFromMemory) {
  const std::string head = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }\n";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(head.size());
  npy += '\0';
  npy += head;
  MemorySource s(npy.data(), npy.size());
  const RawArray a = parse_npy(s, "m.npy");
  EXPECT_EQ(a.elem, Elem::kF32);
  EXPECT_EQ(shape_string(a.shape), "(3, 2)");
  MemorySource cut(npy.data(), 20);
  EXPECT_THROW(parse_npy(cut, "m.npy"), std::runtime_error);
  const unsigned char idx[] = {0, 0, 8, 2, 0, 0, 0, 3, 0, 0};
  MemorySource t(idx, sizeof idx);
  EXPECT_THROW(parse_idx(t, "t-idx2-ubyte"), std::runtime_error);
}

// The ranks of one mpirun on this machine share one node: each rank's share is counted once.
TEST(Memory, NodeShareSumsTheRanksOfThisNode) {
  const int size = comm_size(kWorld), rank = comm_rank(kWorld);
  const NodeShare s = node_share(kWorld, 1000.0 * (rank + 1));
  EXPECT_EQ(s.ranks, size);
  EXPECT_EQ(s.bytes, 1000.0 * size * (size + 1) / 2);
  EXPECT_TRUE(std::isinf(node_share(kWorld, rank == size - 1 ? -1.0 : 1.0).bytes));
}

// Resident memory of this process in bytes (VmRSS).
double resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  double kb = -1;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> kb;
      break;
    }
  }
  return 1024 * kb;
}

// Freed large blocks leave the process, also blocks below the top of the heap (with mmap and
// trimming turned off, as libsuperlu_dist leaves them, the 64 MB stayed resident).
TEST(Memory, FreedLargeBlocksLeaveTheProcess) {
  restore_allocator_release();
  const double before = resident_bytes();
  ASSERT_GT(before, 0);
  std::vector<std::vector<char>> blocks;
  for (int b = 0; b < 8; ++b) blocks.emplace_back(std::size_t{8} << 20, static_cast<char>(b + 1));
  EXPECT_GE(resident_bytes(), before + 60e6);
  for (int b = 0; b < 7; ++b) std::vector<char>().swap(blocks[b]);  // the last one stays on top
  EXPECT_LE(resident_bytes(), before + 8e6 + 4e6);
}

// Settings the user gives in GLIBC_TUNABLES win over lsgl's: with mmap off and no trimming
// (glibc reads the variable at start-up only; restore_allocator_release applies it again), the
// freed blocks stay resident; without the variable they leave again.
TEST(Memory, AllocatorSettingsFromGlibcTunablesAreKept) {
  const char* saved = std::getenv("GLIBC_TUNABLES");
  const std::string old = saved ? saved : "";
  const auto freed_and_resident = [] {
    restore_allocator_release();
    const double before = resident_bytes();
    std::vector<std::vector<char>> blocks;
    for (int b = 0; b < 8; ++b) blocks.emplace_back(std::size_t{8} << 20, static_cast<char>(b + 1));
    for (int b = 0; b < 7; ++b) std::vector<char>().swap(blocks[b]);  // the last one on top
    return resident_bytes() - before;
  };
  setenv("GLIBC_TUNABLES",
         "glibc.malloc.check=0:glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=0x10000000000",
         1);
  const double kept = freed_and_resident();
  unsetenv("GLIBC_TUNABLES");
  const double released = freed_and_resident();
  if (saved) setenv("GLIBC_TUNABLES", old.c_str(), 1);
  restore_allocator_release();
  malloc_trim(0);
  EXPECT_GE(kept, 60e6);
  EXPECT_LE(released, 8e6 + 4e6);
}

// A need that fits one rank but not the ranks of one node together is refused on every rank;
// a negative (overflowed) or NaN need on the last rank only is refused on every rank.
TEST(Memory, CheckAllocationComparesTheNodeTotalWithTheNodeMemory) {
  const int size = comm_size(kWorld), rank = comm_rank(kWorld);
  const double have = static_cast<double>(physical_memory_bytes());
  EXPECT_NO_THROW(check_allocation(kWorld, have / (size + 1), "a fair share"));
  const double share = size == 1 ? 2 * have : 0.75 * have;  // fits one rank when size > 1
  EXPECT_THROW(check_allocation(kWorld, share, "three quarters each"), CollectiveError);
  for (double bad : {-8.0, std::nan("")}) {
    try {
      check_allocation(kWorld, rank == size - 1 ? bad : 1.0, "the last rank's");
      ADD_FAILURE() << "not refused";
    } catch (const CollectiveError& e) {
      EXPECT_NE(std::string(e.what()).find("the last rank's need"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
    }
  }
}

namespace {

// This rank's block of an n x d matrix of values uniform in [-1, 1] from a fixed generator (the
// same matrix on any number of ranks), times `scale` in float; the value (0, 0) is exactly
// `scale`, so the largest |value| is scale.
LocalRows scaled_rows(std::int64_t n, std::int64_t d, float scale) {
  const Partition part(n, comm_size(kWorld));
  LocalRows rows;
  rows.n = n;
  rows.d = d;
  rows.begin = part.begin(comm_rank(kWorld));
  SplitMix64 rng(11);
  for (std::int64_t i = 0; i < n * d; ++i) {
    const double u = 2.0 * rng.uniform() - 1.0;
    const float v = i == 0 ? scale : static_cast<float>(u * scale);
    if (i >= rows.begin * d && i < part.end(comm_rank(kWorld)) * d) rows.values().push_back(v);
  }
  return rows;
}

// The m nearest of every local row by brute force in long double, ties by index.
std::vector<std::int64_t> brute_force(const LocalRows& rows, int m) {
  std::vector<float> all(static_cast<std::size_t>(rows.n * rows.d));
  std::vector<int> counts(comm_size(kWorld)), offsets(comm_size(kWorld));
  const int mine = static_cast<int>(rows.size());
  MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, kWorld);
  for (int r = 1; r < comm_size(kWorld); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  MPI_Allgatherv(rows.data(), mine, MPI_FLOAT, all.data(), counts.data(), offsets.data(), MPI_FLOAT,
                 kWorld);
  std::vector<std::int64_t> out;
  for (std::int64_t i = rows.begin; i < rows.begin + rows.local_rows(); ++i) {
    std::vector<std::pair<long double, std::int64_t>> l;
    for (std::int64_t j = 0; j < rows.n; ++j) {
      if (j == i) continue;
      long double z = 0;
      for (std::int64_t t = 0; t < rows.d; ++t) {
        const long double diff = static_cast<long double>(all[i * rows.d + t]) -
                                 static_cast<long double>(all[j * rows.d + t]);
        z += diff * diff;
      }
      l.emplace_back(z, j);
    }
    std::sort(l.begin(), l.end());
    for (int t = 0; t < m; ++t) out.push_back(l[t].second);
  }
  return out;
}

}  // namespace

// The documented bounds: 4 d s^2 = FLT_EPSILON FLT_MAX and s^2 = FLT_MIN / FLT_EPSILON.
TEST(FloatRange, BoundsFollowFromTheFloatRange) {
  for (const std::int64_t d : {1, 5, 784, 100000}) {
    const double hi = single_precision_max_abs(d);
    EXPECT_NEAR(4.0 * static_cast<double>(d) * hi * hi / (double{FLT_EPSILON} * FLT_MAX), 1.0,
                1e-12)
        << d;
  }
  const double lo = single_precision_min_abs();
  EXPECT_NEAR(lo * lo * FLT_EPSILON / FLT_MIN, 1.0, 1e-12);
  EXPECT_GT(single_precision_max_abs(784), 1e14);
  EXPECT_LT(single_precision_max_abs(784), 1.2e14);
}

// Huge values (squared distances past float range) made Faiss's k-means abort; now every rank
// refuses them, and values too small for float squares, before any float distance, with the
// rescaling to do. At the bounds themselves the search gives the exact lists (partition route:
// Faiss's k-means, the cells' bounds, the exact engine), as does data of zeros.
TEST(FloatRange, CandidatesRefuseDataOutsideAndAreExactAtTheBounds) {
  const std::int64_t n = 120, d = 5;
  const int m = 4;
  AnnParams p;
  p.engine = AnnEngine::kExact;
  p.cells_per_rank = 4;
  const float hi = std::nextafter(static_cast<float>(single_precision_max_abs(d)), 0.0f);
  const float lo = std::nextafter(static_cast<float>(single_precision_min_abs()), FLT_MAX);
  ASSERT_LE(hi, single_precision_max_abs(d));
  ASSERT_GE(lo, single_precision_min_abs());
  for (const float scale : {1e30f, 1e19f, std::nextafter(hi, FLT_MAX), 1e-25f,
                            std::nextafter(lo, 0.0f)}) {
    const LocalRows rows = scaled_rows(n, d, scale);
    const std::string what = test::error_of([&] { find_candidates(kWorld, rows, m, p); });
    EXPECT_NE(what.find("candidates: the data's largest absolute value"), std::string::npos)
        << scale << ": " << what;
    EXPECT_NE(what.find(scale > 1 ? "divide it by 1e" : "multiply it by 1e"), std::string::npos)
        << what;
    Candidates cand;
    cand.m = m;
    cand.begin = rows.begin;
    cand.idx.assign(static_cast<std::size_t>(rows.local_rows() * m), 0);
    cand.dist.assign(cand.idx.size(), 0.0);
    EXPECT_NE(test::error_of([&] { estimate_recall(kWorld, rows, cand, 10, 1); }).find("rescale"),
              std::string::npos);
  }
  for (const float scale : {hi, lo, 1.0f, 0.0f}) {
    const LocalRows rows = scaled_rows(n, d, scale);
    for (const AnnRoute route : {AnnRoute::kPartition, AnnRoute::kRing}) {
      p.route = route;
      const Candidates c = find_candidates(kWorld, rows, m, p);
      EXPECT_EQ(c.idx, brute_force(rows, m)) << scale << " " << name_of(route);
      EXPECT_GE(estimate_recall(kWorld, rows, c, 10, 1), 1.0) << scale << " " << name_of(route);
    }
  }
}
