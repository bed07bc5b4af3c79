// Parallel HDF5 helpers (see h5.hpp). Every outcome that could differ between ranks goes through
// collective_check, so a failure raises CollectiveError on all ranks together.
#include "lsgl/io/h5.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <type_traits>

#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::h5 {
namespace {

// Most bytes one rank moves in one H5Dread/H5Dwrite call (keeps MPI-IO counts below 2^31).
constexpr std::int64_t kMaxTransferBytes = std::int64_t(1) << 30;

// Owns an HDF5 identifier and closes it with the matching H5*close function.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Id(Id&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  Id& operator=(Id&&) = delete;
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// Memory and file (little-endian) HDF5 types of the supported element types.
template <class T>
struct Type;
template <>
struct Type<double> {
  static hid_t mem() { return H5T_NATIVE_DOUBLE; }
  static hid_t file() { return H5T_IEEE_F64LE; }
};
template <>
struct Type<float> {
  static hid_t mem() { return H5T_NATIVE_FLOAT; }
  static hid_t file() { return H5T_IEEE_F32LE; }
};
template <>
struct Type<std::int64_t> {
  static hid_t mem() { return H5T_NATIVE_INT64; }
  static hid_t file() { return H5T_STD_I64LE; }
};
template <>
struct Type<std::int32_t> {
  static hid_t mem() { return H5T_NATIVE_INT32; }
  static hid_t file() { return H5T_STD_I32LE; }
};
template <>
struct Type<std::uint8_t> {
  static hid_t mem() { return H5T_NATIVE_UINT8; }
  static hid_t file() { return H5T_STD_U8LE; }
};

// HDF5 prints its error stack by default; here every failure becomes an exception instead.
void quiet_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

std::string file_name(const File& f) {
  const ssize_t len = H5Fget_name(f.id(), nullptr, 0);
  if (len <= 0) return "?";
  std::string s(static_cast<std::size_t>(len) + 1, '\0');
  H5Fget_name(f.id(), &s[0], s.size());
  s.resize(static_cast<std::size_t>(len));
  return s;
}

// "'name' in 'file'", for messages.
std::string where(const File& f, const std::string& name) {
  return "'" + name + "' in '" + file_name(f) + "'";
}

Id mpio_fapl(MPI_Comm comm) {
  Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
  H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL);
  return fapl;
}

Id open_dataset(const File& f, const std::string& name) {
  Id d(H5Dopen2(f.id(), name.c_str(), H5P_DEFAULT), H5Dclose);
  collective_check(f.comm(), d.ok(), "dataset " + where(f, name) + " not found");
  return d;
}

DatasetInfo info_of(hid_t dset) {
  DatasetInfo info;
  Id type(H5Dget_type(dset), H5Tclose);
  info.type_class = H5Tget_class(type.get());
  info.type_size = H5Tget_size(type.get());
  info.is_signed = info.type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2;
  Id space(H5Dget_space(dset), H5Sclose);
  const int nd = std::max(H5Sget_simple_extent_ndims(space.get()), 0);
  std::vector<hsize_t> dims(static_cast<std::size_t>(nd));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  info.dims.assign(dims.begin(), dims.end());
  return info;
}

