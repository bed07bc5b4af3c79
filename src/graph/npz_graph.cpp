// scipy.sparse.save_npz's layout read in parallel (see npz_graph.hpp).
#include "npz_graph.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "lsgl/io/zip_archive.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

// The archive's directory, and its members found by name.
struct Npz {
  std::string path;
  std::vector<ZipMember> members;

  const ZipMember* find(const std::string& name) const {
    for (const ZipMember& m : members)
      if (m.name == name) return &m;
    return nullptr;
  }
  const ZipMember& at(const std::string& name) const {
    const ZipMember* m = find(name);
    if (!m)
      throw std::runtime_error("'" + path + "' has no " + name + " (members: " + names() +
                               "): not what scipy.sparse.save_npz writes");
    return *m;
  }
  std::string names() const {
    std::string s;
    for (const ZipMember& m : members) s += (s.empty() ? "" : ", ") + m.name;
    return s.empty() ? "none" : s;
  }
  std::string label(const std::string& name) const { return path + ":" + name; }
};

template <class T>
void convert(const char* src, std::int64_t k, Elem elem, T* out) {
  auto copy = [&](auto tag) {
    using S = decltype(tag);
    for (std::int64_t i = 0; i < k; ++i) {
      S v;
      std::memcpy(&v, src + i * static_cast<std::int64_t>(sizeof(S)), sizeof(S));
      out[i] = static_cast<T>(v);
    }
  };
  switch (elem) {
    case Elem::kU8:
      copy(std::uint8_t{});
      break;
    case Elem::kI32:
      copy(std::int32_t{});
      break;
    case Elem::kI64:
      copy(std::int64_t{});
      break;
    case Elem::kF32:
      copy(float{});
      break;
    case Elem::kF64:
      copy(double{});
      break;
    case Elem::kOther:
      break;
  }
}

// The header of member `name` (a 1-D array of a supported type).
RawArray array_info(const Npz& z, const std::string& name) {
  ZipMemberSource s(z.path, z.at(name));
  const RawArray a = parse_npy(s, z.label(name));
  if (a.elem == Elem::kOther || a.shape.size() != 1)
    throw std::runtime_error("'" + z.label(name) + "' is a " + a.type + " array of shape " +
                             shape_string(a.shape) + "; scipy writes a 1-D array of numbers");
  return a;
}

// Elements [first, first + count) of the 1-D array in member `name`, converted to T.
template <class T>
std::vector<T> read_slice(const Npz& z, const std::string& name, std::int64_t first,
                          std::int64_t count) {
  ZipMemberSource s(z.path, z.at(name));
  const RawArray a = parse_npy(s, z.label(name));
  if (a.elem == Elem::kOther || a.shape.size() != 1)
    throw std::runtime_error("'" + z.label(name) + "' is a " + a.type + " array of shape " +
                             shape_string(a.shape) + "; scipy writes a 1-D array of numbers");
  const auto eb = static_cast<std::int64_t>(elem_bytes(a.elem));
  const std::string truncated =
      "'" + z.label(name) + "' is shorter than its header says " + "(truncated or damaged)";
  if (first < 0 || count < 0 || first + count > a.shape[0])
    throw std::runtime_error("'" + z.path + "': the arrays disagree (" + name + " has " +
                             std::to_string(a.shape[0]) + " elements, indptr points beyond)");
  if (!s.skip(first * eb)) throw std::runtime_error(truncated);
  std::vector<T> out(static_cast<std::size_t>(count));
  constexpr std::int64_t kChunk = std::int64_t(1) << 20;
  std::vector<char> buf(static_cast<std::size_t>(std::min(count, kChunk) * eb));
  for (std::int64_t done = 0; done < count; done += kChunk) {
    const std::int64_t k = std::min(kChunk, count - done);
    if (!s.read(buf.data(), k * eb)) throw std::runtime_error(truncated);
    convert(buf.data(), k, a.elem, out.data() + done);
  }
  return out;
}

