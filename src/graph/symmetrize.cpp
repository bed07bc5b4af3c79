// The symmetrisation of graph input (see symmetrize.hpp): directed entries routed to the owners
// of both endpoints, merged per pair; and the check that HDF5 rows need none.
#include "lsgl/graph/symmetrize.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>
#include <type_traits>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl {

std::string GraphInputReport::note() const {
  std::ostringstream s;
  bool any = false;
  auto sep = [&] {
    if (any) s << "; ";
    any = true;
  };
  if (!symmetric() && !declared_symmetric) {
    sep();
    if (one_direction > 0 && one_direction == edges && unequal == 0)
      s << "input not symmetric: every edge listed in one direction only (read as undirected)";
    else
      s << "input not symmetric: " << one_direction << " of " << edges
        << " pairs listed in one direction only, " << unequal
        << " with different weights in the two directions (W_ij = max of the two)";
  }
  if (self_loops > 0) {
    sep();
    s << self_loops << " self-loops dropped";
  }
  if (zero_weights > 0) {
    sep();
    s << zero_weights << " zero weights dropped";
  }
  if (duplicates > 0) {
    sep();
    s << duplicates << " repeated entries merged";
  }
  if (header) {
    sep();
    s << "header line skipped";
  }
  if (renumbered) {
    sep();
    s << "node names numbered 0.." << n - 1 << " in order of first appearance";
  }
  return s.str();
}

