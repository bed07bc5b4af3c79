// Shared pieces of the file-reading fuzz targets (see fuzz_support.hpp).
#include "fuzz_support.hpp"

#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace lsgl::fuzz {

std::uint64_t Input::u64() {
  std::uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= static_cast<std::uint64_t>(byte()) << (8 * b);
  return v;
}

double Input::real() {
  static const double edge[] = {std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                -1.0,
                                0.0,
                                -0.0,
                                1.0,
                                1e308,
                                1e-310,
                                3.5e38};
  const std::uint8_t c = byte();
  if (c < sizeof edge / sizeof edge[0]) return edge[c];
  const std::uint64_t bits = u64();
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return c < 128 ? static_cast<double>(static_cast<std::int64_t>(bits % 64)) : v;
}

std::int64_t Input::integer() {
  static const std::int64_t edge[] = {-1,
                                      0,
                                      1,
                                      2,
                                      std::numeric_limits<std::int64_t>::max(),
                                      std::numeric_limits<std::int64_t>::min(),
                                      std::int64_t{1} << 31,
                                      std::int64_t{1} << 36,
                                      -2};
  const std::uint8_t c = byte();
  if (c < sizeof edge / sizeof edge[0]) return edge[c];
  const std::uint64_t bits = u64();
  return c < 160 ? static_cast<std::int64_t>(bits % 32) : static_cast<std::int64_t>(bits);
}

std::string Input::text(std::size_t max) {
  const std::size_t len = static_cast<std::size_t>(below(static_cast<std::int64_t>(max) + 1));
  std::string s;
  for (std::size_t i = 0; i < len && !empty(); ++i) s += static_cast<char>(byte());
  return s;
}

void init_process(int* argc, char*** argv) {
  int done = 0;
  MPI_Initialized(&done);
  if (!done) MPI_Init(argc, argv);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  scratch_dir();
}

const std::string& scratch_dir() {
  static const std::string dir = [] {
    char name[] = "/tmp/lsgl-fuzz-XXXXXX";
    if (!mkdtemp(name)) throw std::runtime_error("cannot make a scratch directory");
    return std::string(name);
  }();
  return dir;
}

namespace {

herr_t add_attribute(hid_t, const char* name, const H5A_info_t*, void* data) {
  auto* out = static_cast<std::pair<Inventory*, std::string>*>(data);
  out->first->attributes.emplace_back(out->second, name);
  return 0;
}

herr_t visit(hid_t obj, const char* name, const H5O_info_t* info, void* data) {
  auto* inv = static_cast<Inventory*>(data);
  const std::string path = std::string(name) == "." ? "/" : std::string("/") + name;
  if (info->type == H5O_TYPE_DATASET) inv->datasets.push_back(path);
  const hid_t o = H5Oopen(obj, name, H5P_DEFAULT);
  std::pair<Inventory*, std::string> out{inv, path};
  hsize_t idx = 0;
  H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, add_attribute, &out);
  H5Oclose(o);
  return 0;
}

