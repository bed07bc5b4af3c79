#pragma once
// Reading members of a ZIP archive (the container of NumPy's .npz, written by numpy.savez and
// scipy.sparse.save_npz): the central directory (ZIP64 too) and the members' bytes, stored or
// deflated (zlib), read from any offset so that each rank reads only its slice. No MPI; every
// function is local and throws std::runtime_error naming the file.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lsgl/io/raw_header.hpp"

namespace lsgl {

class RawInflater;

// One member as the central directory and its local header describe it.
struct ZipMember {
  std::string name;
  int method = 0;                // 0 stored, 8 deflated (others are refused when read)
  std::int64_t compressed = 0;   // bytes in the archive
  std::int64_t size = 0;         // bytes once inflated
  std::int64_t data_offset = 0;  // of the member's (compressed) bytes
};

// The members of the ZIP archive `path`. A file that is not a ZIP archive, or is truncated
// (no end record, a directory or member beyond the end of the file), is refused.
std::vector<ZipMember> zip_members(const std::string& path);

// The uncompressed bytes of one member, read in order from the start; skip() moves forward
// (a stored member seeks; a deflated one is inflated and the bytes dropped).
class ZipMemberSource : public ByteSource {
 public:
  ZipMemberSource(const std::string& path, const ZipMember& member);
  ZipMemberSource(const ZipMemberSource&) = delete;
  ZipMemberSource& operator=(const ZipMemberSource&) = delete;
  ~ZipMemberSource() override;
  bool read(void* buf, std::int64_t bytes) override;
  // Skips `bytes` bytes; false when the member ends first.
  bool skip(std::int64_t bytes);

 private:
  // Makes at least `bytes` bytes available in pending_ (fewer at the end of the member).
  void fill(std::int64_t bytes);

  std::string path_;
  ZipMember member_;
  int fd_ = -1;
  std::int64_t consumed_ = 0;  // compressed bytes read
  std::string pending_;        // uncompressed bytes not yet returned, from pending_at_
  std::size_t pending_at_ = 0;
  std::unique_ptr<RawInflater> inflater_;  // deflated members
};

}  // namespace lsgl
