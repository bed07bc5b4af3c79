// Reading the data matrix and labels (see dataset.hpp). HDF5 goes through lsgl::h5 (collective
// MPI-IO); .npy and IDX files are read by every rank on its own through zlib (which also reads
// plain files), each rank parsing the header and seeking to its rows. All rank-local work runs
// inside lsgl::collectively, so any failure reaches every rank as a CollectiveError.
#include "lsgl/io/dataset.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              ".npy readers assume a little-endian host");
static_assert(sizeof(z_off_t) >= 8, "zlib needs 64-bit offsets for large files");

namespace lsgl {
namespace {

using std::int64_t;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string quoted(const std::string& path) { return "'" + path + "'"; }

// Element types of raw (.npy / IDX) arrays; `other` = present in the file but unsupported.
enum class Elem { u8, i32, i64, f32, f64, other };

std::size_t elem_bytes(Elem e) {
  switch (e) {
    case Elem::u8:
      return 1;
    case Elem::i32:
    case Elem::f32:
      return 4;
    case Elem::i64:
    case Elem::f64:
      return 8;
    case Elem::other:
      break;
  }
  return 0;
}

// A raw array after a header: element type (and its name in the file), shape, and the byte
// offset of element 0.
struct RawArray {
  Elem elem = Elem::other;
  std::string type;  // "'<f4'" for .npy, "0x08 (unsigned byte)" for IDX
  std::vector<int64_t> shape;
  int64_t data_offset = 0;
};

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// Product of shape[1:], i.e. the row length; throws when it overflows.
int64_t row_length(const std::vector<int64_t>& shape, const std::string& path) {
  int64_t d = 1;
  for (std::size_t i = 1; i < shape.size(); ++i) {
    if (shape[i] != 0 && d > std::numeric_limits<int64_t>::max() / shape[i])
      throw std::runtime_error(quoted(path) + ": shape " + shape_string(shape) + " is too large");
    d *= shape[i];
  }
  return d;
}

// A file read through zlib: gzip-compressed and plain files alike.
class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {
    errno = 0;
    f_ = gzopen(path.c_str(), "rb");
    if (!f_) {
      throw std::runtime_error("cannot open " + quoted(path) + ": " +
                               (errno ? std::strerror(errno) : "out of memory"));
    }
    gzbuffer(f_, 1 << 20);
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  ~Reader() { gzclose(f_); }

  // Reads exactly `bytes` bytes; false when the file ends first.
  bool read(void* buf, int64_t bytes) {
    auto* p = static_cast<char*>(buf);
    while (bytes > 0) {
      const auto chunk = static_cast<unsigned>(std::min<int64_t>(bytes, 1 << 30));
      const int got = gzread(f_, p, chunk);
      if (got < 0) {
        int code = 0;
        throw std::runtime_error("cannot read " + quoted(path_) + ": " + gzerror(f_, &code));
      }
      if (got == 0) return false;
      p += got;
      bytes -= got;
    }
    return true;
  }

  // Positions at byte `offset` of the (uncompressed) content; false when that is impossible.
  bool seek(int64_t offset) { return gzseek(f_, static_cast<z_off_t>(offset), SEEK_SET) >= 0; }

 private:
  std::string path_;
  gzFile f_ = nullptr;
};

// Value of key `key` in the Python dict literal of a .npy header: a quoted string, a
// parenthesised tuple (with the parentheses) or a bare word (True / False).
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  std::size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) at = header.find("\"" + key + "\"");
  const std::string bad = quoted(path) + ": malformed .npy header (no '" + key + "')";
  if (at == std::string::npos) throw std::runtime_error(bad);
  at = header.find(':', at + key.size() + 2);
  if (at == std::string::npos) throw std::runtime_error(bad);
  at = header.find_first_not_of(" \t", at + 1);
  if (at == std::string::npos) throw std::runtime_error(bad);
  std::size_t end;
  if (header[at] == '\'' || header[at] == '"') {
    end = header.find(header[at], at + 1);
    if (end == std::string::npos) throw std::runtime_error(bad);
    return header.substr(at + 1, end - at - 1);
  }
  if (header[at] == '(') {
    end = header.find(')', at);
    if (end == std::string::npos) throw std::runtime_error(bad);
    return header.substr(at, end - at + 1);
  }
  end = at;
  while (end < header.size() && std::isalnum(static_cast<unsigned char>(header[end]))) ++end;
  return header.substr(at, end - at);
}

