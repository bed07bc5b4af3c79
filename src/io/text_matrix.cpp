// Text data matrices (see text_matrix.hpp).
#include "lsgl/io/text_matrix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

using std::int64_t;

std::string quoted(const std::string& path) { return "'" + path + "'"; }

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The lines of a file from a byte offset: an uncompressed file read with pread (any offset), a
// gzip file through zlib (from the start only).
class LineReader {
 public:
  LineReader(const std::string& path, bool gz, int64_t offset) : path_(path), pos_(offset) {
    errno = 0;
    if (gz) {
      gz_ = gzopen(path.c_str(), "rb");
      if (!gz_) throw std::runtime_error("cannot open " + quoted(path) + ": " + errno_text());
      gzbuffer(gz_, 1 << 20);
    } else {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) throw std::runtime_error("cannot open " + quoted(path) + ": " + errno_text());
    }
    file_at_ = offset;
  }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;
  ~LineReader() {
    if (gz_) gzclose(gz_);
    if (fd_ >= 0) ::close(fd_);
  }

  // The next line [b, e) (without its newline and a '\r' before it) and the byte offset where
  // it starts; false at the end of the file.
  bool next(const char*& b, const char*& e, int64_t& offset) {
    for (;;) {
      const char* start = buf_.data() + at_;
      const auto* nl = static_cast<const char*>(std::memchr(start, '\n', buf_.size() - at_));
      if (nl || (eof_ && at_ < buf_.size())) {
        const char* end = nl ? nl : buf_.data() + buf_.size();
        b = start;
        e = end > b && end[-1] == '\r' ? end - 1 : end;
        offset = pos_;
        const int64_t used = (end - start) + (nl ? 1 : 0);
        pos_ += used;
        at_ += static_cast<std::size_t>(used);
        return true;
      }
      if (eof_) return false;
      refill();
    }
  }

  // The offset of the next line.
  int64_t position() const { return pos_; }

 private:
  static std::string errno_text() { return errno ? std::strerror(errno) : "out of memory"; }

  void refill() {
    constexpr int kChunk = 1 << 20;
    buf_.erase(0, at_);
    at_ = 0;
    const std::size_t old = buf_.size();
    buf_.resize(old + kChunk);
    int64_t got = 0;
    if (gz_) {
      got = gzread(gz_, &buf_[old], kChunk);
      int code = Z_OK;
      const char* text = gzerror(gz_, &code);
      if (got < 0 || (code != Z_OK && code != Z_BUF_ERROR))
        throw std::runtime_error("cannot read " + quoted(path_) + ": " + text);
      if (got == 0 && code == Z_BUF_ERROR)
        throw std::runtime_error(quoted(path_) + ": the gzip stream is truncated");
    } else {
      const ssize_t r = ::pread(fd_, &buf_[old], kChunk, file_at_);
      if (r < 0) throw std::runtime_error("cannot read " + quoted(path_) + ": " + errno_text());
      got = r;
      file_at_ += r;
    }
    buf_.resize(old + static_cast<std::size_t>(got));
    if (got == 0) eof_ = true;
  }

  std::string path_;
  gzFile gz_ = nullptr;
  int fd_ = -1;
  int64_t file_at_ = 0;  // uncompressed file: the offset of the next read
  int64_t pos_ = 0;      // the offset of buf_[at_]
  std::string buf_;
  std::size_t at_ = 0;
  bool eof_ = false;
};

bool is_gzip(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + quoted(path) + ": " + std::strerror(errno));
  unsigned char m[2] = {0, 0};
  const bool gz = ::pread(fd, m, 2, 0) == 2 && m[0] == 0x1f && m[1] == 0x8b;
  ::close(fd);
  return gz;
}

// The cells of a line split by `sep` (all of them: empty cells too), blanks trimmed.
std::vector<std::string> split_cells(const char* b, const char* e, Separator sep) {
  std::vector<std::string> cells;
  if (sep == Separator::kBlanks) {
    for (const char* p = b; p < e;) {
      while (p < e && blank(*p)) ++p;
      const char* q = p;
      while (q < e && !blank(*q)) ++q;
      if (q > p) cells.emplace_back(p, q);
      p = q;
    }
    return cells;
  }
  const char c = sep == Separator::kComma ? ',' : '\t';
  for (const char* p = b;;) {
    const char* q = std::find(p, e, c);
    const char* s = p;
    const char* t = q;
    while (s < t && blank(*s)) ++s;
    while (t > s && blank(t[-1])) --t;
    cells.emplace_back(s, t);
    if (q == e) break;
    p = q + 1;
  }
  return cells;
}

