// The JSON emitter (see json.hpp).
#include "lsgl/util/json.hpp"

#include <cmath>
#include <cstdio>

#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string json_number(std::int64_t v) { return std::to_string(v); }
std::string json_unsigned(std::uint64_t v) { return std::to_string(v); }
std::string json_number(int v) { return std::to_string(v); }
std::string json_bool(bool v) { return v ? "true" : "false"; }

JsonObject& JsonObject::add(const std::string& key, const std::string& encoded) {
  items_.push_back(json_string(key) + ": " + encoded);
  return *this;
}

std::string JsonObject::str() const {
  const std::string pad(indent_ + 2, ' '), end(indent_, ' ');
  std::string out = "{\n";
  for (std::size_t i = 0; i < items_.size(); ++i)
    out += pad + items_[i] + (i + 1 < items_.size() ? ",\n" : "\n");
  return out + end + "}";
}

void write_text_file(MPI_Comm comm, const std::string& path, const std::string& text) {
  write_atomically(comm, path, [&](const std::string& tmp) {
    if (comm_rank(comm) == 0) write_text(tmp, text, path);
  });
}

}  // namespace lsgl
