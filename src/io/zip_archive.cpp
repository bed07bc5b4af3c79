// A small ZIP reader: the end record, the central directory and the members' data (see
// zip_archive.hpp). Format: PKWARE's APPNOTE.TXT (sections 4.3.7, 4.3.12, 4.3.14-16, 4.5.3).
#include "lsgl/io/zip_archive.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "lsgl/util/gzip.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the ZIP reader assumes little endian");

namespace lsgl {

namespace {

constexpr std::uint32_t kEnd = 0x06054b50, kEnd64 = 0x06064b50, kLocator64 = 0x07064b50;
constexpr std::uint32_t kCentral = 0x02014b50, kLocal = 0x04034b50;

template <class T>
T get(const std::string& b, std::size_t at) {
  T v{};
  if (at + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

// Bytes [off, off + len) of `fd`; fewer at the end of the file.
std::string read_at(int fd, std::int64_t off, std::int64_t len, const std::string& path) {
  std::string b(static_cast<std::size_t>(std::max<std::int64_t>(len, 0)), '\0');
  std::size_t done = 0;
  while (done < b.size()) {
    const ssize_t r = ::pread(fd, &b[done], b.size() - done, off + done);
    if (r < 0) throw std::runtime_error("cannot read '" + path + "': " + std::strerror(errno));
    if (r == 0) break;
    done += static_cast<std::size_t>(r);
  }
  b.resize(done);
  return b;
}

class Fd {
 public:
  explicit Fd(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (fd < 0) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { ::close(fd); }
  int fd;
};

std::int64_t file_size(int fd) {
  struct stat st {};
  fstat(fd, &st);
  return st.st_size;
}

// The ZIP64 extended information of a central entry: the fields that are 0xFFFFFFFF in the
// entry, in the order size, compressed size, offset (APPNOTE 4.5.3).
void apply_zip64_extra(const std::string& extra, std::int64_t& size, std::int64_t& compressed,
                       std::int64_t& offset) {
  for (std::size_t at = 0; at + 4 <= extra.size();) {
    const auto id = get<std::uint16_t>(extra, at), len = get<std::uint16_t>(extra, at + 2);
    if (id == 1) {
      std::size_t f = at + 4;
      for (std::int64_t* v : {&size, &compressed, &offset})
        if (*v == 0xFFFFFFFF && f + 8 <= at + 4 + len) {
          *v = static_cast<std::int64_t>(get<std::uint64_t>(extra, f));
          f += 8;
        }
    }
    at += 4 + len;
  }
}

// Where the central directory starts and how many bytes it has, from the end records.
std::pair<std::int64_t, std::int64_t> central_directory(int fd, std::int64_t fsize,
                                                        const std::string& path) {
  const std::int64_t tail_len = std::min<std::int64_t>(fsize, 22 + 65535);
  const std::string tail = read_at(fd, fsize - tail_len, tail_len, path);
  std::int64_t at = -1;
  for (std::int64_t i = tail_len - 22; i >= 0 && at < 0; --i)
    if (get<std::uint32_t>(tail, static_cast<std::size_t>(i)) == kEnd) at = i;
  if (at < 0)
    throw std::runtime_error("'" + path + "' is not a complete ZIP archive (no end record: " +
                             "truncated, or not a .npz)");
  const auto i = static_cast<std::size_t>(at);
  std::int64_t cd_size = get<std::uint32_t>(tail, i + 12);
  std::int64_t cd_offset = get<std::uint32_t>(tail, i + 16);
  if ((cd_size == 0xFFFFFFFF || cd_offset == 0xFFFFFFFF) && at >= 20 &&
      get<std::uint32_t>(tail, i - 20) == kLocator64) {
    const auto end64_at = static_cast<std::int64_t>(get<std::uint64_t>(tail, i - 12));
    const std::string end64 = read_at(fd, end64_at, 56, path);
    if (end64.size() < 56 || get<std::uint32_t>(end64, 0) != kEnd64)
      throw std::runtime_error("'" + path + "': damaged ZIP64 end record");
    cd_size = static_cast<std::int64_t>(get<std::uint64_t>(end64, 40));
    cd_offset = static_cast<std::int64_t>(get<std::uint64_t>(end64, 48));
  }
  if (cd_offset < 0 || cd_size < 0 || cd_offset + cd_size > fsize)
    throw std::runtime_error("'" + path + "': the ZIP directory lies beyond the end of the " +
                             "file (truncated?)");
  return {cd_offset, cd_size};
}

}  // namespace

std::vector<ZipMember> zip_members(const std::string& path) {
  const Fd f(path);
  const std::int64_t fsize = file_size(f.fd);
  const auto [cd_offset, cd_size] = central_directory(f.fd, fsize, path);
  const std::string cd = read_at(f.fd, cd_offset, cd_size, path);
  std::vector<ZipMember> out;
  for (std::size_t at = 0; at + 46 <= cd.size();) {
    if (get<std::uint32_t>(cd, at) != kCentral)
      throw std::runtime_error("'" + path + "': damaged ZIP directory");
    ZipMember m;
    const auto flags = get<std::uint16_t>(cd, at + 8);
    m.method = get<std::uint16_t>(cd, at + 10);
    m.compressed = get<std::uint32_t>(cd, at + 20);
    m.size = get<std::uint32_t>(cd, at + 24);
    const std::size_t name_len = get<std::uint16_t>(cd, at + 28);
    const std::size_t extra_len = get<std::uint16_t>(cd, at + 30);
    const std::size_t comment_len = get<std::uint16_t>(cd, at + 32);
    std::int64_t local = get<std::uint32_t>(cd, at + 42);
    m.name = cd.substr(at + 46, name_len);
    apply_zip64_extra(cd.substr(at + 46 + name_len, extra_len), m.size, m.compressed, local);
    if (flags & 1) throw std::runtime_error("'" + path + "': member '" + m.name + "' is encrypted");
    const std::string lh = read_at(f.fd, local, 30, path);
    if (lh.size() < 30 || get<std::uint32_t>(lh, 0) != kLocal)
      throw std::runtime_error("'" + path + "': member '" + m.name + "' is damaged or beyond " +
                               "the end of the file (truncated?)");
    m.data_offset = local + 30 + get<std::uint16_t>(lh, 26) + get<std::uint16_t>(lh, 28);
    if (m.data_offset + m.compressed > fsize)
      throw std::runtime_error("'" + path + "': member '" + m.name + "' ends beyond the end of " +
                               "the file (truncated?)");
    out.push_back(m);
    at += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

ZipMemberSource::ZipMemberSource(const std::string& path, const ZipMember& member)
    : path_(path), member_(member) {
  if (member.method != 0 && member.method != 8)
    throw std::runtime_error("'" + path + "': member '" + member.name + "' uses ZIP method " +
                             std::to_string(member.method) + "; lsgl reads stored and deflated " +
                             "members (numpy.savez, numpy.savez_compressed)");
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error("cannot open '" + path + "': " + std::strerror(errno));
  if (member.method == 8) inflater_ = std::make_unique<RawInflater>();
}

ZipMemberSource::~ZipMemberSource() { ::close(fd_); }

void ZipMemberSource::fill(std::int64_t bytes) {
  constexpr std::int64_t kChunk = std::int64_t(1) << 20;
  if (pending_at_ > 0) {
    pending_.erase(0, pending_at_);
    pending_at_ = 0;
  }
  while (static_cast<std::int64_t>(pending_.size()) < bytes && consumed_ < member_.compressed) {
    const std::int64_t want =
        member_.method == 0 ? bytes - static_cast<std::int64_t>(pending_.size()) : kChunk;
    const std::string in = read_at(fd_, member_.data_offset + consumed_,
                                   std::min(want, member_.compressed - consumed_), path_);
    if (in.empty()) break;
    consumed_ += static_cast<std::int64_t>(in.size());
    try {
      if (inflater_) {
        inflater_->feed(in, pending_);
      } else {
        pending_ += in;
      }
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("'" + path_ + "': member '" + member_.name + "': " + e.what());
    }
  }
}

bool ZipMemberSource::read(void* buf, std::int64_t bytes) {
  fill(bytes);
  if (static_cast<std::int64_t>(pending_.size()) < bytes) return false;
  std::memcpy(buf, pending_.data(), static_cast<std::size_t>(bytes));
  pending_at_ = static_cast<std::size_t>(bytes);
  return true;
}

bool ZipMemberSource::skip(std::int64_t bytes) {
  if (!inflater_) {  // stored: move the offset
    const std::int64_t have = static_cast<std::int64_t>(pending_.size() - pending_at_);
    const std::int64_t from_file = std::max<std::int64_t>(bytes - have, 0);
    pending_at_ += static_cast<std::size_t>(std::min(bytes, have));
    if (consumed_ + from_file > member_.compressed) return false;
    consumed_ += from_file;
    return true;
  }
  constexpr std::int64_t kChunk = std::int64_t(1) << 22;
  while (bytes > 0) {
    const std::int64_t k = std::min(bytes, kChunk);
    fill(k);
    if (static_cast<std::int64_t>(pending_.size()) < k) return false;
    pending_at_ = static_cast<std::size_t>(k);
    bytes -= k;
  }
  return true;
}

}  // namespace lsgl
