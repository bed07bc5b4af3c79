// Graph validation (range, order, finiteness, symmetry) and degree statistics.
#include "lsgl/eval/graph_stats.hpp"

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

}  // namespace

GraphCleaning check_and_clean_graph(MPI_Comm comm, LocalCsr& m, const std::string& what) {
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

  // Clean: drop self loops and zeros.
  GraphCleaning c;
  {
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
  }

  // Symmetry: local pairs directly, the others at the owner of the column.
  const Partition part(m.n, comm_size(comm));
  struct Entry {
    std::int64_t row, col;  // the mirror (col, row) of a stored entry (row, col)
    double w;
  };
  std::vector<std::vector<Entry>> send(comm_size(comm));
  ok = true;
  problem.clear();
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
  std::int64_t counts[2] = {c.self_loops, c.zeros};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm);
  c.self_loops = counts[0];
  c.zeros = counts[1];
  return c;
}

GraphStats graph_stats(MPI_Comm comm, const LocalCsr& m) {
  GraphStats s;
  s.n = m.n;
  const std::int64_t nl = m.local_rows();
  std::int64_t imin = std::numeric_limits<std::int64_t>::max(), imax = 0;
  double wmin = std::numeric_limits<double>::infinity(), wmax = 0, wsum = 0;
  std::int64_t counts[2] = {static_cast<std::int64_t>(m.indices.size()), 0};  // nnz, isolated
  for (std::int64_t r = 0; r < nl; ++r) {
    const std::int64_t deg = m.indptr[r + 1] - m.indptr[r];
    double wd = 0;
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) wd += m.data[e];
    imin = std::min(imin, deg);
    imax = std::max(imax, deg);
    wmin = std::min(wmin, wd);
    wmax = std::max(wmax, wd);
    wsum += wd;
    if (deg == 0) ++counts[1];
  }
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &imin, 1, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &imax, 1, MPI_INT64_T, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &wmin, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &wmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &wsum, 1, MPI_DOUBLE, MPI_SUM, comm);
  s.nnz = counts[0];
  s.edges = s.nnz / 2;
  s.isolated = counts[1];
  s.degree_min = imin;
  s.degree_max = imax;
  s.weighted_degree_min = wmin;
  s.weighted_degree_max = wmax;
  s.weighted_degree_mean = wsum / static_cast<double>(m.n);
  s.total_weight = wsum / 2;
  s.avg_degree = static_cast<double>(s.nnz) / static_cast<double>(m.n);
  return s;
}

}  // namespace lsgl
