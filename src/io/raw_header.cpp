// .npy and IDX headers (see raw_header.hpp).
#include "lsgl/io/raw_header.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace lsgl {

using std::int64_t;

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

}  // namespace

bool MemorySource::read(void* buf, int64_t bytes) {
  if (bytes < 0 || static_cast<std::size_t>(bytes) > left_) return false;
  std::memcpy(buf, p_, static_cast<std::size_t>(bytes));
  p_ += bytes;
  left_ -= static_cast<std::size_t>(bytes);
  return true;
}

std::size_t elem_bytes(Elem e) {
  switch (e) {
    case Elem::kU8:
      return 1;
    case Elem::kI32:
    case Elem::kF32:
      return 4;
    case Elem::kI64:
    case Elem::kF64:
      return 8;
    case Elem::kOther:
      break;
  }
  return 0;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

int64_t row_length(const std::vector<int64_t>& shape, const std::string& path) {
  int64_t d = 1;
  for (std::size_t i = 1; i < shape.size(); ++i) {
    if (shape[i] != 0 && d > std::numeric_limits<int64_t>::max() / shape[i])
      throw std::runtime_error(quoted(path) + ": shape " + shape_string(shape) + " is too large");
    d *= shape[i];
  }
  return d;
}

namespace {

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

}  // namespace

RawArray parse_npy(ByteSource& r, const std::string& path) {
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
    a.elem = Elem::kF32;
  else if (descr == "<f8")
    a.elem = Elem::kF64;
  else if (descr == "<i4")
    a.elem = Elem::kI32;
  else if (descr == "<i8")
    a.elem = Elem::kI64;
  else if (descr == "|u1")
    a.elem = Elem::kU8;
  if (dict_value(header, "fortran_order", path) != "False")
    throw std::runtime_error(quoted(path) +
                             " is in Fortran order; save it in C order (numpy.ascontiguousarray)");
  a.shape = parse_shape(dict_value(header, "shape", path), path);
  a.data_offset = prefix + header_len;
  return a;
}

namespace {

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

}  // namespace

// IDX: magic 0x00 0x00 <type> <ndim>, then ndim big-endian uint32 sizes, then the data.
RawArray parse_idx(ByteSource& r, const std::string& path) {
  unsigned char magic[4];
  if (!r.read(magic, 4) || magic[0] != 0 || magic[1] != 0 || magic[3] == 0)
    throw std::runtime_error(quoted(path) + " is not an IDX file (bad magic number)");
  RawArray a;
  a.elem = magic[2] == 0x08 ? Elem::kU8 : Elem::kOther;
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

}  // namespace lsgl
