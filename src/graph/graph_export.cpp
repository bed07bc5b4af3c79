// Text exports of a graph: Matrix Market and weighted edge lists (see graph_export.hpp).
#include "lsgl/graph/graph_export.hpp"

#include <charconv>
#include <string>

#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/gzip.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/parallel_file.hpp"

namespace lsgl {

namespace {

void append_number(std::string& out, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Shortest text that reads back to the same double.
void append_number(std::string& out, double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// Local. One line "a b w" per stored entry (i, j) of this rank's rows with keep(i, j), ids
// shifted by `base` (1 for Matrix Market); `count` gets the number of lines.
template <class Keep>
std::string entry_lines(const LocalCsr& m, std::int64_t base, Keep keep, std::int64_t* count) {
  std::string out;
  *count = 0;
  for (std::int64_t r = 0; r < m.local_rows(); ++r) {
    const std::int64_t i = m.begin + r;
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      if (!keep(i, m.indices[e])) continue;
      append_number(out, i + base);
      out += ' ';
      append_number(out, m.indices[e] + base);
      out += ' ';
      append_number(out, m.data[e]);
      out += '\n';
      ++*count;
    }
  }
  return out;
}

// Collective. Writes rank 0's `header` followed by every rank's `lines` in rank order; for a
// name ending in .gz, each rank's text as one gzip member (none for a rank without lines).
void write_text_graph(MPI_Comm comm, const std::string& path, const std::string& header,
                      std::string lines) {
  if (comm_rank(comm) == 0) lines.insert(0, header);
  if (gzip_output(path) && !lines.empty()) lines = gzip_member(lines);
  write_atomically(comm, path, [&](const std::string& tmp) {
    write_in_rank_order(comm, tmp, std::move(lines), path);
  });
}

}  // namespace

void write_graph_mtx(MPI_Comm comm, const std::string& path, const LocalCsr& m) {
  std::int64_t count = 0;
  std::string lines = entry_lines(
      m, 1, [](std::int64_t i, std::int64_t j) { return i >= j; }, &count);
  const std::int64_t total = allreduce_sum(comm, count);
  const std::string header =
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "% lsgl graph: the lower triangle of the symmetric W\n" +
      std::to_string(m.n) + " " + std::to_string(m.n) + " " + std::to_string(total) + "\n";
  write_text_graph(comm, path, header, std::move(lines));
}

void write_graph_edgelist(MPI_Comm comm, const std::string& path, const LocalCsr& m) {
  std::int64_t count = 0;
  std::string lines = entry_lines(
      m, 0, [](std::int64_t i, std::int64_t j) { return i < j; }, &count);
  const std::int64_t total = allreduce_sum(comm, count);
  const std::string header = "# lsgl graph: " + std::to_string(m.n) + " nodes, " +
                             std::to_string(total) +
                             " undirected edges, one per line 'u v w' (u < v, 0-based ids)\n";
  write_text_graph(comm, path, header, std::move(lines));
}

}  // namespace lsgl
