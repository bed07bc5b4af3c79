// libFuzzer target: candidate lists read from a file (lsgl/graph/candidates_file.hpp), both
// layouts. Two templates are written at start, a lists file (with padding, the node itself and
// a repeated neighbour) and a csr file; the input mutates a copy (fuzz_support) and picks the
// options. A file read must give, for every node, m distinct other nodes in range, sorted by
// (distance, id), with finite non-negative distances; anything else must be a CollectiveError.
#include <array>
#include <cmath>
#include <cstdlib>
#include <string>

#include "fuzz_support.hpp"
#include "lsgl/graph/candidates_file.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"

namespace {

using namespace lsgl;

struct Templates {
  std::string lists, csr;
  fuzz::Inventory lists_inv, csr_inv;
};

const Templates& templates() {
  static const Templates t = [] {
    Templates t;
    const std::int64_t n = 6, m = 4;
    std::vector<std::int64_t> ids;
    std::vector<double> dist;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t c = 0; c < m; ++c) {
        const std::int64_t j = c == 0 ? i : c == 3 ? -1 : (i + c) % n;  // self, padding
        ids.push_back(c == 2 && i == 0 ? 1 : j);                        // a repeat in row 0
        dist.push_back(0.5 * static_cast<double>(c));
      }
    t.lists = fuzz::scratch_dir() + "/lists.h5";
    {
      const h5::File f = h5::create(MPI_COMM_SELF, t.lists);
      h5::write_2d(f, "/indices", ids, 0, n, m);
      h5::write_2d(f, "/distances", dist, 0, n, m);
    }
    LocalCsr g;
    g.n = n;
    g.indptr = {0};
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j)
        if (j != i && (i + j) % 3 != 0) g.indices.push_back(j), g.data.push_back(1.0 + j);
      g.indptr.push_back(static_cast<std::int64_t>(g.indices.size()));
    }
    t.csr = fuzz::scratch_dir() + "/csr.h5";
    write_graph(MPI_COMM_SELF, t.csr, g, {}, {});
    t.lists_inv = fuzz::inventory(t.lists);
    t.csr_inv = fuzz::inventory(t.csr);
    return t;
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init_process(argc, argv);
  templates();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Templates& t = templates();
  fuzz::Input in(data, size);
  const bool csr = in.byte() & 1;
  CandidatesFileOptions o;
  o.distance = std::array<CandidateDistance, 3>{CandidateDistance::kSquared,
                                                CandidateDistance::kEuclidean,
                                                CandidateDistance::kCosine}[in.byte() % 3];
  o.max_m = static_cast<int>(in.byte() % 6);
  o.n = in.byte() % 4 == 0 ? in.integer() : 0;
  const std::string path = fuzz::scratch_dir() + "/in.h5";
  fuzz::mutate_copy(csr ? t.csr : t.lists, csr ? t.csr_inv : t.lists_inv, path, in);
  Candidates c;
  try {
    c = read_candidates_file(MPI_COMM_SELF, path, o, nullptr);
  } catch (const CollectiveError&) {
    return 0;
  }
  const std::int64_t n = c.local_rows();
  if (c.m < 1 || (o.max_m > 0 && c.m > o.max_m) || (o.n > 0 && n != o.n)) std::abort();
  for (std::int64_t r = 0; r < n; ++r)
    for (int k = 0; k < c.m; ++k) {
      const std::int64_t j = c.idx[r * c.m + k];
      const double z = c.dist[r * c.m + k];
      if (j < 0 || j >= n || j == r || !std::isfinite(z) || z < 0) std::abort();
      if (k > 0) {
        const std::int64_t pj = c.idx[r * c.m + k - 1];
        const double pz = c.dist[r * c.m + k - 1];
        if (pj == j || pz > z || (pz == z && pj > j)) std::abort();
      }
    }
  return 0;
}
