// libFuzzer target: the JSON emitter of `lsgl eval --json` and `lsgl hash eval --json`
// (lsgl/util/json.hpp) on arbitrary bytes as a string and as a key. The output must be valid
// JSON (RFC 8259) as decoded here: UTF-8, no raw control character, only the defined escapes;
// and decoding it must give back the input's valid UTF-8 sequences, each other byte b as the
// code point b (json_string's escape of bytes that are not UTF-8).
#include <cstdlib>
#include <string>

#include "lsgl/util/json.hpp"

namespace {

// Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates, at most
// U+10FFFF), 0 when there is none; its code point in *cp.
std::size_t utf8_at(const std::string& s, std::size_t i, unsigned* cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  if (c < 0x80) return *cp = c, 1;
  const std::size_t len = c >= 0xC2 && c <= 0xDF   ? 2
                          : c >= 0xE0 && c <= 0xEF ? 3
                          : c >= 0xF0 && c <= 0xF4 ? 4
                                                   : 0;
  if (len == 0 || i + len > s.size()) return 0;
  unsigned v = c & (0xFF >> (len + 1));
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < least[len] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

// The code points the input stands for: its valid UTF-8 sequences, and each other byte.
std::u32string expected(const std::string& s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    unsigned cp = 0;
    const std::size_t len = utf8_at(s, i, &cp);
    out += static_cast<char32_t>(len ? cp : static_cast<unsigned char>(s[i]));
    i += len ? len : 1;
  }
  return out;
}

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the JSON string literal starting at s[i] (a '"'); aborts on anything invalid. Sets i
// past the closing quote.
std::u32string decode(const std::string& s, std::size_t& i) {
  if (i >= s.size() || s[i] != '"') std::abort();
  std::u32string out;
  for (++i;;) {
    if (i >= s.size()) std::abort();
    unsigned cp = 0;
    const std::size_t len = utf8_at(s, i, &cp);
    if (len == 0 || cp < 0x20) std::abort();
    if (cp == '"') return ++i, out;
    if (cp != '\\') {
      out += static_cast<char32_t>(cp);
      i += len;
      continue;
    }
    if (i + 1 >= s.size()) std::abort();
    const char e = s[i + 1];
    const std::string simple = "\"\\/bfnrt", value = "\"\\/\b\f\n\r\t";
    if (simple.find(e) != std::string::npos) {
      out += static_cast<char32_t>(static_cast<unsigned char>(value[simple.find(e)]));
      i += 2;
    } else if (e == 'u' && i + 6 <= s.size()) {
      unsigned v = 0;
      for (int k = 2; k < 6; ++k) {
        if (hex(s[i + k]) < 0) std::abort();
        v = v * 16 + static_cast<unsigned>(hex(s[i + k]));
      }
      if (v >= 0xD800 && v <= 0xDFFF) std::abort();  // surrogates: not written by lsgl
      out += static_cast<char32_t>(v);
      i += 6;
    } else {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  const std::string encoded = lsgl::json_string(s);
  std::size_t i = 0;
  if (decode(encoded, i) != expected(s) || i != encoded.size()) std::abort();
  // As a key of an object: {\n  "key": 1\n}
  const std::string object = lsgl::JsonObject().add(s, "1").str();
  i = 4;
  if (object.compare(0, 4, "{\n  ") != 0 || decode(object, i) != expected(s) ||
      object.compare(i, std::string::npos, ": 1\n}") != 0)
    std::abort();
  return 0;
}