// The text of format.npy: a 0-d bytes ('|S3') or unicode ('<U3') array.
std::string format_text(const Npz& z) {
  const ZipMember& m = z.at("format.npy");
  ZipMemberSource s(z.path, m);
  const RawArray a = parse_npy(s, z.label("format.npy"));
  std::string raw(static_cast<std::size_t>(std::max<std::int64_t>(m.size - a.data_offset, 0)),
                  '\0');
  if (raw.size() > 64 || !s.read(&raw[0], static_cast<std::int64_t>(raw.size())))
    throw std::runtime_error("'" + z.label("format.npy") + "' is damaged");
  std::string text;
  const bool unicode = a.type.find('U') != std::string::npos;
  for (std::size_t i = 0; i < raw.size(); i += unicode ? 4 : 1)
    if (raw[i] != '\0') text += raw[i];
  return text;
}

// The archive, its layout and the matrix size (square), after the checks of npz_layout.
struct Opened {
  Npz z;
  std::string layout;
  std::int64_t n = 0;
};

Opened open_npz(const std::string& path) {
  Opened o;
  o.z.path = path;
  o.z.members = zip_members(path);
  if (!o.z.find("format.npy"))
    throw std::runtime_error("'" + path + "' holds " + o.z.names() + ", not a scipy sparse " +
                             "matrix: save a graph with scipy.sparse.save_npz (a dense data " +
                             "matrix is for `lsgl learn --input`, as .npy)");
  o.layout = format_text(o.z);
  if (o.layout != "csr" && o.layout != "csc" && o.layout != "coo")
    throw std::runtime_error("'" + path + "' holds a scipy '" + o.layout + "' matrix; lsgl " +
                             "reads csr, csc and coo: save W.tocsr()");
  const std::vector<std::int64_t> shape = read_slice<std::int64_t>(o.z, "shape.npy", 0, 2);
  if (shape[0] != shape[1] || shape[0] <= 0)
    throw std::runtime_error("'" + path + "' holds a " + std::to_string(shape[0]) + " x " +
                             std::to_string(shape[1]) + " matrix; a graph is a square " +
                             "n x n matrix W with n > 0");
  o.n = shape[0];
  return o;
}

// Throws unless the entry (i, j, w) is a graph entry of an n x n matrix.
void check_entry(const Opened& o, std::int64_t i, std::int64_t j, double w) {
  std::ostringstream s;
  if (i < 0 || i >= o.n || j < 0 || j >= o.n)
    s << "entry (" << i << ", " << j << ") is outside the " << o.n << " x " << o.n << " matrix";
  else if (!std::isfinite(w))
    s << "weight is NaN or infinite at (" << i << ", " << j << ")";
  else if (w < 0)
    s << "negative weight " << w << " at (" << i << ", " << j << ")";
  if (s.tellp() > 0) throw std::runtime_error("'" + o.z.path + "': " + s.str());
}

