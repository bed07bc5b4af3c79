// libFuzzer target: the edge list and Matrix Market parsers (lsgl/graph/text_graph.hpp). The
// first byte chooses the format; every entry returned must satisfy the readers' contract.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "lsgl/graph/text_graph.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool mtx = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    for (const lsgl::DirectedEntry& e : lsgl::parse_graph_text(text, mtx)) {
      if (e.u < 0 || e.v < 0 || e.u >= lsgl::kMaxNodes || e.v >= lsgl::kMaxNodes) std::abort();
      if (!std::isfinite(e.w) || e.w < 0) std::abort();
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
