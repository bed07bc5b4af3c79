// Graph readers for HDF5, edge lists and Matrix Market, with one normalisation (see
// graph_input.hpp).
#include "lsgl/graph/graph_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <sstream>
#include <type_traits>

#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

std::string fmt_count(std::int64_t v) { return std::to_string(v); }

// ----------------------------------------------------------------------------- normalisation


}  // namespace

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
      MPI_Irecv(out.data() + off[p] + at,
                static_cast<int>(std::min(kChunk, rc[p] - at) * static_cast<std::int64_t>(sizeof(T))),
                MPI_BYTE, p, static_cast<int>(tag), comm, &req.back());
    }
  for (int p = 0; p < size; ++p)
    for (std::int64_t at = 0, tag = 0; at < sc[p]; at += kChunk, ++tag) {
      req.emplace_back();
      MPI_Isend(send[p].data() + at,
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

}  // namespace

LocalCsr symmetrize_entries(MPI_Comm comm, std::int64_t n, std::vector<DirectedEntry> entries,
                            DuplicateRule rule, GraphInputReport* report) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const Partition part(n, size);
  collective_check(comm, part.count(0) < (std::int64_t(1) << 32), "too many nodes per rank");
  std::int64_t counts[6] = {0, 0, 0, 0, 0, 0};  // entries, loops, zeros, dups, one_dir, unequal
  counts[0] = static_cast<std::int64_t>(entries.size());
  int unit = 1;  // every weight is 1: the compact path without weights
  for (const auto& e : entries)
    if (e.w != 1.0 && e.w != 0.0) {
      unit = 0;
      break;
    }
  MPI_Allreduce(MPI_IN_PLACE, &unit, 1, MPI_INT, MPI_MIN, comm);
  std::vector<std::int64_t> per(size, 0);
  for (const auto& e : entries)
    if (e.u != e.v && e.w != 0.0) {
      ++per[part.owner(e.u)];
      ++per[part.owner(e.v)];
    }
  const std::int64_t lo = part.begin(rank), rows = part.count(rank);
  // Received records sorted by local row (counting sort), then each row by column key.
  std::vector<std::int64_t> start(rows + 1, 0);
  std::vector<std::uint64_t> keys;
  std::vector<double> ws;
  auto route = [&](auto rec_tag) {
    using R = decltype(rec_tag);
    std::vector<std::vector<R>> send(size);
    for (int p = 0; p < size; ++p) send[p].reserve(static_cast<std::size_t>(per[p]));
    for (const auto& e : entries) {
      if (e.u == e.v) {
        ++counts[1];
        continue;
      }
      if (e.w == 0.0) {
        ++counts[2];
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
    for (const auto& r : recv) ++start[r.lrow + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    keys.resize(recv.size());
    if constexpr (std::is_same_v<R, RecW>) ws.resize(recv.size());
    std::vector<std::int64_t> at(start.begin(), start.end() - 1);
    for (const auto& r : recv) {
      const std::int64_t pos = at[r.lrow]++;
      keys[pos] = r.colkey;
      if constexpr (std::is_same_v<R, RecW>) ws[pos] = r.w;
    }
  };
  if (unit)
    route(RecU{});
  else
    route(RecW{});

  LocalCsr m;
  m.n = n;
  m.begin = lo;
  m.indptr.assign(rows + 1, 0);
  m.indices.reserve(keys.size() / 2 + 1);
  m.data.reserve(keys.size() / 2 + 1);
  bool weighted = false;
  std::vector<std::pair<std::uint64_t, double>> tmp;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t b = start[r], e = start[r + 1];
    if (unit) {
      std::sort(keys.begin() + b, keys.begin() + e);
    } else {
      tmp.clear();
      for (std::int64_t t = b; t < e; ++t) tmp.push_back({keys[t], ws[t]});
      std::sort(tmp.begin(), tmp.end());
      for (std::int64_t t = b; t < e; ++t) {
        keys[t] = tmp[t - b].first;
        ws[t] = tmp[t - b].second;
      }
    }
    const std::int64_t row = lo + r;
    for (std::int64_t t = b; t < e;) {
      const std::uint64_t col = keys[t] >> 1;
      double a[2] = {0.0, 0.0};
      std::int64_t c[2] = {0, 0};
      for (; t < e && (keys[t] >> 1) == col; ++t) {
        const int dir = static_cast<int>(keys[t] & 1u);
        const double w = unit ? 1.0 : ws[t];
        a[dir] = c[dir] == 0 ? w
                 : rule == DuplicateRule::kSum ? a[dir] + w
                                               : std::max(a[dir], w);
        ++c[dir];
      }
      if (c[0] > 1) counts[3] += c[0] - 1;
      const auto j = static_cast<std::int64_t>(col);
      if (row < j) {
        if (c[0] == 0 || c[1] == 0)
          ++counts[4];
        else if (a[0] != a[1])
          ++counts[5];
      }
      const double v = std::max(a[0], a[1]);
      if (v != 1.0) weighted = true;
      m.indices.push_back(j);
      m.data.push_back(v);
    }
    m.indptr[r + 1] = static_cast<std::int64_t>(m.indices.size());
  }
  MPI_Allreduce(MPI_IN_PLACE, counts, 6, MPI_INT64_T, MPI_SUM, comm);
  int w = weighted ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_INT, MPI_MAX, comm);
  if (report) {
    report->n = n;
    report->entries = counts[0];
    report->self_loops = counts[1];
    report->zero_weights = counts[2];
    report->duplicates = counts[3];
    report->one_direction = counts[4];
    report->unequal = counts[5];
    report->edges = allreduce_sum(comm, static_cast<std::int64_t>(m.indices.size())) / 2;
    report->weighted = w != 0;
  }
  return m;
}

LocalCsr normalize_rows(MPI_Comm comm, LocalCsr m, DuplicateRule rule, GraphInputReport* report) {
  const int size = comm_size(comm);
  const Partition part(m.n, size);
  const std::int64_t lo = m.begin, rows = m.local_rows();
  // Validity (collective): structure, ids, weights.
  std::string message;
  bool clean = true;  // sorted strictly, no diagonal, no zeros
  bool weighted = false;
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

  // Symmetry without moving the entries: for every pair of ranks (p, q), the multiset of the
  // entries (i, j, w) of rows of p and columns of q must equal the multiset of the transposed
  // entries (j, i, w) of rows of q and columns of p. Each rank hashes both multisets with two
  // independent 64-bit hashes summed over the entries (order-independent) plus a count; the
  // P x P tables are all-gathered and compared. A mismatch (or, with probability ~2^-128, a
  // collision missing one) sends the rows through the exact normalisation below.
  std::int64_t mismatches = 0;
  int any_unclean = clean ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &any_unclean, 1, MPI_INT, MPI_MAX, comm);
  if (!any_unclean) {
    auto mix = [](std::uint64_t z) {
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      return z ^ (z >> 31);
    };
    auto h = [&](std::int64_t i, std::int64_t j, double w, std::uint64_t salt) {
      std::uint64_t wb;
      std::memcpy(&wb, &w, sizeof wb);
      return mix(mix(mix(static_cast<std::uint64_t>(i) ^ salt) + static_cast<std::uint64_t>(j)) ^ wb);
    };
    // Per peer q: forward (count, h1, h2), transposed (count, h1, h2).
    std::vector<std::uint64_t> mine(static_cast<std::size_t>(size) * 6, 0);
    for (std::int64_t r = 0; r < rows; ++r) {
      const std::int64_t i = lo + r;
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
          mismatches = 1;
      }
  }
  int flags[2] = {clean ? 0 : 1, weighted ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, comm);
  const std::int64_t nnz = allreduce_sum(comm, static_cast<std::int64_t>(m.indices.size()));
  if (flags[0] == 0 && mismatches == 0) {
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
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e)
      entries.push_back({lo + r, m.indices[e], m.data[e]});
  const std::int64_t n = m.n;
  m = LocalCsr();
  return symmetrize_entries(comm, n, std::move(entries), rule, report);
}