// Parses "(3, 4)", "(5,)" or "()" (Python 2 files may write "3L").
std::vector<int64_t> parse_shape(const std::string& tuple, const std::string& path) {
  std::vector<int64_t> shape;
  std::size_t at = 1;
  while (at < tuple.size()) {
    const std::size_t end = std::min(tuple.find(',', at), tuple.size() - 1);
    std::string item = tuple.substr(at, end - at);
    item.erase(std::remove_if(
                   item.begin(), item.end(),
                   [](char c) { return std::isspace(static_cast<unsigned char>(c)) || c == 'L'; }),
               item.end());
    if (!item.empty()) {
      if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 18)
        throw std::runtime_error(quoted(path) + ": malformed .npy shape " + tuple);
      shape.push_back(std::stoll(item));
    }
    at = end + 1;
  }
  return shape;
}

RawArray parse_npy(Reader& r, const std::string& path) {
  unsigned char pre[8];
  if (!r.read(pre, 8) || std::memcmp(pre, "\x93NUMPY", 6) != 0)
    throw std::runtime_error(quoted(path) + " is not a NumPy .npy file");
  const int major = pre[6];
  int64_t header_len = 0;
  int64_t prefix = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!r.read(b, 2)) throw std::runtime_error(quoted(path) + " is truncated (in its header)");
    header_len = b[0] | (b[1] << 8);
    prefix = 10;
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!r.read(b, 4)) throw std::runtime_error(quoted(path) + " is truncated (in its header)");
    header_len =
        int64_t(b[0]) | (int64_t(b[1]) << 8) | (int64_t(b[2]) << 16) | (int64_t(b[3]) << 24);
    prefix = 12;
  } else {
    throw std::runtime_error(quoted(path) + ": unsupported .npy format version " +
                             std::to_string(major));
  }
  if (header_len > (int64_t(1) << 24))
    throw std::runtime_error(quoted(path) + ": malformed .npy header (length " +
                             std::to_string(header_len) + ")");
  std::string header(static_cast<std::size_t>(header_len), '\0');
  if (!r.read(&header[0], header_len))
    throw std::runtime_error(quoted(path) + " is truncated (in its header)");

  RawArray a;
  const std::string descr = dict_value(header, "descr", path);
  a.type = "'" + descr + "'";
  if (descr == "<f4")
    a.elem = Elem::f32;
  else if (descr == "<f8")
    a.elem = Elem::f64;
  else if (descr == "<i4")
    a.elem = Elem::i32;
  else if (descr == "<i8")
    a.elem = Elem::i64;
  else if (descr == "|u1")
    a.elem = Elem::u8;
  if (dict_value(header, "fortran_order", path) != "False")
    throw std::runtime_error(quoted(path) +
                             " is in Fortran order; save it in C order (numpy.ascontiguousarray)");
  a.shape = parse_shape(dict_value(header, "shape", path), path);
  a.data_offset = prefix + header_len;
  return a;
}

std::string idx_type_name(int type) {
  switch (type) {
    case 0x08:
      return "0x08 (unsigned byte)";
    case 0x09:
      return "0x09 (signed byte)";
    case 0x0B:
      return "0x0B (int16)";
    case 0x0C:
      return "0x0C (int32)";
    case 0x0D:
      return "0x0D (float32)";
    case 0x0E:
      return "0x0E (float64)";
    default:
      return "unknown type " + std::to_string(type);
  }
}

