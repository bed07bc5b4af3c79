// The JSON emitter (see json.hpp).
#include "lsgl/util/json.hpp"

#include <cmath>
#include <cstdio>

#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

// Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlong form, no surrogate, at most
// U+10FFFF), 0 when the byte there starts none.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = byte(i);
  std::size_t len = 0;
  if (c < 0x80) len = 1;
  else if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c >= 0xE0 && c <= 0xEF) len = 3;
  else if (c >= 0xF0 && c <= 0xF4) len = 4;
  if (len == 0 || i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  const unsigned second = byte(i + 1);
  if ((c == 0xE0 && second < 0xA0) || (c == 0xED && second > 0x9F) ||
      (c == 0xF0 && second < 0x90) || (c == 0xF4 && second > 0x8F))
    return 0;  // overlong, surrogate or beyond U+10FFFF
  return len;
}

}  // namespace

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t len = utf8_length(s, i);
    if (len > 1) {  // valid multi-byte UTF-8: as it is
      out.append(s, i, len);
      i += len;
      continue;
    }
    ++i;
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
        // A control character, or a byte that starts no UTF-8 sequence (a Latin-1 file name):
        // the code point of the same number, so that the file stays valid JSON.
        if (c < 0x20 || len == 0) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
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