namespace {

// Personalised all-to-all straight into a typed buffer (counts in elements, messages in chunks
// below 2^30 bytes).
template <class T>
std::vector<T> exchange(MPI_Comm comm, std::vector<std::vector<T>>& send) {
  const int size = comm_size(comm);
  std::vector<std::int64_t> sc(size), rc(size);
  for (int p = 0; p < size; ++p) sc[p] = static_cast<std::int64_t>(send[p].size());
  MPI_Alltoall(sc.data(), 1, MPI_INT64_T, rc.data(), 1, MPI_INT64_T, comm);
  std::vector<std::int64_t> off(size + 1, 0);
  for (int p = 0; p < size; ++p) off[p + 1] = off[p] + rc[p];
  std::vector<T> out(static_cast<std::size_t>(off[size]));
  constexpr std::int64_t kChunk = (std::int64_t(1) << 30) / static_cast<std::int64_t>(sizeof(T));
  std::vector<MPI_Request> req;
  for (int p = 0; p < size; ++p)
    for (std::int64_t at = 0, tag = 0; at < rc[p]; at += kChunk, ++tag) {
      req.emplace_back();
      MPI_Irecv(
          out.data() + off[p] + at,
          static_cast<int>(std::min(kChunk, rc[p] - at) * static_cast<std::int64_t>(sizeof(T))),
          MPI_BYTE, p, static_cast<int>(tag), comm, &req.back());
    }
  for (int p = 0; p < size; ++p)
    for (std::int64_t at = 0, tag = 0; at < sc[p]; at += kChunk, ++tag) {
      req.emplace_back();
      MPI_Isend(
          send[p].data() + at,
          static_cast<int>(std::min(kChunk, sc[p] - at) * static_cast<std::int64_t>(sizeof(T))),
          MPI_BYTE, p, static_cast<int>(tag), comm, &req.back());
    }
  MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
  for (auto& v : send) std::vector<T>().swap(v);
  return out;
}

// Records sent to the owner of `row`: (column << 1) | direction, the row local to the
// receiver, and the weight (weighted inputs only).
#pragma pack(push, 4)
struct RecU {
  std::uint64_t colkey;
  std::uint32_t lrow;
};
struct RecW {
  std::uint64_t colkey;
  double w;
  std::uint32_t lrow;
};
#pragma pack(pop)

// Counts summed over the ranks at the end.
enum Count { kEntries, kLoops, kZeros, kDups, kOneDir, kUnequal, kCounts };

// The records received by this rank, grouped by local row: row r holds [start[r], start[r+1])
// of keys (and of ws when weighted).
struct RoutedRows {
  std::vector<std::int64_t> start;
  std::vector<std::uint64_t> keys;
  std::vector<double> ws;
};

// Collective. Sends every entry (u, v) that is no self-loop and no zero to the owners of u (as
// direction 0) and of v (as direction 1); empties `entries`.
template <class R>
RoutedRows route_entries(MPI_Comm comm, const Partition& part,
                         std::vector<DirectedEntry>& entries, std::int64_t* counts) {
  const int size = comm_size(comm);
  std::vector<std::int64_t> per(size, 0);
  for (const auto& e : entries)
    if (e.u != e.v && e.w != 0.0) {
      ++per[part.owner(e.u)];
      ++per[part.owner(e.v)];
    }
  std::vector<std::vector<R>> send(size);
  for (int p = 0; p < size; ++p) send[p].reserve(static_cast<std::size_t>(per[p]));
  for (const auto& e : entries) {
    if (e.u == e.v || e.w == 0.0) {
      ++counts[e.u == e.v ? kLoops : kZeros];
      continue;
    }
    const int pu = part.owner(e.u), pv = part.owner(e.v);
    R a{}, b{};
    a.colkey = static_cast<std::uint64_t>(e.v) << 1;
    a.lrow = static_cast<std::uint32_t>(e.u - part.begin(pu));
    b.colkey = (static_cast<std::uint64_t>(e.u) << 1) | 1u;
    b.lrow = static_cast<std::uint32_t>(e.v - part.begin(pv));
    if constexpr (std::is_same_v<R, RecW>) {
      a.w = e.w;
      b.w = e.w;
    }
    send[pu].push_back(a);
    send[pv].push_back(b);
  }
  std::vector<DirectedEntry>().swap(entries);
  const std::vector<R> recv = exchange(comm, send);
  // Received records sorted by local row (counting sort).
  RoutedRows out;
  out.start.assign(static_cast<std::size_t>(part.count(comm_rank(comm))) + 1, 0);
  for (const auto& r : recv) ++out.start[r.lrow + 1];
  std::partial_sum(out.start.begin(), out.start.end(), out.start.begin());
  out.keys.resize(recv.size());
  if constexpr (std::is_same_v<R, RecW>) out.ws.resize(recv.size());
  std::vector<std::int64_t> at(out.start.begin(), out.start.end() - 1);
  for (const auto& r : recv) {
    const std::int64_t pos = at[r.lrow]++;
    out.keys[pos] = r.colkey;
    if constexpr (std::is_same_v<R, RecW>) out.ws[pos] = r.w;
  }
  return out;
}

// Sorts the records of one row by column key (weights alongside when weighted).
void sort_row(RoutedRows& rr, std::int64_t b, std::int64_t e,
              std::vector<std::pair<std::uint64_t, double>>& tmp) {
  if (rr.ws.empty()) {
    std::sort(rr.keys.begin() + b, rr.keys.begin() + e);
    return;
  }
  tmp.clear();
  for (std::int64_t t = b; t < e; ++t) tmp.push_back({rr.keys[t], rr.ws[t]});
  std::sort(tmp.begin(), tmp.end());
  for (std::int64_t t = b; t < e; ++t) {
    rr.keys[t] = tmp[t - b].first;
    rr.ws[t] = tmp[t - b].second;
  }
}

// The first pair of this rank listed both ways with different weights.
struct Unequal {
  std::int64_t i = -1, j = -1;
  double a_ij = 0, a_ji = 0;
};

// Local. The rows from the routed records: per column, the weights of each direction merged by
// the rule, then W_ij = max of the two directions. Counts duplicates, one-direction and unequal
// pairs (each pair once, at its smaller endpoint's row).
LocalCsr merge_rows(RoutedRows& rr, std::int64_t n, std::int64_t lo, DuplicateRule rule,
                    std::int64_t* counts, Unequal& first, bool& weighted) {
  const std::int64_t rows = static_cast<std::int64_t>(rr.start.size()) - 1;
  LocalCsr m;
  m.n = n;
  m.begin = lo;
  m.indptr.assign(rows + 1, 0);
  m.indices.reserve(rr.keys.size() / 2 + 1);
  m.data.reserve(rr.keys.size() / 2 + 1);
  std::vector<std::pair<std::uint64_t, double>> tmp;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t b = rr.start[r], e = rr.start[r + 1];
    sort_row(rr, b, e, tmp);
    const std::int64_t row = lo + r;
    for (std::int64_t t = b; t < e;) {
      const std::uint64_t col = rr.keys[t] >> 1;
      double a[2] = {0.0, 0.0};
      std::int64_t c[2] = {0, 0};
      for (; t < e && (rr.keys[t] >> 1) == col; ++t) {
        const int dir = static_cast<int>(rr.keys[t] & 1u);
        const double w = rr.ws.empty() ? 1.0 : rr.ws[t];
        a[dir] = c[dir] == 0 ? w
                 : rule == DuplicateRule::kSum ? a[dir] + w
                                               : std::max(a[dir], w);
        ++c[dir];
      }
      if (c[0] > 1) counts[kDups] += c[0] - 1;
      const auto j = static_cast<std::int64_t>(col);
      if (row < j) {
        if (c[0] == 0 || c[1] == 0) {
          ++counts[kOneDir];
        } else if (a[0] != a[1]) {
          if (counts[kUnequal]++ == 0) first = {row, j, a[0], a[1]};
        }
      }
      const double v = std::max(a[0], a[1]);
      if (v != 1.0) weighted = true;
      m.indices.push_back(j);
      m.data.push_back(v);
    }
    m.indptr[r + 1] = static_cast<std::int64_t>(m.indices.size());
  }
  return m;
}

