// libFuzzer target: the graph reader of `lsgl densest`, `eval` and `convert` on edge lists and
// Matrix Market files on disk, plain or gzip-compressed (lsgl/graph/graph_input.hpp; the text
// parsers alone are fuzz_graph_text). The first byte picks the --format, gzip, the symmetry
// policy and the duplicate rule; the rest is the file. A graph read must be a symmetric CSR
// matrix: rows sorted by strictly increasing column in [0, n), no self-loop, weights finite and
// > 0, each (i, j, w) mirrored by (j, i, w); anything else must be a CollectiveError. Inputs
// with a number of 7 or more digits are skipped: node ids above 10^6 only test the memory check
// (tests/cli/reliability_tests.py does).
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "fuzz_support.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/util/error.hpp"

namespace {

using namespace lsgl;

bool has_long_number(const std::string& s) {
  int run = 0;
  for (char c : s) {
    run = c >= '0' && c <= '9' ? run + 1 : 0;
    if (run >= 7) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  fuzz::init_process(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t choice = data[0];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (has_long_number(text)) return 0;
  GraphInputOptions o;
  o.format = std::array<GraphFormat, 3>{GraphFormat::kAuto, GraphFormat::kEdgeList,
                                       GraphFormat::kMtx}[choice % 3];
  const bool gz = choice & 4;
  o.symmetry = choice & 8 ? SymmetryPolicy::kRequire : SymmetryPolicy::kSymmetrise;
  o.duplicates = choice & 16 ? DuplicateRule::kMax : DuplicateRule::kSum;
  const std::string path = fuzz::scratch_dir() + (gz ? "/graph.txt.gz" : "/graph.txt");
  fuzz::write_file(path, text, gz);
  LocalCsr m;
  try {
    m = read_graph_input(MPI_COMM_SELF, path, o, nullptr);
  } catch (const CollectiveError&) {
    return 0;
  }
  std::map<std::pair<std::int64_t, std::int64_t>, double> entries;
  if (m.begin != 0 || m.n < 0 || static_cast<std::int64_t>(m.indptr.size()) != m.n + 1 ||
      m.indptr[0] != 0 || m.indptr.back() != static_cast<std::int64_t>(m.indices.size()) ||
      m.indices.size() != m.data.size())
    std::abort();
  for (std::int64_t r = 0; r < m.n; ++r)
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      const std::int64_t j = m.indices[e];
      const double w = m.data[e];
      if (e < m.indptr[r] || j < 0 || j >= m.n || j == r || !std::isfinite(w) || !(w > 0) ||
          (e > m.indptr[r] && j <= m.indices[e - 1]))
        std::abort();
      entries[{r, j}] = w;
    }
  for (const auto& [ij, w] : entries) {
    const auto mirror = entries.find({ij.second, ij.first});
    if (mirror == entries.end() || mirror->second != w) std::abort();
  }
  return 0;
}
