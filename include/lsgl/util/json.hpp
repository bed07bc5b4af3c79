#pragma once
// A tiny JSON emitter for the reports of `lsgl eval` and `lsgl hash eval`.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lsgl {

// A JSON string literal of s: valid UTF-8 sequences as they are, '"', '\\' and control
// characters escaped, and every byte that starts no valid UTF-8 sequence written as the code
// point of the same number (\u00XX, its Latin-1 reading), so the output is always valid JSON.
std::string json_string(const std::string& s);
std::string json_number(double v);  // null for Inf/NaN
std::string json_number(std::int64_t v);
std::string json_number(int v);
std::string json_unsigned(std::uint64_t v);
std::string json_bool(bool v);

template <class T>
std::string json_array(const std::vector<T>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + json_number(v[i]);
  return out + "]";
}

// Builds one object: add(key, already-encoded value).
class JsonObject {
 public:
  explicit JsonObject(int indent = 0) : indent_(indent) {}
  JsonObject& add(const std::string& key, const std::string& encoded);
  std::string str() const;

 private:
  int indent_;
  std::vector<std::string> items_;
};

// Collective. Rank 0 writes `text` to a temporary name and renames it to `path`; a failure is
// raised on every rank.
void write_text_file(MPI_Comm comm, const std::string& path, const std::string& text);

}  // namespace lsgl