// Overwrites up to 8 elements of dataset `name` (read and written as double or int64).
void overwrite_values(hid_t file, const std::string& name, Input& in) {
  const hid_t d = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (d < 0) return;
  const hid_t type = H5Dget_type(d), space = H5Dget_space(d);
  const H5T_class_t cls = H5Tget_class(type);
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if ((cls == H5T_FLOAT || cls == H5T_INTEGER) && count > 0 && count <= (1 << 20)) {
    const bool real = cls == H5T_FLOAT;
    std::vector<double> dv(real ? count : 0);
    std::vector<std::int64_t> iv(real ? 0 : count);
    const hid_t mem = real ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
    void* buf = real ? static_cast<void*>(dv.data()) : static_cast<void*>(iv.data());
    if (H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
      for (int t = 1 + in.byte() % 8; t > 0; --t) {
        const std::int64_t at = in.below(count);
        if (real)
          dv[at] = in.real();
        else
          iv[at] = in.integer();
      }
      H5Dwrite(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    }
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(d);
}

// Replaces dataset `name` by one of another type and shape (up to 2-D, 0-24 per dimension).
void replace_dataset(hid_t file, const std::string& name, Input& in) {
  H5Ldelete(file, name.c_str(), H5P_DEFAULT);
  const hid_t types[] = {H5T_STD_I64LE, H5T_IEEE_F64LE, H5T_IEEE_F32LE, H5T_STD_U8LE,
                         H5T_STD_I32LE};
  const hid_t type = types[in.byte() % 5];
  const int rank = 1 + in.byte() % 2;
  hsize_t dims[2] = {static_cast<hsize_t>(in.byte() % 25), static_cast<hsize_t>(in.byte() % 25)};
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  const hid_t d =
      H5Dcreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d >= 0) {
    const hssize_t count = H5Sget_simple_extent_npoints(space);
    std::vector<double> v(static_cast<std::size_t>(count));
    for (auto& x : v) x = H5Tget_class(type) == H5T_FLOAT ? in.real() : double(in.integer() % 64);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
    H5Dclose(d);
  }
  H5Sclose(space);
}

// Replaces attribute `name` of `obj` by a scalar of a chosen type: a number of the same or
// another type, or a string.
void replace_attribute(hid_t file, const std::string& obj, const std::string& name, Input& in) {
  const hid_t o = H5Oopen(file, obj.c_str(), H5P_DEFAULT);
  if (o < 0) return;
  H5Adelete(o, name.c_str());
  const hid_t space = H5Screate(H5S_SCALAR);
  const int kind = in.byte() % 3;
  if (kind == 2) {
    const std::string s = in.text(40);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, s.size() + 1);
    const hid_t a = H5Acreate2(o, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) H5Awrite(a, type, s.c_str()), H5Aclose(a);
    H5Tclose(type);
  } else {
    const hid_t type = kind == 0 ? H5T_IEEE_F64LE : H5T_STD_I64LE;
    const hid_t a = H5Acreate2(o, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (a >= 0) {
      const double dv = in.real();
      const std::int64_t iv = in.integer();
      if (kind == 0)
        H5Awrite(a, H5T_NATIVE_DOUBLE, &dv);
      else
        H5Awrite(a, H5T_NATIVE_INT64, &iv);
      H5Aclose(a);
    }
  }
  H5Sclose(space);
  H5Oclose(o);
}

}  // namespace

Inventory inventory(const std::string& path) {
  Inventory inv;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("cannot open template '" + path + "'");
  H5Ovisit2(f, H5_INDEX_NAME, H5_ITER_INC, visit, &inv, H5O_INFO_BASIC);
  H5Fclose(f);
  return inv;
}

void mutate_copy(const std::string& templ, const Inventory& inv, const std::string& out,
                 Input& in) {
  {
    std::ifstream src(templ, std::ios::binary);
    std::ofstream dst(out, std::ios::binary | std::ios::trunc);
    dst << src.rdbuf();
  }
  const hid_t f = H5Fopen(out.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (f < 0) return;
  for (int op = in.byte() % 9; op > 0 && !in.empty(); --op) {
    const std::uint8_t what = in.byte() % 5;
    if (what <= 2 && !inv.datasets.empty()) {
      const std::string& d = inv.datasets[in.below(inv.datasets.size())];
      if (what == 0)
        overwrite_values(f, d, in);
      else if (what == 1)
        H5Ldelete(f, d.c_str(), H5P_DEFAULT);
      else
        replace_dataset(f, d, in);
    } else if (!inv.attributes.empty()) {
      const auto& [obj, name] = inv.attributes[in.below(inv.attributes.size())];
      if (what == 3)
        replace_attribute(f, obj, name, in);
      else
        H5Adelete_by_name(f, obj.c_str(), name.c_str(), H5P_DEFAULT);
    }
  }
  H5Fclose(f);
}

void write_file(const std::string& path, const std::string& bytes, bool gz) {
  if (gz) {
    gzFile g = gzopen(path.c_str(), "wb");
    if (!g) throw std::runtime_error("cannot write '" + path + "'");
    if (!bytes.empty()) gzwrite(g, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(g);
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
}

}  // namespace lsgl::fuzz
