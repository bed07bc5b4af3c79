// The `require` symmetry policy for stored rows (see symmetry_check.hpp): validation, cleaning
// and the exact mirror check.
#include "lsgl/graph/symmetry_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

std::string row_message(const std::string& what, std::int64_t row, const std::string& text) {
  std::ostringstream s;
  s << "graph '" << what << "': row " << row << ": " << text;
  return s.str();
}

// Weight of entry (i, j) of local row r, or NaN when absent.
double find_entry(const LocalCsr& m, std::int64_t r, std::int64_t j) {
  const auto b = m.indices.begin() + m.indptr[r], e = m.indices.begin() + m.indptr[r + 1];
  const auto it = std::lower_bound(b, e, j);
  if (it == e || *it != j) return std::numeric_limits<double>::quiet_NaN();
  return m.data[it - m.indices.begin()];
}

// Collective. Array lengths, column range and order, finite non-negative weights.
void check_rows(MPI_Comm comm, const LocalCsr& m, const std::string& what) {
  const std::int64_t lo = m.begin, nl = m.local_rows();
  std::string problem;
  bool ok = m.indptr.size() >= 1 && m.indptr.front() == 0 &&
            m.indptr.back() == static_cast<std::int64_t>(m.indices.size()) &&
            m.indices.size() == m.data.size();
  if (!ok) problem = "graph '" + what + "': inconsistent /graph/indptr, indices and data lengths";
  for (std::int64_t r = 0; ok && r < nl; ++r) {
    if (m.indptr[r + 1] < m.indptr[r]) {
      ok = false;
      problem = row_message(what, lo + r, "decreasing indptr");
      break;
    }
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      const std::int64_t j = m.indices[e];
      const double w = m.data[e];
      if (j < 0 || j >= m.n) {
        problem = row_message(
            what, lo + r,
            "column index " + std::to_string(j) + " outside [0, " + std::to_string(m.n) + ")");
      } else if (e > m.indptr[r] && j <= m.indices[e - 1]) {
        problem = row_message(what, lo + r, "column indices not strictly increasing");
      } else if (!std::isfinite(w) || w < 0) {
        std::ostringstream s;
        s << "weight " << w << " at column " << j << " (weights must be finite and >= 0)";
        problem = row_message(what, lo + r, s.str());
      } else {
        continue;
      }
      ok = false;
      break;
    }
  }
  collective_check(comm, ok, problem);
}

// Local. Drops self loops and zeros from the rows, counting them.
GraphCleaning drop_loops_and_zeros(LocalCsr& m) {
  GraphCleaning c;
  const std::int64_t lo = m.begin, nl = m.local_rows();
  std::int64_t out = 0;
  std::vector<std::int64_t> ptr(nl + 1, 0);
  for (std::int64_t r = 0; r < nl; ++r) {
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      if (m.indices[e] == lo + r) {
        ++c.self_loops;
      } else if (m.data[e] == 0.0) {
        ++c.zeros;
      } else {
        m.indices[out] = m.indices[e];
        m.data[out] = m.data[e];
        ++out;
      }
    }
    ptr[r + 1] = out;
  }
  m.indptr = std::move(ptr);
  m.indices.resize(out);
  m.data.resize(out);
  return c;
}

// Collective. Every entry (i, j, w) has its mirror (j, i, w): local pairs directly, the others at
// the owner of the column.
void check_mirrors(MPI_Comm comm, const LocalCsr& m, const std::string& what) {
  const std::int64_t lo = m.begin, nl = m.local_rows();
  const Partition part = partition_of_blocks(comm, m.n, m.begin);
  struct Entry {
    std::int64_t row, col;  // the mirror (col, row) of a stored entry (row, col)
    double w;
  };
  std::vector<std::vector<Entry>> send(comm_size(comm));
  bool ok = true;
  std::string problem;
  for (std::int64_t r = 0; r < nl; ++r)
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      const std::int64_t j = m.indices[e];
      if (j >= lo && j < lo + nl) {
        if (ok && !(find_entry(m, j - lo, lo + r) == m.data[e])) {
          ok = false;
          problem = row_message(what, lo + r, "W is not symmetric at column " + std::to_string(j));
        }
      } else {
        send[part.owner(j)].push_back({j, lo + r, m.data[e]});
      }
    }
  for (const Entry& x : alltoallv(comm, send)) {
    if (!ok) break;
    if (!(find_entry(m, x.row - lo, x.col) == x.w)) {
      ok = false;
      problem = row_message(what, x.col, "W is not symmetric at column " + std::to_string(x.row));
    }
  }
  collective_check(comm, ok, problem);
}

}  // namespace

GraphCleaning check_and_clean_graph(MPI_Comm comm, LocalCsr& m, const std::string& what) {
  check_rows(comm, m, what);
  GraphCleaning c = drop_loops_and_zeros(m);
  check_mirrors(comm, m, what);
  std::int64_t counts[2] = {c.self_loops, c.zeros};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm);
  c.self_loops = counts[0];
  c.zeros = counts[1];
  return c;
}

}  // namespace lsgl