// A number cell as a double; false when the whole cell is not a number.
bool to_number(const std::string& cell, double& v) {
  const char* b = cell.data();
  const char* e = b + cell.size();
  if (b < e && *b == '+') ++b;
  if (b == e || *b == '+') return false;
  const auto r = std::from_chars(b, e, v);
  return r.ec != std::errc::invalid_argument && r.ptr == e;
}

Separator separator_of(const char* b, const char* e) {
  if (std::find(b, e, ',') != e) return Separator::kComma;
  if (std::find(b, e, '\t') != e) return Separator::kTab;
  return Separator::kBlanks;
}

// Whether the first significant line's cells are column names: a cell that is text (not empty,
// not a number), the names 0, 1, ..., d-1 pandas writes for an unnamed DataFrame, or an empty
// first cell before names (pandas' index column; refused by the caller).
bool is_header(const std::vector<std::string>& cells) {
  double v = 0;
  bool range = cells.size() >= 2, index = cells.size() >= 2 && cells[0].empty();
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (!cells[c].empty() && !to_number(cells[c], v)) return true;
    range = range && cells[c] == std::to_string(c);
    index = index && (c == 0 || !cells[c].empty());
  }
  return range || index;
}

std::string line_at(const std::string& path, int64_t line) {
  return quoted(path) + " line " + std::to_string(line);
}

}  // namespace

bool skipped_line(const char* b, const char* e) {
  while (b < e && blank(*b)) ++b;
  return b == e || *b == '#';
}

std::string parse_text_row(const char* b, const char* e, const TextMatrixLayout& layout,
                           std::vector<float>& out) {
  const std::vector<std::string> cells = split_cells(b, e, layout.separator);
  if (static_cast<int64_t>(cells.size()) != layout.d)
    return std::to_string(cells.size()) + " values; the first row has " +
           std::to_string(layout.d);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const std::string col = "column " + std::to_string(c + 1) + ": ";
    double v = 0;
    if (cells[c].empty()) return col + "empty cell";
    if (!to_number(cells[c], v)) return col + "'" + cells[c] + "' is not a number";
    if (std::isnan(v)) return col + "NaN (every value must be finite)";
    if (std::isinf(v) || std::fabs(v) > std::numeric_limits<float>::max())
      return col + cells[c] + " is not a finite float32 (|x| <= 3.4e38)";
    out.push_back(static_cast<float>(v));
  }
  return "";
}

TextMatrixLayout text_matrix_layout(const std::string& head, const std::string& path) {
  TextMatrixLayout layout;
  std::vector<std::pair<int64_t, int64_t>> lines;  // [begin, end) of the significant lines
  std::vector<int64_t> numbers;                     // their 1-based line numbers
  int64_t number = 0;
  for (std::size_t at = 0; at < head.size() && lines.size() < 2;) {
    std::size_t nl = head.find('\n', at);
    const std::size_t end = nl == std::string::npos ? head.size() : nl;
    ++number;
    std::size_t e = end;
    if (e > at && head[e - 1] == '\r') --e;
    if (!skipped_line(head.data() + at, head.data() + e)) {
      lines.emplace_back(at, e);
      numbers.push_back(number);
    }
    at = end + 1;
  }
  if (lines.empty()) throw std::runtime_error(quoted(path) + " has no data lines");
  const char* h = head.data();
  auto cells_of = [&](std::size_t k, Separator sep) {
    return split_cells(h + lines[k].first, h + lines[k].second, sep);
  };
  const std::vector<std::string> first =
      cells_of(0, separator_of(h + lines[0].first, h + lines[0].second));
  layout.header = is_header(first);
  const std::size_t data = layout.header ? 1 : 0;
  if (data >= lines.size())
    throw std::runtime_error(quoted(path) + " has a header line and no data lines");
  layout.separator = separator_of(h + lines[data].first, h + lines[data].second);
  layout.d = static_cast<int64_t>(cells_of(data, layout.separator).size());
  if (layout.d == 0) throw std::runtime_error(line_at(path, numbers[data]) + ": no values");
  if (!layout.header) return layout;
  const std::vector<std::string> names = cells_of(0, layout.separator);
  if (names.size() > 1 && names[0].empty())
    throw std::runtime_error(line_at(path, numbers[0]) + ": the header's first cell is empty, " +
                             "as pandas writes for its index column: write the file with " +
                             "DataFrame.to_csv(index=False)");
  if (static_cast<int64_t>(names.size()) != layout.d)
    throw std::runtime_error(line_at(path, numbers[0]) + ": the header names " +
                             std::to_string(names.size()) + " columns, line " +
                             std::to_string(numbers[1]) + " has " + std::to_string(layout.d) +
                             " values (a first line that is not all numbers is a header)");
  const std::size_t nl = head.find('\n', static_cast<std::size_t>(lines[0].second));
  layout.data_start = nl == std::string::npos ? static_cast<int64_t>(head.size())
                                              : static_cast<int64_t>(nl) + 1;
  layout.data_line = numbers[0] + 1;
  return layout;
}