// Collective. The unequal pair of the lowest rank that has one, as text (empty when none).
std::string first_unequal_text(MPI_Comm comm, const Unequal& mine) {
  for (const Unequal& u : allgather_items(comm, std::vector<Unequal>{mine}))
    if (u.i >= 0) {
      std::ostringstream s;
      s << "(" << u.i << ", " << u.j << ") has weight " << u.a_ij << " and (" << u.j << ", "
        << u.i << ") has weight " << u.a_ji;
      return s.str();
    }
  return "";
}

}  // namespace

LocalCsr symmetrize_entries(MPI_Comm comm, std::int64_t n, std::vector<DirectedEntry> entries,
                            DuplicateRule rule, GraphInputReport* report) {
  const Partition part(n, comm_size(comm));
  collective_check(comm, part.count(0) < (std::int64_t(1) << 32), "too many nodes per rank");
  std::int64_t counts[kCounts] = {static_cast<std::int64_t>(entries.size()), 0, 0, 0, 0, 0};
  int unit = 1;  // every weight is 1: the compact path without weights
  for (const auto& e : entries)
    if (e.w != 1.0 && e.w != 0.0) {
      unit = 0;
      break;
    }
  MPI_Allreduce(MPI_IN_PLACE, &unit, 1, MPI_INT, MPI_MIN, comm);
  RoutedRows rr = unit ? route_entries<RecU>(comm, part, entries, counts)
                       : route_entries<RecW>(comm, part, entries, counts);
  Unequal first;
  bool weighted = false;
  LocalCsr m = merge_rows(rr, n, part.begin(comm_rank(comm)), rule, counts, first, weighted);
  MPI_Allreduce(MPI_IN_PLACE, counts, kCounts, MPI_INT64_T, MPI_SUM, comm);
  int w = weighted ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_INT, MPI_MAX, comm);
  const std::string unequal = counts[kUnequal] > 0 ? first_unequal_text(comm, first) : "";
  if (report) {
    report->n = n;
    report->entries = counts[kEntries];
    report->self_loops = counts[kLoops];
    report->zero_weights = counts[kZeros];
    report->duplicates = counts[kDups];
    report->one_direction = counts[kOneDir];
    report->unequal = counts[kUnequal];
    report->first_unequal = unequal;
    report->edges = allreduce_sum(comm, static_cast<std::int64_t>(m.indices.size())) / 2;
    report->weighted = w != 0;
  }
  return m;
}

namespace {

// Collective. Refuses rows with malformed arrays, an id out of range or a weight that is
// negative, NaN or infinite. Sets `clean` (columns strictly increasing, no diagonal, no zeros)
// and `weighted` (a weight differs from 1) for this rank.
void validate_rows(MPI_Comm comm, const LocalCsr& m, bool& clean, bool& weighted) {
  const std::int64_t lo = m.begin, rows = m.local_rows();
  std::string message;
  clean = true;
  weighted = false;
  if (m.indptr.empty() || m.indptr.front() != 0 ||
      m.indptr.back() != static_cast<std::int64_t>(m.indices.size()) ||
      m.data.size() != m.indices.size())
    message = "malformed CSR arrays";
  for (std::int64_t r = 0; r < rows && message.empty(); ++r) {
    if (m.indptr[r + 1] < m.indptr[r]) {
      message = "indptr decreases at row " + std::to_string(lo + r);
      break;
    }
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      const std::int64_t j = m.indices[e];
      const double w = m.data[e];
      if (j < 0 || j >= m.n) {
        message = "column index " + std::to_string(j) + " out of range in row " +
                  std::to_string(lo + r);
        break;
      }
      if (!std::isfinite(w)) {
        message = "weight is NaN or infinite at (" + std::to_string(lo + r) + ", " +
                  std::to_string(j) + ")";
        break;
      }
      if (w < 0) {
        std::ostringstream s;
        s << "negative weight " << w << " at (" << lo + r << ", " << j << ")";
        message = s.str();
        break;
      }
      if (w != 1.0) weighted = true;
      if (j == lo + r || w == 0.0 || (e > m.indptr[r] && m.indices[e - 1] >= j)) clean = false;
    }
  }
  collective_check(comm, message.empty(), message);
}