// This rank's block of the major axis (rows of csr, columns of csc) as CSR arrays.
LocalCsr read_compressed_block(MPI_Comm comm, const Opened& o) {
  const Partition part(o.n, comm_size(comm));
  const int rank = comm_rank(comm);
  LocalCsr m;
  m.n = o.n;
  m.begin = part.begin(rank);
  const std::int64_t count = part.count(rank);
  const RawArray ptr_info = array_info(o.z, "indptr.npy");
  const RawArray idx_info = array_info(o.z, "indices.npy");
  const RawArray data_info = array_info(o.z, "data.npy");
  if (ptr_info.shape[0] != o.n + 1 || idx_info.shape[0] != data_info.shape[0])
    throw std::runtime_error(
        "'" + o.z.path + "': the arrays disagree (indptr has " + std::to_string(ptr_info.shape[0]) +
        " elements for n = " + std::to_string(o.n) + "; indices " +
        std::to_string(idx_info.shape[0]) + ", data " + std::to_string(data_info.shape[0]) + ")");
  std::vector<std::int64_t> ptr = read_slice<std::int64_t>(o.z, "indptr.npy", m.begin, count + 1);
  for (std::int64_t r = 0; r < count; ++r)
    if (ptr[r + 1] < ptr[r])
      throw std::runtime_error("'" + o.z.path + "': indptr decreases at " +
                               std::to_string(m.begin + r));
  if ((rank == 0 && ptr[0] != 0) || ptr[0] < 0 ||
      (m.begin + count == o.n && ptr[count] != idx_info.shape[0]))
    throw std::runtime_error("'" + o.z.path + "': indptr does not span the " +
                             std::to_string(idx_info.shape[0]) + " entries");
  m.indices = read_slice<std::int64_t>(o.z, "indices.npy", ptr[0], ptr[count] - ptr[0]);
  m.data = read_slice<double>(o.z, "data.npy", ptr[0], ptr[count] - ptr[0]);
  const std::int64_t base = ptr[0];
  for (std::int64_t& p : ptr) p -= base;
  m.indptr = std::move(ptr);
  return m;
}

}  // namespace

std::string npz_layout(MPI_Comm comm, const std::string& path) {
  std::string layout;
  collectively(comm, [&] { layout = open_npz(path).layout; });
  return layout;
}

std::vector<DirectedEntry> read_npz_entries(MPI_Comm comm, const std::string& path,
                                            std::int64_t* n) {
  std::vector<DirectedEntry> out;
  collectively(comm, [&] {
    const Opened o = open_npz(path);
    *n = o.n;
    if (o.layout == "coo") {
      const std::int64_t nnz = array_info(o.z, "row.npy").shape[0];
      if (array_info(o.z, "col.npy").shape[0] != nnz || array_info(o.z, "data.npy").shape[0] != nnz)
        throw std::runtime_error("'" + path + "': row, col and data differ in length");
      const Partition part(nnz, comm_size(comm));
      const std::int64_t b = part.begin(comm_rank(comm)), k = part.count(comm_rank(comm));
      const auto rows = read_slice<std::int64_t>(o.z, "row.npy", b, k);
      const auto cols = read_slice<std::int64_t>(o.z, "col.npy", b, k);
      const auto vals = read_slice<double>(o.z, "data.npy", b, k);
      out.reserve(static_cast<std::size_t>(k));
      for (std::int64_t e = 0; e < k; ++e) {
        check_entry(o, rows[e], cols[e], vals[e]);
        out.push_back({rows[e], cols[e], vals[e]});
      }
      return;
    }
    const LocalCsr m = read_compressed_block(comm, o);
    const bool csc = o.layout == "csc";
    out.reserve(m.indices.size());
    for (std::int64_t r = 0; r < m.local_rows(); ++r)
      for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
        const std::int64_t i = csc ? m.indices[e] : m.begin + r;
        const std::int64_t j = csc ? m.begin + r : m.indices[e];
        check_entry(o, i, j, m.data[e]);
        out.push_back({i, j, m.data[e]});
      }
  });
  return out;
}

LocalCsr read_npz_rows(MPI_Comm comm, const std::string& path) {
  LocalCsr m;
  collectively(comm, [&] {
    const Opened o = open_npz(path);
    if (o.layout != "csr")
      throw std::runtime_error("'" + path + "' holds a scipy '" + o.layout + "' matrix; " +
                               "candidate lists are read from csr: save W.tocsr()");
    m = read_compressed_block(comm, o);
    for (const std::int64_t j : m.indices)
      if (j < 0 || j >= o.n)
        throw std::runtime_error("'" + path + "': column index " + std::to_string(j) +
                                 " is outside the " + std::to_string(o.n) + " x " +
                                 std::to_string(o.n) + " matrix");
  });
  return m;
}

}  // namespace lsgl