// Collective. Creates dataset `name` (and missing parent groups) of the given shape. Space is
// allocated without writing fill values: every element is written afterwards.
Id create_dataset(const File& f, const std::string& name, hid_t file_type,
                  const std::vector<hsize_t>& dims) {
  Id space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  Id dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
  H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
  Id d(
      H5Dcreate2(f.id(), name.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
      H5Dclose);
  collective_check(f.comm(), d.ok(),
                   "cannot create dataset " + where(f, name) + " (does it exist already?)");
  return d;
}

// Collective. Moves rows [row_offset, row_offset + rows) of dataset `dset` (rows of `row_elems`
// elements; 1-D or 2-D) between `buf` and the file with collective MPI-IO, in calls of at most
// kMaxTransferBytes per rank. Every rank makes the same number of calls; a rank with nothing
// (left) to move takes part with empty selections.
void transfer(const File& f, hid_t dset, const std::string& name, hid_t mem_type,
              std::size_t elem_bytes, bool write, void* buf, std::int64_t row_offset,
              std::int64_t rows, std::int64_t row_elems) {
  const std::int64_t row_bytes =
      std::max<std::int64_t>(row_elems, 1) * static_cast<std::int64_t>(elem_bytes);
  const std::int64_t per_call = std::max<std::int64_t>(kMaxTransferBytes / row_bytes, 1);
  const std::int64_t my_calls = row_elems > 0 ? (rows + per_call - 1) / per_call : 0;
  const std::int64_t calls = allreduce_max(f.comm(), my_calls);

  Id dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  char dummy = 0;  // HDF5 wants a non-null buffer even for an empty selection
  for (std::int64_t k = 0; k < calls; ++k) {
    const std::int64_t done = k * per_call;
    const std::int64_t now = k < my_calls ? std::min(per_call, rows - done) : 0;
    Id fspace(H5Dget_space(dset), H5Sclose);
    const hsize_t mcount = static_cast<hsize_t>(std::max<std::int64_t>(now * row_elems, 1));
    Id mspace(H5Screate_simple(1, &mcount, nullptr), H5Sclose);
    void* p = &dummy;
    if (now > 0) {
      const hsize_t start[2] = {static_cast<hsize_t>(row_offset + done), 0};
      const hsize_t count[2] = {static_cast<hsize_t>(now), static_cast<hsize_t>(row_elems)};
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
      p = static_cast<char*>(buf) + done * row_elems * static_cast<std::int64_t>(elem_bytes);
    } else {
      H5Sselect_none(fspace.get());
      H5Sselect_none(mspace.get());
    }
    const herr_t st = write ? H5Dwrite(dset, mem_type, mspace.get(), fspace.get(), dxpl.get(), p)
                            : H5Dread(dset, mem_type, mspace.get(), fspace.get(), dxpl.get(), p);
    collective_check(f.comm(), st >= 0,
                     std::string(write ? "cannot write" : "cannot read") + " dataset " +
                         where(f, name) + (write ? " (disk full?)" : ""));
  }
}

// Collective. Opens `name` and checks that it is an `ndims`-D array readable as T (integers
// for integer T, integers or floats for floating-point T).
template <class T>
Id open_for_read(const File& f, const std::string& name, std::size_t ndims, DatasetInfo* info) {
  Id d = open_dataset(f, name);
  *info = info_of(d.get());
  const bool numeric = info->type_class == H5T_INTEGER ||
                       (std::is_floating_point<T>::value && info->type_class == H5T_FLOAT);
  collective_check(f.comm(), numeric && info->dims.size() == ndims,
                   "dataset " + where(f, name) + " is " + info->describe() + ", expected a " +
                       std::to_string(ndims) + "-D " +
                       (std::is_floating_point<T>::value ? "numeric" : "integer") + " array");
  return d;
}

template <class T>
std::vector<T> read_rows(const File& f, const std::string& name, std::size_t ndims,
                         std::int64_t row_offset, std::int64_t rows) {
  DatasetInfo info;
  Id d = open_for_read<T>(f, name, ndims, &info);
  const std::int64_t row_elems = ndims == 2 ? info.dims[1] : 1;
  collective_check(f.comm(), row_offset >= 0 && rows >= 0 && row_offset + rows <= info.dims[0],
                   "cannot read rows [" + std::to_string(row_offset) + ", " +
                       std::to_string(row_offset + rows) + ") of dataset " + where(f, name) +
                       ": it has " + std::to_string(info.dims[0]));
  std::vector<T> out;
  collectively(f.comm(), [&] { out.resize(static_cast<std::size_t>(rows * row_elems)); });
  transfer(f, d.get(), name, Type<T>::mem(), sizeof(T), false, out.data(), row_offset, rows,
           row_elems);
  return out;
}

// Collective. Opens object `obj` ("/" = root group).
Id open_object(const File& f, const std::string& obj) {
  Id o(H5Oopen(f.id(), obj.c_str(), H5P_DEFAULT), H5Oclose);
  collective_check(f.comm(), o.ok(), "object " + where(f, obj) + " not found");
  return o;
}

// Collective. Writes (replacing) a scalar attribute.
void write_attr(const File& f, const std::string& obj, const std::string& name, hid_t file_type,
                hid_t mem_type, const void* value) {
  Id o = open_object(f, obj);
  if (H5Aexists(o.get(), name.c_str()) > 0) H5Adelete(o.get(), name.c_str());
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Id a(H5Acreate2(o.get(), name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
       H5Aclose);
  const bool ok = a.ok() && H5Awrite(a.get(), mem_type, value) >= 0;
  collective_check(f.comm(), ok, "cannot write attribute '" + name + "' of " + where(f, obj));
}

// Collective. Opens attribute `name` of `obj` and hands it to read(attr id, file type id).
template <class Fn>
void read_attr(const File& f, const std::string& obj, const std::string& name, Fn&& read) {
  Id o = open_object(f, obj);
  const bool exists = H5Aexists(o.get(), name.c_str()) > 0;
  collective_check(f.comm(), exists, "attribute '" + name + "' of " + where(f, obj) + " not found");
  Id a(H5Aopen(o.get(), name.c_str(), H5P_DEFAULT), H5Aclose);
  Id type(H5Aget_type(a.get()), H5Tclose);
  read(a.get(), type.get());
}

// Collective. Reads a one-element numeric attribute as `mem_type`; `integer` requires an
// integer attribute.
void read_number_attr(const File& f, const std::string& obj, const std::string& name,
                      hid_t mem_type, bool integer, void* value) {
  read_attr(f, obj, name, [&](hid_t a, hid_t type) {
    const H5T_class_t cls = H5Tget_class(type);
    Id space(H5Aget_space(a), H5Sclose);
    const bool ok = (cls == H5T_INTEGER || (!integer && cls == H5T_FLOAT)) &&
                    H5Sget_simple_extent_npoints(space.get()) == 1 &&
                    H5Aread(a, mem_type, value) >= 0;
    collective_check(f.comm(), ok,
                     "attribute '" + name + "' of " + where(f, obj) + " is not a single " +
                         (integer ? "integer" : "number"));
  });
}

}  // namespace

std::string DatasetInfo::describe() const {
  const std::string bits = std::to_string(type_size * 8);
  std::string type;
  switch (type_class) {
    case H5T_INTEGER:
      type = (is_signed ? "int" : "uint") + bits;
      break;
    case H5T_FLOAT:
      type = "float" + bits;
      break;
    case H5T_STRING:
      type = "string";
      break;
    case H5T_COMPOUND:
      type = "compound";
      break;
    default:
      type = "non-numeric";
      break;
  }
  return std::to_string(dims.size()) + "-D " + type;
}

File& File::operator=(File&& o) noexcept {
  if (this != &o) {
    if (id_ >= 0) H5Fclose(id_);
    id_ = o.id_;
    comm_ = o.comm_;
    o.id_ = -1;
  }
  return *this;
}

File::~File() {
  if (id_ >= 0) H5Fclose(id_);
}

void File::close() {
  if (id_ < 0) return;
  const std::string name = file_name(*this);
  const herr_t st = H5Fclose(id_);
  id_ = -1;
  collective_check(comm_, st >= 0, "cannot close '" + name + "' (disk full or I/O error?)");
}

// H5Fcreate/H5Fopen are collective and MPI_File_open agrees on errors across ranks, so the
// outcome is the same everywhere. Should it ever differ, a rank that did open the file leaves
// it open: closing it alone would wait forever for the others.
File create(MPI_Comm comm, const std::string& path) {
  quiet_errors();
  Id fapl = mpio_fapl(comm);
  const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get());
  collective_check(comm, id >= 0,
                   "cannot create '" + path + "' (missing directory or no write permission?)");
  return File(id, comm);
}

