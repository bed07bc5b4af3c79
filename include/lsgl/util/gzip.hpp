#pragma once
// zlib's deflate and inflate for the writers and readers of compressed files. All functions are
// local.
#include <cstdint>
#include <string>

namespace lsgl {

// One complete gzip member holding `text` (header time 0, so the same text gives the same bytes).
// gzip members concatenate into one valid .gz file: gzip, Python's gzip module and zlib's gzread
// read them as the concatenated text.
std::string gzip_member(const std::string& text);

// A raw deflate stream (a ZIP member of method 8) inflated piece by piece.
class RawInflater {
 public:
  RawInflater();
  RawInflater(const RawInflater&) = delete;
  RawInflater& operator=(const RawInflater&) = delete;
  ~RawInflater();

  // Inflates `in` (the next compressed bytes) and appends the output to `out`. Returns true when
  // the stream has ended; throws std::runtime_error on corrupt data.
  bool feed(const std::string& in, std::string& out);

 private:
  void* stream_;  // z_stream
  bool ended_ = false;
};

}  // namespace lsgl
