// libFuzzer target: the IDX header parser (lsgl/io/raw_header.hpp) on arbitrary bytes, then the
// row length of the shape it reads.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "lsgl/io/raw_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lsgl::MemorySource source(data, size);
  try {
    const lsgl::RawArray a = lsgl::parse_idx(source, "fuzz-idx3-ubyte");
    lsgl::row_length(a.shape, "fuzz-idx3-ubyte");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
