// zlib wrappers (see gzip.hpp).
#include "lsgl/util/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <stdexcept>

namespace lsgl {

namespace {

constexpr std::size_t kPiece = std::size_t(1) << 30;  // zlib counts in 32 bits

}  // namespace

std::string gzip_member(const std::string& text) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("cannot start gzip compression (out of memory)");
  std::string out;
  std::string buf(std::size_t(1) << 20, '\0');
  std::size_t done = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (z.avail_in == 0 && done < text.size()) {
      const std::size_t piece = std::min(kPiece, text.size() - done);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data() + done));
      z.avail_in = static_cast<uInt>(piece);
      done += piece;
    }
    z.next_out = reinterpret_cast<Bytef*>(&buf[0]);
    z.avail_out = static_cast<uInt>(buf.size());
    rc = deflate(&z, done == text.size() ? Z_FINISH : Z_NO_FLUSH);
    if (rc == Z_STREAM_ERROR) {
      deflateEnd(&z);
      throw std::runtime_error("gzip compression failed");
    }
    out.append(buf.data(), buf.size() - z.avail_out);
  }
  deflateEnd(&z);
  return out;
}

RawInflater::RawInflater() : stream_(new z_stream{}) {
  if (inflateInit2(static_cast<z_stream*>(stream_), -15) != Z_OK) {
    delete static_cast<z_stream*>(stream_);
    throw std::runtime_error("cannot start inflating (out of memory)");
  }
}

RawInflater::~RawInflater() {
  auto* z = static_cast<z_stream*>(stream_);
  inflateEnd(z);
  delete z;
}

bool RawInflater::feed(const std::string& in, std::string& out) {
  auto* z = static_cast<z_stream*>(stream_);
  std::string buf(std::size_t(1) << 20, '\0');
  std::size_t done = 0;
  while (!ended_) {
    if (z->avail_in == 0 && done < in.size()) {
      const std::size_t piece = std::min(kPiece, in.size() - done);
      z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + done));
      z->avail_in = static_cast<uInt>(piece);
      done += piece;
    }
    z->next_out = reinterpret_cast<Bytef*>(&buf[0]);
    z->avail_out = static_cast<uInt>(buf.size());
    const int rc = inflate(z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
      throw std::runtime_error(std::string("corrupt compressed data (") +
                               (z->msg ? z->msg : "zlib error") + ")");
    out.append(buf.data(), buf.size() - z->avail_out);
    ended_ = rc == Z_STREAM_END;
    // All input used and the output not full: more input is needed.
    if (z->avail_in == 0 && done == in.size() && z->avail_out > 0) break;
  }
  return ended_;
}

}  // namespace lsgl