// ------------------------------------------------------------------------------ text parsing

namespace {


// Reads the first bytes of a file (decompressing gzip). Used for sniffing and headers.
struct Head {
  bool exists = false;
  std::string error;
  bool gz = false;
  bool hdf5 = false;
  std::string text;  // up to `limit` decompressed bytes
};

// The HDF5 signature, at byte 0 or after a user block (at 512, 1024, 2048, ... bytes).
bool has_hdf5_signature(std::FILE* f) {
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  for (long off = 0; off <= (1L << 30); off = off == 0 ? 512 : 2 * off) {
    unsigned char b[8];
    if (std::fseek(f, off, SEEK_SET) != 0 || std::fread(b, 1, 8, f) != 8) return false;
    if (std::memcmp(b, sig, 8) == 0) return true;
  }
  return false;
}

// zlib's verdict on a stream read to its end: empty when it ended cleanly, else why not (a gzip
// stream cut short or corrupted).
std::string gz_end_error(gzFile z) {
  int code = Z_OK;
  const char* text = gzerror(z, &code);
  if (code == Z_BUF_ERROR) return "the gzip stream is truncated (unexpected end of file)";
  if (code != Z_OK) return std::string("decompression failed: ") + text;
  return "";
}

Head read_head(const std::string& path, std::size_t limit) {
  Head h;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    h.error = std::strerror(errno);
    return h;
  }
  h.exists = true;
  unsigned char magic[8] = {0};
  const std::size_t got = std::fread(magic, 1, 8, f);
  h.hdf5 = has_hdf5_signature(f);
  std::fclose(f);
  if (h.hdf5) return h;
  h.gz = got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  gzFile z = gzopen(path.c_str(), "rb");  // reads plain files too
  if (!z) {
    h.error = "cannot open";
    return h;
  }
  h.text.resize(limit);
  const int n = gzread(z, &h.text[0], static_cast<unsigned>(limit));
  gzclose(z);
  if (n < 0) {
    h.error = "cannot decompress";
    h.text.clear();
    return h;
  }
  h.text.resize(static_cast<std::size_t>(n));
  return h;
}