// IDX: magic 0x00 0x00 <type> <ndim>, then ndim big-endian uint32 sizes, then the data.
RawArray parse_idx(Reader& r, const std::string& path) {
  unsigned char magic[4];
  if (!r.read(magic, 4) || magic[0] != 0 || magic[1] != 0 || magic[3] == 0)
    throw std::runtime_error(quoted(path) + " is not an IDX file (bad magic number)");
  RawArray a;
  a.elem = magic[2] == 0x08 ? Elem::u8 : Elem::other;
  a.type = idx_type_name(magic[2]);
  const int ndim = magic[3];
  std::vector<unsigned char> dims(4 * static_cast<std::size_t>(ndim));
  if (!r.read(dims.data(), static_cast<int64_t>(dims.size())))
    throw std::runtime_error(quoted(path) + " is truncated (in its header)");
  for (int i = 0; i < ndim; ++i) {
    const unsigned char* b = &dims[4 * static_cast<std::size_t>(i)];
    a.shape.push_back((int64_t(b[0]) << 24) | (int64_t(b[1]) << 16) | (int64_t(b[2]) << 8) | b[3]);
  }
  a.data_offset = 4 + 4 * int64_t(ndim);
  return a;
}

RawArray parse_header(Reader& r, DataFormat format, const std::string& path) {
  return format == DataFormat::npy ? parse_npy(r, path) : parse_idx(r, path);
}

template <class S, class T>
void convert(const unsigned char* src, int64_t k, T* out) {
  for (int64_t i = 0; i < k; ++i) {
    S v;
    std::memcpy(&v, src + i * int64_t(sizeof(S)), sizeof(S));
    out[i] = static_cast<T>(v);
  }
}

// Reads elements [first, first + count) of `a` into `out`, converted to T; throws if the file
// ends early.
template <class T>
void read_elements(Reader& r, const RawArray& a, int64_t first, int64_t count, T* out,
                   const std::string& path) {
  const auto eb = static_cast<int64_t>(elem_bytes(a.elem));
  const std::string truncated = quoted(path) + " is truncated: it is shorter than its header " +
                                "says (shape " + shape_string(a.shape) + ")";
  if (count > 0 && !r.seek(a.data_offset + first * eb)) throw std::runtime_error(truncated);
  constexpr int64_t kChunk = 1 << 20;  // elements per read
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(count, kChunk) * eb));
  for (int64_t done = 0; done < count; done += kChunk) {
    const int64_t k = std::min(kChunk, count - done);
    if (!r.read(buf.data(), k * eb)) throw std::runtime_error(truncated);
    switch (a.elem) {
      case Elem::u8:
        convert<std::uint8_t>(buf.data(), k, out + done);
        break;
      case Elem::i32:
        convert<std::int32_t>(buf.data(), k, out + done);
        break;
      case Elem::i64:
        convert<std::int64_t>(buf.data(), k, out + done);
        break;
      case Elem::f32:
        convert<float>(buf.data(), k, out + done);
        break;
      case Elem::f64:
        convert<double>(buf.data(), k, out + done);
        break;
      case Elem::other:
        break;
    }
  }
}