// Collective. Whether clean rows are symmetric, without moving the entries: for every pair of
// ranks (p, q), the multiset of the entries (i, j, w) of rows of p and columns of q must equal
// the multiset of the transposed entries (j, i, w) of rows of q and columns of p. Each rank
// hashes both multisets with two independent 64-bit hashes summed over the entries
// (order-independent) plus a count; the P x P tables are all-gathered and compared. A collision
// hides a mismatch with probability ~2^-128.
bool symmetric_by_hash(MPI_Comm comm, const LocalCsr& m) {
  const int size = comm_size(comm);
  const Partition part = partition_of_blocks(comm, m.n, m.begin);
  auto h = [&](std::int64_t i, std::int64_t j, double w, std::uint64_t salt) {
    std::uint64_t wb;
    std::memcpy(&wb, &w, sizeof wb);
    return mix64(
        mix64(mix64(static_cast<std::uint64_t>(i) ^ salt) + static_cast<std::uint64_t>(j)) ^ wb);
  };
  // Per peer q: forward (count, h1, h2), transposed (count, h1, h2).
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(size) * 6, 0);
  for (std::int64_t r = 0; r < m.local_rows(); ++r) {
    const std::int64_t i = m.begin + r;
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      const std::int64_t j = m.indices[e];
      const double w = m.data[e];
      std::uint64_t* t = &mine[static_cast<std::size_t>(part.owner(j)) * 6];
      t[0] += 1;
      t[1] += h(i, j, w, 0x1234567ULL);
      t[2] += h(i, j, w, 0x9abcdef0ULL);
      t[3] += 1;
      t[4] += h(j, i, w, 0x1234567ULL);
      t[5] += h(j, i, w, 0x9abcdef0ULL);
    }
  }
  std::vector<std::uint64_t> all(mine.size() * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(),
                static_cast<int>(mine.size()), MPI_UINT64_T, comm);
  for (int p = 0; p < size; ++p)
    for (int q = 0; q < size; ++q) {
      const std::uint64_t* fwd_q_p = &all[(static_cast<std::size_t>(q) * size + p) * 6];
      const std::uint64_t* tr_p_q = &all[(static_cast<std::size_t>(p) * size + q) * 6 + 3];
      if (fwd_q_p[0] != tr_p_q[0] || fwd_q_p[1] != tr_p_q[1] || fwd_q_p[2] != tr_p_q[2])
        return false;
    }
  return true;
}

}  // namespace

LocalCsr normalize_rows(MPI_Comm comm, LocalCsr m, DuplicateRule rule, GraphInputReport* report) {
  bool clean = true, weighted = false;
  validate_rows(comm, m, clean, weighted);
  int flags[2] = {clean ? 0 : 1, weighted ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, comm);
  // A mismatch (or, with probability ~2^-128, a collision missing one) sends the rows through
  // the exact normalisation below.
  if (flags[0] == 0 && symmetric_by_hash(comm, m)) {
    const std::int64_t nnz = allreduce_sum(comm, static_cast<std::int64_t>(m.indices.size()));
    if (report) {
      report->n = m.n;
      report->entries = nnz;
      report->edges = nnz / 2;
      report->weighted = flags[1] != 0;
    }
    return m;
  }
  std::vector<DirectedEntry> entries;
  entries.reserve(m.indices.size());
  for (std::int64_t r = 0; r < m.local_rows(); ++r)
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e)
      entries.push_back({m.begin + r, m.indices[e], m.data[e]});
  const std::int64_t n = m.n;
  m = LocalCsr();
  return symmetrize_entries(comm, n, std::move(entries), rule, report);
}

}  // namespace lsgl