// Parses this rank's byte range of an uncompressed file.
void parse_plain(MPI_Comm comm, const std::string& path, const TextFormat& tf, ParseState& st,
                 std::string& io_error) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    io_error = std::strerror(errno);
    return;
  }
  struct stat sb {};
  fstat(fd, &sb);
  const std::int64_t fsize = sb.st_size, body = std::max<std::int64_t>(fsize - tf.data_start, 0);
  const std::int64_t lo = tf.data_start + body * rank / size;
  const std::int64_t hi = tf.data_start + body * (rank + 1) / size;
  // Read [lo - 1, hi) and then until the end of the line that holds byte hi - 1.
  const std::int64_t from = lo > tf.data_start ? lo - 1 : lo;
  std::string buf;
  auto read_at = [&](std::int64_t off, std::int64_t len) {
    const std::size_t old = buf.size();
    buf.resize(old + static_cast<std::size_t>(len));
    std::int64_t done = 0;
    while (done < len) {
      const ssize_t r = ::pread(fd, &buf[old + done], static_cast<std::size_t>(len - done),
                                off + done);
      if (r < 0) {
        io_error = std::strerror(errno);
        break;
      }
      if (r == 0) break;
      done += r;
    }
    buf.resize(old + static_cast<std::size_t>(done));
    return done;
  };
  read_at(from, hi - from);
  std::int64_t end_off = hi;
  if (hi > lo) {
    while (buf.empty() || buf.back() != '\n') {
      // extend to the end of the last line
      const std::int64_t got = read_at(end_off, 1 << 16);
      if (got <= 0) break;
      const std::size_t nl = buf.find('\n', buf.size() - static_cast<std::size_t>(got));
      end_off += got;
      if (nl != std::string::npos) {
        buf.resize(nl + 1);
        break;
      }
    }
  }
  ::close(fd);
  if (!io_error.empty() || hi <= lo) return;
  std::size_t start = 0;
  if (lo > tf.data_start) {  // buf[0] is byte lo - 1
    if (buf[0] == '\n') {
      start = 1;
    } else {
      const std::size_t nl = buf.find('\n');
      start = nl == std::string::npos ? buf.size() : nl + 1;
    }
  }
  // Lines starting before hi: everything from start (we cut after the line holding hi - 1).
  const std::size_t stop = buf.size();
  if (start < static_cast<std::size_t>(hi - from)) parse_lines(buf.data() + start, buf.data() + stop, tf, st);
}

