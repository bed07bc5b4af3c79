#pragma once
// Thin RAII and helper layer over parallel HDF5 (MPI-IO driver). Every function taking a File
// is collective over the communicator the file was opened with, unless it says otherwise.
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace lsgl::h5 {

// An open HDF5 file handle (closed on destruction).
class File {
 public:
  File() = default;
  File(hid_t id, MPI_Comm comm) : id_(id), comm_(comm) {}
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  File(File&& o) noexcept : id_(o.id_), comm_(o.comm_) { o.id_ = -1; }
  File& operator=(File&& o) noexcept;
  ~File();
  hid_t id() const { return id_; }
  MPI_Comm comm() const { return comm_; }
  // Collective. Closes the file, throwing on failure (e.g. a full disk on flush).
  void close();

 private:
  hid_t id_ = -1;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Collective. Creates (truncating) / opens read-only with the MPI-IO driver. Throws
// CollectiveError on every rank on failure.
File create(MPI_Comm comm, const std::string& path);
File open_read(MPI_Comm comm, const std::string& path);

// Collective. Opens an existing file for reading and writing with the MPI-IO driver.
File open_write(MPI_Comm comm, const std::string& path);
// Collective. Removes the link `name` (a group with all below it, or a dataset) if present; the
// file does not shrink.
void remove(const File& f, const std::string& name);

// Collective. Creates the groups of `path` that are missing ("/graph" etc.).
void ensure_group(const File& f, const std::string& path);

// Collective. Writes a 1-D dataset of global length `global_n`; this rank writes `local`
// at offset `offset`. T in {double, float, int64_t, int32_t, uint8_t}.
template <class T>
void write_1d(const File& f, const std::string& name, const std::vector<T>& local,
              std::int64_t offset, std::int64_t global_n);

// Collective. Writes a 2-D row-major dataset of global shape (global_rows, cols); this rank
// writes local.size()/cols rows at row `row_offset`.
template <class T>
void write_2d(const File& f, const std::string& name, const std::vector<T>& local,
              std::int64_t row_offset, std::int64_t global_rows, std::int64_t cols);

// Collective. Reads `count` entries of a 1-D dataset from `offset`.
template <class T>
std::vector<T> read_1d(const File& f, const std::string& name, std::int64_t offset,
                       std::int64_t count);

// Collective. Reads rows [row_offset, row_offset + rows) of a 2-D dataset, row-major.
template <class T>
std::vector<T> read_2d(const File& f, const std::string& name, std::int64_t row_offset,
                       std::int64_t rows);

// Collective. Global length of a 1-D dataset (throws CollectiveError if missing / not 1-D).
std::int64_t length_1d(const File& f, const std::string& name);

// Element type and shape of a dataset.
struct DatasetInfo {
  H5T_class_t type_class = H5T_NO_CLASS;
  std::size_t type_size = 0;  // bytes per element
  bool is_signed = false;     // integers only
  std::vector<std::int64_t> dims;
  // For messages: "2-D float64", "1-D int32", "0-D string", ...
  std::string describe() const;
};

// Collective. Type and shape of dataset `name` (throws CollectiveError when it is missing).
DatasetInfo dataset_info(const File& f, const std::string& name);

enum class ObjectKind { kMissing, kDataset, kGroup, kOther };

// Collective. What `name` is in the file.
ObjectKind object_kind(const File& f, const std::string& name);

// Collective. Every dataset of the file ("/obsm/X_pca", ...) with its type and shape, in
// HDF5's visiting order (names sorted within a group).
std::vector<std::pair<std::string, DatasetInfo>> list_datasets(const File& f);

// Collective (every rank passes the same value). Attributes on a group or dataset `obj`
// ("/" for the file itself).
void set_attr(const File& f, const std::string& obj, const std::string& name, double v);
void set_attr(const File& f, const std::string& obj, const std::string& name, std::int64_t v);
void set_attr(const File& f, const std::string& obj, const std::string& name, std::uint64_t v);
void set_attr(const File& f, const std::string& obj, const std::string& name,
              const std::string& v);

// A 1-D int64 array attribute.
void set_attr(const File& f, const std::string& obj, const std::string& name,
              const std::vector<std::int64_t>& v);
// Collective (every rank passes the same value). A 0-D dataset (missing groups created): a
// string as fixed-length UTF-8, a double, an int64.
void write_scalar(const File& f, const std::string& name, const std::string& v);
void write_scalar(const File& f, const std::string& name, double v);
void write_scalar(const File& f, const std::string& name, std::int64_t v);

// Collective. The names of the attributes of object `obj` ("/" for the file) in name order,
// with their HDF5 type classes (H5T_NO_CLASS when the type cannot be read). Throws
// CollectiveError when `obj` is missing or its attributes cannot be listed.
std::vector<std::pair<std::string, H5T_class_t>> list_attributes(const File& f,
                                                                 const std::string& obj);

// Collective. Attribute readers; throw CollectiveError when the attribute is missing.
double get_attr_double(const File& f, const std::string& obj, const std::string& name);
// Whether object `obj` has an attribute `name` (false when obj is missing).
bool has_attr(const File& f, const std::string& obj, const std::string& name);
std::int64_t get_attr_int(const File& f, const std::string& obj, const std::string& name);
std::string get_attr_string(const File& f, const std::string& obj, const std::string& name);

}  // namespace lsgl::h5

namespace lsgl {

// Collective. The one atomic writer of HDF5 files: write_atomically (util/atomic_file.hpp)
// creates the file at this run's unique temporary name (PATH.partial.<pid>.<random>), runs
// write(file), closes it and renames it to `path`; on any failure the temporary file is
// removed and the error is raised on every rank.
void write_hdf5_atomically(MPI_Comm comm, const std::string& path,
                           const std::function<void(const h5::File&)>& write);

}  // namespace lsgl
