// libFuzzer target: the .npy header parser (lsgl/io/raw_header.hpp) on arbitrary bytes, then
// the size arithmetic a reader does with the header (row length, element count).
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "lsgl/io/raw_header.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lsgl::MemorySource source(data, size);
  try {
    const lsgl::RawArray a = lsgl::parse_npy(source, "fuzz.npy");
    if (!a.shape.empty()) lsgl::row_length(a.shape, "fuzz.npy");
    lsgl::shape_string(a.shape);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