// Every rank decompresses the whole file and parses the blocks b with b % size == rank. Blocks
// are cut at line ends after kBlock bytes, so the cut points do not depend on the rank count.
void parse_gz(MPI_Comm comm, const std::string& path, const TextFormat& tf, ParseState& st,
              std::string& io_error, std::int64_t& first_line_of_error) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  constexpr std::size_t kBlock = std::size_t(8) << 20;
  gzFile z = gzopen(path.c_str(), "rb");
  if (!z) {
    io_error = "cannot open";
    return;
  }
  gzbuffer(z, 1 << 20);
  std::string buf;
  std::int64_t skip = tf.data_start;
  std::int64_t block = 0, line_no = tf.header_lines;  // lines before the current block
  std::vector<char> chunk(1 << 22);
  bool eof = false;
  while (true) {
    if (!eof) {
      const int n = gzread(z, chunk.data(), static_cast<unsigned>(chunk.size()));
      if (n < 0) {
        int errnum = 0;
        io_error = std::string("decompression failed: ") + gzerror(z, &errnum);
        break;
      }
      if (n == 0) {
        eof = true;
        io_error = gz_end_error(z);
        if (!io_error.empty()) break;
      }
      std::size_t off = 0;
      if (skip > 0) {
        off = static_cast<std::size_t>(std::min<std::int64_t>(skip, n));
        skip -= static_cast<std::int64_t>(off);
      }
      buf.append(chunk.data() + off, static_cast<std::size_t>(n) - off);
    }
    while (true) {  // cut every complete block
      std::size_t cut = 0;
      if (buf.size() > kBlock) {
        const std::size_t nl = buf.find('\n', kBlock);
        if (nl != std::string::npos) cut = nl + 1;
      }
      if (cut == 0 && eof) cut = buf.size();
      if (cut == 0) break;
      const std::int64_t lines_in_block =
          std::count(buf.data(), buf.data() + cut, '\n') + (buf[cut - 1] != '\n' ? 1 : 0);
      if (block % size == rank && st.ok) {
        const std::int64_t before = st.lines;
        parse_lines(buf.data(), buf.data() + cut, tf, st);
        if (!st.ok) st.bad_line = line_no + (st.bad_line - before) + 1;
        st.lines = before + lines_in_block;
      }
      line_no += lines_in_block;
      buf.erase(0, cut);
      ++block;
    }
    if (eof) break;
  }
  (void)first_line_of_error;
  const int closed = gzclose(z);
  if (io_error.empty() && closed != Z_OK)
    io_error = closed == Z_BUF_ERROR ? "the gzip stream is truncated (unexpected end of file)"
                                     : "cannot close the gzip stream";
}

}  // namespace