// This rank's rows of an n x d matrix in a .npy or IDX file (rank-local; run collectively).
LocalRows read_raw_rows(MPI_Comm comm, const std::string& path, DataFormat format) {
  Reader r(path);
  const RawArray a = parse_header(r, format, path);
  if (format == DataFormat::npy) {
    if (a.elem != Elem::f32 && a.elem != Elem::f64)
      throw std::runtime_error(quoted(path) + " has dtype " + a.type +
                               "; expected float32 ('<f4') or float64 ('<f8')");
    if (a.shape.size() != 2)
      throw std::runtime_error(quoted(path) +
                               " must hold a 2-D array (rows x features), got shape " +
                               shape_string(a.shape));
  } else {
    if (a.elem != Elem::u8)
      throw std::runtime_error(quoted(path) + " has IDX element type " + a.type +
                               "; only unsigned-byte (0x08) data is supported");
    if (a.shape.size() < 2)
      throw std::runtime_error(quoted(path) +
                               " is a 1-D IDX file (labels?); data needs at least "
                               "2 dimensions");
  }
  LocalRows out;
  out.n = a.shape[0];
  out.d = row_length(a.shape, path);
  if (out.n == 0) throw std::runtime_error(quoted(path) + " has no rows (n = 0)");
  if (out.d == 0) throw std::runtime_error(quoted(path) + " has no columns (d = 0)");
  const Partition part(out.n, comm_size(comm));
  const int rank = comm_rank(comm);
  out.begin = part.begin(rank);
  out.x.resize(static_cast<std::size_t>(part.count(rank) * out.d));
  read_elements(r, a, out.begin * out.d, part.count(rank) * out.d, out.x.data(), path);
  if (a.elem == Elem::u8) {
    for (float& v : out.x) v /= 255.0f;
  }
  return out;
}

LocalRows read_hdf5_rows(MPI_Comm comm, const std::string& path, const std::string& dataset) {
  const h5::File f = h5::open_read(comm, path);
  const h5::DatasetInfo info = h5::dataset_info(f, dataset);
  const std::string name = "dataset '" + dataset + "' in " + quoted(path);
  collective_check(comm,
                   info.type_class == H5T_FLOAT && (info.type_size == 4 || info.type_size == 8) &&
                       info.dims.size() == 2,
                   name + " must be a 2-D float32 or float64 array, got " + info.describe());
  LocalRows out;
  out.n = info.dims[0];
  out.d = info.dims[1];
  collective_check(comm, out.n > 0, name + " has no rows (n = 0)");
  collective_check(comm, out.d > 0, name + " has no columns (d = 0)");
  const Partition part(out.n, comm_size(comm));
  out.begin = part.begin(comm_rank(comm));
  out.x = h5::read_2d<float>(f, dataset, out.begin, part.count(comm_rank(comm)));
  return out;
}

// Parses the header of a .npy or IDX label file and checks that it holds 1-D integer labels.
RawArray parse_labels_header(Reader& r, DataFormat format, const std::string& path) {
  const RawArray a = parse_header(r, format, path);
  const bool integer = format == DataFormat::npy
                           ? (a.elem == Elem::i64 || a.elem == Elem::i32 || a.elem == Elem::u8)
                           : a.elem == Elem::u8;
  if (!integer) {
    throw std::runtime_error(
        quoted(path) + " has element type " + a.type + "; labels must be " +
        (format == DataFormat::npy ? "'<i8', '<i4' or '|u1'" : "unsigned bytes (IDX type 0x08)"));
  }
  if (a.shape.size() != 1) {
    throw std::runtime_error(quoted(path) + " must hold a 1-D array of labels, got shape " +
                             shape_string(a.shape));
  }
  return a;
}

// Collective. Opens HDF5 labels and checks that they are a 1-D integer dataset.
h5::File open_hdf5_labels(MPI_Comm comm, const std::string& path, const std::string& dataset,
                          int64_t* length) {
  h5::File f = h5::open_read(comm, path);
  const h5::DatasetInfo info = h5::dataset_info(f, dataset);
  collective_check(comm, info.type_class == H5T_INTEGER && info.dims.size() == 1,
                   "dataset '" + dataset + "' in " + quoted(path) +
                       " must be a 1-D integer array of labels, got " + info.describe());
  *length = info.dims[0];
  return f;
}

DataFormat format_of(MPI_Comm comm, const std::string& path) {
  DataFormat format = DataFormat::hdf5;
  collectively(comm, [&] { format = guess_format(path); });
  return format;
}

}  // namespace