namespace {

// Collective. Opens an existing file with H5Fopen `flags`, after access(path, mode); `what`:
// "" or " for writing", for the messages.
File open_existing(MPI_Comm comm, const std::string& path, unsigned flags, int mode,
                   const std::string& what) {
  quiet_errors();
  const bool ok = access(path.c_str(), mode) == 0;
  const int err = errno;
  collective_check(comm, ok, "cannot open '" + path + "'" + what + ": " + std::strerror(err));
  Id fapl = mpio_fapl(comm);
  const hid_t id = H5Fopen(path.c_str(), flags, fapl.get());
  collective_check(comm, id >= 0, "cannot open '" + path + "'" + what + ": not an HDF5 file");
  return File(id, comm);
}

}  // namespace

File open_read(MPI_Comm comm, const std::string& path) {
  return open_existing(comm, path, H5F_ACC_RDONLY, R_OK, "");
}

File open_write(MPI_Comm comm, const std::string& path) {
  return open_existing(comm, path, H5F_ACC_RDWR, R_OK | W_OK, " for writing");
}

void remove(const File& f, const std::string& name) {
  if (H5Lexists(f.id(), name.c_str(), H5P_DEFAULT) <= 0) return;
  collective_check(f.comm(), H5Ldelete(f.id(), name.c_str(), H5P_DEFAULT) >= 0,
                   "cannot remove " + where(f, name));
}