LocalCsr read_graph_input(MPI_Comm comm, const std::string& path, const GraphInputOptions& opt,
                          GraphInputReport* report) {
  const int rank = comm_rank(comm);
  GraphInputReport rep;
  // Sniff (rank 0) and agree on the format.
  int kind = 0;  // 1 hdf5, 2 edgelist, 3 mtx
  int gz = 0;
  std::string message;
  Head head;
  if (rank == 0) {
    head = read_head(path, 1 << 20);
    if (!head.exists) {
      message = "cannot read graph '" + path + "': " + head.error;
    } else if (!head.error.empty()) {
      message = "cannot read graph '" + path + "': " + head.error;
    } else {
      // A first line starting with "%%" is a Matrix Market banner (a misspelt one is an
      // error), never a comment.
      const bool looks_mtx = head.text.rfind("%%", 0) == 0;
      const std::string& f = opt.format;
      if (f == "hdf5") kind = 1;
      else if (f == "edgelist") kind = 2;
      else if (f == "mtx") kind = 3;
      else if (f == "auto") kind = head.hdf5 ? 1 : looks_mtx ? 3 : 2;
      else message = "unknown --format '" + f + "' (auto, hdf5, edgelist or mtx)";
      if (message.empty() && kind == 1 && !head.hdf5)
        message = "'" + path + "' is not an HDF5 file";
      if (message.empty() && kind != 1 && head.hdf5)
        message = "'" + path + "' is an HDF5 file, not a text graph";
      gz = head.gz ? 1 : 0;
    }
  }
  collective_check(comm, message.empty(), message);
  int info[2] = {kind, gz};
  MPI_Bcast(info, 2, MPI_INT, 0, comm);
  kind = info[0];
  gz = info[1];

  LocalCsr rows;
  if (kind == 1) {
    rep.format = "hdf5";
    rows = read_graph(comm, path);
    rows = normalize_rows(comm, std::move(rows), opt.duplicates, &rep);
    rep.format = "hdf5";
  } else {
    TextFormat tf;
    tf.mtx = kind == 3;
    if (tf.mtx) {
      if (rank == 0) message = parse_mtx_header(head.text, tf);
      collective_check(comm, message.empty(), "'" + path + "': " + message);
      std::int64_t h[6] = {tf.n, tf.nnz, tf.data_start, tf.header_lines, tf.pattern,
                           tf.symmetric};
      MPI_Bcast(h, 6, MPI_INT64_T, 0, comm);
      tf.n = h[0];
      tf.nnz = h[1];
      tf.data_start = h[2];
      tf.header_lines = h[3];
      tf.pattern = h[4] != 0;
      tf.symmetric = h[5] != 0;
    }
    ParseState st;
    std::string io_error;
    std::int64_t gz_error_line = 0;
    if (gz)
      parse_gz(comm, path, tf, st, io_error, gz_error_line);
    else
      parse_plain(comm, path, tf, st, io_error);
    collective_check(comm, io_error.empty(), "cannot read graph '" + path + "': " + io_error);
    // Line numbers: plain files need the lines of the ranks before.
    const std::int64_t before = gz ? 0 : exscan_sum(comm, st.lines);
    int bad = st.ok ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm);
    if (bad) {
      const std::int64_t line =
          gz ? st.bad_line : tf.header_lines + before + st.bad_line + 1;
      collective_check(comm, st.ok,
                       "'" + path + "' line " + std::to_string(line) + ": " + st.message);
    }
    std::int64_t n = 0;
    if (tf.mtx) {
      const std::int64_t got = allreduce_sum(comm, static_cast<std::int64_t>(st.out.size()));
      collective_check(comm, got == tf.nnz,
                       "'" + path + "': the size line announces " + fmt_count(tf.nnz) +
                           " entries but " + fmt_count(got) + " were read");
      n = tf.n;
    } else {
      n = allreduce_max(comm, st.max_id) + 1;
    }
    collective_check(comm, n >= 1, "'" + path + "' holds no edges");
    check_allocation(comm, (Partition(n, comm_size(comm)).count(rank) + 1) * 24,
                     "'" + path + "': node ids up to " + fmt_count(n - 1) +
                         " (ids are used as given, n = largest id + 1)");
    rows = symmetrize_entries(comm, n, std::move(st.out), opt.duplicates, &rep);
    rep.declared_symmetric = tf.symmetric;
    rep.format = std::string(tf.mtx ? "mtx" : "edgelist") + (gz ? ".gz" : "");
  }
  if (report) *report = rep;
  return rows;
}

}  // namespace lsgl
