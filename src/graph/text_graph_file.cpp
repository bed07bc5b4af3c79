// Reading graph files: the head (format detection) and text graphs in parallel (see
// text_graph_file.hpp).
#include "text_graph_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

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

// Reads [off, off + len) of `fd` and appends it to buf; returns the bytes read (fewer at the end
// of the file). Sets io_error on a read error.
std::int64_t append_range(int fd, std::int64_t off, std::int64_t len, std::string& buf,
                          std::string& io_error) {
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
  st.names.block = rank;
  const std::int64_t lo = tf.data_start + body * rank / size;
  const std::int64_t hi = tf.data_start + body * (rank + 1) / size;
  // Read [lo - 1, hi) and then until the end of the line that holds byte hi - 1.
  const std::int64_t from = lo > tf.data_start ? lo - 1 : lo;
  std::string buf;
  append_range(fd, from, hi - from, buf, io_error);
  std::int64_t end_off = hi;
  if (hi > lo) {
    while (buf.empty() || buf.back() != '\n') {
      // extend to the end of the last line
      const std::int64_t got = append_range(fd, end_off, 1 << 16, buf, io_error);
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
  if (start < static_cast<std::size_t>(hi - from))
    parse_lines(buf.data() + start, buf.data() + stop, tf, st);
}

// Every rank decompresses the whole file and parses the blocks b with b % size == rank. Blocks
// are cut at line ends after kBlock bytes, so the cut points do not depend on the rank count.
void parse_gz(MPI_Comm comm, const std::string& path, const TextFormat& tf, ParseState& st,
              std::string& io_error) {
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
        st.names.block = block;
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
  const int closed = gzclose(z);
  if (io_error.empty() && closed != Z_OK)
    io_error = closed == Z_BUF_ERROR ? "the gzip stream is truncated (unexpected end of file)"
                                     : "cannot close the gzip stream";
}

// Collective. The Matrix Market header parsed on rank 0 from `head`, on every rank.
TextFormat mtx_header(MPI_Comm comm, const std::string& path, const FileHead& head) {
  TextFormat tf;
  tf.mtx = true;
  std::string message;
  if (comm_rank(comm) == 0) message = parse_mtx_header(head.text, tf);
  collective_check(comm, message.empty(), "'" + path + "': " + message);
  std::int64_t h[6] = {tf.n, tf.nnz, tf.data_start, tf.header_lines, tf.pattern, tf.symmetric};
  MPI_Bcast(h, 6, MPI_INT64_T, 0, comm);
  tf.n = h[0];
  tf.nnz = h[1];
  tf.data_start = h[2];
  tf.header_lines = h[3];
  tf.pattern = h[4] != 0;
  tf.symmetric = h[5] != 0;
  return tf;
}

}  // namespace

FileHead read_file_head(const std::string& path, std::size_t limit) {
  FileHead h;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    h.error = std::strerror(errno);
    return h;
  }
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

namespace {

// Collective. Edge-list ids are used as given (n = largest id + 1); `entries` lines name at most
// 2 x entries distinct ids. Refuses n above 10 times that (plus 1000): the ids are then labels,
// not positions, and the graph would be mostly isolated nodes (a line "1000000000 2 1" asked
// for 10^9 nodes).
void check_id_range(MPI_Comm comm, const std::string& path, std::int64_t n, std::int64_t entries) {
  const std::int64_t edges = allreduce_sum(comm, entries);
  collective_check(comm, edges == 0 || n <= 20 * edges + 1000,
                   "'" + path + "': node ids up to " + std::to_string(n - 1) + ", but its " +
                       std::to_string(edges) + " edges name at most " +
                       std::to_string(2 * edges) + " distinct nodes; ids are node positions " +
                       "0..n-1: give --renumber to number the ids densely");
}

// Collective. The edge list's header line, found on rank 0 in `head`: tf.data_start and
// tf.header_lines past it on every rank, or left at 0. Returns whether there is one.
bool skip_header(MPI_Comm comm, const FileHead& head, TextFormat& tf) {
  std::int64_t h[2] = {0, 0};
  if (comm_rank(comm) == 0) h[0] = edge_list_header_end(head.text, tf.renumber, h[1]);
  MPI_Bcast(h, 2, MPI_INT64_T, 0, comm);
  if (h[0] == 0) return false;
  tf.data_start = h[0];
  tf.header_lines = h[1];
  return true;
}

}  // namespace

TextEntries read_text_entries(MPI_Comm comm, const std::string& path, const FileHead& head,
                              bool mtx, bool gz, bool renumber, const std::string& hint) {
  TextFormat tf = mtx ? mtx_header(comm, path, head) : TextFormat();
  tf.renumber = renumber && !mtx;
  const bool header = !mtx && skip_header(comm, head, tf);
  ParseState st;
  std::string io_error;
  if (gz)
    parse_gz(comm, path, tf, st, io_error);
  else
    parse_plain(comm, path, tf, st, io_error);
  collective_check(comm, io_error.empty(), "cannot read graph '" + path + "': " + io_error);
  // Line numbers: plain files need the lines of the ranks before.
  const std::int64_t before = gz ? 0 : exscan_sum(comm, st.lines);
  const std::int64_t line = gz ? st.bad_line : tf.header_lines + before + st.bad_line + 1;
  collective_check(comm, st.ok,
                   "'" + path + "' line " + std::to_string(line) + ": " + st.message + hint);
  TextEntries out;
  if (tf.mtx) {
    const std::int64_t got = allreduce_sum(comm, static_cast<std::int64_t>(st.out.size()));
    collective_check(comm, got == tf.nnz,
                     "'" + path + "': the size line announces " + std::to_string(tf.nnz) +
                         " entries but " + std::to_string(got) + " were read");
    out.n = tf.n;
  } else if (tf.renumber) {
    out.renumbering = renumber_names(comm, st.names, st.out);
    out.n = out.renumbering.n;
  } else {
    out.n = allreduce_max(comm, st.max_id) + 1;
    check_id_range(comm, path, out.n, static_cast<std::int64_t>(st.out.size()));
  }
  collective_check(comm, out.n >= 1, "'" + path + "' holds no edges");
  check_allocation(comm, (Partition(out.n, comm_size(comm)).count(comm_rank(comm)) + 1) * 24,
                   "'" + path + "': node ids up to " + std::to_string(out.n - 1) +
                       " (ids are used as given, n = largest id + 1)");
  out.entries = std::move(st.out);
  out.declared_symmetric = tf.symmetric;
  out.header = header;
  return out;
}

}  // namespace lsgl