DataFormat guess_format(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5") || ends_with(name, ".he5"))
    return DataFormat::hdf5;
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  if (ends_with(name, ".npy")) return DataFormat::npy;
  if (name.find("idx") != std::string::npos || name.find("-ubyte") != std::string::npos)
    return DataFormat::idx;
  throw std::runtime_error("cannot tell the format of " + quoted(path) +
                           " from its name (expected .h5/.hdf5/.he5, .npy, or an IDX name "
                           "containing 'idx' or '-ubyte', optionally .gz)");
}

LocalRows read_dataset(MPI_Comm comm, const std::string& path, const std::string& dataset) {
  const DataFormat format = format_of(comm, path);
  LocalRows out;
  if (format == DataFormat::hdf5) {
    out = read_hdf5_rows(comm, path, dataset);
  } else {
    collectively(comm, [&] { out = read_raw_rows(comm, path, format); });
  }
  // Row and column in the message are 0-based; the lowest failing rank holds the first one.
  const auto bad =
      std::find_if(out.x.begin(), out.x.end(), [](float v) { return !std::isfinite(v); });
  const auto at = static_cast<int64_t>(bad - out.x.begin());
  collective_check(comm, bad == out.x.end(),
                   "input contains NaN or Inf values (first at row " +
                       std::to_string(out.begin + (out.d > 0 ? at / out.d : 0)) + ", column " +
                       std::to_string(out.d > 0 ? at % out.d : 0) + ") in " + quoted(path));
  return out;
}

std::int64_t labels_length(MPI_Comm comm, const std::string& path, const std::string& dataset) {
  const DataFormat format = format_of(comm, path);
  int64_t length = 0;
  if (format == DataFormat::hdf5) {
    open_hdf5_labels(comm, path, dataset, &length);
  } else {
    collectively(comm, [&] {
      Reader r(path);
      const RawArray a = parse_labels_header(r, format, path);
      length = a.shape[0];
    });
  }
  return length;
}

std::vector<std::int64_t> read_labels(MPI_Comm comm, const std::string& path,
                                      const std::string& dataset, std::int64_t begin,
                                      std::int64_t count) {
  const DataFormat format = format_of(comm, path);
  const std::string range_error = "cannot read labels [" + std::to_string(begin) + ", " +
                                  std::to_string(begin + count) + ") from " + quoted(path) +
                                  ": it holds ";
  std::vector<int64_t> out;
  if (format == DataFormat::hdf5) {
    int64_t length = 0;
    const h5::File f = open_hdf5_labels(comm, path, dataset, &length);
    collective_check(comm, begin >= 0 && count >= 0 && begin + count <= length,
                     range_error + std::to_string(length));
    out = h5::read_1d<int64_t>(f, dataset, begin, count);
  } else {
    collectively(comm, [&] {
      Reader r(path);
      const RawArray a = parse_labels_header(r, format, path);
      if (begin < 0 || count < 0 || begin + count > a.shape[0])
        throw std::runtime_error(range_error + std::to_string(a.shape[0]));
      out.resize(static_cast<std::size_t>(count));
      read_elements(r, a, begin, count, out.data(), path);
    });
  }
  return out;
}

std::uint64_t fingerprint(MPI_Comm comm, const LocalRows& data) {
  // FNV-1a over (row index, row bytes) per row; rows combine by addition (order-free).
  std::uint64_t sum = 0;
  for (std::int64_t r = 0; r < data.local_rows(); ++r) {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](const unsigned char* p, std::size_t len) {
      for (std::size_t t = 0; t < len; ++t) h = (h ^ p[t]) * 1099511628211ULL;
    };
    const std::int64_t g = data.begin + r;
    mix(reinterpret_cast<const unsigned char*>(&g), sizeof g);
    mix(reinterpret_cast<const unsigned char*>(data.row(r)), sizeof(float) * data.d);
    sum += h;
  }
  std::uint64_t total = 0;
  MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
  return total ^ (static_cast<std::uint64_t>(data.n) * 0x9e3779b97f4a7c15ULL) ^
         static_cast<std::uint64_t>(data.d);
}

}  // namespace lsgl