namespace {

// Rank 0: the file's bytes through its second significant line (or its end), as they are (line
// ends included, so that offsets in it are offsets in the file).
std::string read_head(const std::string& path, bool gz) {
  int64_t length = 0;
  {
    LineReader r(path, gz, 0);
    const char* b = nullptr;
    const char* e = nullptr;
    int64_t offset = 0;
    for (int significant = 0; significant < 2 && r.next(b, e, offset);)
      if (!skipped_line(b, e)) ++significant;
    length = r.position();
  }
  gzFile z = gzopen(path.c_str(), "rb");  // reads uncompressed files as they are
  if (!z) throw std::runtime_error("cannot open " + quoted(path));
  std::string head(static_cast<std::size_t>(length), '\0');
  int64_t done = 0;
  while (done < length) {
    const int got = gzread(z, &head[done], static_cast<unsigned>(std::min<int64_t>(
                                              length - done, int64_t(1) << 30)));
    if (got <= 0) break;
    done += got;
  }
  gzclose(z);
  head.resize(static_cast<std::size_t>(done));
  return head;
}

// Counts of the lines starting in a byte range: all of them and the data lines.
struct RangeCount {
  int64_t lines = 0;
  int64_t rows = 0;
};

// Calls f(b, e, offset, is_data) for each line starting in [lo, hi) (lo a line start or not) of
// an uncompressed file, until f returns false.
template <class F>
void for_lines_in_range(const std::string& path, int64_t lo, int64_t hi, int64_t data_start,
                        F f) {
  if (hi <= lo) return;
  LineReader r(path, false, lo > data_start ? lo - 1 : lo);
  const char* b = nullptr;
  const char* e = nullptr;
  int64_t offset = 0;
  if (lo > data_start && !r.next(b, e, offset)) return;  // the line holding byte lo - 1
  while (r.next(b, e, offset) && offset < hi)
    if (!f(b, e, offset, !skipped_line(b, e))) return;
}

// Parses `count` data rows from `r` (positioned at a line start numbered `line`), skipping the
// first `skip` data rows.
void parse_rows(LineReader& r, int64_t line, int64_t skip, int64_t count,
                const TextMatrixLayout& layout, const std::string& path, std::vector<float>& out) {
  out.reserve(static_cast<std::size_t>(count * layout.d));
  const char* b = nullptr;
  const char* e = nullptr;
  int64_t offset = 0;
  for (int64_t done = 0; done < count; ++line) {
    if (!r.next(b, e, offset))
      throw std::runtime_error(quoted(path) + " changed while it was read (fewer lines)");
    if (skipped_line(b, e)) continue;
    if (skip > 0) {
      --skip;
      continue;
    }
    const std::string err = parse_text_row(b, e, layout, out);
    if (!err.empty()) throw std::runtime_error(line_at(path, line) + ": " + err);
    ++done;
  }
}

// Collective. An uncompressed file: the rows per byte range, then each rank's rows.
LocalRows read_plain(MPI_Comm comm, const std::string& path, const TextMatrixLayout& layout) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  int64_t fsize = 0;
  RangeCount mine;
  int64_t lo = 0, hi = 0;
  collectively(comm, [&] {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
      throw std::runtime_error("cannot read " + quoted(path) + ": " + std::strerror(errno));
    fsize = st.st_size;
    const int64_t body = std::max<int64_t>(fsize - layout.data_start, 0);
    lo = layout.data_start + body * rank / size;
    hi = layout.data_start + body * (rank + 1) / size;
    for_lines_in_range(path, lo, hi, layout.data_start,
                       [&](const char*, const char*, int64_t, bool data) {
                         ++mine.lines;
                         mine.rows += data ? 1 : 0;
                         return true;
                       });
  });
  const std::vector<RangeCount> counts = allgather_items(comm, std::vector<RangeCount>{mine});
  int64_t n = 0, first_row = 0, first_line = layout.data_line;
  for (int q = 0; q < size; ++q) {
    if (q < rank) first_row += counts[q].rows, first_line += counts[q].lines;
    n += counts[q].rows;
  }
  collective_check(comm, n > 0, quoted(path) + " has no data rows (n = 0)");
  // Where each rank's block of rows starts: found by the rank whose range holds that row.
  const Partition part(n, size);
  std::vector<int64_t> where(2 * static_cast<std::size_t>(size), -1);  // offset, line number
  collectively(comm, [&] {
    int64_t row = first_row, line = first_line;
    int q = 0;
    while (q < size && part.begin(q) < first_row) ++q;
    for_lines_in_range(path, lo, hi, layout.data_start,
                       [&](const char*, const char*, int64_t offset, bool data) {
                         while (q < size && data && part.begin(q) == row) {
                           if (part.count(q) > 0) where[2 * q] = offset, where[2 * q + 1] = line;
                           ++q;
                         }
                         row += data ? 1 : 0;
                         ++line;
                         return q < size && part.begin(q) < first_row + mine.rows;
                       });
  });
  MPI_Allreduce(MPI_IN_PLACE, where.data(), 2 * size, MPI_INT64_T, MPI_MAX, comm);
  LocalRows out;
  out.n = n;
  out.d = layout.d;
  out.begin = part.begin(rank);
  collectively(comm, [&] {
    if (part.count(rank) == 0) return;
    LineReader r(path, false, where[2 * rank]);
    parse_rows(r, where[2 * rank + 1], 0, part.count(rank), layout, path, out.values());
  });
  return out;
}

