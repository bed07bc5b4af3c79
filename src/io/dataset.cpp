// Reading the data matrix and labels (see dataset.hpp). HDF5 goes through lsgl::h5 (collective
// MPI-IO); .npy and IDX files are read by every rank on its own through zlib (which also reads
// plain files), each rank parsing the header and seeking to its rows. All rank-local work runs
// inside lsgl::collectively, so any failure reaches every rank as a CollectiveError.
#include "lsgl/io/dataset.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>
#include <stdexcept>

#include "lsgl/io/h5.hpp"
#include "lsgl/io/raw_header.hpp"
#include "lsgl/io/text_matrix.hpp"
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

// A file read through zlib: gzip-compressed and plain files alike.
class Reader : public ByteSource {
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
  bool read(void* buf, int64_t bytes) override {
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

  // Size of the file when it is not compressed (its content is the file), else -1. Valid after
  // the first read.
  int64_t plain_size() const {
    if (gzdirect(f_) != 1) return -1;
    struct stat st {};
    return stat(path_.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
  }

  // Positions at byte `offset` of the (uncompressed) content; false when that is impossible.
  bool seek(int64_t offset) { return gzseek(f_, static_cast<z_off_t>(offset), SEEK_SET) >= 0; }

 private:
  std::string path_;
  gzFile f_ = nullptr;
};


RawArray parse_header(Reader& r, DataFormat format, const std::string& path) {
  return format == DataFormat::kNpy ? parse_npy(r, path) : parse_idx(r, path);
}

template <class S, class T>
void convert(const unsigned char* src, int64_t k, T* out) {
  for (int64_t i = 0; i < k; ++i) {
    S v;
    std::memcpy(&v, src + i * int64_t(sizeof(S)), sizeof(S));
    out[i] = static_cast<T>(v);
  }
}

// Throws when a finite float64 element (k of them at element index `first`) does not fit a
// float32 (it would read as Inf and be reported as such).
void check_float_range(const unsigned char* src, int64_t k, int64_t first, const RawArray& a,
                       const std::string& path) {
  for (int64_t i = 0; i < k; ++i) {
    double v;
    std::memcpy(&v, src + i * 8, 8);
    if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max()) {
      const int64_t d = a.shape.size() > 1 ? row_length(a.shape, path) : 1;
      std::ostringstream s;
      s << quoted(path) << ": value " << v << " at row " << (first + i) / d << ", column "
        << (first + i) % d << " is beyond the float32 range (|x| <= 3.4e38)";
      throw std::runtime_error(s.str());
    }
  }
}

// Throws unless the data of `a` fits the file: the element count must not overflow and, for an
// uncompressed file, the header's shape must match the file size (checked before any
// allocation; a compressed file is read in chunks and found truncated as it ends).
void check_data_size(const Reader& r, const RawArray& a, const std::string& path) {
  const auto eb = static_cast<int64_t>(elem_bytes(a.elem));
  int64_t total = eb;
  for (const int64_t s : a.shape) {
    if (s != 0 && total > std::numeric_limits<int64_t>::max() / s)
      throw std::runtime_error(quoted(path) + ": shape " + shape_string(a.shape) + " is too large");
    total *= s;
  }
  const int64_t size = r.plain_size();
  if (size >= 0 && a.data_offset + total > size)
    throw std::runtime_error(quoted(path) + " is truncated: it is shorter than its header says " +
                             "(shape " + shape_string(a.shape) + "): " + std::to_string(total) +
                             " bytes of data, the file holds " +
                             std::to_string(std::max<int64_t>(size - a.data_offset, 0)));
}

// Reads elements [first, first + count) of `a` into `vec` (empty on entry), converted to T
// (reserved at once for an uncompressed file whose size was checked, grown chunk by chunk for a
// compressed one); throws if the file ends early.
template <class T>
void read_elements(Reader& r, const RawArray& a, int64_t first, int64_t count,
                   std::vector<T>& vec, const std::string& path) {
  check_data_size(r, a, path);
  if (r.plain_size() >= 0) vec.reserve(static_cast<std::size_t>(count));
  const auto eb = static_cast<int64_t>(elem_bytes(a.elem));
  const std::string truncated = quoted(path) + " is truncated: it is shorter than its header " +
                                "says (shape " + shape_string(a.shape) + ")";
  if (count > 0 && !r.seek(a.data_offset + first * eb)) throw std::runtime_error(truncated);
  constexpr int64_t kChunk = 1 << 20;  // elements per read
  std::vector<unsigned char> buf(static_cast<std::size_t>(std::min(count, kChunk) * eb));
  for (int64_t done = 0; done < count; done += kChunk) {
    const int64_t k = std::min(kChunk, count - done);
    if (!r.read(buf.data(), k * eb)) throw std::runtime_error(truncated);
    vec.resize(static_cast<std::size_t>(done + k));
    T* out = vec.data();
    switch (a.elem) {
      case Elem::kU8:
        convert<std::uint8_t>(buf.data(), k, out + done);
        break;
      case Elem::kI32:
        convert<std::int32_t>(buf.data(), k, out + done);
        break;
      case Elem::kI64:
        convert<std::int64_t>(buf.data(), k, out + done);
        break;
      case Elem::kF32:
        convert<float>(buf.data(), k, out + done);
        break;
      case Elem::kF64:
        if constexpr (std::is_same_v<T, float>)
          check_float_range(buf.data(), k, first + done, a, path);
        convert<double>(buf.data(), k, out + done);
        break;
      case Elem::kOther:
        break;
    }
  }
}

// This rank's rows of an n x d matrix in a .npy or IDX file (rank-local; run collectively).
LocalRows read_raw_rows(MPI_Comm comm, const std::string& path, DataFormat format) {
  Reader r(path);
  const RawArray a = parse_header(r, format, path);
  if (format == DataFormat::kNpy) {
    if (a.elem != Elem::kF32 && a.elem != Elem::kF64)
      throw std::runtime_error(quoted(path) + " has dtype " + a.type +
                               "; expected float32 ('<f4') or float64 ('<f8')");
    if (a.shape.size() != 2)
      throw std::runtime_error(quoted(path) +
                               " must hold a 2-D array (rows x features), got shape " +
                               shape_string(a.shape));
  } else {
    if (a.elem != Elem::kU8)
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
  read_elements(r, a, out.begin * out.d, part.count(rank) * out.d, out.values(), path);
  if (a.elem == Elem::kU8) {
    for (float& v : out.values()) v /= 255.0f;
  }
  return out;
}

// Collective. HDF5 converts a float64 value beyond the float32 range to Inf: the row of this
// rank's first non-finite value is read again in double, and a finite value there is reported as
// out of range (a real NaN or Inf is left to the caller's check).
void check_float64_range(const h5::File& f, const std::string& dataset, const std::string& path,
                         const LocalRows& out) {
  const float* end = out.data() + out.size();
  const float* bad = std::find_if(out.data(), end, [](float v) { return !std::isfinite(v); });
  const int64_t at = bad - out.data(), row = bad == end ? -1 : at / out.d;
  const std::vector<double> again =
      h5::read_2d<double>(f, dataset, out.begin + std::max<int64_t>(row, 0), row >= 0 ? 1 : 0);
  std::ostringstream s;
  if (row >= 0 && std::isfinite(again[at % out.d])) {
    s << quoted(path) << ": value " << again[at % out.d] << " at row " << out.begin + row
      << ", column " << at % out.d << " is beyond the float32 range (|x| <= 3.4e38)";
  }
  collective_check(f.comm(), s.str().empty(), s.str());
}

// Collective. What `dataset` is when it is not a dataset: missing, a group, or an AnnData
// sparse matrix (a group with the attribute encoding-type csr_matrix or csc_matrix, or
// h5sparse_format from older AnnData versions).
std::string not_a_dataset(const h5::File& f, const std::string& dataset, h5::ObjectKind kind) {
  if (kind == h5::ObjectKind::kMissing) return "not found";
  if (kind != h5::ObjectKind::kGroup) return "is not a dataset";
  for (const char* attr : {"encoding-type", "h5sparse_format"}) {
    if (!h5::has_attr(f, dataset, attr)) continue;
    const std::string enc = h5::get_attr_string(f, dataset, attr);
    if (enc.find("csr") != std::string::npos || enc.find("csc") != std::string::npos)
      return "is a sparse matrix (AnnData '" + enc + "' group), which lsgl does not read";
  }
  return "is a group, not a dataset";
}

// Collective. Refuses a --dataset that is not a dataset (a missing name, a group such as the
// sparse /X of an .h5ad file), naming the 2-D float datasets the file does hold.
void check_is_dataset(const h5::File& f, const std::string& dataset, const std::string& path) {
  const h5::ObjectKind kind = h5::object_kind(f, dataset);
  if (kind == h5::ObjectKind::kDataset) return;
  std::string dense;
  for (const auto& [name, info] : h5::list_datasets(f)) {
    if (info.type_class != H5T_FLOAT || info.dims.size() != 2) continue;
    dense += (dense.empty() ? "" : ", ") + name + " (" + std::to_string(info.dims[0]) + " x " +
             std::to_string(info.dims[1]) + ")";
  }
  collective_check(f.comm(), false,
                   "dataset '" + dataset + "' in " + quoted(path) + " " +
                       not_a_dataset(f, dataset, kind) + "; " +
                       (dense.empty() ? "the file has no 2-D float dataset"
                                      : "its dense 2-D float datasets: " + dense +
                                            " (choose one with --dataset)"));
}

LocalRows read_hdf5_rows(MPI_Comm comm, const std::string& path, const std::string& dataset) {
  const h5::File f = h5::open_read(comm, path);
  check_is_dataset(f, dataset, path);
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
  out.values() = h5::read_2d<float>(f, dataset, out.begin, part.count(comm_rank(comm)));
  if (info.type_size == 8) check_float64_range(f, dataset, path, out);
  return out;
}

// Parses the header of a .npy or IDX label file and checks that it holds 1-D integer labels.
RawArray parse_labels_header(Reader& r, DataFormat format, const std::string& path) {
  const RawArray a = parse_header(r, format, path);
  const bool integer = format == DataFormat::kNpy
                           ? (a.elem == Elem::kI64 || a.elem == Elem::kI32 || a.elem == Elem::kU8)
                           : a.elem == Elem::kU8;
  if (!integer) {
    throw std::runtime_error(
        quoted(path) + " has element type " + a.type + "; labels must be " +
        (format == DataFormat::kNpy ? "'<i8', '<i4' or '|u1'" : "unsigned bytes (IDX type 0x08)"));
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
  DataFormat format = DataFormat::kHdf5;
  collectively(comm, [&] { format = guess_format(path); });
  return format;
}

// Collective. The format of a labels file (text is not read as labels).
DataFormat labels_format_of(MPI_Comm comm, const std::string& path) {
  const DataFormat format = format_of(comm, path);
  collective_check(comm, format != DataFormat::kCsv,
                   "labels are read from .npy, IDX or HDF5 files; " + quoted(path) +
                       " is text: save it with numpy.save('labels.npy', y)");
  return format;
}

}  // namespace

DataFormat guess_format(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ends_with(name, ".h5") || ends_with(name, ".hdf5") || ends_with(name, ".he5") ||
      ends_with(name, ".h5ad"))
    return DataFormat::kHdf5;
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  if (ends_with(name, ".npy")) return DataFormat::kNpy;
  if (ends_with(name, ".csv") || ends_with(name, ".tsv") || ends_with(name, ".txt"))
    return DataFormat::kCsv;
  if (name.find("idx") != std::string::npos || name.find("-ubyte") != std::string::npos)
    return DataFormat::kIdx;
  throw std::runtime_error("cannot tell the format of " + quoted(path) +
                           " from its name (expected .h5/.hdf5/.he5/.h5ad, .npy, .csv/.tsv/.txt, "
                           "or an IDX name containing 'idx' or '-ubyte', optionally .gz); name "
                           "it with --input-format " + names_list<DataFormat>());
}

LocalRows read_dataset(MPI_Comm comm, const std::string& path, const std::string& dataset,
                       DataFormat format) {
  if (format == DataFormat::kAuto) format = format_of(comm, path);
  LocalRows out;
  if (format == DataFormat::kHdf5) {
    out = read_hdf5_rows(comm, path, dataset);
  } else if (format == DataFormat::kCsv) {
    out = read_text_matrix(comm, path);
  } else {
    collectively(comm, [&] { out = read_raw_rows(comm, path, format); });
  }
  check_finite_rows(comm, out, quoted(path));
  return out;
}

void check_finite_rows(MPI_Comm comm, const LocalRows& rows, const std::string& source) {
  // Row and column in the message are 0-based; the lowest failing rank holds the first one.
  const float* end = rows.data() + rows.size();
  const float* bad = std::find_if(rows.data(), end, [](float v) { return !std::isfinite(v); });
  const auto at = static_cast<int64_t>(bad - rows.data());
  collective_check(comm, bad == end,
                   "input contains NaN or Inf values (first at row " +
                       std::to_string(rows.begin + (rows.d > 0 ? at / rows.d : 0)) + ", column " +
                       std::to_string(rows.d > 0 ? at % rows.d : 0) + ") in " + source);
}

std::int64_t labels_length(MPI_Comm comm, const std::string& path, const std::string& dataset) {
  const DataFormat format = labels_format_of(comm, path);
  int64_t length = 0;
  if (format == DataFormat::kHdf5) {
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
  const DataFormat format = labels_format_of(comm, path);
  const std::string range_error = "cannot read labels [" + std::to_string(begin) + ", " +
                                  std::to_string(begin + count) + ") from " + quoted(path) +
                                  ": it holds ";
  std::vector<int64_t> out;
  if (format == DataFormat::kHdf5) {
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
      read_elements(r, a, begin, count, out, path);
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
