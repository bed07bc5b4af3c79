// Unique temporary files and the rename commit (see atomic_file.hpp).
#include "lsgl/util/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

void commit(const std::string& tmp, const std::string& path, const AtomicWriteOptions& o) {
  refuse_non_regular(path);
  if (o.keep_previous) keep_previous(path);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "': " + errno_text());
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
      throw std::runtime_error("cannot write output '" + path + "': " + errno_text());
  }
}

void check_writable(MPI_Comm comm, const std::string& path) {
  collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    const std::string probe = create_unique_temporary(path);
    ::unlink(probe.c_str());
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
