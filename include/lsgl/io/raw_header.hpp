#pragma once
// The headers of raw array files (.npy and IDX): parsed from any byte source, with no MPI and no
// file, so that they can be tested and fuzzed on their own (tests/fuzz). Every function is local
// and throws std::runtime_error on a malformed header.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lsgl {

// Sequential bytes: a file through zlib, or memory.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads exactly `bytes` bytes; false when the source ends first.
  virtual bool read(void* buf, std::int64_t bytes) = 0;
};

// Bytes in memory.
class MemorySource : public ByteSource {
 public:
  MemorySource(const void* data, std::size_t size)
      : p_(static_cast<const unsigned char*>(data)), left_(size) {}
  bool read(void* buf, std::int64_t bytes) override;

 private:
  const unsigned char* p_;
  std::size_t left_;
};

// Element types of raw (.npy / IDX) arrays; `other` = present in the file but unsupported.
enum class Elem { kU8, kI32, kI64, kF32, kF64, kOther };

std::size_t elem_bytes(Elem e);

// A raw array after a header: element type (and its name in the file), shape, and the byte
// offset of element 0.
struct RawArray {
  Elem elem = Elem::kOther;
  std::string type;  // "'<f4'" for .npy, "0x08 (unsigned byte)" for IDX
  std::vector<std::int64_t> shape;
  std::int64_t data_offset = 0;
};

// "(3, 4)", "(5,)".
std::string shape_string(const std::vector<std::int64_t>& shape);

// Product of shape[1:], i.e. the row length; throws when it overflows.
std::int64_t row_length(const std::vector<std::int64_t>& shape, const std::string& path);

// The .npy header (format versions 1 to 3) at the start of `r`; `path` names the file in messages.
RawArray parse_npy(ByteSource& r, const std::string& path);

// The IDX header: magic 0x00 0x00 <type> <ndim>, then ndim big-endian uint32 sizes.
RawArray parse_idx(ByteSource& r, const std::string& path);

}  // namespace lsgl
