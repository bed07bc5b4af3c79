// Unique temporary files and the rename commit (see atomic_file.hpp).
#include "lsgl/util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <stdexcept>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

std::string errno_text() { return std::strerror(errno); }

std::string random_hex() {
  std::random_device rd;
  const unsigned long long r = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", r);
  return buf;
}

// Rank 0's string on every rank.
std::string broadcast(MPI_Comm comm, std::string s) {
  long long len = static_cast<long long>(s.size());
  MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm);
  s.resize(static_cast<std::size_t>(len));
  MPI_Bcast(&s[0], static_cast<int>(len), MPI_CHAR, 0, comm);
  return s;
}

void refuse_non_regular(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw std::runtime_error("output '" + path + "' exists and is not a regular file");
}

void keep_previous(const std::string& path) {
  const std::string prev = path + ".prev";
  if (std::remove(prev.c_str()) != 0 && errno != ENOENT)
    throw std::runtime_error("cannot replace '" + prev + "': " + errno_text());
  if (access(path.c_str(), F_OK) == 0 && link(path.c_str(), prev.c_str()) != 0)
    throw std::runtime_error("cannot keep the previous checkpoint as '" + prev +
                             "': " + errno_text());
}

// What is at a path: nothing, or a file (device and inode).
struct Identity {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const Identity& o) const {
    return exists == o.exists && (!exists || (dev == o.dev && ino == o.ino));
  }
};

Identity identity_of(const std::string& path) {
  struct stat st {};
  Identity id;
  if (stat(path.c_str(), &st) == 0) id = {true, st.st_dev, st.st_ino};
  return id;
}

// Per output path checked by check_writable: what this run expects at the path when it
// commits (what was there when it started, then what it wrote itself).
std::map<std::string, Identity>& expected_at() {
  static std::map<std::string, Identity> m;
  return m;
}

// An exclusive flock on the directory of `path` for the lifetime of the object (none if the
// directory cannot be opened), so that the check and the rename of two runs do not interleave.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& path) {
    const std::size_t slash = path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : path.substr(0, slash);
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_ = -1;
};

void commit(const std::string& tmp, const std::string& path, const AtomicWriteOptions& o) {
  const DirectoryLock lock(path);
  refuse_non_regular(path);
  const auto expected = expected_at().find(path);
  const Identity now = identity_of(path);  // removed meanwhile: nothing to lose
  if (expected != expected_at().end() && now.exists && !(now == expected->second))
    throw std::runtime_error("'" + path + "' was written by another run after this one started; "
                             "it is kept and this run's output is discarded");
  if (o.keep_previous) keep_previous(path);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "': " + errno_text());
  if (expected != expected_at().end()) expected->second = identity_of(path);
}

}  // namespace

std::string temporary_name(const std::string& path) { return path + ".partial"; }

std::string create_unique_temporary(const std::string& path) {
  refuse_non_regular(path);
  const std::string prefix = temporary_name(path) + "." + std::to_string(getpid()) + ".";
  for (int attempt = 0;; ++attempt) {
    const std::string name = prefix + random_hex();
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      return name;
    }
    if (errno != EEXIST || attempt == 8)
      throw std::runtime_error("cannot create '" + path +
                               "' (its temporary file): " + errno_text());
  }
}

void check_writable(MPI_Comm comm, const std::string& path) {
  collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    const std::string probe = create_unique_temporary(path);
    ::unlink(probe.c_str());
    expected_at()[path] = identity_of(path);
  });
}

void write_atomically(MPI_Comm comm, const std::string& path,
                      const std::function<void(const std::string& tmp)>& write,
                      const AtomicWriteOptions& options) {
  const bool root = comm_rank(comm) == 0;
  std::string tmp;
  collectively(comm, [&] {
    if (root) tmp = create_unique_temporary(path);
  });
  tmp = broadcast(comm, tmp);
  try {
    collectively(comm, [&] { write(tmp); });
    MPI_Barrier(comm);  // every rank has closed the file
    collectively(comm, [&] {
      if (root) commit(tmp, path, options);
    });
  } catch (...) {
    if (root) ::unlink(tmp.c_str());
    throw;
  }
}

void write_atomically_local(const std::string& path,
                            const std::function<void(const std::string& tmp)>& write) {
  const std::string tmp = create_unique_temporary(path);
  try {
    write(tmp);
    commit(tmp, path, {});
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

void write_text(const std::string& path, const std::string& text, const std::string& what) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write '" + what + "': " + errno_text());
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int write_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed)
    throw std::runtime_error("cannot write '" + what +
                             "': " + std::strerror(written ? errno : write_errno));
}

}  // namespace lsgl
