#pragma once
// What the libFuzzer targets of files share: the fuzz input read as a stream of choices, MPI on
// one process, a scratch directory, and a structure-aware mutator of HDF5 files. A valid
// template, written once by lsgl's own writer, is copied and the input, read as operations,
// overwrites values of its datasets and attributes with edge values (NaN, infinities, -1, huge
// integers, arbitrary bits), deletes them, or replaces them with others of another type or
// shape. So the targets exercise lsgl's validation of what a file holds, not libhdf5's parsing
// of corrupt bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lsgl::fuzz {

// The fuzz input as a stream of choices; past its end every read returns 0.
class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : p_(data), n_(size) {}
  bool empty() const { return at_ >= n_; }
  std::uint8_t byte() { return at_ < n_ ? p_[at_++] : 0; }
  std::uint64_t u64();
  std::int64_t below(std::int64_t n) { return n > 0 ? static_cast<std::int64_t>(u64() % n) : 0; }
  double real();                      // an edge value or arbitrary bits
  std::int64_t integer();             // an edge value or arbitrary bits
  std::string text(std::size_t max);  // up to max bytes, as given
  std::string rest() {                // the bytes not read yet
    const std::string s(reinterpret_cast<const char*>(p_) + at_, n_ - at_);
    at_ = n_;
    return s;
  }

 private:
  const std::uint8_t* p_;
  std::size_t n_, at_ = 0;
};

// MPI_Init once (the targets use MPI_COMM_SELF), HDF5's error printing off, and a directory of
// this process for the files of one run.
void init_process(int* argc, char*** argv);
const std::string& scratch_dir();

// The datasets (full paths) and the attributes (object, name) of an HDF5 file.
struct Inventory {
  std::vector<std::string> datasets;
  std::vector<std::pair<std::string, std::string>> attributes;
};
Inventory inventory(const std::string& path);

// Copies `templ` to `out` and applies up to 8 operations read from `in`.
void mutate_copy(const std::string& templ, const Inventory& inv, const std::string& out, Input& in);

// Local. Writes `bytes` to `path` (gzip-compressed when gz), throwing on failure.
void write_file(const std::string& path, const std::string& bytes, bool gz = false);

}  // namespace lsgl::fuzz