// Collective. A gzip file: rank 0 counts the rows, every rank parses its own from the start.
LocalRows read_gz(MPI_Comm comm, const std::string& path, const TextMatrixLayout& layout) {
  int64_t n = 0;
  collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    LineReader r(path, true, 0);
    const char* b = nullptr;
    const char* e = nullptr;
    int64_t offset = 0;
    while (r.next(b, e, offset))
      if (offset >= layout.data_start && !skipped_line(b, e)) ++n;
  });
  MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm);
  collective_check(comm, n > 0, quoted(path) + " has no data rows (n = 0)");
  const Partition part(n, comm_size(comm));
  LocalRows out;
  out.n = n;
  out.d = layout.d;
  out.begin = part.begin(comm_rank(comm));
  collectively(comm, [&] {
    const int64_t count = part.count(comm_rank(comm));
    if (count == 0) return;
    LineReader r(path, true, 0);
    const char* b = nullptr;
    const char* e = nullptr;
    int64_t offset = 0;
    for (int64_t line = 1; line < layout.data_line; ++line) r.next(b, e, offset);
    parse_rows(r, layout.data_line, out.begin, count, layout, path, out.values());
  });
  return out;
}

}  // namespace

LocalRows read_text_matrix(MPI_Comm comm, const std::string& path) {
  TextMatrixLayout layout;
  bool gz = false;
  collectively(comm, [&] {
    gz = is_gzip(path);
    if (comm_rank(comm) == 0) layout = text_matrix_layout(read_head(path, gz), path);
  });
  std::int64_t info[5] = {static_cast<int64_t>(layout.separator), layout.d, layout.header ? 1 : 0,
                          layout.data_start, layout.data_line};
  MPI_Bcast(info, 5, MPI_INT64_T, 0, comm);
  layout = {static_cast<Separator>(info[0]), info[1], info[2] != 0, info[3], info[4]};
  return gz ? read_gz(comm, path, layout) : read_plain(comm, path, layout);
}

}  // namespace lsgl