void ensure_group(const File& f, const std::string& path) {
  std::string prefix;
  std::size_t at = 0;
  while (at < path.size()) {
    const std::size_t next = std::min(path.find('/', at), path.size());
    if (next > at) {
      prefix += "/" + path.substr(at, next - at);
      const htri_t exists = H5Lexists(f.id(), prefix.c_str(), H5P_DEFAULT);
      bool ok = exists > 0;
      if (exists == 0) {
        Id g(H5Gcreate2(f.id(), prefix.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        ok = g.ok();
      }
      collective_check(f.comm(), ok, "cannot create group " + where(f, prefix));
    }
    at = next + 1;
  }
}

template <class T>
void write_1d(const File& f, const std::string& name, const std::vector<T>& local,
              std::int64_t offset, std::int64_t global_n) {
  const auto count = static_cast<std::int64_t>(local.size());
  collective_check(f.comm(), offset >= 0 && offset + count <= global_n,
                   "write_1d: entries [" + std::to_string(offset) + ", " +
                       std::to_string(offset + count) + ") lie outside dataset " + where(f, name) +
                       " of length " + std::to_string(global_n));
  Id d = create_dataset(f, name, Type<T>::file(), {static_cast<hsize_t>(global_n)});
  transfer(f, d.get(), name, Type<T>::mem(), sizeof(T), true, const_cast<T*>(local.data()), offset,
           count, 1);
}

template <class T>
void write_2d(const File& f, const std::string& name, const std::vector<T>& local,
              std::int64_t row_offset, std::int64_t global_rows, std::int64_t cols) {
  const auto size = static_cast<std::int64_t>(local.size());
  const std::int64_t rows = cols > 0 ? size / cols : 0;
  const bool ok = cols >= 0 && (cols > 0 ? size % cols == 0 : size == 0) && row_offset >= 0 &&
                  row_offset + rows <= global_rows;
  collective_check(f.comm(), ok,
                   "write_2d: " + std::to_string(size) + " values at row " +
                       std::to_string(row_offset) + " do not fit dataset " + where(f, name) +
                       " of shape " + std::to_string(global_rows) + " x " + std::to_string(cols));
  Id d = create_dataset(f, name, Type<T>::file(),
                        {static_cast<hsize_t>(global_rows), static_cast<hsize_t>(cols)});
  transfer(f, d.get(), name, Type<T>::mem(), sizeof(T), true, const_cast<T*>(local.data()),
           row_offset, rows, cols);
}

template <class T>
std::vector<T> read_1d(const File& f, const std::string& name, std::int64_t offset,
                       std::int64_t count) {
  return read_rows<T>(f, name, 1, offset, count);
}

template <class T>
std::vector<T> read_2d(const File& f, const std::string& name, std::int64_t row_offset,
                       std::int64_t rows) {
  return read_rows<T>(f, name, 2, row_offset, rows);
}

std::int64_t length_1d(const File& f, const std::string& name) {
  const DatasetInfo info = dataset_info(f, name);
  collective_check(f.comm(), info.dims.size() == 1,
                   "dataset " + where(f, name) + " is " + info.describe() + ", expected 1-D");
  return info.dims[0];
}

DatasetInfo dataset_info(const File& f, const std::string& name) {
  Id d = open_dataset(f, name);
  return info_of(d.get());
}

ObjectKind object_kind(const File& f, const std::string& name) {
  if (name != "/" && H5Lexists(f.id(), name.c_str(), H5P_DEFAULT) <= 0) return ObjectKind::kMissing;
  H5O_info_t info;
  if (H5Oget_info_by_name2(f.id(), name.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
    return ObjectKind::kMissing;
  if (info.type == H5O_TYPE_DATASET) return ObjectKind::kDataset;
  if (info.type == H5O_TYPE_GROUP) return ObjectKind::kGroup;
  return ObjectKind::kOther;
}

namespace {

herr_t collect_dataset(hid_t obj, const char* name, const H5O_info_t* info, void* out) {
  if (info->type != H5O_TYPE_DATASET) return 0;
  Id d(H5Dopen2(obj, name, H5P_DEFAULT), H5Dclose);
  if (d.ok())
    static_cast<std::vector<std::pair<std::string, DatasetInfo>>*>(out)->emplace_back(
        std::string("/") + name, info_of(d.get()));
  return 0;
}

}  // namespace

std::vector<std::pair<std::string, DatasetInfo>> list_datasets(const File& f) {
  std::vector<std::pair<std::string, DatasetInfo>> out;
  H5Ovisit2(f.id(), H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &out, H5O_INFO_BASIC);
  return out;
}

void set_attr(const File& f, const std::string& obj, const std::string& name, double v) {
  write_attr(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

void set_attr(const File& f, const std::string& obj, const std::string& name, std::int64_t v) {
  write_attr(f, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

void set_attr(const File& f, const std::string& obj, const std::string& name, std::uint64_t v) {
  write_attr(f, obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v);
}

void set_attr(const File& f, const std::string& obj, const std::string& name,
              const std::vector<std::int64_t>& v) {
  Id o = open_object(f, obj);
  if (H5Aexists(o.get(), name.c_str()) > 0) H5Adelete(o.get(), name.c_str());
  const hsize_t n = v.size();
  Id space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Id a(H5Acreate2(o.get(), name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
       H5Aclose);
  const bool ok = a.ok() && H5Awrite(a.get(), H5T_NATIVE_INT64, v.data()) >= 0;
  collective_check(f.comm(), ok, "cannot write attribute '" + name + "' of " + where(f, obj));
}

namespace {

// Collective. A 0-D dataset of `file_type` holding *value (rank 0 writes it).
void write_scalar_value(const File& f, const std::string& name, hid_t file_type, hid_t mem_type,
                        const void* value) {
  Id space(H5Screate(H5S_SCALAR), H5Sclose);
  Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  Id d(H5Dcreate2(f.id(), name.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT,
                  H5P_DEFAULT),
       H5Dclose);
  collective_check(f.comm(), d.ok(),
                   "cannot create dataset " + where(f, name) + " (does it exist already?)");
  Id mspace(H5Screate(H5S_SCALAR), H5Sclose);
  if (comm_rank(f.comm()) != 0) {
    H5Sselect_none(space.get());
    H5Sselect_none(mspace.get());
  }
  Id dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
  H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE);
  const herr_t st = H5Dwrite(d.get(), mem_type, mspace.get(), space.get(), dxpl.get(), value);
  collective_check(f.comm(), st >= 0, "cannot write dataset " + where(f, name));
}

}  // namespace

void write_scalar(const File& f, const std::string& name, const std::string& v) {
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), v.size() + 1);
  H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  write_scalar_value(f, name, type.get(), type.get(), v.c_str());
}

void write_scalar(const File& f, const std::string& name, double v) {
  write_scalar_value(f, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

void write_scalar(const File& f, const std::string& name, std::int64_t v) {
  write_scalar_value(f, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

// Stored as a fixed-length, NUL-terminated UTF-8 string.
void set_attr(const File& f, const std::string& obj, const std::string& name,
              const std::string& v) {
  Id type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), v.size() + 1);
  H5Tset_strpad(type.get(), H5T_STR_NULLTERM);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  write_attr(f, obj, name, type.get(), type.get(), v.c_str());
}

namespace {

herr_t collect_attribute(hid_t loc, const char* name, const H5A_info_t*, void* out) {
  H5T_class_t cls = H5T_NO_CLASS;
  Id a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
  if (a.ok()) {
    Id t(H5Aget_type(a.get()), H5Tclose);
    if (t.ok()) cls = H5Tget_class(t.get());
  }
  static_cast<std::vector<std::pair<std::string, H5T_class_t>>*>(out)->emplace_back(name, cls);
  return 0;
}

}  // namespace

std::vector<std::pair<std::string, H5T_class_t>> list_attributes(const File& f,
                                                                 const std::string& obj) {
  Id o = open_object(f, obj);
  std::vector<std::pair<std::string, H5T_class_t>> out;
  hsize_t idx = 0;
  const herr_t rc =
      H5Aiterate2(o.get(), H5_INDEX_NAME, H5_ITER_NATIVE, &idx, collect_attribute, &out);
  collective_check(f.comm(), rc >= 0, "cannot list the attributes of " + where(f, obj));
  return out;
}

bool has_attr(const File& f, const std::string& obj, const std::string& name) {
  if (H5Lexists(f.id(), obj.c_str(), H5P_DEFAULT) <= 0 && obj != "/") return false;
  return H5Aexists_by_name(f.id(), obj.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

double get_attr_double(const File& f, const std::string& obj, const std::string& name) {
  double v = 0;
  read_number_attr(f, obj, name, H5T_NATIVE_DOUBLE, false, &v);
  return v;
}

std::int64_t get_attr_int(const File& f, const std::string& obj, const std::string& name) {
  std::int64_t v = 0;
  read_number_attr(f, obj, name, H5T_NATIVE_INT64, true, &v);
  return v;
}

// Reads fixed-length and variable-length (e.g. h5py) string attributes.
std::string get_attr_string(const File& f, const std::string& obj, const std::string& name) {
  std::string out;
  read_attr(f, obj, name, [&](hid_t a, hid_t type) {
    bool ok = H5Tget_class(type) == H5T_STRING;
    if (ok && H5Tis_variable_str(type) > 0) {
      Id mem(H5Tcopy(H5T_C_S1), H5Tclose);
      H5Tset_size(mem.get(), H5T_VARIABLE);
      H5Tset_cset(mem.get(), H5Tget_cset(type));
      char* s = nullptr;
      ok = H5Aread(a, mem.get(), &s) >= 0;
      if (ok && s) out = s;
      H5free_memory(s);
    } else if (ok) {
      std::vector<char> buf(H5Tget_size(type) + 1, '\0');
      ok = H5Aread(a, type, buf.data()) >= 0;
      out = buf.data();  // up to the first NUL
    }
    collective_check(f.comm(), ok,
                     "attribute '" + name + "' of " + where(f, obj) + " is not a string");
  });
  return out;
}

#define LSGL_H5_INSTANTIATE(T)                                                                     \
  template void write_1d<T>(const File&, const std::string&, const std::vector<T>&, std::int64_t,  \
                            std::int64_t);                                                         \
  template void write_2d<T>(const File&, const std::string&, const std::vector<T>&, std::int64_t,  \
                            std::int64_t, std::int64_t);                                           \
  template std::vector<T> read_1d<T>(const File&, const std::string&, std::int64_t, std::int64_t); \
  template std::vector<T> read_2d<T>(const File&, const std::string&, std::int64_t, std::int64_t);
LSGL_H5_INSTANTIATE(double)
LSGL_H5_INSTANTIATE(float)
LSGL_H5_INSTANTIATE(std::int64_t)
LSGL_H5_INSTANTIATE(std::int32_t)
LSGL_H5_INSTANTIATE(std::uint8_t)
#undef LSGL_H5_INSTANTIATE

}  // namespace lsgl::h5

namespace lsgl {

void write_hdf5_atomically(MPI_Comm comm, const std::string& path,
                           const std::function<void(const h5::File&)>& write) {
  write_atomically(comm, path, [&](const std::string& tmp) {
    h5::File f = h5::create(comm, tmp);
    write(f);
    f.close();
  });
}

}  // namespace lsgl
